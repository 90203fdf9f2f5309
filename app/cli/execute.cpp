// The measured side of the CLI: `tilelens execute` (the CUDA executor), `tilelens calibrate`
// (a replay platform from a measured run) and `tilelens fidelity` (replay a measured run on
// its calibrated platform and compare).
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/args.hpp"
#include "app/cli/commands.hpp"
#include "app/cli/run_report.hpp"
#include "store/store.hpp"
#include "instrument/executor.hpp"
#include "analysis/calibration.hpp"
#include "formats/platform_io.hpp"
#include "model/units.hpp"

namespace tilelens::cli {
namespace {

const CommandSpec kExecute{
    "tilelens execute (--workload SPEC | --from-run ID --db FILE) [options]",
    "Run a seed workload's real kernels (cuBLAS/cuSOLVER, fp32) on NVIDIA GPUs under a scheduler and an\n"
    "eviction policy, each GPU's memory capped at --memory, and record what happened: task executions,\n"
    "loads as fetch or prefetch, evictions, write-backs (CUDA events), and CUPTI's activity records.\n"
    "The result is checked against a CPU reference on sampled tiles; a wrong result fails the run.\n"
    "The decisions are the replay engine's (docs/executor.md); --platform gives the schedulers' model.",
    {{"workload", "SPEC", "a seed workload spec (matmul2d:N=20, cholesky:N=10, ...)", ""},
     {"from-run", "ID", "re-execute the workload of a stored run (with its platform and depth) under another policy", ""},
     {"db", "FILE", "store the measured run here (and read --from-run from here)", ""},
     {"scheduler", "NAME[:k=v]", "scheduling policy; 'list' prints them (default: eager, or the stored run's)", "eager"},
     {"eviction", "NAME", "eviction policy; 'list' prints them (default: lru, or the stored run's)", "lru"},
     {"platform", "PRESET|FILE", "the platform the schedulers plan with (a preset or a tilelens calibrate file)", "h100"},
     {"gpus", "K", "GPUs to run on (CUDA devices from --device on)", ""},
     {"memory", "SIZE", "M: the arena reserved on each GPU (2GB, 500MiB, 8items)", ""},
     {"buffer", "DEPTH", "tasks a GPU holds, running one included (StarPU's prefetch window)", "4"},
     {"device", "INDEX", "the first CUDA device", "0"},
     {"tf32", "", "TF32 tensor cores for the products (checked with a looser tolerance, 2e-2)", ""},
     {"no-cupti", "", "do not record CUPTI activity (to measure its overhead)", ""},
     {"seed", "N", "seed of the tiles' values", "1"},
     {"verify", "TILES", "tiles checked against the CPU reference (0: no check)", "8"},
     {"verify-rows", "ROWS", "rows checked per tile (0: all)", "16"},
     {"json", "", "print the summary as JSON", ""},
     {"trace-out", "FILE", "write the measured trace in tilelens' text form", ""}},
    "Without a GPU (or in a build without CUDA) the command says so and exits with status 3.\n"
    "examples:\n"
    "  tilelens execute --workload matmul2d:N=20 --scheduler hfp --eviction belady --memory 500MiB --db m.db\n"
    "  tilelens execute --from-run 1 --db m.db --scheduler darts --eviction luf\n"
    "  tilelens calibrate --run 1 --db m.db --output h100.json && tilelens replay --workload matmul2d:N=20 --platform h100.json"};

const CommandSpec kCalibrate{
    "tilelens calibrate --run ID --db FILE [--output FILE]",
    "Derive a replay platform from a measured run: per-kind rates (flops over the time each kind's tasks\n"
    "kept a GPU busy), the host bus bandwidth and latency of its loads. Writes a platform file\n"
    "(docs/platform-file.md) that `tilelens replay --platform FILE` reads.",
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

std::string hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

struct Loaded {
  db::StoredRun run;
  Workload workload;
  Trace trace;
};
Result<Loaded> load_measured(db::Store& store, const std::string& id_text) {
  auto id = parse_integer(id_text);
  if (!id) return make_error("--run: expected a run id (got '" + id_text + "')");
  auto run = store.load_run(*id);
  if (!run) return run.error();
  if (run->info.status != RunStatus::Complete) return make_error("run " + id_text + " did not complete");
  auto workload = store.load_workload(run->info.workload_id);
  if (!workload) return workload.error();
  auto trace = store.load_trace(*id);
  if (!trace) return trace.error();
  return Loaded{std::move(*run), std::move(*workload), std::move(*trace)};
}

}  // namespace

int cmd_execute(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  auto parsed = parse_args(kExecute, args);
  if (!parsed) return fail(err, parsed.error().message);
  if (parsed->has("help")) {
    out << help_text(kExecute);
    return 0;
  }
  if (parsed->has("workload") == parsed->has("from-run")) return fail(err, "give --workload or --from-run (one of them)");
  if (parsed->has("from-run") && !parsed->has("db")) return fail(err, "--from-run needs --db, the database holding the run");

  std::optional<db::Store> store;
  if (parsed->has("db")) {
    auto opened = db::Store::open(parsed->get("db"));
    if (!opened) return fail(err, "--db: " + opened.error().message);
    store.emplace(std::move(*opened));
  }
  // The replay options resolve the workload, the platform and the depth.
  ReplaySetup setup;
  if (parsed->has("workload")) {
    std::vector<std::string> replay_args = {"--workload", parsed->get("workload"), "--platform", parsed->get("platform"),
                                            "--buffer", parsed->get("buffer")};
    for (const char* option : {"gpus", "memory"}) {
      if (parsed->has(option)) {
        replay_args.push_back(std::string("--") + option);
        replay_args.push_back(parsed->get(option));
      }
    }
    auto resolved = resolve_replay_args(replay_args);
    if (!resolved) return fail(err, resolved.error().message);
    setup = std::move(*resolved);
    setup.scheduler_spec = parsed->get("scheduler");
    setup.eviction_spec = parsed->get("eviction");
  } else {
    auto id = parse_integer(parsed->get("from-run"));
    if (!id) return fail(err, "--from-run: expected a run id (got '" + parsed->get("from-run") + "')");
    auto run = store->load_run(*id);
    if (!run) return fail(err, "--from-run: " + run.error().message);
    auto workload = store->load_workload(run->info.workload_id);
    if (!workload) return fail(err, "--from-run: " + workload.error().message);
    setup.workload = std::move(*workload);
    setup.workload_spec = run->info.workload_spec;
    setup.options.platform = run->info.platform;
    setup.options.buffer_depth = run->info.buffer_depth;
    setup.scheduler_spec = parsed->has("scheduler") ? parsed->get("scheduler") : run->info.scheduler;
    setup.eviction_spec = parsed->has("eviction") ? parsed->get("eviction") : run->info.eviction;
    if (parsed->has("buffer")) {
      auto depth = parse_integer(parsed->get("buffer"));
      if (!depth || *depth < 1) return fail(err, "--buffer must be a whole number of tasks, at least 1");
      setup.options.buffer_depth = static_cast<std::uint32_t>(*depth);
    }
    if (parsed->has("memory")) {
      auto memory = parse_memory(parsed->get("memory"));
      if (!memory) return fail(err, "--memory: " + memory.error().message);
      setup.options.platform.memory_bytes =
          memory->items ? static_cast<double>(memory->items) * static_cast<double>(setup.workload.largest_data_bytes()) : memory->bytes;
    }
  }
  if (setup.scheduler_spec == "list" || setup.eviction_spec == "list") {
    return fail(err, "tilelens schedulers and tilelens evictions list the policies");
  }
  auto scheduler = make_scheduler(setup.scheduler_spec);
  if (!scheduler) return fail(err, "--scheduler: " + scheduler.error().message);
  auto eviction = make_eviction(setup.eviction_spec);
  if (!eviction) return fail(err, "--eviction: " + eviction.error().message);
  setup.scheduler_spec = scheduler->spec;
  setup.eviction_spec = eviction->spec;

  instrument::ExecuteOptions options;
  options.platform = setup.options.platform;
  options.buffer_depth = setup.options.buffer_depth;
  options.tf32 = parsed->has("tf32");
  options.cupti = !parsed->has("no-cupti");
  auto seed = parse_integer(parsed->get("seed"));
  auto samples = parse_integer(parsed->get("verify"));
  auto rows = parse_integer(parsed->get("verify-rows"));
  auto device = parse_integer(parsed->get("device"));
  if (!seed || *seed < 0) return fail(err, "--seed must be a whole number");
  if (!samples || *samples < 0) return fail(err, "--verify must be a count of tiles, 0 or more");
  if (!rows || *rows < 0) return fail(err, "--verify-rows must be a count of rows, 0 or more");
  if (!device || *device < 0) return fail(err, "--device must be a CUDA device index");
  options.seed = static_cast<std::uint64_t>(*seed);
  options.verify_samples = static_cast<std::size_t>(*samples);
  options.verify_rows = static_cast<std::size_t>(*rows);
  options.first_device = static_cast<int>(*device);

  if (auto available = instrument::cuda_available(); !available) {
    err << "tilelens: execute needs a CUDA GPU: " << available.error().message << "\n";
    return 3;
  }

  RunInfo info = run_info_of(setup);
  info.mode = RunMode::Cuda;
  info.host = hostname();
  info.seed = static_cast<std::int64_t>(options.seed);
  info.key = run_key(info.workload_spec, info.scheduler, info.eviction, info.platform, info.buffer_depth, info.mode);
  if (store) {
    auto workload_id = store->put_workload(setup.workload, "generated");
    if (!workload_id) return fail(err, "--db: " + workload_id.error().message);
    info.workload_id = *workload_id;
  }

  auto result = instrument::execute(setup.workload, *scheduler->scheduler, *eviction->policy, options);
  if (!result) {
    if (store) {
      if (auto begun = store->begin_run(info)) {
        if (auto id = begun->fail(result.error().message)) err << "stored failed run " << *id << " in " << store->path() << "\n";
      }
    }
    return fail(err, result.error().message);
  }
  info.gpu_name = result->measurement.device;
  const RunMetrics metrics = metrics_of(result->summary, reference_curves(setup.workload, setup.options.platform));
  if (store) {
    auto begun = store->begin_run(info);
    if (!begun) return fail(err, "--db: " + begun.error().message);
    begun->write(result->trace);
    begun->write_measurement(result->measurement, result->cupti_records);
    auto id = begun->finish(metrics);
    if (!id) return fail(err, "--db: " + id.error().message);
    info.id = *id;
    info.status = RunStatus::Complete;
    err << "stored run " << *id << " in " << store->path() << "\n";
  }
  if (parsed->has("json")) {
    print_json(info, metrics, out);
  } else {
    print_summary(info, metrics, out);
    print_measurement(result->measurement, out);
  }
  if (parsed->has("trace-out")) {
    std::ofstream file(parsed->get("trace-out"));
    if (!file) return fail(err, "cannot write --trace-out file '" + parsed->get("trace-out") + "'");
    write_trace_text(result->trace, file);
  }
  return 0;
}

int cmd_calibrate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  auto parsed = parse_args(kCalibrate, args);
  if (!parsed) return fail(err, parsed.error().message);
  if (parsed->has("help")) {
    out << help_text(kCalibrate);
    return 0;
  }
  if (!parsed->has("run") || !parsed->has("db")) return fail(err, "give --run ID and --db FILE");
  auto store = db::Store::open(parsed->get("db"), db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return fail(err, "--db: " + store.error().message);
  auto loaded = load_measured(*store, parsed->get("run"));
  if (!loaded) return fail(err, loaded.error().message);
  auto calibration = calibrate(loaded->workload, loaded->trace, loaded->run.info.platform);
  if (!calibration) return fail(err, "run " + parsed->get("run") + ": " + calibration.error().message);
  Platform& p = calibration->platform;
  p.name = "calibrated-run-" + parsed->get("run");
  const std::string comment = "calibrated by tilelens calibrate from run " + parsed->get("run") + " of " + parsed->get("db") +
                              (loaded->run.info.gpu_name.empty() ? "" : " on " + loaded->run.info.gpu_name);
  std::ostream& report = parsed->has("output") ? out : err;
  for (const auto& [kind, rate] : p.kind_gflops) {
    report << kind << ": " << fixed(rate, 1) << " GFlop/s busy (kernel alone " << fixed(calibration->kernel_gflops[kind], 1) << "), "
           << calibration->tasks_per_kind[kind] << " tasks\n";
  }
  report << "loads from the host: " << calibration->host_loads << ", " << fixed(calibration->load_bytes_per_s / 1e9, 2)
         << " GB/s, latency " << format_duration(calibration->latency_ns) << "\n";
  if (calibration->writeback_bytes_per_s > 0) report << "write-backs: " << fixed(calibration->writeback_bytes_per_s / 1e9, 2) << " GB/s\n";
  if (!parsed->has("output")) {
    write_platform_json(p, out, comment);
    return 0;
  }
  return with_output(*parsed, out, err, [&](std::ostream& file) {
    write_platform_json(p, file, comment);
    return Status::success();
  });
}

int cmd_fidelity(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  auto parsed = parse_args(kFidelity, args);
  if (!parsed) return fail(err, parsed.error().message);
  if (parsed->has("help")) {
    out << help_text(kFidelity);
    return 0;
  }
  if (!parsed->has("run") || !parsed->has("db")) return fail(err, "give --run ID and --db FILE");
  auto store = db::Store::open(parsed->get("db"), parsed->has("store") ? db::Store::OpenMode::ReadWrite : db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return fail(err, "--db: " + store.error().message);
  auto loaded = load_measured(*store, parsed->get("run"));
  if (!loaded) return fail(err, loaded.error().message);
  const RunInfo& measured = loaded->run.info;
  auto calibration = calibrate(loaded->workload, loaded->trace, measured.platform);
  if (!calibration) return fail(err, "run " + parsed->get("run") + ": " + calibration.error().message);
  auto scheduler = make_scheduler(measured.scheduler);
  if (!scheduler) return fail(err, "the run's scheduler: " + scheduler.error().message);
  auto eviction = make_eviction(measured.eviction);
  if (!eviction) return fail(err, "the run's eviction policy: " + eviction.error().message);
  ReplayOptions options;
  options.platform = calibration->platform;
  options.platform.name = "calibrated-run-" + parsed->get("run");
  options.buffer_depth = measured.buffer_depth;

  ReplaySetup setup;
  setup.workload = loaded->workload;
  setup.workload_spec = measured.workload_spec;
  setup.scheduler_spec = scheduler->spec;
  setup.eviction_spec = eviction->spec;
  setup.options = options;
  RunInfo info = run_info_of(setup);
  info.workload_id = measured.workload_id;
  std::optional<db::RunWriter> writer;
  if (parsed->has("store")) {
    auto begun = store->begin_run(info);
    if (!begun) return fail(err, "--db: " + begun.error().message);
    writer.emplace(std::move(*begun));
  }
  auto replayed = replay(loaded->workload, *scheduler->scheduler, *eviction->policy, options, writer ? &*writer : nullptr);
  if (!replayed) return fail(err, "the replay failed: " + replayed.error().message);
  if (writer) {
    auto id = writer->finish(metrics_of(*replayed, reference_curves(loaded->workload, options.platform)));
    if (!id) return fail(err, "--db: " + id.error().message);
    err << "stored the replay as run " << *id << "\n";
  }
  const ReplaySummary& m = loaded->run.metrics->summary;
  const ReplaySummary& r = *replayed;
  struct Row {
    const char* name;
    double measured, replayed;
    bool time;
  };
  const Row rows[] = {{"loads", double(m.loads), double(r.loads), false},
                      {"fetches", double(m.fetches), double(r.fetches), false},
                      {"prefetches", double(m.prefetches), double(r.prefetches), false},
                      {"bytes loaded", m.bytes_loaded, r.bytes_loaded, false},
                      {"evictions", double(m.evictions), double(r.evictions), false},
                      {"write-backs", double(m.writebacks), double(r.writebacks), false},
                      {"makespan", double(m.makespan_ns), double(r.makespan_ns), true},
                      {"GFlop/s", m.gflops, r.gflops, false}};
  const auto difference = [](double a, double b) { return a != 0 ? (b - a) / a * 100 : (b == 0 ? 0.0 : 100.0); };
  if (parsed->has("json")) {
    out << "{\"run\": " << measured.id << ", \"platform\": \"" << options.platform.name << "\"";
    for (const Row& row : rows) {
      std::string key = row.name;
      for (char& c : key) c = c == ' ' || c == '-' ? '_' : c;
      out << ", \"" << key << "\": {\"measured\": " << row.measured << ", \"replayed\": " << row.replayed
          << ", \"difference_percent\": " << difference(row.measured, row.replayed) << "}";
    }
    out << "}\n";
    return 0;
  }
  out << "run " << measured.id << ": " << measured.workload_spec << ", " << policy_label(measured) << ", depth " << measured.buffer_depth
      << ", measured on " << (measured.gpu_name.empty() ? "?" : measured.gpu_name) << "\n";
  out << "replayed on its calibrated platform (" << fixed(calibration->platform.default_gflops, 0) << " GFlop/s, "
      << fixed(calibration->platform.bus_bandwidth / 1e9, 2) << " GB/s)\n\n";
  char line[200];
  std::snprintf(line, sizeof line, "%-14s %16s %16s %10s\n", "", "measured", "replayed", "diff");
  out << line;
  for (const Row& row : rows) {
    const std::string a = row.time ? format_duration(static_cast<std::int64_t>(row.measured)) : fixed(row.measured, row.measured == std::floor(row.measured) ? 0 : 1);
    const std::string b = row.time ? format_duration(static_cast<std::int64_t>(row.replayed)) : fixed(row.replayed, row.replayed == std::floor(row.replayed) ? 0 : 1);
    std::snprintf(line, sizeof line, "%-14s %16s %16s %9.1f%%\n", row.name, a.c_str(), b.c_str(), difference(row.measured, row.replayed));
    out << line;
  }
  out << (m.loads == r.loads ? "the loads match exactly\n" : "the loads differ\n");
  return 0;
}

}  // namespace tilelens::cli
