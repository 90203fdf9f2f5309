// Runs for the front ends; see runs.hpp.
#include "core/runs.hpp"

#include "eviction/policy.hpp"
#include "formats/workload_io.hpp"
#include "model/params.hpp"
#include "model/units.hpp"

namespace tilelens::core {

RunInfo run_info_of(const Workload& w, const std::string& workload_spec, const std::string& scheduler_spec,
                    const std::string& eviction_spec, const ReplayOptions& options) {
  RunInfo run;
  run.workload_spec = workload_spec;
  run.workload_name = w.name();
  run.workload_tasks = w.task_count();
  run.workload_data = w.data_count();
  run.working_set_bytes = w.working_set_bytes();
  run.scheduler = scheduler_spec;
  run.eviction = eviction_spec;
  run.platform = options.platform;
  run.buffer_depth = options.buffer_depth;
  run.memory_model = options.memory_model.canonical();
  run.scheduling_cost = options.scheduling_cost.canonical();
  run.mode = RunMode::Replay;
  run.tilelens_version = kVersion;
  // The seed a run used: the scheduler's when it takes one, else the generator's.
  if (auto spec = parse_spec(scheduler_spec); spec && spec->values.count("seed")) {
    if (auto seed = parse_integer(spec->values.at("seed"))) run.seed = *seed;
  } else if (!w.generator().name.empty()) {
    run.seed = static_cast<std::int64_t>(w.generator().seed);
  }
  run.key = run_key(workload_identity(w), run.scheduler, run.eviction, run.platform, run.buffer_depth, run.mode,
                    options.charge_scheduling, run.memory_model, run.scheduling_cost);
  return run;
}

RunMetrics metrics_of(const ReplaySummary& summary, const ReferenceCurves& curves) {
  RunMetrics metrics;
  metrics.summary = summary;
  metrics.lower_bound_bytes = curves.lower_bound_bytes;
  metrics.lower_bound = curves.bound + (curves.asymptotic ? ", leading term only" : "");
  metrics.bus_limit_bytes = curves.bus_limit_bytes;
  metrics.ideal_compute_ns = curves.ideal_compute_ns;
  return metrics;
}

std::string policy_label(const RunInfo& run) {
  return short_scheduler_spec(run.scheduler) + "/" + short_eviction_spec(run.eviction) + (charged_scheduling(run) ? "+time" : "");
}

Result<LoadedRun> load_run(db::Store& store, std::int64_t run_id, WithTrace with_trace) {
  auto run = store.load_run(run_id);
  if (!run) return run.error();
  auto workload = store.load_workload(run->info.workload_id);
  if (!workload) return workload.error();
  LoadedRun loaded{std::move(*run), std::move(*workload), {}};
  if (with_trace == WithTrace::Yes) {
    auto trace = store.load_trace(loaded.run);
    if (!trace) return trace.error();
    loaded.trace = std::move(*trace);
  }
  return loaded;
}

Result<LoadedRun> replay_again(const StoredRun& run, const Workload& workload, const Platform& platform) {
  const RunInfo& info = run.info;
  auto scheduler = make_scheduler(info.scheduler);
  if (!scheduler) return make_error("cannot replay scheduler '" + info.scheduler + "': " + scheduler.error().message);
  auto eviction = make_eviction(info.eviction);
  if (!eviction) return make_error("cannot replay eviction '" + info.eviction + "': " + eviction.error().message);
  ReplayOptions options;
  options.platform = platform;
  options.buffer_depth = info.buffer_depth;
  options.charge_scheduling = charged_scheduling(info);  // a "+time" run is replayed with its charge
  if (!info.memory_model.empty()) {  // a replay's own model; an import's replay takes the default, StarPU's
    auto model = parse_memory_model(info.memory_model);
    if (!model) return make_error("cannot replay memory model '" + info.memory_model + "': " + model.error().message);
    options.memory_model = std::move(*model);
  }
  auto cost = parse_scheduling_cost(info.scheduling_cost);
  if (!cost) return make_error("cannot replay scheduling cost '" + info.scheduling_cost + "': " + cost.error().message);
  options.scheduling_cost = *cost;
  TraceRecorder recorder;
  auto summary = replay(workload, *scheduler->scheduler, *eviction->policy, options, &recorder);
  if (!summary) return summary.error();
  LoadedRun again{StoredRun{}, workload, std::move(recorder.trace)};
  again.run.info = run_info_of(workload, info.workload_spec, scheduler->spec, eviction->spec, options);
  again.run.info.workload_id = info.workload_id;
  again.run.info.status = RunStatus::Complete;
  again.run.metrics = metrics_of(*summary, reference_curves(workload, platform));
  return again;
}

}  // namespace tilelens::core
