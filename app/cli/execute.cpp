// The measured side of the CLI: `tilelens execute` (the CUDA executor), `tilelens calibrate`
// (a replay platform from a measured run) and `tilelens fidelity` (replay a measured run on
// its calibrated platform and compare), each a core request (core/measured_runs.hpp).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <ostream>

#include <nlohmann/json.hpp>

#include "app/cli/commands.hpp"
#include "app/cli/run_report.hpp"
#include "core/measured_runs.hpp"
#include "core/replay_request.hpp"
#include "core/exports.hpp"

namespace tilelens::cli {
namespace {

// The executor's options with the platform table's after --platform.
std::vector<OptionSpec> execute_options(std::vector<OptionSpec> options) {
  auto at = std::find_if(options.begin(), options.end(), [](const OptionSpec& o) { return o.name == "platform"; }) + 1;
  const auto table = platform_option_specs();
  options.insert(at, table.begin(), table.end());
  return options;
}

Result<std::size_t> count_option(const ParsedArgs& args, const char* name, const std::string& what) {
  auto value = parse_integer(args.get(name));
  if (!value || *value < 0) return make_error(what);
  return static_cast<std::size_t>(*value);
}

}  // namespace

const CommandSpec kExecute{
    "tilelens execute (--workload SPEC|FILE | --from-run ID --db FILE) [options]",
    "Run a workload's real kernels (cuBLAS/cuSOLVER; fp32, or fp64 for elem=8 and double traces) on NVIDIA\n"
    "GPUs under a scheduler and an eviction policy, each GPU's memory capped at --memory, and record what\n"
    "happened: task executions, loads as fetch or prefetch, evictions, write-backs (CUDA events), and\n"
    "CUPTI's activity records.\n"
    "The result is checked against a CPU reference on sampled tiles; a wrong result fails the run.\n"
    "The decisions are the replay engine's (docs/executor.md); --platform gives the schedulers' model, --gpus\n"
    "the GPUs to run on (CUDA devices from --device on) and --memory M, the arena reserved on each.\n"
    "An imported StarPU trace re-executes too: its kernels are mapped from their names (dgemm, spotrf,\n"
    "dplgsy, ...), and a kind with no known call waits on the GPU for its measured duration.\n"
    "--dry-run says, without a GPU, what would run: each kind's call, the precision, whether the result\n"
    "is checked, and the arena's slots per data size.",
    execute_options({{"workload", "SPEC|FILE", "a seed workload spec (matmul2d:N=20, cholesky:N=10, ...) or a workload file", ""},
     {"from-run", "ID", "re-execute the workload of a stored run (with its platform and depth) under another policy", ""},
     {"db", "FILE", "store the measured run here (and read --from-run from here)", ""},
     {"scheduler", "NAME[:k=v]", "scheduling policy; 'list' prints them (default: eager, or the stored run's)", "eager"},
     {"eviction", "NAME", "eviction policy; 'list' prints them (default: lru, or the stored run's)", "lru"},
     {"platform", "PRESET|FILE", "the platform the schedulers plan with (a preset or a tilelens calibrate file)", "h100"},
     {"buffer", "DEPTH", "tasks a GPU holds, running one included (StarPU's prefetch window)", "4"},
     {"memory-model", "SPEC", "how memory serves requests: starpu (with key=value overrides) or fgcs (docs/replay.md); default the stored run's", "starpu"},
     {"device", "INDEX", "the first CUDA device", "0"},
     {"logical-gpus", "K", "run K GPUs on the one device --device: K arenas of --memory and stream sets, GPU-to-GPU loads as device copies", ""},
     {"tf32", "", "TF32 tensor cores for the products (checked with a looser tolerance, 2e-2)", ""},
     {"no-cupti", "", "do not record CUPTI activity (to measure its overhead)", ""},
     {"cupti-apis", "all|launches|callbacks",
      "how CUPTI's records are linked to tasks: tracing all API calls, only the launches and copies, or none (CUPTI's callbacks on them)", "callbacks"},
     {"launch-ahead", "D", "kernels queued on a GPU behind the running one: 0, 1 or 2", "1"},
     {"seed", "N", "seed of the tiles' values", "1"},
     {"verify", "TILES", "tiles checked against the CPU reference (0: no check)", "8"},
     {"verify-rows", "ROWS", "rows checked per tile (0: all)", "16"},
     {"json", "", "print the summary as JSON", ""},
     {"trace-out", "FILE", "write the measured trace in tilelens' text form", ""},
     {"dry-run", "", "print the kernel plan and the arena's layout, and exit: no GPU needed", ""}}),
    "Without a GPU (or in a build without CUDA) the command says so and exits with status 1.\n"
    "examples:\n"
    "  tilelens execute --workload matmul2d:N=20 --scheduler hfp --eviction belady --memory 500MiB --db m.db\n"
    "  tilelens execute --from-run 1 --db m.db --scheduler darts --eviction luf\n"
    "  tilelens execute --workload app.workload --dry-run\n"
    "  tilelens execute --workload cholesky:N=30 --scheduler darts --logical-gpus 2 --memory 2GiB\n"
    "  tilelens calibrate --run 1 --db m.db --output h100.json && tilelens replay --workload matmul2d:N=20 --platform h100.json"};

const CommandSpec kCalibrate{
    "tilelens calibrate --run ID --db FILE [--output FILE]",
    "Derive a replay platform from a measured run: per-kind rates (flops over the time each kind's tasks\n"
    "kept a GPU busy), the host bus bandwidth and latency of its loads. Writes a platform file\n"
    "(docs/platform-file.md) that `tilelens replay --platform FILE` reads, and prints the cost of the\n"
    "scheduler's pushes and pops fitted from the run, for `tilelens replay --scheduling-cost SPEC`.",
    {{"run", "ID", "the measured run", ""},
     {"db", "FILE", "the database holding it", ""},
     {"output", "FILE", "write the platform file here (default: standard output)", ""}},
    ""};

const CommandSpec kFidelity{
    "tilelens fidelity --run ID --db FILE [--store]",
    "Replay a measured run's workload under its scheduler, eviction policy and depth on the platform\n"
    "calibrated from it, and print the differences: loads, bytes, fetches, write-backs and makespan.",
    {{"run", "ID", "the measured run", ""},
     {"db", "FILE", "the database holding it", ""},
     {"store", "", "store the replay in the database too", ""},
     {"json", "", "print the comparison as JSON", ""}},
    ""};

int cmd_execute(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  core::ExecuteRequest request;
  request.workload = args.get("workload");
  if (args.has("from-run")) {
    auto id = parse_integer(args.get("from-run"));
    if (!id) return fail(err, "--from-run: expected a run id (got '" + args.get("from-run") + "')");
    request.from_run = *id;
  }
  request.database = args.get("db");
  if (args.has("scheduler")) request.scheduler = args.get("scheduler");
  if (args.has("eviction")) request.eviction = args.get("eviction");
  request.platform.base = args.get("platform");
  if (auto status = read_platform_options(args, request.platform); !status) return fail(err, describe(status.error()));
  if (args.has("buffer")) {
    auto depth = core::parse_buffer_depth(args.get("buffer"));
    if (!depth) return fail(err, describe(depth.error()));
    request.buffer_depth = *depth;
  }
  if (args.has("memory-model")) request.memory_model = args.get("memory-model");
  request.tf32 = args.has("tf32");
  request.cupti = !args.has("no-cupti");
  if (args.has("cupti-apis")) {
    auto apis = instrument::parse_cupti_apis(args.get("cupti-apis"));
    if (!apis) return fail(err, "--cupti-apis: " + describe(apis.error()));
    request.cupti_apis = *apis;
  }
  if (args.has("launch-ahead")) {
    auto ahead = parse_integer(args.get("launch-ahead"));
    if (!ahead || *ahead < 0 || *ahead > instrument::kLaunchAheadMax) {
      return fail(err, "--launch-ahead must be 0, 1 or 2 kernels queued behind the running one (got '" + args.get("launch-ahead") + "')");
    }
    request.launch_ahead = static_cast<std::uint32_t>(*ahead);
  }
  auto seed = parse_integer(args.get("seed"));
  auto tiles = count_option(args, "verify", "--verify must be a count of tiles, 0 or more");
  auto rows = count_option(args, "verify-rows", "--verify-rows must be a count of rows, 0 or more");
  auto device = parse_integer(args.get("device"));
  if (!seed || *seed < 0) return fail(err, "--seed must be a whole number");
  if (!tiles) return fail(err, describe(tiles.error()));
  if (!rows) return fail(err, describe(rows.error()));
  if (!device || *device < 0 || *device > 4095) return fail(err, "--device must be a CUDA device index, 0 to 4095");
  request.seed = static_cast<std::uint64_t>(*seed);
  request.verify_tiles = *tiles;
  request.verify_rows = *rows;
  request.first_device = static_cast<int>(*device);
  if (args.has("logical-gpus")) {
    auto logical = parse_integer(args.get("logical-gpus"));
    if (!logical || *logical < 0 || *logical > std::numeric_limits<std::uint32_t>::max()) {
      return fail(err, "--logical-gpus must be a number of GPUs (got '" + args.get("logical-gpus") + "')");
    }
    request.logical_gpus = static_cast<std::uint32_t>(*logical);
  }

  auto prepared = core::prepare_execute(request);
  if (!prepared) return fail(err, describe(prepared.error()));
  if (args.has("dry-run")) {
    auto plan = core::plan_execute(*prepared);
    if (!plan) return fail(err, describe(plan.error()));
    out << "workload " << prepared->info.workload_spec << ": " << prepared->workload.task_count() << " tasks, "
        << prepared->workload.data_count() << " data\n";
    out << "kernels:\n";
    for (const std::string& line : plan->kernels) out << "  " << line << "\n";
    out << "arena:\n";
    for (const std::string& line : plan->arena) out << "  " << line << "\n";
    if (prepared->options.logical_gpus) {
      out << "  logical GPUs: all " << prepared->options.platform.gpus << " on CUDA device " << prepared->options.first_device
          << ", GPU-to-GPU loads as device-to-device copies (GPU link " << format_fixed(prepared->options.platform.gpu_link_bandwidth / 1e9, 0)
          << " GB/s for the engine and the schedulers)\n";
    }
    const instrument::ExecuteOptions& o = prepared->options;
    out << "run:\n  launch-ahead " << launch_ahead_words(o.launch_ahead) << "; CUPTI "
        << (o.cupti ? std::string("on, records linked to tasks by ") + to_string(o.cupti_apis) : std::string("off")) << "\n";
    return 0;
  }
  if (auto available = instrument::cuda_available(); !available) {
    err << "tilelens: execute needs a CUDA GPU: " << describe(available.error()) << "\n";
    return 1;
  }
  auto outcome = core::run_execute(std::move(*prepared));
  if (!outcome) return fail(err, describe(outcome.error()));
  if (outcome->info.id) err << "stored run " << outcome->info.id << " in " << outcome->database << "\n";
  if (args.has("json")) {
    print_json(outcome->info, outcome->metrics, out);
  } else {
    print_summary(outcome->info, outcome->metrics, out);
    print_measurement(outcome->measurement, out);
  }
  if (args.has("trace-out")) {
    std::ofstream file(args.get("trace-out"));
    if (!file) return fail(err, "cannot write --trace-out file '" + args.get("trace-out") + "'");
    write_trace_text(outcome->trace, file);
  }
  return 0;
}

int cmd_calibrate(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.has("run") || !args.has("db")) return fail(err, "give --run ID and --db FILE");
  auto store = db::Store::open(args.get("db"), db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return fail(err, "--db: " + describe(store.error()));
  auto id = parse_integer(args.get("run"));
  if (!id) return fail(err, "--run: expected a run id (got '" + args.get("run") + "')");
  auto loaded = core::load_measured_run(*store, *id);
  if (!loaded) return fail(err, describe(loaded.error()));
  auto calibration = core::calibrate_run(*loaded);
  if (!calibration) return fail(err, describe(calibration.error()));
  const Platform& p = calibration->platform;
  const std::string comment = "calibrated by tilelens calibrate from run " + args.get("run") + " of " + args.get("db") +
                              (loaded->run.info.gpu_name.empty() ? "" : " on " + loaded->run.info.gpu_name);
  std::ostream& report = args.has("output") ? out : err;
  for (const auto& [kind, rate] : p.kind_gflops) {
    report << kind << ": " << format_fixed(rate, 1) << " GFlop/s busy (kernel alone " << format_fixed(calibration->kernel_gflops[kind], 1)
           << "), " << calibration->tasks_per_kind[kind] << " tasks\n";
  }
  // What the run did not measure keeps the base platform's value, and says so, naming it.
  const RunInfo& info = loaded->run.info;
  const std::string base = "platform '" + info.platform.name + "'";
  const std::string kept_bus = format_fixed(p.bus_bandwidth / 1e9, 2) + " GB/s and latency " + format_duration(p.latency_ns) + ", from " + base;
  if (!info.transfers_recorded) {
    report << "loads from the host: not recorded (the run was imported without its transfers): the bus keeps " << kept_bus << "\n";
  } else if (calibration->host_loads == 0) {
    report << "loads from the host: none in the run: the bus keeps " << kept_bus << "\n";
  } else {
    report << "loads from the host: " << calibration->host_loads << ", " << format_fixed(calibration->load_bytes_per_s / 1e9, 2)
           << " GB/s, latency " << format_duration(calibration->latency_ns) << "\n";
  }
  if (calibration->writeback_bytes_per_s > 0) report << "write-backs: " << format_fixed(calibration->writeback_bytes_per_s / 1e9, 2) << " GB/s\n";
  for (const auto& [kind, rate] : p.cpu_kind_gflops) {
    report << kind << " on a CPU worker: " << format_fixed(rate, 1) << " GFlop/s busy";
    // One core runs a few tens of GFlop/s in double precision; a rate far above that comes from
    // flops the application declared, not from what a core did.
    if (rate > 200) report << " (warning: no CPU core runs this fast; the task's flops are likely the application's count, not the work one core did)";
    report << "\n";
  }
  if (calibration->decisions > 0) {
    report << "scheduling cost, fitted on " << calibration->decisions << " pushes and pops: replay with --scheduling-cost "
           << calibration->scheduling_cost.canonical() << "\n";
  } else {
    report << "scheduling cost: none recorded (" << (info.mode == RunMode::StarPU ? "the trace has no pushes or pops" : "the run records no decisions")
           << "): replays charge none unless --scheduling-cost is given\n";
  }
  if (!args.has("output")) {
    write_platform_json(p, out, comment);
    return 0;
  }
  return with_output(args, out, err, [&](std::ostream& file) {
    write_platform_json(p, file, comment);
    return Status::success();
  });
}

int cmd_fidelity(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.has("run") || !args.has("db")) return fail(err, "give --run ID and --db FILE");
  auto store = db::Store::open(args.get("db"), args.has("store") ? db::Store::OpenMode::ReadWrite : db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return fail(err, "--db: " + describe(store.error()));
  auto id = parse_integer(args.get("run"));
  if (!id) return fail(err, "--run: expected a run id (got '" + args.get("run") + "')");
  auto report = core::fidelity(*store, *id, args.has("store"));
  if (!report) return fail(err, describe(report.error()));
  if (report->stored_run_id) err << "stored the replay as run " << report->stored_run_id << "\n";
  const RunInfo& measured = report->measured.run.info;
  const Platform& platform = report->calibration.platform;
  const ReplaySummary& m = report->measured.run.metrics->summary;
  const ReplaySummary& r = report->replayed.run.metrics->summary;
  struct Row {
    const char* name;
    double measured, replayed;
    bool time;
    bool transfer;  // unknown for a run imported without its transfers
  };
  const Row rows[] = {{"loads", double(m.loads), double(r.loads), false, true},
                      {"fetches", double(m.fetches), double(r.fetches), false, true},
                      {"prefetches", double(m.prefetches), double(r.prefetches), false, true},
                      {"bytes loaded", m.bytes_loaded, r.bytes_loaded, false, true},
                      {"evictions", double(m.evictions), double(r.evictions), false, true},
                      {"write-backs", double(m.writebacks), double(r.writebacks), false, true},
                      {"makespan", double(m.makespan_ns), double(r.makespan_ns), true, false},
                      {"GFlop/s", m.gflops, r.gflops, false, false}};
  const bool recorded = measured.transfers_recorded;
  const auto difference = [](double a, double b) { return a != 0 ? (b - a) / a * 100 : (b == 0 ? 0.0 : 100.0); };
  if (args.has("json")) {
    // Through nlohmann: names escaped, and a non-finite figure written as null, never as
    // the invalid 'inf'.
    nlohmann::ordered_json json;
    json["run"] = measured.id;
    json["platform"] = platform.name;
    for (const Row& row : rows) {
      std::string key = row.name;
      for (char& c : key) c = c == ' ' || c == '-' ? '_' : c;
      if (row.transfer && !recorded) {  // "no value", as the text's "not recorded"
        json[key] = {{"measured", nullptr}, {"replayed", row.replayed}, {"difference_percent", nullptr}};
        continue;
      }
      json[key] = {{"measured", row.measured}, {"replayed", row.replayed}, {"difference_percent", difference(row.measured, row.replayed)}};
    }
    out << json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return 0;
  }
  const std::string where = measured.mode == RunMode::StarPU ? "imported from a StarPU trace"
                            : measured.gpu_name.empty()         ? "measured on an unnamed device"
                                                                : "measured on " + measured.gpu_name;
  out << "run " << measured.id << ": " << measured.workload_spec << ", " << core::policy_label(measured) << ", depth " << measured.buffer_depth
      << ", " << where << "\n";
  out << "replayed on its calibrated platform " << platform.name << " (from platform '" << measured.platform.name << "': "
      << format_fixed(platform.default_gflops, 0) << " GFlop/s, " << format_fixed(platform.bus_bandwidth / 1e9, 2) << " GB/s)\n\n";
  char line[200];
  std::snprintf(line, sizeof line, "%-14s %16s %16s %10s\n", "", "measured", "replayed", "diff");
  out << line;
  for (const Row& row : rows) {
    const std::string a = row.time ? format_duration(static_cast<std::int64_t>(row.measured)) : format_fixed(row.measured, row.measured == std::floor(row.measured) ? 0 : 1);
    const std::string b = row.time ? format_duration(static_cast<std::int64_t>(row.replayed)) : format_fixed(row.replayed, row.replayed == std::floor(row.replayed) ? 0 : 1);
    if (row.transfer && !recorded) {
      std::snprintf(line, sizeof line, "%-14s %16s %16s %10s\n", row.name, "not recorded", b.c_str(), "-");
    } else {
      std::snprintf(line, sizeof line, "%-14s %16s %16s %9.1f%%\n", row.name, a.c_str(), b.c_str(), difference(row.measured, row.replayed));
    }
    out << line;
  }
  if (!recorded) {
    out << "the loads cannot be compared: the run was imported without its transfers (import it with --paje)\n";
  } else {
    out << (m.loads == r.loads ? "the loads match exactly\n" : "the loads differ\n");
  }
  return 0;
}

}  // namespace tilelens::cli
