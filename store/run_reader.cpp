// Reading runs back: their rows (with their workload's and platform's), metrics, measurements
// and traces. Every query selects the schema's columns (tables.cpp) and reads them by name.
#include <limits>

#include "store/store_internal.hpp"

namespace tilelens::db {
namespace {

RunMode mode_from(const std::string& text) {
  return text == "cuda" ? RunMode::Cuda : text == "starpu" ? RunMode::StarPU : RunMode::Replay;
}

std::string run_query() {
  return "SELECT " + select_columns(schema_table("runs"), "r") + ", " + select_columns(schema_table("workloads"), "w") + ", " +
         select_columns(schema_table("platforms"), "p") +
         " FROM runs r JOIN workloads w ON w.id = r.workload_id JOIN platforms p ON p.id = r.platform_id ";
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
  p.switch_bandwidth = s.real("platforms.switch_bandwidth");
  p.workers_per_memory = static_cast<std::uint32_t>(s.integer("platforms.workers_per_memory"));
  p.cpus = static_cast<std::uint32_t>(s.integer("platforms.cpus"));
  p.cpu_default_gflops = s.real("platforms.cpu_default_gflops");
  parse_kind_rates(s.text("platforms.cpu_kind_gflops"), p.cpu_kind_gflops);
  return info;
}

// A run's metrics and per-worker figures; none for a run that has no metrics row (failed).
Result<std::optional<RunMetrics>> load_metrics(Connection& c, std::int64_t run_id) {
  auto metrics = c.prepare("SELECT " + select_columns(schema_table("metrics"), "m") + " FROM metrics m WHERE run_id = ?1");
  if (!metrics) return metrics.error();
  metrics->bind(1, run_id);
  auto has_metrics = metrics->step();
  if (!has_metrics) return has_metrics.error();
  if (!*has_metrics) return std::optional<RunMetrics>();
  const Statement& m = *metrics;
  RunMetrics out;
  ReplaySummary& s = out.summary;
  auto count = [&](std::string_view column) { return static_cast<std::uint64_t>(m.integer(column)); };
  s.tasks = count("metrics.tasks");
  s.loads = count("metrics.loads");
  s.fetches = count("metrics.fetches");
  s.prefetches = count("metrics.prefetches");
  s.unused_loads = count("metrics.unused_loads");
  s.loads_from_host = count("metrics.loads_from_host");
  s.loads_from_gpu = count("metrics.loads_from_gpu");
  s.bytes_loaded = m.real("metrics.bytes_loaded");
  s.bytes_from_host = m.real("metrics.bytes_from_host");
  s.bytes_gpu_to_gpu = m.real("metrics.bytes_gpu_to_gpu");
  s.bytes_fetched = m.real("metrics.bytes_fetched");
  s.bytes_prefetched = m.real("metrics.bytes_prefetched");
  s.evictions = count("metrics.evictions");
  s.invalidations = count("metrics.invalidations");
  s.allocations = count("metrics.allocations");
  s.writebacks = count("metrics.writebacks");
  s.bytes_written_back = m.real("metrics.bytes_written_back");
  s.makespan_ns = m.integer("metrics.makespan_ns");
  s.flush_end_ns = m.integer("metrics.flush_end_ns");
  s.total_flops = m.real("metrics.total_flops");
  s.gflops = m.real("metrics.gflops");
  s.idle_ns = m.integer("metrics.idle_ns");
  s.scheduling_ns = m.integer("metrics.scheduling_ns");
  s.eviction_ns = m.integer("metrics.eviction_ns");
  s.events = count("metrics.events");
  out.lower_bound_bytes = m.real("metrics.lower_bound_bytes");
  out.lower_bound = m.text("metrics.lower_bound");
  out.bus_limit_bytes = m.real("metrics.bus_limit_bytes");
  out.ideal_compute_ns = m.real("metrics.ideal_compute_ns");
  s.prepare_ns = m.integer("metrics.prepare_ns");
  s.charged_ns = m.integer("metrics.charged_ns");

  const std::string gpus = "SELECT " + select_columns(schema_table("gpu_metrics"), "g") + " FROM gpu_metrics g WHERE run_id = ?1 ORDER BY gpu";
  Status status = for_each_row(c, gpus, run_id, [&](const Statement& g) {
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
  });
  if (!status) return status.error();
  return std::optional<RunMetrics>(std::move(out));
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

Result<std::vector<RunInfo>> Store::list_runs(const RunFilter& filter) {
  const std::string sql = run_query() +
                          "WHERE (?1 IS NULL OR r.sweep_id = ?1) AND instr(coalesce(w.spec, w.name), ?2) > 0 AND "
                          "instr(r.scheduler, ?3) > 0 AND (?4 IS NULL OR r.status = ?4) ORDER BY r.id";
  auto query = impl_->connection.prepare(sql);
  if (!query) return query.error();
  query->bind(1, filter.sweep_id)
      .bind(2, filter.workload_contains)
      .bind(3, filter.scheduler_contains)
      .bind(4, filter.status ? std::optional<std::string_view>(to_string(*filter.status)) : std::nullopt);
  std::vector<RunInfo> runs;
  while (true) {
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) break;
    runs.push_back(read_run_info(*query));
  }
  return runs;
}

Result<StoredRun> Store::load_run(std::int64_t run_id) {
  Connection& c = impl_->connection;
  auto query = c.prepare(run_query() + "WHERE r.id = ?1");
  if (!query) return query.error();
  query->bind(1, run_id);
  auto row = query->step();
  if (!row) return row.error();
  if (!*row) return make_error(c.path() + ": no run " + std::to_string(run_id) + " (tilelens runs list shows the runs)");
  StoredRun run;
  run.info = read_run_info(*query);
  auto metrics = load_metrics(c, run_id);
  if (!metrics) return metrics.error();
  run.metrics = std::move(*metrics);
  return run;
}

Result<std::vector<StoredRun>> Store::load_runs(const RunFilter& filter) {
  auto infos = list_runs(filter);
  if (!infos) return infos.error();
  std::vector<StoredRun> runs;
  runs.reserve(infos->size());
  for (RunInfo& info : *infos) {
    auto metrics = load_metrics(impl_->connection, info.id);
    if (!metrics) return metrics.error();
    runs.push_back({std::move(info), std::move(*metrics)});
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
  return std::optional<Measurement>(std::move(m));
}

Result<Trace> Store::load_trace(std::int64_t run_id) {
  Connection& c = impl_->connection;
  Trace trace;
  auto id_or_none = [](const Statement& s, std::string_view column) {
    return s.is_null(column) ? kNoId : static_cast<std::uint32_t>(s.integer(column));
  };
  auto u32 = [](const Statement& s, std::string_view column) { return static_cast<std::uint32_t>(s.integer(column)); };
  Status status = for_trace_rows(c, "task_executions", "global_order", run_id, [&](const Statement& s) {
    trace.tasks.push_back({.task = u32(s, "task_executions.task_id"),
                           .gpu = u32(s, "task_executions.gpu"),
                           .global_order = u32(s, "task_executions.global_order"),
                           .gpu_order = u32(s, "task_executions.gpu_order"),
                           .buffered_ns = s.integer("task_executions.buffered_ns"),
                           .start_ns = s.integer("task_executions.start_ns"),
                           .end_ns = s.integer("task_executions.end_ns")});
  });
  if (!status) return status.error();
  std::string bad_source;  // the first load whose source is no GPU (a corrupt file): refused, not wrapped
  status = for_trace_rows(c, "loads", "seq", run_id, [&](const Statement& s) {
    const std::int64_t source = s.integer("loads.source");
    if ((source < kFromHost || source > std::numeric_limits<std::int16_t>::max()) && bad_source.empty()) {
      bad_source = "run " + std::to_string(run_id) + ": table loads, row " + std::to_string(s.integer("loads.seq")) +
                   ": source " + std::to_string(source) + " is neither the host (-1) nor a GPU";
    }
    trace.loads.push_back({.data = u32(s, "loads.data_id"),
                           .gpu = u32(s, "loads.gpu"),
                           .task = id_or_none(s, "loads.task_id"),
                           .source = static_cast<std::int16_t>(source),
                           .kind = static_cast<LoadKind>(s.integer("loads.kind")),
                           .bytes = static_cast<std::uint64_t>(s.integer("loads.bytes")),
                           .issue_ns = s.integer("loads.issue_ns"),
                           .end_ns = s.integer("loads.end_ns")});
  });
  if (!status) return status.error();
  if (!bad_source.empty()) return make_error(bad_source);
  status = for_trace_rows(c, "evictions", "seq", run_id, [&](const Statement& s) {
    trace.evictions.push_back({.data = u32(s, "evictions.data_id"),
                               .gpu = u32(s, "evictions.gpu"),
                               .for_task = id_or_none(s, "evictions.for_task"),
                               .cause = static_cast<EvictionCause>(s.integer("evictions.cause")),
                               .wrote_back = s.integer("evictions.wrote_back") != 0,
                               .time_ns = s.integer("evictions.time_ns")});
  });
  if (!status) return status.error();
  status = for_trace_rows(c, "writebacks", "seq", run_id, [&](const Statement& s) {
    trace.writebacks.push_back({u32(s, "writebacks.data_id"), u32(s, "writebacks.gpu"), static_cast<std::uint64_t>(s.integer("writebacks.bytes")),
                                s.integer("writebacks.start_ns"), s.integer("writebacks.end_ns"),
                                static_cast<WritebackCause>(s.integer("writebacks.cause"))});
  });
  if (!status) return status.error();
  status = for_trace_rows(c, "allocations", "seq", run_id, [&](const Statement& s) {
    trace.allocations.push_back(
        {u32(s, "allocations.data_id"), u32(s, "allocations.gpu"), s.integer("allocations.time_ns"), u32(s, "allocations.task_id")});
  });
  if (!status) return status.error();
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
