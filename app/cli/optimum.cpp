// `tilelens optimum`: the order of fewest loads on a small instance (the exact search of
// schedulers/optimum_search.hpp, run as the scheduler "optimum" under Belady, the papers' memory
// model and no prefetch), proven or with the bound proven so far; and `tilelens bench optimum`,
// how far the search reaches.
#include <chrono>
#include <cmath>
#include <ostream>

#include "app/cli/commands.hpp"
#include "app/cli/run_report.hpp"
#include "core/replay_request.hpp"
#include "core/policies.hpp"
#include "core/units.hpp"

namespace tilelens::cli {
namespace {

constexpr const char* kLimits =
    "The search takes one or two GPUs (two for tasks that only read) without CPU workers, data of one size (the\n"
    "papers' model), at most 64 tasks and 64 data; its run is Belady on the order found, under the fgcs memory\n"
    "model with buffer 1 (no prefetch), and `--scheduler optimum` in a replay or a sweep needs the same\n"
    "(--eviction belady --memory-model fgcs --buffer 1). Within 10 s on a 2-core machine it proves matmul2d up\n"
    "to N = 6 at M = 4 tiles (36 tasks) on one GPU, N = 4 on two; `tilelens bench optimum` measures the reach\n"
    "on yours. docs/optimum.md says how it searches.";

std::uint64_t counter(const RunMetrics& metrics, std::string_view name) { return metrics.summary.scheduler_counter(name).value_or(0); }

core::ReplayRequest optimum_request(const std::string& workload, double seconds) {
  core::ReplayRequest request;
  request.workload = workload;
  request.scheduler = "optimum:time_limit=" + format_fixed(seconds, 3);
  request.eviction = "belady";
  request.memory_model = "fgcs";
  request.buffer_depth = 1;
  return request;
}

}  // namespace

const CommandSpec kOptimum{
    "tilelens optimum --workload SPEC|FILE --memory SIZE [--time-limit S] [--json] [--db FILE]",
    "The order of the tasks that loads the fewest data (fgcs section 4: minimising loads is NP-complete, so\n"
    "this is for small instances): an exact search over (tasks done, data in memory), by A* with the 2D\n"
    "product's symmetry (and, on two GPUs, theirs). Prints the loads, whether they are proven optimal, else\n"
    "the lower bound proven within the time limit and the gap, the papers' lower bound, and the order. With\n"
    "--db the run is stored as scheduler 'optimum', to draw and compare like any other.",
    {{"workload", "SPEC|FILE", "a generator spec (matmul2d:N=5) or a workload file", ""},
     {"memory", "SIZE", "memory of the GPU: 4items (tiles), or bytes (250MiB)", ""},
     {"platform", "PRESET|FILE", "the platform the run is recorded on (one or two GPUs, no CPU workers)", "v100-fgcs"},
     {"gpus", "N", "GPUs, 1 or 2 (two only for tasks that only read); the optimum minimises the loads alone", ""},
     {"time-limit", "S", "seconds of search; then the best order found, with the bound proven", "10"},
     {"json", "", "print loads, lower_bound, proven, gap, the order and the search's figures as JSON", ""},
     {"db", "FILE", "store the run in this database", ""}},
    kLimits};

int cmd_optimum(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.positional.empty()) return fail(err, "unexpected argument '" + args.positional[0] + "'; see tilelens optimum --help");
  if (!args.has("memory")) return fail(err, "--memory is required: the GPU's memory (4items, or 250MiB)");
  auto seconds = parse_real(args.get("time-limit"));
  if (!seconds || !(*seconds > 0) || *seconds > 86400) return fail(err, "--time-limit must be seconds above 0, at most 86400");
  core::ReplayRequest request = optimum_request(args.get("workload"), *seconds);
  request.platform.base = args.get("platform");
  if (auto status = read_platform_options(args, request.platform); !status) return fail(err, describe(status.error()));
  core::RunOutputs outputs;
  outputs.database = args.get("db");
  outputs.keep_trace = true;
  auto outcome = core::run_replay(request, outputs);
  if (!outcome) return fail(err, describe(outcome.error()));
  if (!outcome->error.empty()) return fail(err, outcome->error);
  if (outcome->info.id) err << "stored run " << outcome->info.id << " in " << outcome->database << "\n";
  const RunMetrics& metrics = *outcome->metrics;
  const std::uint64_t loads = metrics.summary.loads;
  const std::uint64_t bound = counter(metrics, "optimum_lower_bound");
  const bool proven = counter(metrics, "optimum_proven") == 1;
  const double gap = bound > 0 ? static_cast<double>(loads - std::min(loads, bound)) / static_cast<double>(bound) : 0;
  const double item = outcome->workload.largest_data_bytes() > 0 ? static_cast<double>(outcome->workload.largest_data_bytes()) : 1;
  const double paper_bound = std::ceil(metrics.lower_bound_bytes / item - 1e-9);
  std::vector<TaskId> order;
  std::vector<GpuId> gpu;
  for (const TaskRecord& record : outcome->trace.tasks) order.push_back(record.task), gpu.push_back(record.gpu);
  const bool two = outcome->info.platform.gpus > 1;
  if (args.has("json")) {
    out << "{\"workload\":\"" << json_escape(outcome->info.workload_spec) << "\",\"memory_items\":"
        << format_fixed(std::floor(outcome->info.platform.memory_bytes / item + 1e-9), 0) << ",\"loads\":" << loads
        << ",\"lower_bound\":" << bound << ",\"proven\":" << (proven ? "true" : "false") << ",\"gap\":" << format_fixed(gap, 6)
        << ",\"paper_lower_bound\":" << format_fixed(paper_bound, 0) << ",\"states_expanded\":" << counter(metrics, "optimum_states_expanded")
        << ",\"search_ms\":" << counter(metrics, "optimum_search_ms") << ",\"run\":" << outcome->info.id << ",\"order\":[";
    for (std::size_t i = 0; i < order.size(); ++i) out << (i ? "," : "") << order[i];
    out << "],\"gpu\":[";
    for (std::size_t i = 0; i < gpu.size(); ++i) out << (i ? "," : "") << gpu[i];
    out << "]}\n";
    return 0;
  }
  out << "workload      " << outcome->info.workload_spec << "\n";
  out << "memory        " << format_fixed(std::floor(outcome->info.platform.memory_bytes / item + 1e-9), 0) << " items ("
      << format_binary_bytes(outcome->info.platform.memory_bytes) << ")\n";
  out << "loads         " << loads << (proven ? " (proven optimal)" : "") << "\n";
  if (!proven) {
    out << "lower bound   " << bound << " proven within " << format_fixed(*seconds, 1) << " s: gap " << format_fixed(100 * gap, 1)
        << "% (the order found may be optimal; the search could not prove it)\n";
  }
  out << "papers' bound " << format_fixed(paper_bound, 0) << " loads (" << metrics.lower_bound << ")\n";
  out << "search        " << counter(metrics, "optimum_states_expanded") << " states expanded in "
      << format_duration(static_cast<std::int64_t>(counter(metrics, "optimum_search_ms")) * 1000000) << "\n";
  out << (two ? "order (GPU)   " : "order         ");
  for (std::size_t i = 0; i < order.size(); ++i) {
    out << (i ? " " : "") << outcome->workload.task_label(order[i]) << (two ? " (" + std::to_string(gpu[i]) + ")" : "");
  }
  out << "\n";
  return 0;
}

const CommandSpec kBenchOptimum{
    "tilelens bench optimum [--quick] [--time-limit S]",
    "How far the exact search reaches: the time to prove the optimum of matmul2d at M = 4 tiles for N = 3, 4,\n"
    "... until one is not proven within the time limit (or the search's state limit), then the same for the\n"
    "random pairs (no symmetry) and for matmul2d on two GPUs, and the largest N proven of each.",
    {{"quick", "", "a 5 s limit and N up to 6 (a smoke test)", ""},
     {"time-limit", "S", "seconds per instance", "60"},
     {"cbc", "", "also solve each one-GPU instance as an integer program with CBC, within the same limit, and print its time", ""}},
    kLimits};

int cmd_bench_optimum(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  auto seconds = parse_real(args.get("time-limit"));
  if (!seconds || !(*seconds > 0)) return fail(err, "--time-limit must be seconds above 0");
  const bool quick = args.has("quick");
  const double limit = quick ? std::min(*seconds, 5.0) : *seconds;
  const int largest = quick ? 6 : 8;
  out << "exact optimum, M = 4 tiles per GPU, time limit " << format_fixed(limit, 0) << " s per instance\n";
  const bool cbc = args.has("cbc");
  out << "workload                      tasks  loads  bound  proven  states     time" << (cbc ? "   CBC: loads  bound  proven     time" : "") << "\n";
  const std::vector<std::pair<std::string, std::uint32_t>> families = {{"matmul2d", 1}, {"matmul2d-random-pairs", 1}, {"matmul2d", 2}};
  for (const auto& [family, gpus] : families) {
    int reach = 0;
    bool unproven = false;  // the reach is the largest N proven with every smaller one
    for (int n = 3; n <= largest; ++n) {
      core::ReplayRequest request = optimum_request(family + ":N=" + std::to_string(n), limit);
      request.platform.base = "v100-fgcs";
      request.platform.gpus = gpus;
      if (auto status = core::find_platform_option("memory")->set("4items", request.platform); !status) return fail(err, describe(status.error()));
      const auto start = std::chrono::steady_clock::now();
      auto outcome = core::run_replay(request);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!outcome) return fail(err, describe(outcome.error()));
      if (!outcome->error.empty()) {
        out << "  " << family << " N=" << n << ": " << outcome->error << "\n";
        break;
      }
      const RunMetrics& m = *outcome->metrics;
      const bool proven = counter(m, "optimum_proven") == 1;
      char line[200];
      std::snprintf(line, sizeof line, "%-28s %6llu %6llu %6llu  %-6s %7llu %8.2f s\n",
                    (family + ":N=" + std::to_string(n) + (gpus > 1 ? ", 2 GPUs" : "")).c_str(), static_cast<unsigned long long>(m.summary.tasks),
                    static_cast<unsigned long long>(m.summary.loads), static_cast<unsigned long long>(counter(m, "optimum_lower_bound")),
                    proven ? "yes" : "no", static_cast<unsigned long long>(counter(m, "optimum_states_expanded")), wall);
      std::string text = line;
      if (cbc && gpus == 1) {
        // The same instance as an integer program (schedulers/optimum_ilp.hpp), within the same limit.
        auto prepared = core::prepare_replay(request);
        if (!prepared) return fail(err, describe(prepared.error()));
        auto problem = optimum_problem(prepared->workload, prepared->options.platform);
        if (!problem) return fail(err, problem.error().message);
        const OptimumIlpResult ilp = solve_optimum_ilp(*problem, limit);
        text.pop_back();  // the newline
        if (!ilp.error.empty()) {
          text += "   " + ilp.error + "\n";
        } else {
          char loads[32] = "none";  // no schedule found within the limit
          if (std::isfinite(ilp.loads)) std::snprintf(loads, sizeof loads, "%.0f", ilp.loads);
          std::snprintf(line, sizeof line, "   %10s %6.0f  %-6s %8.2f s\n", loads, std::ceil(ilp.lower_bound - 1e-6), ilp.proven ? "yes" : "no",
                        ilp.seconds);
          text += line;
        }
      }
      out << text << std::flush;
      unproven = unproven || !proven;
      if (!unproven) reach = n;
      if (unproven && (!cbc || n >= 7)) break;  // with --cbc, one more size for CBC's figure
    }
    out << "  largest N proven within " << format_fixed(limit, 0) << " s" << (gpus > 1 ? " on 2 GPUs" : "") << ": "
        << (reach ? std::to_string(reach) : "none") << "\n";
  }
  return 0;
}

}  // namespace tilelens::cli
