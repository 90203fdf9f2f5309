// Replay requests; see replay_request.hpp.
#include "core/replay_request.hpp"

#include <filesystem>

#include "core/plugin_trial.hpp"
#include "formats/workload_io.hpp"
#include "model/units.hpp"

namespace tilelens::core {

Result<std::uint32_t> parse_buffer_depth(std::string_view text) {
  auto depth = parse_integer(text);
  if (!depth || *depth < 1 || *depth > kMaxBufferDepth) {
    return field_error("buffer", "must be a whole number of tasks, at least 1 (got '" + std::string(text) + "')");
  }
  return static_cast<std::uint32_t>(*depth);
}

Status set_replay_option(ReplayRequest& request, std::string_view name, std::string_view text) {
  const std::string value(text);
  if (name == "workload") request.workload = value;
  else if (name == "scheduler") request.scheduler = value;
  else if (name == "eviction") request.eviction = value;
  else if (name == "platform") request.platform.base = value;
  else if (name == "memory-model") request.memory_model = value;
  else if (name == "scheduling-cost") request.scheduling_cost = value;
  else if (name == "charge-scheduling") {
    if (value != "0" && value != "1") return field_error("charge-scheduling", "is a flag: 1 or 0 (got '" + value + "')");
    request.charge_scheduling = value == "1";
  }
  else if (name == "buffer") {
    auto depth = parse_buffer_depth(value);
    if (!depth) return depth.error();
    request.buffer_depth = *depth;
  }
  else if (const PlatformOption* option = find_platform_option(name)) return option->set(value, request.platform);
  else return make_error("a replay has no option '" + std::string(name) + "'");
  return Status::success();
}

Result<PreparedReplay> prepare_replay(const ReplayRequest& request) {
  PreparedReplay prepared;
  if (request.workload.empty()) return field_error("workload", "is required (a spec such as matmul2d:N=20, or a file)");
  auto workload = resolve_workload(request.workload);
  if (!workload) return field_error("workload", workload.error().message);
  prepared.workload = std::move(*workload);
  prepared.workload_spec = prepared.workload.generator().spec.empty() ? request.workload : prepared.workload.generator().spec;
  std::error_code ec;
  prepared.source = std::filesystem::is_regular_file(request.workload, ec) ? "file " + request.workload : "generated";
  auto platform = resolve_platform(request.platform, prepared.workload);
  if (!platform) return platform.error();
  if (request.buffer_depth < 1 || request.buffer_depth > kMaxBufferDepth) {
    return field_error("buffer", "must be a whole number of tasks, at least 1 (got '" + std::to_string(request.buffer_depth) + "')");
  }
  prepared.options.platform = std::move(*platform);
  prepared.options.buffer_depth = request.buffer_depth;
  prepared.options.charge_scheduling = request.charge_scheduling;
  auto memory_model = parse_memory_model(request.memory_model);
  if (!memory_model) return field_error("memory-model", memory_model.error().message);
  prepared.options.memory_model = std::move(*memory_model);
  auto cost = parse_scheduling_cost(request.scheduling_cost);
  if (!cost) return field_error("scheduling-cost", cost.error().message);
  prepared.options.scheduling_cost = *cost;
  auto scheduler = make_scheduler(request.scheduler);
  if (!scheduler) return field_error("scheduler", scheduler.error().message);
  auto eviction = make_eviction(request.eviction);
  if (!eviction) return field_error("eviction", eviction.error().message);
  // The exact optimum is optimal in the papers' model only: Belady on its order, no prefetch.
  if (const auto made = parse_spec(scheduler->spec); made && made->name == "optimum") {
    if (eviction->spec != "belady") return field_error("eviction", "must be belady with the optimum scheduler (Belady is optimal on its order)");
    if (!is_fgcs_memory_model(prepared.options.memory_model.canonical())) {
      return field_error("memory-model", "must be fgcs with the optimum scheduler (the papers' model, in which it is optimal)");
    }
    if (request.buffer_depth != 1) return field_error("buffer", "must be 1 with the optimum scheduler (no prefetch: the papers' model)");
  }
  prepared.scheduler = std::move(*scheduler);
  prepared.eviction = std::move(*eviction);
  prepared.info = run_info_of(prepared.workload, prepared.workload_spec, prepared.scheduler.spec, prepared.eviction.spec,
                              prepared.options);
  return prepared;
}

RunOutputs stored_in(const std::string& database) {
  RunOutputs outputs;
  outputs.database = database;
  return outputs;
}

Result<ReplayOutcome> run_replay(const ReplayRequest& request, const RunOutputs& outputs) {
  auto prepared = prepare_replay(request);
  if (!prepared) return prepared.error();
  ReplayOutcome outcome;
  outcome.info = prepared->info;
  std::optional<db::Store> store;
  std::optional<db::RunWriter> writer;
  const auto open_writer = [&]() -> Status {
    auto opened = db::Store::open(outputs.database);
    if (!opened) return field_error("db", opened.error().message);
    store.emplace(std::move(*opened));
    auto workload_id = store->put_workload(prepared->workload, prepared->source);
    if (!workload_id) return field_error("db", workload_id.error().message);
    outcome.info.workload_id = *workload_id;
    auto begun = store->begin_run(outcome.info);
    if (!begun) return field_error("db", begun.error().message);
    writer.emplace(std::move(*begun));
    outcome.database = store->path();
    return Status::success();
  };
  // A plugin's (or a Python class's) run is stored only once it has ended well: a plugin that
  // fails, crashes or is stopped leaves the database as it was (docs/plugins.md).
  const bool deferred = uses_plugin(outcome.info) || uses_embedded_policy(outcome.info);
  if (!outputs.database.empty() && !deferred) {
    if (auto status = open_writer(); !status) return status.error();
  }
  if (uses_plugin(outcome.info)) {
    // A plugin is tried in a child process first: its crash or hang ends the trial, not this
    // process (docs/plugins.md).
    if (std::string why = plugin_trial(*prepared, outputs.plugin_time_limit_s, outputs.cancel); !why.empty()) {
      outcome.cancelled = why == kCancelled;
      outcome.error = std::move(why);
      outcome.workload = std::move(prepared->workload);
      return outcome;
    }
  }
  TraceRecorder recorder;
  ObserverList observers;
  if (outputs.keep_trace || (deferred && !outputs.database.empty())) observers.add(&recorder);
  if (writer) observers.add(&*writer);
  if (outputs.observer) observers.add(outputs.observer);
  prepared->options.cancel = outputs.cancel;
  auto summary = replay(prepared->workload, *prepared->scheduler.scheduler, *prepared->eviction.policy, prepared->options,
                        observers.empty() ? nullptr : &observers);
  if (!summary) {
    outcome.error = summary.error().message;
    if (outputs.cancel && outputs.cancel->load() && outcome.error == kCancelled) {
      outcome.cancelled = true;  // the writer is dropped unfinished: its run rolls back
      outcome.workload = std::move(prepared->workload);
      return outcome;
    }
    if (writer) {
      if (auto id = writer->fail(outcome.error)) {
        outcome.info.id = *id;
        outcome.info.status = RunStatus::Failed;
      }
    }
    outcome.workload = std::move(prepared->workload);
    return outcome;
  }
  const RunMetrics metrics = metrics_of(*summary, reference_curves(prepared->workload, prepared->options.platform));
  if (deferred && !outputs.database.empty()) {
    if (auto status = open_writer(); !status) return status.error();
    writer->write(recorder.trace);
  }
  if (writer) {
    auto id = writer->finish(metrics);
    if (!id) return field_error("db", id.error().message);
    outcome.info.id = *id;
    outcome.info.status = RunStatus::Complete;
  }
  outcome.metrics = metrics;
  outcome.trace = std::move(recorder.trace);
  outcome.workload = std::move(prepared->workload);
  return outcome;
}

bool uses_embedded_policy(const RunInfo& info) {
  return info.scheduler.find("python.hash=") != std::string::npos || info.eviction.find("python.hash=") != std::string::npos;
}

bool uses_plugin(const RunInfo& info) {
  return info.scheduler.find("plugin.hash=") != std::string::npos || info.eviction.find("plugin.hash=") != std::string::npos;
}

}  // namespace tilelens::core
