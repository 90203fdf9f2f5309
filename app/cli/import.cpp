// `tilelens import FILE...` and `tilelens import starpu`: a StarPU execution as a workload and a
// measured run (core/imported_runs.hpp); the first recognises each file by its content.
#include <ostream>
#include <set>

#include "app/cli/commands.hpp"
#include "core/imported_runs.hpp"

namespace tilelens::cli {
namespace {

// The options both import commands take (read_import_options), after a command's own.
std::vector<OptionSpec> with_import_options(std::vector<OptionSpec> options) {
  options.insert(options.end(),
                 {{"scheduler", "NAME", "the StarPU scheduler that ran it (STARPU_SCHED), recorded as tilelens' policy of that name", ""},
                  {"rank", "R", "import MPI rank R only (default: every rank, on lanes of its own)", ""},
                  {"lenient", "", "import what can be read: a cut last record and unreadable records are left out, each named in a warning", ""},
                  {"records", "", "list every record of the tasks file: kept as a task, skipped or left out, and why", ""},
                  {"db", "FILE", "store the workload and the measured run here", ""},
                  {"workload-out", "FILE", "write the workload in tilelens' format", ""},
                  {"name", "NAME", "the workload's name", "starpu"},
                  {"platform", "PRESET|FILE", "the platform the run is recorded against (default: its own layout, rates and bandwidth, as measured)", ""},
                  {"memory", "SIZE", "memory per GPU of that platform, as StarPU was limited (STARPU_LIMIT_CUDA_MEM)", ""}});
  return options;
}

}  // namespace

const CommandSpec kImportStarpu{
    "tilelens import starpu TASKS.rec [--data DATA.rec] [--paje PAJE.trace] [--scheduler NAME] [--db FILE] [--workload-out FILE]",
    "Import a StarPU execution written by starpu_fxt_tool: the task set becomes a workload (tasks, registrations\n"
    "and sizes, dependencies, submit order) and the execution a measured run (worker, start and end of each task,\n"
    "and with --paje the transfers StarPU made). Each MPI rank's workers are lanes of their own. Store both in a\n"
    "database, write the workload to a file to replay it under other schedulers, or both. What is kept and what is\n"
    "skipped: docs/starpu-import.md.",
    with_import_options({{"data", "FILE", "data.rec, for names, coordinates and registered sizes", ""},
                         {"paje", "FILE", "paje.trace (from starpu_fxt_tool -memory-states): registrations' times and the transfers", ""}}),
    "example:\n"
    "  tilelens import starpu tasks.rec --data data.rec --paje paje.trace --scheduler dmdar --db runs.db --workload-out app.workload\n"
    "  tilelens sweep --workload app.workload --scheduler eager,rcm,mst --eviction lru,belady --db runs.db"};

namespace {

// The options both import commands take, into `request`; the exit status on a bad one, else -1.
int read_import_options(const ParsedArgs& args, core::StarpuImportRequest& request, std::ostream& err) {
  request.scheduler = args.get("scheduler");
  if (args.has("rank")) {
    auto rank = parse_integer(args.get("rank"));
    if (!rank) return fail(err, "--rank: " + describe(rank.error()));
    if (*rank < 0) return fail(err, "--rank: a rank is 0 or more");
    request.rank = *rank;
  }
  request.name = args.get("name");
  request.lenient = args.has("lenient");
  request.platform = args.get("platform");
  if (args.has("memory")) {
    auto memory = parse_memory(args.get("memory"));
    if (!memory) return fail(err, "--memory: " + describe(memory.error()));
    request.memory = *memory;
  }
  request.database = args.get("db");
  request.workload_out = args.get("workload-out");
  return -1;
}

// Imports, and says what was kept, left out and measured.
int import_and_report(const core::StarpuImportRequest& request, bool list_records, std::ostream& out, std::ostream& err) {
  auto imported = core::import_starpu_run(request);
  if (!imported) return fail(err, describe(imported.error()));
  const StarpuExecution& execution = imported->execution;
  for (const auto& warning : execution.report.warnings) err << "tilelens: warning: " << warning << "\n";
  for (const auto& note : execution.report.notes) out << "note         " << note << "\n";
  if (!execution.report.records.empty()) {
    out << "records      " << records_summary(execution.report) << (list_records ? "" : " (--records lists each, with why)") << "\n";
    if (list_records) {
      for (const auto& record : execution.report.records) out << "record       " << record_line(record) << "\n";
    }
  }
  const Workload& w = execution.workload;
  out << "imported     " << request.tasks_file << ": " << w.task_count() << " tasks, " << w.data_count() << " data, "
      << w.dependency_count() << " dependencies, working set " << format_bytes(static_cast<double>(w.working_set_bytes())) << "\n";
  std::set<std::int64_t> ranks;
  for (const StarpuLane& lane : execution.lanes) ranks.insert(lane.rank);
  out << "measured     " << execution.trace.tasks.size() << " task executions on " << execution.lanes.size() << " workers";
  if (ranks.size() > 1) out << " of " << ranks.size() << " MPI ranks";
  out << ", makespan " << format_duration(execution.summary.makespan_ns) << " (" << format_fixed(execution.summary.gflops, 2) << " GFlop/s)";
  if (execution.unexecuted_tasks) out << "; " << execution.unexecuted_tasks << " tasks without an execution";
  out << "\n";
  const Platform& p = imported->platform;
  out << "layout       " << p.gpus << " workers on " << p.memory_nodes() << (p.memory_nodes() == 1 ? " memory" : " memories");
  if (p.cpus) out << ", " << p.cpus << " CPU workers on the host";
  out << "\n";
  if (execution.transfers_recorded) {
    const ReplaySummary& s = execution.summary;
    out << "transfers    " << s.loads << " loads (" << format_bytes(s.bytes_loaded) << "), " << s.writebacks << " write-backs ("
        << format_bytes(s.bytes_written_back) << ")\n";
  } else {
    out << "transfers    not recorded (give --paje, from starpu_fxt_tool -memory-states)\n";
  }
  if (imported->policy) {
    out << "scheduler    " << request.scheduler << " replays as " << imported->policy->scheduler;
    if (!imported->policy->exact) out << " (the nearest: " << imported->policy->note << ")";
    out << "\n";
  } else {
    out << "scheduler    not given (--scheduler): the run cannot be replayed under its own policy by fidelity\n";
  }
  if (!request.workload_out.empty()) out << "workload     written to " << request.workload_out << "\n";
  if (imported->run_id) {
    out << "stored       workload " << imported->workload_id << " and run " << imported->run_id << " in " << imported->database << "\n";
  }
  return 0;
}

}  // namespace

int cmd_import_starpu(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (args.positional.size() != 1) return fail(err, "expected the tasks.rec file; see tilelens import starpu --help");
  core::StarpuImportRequest request;
  request.tasks_file = args.positional[0];
  request.data_file = args.get("data");
  request.paje_file = args.get("paje");
  if (const int status = read_import_options(args, request, err); status >= 0) return status;
  return import_and_report(request, args.has("records"), out, err);
}

const CommandSpec kImportFiles{
    "tilelens import FILE... [--scheduler NAME] [--db FILE] [--workload-out FILE]",
    "Import a runtime's trace files, each recognised by its content: StarPU's tasks.rec, data.rec and paje.trace\n"
    "(starpu_fxt_tool), in any order. The same as `tilelens import starpu TASKS.rec --data DATA.rec --paje\n"
    "PAJE.trace`, with the same options.",
    with_import_options({}),
    "example:\n"
    "  tilelens import run/paje.trace run/tasks.rec run/data.rec --scheduler dmdar --db runs.db"};

int cmd_import_files(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (args.positional.empty()) return fail(err, "expected the files to import; see tilelens import --help");
  auto request = core::starpu_request_from_files(args.positional);
  if (!request) return fail(err, describe(request.error()));
  if (const int status = read_import_options(args, *request, err); status >= 0) return status;
  return import_and_report(*request, args.has("records"), out, err);
}

}  // namespace tilelens::cli
