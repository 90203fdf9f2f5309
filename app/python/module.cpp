// The Python module's native part, _tilelens: the third front end on the core API, beside the
// CLI and the app. It takes options by name (core::set_replay_option, core::set_sweep_option),
// runs replays and sweeps with the GIL released, and answers in plain lists and dicts that
// tilelens/__init__.py turns into pandas DataFrames. Errors raise ValueError, naming the
// keyword argument at fault.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <string>
#include <variant>

#include "app/python/policy_adapters.hpp"
#include "core/analysis.hpp"
#include "core/policies.hpp"
#include "core/replay_request.hpp"
#include "core/runs.hpp"
#include "core/store.hpp"
#include "core/sweep.hpp"
#include "core/units.hpp"

namespace py = pybind11;

namespace tilelens::python {
namespace {

using Options = std::map<std::string, std::string>;

// A core error as Python words it: the field as its keyword argument (memory_model, not
// --memory-model).
[[noreturn]] void raise(const Error& error) {
  std::string field = error.field;
  for (char& c : field) c = c == '-' ? '_' : c;
  throw py::value_error(field.empty() ? error.message : field + ": " + error.message);
}
template <class T>
T take(Result<T> result) {
  if (!result) raise(result.error());
  return std::move(*result);
}
void check(const Status& status) {
  if (!status) raise(status.error());
}

// An id or count that may be absent, as Python writes "none": None.
template <class T>
py::object or_none(const std::optional<T>& value) {
  return value ? py::object(py::int_(*value)) : py::object(py::none());
}
py::object task_or_none(TaskId task) { return or_none(task == kNoId ? std::nullopt : std::optional<TaskId>(task)); }

py::object value_of(const db::MetricColumn::Value& value) {
  if (const auto* integer = std::get_if<std::int64_t>(&value)) return py::int_(*integer);
  if (const auto* real = std::get_if<double>(&value)) return py::float_(*real);
  if (const auto* text = std::get_if<std::string>(&value)) return py::str(*text);
  return py::none();
}

// Every metric of the database's metrics table, by its column name; a transfer figure of a run
// that recorded none is None, as the table holds NULL.
py::dict metrics_dict(const RunMetrics& metrics, bool transfers_recorded) {
  py::dict out;
  for (const auto& metric : db::metric_columns()) {
    out[py::str(metric.column.name)] = metric.transfer && !transfers_recorded ? py::none() : value_of(metric.get(metrics));
  }
  return out;
}

py::dict info_dict(const RunInfo& info) {
  py::dict out;
  out["id"] = info.id;
  out["status"] = to_string(info.status);
  out["mode"] = to_string(info.mode);
  out["scheduler"] = info.scheduler;
  out["eviction"] = info.eviction;
  out["workload"] = info.workload_spec;
  out["gpus"] = info.platform.gpus;
  out["cpus"] = info.platform.cpus;
  out["memory_bytes"] = info.platform.memory_bytes;
  out["buffer"] = info.buffer_depth;
  out["memory_model"] = info.memory_model;
  out["scheduling_cost"] = info.scheduling_cost;
  out["seed"] = or_none(info.seed);
  out["sweep"] = or_none(info.sweep_id);
  out["error"] = info.error;
  out["key"] = info.key;
  out["tilelens_version"] = info.tilelens_version;
  return out;
}

// A trace as columns: {"tasks": {"task": [...], ...}, "loads": ..., "evictions": ..., "writebacks": ...}.
py::dict trace_columns(const Trace& trace, const Workload& workload) {
  const auto column = [](py::dict& table, const char* name) -> py::list {
    py::list list;
    table[name] = list;
    return list;
  };
  py::dict tasks, loads, evictions, writebacks;
  {
    py::list task = column(tasks, "task"), kind = column(tasks, "kind"), worker = column(tasks, "worker"),
             order = column(tasks, "global_order"), gpu_order = column(tasks, "gpu_order"), buffered = column(tasks, "buffered_ns"),
             start = column(tasks, "start_ns"), end = column(tasks, "end_ns");
    for (const TaskRecord& r : trace.tasks) {
      task.append(r.task);
      kind.append(r.task < workload.task_count() ? workload.kinds()[workload.tasks()[r.task].kind] : std::string());
      worker.append(r.gpu);
      order.append(r.global_order);
      gpu_order.append(r.gpu_order);
      buffered.append(r.buffered_ns);
      start.append(r.start_ns);
      end.append(r.end_ns);
    }
  }
  {
    py::list data = column(loads, "data"), worker = column(loads, "worker"), task = column(loads, "task"), source = column(loads, "source"),
             kind = column(loads, "kind"), bytes = column(loads, "bytes"), issue = column(loads, "issue_ns"), end = column(loads, "end_ns");
    for (const LoadRecord& r : trace.loads) {
      data.append(r.data);
      worker.append(r.gpu);
      task.append(task_or_none(r.task));
      source.append(r.source == kFromHost ? py::object(py::str("host")) : py::object(py::int_(r.source)));
      kind.append(to_string(r.kind));
      bytes.append(r.bytes);
      issue.append(r.issue_ns);
      end.append(r.end_ns);
    }
  }
  {
    py::list data = column(evictions, "data"), worker = column(evictions, "worker"), task = column(evictions, "for_task"),
             cause = column(evictions, "cause"), wrote_back = column(evictions, "wrote_back"), time = column(evictions, "time_ns");
    for (const EvictionRecord& r : trace.evictions) {
      data.append(r.data);
      worker.append(r.gpu);
      task.append(task_or_none(r.for_task));
      cause.append(to_string(r.cause));
      wrote_back.append(r.wrote_back);
      time.append(r.time_ns);
    }
  }
  {
    py::list data = column(writebacks, "data"), worker = column(writebacks, "worker"), bytes = column(writebacks, "bytes"),
             start = column(writebacks, "start_ns"), end = column(writebacks, "end_ns"), cause = column(writebacks, "cause");
    for (const WritebackRecord& r : trace.writebacks) {
      data.append(r.data);
      worker.append(r.gpu);
      bytes.append(r.bytes);
      start.append(r.start_ns);
      end.append(r.end_ns);
      cause.append(to_string(r.cause));
    }
  }
  py::dict out;
  out["tasks"] = tasks;
  out["loads"] = loads;
  out["evictions"] = evictions;
  out["writebacks"] = writebacks;
  return out;
}

core::ReplayRequest replay_request(const Options& options) {
  core::ReplayRequest request;
  for (const auto& [name, value] : options) check(core::set_replay_option(request, name, value));
  return request;
}

// One replay, stored in `database` when it is given; with `keep_trace`, its trace too.
py::dict replay(const Options& options, const std::string& database, bool keep_trace) {
  const core::ReplayRequest request = replay_request(options);
  core::RunOutputs outputs = core::stored_in(database);
  outputs.keep_trace = keep_trace;
  Result<core::ReplayOutcome> outcome = make_error("not run");
  {
    const py::gil_scoped_release released;
    outcome = core::run_replay(request, outputs);
  }
  const core::ReplayOutcome& run = take(std::move(outcome));
  if (!run.error.empty()) throw py::value_error(run.error + (run.info.id ? " (stored as failed run " + std::to_string(run.info.id) + ")" : ""));
  py::dict out;
  out["info"] = info_dict(run.info);
  out["metrics"] = metrics_dict(*run.metrics, run.info.transfers_recorded);
  out["trace"] = keep_trace ? py::object(trace_columns(run.trace, run.workload)) : py::object(py::none());
  return out;
}

// A sweep of the grid the options describe (a preset's first, when `preset` is given).
py::dict sweep(const Options& options, const std::string& preset, const std::string& database, std::size_t threads) {
  core::SweepGrid grid;
  std::vector<std::string> kept;
  for (const auto& [name, value] : options) kept.push_back(name);
  if (!preset.empty()) check(core::apply_sweep_preset(grid, preset, kept));
  for (const auto& [name, value] : options) check(core::set_sweep_option(grid, name, value));
  core::SweepOptions sweep_options;
  sweep_options.database = database;
  sweep_options.threads = threads;
  Result<core::SweepReport> report = make_error("not run");
  {
    const py::gil_scoped_release released;
    report = core::run_sweep(grid, sweep_options);
  }
  const core::SweepReport done = take(std::move(report));
  py::dict out;
  out["sweep"] = done.sweep_id;
  out["total"] = done.total;
  out["stored"] = done.stored;
  out["skipped"] = done.skipped;
  out["failed"] = done.failed;
  out["invalid"] = done.invalid;
  out["seconds"] = done.seconds;
  out["first_problem"] = done.first_problem;
  return out;
}

// The runs of a database, one dict each: the columns of `tilelens runs list` (numbers as
// numbers: memory in bytes, makespan in ns; None where the list prints "-"), then every metric.
py::list runs(const std::string& database, std::optional<std::int64_t> sweep_id, const std::string& workload, const std::string& scheduler,
              const std::string& status) {
  db::RunFilter filter;
  filter.sweep_id = sweep_id;
  filter.workload_contains = workload;
  filter.scheduler_contains = scheduler;
  if (!status.empty()) {
    filter.status = run_status_from(status);
    if (!filter.status) throw py::value_error("status: must be complete, failed or incomplete (got '" + status + "')");
  }
  auto store = take(db::Store::open(database, db::Store::OpenMode::ReadOnlyUpgrading));
  const std::vector<StoredRun> stored = take(store.load_runs(filter));
  py::list out;
  for (const StoredRun& run : stored) {
    const bool metrics = run.metrics.has_value();
    const bool transfers = metrics && run.info.transfers_recorded;
    py::dict row;
    row["id"] = run.info.id;
    row["status"] = to_string(run.info.status);
    row["mode"] = to_string(run.info.mode);
    row["scheduler"] = run.info.scheduler;
    row["eviction"] = run.info.eviction;
    row["GPUs"] = run.info.platform.gpus;
    row["memory"] = run.info.platform.memory_bytes;
    row["loads"] = or_none(transfers ? std::optional(run.metrics->summary.loads) : std::nullopt);
    row["LB ratio"] = transfers ? py::object(py::float_(run.metrics->ratio_to_lower_bound())) : py::object(py::none());
    row["GFlop/s"] = metrics ? py::object(py::float_(run.metrics->summary.gflops)) : py::object(py::none());
    row["makespan"] = or_none(metrics ? std::optional(run.metrics->summary.makespan_ns) : std::nullopt);
    row["workload"] = run.info.workload_spec;
    row["sweep"] = or_none(run.info.sweep_id);
    row["policy"] = core::policy_label(run.info);
    row["buffer"] = run.info.buffer_depth;
    row["memory_model"] = run.info.memory_model;
    if (metrics) {
      const py::dict all = metrics_dict(*run.metrics, run.info.transfers_recorded);
      for (const auto& [name, value] : all) {
        if (!row.contains(name)) row[name] = value;
      }
    }
    out.append(row);
  }
  return out;
}

py::dict trace(const std::string& database, std::int64_t run_id) {
  auto store = take(db::Store::open(database, db::Store::OpenMode::ReadOnlyUpgrading));
  const core::LoadedRun run = take(core::load_run(store, run_id, core::WithTrace::Yes));
  if (!run.run.metrics) throw py::value_error("run " + std::to_string(run_id) + " has no trace: it " + to_string(run.run.info.status));
  py::dict out = trace_columns(run.trace, run.workload);
  out["info"] = info_dict(run.run.info);
  return out;
}

py::dict lower_bound(const Options& options) {
  const core::PreparedReplay prepared = take(core::prepare_replay(replay_request(options)));
  const ReferenceCurves curves = reference_curves(prepared.workload, prepared.options.platform);
  py::dict out;
  out["lower_bound_bytes"] = curves.lower_bound_bytes;
  out["bound"] = curves.bound;
  out["asymptotic"] = curves.asymptotic;
  out["compulsory_bytes"] = curves.compulsory_bytes;
  out["bus_limit_bytes"] = curves.bus_limit_bytes;
  out["ideal_compute_ns"] = curves.ideal_compute_ns;
  out["one_input_bytes"] = curves.one_input_bytes;
  out["both_inputs_bytes"] = curves.both_inputs_bytes;
  out["working_set_bytes"] = curves.working_set_bytes;
  out["memory_bytes"] = prepared.options.platform.memory_bytes;
  out["gpus"] = prepared.options.platform.gpus;
  return out;
}

py::list registry_names(bool schedulers) {
  py::list out;
  if (schedulers) {
    for (const auto& info : scheduler_registry()) out.append(py::make_tuple(info.name, info.summary));
  } else {
    for (const auto& info : eviction_registry()) out.append(py::make_tuple(info.name, info.summary));
  }
  return out;
}

}  // namespace
}  // namespace tilelens::python

PYBIND11_MODULE(_tilelens, m) {
  using namespace tilelens::python;
  m.doc() = "tilelens's native core; import tilelens instead";
  m.attr("__version__") = tilelens::core::kVersion;
  define_policy_views(m);
  m.def("replay", &replay, py::arg("options"), py::arg("database"), py::arg("keep_trace"));
  m.def("sweep", &sweep, py::arg("options"), py::arg("preset"), py::arg("database"), py::arg("threads"));
  m.def("runs", &runs, py::arg("database"), py::arg("sweep"), py::arg("workload"), py::arg("scheduler"), py::arg("status"));
  m.def("trace", &trace, py::arg("database"), py::arg("run"));
  m.def("lower_bound", &lower_bound, py::arg("options"));
  m.def("schedulers", [] { return registry_names(true); });
  m.def("evictions", [] { return registry_names(false); });
  m.def(
      "register_scheduler",
      [](const std::string& name, py::object cls, const std::map<std::string, std::string>& params, const std::string& hash,
         const std::string& version) { register_scheduler_class({name, params, hash, version}, std::move(cls)); },
      py::arg("name"), py::arg("cls"), py::arg("params"), py::arg("hash"), py::arg("version"));
  m.def(
      "register_eviction",
      [](const std::string& name, py::object cls, const std::map<std::string, std::string>& params, const std::string& hash,
         const std::string& version, bool needs_future) { register_eviction_class({name, params, hash, version}, std::move(cls), needs_future); },
      py::arg("name"), py::arg("cls"), py::arg("params"), py::arg("hash"), py::arg("version"), py::arg("needs_future"));
}
