// `tilelens import starpu`: a StarPU execution as a workload and a measured run (core/imported_runs.hpp).
#include <ostream>

#include "app/cli/commands.hpp"
#include "core/imported_runs.hpp"

namespace tilelens::cli {

const CommandSpec kImportStarpu{
    "tilelens import starpu TASKS.rec [--data DATA.rec] [--db FILE] [--workload-out FILE]",
    "Import a StarPU execution written by starpu_fxt_tool: the task set becomes a workload (tasks, handles and\n"
    "sizes, dependencies, submit order) and the execution a measured run (worker, start and end of each task).\n"
    "Store both in a database, write the workload to a file to replay it under other schedulers, or both.",
    {{"data", "FILE", "data.rec, for handle names, sizes and coordinates", ""},
     {"db", "FILE", "store the workload and the measured run here", ""},
     {"workload-out", "FILE", "write the workload in tilelens' format", ""},
     {"name", "NAME", "the workload's name", "starpu"},
     {"platform", "PRESET|FILE", "the platform the run is recorded against (for the lower bound)", "v100-fgcs"},
     {"memory", "SIZE", "memory per GPU of that platform, as StarPU was limited (STARPU_LIMIT_CUDA_MEM)", ""}},
    "example:\n"
    "  tilelens import starpu tasks.rec --data data.rec --db runs.db --workload-out app.workload\n"
    "  tilelens sweep --workload app.workload --scheduler eager,rcm,mst --eviction lru,belady --db runs.db"};

int cmd_import_starpu(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (args.positional.size() != 1) return fail(err, "expected the tasks.rec file; see tilelens import starpu --help");
  core::StarpuImportRequest request;
  request.tasks_file = args.positional[0];
  request.data_file = args.get("data");
  request.name = args.get("name");
  request.platform = args.get("platform");
  if (args.has("memory")) {
    auto memory = parse_memory(args.get("memory"));
    if (!memory) return fail(err, "--memory: " + memory.error().message);
    request.memory = *memory;
  }
  request.database = args.get("db");
  request.workload_out = args.get("workload-out");
  auto imported = core::import_starpu_run(request);
  if (!imported) return fail(err, imported.error().message);
  const StarpuExecution& execution = imported->execution;
  for (const auto& warning : execution.warnings) err << "tilelens: warning: " << warning << "\n";
  const Workload& w = execution.workload;
  out << "imported     " << request.tasks_file << ": " << w.task_count() << " tasks, " << w.data_count() << " data, "
      << w.dependency_count() << " dependencies, working set " << format_bytes(static_cast<double>(w.working_set_bytes())) << "\n";
  out << "measured     " << execution.trace.tasks.size() << " task executions on " << execution.workers.size()
      << " workers, makespan " << format_duration(execution.summary.makespan_ns) << " (" << format_fixed(execution.summary.gflops, 0)
      << " GFlop/s)";
  if (execution.unexecuted_tasks) out << "; " << execution.unexecuted_tasks << " tasks without an execution";
  out << "\n";
  if (!request.workload_out.empty()) out << "workload     written to " << request.workload_out << "\n";
  if (imported->run_id) {
    out << "stored       workload " << imported->workload_id << " and run " << imported->run_id << " in " << imported->database << "\n";
  }
  return 0;
}

}  // namespace tilelens::cli
