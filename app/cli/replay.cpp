// `tilelens replay`: one replay, printed, and stored with --db.
#include <fstream>
#include <ostream>

#include "app/cli/commands.hpp"
#include "core/exports.hpp"
#include "app/cli/run_report.hpp"
#include "core/replay_request.hpp"

namespace tilelens::cli {

namespace {

std::vector<OptionSpec> replay_options() {
  std::vector<OptionSpec> options = {
      {"workload", "SPEC|FILE", "a generator spec (matmul2d:N=20) or a workload file", ""},
      {"scheduler", "NAME[:k=v]", "scheduling policy; 'list' prints them", "eager"},
      {"eviction", "NAME", "eviction policy; 'list' prints them", "lru"},
      {"platform", "PRESET|FILE", "start from a platform preset ('list' prints them) or a platform file (tilelens calibrate)", "v100-fgcs"}};
  for (auto& option : platform_option_specs()) options.push_back(std::move(option));
  options.insert(options.end(),
                 {{"buffer", "DEPTH", "tasks a GPU holds (running one included); 1 = no prefetch window", "4"},
                  {"memory-model", "SPEC", "how memory serves requests: starpu (StarPU 1.3's rules, with key=value overrides) or fgcs (the papers'); see docs/replay.md", "starpu"},
                  {"charge-scheduling", "", "delay the start by the scheduler's prepare() wall time (fgcs \"HFP with sched. time\")", ""},
                  {"scheduling-cost", "SPEC", "charge each push and pop on the clock: push=2us,pop=1us,pop_per_task=5ns (tilelens calibrate fits it; docs/replay.md)", ""},
                  {"json", "", "print the summary as JSON", ""},
                  {"csv", "", "print the summary as one CSV row (with --csv-header, the header first)", ""},
                  {"csv-header", "", "with --csv, print the header row too", ""},
                  {"order-out", "FILE", "write the processing order with each task's loads as CSV", ""},
                  {"trace-out", "FILE", "write the whole trace in tilelens' text form", ""},
                  {"db", "FILE", "store the run, its trace and its metrics in this database (created if absent)", ""}});
  return options;
}

}  // namespace

const CommandSpec kReplay{
    "tilelens replay --workload SPEC|FILE [options]",
    "Replay a workload under a scheduler and an eviction policy on simulated GPUs (DESIGN section 3)\n"
    "and print what it cost: loads (fetch/prefetch), bytes, the lower bound and the ratio to it,\n"
    "makespan, GFlop/s, idle time and the scheduler's own time.",
    replay_options(),
    "Sizes: B, KB, MB, GB (powers of 1000) and KiB, MiB, GiB (powers of 1024). The papers' \"MB\" are MiB.\n"
    "examples:\n"
    "  tilelens replay --workload matmul2d:N=20 --scheduler rcm --eviction lru --memory 250MiB\n"
    "  tilelens replay --workload matmul2d:N=4 --memory 4items --buffer 1 --eviction belady --order-out o.csv\n"
    "  tilelens replay --workload cholesky:N=20 --scheduler eager --db runs.db   (then: tilelens runs list --db runs.db)"};

int cmd_replay(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (args.get("scheduler") == "list") {
    out << list_schedulers();
    return 0;
  }
  if (args.get("eviction") == "list") {
    out << list_evictions();
    return 0;
  }
  if (args.get("platform") == "list") {
    out << list_platforms();
    return 0;
  }
  if (!args.positional.empty()) return fail(err, "unexpected argument '" + args.positional[0] + "'; see tilelens replay --help");
  if (args.has("json") && (args.has("csv") || args.has("csv-header"))) return fail(err, "--json and --csv print the summary two ways: give one");
  if (args.has("csv-header") && !args.has("csv")) return fail(err, "--csv-header goes with --csv");
  core::ReplayRequest request;
  request.workload = args.get("workload");
  request.scheduler = args.get("scheduler");
  request.eviction = args.get("eviction");
  request.platform.base = args.get("platform");
  if (auto status = read_platform_options(args, request.platform); !status) return fail(err, describe(status.error()));
  auto depth = core::parse_buffer_depth(args.get("buffer"));
  if (!depth) return fail(err, describe(depth.error()));
  request.buffer_depth = *depth;
  request.charge_scheduling = args.has("charge-scheduling");
  request.memory_model = args.get("memory-model");
  request.scheduling_cost = args.get("scheduling-cost");

  core::RunOutputs outputs;
  outputs.database = args.get("db");
  outputs.keep_trace = args.has("order-out") || args.has("trace-out");
  auto outcome = core::run_replay(request, outputs);
  if (!outcome) return fail(err, describe(outcome.error()));
  if (!outcome->error.empty()) {
    if (outcome->info.id) err << "stored failed run " << outcome->info.id << " in " << outcome->database << "\n";
    return fail(err, outcome->error);
  }
  if (outcome->info.id) err << "stored run " << outcome->info.id << " in " << outcome->database << "\n";
  const RunInfo& info = outcome->info;
  const RunMetrics& metrics = *outcome->metrics;
  if (args.has("json")) {
    print_json(info, metrics, out);
  } else if (args.has("csv")) {
    if (args.has("csv-header")) print_csv_header(out);
    print_csv_row(info, metrics, out);
  } else {
    print_summary(info, metrics, out);
  }
  if (args.has("order-out")) {
    auto written = write_output_file(args.get("order-out"), [&](std::ostream& file) {
      write_order_csv(outcome->workload, outcome->trace, file);
      return Status::success();
    });
    if (!written) return fail(err, "--order-out: " + describe(written.error()));
  }
  if (args.has("trace-out")) {
    auto written = write_output_file(args.get("trace-out"), [&](std::ostream& file) {
      write_trace_text(outcome->trace, file);
      return Status::success();
    });
    if (!written) return fail(err, "--trace-out: " + describe(written.error()));
  }
  return 0;
}

}  // namespace tilelens::cli
