// Reading runs back: their rows (with their workload's and platform's), metrics, measurements
// and traces. Every query selects the schema's columns (tables.cpp) and reads them by name.
#include <algorithm>
#include <limits>
#include <unordered_map>

#include "db/schema.hpp"
#include "db/metric_columns.hpp"
#include "db/store_internal.hpp"
#include "util/quoted.hpp"

namespace tilelens::db {
namespace {

RunMode mode_from(const std::string& text) {
  return text == "cuda" ? RunMode::Cuda : text == "starpu" ? RunMode::StarPU : RunMode::Replay;
}

std::string run_query() {
  return "SELECT " + select_columns(schema_table("runs"), "r") + ", " + select_columns(schema_table("workloads"), "w") + ", " +
         select_columns(schema_table("platforms"), "p") +
         " FROM runs r LEFT JOIN workloads w ON w.id = r.workload_id LEFT JOIN platforms p ON p.id = r.platform_id ";
}

// A run row whose workload or platform row is gone cannot be shown: named, not hidden.
Status check_run_row(const Connection& c, const Statement& s) {
  const std::string run = "run " + std::to_string(s.integer("runs.id"));
  if (s.is_null("workloads.id")) {
    return damaged(c.path(), run + " refers to workload " + std::to_string(s.integer("runs.workload_id")) + ", which is not in the workloads table");
  }
  if (s.is_null("platforms.id")) {
    return damaged(c.path(), run + " refers to platform " + std::to_string(s.integer("runs.platform_id")) + ", which is not in the platforms table");
  }
  // Enumerations read back as one of their values, or the row is refused: an unknown mode or
  // status must not read as a replay, or as incomplete.
  if (const std::string mode = s.text("runs.mode"); mode != "replay" && mode != "cuda" && mode != "starpu") {
    return damaged(c.path(), run + ": runs.mode is " + quote_input(mode) + ", not replay, cuda or starpu");
  }
  if (const std::string status = s.text("runs.status"); !run_status_from(status)) {
    return damaged(c.path(), run + ": runs.status is " + quote_input(status) + ", not complete, failed or incomplete");
  }
  for (const char* column : {"workloads.task_count", "workloads.data_count", "workloads.working_set_bytes"}) {
    if (s.integer(column) < 0) return damaged(c.path(), run + ": " + column + " is negative");
  }
  for (const char* column : {"platforms.kind_gflops", "platforms.cpu_kind_gflops"}) {
    std::map<std::string, double> rates;
    if (!parse_kind_rates(s.text(column), rates)) {
      return damaged(c.path(), run + ": " + column + " is " + quote_input(s.text(column)) + ", not KIND=RATE;KIND=RATE");
    }
  }
  if (auto speeds = parse_worker_speeds(s.text("platforms.worker_speeds")); !speeds) {
    return damaged(c.path(), run + ": platforms.worker_speeds is " + quote_input(s.text("platforms.worker_speeds")) + ": " + speeds.error().message);
  }
  const std::int64_t gpus = s.integer("platforms.gpus"), cpus = s.integer("platforms.cpus");
  if (gpus < 0 || cpus < 0 || gpus + cpus < 1 || gpus + cpus > kMaxWorkers) {
    return damaged(c.path(), run + ": its platform has " + std::to_string(gpus) + " GPUs and " + std::to_string(cpus) + " CPUs");
  }
  return Status::success();
}

RunInfo read_run_info(const Statement& s) {
  RunInfo info;
  info.id = s.integer("runs.id");
  info.workload_id = s.integer("runs.workload_id");
  info.workload_name = s.text("workloads.name");
  info.workload_spec = s.is_null("workloads.spec") ? info.workload_name : s.text("workloads.spec");
  info.workload_tasks = static_cast<std::uint64_t>(s.integer("workloads.task_count"));
  info.workload_data = static_cast<std::uint64_t>(s.integer("workloads.data_count"));
  info.working_set_bytes = static_cast<std::uint64_t>(s.integer("workloads.working_set_bytes"));
  info.scheduler = s.text("runs.scheduler");
  info.eviction = s.text("runs.eviction");
  info.buffer_depth = static_cast<std::uint32_t>(s.integer("runs.buffer_depth"));
  info.memory_model = s.text("runs.memory_model");
  info.scheduling_cost = s.text("runs.scheduling_cost");
  info.mode = mode_from(s.text("runs.mode"));
  if (!s.is_null("runs.seed")) info.seed = s.integer("runs.seed");
  info.tilelens_version = s.text("runs.tilelens_version");
  info.started_at = s.text("runs.started_at");
  info.finished_at = s.text("runs.finished_at");
  info.status = run_status_from(s.text("runs.status")).value_or(RunStatus::Incomplete);
  info.error = s.text("runs.error");
  info.host = s.text("runs.host");
  info.gpu_name = s.text("runs.gpu_name");
  info.transfers_recorded = s.integer("runs.transfers_recorded") != 0;
  if (!s.is_null("runs.sweep_id")) info.sweep_id = s.integer("runs.sweep_id");
  info.key = s.text("runs.run_key");
  Platform& p = info.platform;
  p.name = s.text("platforms.name");
  p.gpus = static_cast<std::uint32_t>(s.integer("platforms.gpus"));
  p.memory_bytes = s.real("platforms.memory_bytes");
  p.bus_bandwidth = s.real("platforms.bus_bandwidth");
  p.gpu_link_bandwidth = s.real("platforms.gpu_link_bandwidth");
  p.latency_ns = s.integer("platforms.latency_ns");
  p.default_gflops = s.real("platforms.default_gflops");
  parse_kind_rates(s.text("platforms.kind_gflops"), p.kind_gflops);
  p.gpu_bus_bandwidth = s.real("platforms.gpu_bus_bandwidth");
  p.gpus_per_switch = static_cast<std::uint32_t>(s.integer("platforms.gpus_per_switch"));
  p.copy_engines = static_cast<std::uint32_t>(s.integer("platforms.copy_engines"));
  p.half_duplex = s.integer("platforms.half_duplex") != 0;
  p.switch_bandwidth = s.real("platforms.switch_bandwidth");
  p.workers_per_memory = static_cast<std::uint32_t>(s.integer("platforms.workers_per_memory"));
  p.cpus = static_cast<std::uint32_t>(s.integer("platforms.cpus"));
  p.cpu_default_gflops = s.real("platforms.cpu_default_gflops");
  parse_kind_rates(s.text("platforms.cpu_kind_gflops"), p.cpu_kind_gflops);
  // check_run_row has refused a text that does not read back.
  if (auto speeds = parse_worker_speeds(s.text("platforms.worker_speeds"))) p.worker_speeds = std::move(*speeds);
  return info;
}

// "TABLE.COLUMN is VALUE" for the first figure of a row of `table` that is negative or not
// finite, "" when there is none: every count is a count and every figure a number, and
// anything else is a damaged row that would print as nonsense (a negative count read as 2^64)
// rather than fail. Text columns and NULLs are left out.
std::string first_bad_figure(const Statement& row, std::string_view table) {
  for (const Column& column : schema_table(table).columns) {
    const std::string name = std::string(table) + "." + std::string(column.name);
    if (column.type.starts_with("TEXT") || row.is_null(name)) continue;
    // A value of another type is the statement's to report (Statement::check_columns).
    const bool bad = column.type.starts_with("REAL") ? !(row.real(name) >= 0 && row.real(name) < 1e300) : row.integer(name) < 0;
    if (bad) return name + " is " + row.text(name);
  }
  return "";
}

// A run's metrics from its row of the metrics table; its per-worker figures and counters come
// from their own tables (read_gpu_row, read_counter_row).
Result<RunMetrics> read_metrics_row(const Connection& c, const Statement& m) {
  const std::int64_t run_id = m.integer("metrics.run_id");
  if (auto bad = first_bad_figure(m, "metrics"); !bad.empty()) return damaged(c.path(), "run " + std::to_string(run_id) + ": " + bad);
  RunMetrics out;
  for (const MetricColumn& metric : metric_columns()) {
    if (!metric.set) continue;  // derived from the others
    const std::string name = "metrics." + std::string(metric.column.name);
    if (m.is_null(name)) continue;  // a transfer figure the run did not record reads as 0
    if (metric.column.type.starts_with("TEXT")) {
      metric.set(out, m.text(name));
    } else if (metric.column.type.starts_with("REAL")) {
      metric.set(out, m.real(name));
    } else {
      metric.set(out, m.integer(name));
    }
  }

  return out;
}

Status read_gpu_row(const Connection& c, const Statement& g, ReplaySummary& s) {
  const std::int64_t run_id = g.integer("gpu_metrics.run_id");
  if (auto bad = first_bad_figure(g, "gpu_metrics"); !bad.empty()) {
    return damaged(c.path(), "run " + std::to_string(run_id) + ", worker " + std::to_string(g.integer("gpu_metrics.gpu")) + ": " + bad);
  }
  if (s.gpus.size() >= kMaxWorkers) return damaged(c.path(), "run " + std::to_string(run_id) + " has more than " + std::to_string(kMaxWorkers) + " rows in gpu_metrics");
  GpuSummary gpu;
  gpu.tasks = static_cast<std::uint64_t>(g.integer("gpu_metrics.tasks"));
  gpu.loads = static_cast<std::uint64_t>(g.integer("gpu_metrics.loads"));
  gpu.allocations = static_cast<std::uint64_t>(g.integer("gpu_metrics.allocations"));
  gpu.evictions = static_cast<std::uint64_t>(g.integer("gpu_metrics.evictions"));
  gpu.invalidations = static_cast<std::uint64_t>(g.integer("gpu_metrics.invalidations"));
  gpu.resident_at_end = static_cast<std::uint64_t>(g.integer("gpu_metrics.resident_at_end"));
  gpu.busy_ns = g.integer("gpu_metrics.busy_ns");
  gpu.peak_bytes = g.real("gpu_metrics.peak_bytes");
  s.gpus.push_back(gpu);
  return Status::success();
}

Status read_counter_row(const Connection& c, const Statement& k, ReplaySummary& s) {
  const std::int64_t value = k.integer("scheduler_counters.value");
  if (value < 0) {
    return damaged(c.path(), "run " + std::to_string(k.integer("scheduler_counters.run_id")) + ", scheduler counter " +
                                 k.text("scheduler_counters.name") + " is negative");
  }
  s.scheduler_counters.emplace_back(k.text("scheduler_counters.name"), static_cast<std::uint64_t>(value));
  return Status::success();
}

// A complete run has its metrics (they are committed with its status); only a failed one has none.
Status check_has_metrics(const Connection& c, const StoredRun& run) {
  if (run.info.status == RunStatus::Complete && !run.metrics) {
    return damaged(c.path(), "run " + std::to_string(run.info.id) + " is complete but has no row in the metrics table");
  }
  return Status::success();
}

// The trace table's rows of one run, in `order`, each handed to `read`.
template <class Read>
Status for_trace_rows(Connection& c, std::string_view table, std::string_view order, std::int64_t run_id, Read&& read) {
  return for_each_row(c,
                      "SELECT " + select_columns(schema_table(table), "t") + " FROM " + std::string(table) + " t WHERE run_id = ?1 ORDER BY " +
                          std::string(order),
                      run_id, read);
}

}  // namespace

namespace {

// The runs a filter selects, as an SQL condition on runs r joined with workloads w; its
// parameters are bound by bind_filter.
// A status outside its enumeration passes the status filter, so that check_run_row refuses
// the row instead of the filter hiding it.
const std::string kFilterCondition =
    "(?1 IS NULL OR r.sweep_id = ?1) AND instr(coalesce(w.spec, w.name, ''), ?2) > 0 AND instr(r.scheduler, ?3) > 0 AND "
    "(?4 IS NULL OR r.status = ?4 OR r.status NOT IN ('complete', 'failed', 'incomplete')) AND (?5 IS NULL OR r.id >= ?5) AND "
    "(?6 IS NULL OR r.id <= ?6)";

void bind_filter(Statement& query, const RunFilter& filter) {
  query.bind(1, filter.sweep_id)
      .bind(2, filter.workload_contains)
      .bind(3, filter.scheduler_contains)
      .bind(4, filter.status ? std::optional<std::string_view>(to_string(*filter.status)) : std::nullopt)
      .bind(5, filter.first_id)
      .bind(6, filter.last_id);
}

// The rows of a per-run table (metrics, gpu_metrics, scheduler_counters) for the runs the
// filter selects, ordered by run and then `order`, each handed to `read` (which may fail).
template <class Read>
Status for_filtered_rows(Connection& c, std::string_view table, std::string_view order, const RunFilter& filter, Read&& read) {
  auto query = c.prepare("SELECT " + select_columns(schema_table(table), "t") + " FROM " + std::string(table) +
                         " t WHERE t.run_id IN (SELECT r.id FROM runs r LEFT JOIN workloads w ON w.id = r.workload_id WHERE " +
                         kFilterCondition + ") ORDER BY t.run_id, " + std::string(order));
  if (!query) return query.error();
  bind_filter(*query, filter);
  while (true) {
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) return Status::success();
    if (auto status = read(*query); !status) return status;
  }
}

}  // namespace

Result<std::vector<RunInfo>> Store::list_runs(const RunFilter& filter) {
  auto query = impl_->connection.prepare(run_query() + "WHERE " + kFilterCondition + " ORDER BY r.id");
  if (!query) return query.error();
  bind_filter(*query, filter);
  std::vector<RunInfo> runs;
  while (true) {
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) break;
    if (auto status = check_run_row(impl_->connection, *query); !status) return status.error();
    runs.push_back(read_run_info(*query));
  }
  return runs;
}

Result<StoredRun> Store::load_run(std::int64_t run_id) {
  RunFilter one;
  one.first_id = one.last_id = run_id;
  auto runs = load_runs(one);
  if (!runs) return runs.error();
  if (runs->empty()) return make_error(path() + ": no run " + std::to_string(run_id) + " (tilelens runs list shows the runs)");
  StoredRun run = std::move(runs->front());
  if (run.info.mode == RunMode::StarPU) {
    auto report = load_import_report(run_id);
    if (!report) return report.error();
    run.import_report = std::move(*report);
  }
  return run;
}

// Four queries whatever the number of runs (the runs, then each per-run table in run order),
// so reading a whole sweep, or checking every run a merge copied, costs no statement per run.
Result<std::vector<StoredRun>> Store::load_runs(const RunFilter& filter) {
  Connection& c = impl_->connection;
  auto infos = list_runs(filter);
  if (!infos) return infos.error();
  std::vector<StoredRun> runs;
  runs.reserve(infos->size());
  std::unordered_map<std::int64_t, std::size_t> index_of;
  for (RunInfo& info : *infos) {
    index_of.emplace(info.id, runs.size());
    runs.push_back({std::move(info), std::nullopt, {}});
  }
  // A per-run row of a run the filter no longer selects (the file changed between the
  // queries: another process stored a run) is skipped.
  auto run_of = [&](std::int64_t run_id) -> StoredRun* {
    auto it = index_of.find(run_id);
    return it == index_of.end() ? nullptr : &runs[it->second];
  };
  Status status = for_filtered_rows(c, "metrics", "t.run_id", filter, [&](const Statement& m) -> Status {
    StoredRun* run = run_of(m.integer("metrics.run_id"));
    if (!run) return Status::success();
    auto metrics = read_metrics_row(c, m);
    if (!metrics) return metrics.error();
    run->metrics = std::move(*metrics);
    return Status::success();
  });
  if (!status) return status.error();
  status = for_filtered_rows(c, "gpu_metrics", "t.gpu", filter, [&](const Statement& g) -> Status {
    StoredRun* run = run_of(g.integer("gpu_metrics.run_id"));
    if (!run || !run->metrics) return Status::success();
    return read_gpu_row(c, g, run->metrics->summary);
  });
  if (!status) return status.error();
  status = for_filtered_rows(c, "scheduler_counters", "t.name", filter, [&](const Statement& k) -> Status {
    StoredRun* run = run_of(k.integer("scheduler_counters.run_id"));
    if (!run || !run->metrics) return Status::success();
    return read_counter_row(c, k, run->metrics->summary);
  });
  if (!status) return status.error();
  for (const StoredRun& run : runs) {
    if (auto check = check_has_metrics(c, run); !check) return check.error();
  }
  return runs;
}

Result<std::optional<Measurement>> Store::load_measurement(std::int64_t run_id) {
  auto query = impl_->connection.prepare("SELECT " + select_columns(schema_table("measurements"), "m") + " FROM measurements m WHERE run_id = ?1");
  if (!query) return query.error();
  query->bind(1, run_id);
  auto row = query->step();
  if (!row) return row.error();
  if (!*row) return std::optional<Measurement>();
  const Statement& q = *query;
  Measurement m;
  m.device = q.text("measurements.device");
  m.cupti = q.integer("measurements.cupti") != 0;
  m.cupti_records = static_cast<std::uint64_t>(q.integer("measurements.cupti_records"));
  m.cupti_dropped = static_cast<std::uint64_t>(q.integer("measurements.cupti_dropped"));
  m.verification = q.text("measurements.verification");
  m.worst_error = q.real("measurements.worst_error");
  m.tiles_checked = static_cast<std::uint64_t>(q.integer("measurements.tiles_checked"));
  m.tf32 = q.integer("measurements.tf32") != 0;
  m.seed = static_cast<std::uint64_t>(q.integer("measurements.seed"));
  m.arena_bytes = q.real("measurements.arena_bytes");
  m.output_pool_bytes = q.real("measurements.output_pool_bytes");
  m.wall_ns = q.integer("measurements.wall_ns");
  m.setup_ns = q.integer("measurements.setup_ns");
  m.cupti_apis = q.text("measurements.cupti_apis");
  m.kernels = q.text("measurements.kernels");
  m.launch_ahead = static_cast<std::uint32_t>(std::clamp<std::int64_t>(q.integer("measurements.launch_ahead"), 0, 1000));
  if (auto read = q.check_columns(); !read) return read.error();
  return std::optional<Measurement>(std::move(m));
}

Result<ImportReport> Store::load_import_report(std::int64_t run_id) {
  auto query = impl_->connection.prepare("SELECT " + select_columns(schema_table("import_notes"), "n") +
                                         " FROM import_notes n WHERE run_id = ?1 ORDER BY seq");
  if (!query) return query.error();
  query->bind(1, run_id);
  ImportReport report;
  while (true) {
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) break;
    const std::string level = query->text("import_notes.level");
    if (level != "note" && level != "warning") {
      return damaged(impl_->connection.path(), "run " + std::to_string(run_id) + ", import note " +
                                                   std::to_string(query->integer("import_notes.seq")) + " has level " + quote_input(level));
    }
    (level == "note" ? report.notes : report.warnings).push_back(query->text("import_notes.text"));
  }
  auto records = impl_->connection.prepare("SELECT " + select_columns(schema_table("import_records"), "r") +
                                           " FROM import_records r WHERE run_id = ?1 ORDER BY seq");
  if (!records) return records.error();
  records->bind(1, run_id);
  while (true) {
    auto row = records->step();
    if (!row) return row.error();
    if (!*row) break;
    ImportReport::Record r{records->text("import_records.place"), records->text("import_records.job"), records->text("import_records.fate"),
                           records->text("import_records.reason")};
    if (r.fate != "kept" && r.fate != "skipped" && r.fate != "left out") {
      return damaged(impl_->connection.path(), "run " + std::to_string(run_id) + ", import record " +
                                                   std::to_string(records->integer("import_records.seq")) + " has fate " + quote_input(r.fate));
    }
    report.records.push_back(std::move(r));
  }
  return report;
}

namespace {

// Checks each trace row against its run's workload and platform as it is read: an id out of
// range, an unknown enumeration value, a negative size or a time running backwards is a
// damaged row, named, before an exporter indexes an array with it.
class TraceRowCheck {
 public:
  TraceRowCheck(const Connection& c, const StoredRun& run) : c_(c), run_(run) {}

  bool failed() const { return !problem_.empty(); }
  Error error() const { return damaged(c_.path(), problem_); }

  void task(const Statement& s, std::string_view table, std::string_view column, bool nullable = false) {
    if (nullable && s.is_null(column)) return;
    below(s, table, column, static_cast<std::int64_t>(run_.info.workload_tasks), "a task of workload " + workload());
  }
  void data(const Statement& s, std::string_view table, std::string_view column) {
    below(s, table, column, static_cast<std::int64_t>(run_.info.workload_data), "a data of workload " + workload());
  }
  void worker(const Statement& s, std::string_view table, std::string_view column) {
    below(s, table, column, run_.info.platform.workers(), "a worker of the platform");
  }
  void enumeration(const Statement& s, std::string_view table, std::string_view column, std::int64_t count) {
    below(s, table, column, count, "a value of its lookup table");
  }
  void size(const Statement& s, std::string_view table, std::string_view column) {
    if (s.integer(column) < 0) fail(s, table, column, "is negative");
  }
  void interval(const Statement& s, std::string_view table, std::string_view start, std::string_view end) {
    if (s.integer(start) < 0) fail(s, table, start, "is negative");
    if (s.integer(end) < s.integer(start)) fail(s, table, end, "is before " + std::string(start));
  }

 private:
  std::string workload() const { return std::to_string(run_.info.workload_id); }
  // Fails unless the column holds 0..count-1: "is not WHAT, which has COUNT".
  void below(const Statement& s, std::string_view table, std::string_view column, std::int64_t count, const std::string& what) {
    const std::int64_t value = s.integer(column);
    if (value >= 0 && value < count) return;
    fail(s, table, column, "is not " + what + ", which has " + std::to_string(count));
  }
  void fail(const Statement& s, std::string_view table, std::string_view column, const std::string& what) {
    if (failed()) return;
    const std::string name(column.substr(column.find('.') + 1));
    const std::string key = table == "task_executions" ? "global_order" : "seq";
    problem_ = "run " + std::to_string(run_.info.id) + ", table " + std::string(table) + ", row " + key + "=" +
               std::to_string(s.integer(std::string(table) + "." + key)) + ": " + name + " " + std::to_string(s.integer(column)) + " " + what;
  }

  const Connection& c_;
  const StoredRun& run_;
  std::string problem_;
};

}  // namespace

Result<Trace> Store::load_trace(std::int64_t run_id) {
  auto run = load_run(run_id);
  if (!run) return run.error();
  return load_trace(*run);
}

Result<Trace> Store::load_trace(const StoredRun& run) {
  Connection& c = impl_->connection;
  const std::int64_t run_id = run.info.id;
  TraceRowCheck check(c, run);
  Trace trace;
  auto id_or_none = [](const Statement& s, std::string_view column) {
    return s.is_null(column) ? kNoId : static_cast<std::uint32_t>(s.integer(column));
  };
  auto u32 = [](const Statement& s, std::string_view column) { return static_cast<std::uint32_t>(s.integer(column)); };
  Status status = for_trace_rows(c, "task_executions", "global_order", run_id, [&](const Statement& s) {
    check.task(s, "task_executions", "task_executions.task_id");
    check.worker(s, "task_executions", "task_executions.gpu");
    check.interval(s, "task_executions", "task_executions.start_ns", "task_executions.end_ns");
    check.size(s, "task_executions", "task_executions.buffered_ns");
    check.size(s, "task_executions", "task_executions.gpu_order");
    trace.tasks.push_back({.task = u32(s, "task_executions.task_id"),
                           .gpu = u32(s, "task_executions.gpu"),
                           .global_order = u32(s, "task_executions.global_order"),
                           .gpu_order = u32(s, "task_executions.gpu_order"),
                           .buffered_ns = s.integer("task_executions.buffered_ns"),
                           .start_ns = s.integer("task_executions.start_ns"),
                           .end_ns = s.integer("task_executions.end_ns")});
  });
  if (!status) return status.error();
  if (check.failed()) return check.error();
  status = for_trace_rows(c, "loads", "seq", run_id, [&](const Statement& s) {
    check.data(s, "loads", "loads.data_id");
    check.worker(s, "loads", "loads.gpu");
    if (s.integer("loads.source") != kFromHost) check.worker(s, "loads", "loads.source");
    check.enumeration(s, "loads", "loads.kind", 3);
    check.task(s, "loads", "loads.task_id", true);
    check.size(s, "loads", "loads.bytes");
    check.interval(s, "loads", "loads.issue_ns", "loads.end_ns");
    trace.loads.push_back({.data = u32(s, "loads.data_id"),
                           .gpu = u32(s, "loads.gpu"),
                           .task = id_or_none(s, "loads.task_id"),
                           .source = static_cast<std::int16_t>(s.integer("loads.source")),
                           .kind = static_cast<LoadKind>(s.integer("loads.kind")),
                           .bytes = static_cast<std::uint64_t>(s.integer("loads.bytes")),
                           .issue_ns = s.integer("loads.issue_ns"),
                           .end_ns = s.integer("loads.end_ns")});
  });
  if (!status) return status.error();
  if (check.failed()) return check.error();
  status = for_trace_rows(c, "evictions", "seq", run_id, [&](const Statement& s) {
    check.data(s, "evictions", "evictions.data_id");
    check.worker(s, "evictions", "evictions.gpu");
    check.enumeration(s, "evictions", "evictions.cause", 2);
    check.task(s, "evictions", "evictions.for_task", true);
    check.size(s, "evictions", "evictions.time_ns");
    trace.evictions.push_back({.data = u32(s, "evictions.data_id"),
                               .gpu = u32(s, "evictions.gpu"),
                               .for_task = id_or_none(s, "evictions.for_task"),
                               .cause = static_cast<EvictionCause>(s.integer("evictions.cause")),
                               .wrote_back = s.integer("evictions.wrote_back") != 0,
                               .time_ns = s.integer("evictions.time_ns")});
  });
  if (!status) return status.error();
  if (check.failed()) return check.error();
  status = for_trace_rows(c, "writebacks", "seq", run_id, [&](const Statement& s) {
    check.data(s, "writebacks", "writebacks.data_id");
    check.worker(s, "writebacks", "writebacks.gpu");
    check.enumeration(s, "writebacks", "writebacks.cause", 4);
    check.size(s, "writebacks", "writebacks.bytes");
    check.interval(s, "writebacks", "writebacks.start_ns", "writebacks.end_ns");
    trace.writebacks.push_back({u32(s, "writebacks.data_id"), u32(s, "writebacks.gpu"), static_cast<std::uint64_t>(s.integer("writebacks.bytes")),
                                s.integer("writebacks.start_ns"), s.integer("writebacks.end_ns"),
                                static_cast<WritebackCause>(s.integer("writebacks.cause"))});
  });
  if (!status) return status.error();
  if (check.failed()) return check.error();
  status = for_trace_rows(c, "allocations", "seq", run_id, [&](const Statement& s) {
    check.data(s, "allocations", "allocations.data_id");
    check.worker(s, "allocations", "allocations.gpu");
    check.task(s, "allocations", "allocations.task_id");
    check.size(s, "allocations", "allocations.time_ns");
    trace.allocations.push_back(
        {u32(s, "allocations.data_id"), u32(s, "allocations.gpu"), s.integer("allocations.time_ns"), u32(s, "allocations.task_id")});
  });
  if (!status) return status.error();
  if (check.failed()) return check.error();
  return trace;
}

Result<std::set<std::string>> Store::complete_run_keys(std::optional<std::int64_t> sweep_id) {
  auto query = impl_->connection.prepare("SELECT run_key FROM runs WHERE status = 'complete' AND sweep_id IS ?1");
  if (!query) return query.error();
  query->bind(1, sweep_id);
  std::set<std::string> keys;
  while (true) {
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) return keys;
    keys.insert(query->text(0));
  }
}

}  // namespace tilelens::db
