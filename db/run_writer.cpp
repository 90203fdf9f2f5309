// Writing one run: its row, its records as the executor hands them over, its measurement and
// its metrics, all in one transaction (store.hpp). Every row goes through the schema's named
// INSERT (tables.cpp), its columns bound by name.
#include "db/metric_columns.hpp"
#include "db/store_internal.hpp"

namespace tilelens::db {

namespace {

// A sweep keeps one run per key (the runs_one_per_sweep_key index): the failed run a retry
// replaces goes, in the retry's own transaction.
Status drop_failed_attempts(Connection& c, const RunInfo& info) {
  if (!info.sweep_id) return Status::success();
  auto failed = c.prepare("SELECT id FROM runs WHERE sweep_id = ?1 AND run_key = ?2 AND status = 'failed'");
  if (!failed) return failed.error();
  failed->bind(1, *info.sweep_id).bind(2, info.key);
  std::vector<std::int64_t> ids;
  while (true) {
    auto row = failed->step();
    if (!row) return row.error();
    if (!*row) break;
    ids.push_back(failed->integer(0));
  }
  for (const std::int64_t id : ids) {
    if (auto status = erase_run(c, id); !status) return status;
  }
  return Status::success();
}

// A run's claim (Store::claim_run) ends with the commit that stores it.
Status end_claim(Connection& c, const RunInfo& info) {
  if (!info.sweep_id) return Status::success();
  auto release = c.prepare("DELETE FROM run_claims WHERE sweep_id = ?1 AND run_key = ?2");
  if (!release) return release.error();
  return release->bind(1, *info.sweep_id).bind(2, info.key).run();
}

}  // namespace

RunWriter::RunWriter(std::unique_ptr<State> state) : state_(std::move(state)) {}
RunWriter::RunWriter(RunWriter&&) noexcept = default;
RunWriter::~RunWriter() = default;  // an unfinished transaction rolls back

std::int64_t RunWriter::run_id() const { return state_->info.id; }

void RunWriter::on_task(const TaskRecord& r) {
  state_->keep(state_->insert_task.bind("run_id", state_->info.id)
                   .bind("global_order", to_int(r.global_order))
                   .bind("task_id", std::int64_t{r.task})
                   .bind("gpu", std::int64_t{r.gpu})
                   .bind("gpu_order", to_int(r.gpu_order))
                   .bind("buffered_ns", r.buffered_ns)
                   .bind("start_ns", r.start_ns)
                   .bind("end_ns", r.end_ns)
                   .run());
}

void RunWriter::on_load(const LoadRecord& r) {
  state_->keep(state_->insert_load.bind("run_id", state_->info.id)
                   .bind("seq", state_->load_seq++)
                   .bind("data_id", std::int64_t{r.data})
                   .bind("gpu", std::int64_t{r.gpu})
                   .bind("source", std::int64_t{r.source})
                   .bind("bytes", to_int(r.bytes))
                   .bind("issue_ns", r.issue_ns)
                   .bind("end_ns", r.end_ns)
                   .bind("kind", std::int64_t{static_cast<int>(r.kind)})
                   .bind("task_id", optional_id(r.task))
                   .run());
}

void RunWriter::on_eviction(const EvictionRecord& r) {
  state_->keep(state_->insert_eviction.bind("run_id", state_->info.id)
                   .bind("seq", state_->eviction_seq++)
                   .bind("data_id", std::int64_t{r.data})
                   .bind("gpu", std::int64_t{r.gpu})
                   .bind("time_ns", r.time_ns)
                   .bind("cause", std::int64_t{static_cast<int>(r.cause)})
                   .bind("for_task", optional_id(r.for_task))
                   .bind("wrote_back", std::int64_t{r.wrote_back ? 1 : 0})
                   .run());
}

void RunWriter::on_writeback(const WritebackRecord& r) {
  state_->keep(state_->insert_writeback.bind("run_id", state_->info.id)
                   .bind("seq", state_->writeback_seq++)
                   .bind("data_id", std::int64_t{r.data})
                   .bind("gpu", std::int64_t{r.gpu})
                   .bind("bytes", to_int(r.bytes))
                   .bind("start_ns", r.start_ns)
                   .bind("end_ns", r.end_ns)
                   .bind("cause", std::int64_t{static_cast<int>(r.cause)})
                   .run());
}

void RunWriter::on_allocation(const AllocationRecord& r) {
  state_->keep(state_->insert_allocation.bind("run_id", state_->info.id)
                   .bind("seq", state_->allocation_seq++)
                   .bind("data_id", std::int64_t{r.data})
                   .bind("gpu", std::int64_t{r.gpu})
                   .bind("time_ns", r.time_ns)
                   .bind("task_id", std::int64_t{r.task})
                   .run());
}

void RunWriter::write_import_report(const ImportReport& report) {
  State& s = *state_;
  auto insert = prepare_insert(*s.connection, "import_notes");
  if (!insert) return s.keep(insert.error());
  std::int64_t seq = 0;
  const auto write = [&](const char* level, const std::vector<std::string>& lines) {
    for (const std::string& text : lines) s.keep(insert->bind("run_id", s.info.id).bind("seq", seq++).bind("level", level).bind("text", text).run());
  };
  write("warning", report.warnings);
  write("note", report.notes);
  auto record = prepare_insert(*s.connection, "import_records");
  if (!record) return s.keep(record.error());
  std::int64_t rank = 0;
  for (const ImportReport::Record& r : report.records) {
    s.keep(record->bind("run_id", s.info.id).bind("seq", rank++).bind("place", r.where).bind("job", r.job).bind("fate", r.fate).bind("reason", r.reason).run());
  }
}

void RunWriter::write_measurement(const Measurement& m, const std::vector<CuptiRecord>& records) {
  State& s = *state_;
  auto insert = prepare_insert(*s.connection, "measurements");
  if (!insert) return s.keep(insert.error());
  s.keep(insert->bind("run_id", s.info.id)
             .bind("device", m.device)
             .bind("cupti", std::int64_t{m.cupti})
             .bind("cupti_records", to_int(m.cupti_records))
             .bind("cupti_dropped", to_int(m.cupti_dropped))
             .bind("verification", m.verification)
             .bind("worst_error", m.worst_error)
             .bind("tiles_checked", to_int(m.tiles_checked))
             .bind("tf32", std::int64_t{m.tf32})
             .bind("seed", static_cast<std::int64_t>(m.seed & 0x7fffffffffffffffull))
             .bind("arena_bytes", m.arena_bytes)
             .bind("output_pool_bytes", m.output_pool_bytes)
             .bind("wall_ns", m.wall_ns)
             .bind("setup_ns", m.setup_ns)
             .bind("cupti_apis", m.cupti_apis)
             .bind("kernels", m.kernels)
             .bind("launch_ahead", static_cast<std::int64_t>(m.launch_ahead))
             .run());
  auto record = prepare_insert(*s.connection, "cupti_records");
  if (!record) return s.keep(record.error());
  std::int64_t seq = 0;
  for (const auto& r : records) {
    std::optional<std::string> kind;
    std::optional<std::int64_t> index;
    if (r.external != 0) {
      switch (external_kind(r.external)) {
        case ExternalKind::Task: kind = "task"; break;
        case ExternalKind::Load: kind = "load"; break;
        case ExternalKind::Writeback: kind = "writeback"; break;
      }
      index = to_int(external_index(r.external));
    }
    s.keep(record->bind("run_id", s.info.id)
               .bind("seq", seq++)
               .bind("kind", std::string_view(to_string(r.kind)))
               .bind("start_ns", r.start_ns)
               .bind("end_ns", r.end_ns)
               .bind("device", std::int64_t{r.device})
               .bind("stream", std::int64_t{r.stream})
               .bind("correlation", std::int64_t{r.correlation})
               .bind("external_kind", kind)
               .bind("external_index", index)
               .bind("bytes", to_int(r.bytes))
               .bind("name", r.name)
               .run());
  }
}

void RunWriter::write(const Trace& trace) {
  for (const auto& r : trace.tasks) on_task(r);
  for (const auto& r : trace.loads) on_load(r);
  for (const auto& r : trace.evictions) on_eviction(r);
  for (const auto& r : trace.writebacks) on_writeback(r);
  for (const auto& r : trace.allocations) on_allocation(r);
}

Result<std::int64_t> RunWriter::finish(const RunMetrics& metrics) {
  State& s = *state_;
  if (!s.transaction) return make_error(s.connection->path() + ": run " + std::to_string(s.info.id) + " is already finished");
  if (s.error) return *s.error;
  const ReplaySummary& m = metrics.summary;
  const bool transfers = s.info.transfers_recorded;
  auto insert = prepare_insert(*s.connection, "metrics");
  if (!insert) return insert.error();
  insert->bind("run_id", s.info.id);
  for (const MetricColumn& metric : metric_columns()) {
    const std::string_view name = metric.column.name;
    const MetricColumn::Value value = metric.get(metrics);
    if (metric.transfer && !transfers) {
      insert->bind(name, std::optional<std::int64_t>());
    } else if (const auto* integer = std::get_if<std::int64_t>(&value)) {
      insert->bind(name, *integer);
    } else if (const auto* real = std::get_if<double>(&value)) {
      insert->bind(name, *real);
    } else if (const auto* text = std::get_if<std::string>(&value)) {
      insert->bind(name, std::string_view(*text));
    }
  }
  if (auto status = insert->run(); !status) return status.error();
  auto insert_gpu = prepare_insert(*s.connection, "gpu_metrics");
  if (!insert_gpu) return insert_gpu.error();
  for (std::size_t g = 0; g < m.gpus.size(); ++g) {
    const GpuSummary& gpu = m.gpus[g];
    insert_gpu->bind("run_id", s.info.id)
        .bind("gpu", static_cast<std::int64_t>(g))
        .bind("tasks", to_int(gpu.tasks))
        .bind("loads", to_int(gpu.loads))
        .bind("allocations", to_int(gpu.allocations))
        .bind("evictions", to_int(gpu.evictions))
        .bind("invalidations", to_int(gpu.invalidations))
        .bind("resident_at_end", to_int(gpu.resident_at_end))
        .bind("busy_ns", gpu.busy_ns)
        .bind("peak_bytes", gpu.peak_bytes);
    if (auto status = insert_gpu->run(); !status) return status.error();
  }
  auto insert_counter = prepare_insert(*s.connection, "scheduler_counters");
  if (!insert_counter) return insert_counter.error();
  for (const auto& [name, value] : m.scheduler_counters) {
    insert_counter->bind("run_id", s.info.id).bind("name", name).bind("value", to_int(value));
    if (auto status = insert_counter->run(); !status) return status.error();
  }
  auto update = s.connection->prepare("UPDATE runs SET status = 'complete', finished_at = :finished_at WHERE id = :id");
  if (!update) return update.error();
  if (auto status = update->bind("id", s.info.id).bind("finished_at", utc_now()).run(); !status) return status.error();
  if (auto status = end_claim(*s.connection, s.info); !status) return status.error();
  if (auto status = s.transaction->commit(); !status) return status.error();
  s.transaction.reset();
  return s.info.id;
}

namespace {

// The run's row, with its status; the id when the run already has one (a failed run keeps it).
Status insert_run(Connection& c, const RunInfo& info, std::int64_t platform_id, std::string_view status) {
  auto insert = prepare_insert(c, "runs");
  if (!insert) return insert.error();
  if (info.id) insert->bind("id", info.id);
  return insert->bind("workload_id", info.workload_id)
      .bind("platform_id", platform_id)
      .bind("scheduler", info.scheduler)
      .bind("eviction", info.eviction)
      .bind("buffer_depth", std::int64_t{info.buffer_depth})
      .bind("memory_model", info.memory_model)
      .bind("scheduling_cost", info.scheduling_cost)
      .bind("mode", std::string_view(to_string(info.mode)))
      .bind("seed", info.seed)
      .bind("tilelens_version", info.tilelens_version)
      .bind("started_at", info.started_at)
      .bind("finished_at", status == "failed" ? std::optional<std::string>(utc_now()) : std::nullopt)
      .bind("status", status)
      .bind("error", status == "failed" ? std::optional<std::string>(info.error) : std::nullopt)
      .bind("host", info.host)
      .bind("gpu_name", info.gpu_name)
      .bind("transfers_recorded", std::int64_t{info.transfers_recorded ? 1 : 0})
      .bind("sweep_id", info.sweep_id)
      .bind("run_key", info.key)
      .run();
}

}  // namespace

Result<std::int64_t> RunWriter::fail(const std::string& reason) {
  State& s = *state_;
  if (!s.transaction) return make_error(s.connection->path() + ": run " + std::to_string(s.info.id) + " is already finished");
  // Drop whatever was recorded, then keep only the run row and why it failed. The platform
  // row was committed before the run began (begin_run stores it first).
  s.transaction.reset();
  auto transaction = Transaction::begin(*s.connection);
  if (!transaction) return transaction.error();
  RunInfo failed = s.info;
  failed.error = reason;
  if (auto status = drop_failed_attempts(*s.connection, failed); !status) return status.error();
  if (auto status = insert_run(*s.connection, failed, s.platform_id, "failed"); !status) return status.error();
  if (auto status = end_claim(*s.connection, failed); !status) return status.error();
  if (auto status = transaction->commit(); !status) return status.error();
  return s.info.id;
}

Result<RunWriter> Store::begin_run(RunInfo info) {
  Connection& c = impl_->connection;
  auto platform_id = put_platform(info.platform);
  if (!platform_id) return platform_id.error();
  auto state = std::make_unique<RunWriter::State>();
  state->connection = &c;
  state->platform_id = *platform_id;
  auto transaction = Transaction::begin(c);
  if (!transaction) return transaction.error();
  state->transaction.emplace(std::move(*transaction));
  if (info.started_at.empty()) info.started_at = utc_now();
  if (info.key.empty()) info.key = run_key(info.workload_spec, info.scheduler, info.eviction, info.platform, info.buffer_depth, info.mode, false, info.memory_model,
                                             info.scheduling_cost);
  info.id = 0;
  if (auto status = drop_failed_attempts(c, info); !status) return status.error();
  if (auto status = insert_run(c, info, *platform_id, "incomplete"); !status) {
    if (info.sweep_id && status.error().message.find("UNIQUE constraint failed") != std::string::npos) {
      return make_error(c.path() + ": sweep " + std::to_string(*info.sweep_id) +
                        " already holds this run complete (another process stored it first): " + info.key);
    }
    return status.error();
  }
  info.id = c.last_insert_id();
  info.status = RunStatus::Incomplete;
  state->info = std::move(info);
  struct Prepared {
    Statement* target;
    std::string_view table;
  };
  for (const Prepared& p : {Prepared{&state->insert_task, "task_executions"}, Prepared{&state->insert_load, "loads"},
                            Prepared{&state->insert_eviction, "evictions"}, Prepared{&state->insert_writeback, "writebacks"},
                            Prepared{&state->insert_allocation, "allocations"}}) {
    auto statement = prepare_insert(c, p.table);
    if (!statement) return statement.error();
    *p.target = std::move(*statement);
  }
  return RunWriter(std::move(state));
}

}  // namespace tilelens::db
