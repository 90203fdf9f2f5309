// The trace store; see store.hpp and docs/database.md.
#include "store/store.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <ostream>
#include <streambuf>

#include "store/schema.hpp"
#include "formats/workload_io.hpp"

namespace tilelens::db {
namespace {

// FNV-1a over everything written to it: the content hash of a workload is the hash of its
// file form, so two identical workloads are stored once whatever produced them.
class HashingBuffer final : public std::streambuf {
 public:
  std::uint64_t hash = 14695981039346656037ull;

 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) add(static_cast<char>(c));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) add(s[i]);
    return n;
  }

 private:
  void add(char c) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
};

Result<std::string> content_hash(const Workload& workload) {
  HashingBuffer buffer;
  std::ostream out(&buffer);
  if (auto status = write_workload(workload, out); !status) return status.error();
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(buffer.hash));
  return std::string(text);
}

std::optional<std::int64_t> optional_id(std::uint32_t id) {
  if (id == kNoId) return std::nullopt;
  return static_cast<std::int64_t>(id);
}

std::int64_t to_int(std::uint64_t value) { return static_cast<std::int64_t>(value); }

// Runs `sql` with ?1 bound to `id` and hands each row to `read`.
template <class Read>
Status for_each_row(Connection& c, const char* sql, std::int64_t id, Read&& read) {
  auto query = c.prepare(sql);
  if (!query) return query.error();
  query->bind(1, id);
  while (true) {
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) return Status::success();
    read(*query);
  }
}

// The id of the row whose unique `column` holds `key`, if any.
Result<std::optional<std::int64_t>> find_id(Connection& c, const std::string& table, const std::string& column,
                                            const std::string& key) {
  auto find = c.prepare("SELECT id FROM " + table + " WHERE " + column + " = ?1");
  if (!find) return find.error();
  find->bind(1, key);
  auto found = find->step();
  if (!found) return found.error();
  if (!*found) return std::optional<std::int64_t>();
  return std::optional<std::int64_t>(find->integer(0));
}

Result<std::optional<RunMetrics>> load_metrics(Connection& c, std::int64_t run_id);

RunMode mode_from(const std::string& text) {
  return text == "cuda" ? RunMode::Cuda : text == "starpu" ? RunMode::StarPU : RunMode::Replay;
}

constexpr const char* kRunColumns =
    "SELECT r.id, r.workload_id, w.name, coalesce(w.spec, w.name), r.scheduler, r.eviction, r.buffer_depth, r.mode, "
    "r.seed, r.tilelens_version, r.started_at, coalesce(r.finished_at, ''), r.status, coalesce(r.error, ''), "
    "coalesce(r.host, ''), coalesce(r.gpu_name, ''), r.transfers_recorded, r.sweep_id, r.run_key, "
    "p.name, p.gpus, p.memory_bytes, p.bus_bandwidth, p.gpu_link_bandwidth, p.latency_ns, p.default_gflops, "
    "p.kind_gflops, w.task_count, w.data_count, w.working_set_bytes, p.gpu_bus_bandwidth, p.gpus_per_switch, p.switch_bandwidth, "
    "p.workers_per_memory, p.cpus, p.cpu_default_gflops, p.cpu_kind_gflops "
    "FROM runs r JOIN workloads w ON w.id = r.workload_id JOIN platforms p ON p.id = r.platform_id ";

RunInfo read_run_info(const Statement& s) {
  RunInfo info;
  info.id = s.integer(0);
  info.workload_id = s.integer(1);
  info.workload_name = s.text(2);
  info.workload_spec = s.text(3);
  info.scheduler = s.text(4);
  info.eviction = s.text(5);
  info.buffer_depth = static_cast<std::uint32_t>(s.integer(6));
  info.mode = mode_from(s.text(7));
  if (!s.is_null(8)) info.seed = s.integer(8);
  info.tilelens_version = s.text(9);
  info.started_at = s.text(10);
  info.finished_at = s.text(11);
  info.status = run_status_from(s.text(12)).value_or(RunStatus::Incomplete);
  info.error = s.text(13);
  info.host = s.text(14);
  info.gpu_name = s.text(15);
  info.transfers_recorded = s.integer(16) != 0;
  if (!s.is_null(17)) info.sweep_id = s.integer(17);
  info.key = s.text(18);
  Platform& p = info.platform;
  p.name = s.text(19);
  p.gpus = static_cast<std::uint32_t>(s.integer(20));
  p.memory_bytes = s.real(21);
  p.bus_bandwidth = s.real(22);
  p.gpu_link_bandwidth = s.real(23);
  p.latency_ns = s.integer(24);
  p.default_gflops = s.real(25);
  info.workload_tasks = static_cast<std::uint64_t>(s.integer(27));
  info.workload_data = static_cast<std::uint64_t>(s.integer(28));
  info.working_set_bytes = static_cast<std::uint64_t>(s.integer(29));
  p.gpu_bus_bandwidth = s.real(30);
  p.gpus_per_switch = static_cast<std::uint32_t>(s.integer(31));
  p.switch_bandwidth = s.real(32);
  p.workers_per_memory = static_cast<std::uint32_t>(s.integer(33));
  p.cpus = static_cast<std::uint32_t>(s.integer(34));
  p.cpu_default_gflops = s.real(35);
  parse_kind_rates(s.text(26), p.kind_gflops);
  parse_kind_rates(s.text(36), p.cpu_kind_gflops);
  return info;
}

const char* const kRunTables[] = {"task_executions", "loads",   "evictions",    "writebacks",   "allocations",
                                  "metrics",         "gpu_metrics", "measurements", "cupti_records"};
const char* const kWorkloadTables[] = {"kinds", "data", "tasks", "accesses", "dependencies"};

}  // namespace

namespace {
// The identity of a platform row: every field, so two platforms differing in any are two rows.
std::string platform_key(const Platform& p) { return run_key("", "", "", p, 0, RunMode::Replay); }
}  // namespace

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

// ---------------------------------------------------------------- RunWriter

struct RunWriter::State {
  Connection* connection = nullptr;
  std::optional<Transaction> transaction;
  std::int64_t platform_id = 0;
  RunInfo info;
  Statement insert_task, insert_load, insert_eviction, insert_writeback, insert_allocation;
  std::int64_t load_seq = 0, eviction_seq = 0, writeback_seq = 0, allocation_seq = 0;
  std::optional<Error> error;

  void keep(Status status) {
    if (!status && !error) error = status.error();
  }
};

RunWriter::RunWriter(std::unique_ptr<State> state) : state_(std::move(state)) {}
RunWriter::RunWriter(RunWriter&&) noexcept = default;
RunWriter::~RunWriter() = default;  // an unfinished transaction rolls back

std::int64_t RunWriter::run_id() const { return state_->info.id; }

void RunWriter::on_task(const TaskRecord& r) {
  state_->keep(state_->insert_task.bind(1, state_->info.id)
                   .bind(2, to_int(r.global_order))
                   .bind(3, std::int64_t{r.task})
                   .bind(4, std::int64_t{r.gpu})
                   .bind(5, to_int(r.gpu_order))
                   .bind(6, r.buffered_ns)
                   .bind(7, r.start_ns)
                   .bind(8, r.end_ns)
                   .run());
}

void RunWriter::on_load(const LoadRecord& r) {
  state_->keep(state_->insert_load.bind(1, state_->info.id)
                   .bind(2, state_->load_seq++)
                   .bind(3, std::int64_t{r.data})
                   .bind(4, std::int64_t{r.gpu})
                   .bind(5, std::int64_t{r.source})
                   .bind(6, to_int(r.bytes))
                   .bind(7, r.issue_ns)
                   .bind(8, r.end_ns)
                   .bind(9, std::int64_t{static_cast<int>(r.kind)})
                   .bind(10, optional_id(r.task))
                   .run());
}

void RunWriter::on_eviction(const EvictionRecord& r) {
  state_->keep(state_->insert_eviction.bind(1, state_->info.id)
                   .bind(2, state_->eviction_seq++)
                   .bind(3, std::int64_t{r.data})
                   .bind(4, std::int64_t{r.gpu})
                   .bind(5, r.time_ns)
                   .bind(6, std::int64_t{static_cast<int>(r.cause)})
                   .bind(7, optional_id(r.for_task))
                   .bind(8, std::int64_t{r.wrote_back ? 1 : 0})
                   .run());
}

void RunWriter::on_writeback(const WritebackRecord& r) {
  state_->keep(state_->insert_writeback.bind(1, state_->info.id)
                   .bind(2, state_->writeback_seq++)
                   .bind(3, std::int64_t{r.data})
                   .bind(4, std::int64_t{r.gpu})
                   .bind(5, to_int(r.bytes))
                   .bind(6, r.start_ns)
                   .bind(7, r.end_ns)
                   .bind(8, std::int64_t{static_cast<int>(r.cause)})
                   .run());
}

void RunWriter::on_allocation(const AllocationRecord& r) {
  state_->keep(state_->insert_allocation.bind(1, state_->info.id)
                   .bind(2, state_->allocation_seq++)
                   .bind(3, std::int64_t{r.data})
                   .bind(4, std::int64_t{r.gpu})
                   .bind(5, r.time_ns)
                   .bind(6, std::int64_t{r.task})
                   .run());
}

void RunWriter::write_measurement(const Measurement& m, const std::vector<CuptiRecord>& records) {
  State& s = *state_;
  auto insert = s.connection->prepare("INSERT INTO measurements VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
  if (!insert) return s.keep(insert.error());
  s.keep(insert->bind(1, s.info.id)
             .bind(2, m.device)
             .bind(3, std::int64_t{m.cupti})
             .bind(4, to_int(m.cupti_records))
             .bind(5, to_int(m.cupti_dropped))
             .bind(6, m.verification)
             .bind(7, m.worst_error)
             .bind(8, to_int(m.tiles_checked))
             .bind(9, std::int64_t{m.tf32})
             .bind(10, static_cast<std::int64_t>(m.seed & 0x7fffffffffffffffull))
             .bind(11, m.arena_bytes)
             .bind(12, m.output_pool_bytes)
             .bind(13, m.wall_ns)
             .bind(14, m.setup_ns)
             .run());
  auto record = s.connection->prepare("INSERT INTO cupti_records VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
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
    s.keep(record->bind(1, s.info.id)
               .bind(2, seq++)
               .bind(3, std::string_view(to_string(r.kind)))
               .bind(4, r.start_ns)
               .bind(5, r.end_ns)
               .bind(6, std::int64_t{r.device})
               .bind(7, std::int64_t{r.stream})
               .bind(8, std::int64_t{r.correlation})
               .bind(9, kind)
               .bind(10, index)
               .bind(11, to_int(r.bytes))
               .bind(12, r.name)
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
  auto transfer_count = [&](std::uint64_t value) { return transfers ? std::optional<std::int64_t>(to_int(value)) : std::nullopt; };
  auto transfer_bytes = [&](double value) { return transfers ? std::optional<double>(value) : std::nullopt; };
  auto insert = s.connection->prepare(
      "INSERT INTO metrics VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, "
      "?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33)");
  if (!insert) return insert.error();
  insert->bind(1, s.info.id)
      .bind(2, to_int(m.tasks))
      .bind(3, transfer_count(m.loads))
      .bind(4, transfer_count(m.fetches))
      .bind(5, transfer_count(m.prefetches))
      .bind(6, transfer_count(m.unused_loads))
      .bind(7, transfer_count(m.loads_from_host))
      .bind(8, transfer_count(m.loads_from_gpu))
      .bind(9, transfer_bytes(m.bytes_loaded))
      .bind(10, transfer_bytes(m.bytes_from_host))
      .bind(11, transfer_bytes(m.bytes_gpu_to_gpu))
      .bind(12, transfer_bytes(m.bytes_fetched))
      .bind(13, transfer_bytes(m.bytes_prefetched))
      .bind(14, transfer_count(m.evictions))
      .bind(15, transfer_count(m.invalidations))
      .bind(16, transfer_count(m.allocations))
      .bind(17, transfer_count(m.writebacks))
      .bind(18, transfer_bytes(m.bytes_written_back))
      .bind(19, m.makespan_ns)
      .bind(20, m.flush_end_ns)
      .bind(21, m.total_flops)
      .bind(22, m.gflops)
      .bind(23, m.idle_ns)
      .bind(24, m.scheduling_ns)
      .bind(25, m.eviction_ns)
      .bind(26, to_int(m.events))
      .bind(27, metrics.lower_bound_bytes)
      .bind(28, metrics.lower_bound)
      .bind(29, transfer_bytes(metrics.ratio_to_lower_bound()))
      .bind(30, metrics.bus_limit_bytes)
      .bind(31, metrics.ideal_compute_ns)
      .bind(32, m.prepare_ns)
      .bind(33, m.charged_ns);
  if (auto status = insert->run(); !status) return status.error();
  auto insert_gpu = s.connection->prepare("INSERT INTO gpu_metrics VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  if (!insert_gpu) return insert_gpu.error();
  for (std::size_t g = 0; g < m.gpus.size(); ++g) {
    const GpuSummary& gpu = m.gpus[g];
    insert_gpu->bind(1, s.info.id)
        .bind(2, static_cast<std::int64_t>(g))
        .bind(3, to_int(gpu.tasks))
        .bind(4, to_int(gpu.loads))
        .bind(5, to_int(gpu.allocations))
        .bind(6, to_int(gpu.evictions))
        .bind(7, to_int(gpu.invalidations))
        .bind(8, to_int(gpu.resident_at_end))
        .bind(9, gpu.busy_ns)
        .bind(10, gpu.peak_bytes);
    if (auto status = insert_gpu->run(); !status) return status.error();
  }
  auto update = s.connection->prepare("UPDATE runs SET status = 'complete', finished_at = ?2 WHERE id = ?1");
  if (!update) return update.error();
  if (auto status = update->bind(1, s.info.id).bind(2, utc_now()).run(); !status) return status.error();
  if (auto status = s.transaction->commit(); !status) return status.error();
  s.transaction.reset();
  return s.info.id;
}

Result<std::int64_t> RunWriter::fail(const std::string& reason) {
  State& s = *state_;
  if (!s.transaction) return make_error(s.connection->path() + ": run " + std::to_string(s.info.id) + " is already finished");
  // Drop whatever was recorded, then keep only the run row and why it failed.
  s.transaction.reset();
  auto transaction = Transaction::begin(*s.connection);
  if (!transaction) return transaction.error();
  auto insert = s.connection->prepare(
      "INSERT INTO runs (id, workload_id, platform_id, scheduler, eviction, buffer_depth, mode, seed, tilelens_version, "
      "started_at, finished_at, status, error, host, gpu_name, transfers_recorded, sweep_id, run_key) "
      "VALUES (?1, ?2, ?17, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'failed', ?11, ?12, ?13, ?14, ?15, ?16)");
  if (!insert) return insert.error();
  // The platform row was committed before the run began (begin_run stores it first).
  insert->bind(1, s.info.id)
      .bind(2, s.info.workload_id)
      .bind(3, s.info.scheduler)
      .bind(4, s.info.eviction)
      .bind(5, std::int64_t{s.info.buffer_depth})
      .bind(6, std::string_view(to_string(s.info.mode)))
      .bind(7, s.info.seed)
      .bind(8, s.info.tilelens_version)
      .bind(9, s.info.started_at)
      .bind(10, utc_now())
      .bind(11, reason)
      .bind(12, s.info.host)
      .bind(13, s.info.gpu_name)
      .bind(14, std::int64_t{s.info.transfers_recorded ? 1 : 0})
      .bind(15, s.info.sweep_id)
      .bind(16, s.info.key)
      .bind(17, s.platform_id);
  if (auto status = insert->run(); !status) return status.error();
  if (auto status = transaction->commit(); !status) return status.error();
  return s.info.id;
}

// ---------------------------------------------------------------- Store

struct Store::Impl {
  Connection connection;
};

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

const std::string& Store::path() const { return impl_->connection.path(); }

Result<Store> Store::open(const std::string& path, OpenMode mode) {
  if (mode == OpenMode::ReadOnlyUpgrading) {
    auto reader = open(path, OpenMode::ReadOnly);
    if (reader) return reader;
    std::int64_t version = 0;
    if (auto connection = Connection::open(path, Connection::Access::ReadOnly)) {
      if (auto found = connection->query_integer("PRAGMA user_version")) version = *found;
    }
    if (version <= 0 || version >= kSchemaVersion) return reader;  // not an older tilelens file: that error stands
    if (auto upgraded = open(path, OpenMode::ReadWrite); !upgraded) return upgraded.error();
    return open(path, OpenMode::ReadOnly);
  }
  if (auto status = check_database_file(path); !status) return status.error();
  const bool writable = mode == OpenMode::ReadWrite;
  std::error_code ec;
  if (!writable && !std::filesystem::exists(path, ec)) {
    return make_error(path + ": no such database (replay --db, sweep and import create one)");
  }
  auto connection = Connection::open(path, writable ? Connection::Access::ReadWrite : Connection::Access::ReadOnly);
  if (!connection) return connection.error();
  if (auto status = prepare_schema(*connection, writable); !status) return status.error();
  if (writable) {
    // WAL: readers never block the writer nor see a half-written run; NORMAL sync is
    // durable against a killed process (only a power loss may drop the last commits).
    if (auto status = connection->exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL"); !status) {
      return status.error();
    }
  }
  if (auto status = connection->exec("PRAGMA cache_size = -65536"); !status) return status.error();
  auto impl = std::make_unique<Impl>();
  impl->connection = std::move(*connection);
  return Store(std::move(impl));
}

Result<std::int64_t> Store::put_workload(const Workload& w, const std::string& source) {
  Connection& c = impl_->connection;
  auto hash = content_hash(w);
  if (!hash) return hash.error();
  auto found = find_id(c, "workloads", "content_hash", *hash);
  if (!found) return found.error();
  if (*found) return **found;

  auto transaction = Transaction::begin(c);
  if (!transaction) return transaction.error();
  const GeneratorInfo& g = w.generator();
  const bool generated = !g.name.empty();
  auto insert = c.prepare(
      "INSERT INTO workloads (name, generator, spec, source, content_hash, task_count, data_count, dependency_count, "
      "working_set_bytes, total_flops, N_tiles, n_inner, tile_size, element_bytes, density, seed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
      "?12, ?13, ?14, ?15, ?16)");
  if (!insert) return insert.error();
  auto when = [&](std::int64_t value) { return generated ? std::optional<std::int64_t>(value) : std::nullopt; };
  insert->bind(1, w.name())
      .bind(2, generated ? std::optional<std::string_view>(g.name) : std::nullopt)
      .bind(3, generated ? std::optional<std::string_view>(g.spec) : std::nullopt)
      .bind(4, source)
      .bind(5, *hash)
      .bind(6, to_int(w.task_count()))
      .bind(7, to_int(w.data_count()))
      .bind(8, to_int(w.dependency_count()))
      .bind(9, to_int(w.working_set_bytes()))
      .bind(10, w.total_flops())
      .bind(11, when(g.N))
      .bind(12, when(g.n))
      .bind(13, when(g.b))
      .bind(14, when(g.elem))
      .bind(15, generated ? std::optional<double>(g.density) : std::nullopt)
      .bind(16, when(static_cast<std::int64_t>(g.seed)));
  if (auto status = insert->run(); !status) return status.error();
  const std::int64_t id = c.last_insert_id();

  auto kinds = c.prepare("INSERT INTO kinds VALUES (?1, ?2, ?3)");
  auto data = c.prepare("INSERT INTO data VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  auto tasks = c.prepare("INSERT INTO tasks VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  auto accesses = c.prepare("INSERT INTO accesses VALUES (?1, ?2, ?3, ?4, ?5)");
  auto dependencies = c.prepare("INSERT INTO dependencies VALUES (?1, ?2, ?3)");
  for (auto* s : {&kinds, &data, &tasks, &accesses, &dependencies}) {
    if (!*s) return s->error();
  }
  for (std::size_t k = 0; k < w.kinds().size(); ++k) {
    if (auto status = kinds->bind(1, id).bind(2, to_int(k)).bind(3, w.kinds()[k]).run(); !status) return status.error();
  }
  for (DataId d = 0; d < w.data_count(); ++d) {
    const Data& item = w.data()[d];
    if (auto status = data->bind(1, id)
                          .bind(2, std::int64_t{d})
                          .bind(3, item.name)
                          .bind(4, to_int(item.bytes))
                          .bind(5, std::string_view(&item.matrix, 1))
                          .bind(6, std::int64_t{item.row})
                          .bind(7, std::int64_t{item.col})
                          .run();
        !status) {
      return status.error();
    }
  }
  std::vector<std::int64_t> position(w.task_count());
  for (std::size_t p = 0; p < w.submission_order().size(); ++p) position[w.submission_order()[p]] = to_int(p);
  for (TaskId t = 0; t < w.task_count(); ++t) {
    const Task& task = w.tasks()[t];
    if (auto status = tasks->bind(1, id)
                          .bind(2, std::int64_t{t})
                          .bind(3, std::int64_t{task.kind})
                          .bind(4, task.flops)
                          .bind(5, task.priority)
                          .bind(6, std::int64_t{task.i})
                          .bind(7, std::int64_t{task.j})
                          .bind(8, std::int64_t{task.k})
                          .bind(9, position[t])
                          .run();
        !status) {
      return status.error();
    }
    std::int64_t slot = 0;
    for (const Access& a : w.accesses(t)) {
      if (auto status = accesses->bind(1, id)
                            .bind(2, std::int64_t{t})
                            .bind(3, slot++)
                            .bind(4, std::int64_t{a.data})
                            .bind(5, std::int64_t{static_cast<int>(a.mode)})
                            .run();
          !status) {
        return status.error();
      }
    }
    for (TaskId before : w.predecessors(t)) {
      if (auto status = dependencies->bind(1, id).bind(2, std::int64_t{before}).bind(3, std::int64_t{t}).run(); !status) {
        return status.error();
      }
    }
  }
  if (auto status = transaction->commit(); !status) return status.error();
  return id;
}

Result<std::int64_t> Store::put_platform(const Platform& p) {
  Connection& c = impl_->connection;
  const std::string description = platform_key(p);
  auto found = find_id(c, "platforms", "description", description);
  if (!found) return found.error();
  if (*found) return **found;
  auto insert = c.prepare("INSERT INTO platforms (name, gpus, memory_bytes, bus_bandwidth, gpu_link_bandwidth, latency_ns, "
                          "default_gflops, kind_gflops, description, gpu_bus_bandwidth, gpus_per_switch, switch_bandwidth, "
                          "workers_per_memory, cpus, cpu_default_gflops, cpu_kind_gflops) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)");
  if (!insert) return insert.error();
  insert->bind(1, p.name)
      .bind(2, std::int64_t{p.gpus})
      .bind(3, p.memory_bytes)
      .bind(4, p.bus_bandwidth)
      .bind(5, p.gpu_link_bandwidth)
      .bind(6, p.latency_ns)
      .bind(7, p.default_gflops)
      .bind(8, format_kind_rates(p.kind_gflops))
      .bind(9, description)
      .bind(10, p.gpu_bus_bandwidth)
      .bind(11, std::int64_t{p.gpus_per_switch})
      .bind(12, p.switch_bandwidth)
      .bind(13, std::int64_t{p.workers_per_memory})
      .bind(14, std::int64_t{p.cpus})
      .bind(15, p.cpu_default_gflops)
      .bind(16, format_kind_rates(p.cpu_kind_gflops));
  if (auto status = insert->run(); !status) return status.error();
  return c.last_insert_id();
}

Result<std::int64_t> Store::put_sweep(const std::string& spec) {
  Connection& c = impl_->connection;
  auto found = find_id(c, "sweeps", "spec", spec);
  if (!found) return found.error();
  if (*found) return **found;
  auto insert = c.prepare("INSERT INTO sweeps (spec, created_at) VALUES (?1, ?2)");
  if (!insert) return insert.error();
  if (auto status = insert->bind(1, spec).bind(2, utc_now()).run(); !status) return status.error();
  return c.last_insert_id();
}

Result<std::vector<Store::SweepInfo>> Store::list_sweeps() {
  std::vector<SweepInfo> sweeps;
  Status status = for_each_row(impl_->connection, "SELECT id, spec, created_at FROM sweeps WHERE id > ?1 ORDER BY id", 0,
                               [&](const Statement& row) {
                                 sweeps.push_back({row.integer(0), row.text(1), row.text(2)});
                               });
  if (!status) return status.error();
  return sweeps;
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
  if (info.key.empty()) info.key = run_key(info.workload_spec, info.scheduler, info.eviction, info.platform, info.buffer_depth, info.mode);
  auto insert = c.prepare(
      "INSERT INTO runs (workload_id, platform_id, scheduler, eviction, buffer_depth, mode, seed, tilelens_version, "
      "started_at, status, host, gpu_name, transfers_recorded, sweep_id, run_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
      "?9, 'incomplete', ?10, ?11, ?12, ?13, ?14)");
  if (!insert) return insert.error();
  insert->bind(1, info.workload_id)
      .bind(2, *platform_id)
      .bind(3, info.scheduler)
      .bind(4, info.eviction)
      .bind(5, std::int64_t{info.buffer_depth})
      .bind(6, std::string_view(to_string(info.mode)))
      .bind(7, info.seed)
      .bind(8, info.tilelens_version)
      .bind(9, info.started_at)
      .bind(10, info.host)
      .bind(11, info.gpu_name)
      .bind(12, std::int64_t{info.transfers_recorded ? 1 : 0})
      .bind(13, info.sweep_id)
      .bind(14, info.key);
  if (auto status = insert->run(); !status) return status.error();
  info.id = c.last_insert_id();
  info.status = RunStatus::Incomplete;
  state->info = std::move(info);

  struct Prepared {
    Statement* target;
    const char* sql;
  };
  for (const Prepared& p : {Prepared{&state->insert_task, "INSERT INTO task_executions VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"},
                            Prepared{&state->insert_load, "INSERT INTO loads VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"},
                            Prepared{&state->insert_eviction, "INSERT INTO evictions VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"},
                            Prepared{&state->insert_writeback, "INSERT INTO writebacks VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"},
                            Prepared{&state->insert_allocation, "INSERT INTO allocations VALUES (?1, ?2, ?3, ?4, ?5, ?6)"}}) {
    auto statement = c.prepare(p.sql);
    if (!statement) return statement.error();
    *p.target = std::move(*statement);
  }
  return RunWriter(std::move(state));
}

Result<std::vector<RunInfo>> Store::list_runs(const RunFilter& filter) {
  std::string sql = std::string(kRunColumns) +
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
  auto query = c.prepare(std::string(kRunColumns) + "WHERE r.id = ?1");
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

Result<std::optional<Measurement>> Store::load_measurement(std::int64_t run_id) {
  auto query = impl_->connection.prepare("SELECT * FROM measurements WHERE run_id = ?1");
  if (!query) return query.error();
  query->bind(1, run_id);
  auto row = query->step();
  if (!row) return row.error();
  if (!*row) return std::optional<Measurement>();
  const Statement& q = *query;
  Measurement m;
  m.device = q.text(1);
  m.cupti = q.integer(2) != 0;
  m.cupti_records = static_cast<std::uint64_t>(q.integer(3));
  m.cupti_dropped = static_cast<std::uint64_t>(q.integer(4));
  m.verification = q.text(5);
  m.worst_error = q.real(6);
  m.tiles_checked = static_cast<std::uint64_t>(q.integer(7));
  m.tf32 = q.integer(8) != 0;
  m.seed = static_cast<std::uint64_t>(q.integer(9));
  m.arena_bytes = q.real(10);
  m.output_pool_bytes = q.real(11);
  m.wall_ns = q.integer(12);
  m.setup_ns = q.integer(13);
  return std::optional<Measurement>(std::move(m));
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

namespace {

// A run's metrics and per-GPU figures; none for a run that has no metrics row (failed).
Result<std::optional<RunMetrics>> load_metrics(Connection& c, std::int64_t run_id) {
  auto metrics = c.prepare("SELECT * FROM metrics WHERE run_id = ?1");
  if (!metrics) return metrics.error();
  metrics->bind(1, run_id);
  auto has_metrics = metrics->step();
  if (!has_metrics) return has_metrics.error();
  if (!*has_metrics) return std::optional<RunMetrics>();
  const Statement& m = *metrics;
  RunMetrics out;
  ReplaySummary& s = out.summary;
  auto count = [&](int column) { return static_cast<std::uint64_t>(m.integer(column)); };
  s.tasks = count(1);
  s.loads = count(2);
  s.fetches = count(3);
  s.prefetches = count(4);
  s.unused_loads = count(5);
  s.loads_from_host = count(6);
  s.loads_from_gpu = count(7);
  s.bytes_loaded = m.real(8);
  s.bytes_from_host = m.real(9);
  s.bytes_gpu_to_gpu = m.real(10);
  s.bytes_fetched = m.real(11);
  s.bytes_prefetched = m.real(12);
  s.evictions = count(13);
  s.invalidations = count(14);
  s.allocations = count(15);
  s.writebacks = count(16);
  s.bytes_written_back = m.real(17);
  s.makespan_ns = m.integer(18);
  s.flush_end_ns = m.integer(19);
  s.total_flops = m.real(20);
  s.gflops = m.real(21);
  s.idle_ns = m.integer(22);
  s.scheduling_ns = m.integer(23);
  s.eviction_ns = m.integer(24);
  s.events = count(25);
  out.lower_bound_bytes = m.real(26);
  out.lower_bound = m.text(27);
  out.bus_limit_bytes = m.real(29);
  out.ideal_compute_ns = m.real(30);
  s.prepare_ns = m.integer(31);
  s.charged_ns = m.integer(32);

  Status status = for_each_row(c, "SELECT * FROM gpu_metrics WHERE run_id = ?1 ORDER BY gpu", run_id, [&](const Statement& g) {
    GpuSummary gpu;
    gpu.tasks = static_cast<std::uint64_t>(g.integer(2));
    gpu.loads = static_cast<std::uint64_t>(g.integer(3));
    gpu.allocations = static_cast<std::uint64_t>(g.integer(4));
    gpu.evictions = static_cast<std::uint64_t>(g.integer(5));
    gpu.invalidations = static_cast<std::uint64_t>(g.integer(6));
    gpu.resident_at_end = static_cast<std::uint64_t>(g.integer(7));
    gpu.busy_ns = g.integer(8);
    gpu.peak_bytes = g.real(9);
    s.gpus.push_back(gpu);
  });
  if (!status) return status.error();
  return std::optional<RunMetrics>(std::move(out));
}

}  // namespace

Result<Trace> Store::load_trace(std::int64_t run_id) {
  Connection& c = impl_->connection;
  Trace trace;
  auto for_rows = [&](const char* sql, auto&& read) { return for_each_row(c, sql, run_id, read); };
  auto id_or_none = [](const Statement& s, int column) { return s.is_null(column) ? kNoId : static_cast<std::uint32_t>(s.integer(column)); };
  auto u32 = [](const Statement& s, int column) { return static_cast<std::uint32_t>(s.integer(column)); };
  Status status = for_rows(
      "SELECT task_id, gpu, global_order, gpu_order, buffered_ns, start_ns, end_ns FROM task_executions WHERE run_id = ?1 "
      "ORDER BY global_order",
      [&](const Statement& s) {
        trace.tasks.push_back({u32(s, 0), u32(s, 1), static_cast<std::uint64_t>(s.integer(2)),
                               static_cast<std::uint64_t>(s.integer(3)), s.integer(4), s.integer(5), s.integer(6)});
      });
  if (!status) return status.error();
  status = for_rows(
      "SELECT data_id, gpu, source, bytes, issue_ns, end_ns, kind, task_id FROM loads WHERE run_id = ?1 ORDER BY seq",
      [&](const Statement& s) {
        trace.loads.push_back({u32(s, 0), u32(s, 1), static_cast<std::int32_t>(s.integer(2)),
                               static_cast<std::uint64_t>(s.integer(3)), s.integer(4), s.integer(5),
                               static_cast<LoadKind>(s.integer(6)), id_or_none(s, 7)});
      });
  if (!status) return status.error();
  status = for_rows(
      "SELECT data_id, gpu, time_ns, cause, for_task, wrote_back FROM evictions WHERE run_id = ?1 ORDER BY seq",
      [&](const Statement& s) {
        trace.evictions.push_back({u32(s, 0), u32(s, 1), s.integer(2), static_cast<EvictionCause>(s.integer(3)),
                                   id_or_none(s, 4), s.integer(5) != 0});
      });
  if (!status) return status.error();
  status = for_rows(
      "SELECT data_id, gpu, bytes, start_ns, end_ns, cause FROM writebacks WHERE run_id = ?1 ORDER BY seq",
      [&](const Statement& s) {
        trace.writebacks.push_back({u32(s, 0), u32(s, 1), static_cast<std::uint64_t>(s.integer(2)), s.integer(3),
                                    s.integer(4), static_cast<WritebackCause>(s.integer(5))});
      });
  if (!status) return status.error();
  status = for_rows("SELECT data_id, gpu, time_ns, task_id FROM allocations WHERE run_id = ?1 ORDER BY seq",
                    [&](const Statement& s) { trace.allocations.push_back({u32(s, 0), u32(s, 1), s.integer(2), u32(s, 3)}); });
  if (!status) return status.error();
  return trace;
}

Result<Workload> Store::load_workload(std::int64_t workload_id) {
  Connection& c = impl_->connection;
  auto head = c.prepare("SELECT name, generator, spec, N_tiles, n_inner, tile_size, element_bytes, density, seed FROM workloads WHERE id = ?1");
  if (!head) return head.error();
  head->bind(1, workload_id);
  auto found = head->step();
  if (!found) return found.error();
  if (!*found) return make_error(c.path() + ": no workload " + std::to_string(workload_id));
  WorkloadBuilder builder(head->text(0));
  if (!head->is_null(1)) {
    GeneratorInfo g;
    g.name = head->text(1);
    g.spec = head->text(2);
    g.N = head->integer(3);
    g.n = head->integer(4);
    g.b = head->integer(5);
    g.elem = head->integer(6);
    g.density = head->real(7);
    g.seed = static_cast<std::uint64_t>(head->integer(8));
    builder.set_generator(std::move(g));
  }
  auto for_rows = [&](const char* sql, auto&& read) { return for_each_row(c, sql, workload_id, read); };
  std::vector<KindId> kinds;
  Status status = for_rows("SELECT name FROM kinds WHERE workload_id = ?1 ORDER BY id",
                           [&](const Statement& s) { kinds.push_back(builder.kind(s.text(0))); });
  if (!status) return status.error();
  status = for_rows("SELECT name, bytes, matrix, row, col FROM data WHERE workload_id = ?1 ORDER BY id", [&](const Statement& s) {
    const std::string matrix = s.text(2);
    builder.add_data({s.text(0), static_cast<std::uint64_t>(s.integer(1)), matrix.empty() ? '-' : matrix[0],
                      static_cast<std::int32_t>(s.integer(3)), static_cast<std::int32_t>(s.integer(4))});
  });
  if (!status) return status.error();
  // Tasks and their accesses in one ordered pass over both tables.
  auto access_query = c.prepare("SELECT task_id, data_id, mode FROM accesses WHERE workload_id = ?1 ORDER BY task_id, position");
  if (!access_query) return access_query.error();
  access_query->bind(1, workload_id);
  auto access_row = access_query->step();
  if (!access_row) return access_row.error();
  bool more_accesses = *access_row;
  std::vector<Access> accesses;
  std::vector<std::pair<std::int64_t, TaskId>> order;
  Error read_error;
  bool failed = false;
  status = for_rows("SELECT id, kind_id, flops, priority, i, j, k, submit_order FROM tasks WHERE workload_id = ?1 ORDER BY id",
                    [&](const Statement& s) {
                      const std::int64_t id = s.integer(0);
                      accesses.clear();
                      while (more_accesses && access_query->integer(0) == id) {
                        const std::int64_t mode = access_query->integer(2);
                        if ((mode < 0 || mode > 2) && !failed) {
                          failed = true;
                          read_error = make_error(c.path() + ": task " + std::to_string(id) + " of workload " +
                                                  std::to_string(workload_id) + " has access mode " + std::to_string(mode) +
                                                  " (valid: 0, 1, 2)");
                        }
                        accesses.push_back({static_cast<DataId>(access_query->integer(1)),
                                            static_cast<AccessMode>(std::clamp<std::int64_t>(mode, 0, 2))});
                        auto next = access_query->step();
                        if (!next) {
                          failed = true;
                          read_error = next.error();
                          more_accesses = false;
                          break;
                        }
                        more_accesses = *next;
                      }
                      const auto kind = static_cast<std::size_t>(s.integer(1));
                      if (kind >= kinds.size() && !failed) {
                        failed = true;
                        read_error = make_error(c.path() + ": task " + std::to_string(id) + " of workload " +
                                                std::to_string(workload_id) + " has kind " + std::to_string(kind) +
                                                ", not in its kinds table");
                        return;
                      }
                      const TaskId task = builder.add_task(kinds[kind], accesses, s.real(2),
                                                           static_cast<std::int32_t>(s.integer(4)),
                                                           static_cast<std::int32_t>(s.integer(5)),
                                                           static_cast<std::int32_t>(s.integer(6)), s.integer(3));
                      order.emplace_back(s.integer(7), task);
                    });
  if (!status) return status.error();
  if (failed) return read_error;
  status = for_rows("SELECT before_task, after_task FROM dependencies WHERE workload_id = ?1", [&](const Statement& s) {
    builder.add_dependency(static_cast<TaskId>(s.integer(0)), static_cast<TaskId>(s.integer(1)));
  });
  if (!status) return status.error();
  std::sort(order.begin(), order.end());
  std::vector<TaskId> submission;
  submission.reserve(order.size());
  for (const auto& entry : order) submission.push_back(entry.second);
  builder.set_submission_order(std::move(submission));
  auto workload = std::move(builder).finish();
  if (!workload) return make_error(c.path() + ": workload " + std::to_string(workload_id) + " is inconsistent: " + workload.error().message);
  return workload;
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

Status Store::delete_runs(const std::vector<std::int64_t>& run_ids) {
  Connection& c = impl_->connection;
  auto transaction = Transaction::begin(c);
  if (!transaction) return transaction.error();
  for (std::int64_t id : run_ids) {
    auto exists = c.prepare("SELECT 1 FROM runs WHERE id = ?1");
    if (!exists) return exists.error();
    exists->bind(1, id);
    auto found = exists->step();
    if (!found) return found.error();
    if (!*found) return make_error(c.path() + ": no run " + std::to_string(id) + "; nothing was deleted");
    for (const char* table : kRunTables) {
      auto erase = c.prepare(std::string("DELETE FROM ") + table + " WHERE run_id = ?1");
      if (!erase) return erase.error();
      if (auto status = erase->bind(1, id).run(); !status) return status;
    }
    auto erase = c.prepare("DELETE FROM runs WHERE id = ?1");
    if (!erase) return erase.error();
    if (auto status = erase->bind(1, id).run(); !status) return status;
  }
  // Workloads no run refers to any more go too: they can be large and are easy to store again.
  for (const char* table : kWorkloadTables) {
    if (auto status = c.exec(std::string("DELETE FROM ") + table + " WHERE workload_id NOT IN (SELECT workload_id FROM runs)");
        !status) {
      return status;
    }
  }
  if (auto status = c.exec("DELETE FROM workloads WHERE id NOT IN (SELECT workload_id FROM runs)"); !status) return status;
  return transaction->commit();
}

}  // namespace tilelens::db
