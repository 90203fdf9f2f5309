// Measured runs; see measured_runs.hpp.
#include "core/measured_runs.hpp"

#include <unistd.h>

#include "formats/workload_io.hpp"
#include "instrument/numeric.hpp"

namespace tilelens::core {
namespace {

std::string hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

}  // namespace

Result<PreparedExecute> prepare_execute(const ExecuteRequest& request) {
  if (request.workload.empty() == !request.from_run) return field_error("workload", "give a workload or a stored run to run again (from-run), one of them");
  if (request.from_run && request.database.empty()) return field_error("from-run", "needs the database holding the run (db)");
  PreparedExecute prepared;
  prepared.database = request.database;
  std::string workload_spec, scheduler = request.scheduler.value_or("eager"), eviction = request.eviction.value_or("lru");
  ReplayOptions options;
  options.buffer_depth = request.buffer_depth.value_or(4);
  std::string memory_model_spec = request.memory_model.value_or("starpu");
  if (!request.from_run) {
    auto workload = resolve_workload(request.workload);
    if (!workload) return field_error("workload", workload.error().message);
    prepared.workload = std::move(*workload);
    workload_spec = prepared.workload.generator().spec.empty() ? request.workload : prepared.workload.generator().spec;
    auto platform = resolve_platform(request.platform, prepared.workload);
    if (!platform) return platform.error();
    options.platform = std::move(*platform);
  } else {
    auto store = db::Store::open(request.database, db::Store::OpenMode::ReadOnlyUpgrading);
    if (!store) return field_error("db", store.error().message);
    auto run = load_run(*store, *request.from_run, WithTrace::No);
    if (!run) return field_error("from-run", run.error().message);
    if (run->run.info.mode != RunMode::Replay) {
      // A measured run's own task durations: how long the waits that stand for kernels with
      // no known call last.
      auto trace = store->load_trace(run->run);
      if (!trace) return field_error("from-run", trace.error().message);
      auto& measured_ns = prepared.options.plan.measured_ns;
      measured_ns.assign(run->workload.task_count(), 0);
      for (const TaskRecord& task : trace->tasks) {
        if (task.task < measured_ns.size()) measured_ns[task.task] = task.end_ns - task.start_ns;
      }
    }
    prepared.workload = std::move(run->workload);
    workload_spec = run->run.info.workload_spec;
    if (!request.scheduler) scheduler = run->run.info.scheduler;
    if (!request.eviction) eviction = run->run.info.eviction;
    if (!request.buffer_depth) options.buffer_depth = run->run.info.buffer_depth;
    if (!request.memory_model && !run->run.info.memory_model.empty()) memory_model_spec = run->run.info.memory_model;
    // A StarPU run's layout may have CPU workers or GPUs sharing a memory: the executor
    // re-executes it on its GPUs alone, one worker each (at least one GPU).
    Platform measured_platform = run->run.info.platform;
    if (run->run.info.mode == RunMode::StarPU) {
      measured_platform.cpus = 0;
      measured_platform.gpus = std::max<std::uint32_t>(1, measured_platform.gpus);
      measured_platform.workers_per_memory = 1;
    }
    auto platform = apply_platform_choice(request.platform, measured_platform, prepared.workload);
    if (!platform) return platform.error();
    options.platform = std::move(*platform);
  }
  if (request.logical_gpus) {
    if (*request.logical_gpus < 1 || *request.logical_gpus > kMaxWorkers) {
      return field_error("logical-gpus", "must be between 1 and " + std::to_string(kMaxWorkers));
    }
    if (request.platform.gpus && *request.platform.gpus != *request.logical_gpus) {
      return field_error("logical-gpus", std::to_string(*request.logical_gpus) + " and " + std::to_string(*request.platform.gpus) +
                                             " GPUs (gpus) disagree: K logical GPUs are K GPUs on one device");
    }
    options.platform.gpus = *request.logical_gpus;
  }
  if (options.buffer_depth < 1) return field_error("buffer", "must be a whole number of tasks, at least 1");
  auto memory_model = parse_memory_model(memory_model_spec);
  if (!memory_model) return field_error("memory-model", memory_model.error().message);
  options.memory_model = std::move(*memory_model);
  // The platform options are replay's too; these two describe workers the executor has not.
  if (options.platform.cpus > 0) return field_error("cpus", "the executor runs GPU workers only (CPU workers are replay's)");
  if (options.platform.workers_per_memory != 1) {
    return field_error("workers-per-memory", "the executor runs one worker per GPU (shared memories are replay's)");
  }
  if (!options.platform.worker_speeds.empty()) {
    return field_error("worker-speeds", "the executor's GPUs run at their own speed (worker speeds are replay's)");
  }
  if (scheduler == "list" || eviction == "list") return make_error("tilelens schedulers and tilelens evictions list the policies");
  auto made_scheduler = make_scheduler(scheduler);
  if (!made_scheduler && request.from_run && !request.scheduler) {
    return field_error("scheduler", "run " + std::to_string(*request.from_run) + " was scheduled by '" + scheduler +
                                        "', which is not a tilelens scheduler (an imported run names StarPU's): name one");
  }
  if (!made_scheduler) return field_error("scheduler", made_scheduler.error().message);
  auto made_eviction = make_eviction(eviction);
  if (!made_eviction) return field_error("eviction", made_eviction.error().message);
  prepared.scheduler = std::move(*made_scheduler);
  prepared.eviction = std::move(*made_eviction);

  instrument::ExecuteOptions& o = prepared.options;
  o.platform = options.platform;
  o.buffer_depth = options.buffer_depth;
  o.memory_model = options.memory_model;
  o.tf32 = request.tf32;
  o.cupti = request.cupti;
  o.cupti_apis = request.cupti_apis;
  o.launch_ahead = request.launch_ahead;
  o.seed = request.seed;
  o.verify_samples = request.verify_tiles;
  o.verify_rows = request.verify_rows;
  o.first_device = request.first_device;
  o.logical_gpus = request.logical_gpus.has_value();
  o.plan.wait_gflops = options.platform.default_gflops;
  // The run records the platform it ran on (logical GPUs get their link).
  o.platform = instrument::executed_platform(o);
  options.platform = o.platform;

  RunInfo& info = prepared.info;
  info = run_info_of(prepared.workload, workload_spec, prepared.scheduler.spec, prepared.eviction.spec, options);
  info.mode = RunMode::Cuda;
  info.host = hostname();
  info.seed = static_cast<std::int64_t>(o.seed);
  info.key = run_key(workload_identity(prepared.workload), info.scheduler, info.eviction, info.platform, info.buffer_depth, info.mode,
                     false, info.memory_model);
  return prepared;
}

Result<ExecutePlan> plan_execute(const PreparedExecute& prepared) {
  auto plan = instrument::plan_kernels(prepared.workload, prepared.options.plan);
  if (!plan) return plan.error();
  ExecutePlan out;
  out.kernels = instrument::plan_lines(prepared.workload, *plan);
  out.arena = instrument::arena_lines(prepared.workload, *plan, prepared.options.platform.memory_bytes, prepared.options.platform.gpus);
  return out;
}

Result<ExecuteOutcome> run_execute(PreparedExecute prepared) {
  ExecuteOutcome outcome;
  outcome.info = prepared.info;
  std::optional<db::Store> store;
  if (!prepared.database.empty()) {
    auto opened = db::Store::open(prepared.database);
    if (!opened) return field_error("db", opened.error().message);
    store.emplace(std::move(*opened));
    auto workload_id = store->put_workload(prepared.workload, "generated");
    if (!workload_id) return field_error("db", workload_id.error().message);
    outcome.info.workload_id = *workload_id;
    outcome.database = store->path();
  }
  auto result = instrument::execute(prepared.workload, *prepared.scheduler.scheduler, *prepared.eviction.policy, prepared.options);
  if (!result) {
    std::string message = result.error().message;
    if (store) {
      if (auto begun = store->begin_run(outcome.info)) {
        if (auto id = begun->fail(message)) message = "stored failed run " + std::to_string(*id) + " in " + store->path() + ": " + message;
      }
    }
    return make_error(message);
  }
  outcome.info.gpu_name = result->measurement.device;
  outcome.metrics = metrics_of(result->summary, reference_curves(prepared.workload, prepared.options.platform));
  if (store) {
    auto begun = store->begin_run(outcome.info);
    if (!begun) return field_error("db", begun.error().message);
    begun->write(result->trace);
    begun->write_measurement(result->measurement, result->cupti_records);
    auto id = begun->finish(outcome.metrics);
    if (!id) return field_error("db", id.error().message);
    outcome.info.id = *id;
    outcome.info.status = RunStatus::Complete;
  }
  outcome.measurement = std::move(result->measurement);
  outcome.trace = std::move(result->trace);
  return outcome;
}

Result<LoadedRun> load_measured_run(db::Store& store, std::int64_t run_id) {
  auto loaded = load_run(store, run_id);
  if (!loaded) return loaded.error();
  if (loaded->run.info.status != RunStatus::Complete) return make_error("run " + std::to_string(run_id) + " did not complete");
  return loaded;
}

Result<Calibration> calibrate_run(const LoadedRun& run) {
  auto calibration = calibrate(run.workload, run.trace, run.run.info.platform);
  if (!calibration) return make_error("run " + std::to_string(run.run.info.id) + ": " + calibration.error().message);
  calibration->platform.name = "calibrated-run-" + std::to_string(run.run.info.id);
  // A device moves one copy at a time per memory and direction: the executor's streams are
  // FIFO (one each way per GPU), and so are StarPU's transfer streams and its disk requests.
  // A replayed run keeps the bus it was replayed on.
  if (run.run.info.mode != RunMode::Replay) calibration->platform.copy_engines = 1;
  if (run.run.metrics) {
    const ReplaySummary& s = run.run.metrics->summary;
    calibration->scheduling_cost = cost_from_fits(s.push_decisions, s.pop_decisions);
    calibration->decisions = s.push_decisions.count + s.pop_decisions.count;
  }
  return calibration;
}

Result<FidelityReport> fidelity(db::Store& store, std::int64_t run_id, bool store_replay) {
  auto measured = load_measured_run(store, run_id);
  if (!measured) return measured.error();
  if (measured->run.info.mode == RunMode::StarPU && measured->run.info.scheduler == "starpu") {
    return make_error("run " + std::to_string(run_id) + " was imported without its scheduler (StarPU 1.3's traces do not record " +
                      "STARPU_SCHED): import it again with tilelens import starpu ... --scheduler NAME");
  }
  auto calibration = calibrate_run(*measured);
  if (!calibration) return calibration.error();
  auto replayed = replay_again(measured->run, measured->workload, calibration->platform);
  if (!replayed) return make_error("the replay failed: " + replayed.error().message);
  FidelityReport report{std::move(*measured), std::move(*calibration), std::move(*replayed), 0};
  if (store_replay) {
    auto begun = store.begin_run(report.replayed.run.info);
    if (!begun) return field_error("db", begun.error().message);
    begun->write(report.replayed.trace);
    auto id = begun->finish(*report.replayed.run.metrics);
    if (!id) return field_error("db", id.error().message);
    report.stored_run_id = *id;
    report.replayed.run.info.id = *id;
  }
  return report;
}

}  // namespace tilelens::core
