// `tilelens export FORMAT`: a stored run through the exporters' registry of formats/exports.hpp (the
// app's File > Export run uses it too), and `tilelens export csv`: a run's table or a sweep's metrics.
#include <algorithm>
#include <ostream>

#include "app/cli/commands.hpp"
#include "app/cli/run_report.hpp"
#include "core/runs.hpp"
#include "core/platform_choice.hpp"
#include "core/replay_request.hpp"
#include "core/exports.hpp"

namespace tilelens::cli {

const CommandSpec kExportCsv{
    "tilelens export csv --db FILE (--run ID [--table T] | --sweep ID | --all) [--output FILE]",
    "Write CSV: a run's processing order (each task with its loads), its loads, or the metrics of a sweep's\n"
    "runs (or of every run), one row per run with the lower bound and the ratio to it.",
    {kDbOption,
     {"run", "ID", "export this run's table", ""},
     {"table", "T", "with --run: order (tasks with their loads, the tile-order figure's input) or loads", "order"},
     {"sweep", "ID", "the metrics of every run of this sweep", ""},
     {"all", "", "the metrics of every run", ""},
     {"output", "FILE", "write there instead of standard output", ""}},
    ""};

const CommandSpec kExportStarpuSimgrid{
    "tilelens export starpu-simgrid --workload SPEC|FILE [--platform P] [platform options] --out FOLDER",
    "Write a workload on a platform as StarPU 1.3.10 in SimGrid mode runs it, the oracle tilelens's replay is\n"
    "compared with (docs/fidelity.md): the workload file, each kind's GPU rate, the simulated machine (SimGrid\n"
    "platform, bus bandwidth and latency files) and the environment of a run. tests/starpu/simgrid_run.sh\n"
    "FOLDER SCHEDULER then runs it under a StarPU scheduler.",
    [] {
      std::vector<OptionSpec> options = {
          {"workload", "SPEC|FILE", "a generator spec (cholesky:N=16) or a workload file", ""},
          {"platform", "PRESET|FILE", "a platform preset or file; at most 4 GPUs, no CPU workers", "v100-fgcs"}};
      for (auto& option : platform_option_specs()) options.push_back(std::move(option));
      options.push_back({"buffer", "DEPTH", "the replay's task buffer: StarPU's CUDA pipeline, 1 to 4 (StarPU's default: 2)", "2"});
      options.push_back({"out", "FOLDER", "where to write (created)", ""});
      return options;
    }(),
    "example:\n  tilelens export starpu-simgrid --workload cholesky:N=16 --gpus 2 --memory 250MiB --out chol16\n"
    "  tests/starpu/simgrid_run.sh chol16 dmdar"};

const CommandSpec kExportStarpuReplay{
    "tilelens export starpu-replay (--workload SPEC|FILE | --db FILE --run ID) [--platform P] [platform options] --out FOLDER",
    "Write a workload as StarPU's replay tool (starpu_replay, built with StarPU in SimGrid mode) runs it: tasks.rec\n"
    "(the task graph, submission order and priorities), a history-based performance model per task kind (the\n"
    "platform's kernel rates) and the simulated machine of `export starpu-simgrid`. With --run, also the run's\n"
    "schedule as sched.rec (each task's worker and its place in that worker's order), so StarPU runs a tilelens\n"
    "schedule; the workload and the platform are then the run's (platform options apply on top).\n"
    "tests/starpu/starpu_replay_run.sh FOLDER SCHEDULER [--sched] runs it (docs/fidelity.md).",
    [] {
      std::vector<OptionSpec> options = {
          {"workload", "SPEC|FILE", "a generator spec (cholesky:N=16) or a workload file", ""},
          kDbOption,
          {"run", "ID", "a stored run whose workload, platform and schedule to write", ""},
          {"platform", "PRESET|FILE", "a platform preset or file; at most 4 GPUs, no CPU workers (default: the run's, else v100-fgcs)", ""}};
      for (auto& option : platform_option_specs()) options.push_back(std::move(option));
      options.push_back({"buffer", "DEPTH", "StarPU's CUDA pipeline, 1 to 4 (default: the run's depth up to 4, else StarPU's 2)", ""});
      options.push_back({"out", "FOLDER", "where to write (created)", ""});
      return options;
    }(),
    "examples:\n  tilelens export starpu-replay --workload cholesky:N=16 --memory 250MiB --out chol16\n"
    "  tests/starpu/starpu_replay_run.sh chol16 dmdar\n"
    "  tilelens export starpu-replay --db runs.db --run 3 --out run3 && tests/starpu/starpu_replay_run.sh run3 eager --sched"};

namespace {

// The exporters' names, joined by `separator`.
std::string exporter_names(const std::string& separator) {
  std::string names;
  for (const RunExporter& exporter : run_exporters()) names += (names.empty() ? "" : separator) + exporter.name;
  return names;
}

// The run named by --run through the exporter `name`.
int export_run(const ParsedArgs& args, const std::string& name, std::ostream& out, std::ostream& err) {
  const RunExporter* exporter = find_run_exporter(name);
  if (!exporter) return fail(err, "no exporter '" + name + "'");
  auto store = open_store(args, db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return fail(err, describe(store.error()));
  if (!args.has("run")) return fail(err, "--run ID is required");
  auto id = parse_run_id(args.get("run"), "--run");
  if (!id) return fail(err, describe(id.error()));
  auto loaded = core::load_run(*store, *id);
  if (!loaded) return fail(err, describe(loaded.error()));
  return with_output(args, out, err, [&](std::ostream& file) {
    exporter->write({loaded->workload, loaded->run.info, loaded->trace}, file);
    return Status::success();
  });
}

}  // namespace

int cmd_export_csv(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  const int chosen = (args.has("run") ? 1 : 0) + (args.has("sweep") ? 1 : 0) + (args.has("all") ? 1 : 0);
  if (chosen != 1) {
    if (auto store = open_store(args, db::Store::OpenMode::ReadOnlyUpgrading); !store) return fail(err, describe(store.error()));
    return fail(err, "give exactly one of --run ID, --sweep ID or --all");
  }
  if (args.has("run")) {
    const std::string table = args.get("table");
    if (table != "order" && table != "loads") return fail(err, "--table must be order or loads (got '" + table + "')");
    return export_run(args, table, out, err);
  }
  auto store = open_store(args, db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return fail(err, describe(store.error()));
  db::RunFilter filter;
  if (args.has("sweep")) {
    auto id = parse_run_id(args.get("sweep"), "--sweep");
    if (!id) return fail(err, describe(id.error()));
    filter.sweep_id = *id;
  }
  auto runs = store->load_runs(filter);
  if (!runs) return fail(err, describe(runs.error()));
  return with_output(args, out, err, [&](std::ostream& file) {
    print_csv_header(file);
    for (const auto& run : *runs) {
      if (run.metrics) print_csv_row(run.info, *run.metrics, file);
    }
    return Status::success();
  });
}

const CommandSpec& export_run_spec() {
  static const CommandSpec spec = [] {
    std::string formats;
    for (const RunExporter& exporter : run_exporters()) {
      formats += (formats.empty() ? "" : "\n") + ("  " + exporter.name + std::string(8 - std::min<std::size_t>(7, exporter.name.size()), ' ') + exporter.summary);
    }
    return CommandSpec{"tilelens export " + exporter_names("|") + " --db FILE --run ID [--output FILE]",
                       "Write a stored run in one of the formats of the exporters' registry (the app's File > Export run\n"
                       "offers the same):\n" + formats,
                       {kDbOption, {"run", "ID", "the run", ""}, {"output", "FILE", "write there instead of standard output", ""}},
                       "example:\n  tilelens export paje --db runs.db --run 3 --output run3.paje   # opens in ViTE"};
  }();
  return spec;
}

int cmd_export_starpu_simgrid(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.positional.empty()) return fail(err, "unexpected argument '" + args.positional[0] + "'; see tilelens export starpu-simgrid --help");
  if (!args.has("workload")) return fail(err, "--workload is required");
  if (!args.has("out")) return fail(err, "--out FOLDER is required");
  auto workload = resolve_workload(args.get("workload"));
  if (!workload) return fail(err, "--workload: " + describe(workload.error()));
  core::PlatformChoice choice;
  choice.base = args.get("platform");
  if (auto status = read_platform_options(args, choice); !status) return fail(err, describe(status.error()));
  auto platform = core::resolve_platform(choice, *workload);
  if (!platform) return fail(err, describe(platform.error()));
  auto depth = core::parse_buffer_depth(args.get("buffer"));
  if (!depth) return fail(err, describe(depth.error()));
  if (auto status = write_starpu_simgrid(*workload, *platform, *depth, args.get("out")); !status) return fail(err, describe(status.error()));
  out << "wrote " << args.get("out") << ": " << workload->task_count() << " tasks on " << platform->describe() << "\n";
  return 0;
}

int cmd_export_starpu_replay(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.positional.empty()) return fail(err, "unexpected argument '" + args.positional[0] + "'; see tilelens export starpu-replay --help");
  if (args.has("workload") == args.has("run")) return fail(err, "give exactly one of --workload SPEC|FILE or --run ID (with --db FILE)");
  if (!args.has("out")) return fail(err, "--out FOLDER is required");
  core::PlatformChoice choice;
  if (auto status = read_platform_options(args, choice); !status) return fail(err, describe(status.error()));
  std::optional<core::LoadedRun> loaded;
  std::optional<Workload> generated;
  if (args.has("run")) {
    auto store = open_store(args, db::Store::OpenMode::ReadOnlyUpgrading);
    if (!store) return fail(err, describe(store.error()));
    auto id = parse_run_id(args.get("run"), "--run");
    if (!id) return fail(err, describe(id.error()));
    auto run = core::load_run(*store, *id);
    if (!run) return fail(err, describe(run.error()));
    if (run->run.info.status != RunStatus::Complete) return fail(err, "run " + std::to_string(*id) + " did not complete: a sched.rec needs every task's worker");
    loaded = std::move(*run);
  } else {
    auto resolved = resolve_workload(args.get("workload"));
    if (!resolved) return fail(err, "--workload: " + describe(resolved.error()));
    generated = std::move(*resolved);
  }
  const Workload& workload = loaded ? loaded->workload : *generated;
  // A run's platform unless --platform names another (PlatformChoice's base is v100-fgcs by default).
  if (args.has("platform")) choice.base = args.get("platform");
  auto platform = loaded && !args.has("platform") ? core::apply_platform_choice(choice, loaded->run.info.platform, workload)
                                                  : core::resolve_platform(choice, workload);
  if (!platform) return fail(err, describe(platform.error()));
  const std::string depth_text = args.has("buffer") ? args.get("buffer")
                                 : loaded           ? std::to_string(std::min(loaded->run.info.buffer_depth, kStarpuMaxPipeline))
                                                    : "2";
  auto depth = core::parse_buffer_depth(depth_text);
  if (!depth) return fail(err, describe(depth.error()));
  const std::span<const TaskRecord> schedule = loaded ? std::span<const TaskRecord>(loaded->trace.tasks) : std::span<const TaskRecord>{};
  if (auto status = write_starpu_replay(workload, *platform, *depth, args.get("out"), schedule); !status) return fail(err, describe(status.error()));
  out << "wrote " << args.get("out") << ": " << workload.task_count() << " tasks on " << platform->describe()
      << (loaded ? ", with the run's schedule (sched.rec)" : "") << "\n";
  return 0;
}

int cmd_export_run(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (args.positional.size() != 1) return fail(err, "expected the format; see tilelens export --help");
  const std::string& format = args.positional[0];
  if (!find_run_exporter(format)) return fail(err, "no export format '" + format + "' (valid: csv, " + exporter_names(", ") + ")");
  return export_run(args, format, out, err);
}

}  // namespace tilelens::cli
