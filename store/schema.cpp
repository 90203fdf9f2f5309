// The schema; see schema.hpp and docs/database.md (keep the two in step).
#include "store/schema.hpp"

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace tilelens::db {
namespace {

// Times are integer nanoseconds from the start of the run; ids are the workload's own task
// and data ids (0-based), so a trace row joins its workload's tables on (workload_id, id).
// Small enumerations are integers with a lookup table, so that names are stored once.
// Version 5's tables, both in a new file's schema and in the migration from version 4.
constexpr const char* kMeasuredRunTables = R"sql(
CREATE TABLE measurements(
  run_id INTEGER PRIMARY KEY REFERENCES runs(id),
  device TEXT NOT NULL,
  cupti INTEGER NOT NULL,
  cupti_records INTEGER NOT NULL,
  cupti_dropped INTEGER NOT NULL,
  verification TEXT NOT NULL,
  worst_error REAL NOT NULL,
  tiles_checked INTEGER NOT NULL,
  tf32 INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  arena_bytes REAL NOT NULL,
  output_pool_bytes REAL NOT NULL,
  wall_ns INTEGER NOT NULL,
  setup_ns INTEGER NOT NULL);

CREATE TABLE cupti_records(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  device INTEGER NOT NULL,
  stream INTEGER NOT NULL,
  correlation INTEGER NOT NULL,
  external_kind TEXT,
  external_index INTEGER,
  bytes INTEGER NOT NULL,
  name TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
)sql";

constexpr const char* kBaseSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

CREATE TABLE access_modes(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
INSERT INTO access_modes VALUES (0, 'R'), (1, 'W'), (2, 'RW');
CREATE TABLE load_kinds(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
INSERT INTO load_kinds VALUES (0, 'fetch'), (1, 'prefetch'), (2, 'unused');
CREATE TABLE eviction_causes(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
INSERT INTO eviction_causes VALUES (0, 'capacity'), (1, 'invalidated');
CREATE TABLE writeback_causes(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
INSERT INTO writeback_causes VALUES (0, 'eviction'), (1, 'request'), (2, 'flush');

CREATE TABLE workloads(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  generator TEXT,
  spec TEXT,
  source TEXT NOT NULL,
  content_hash TEXT NOT NULL UNIQUE,
  task_count INTEGER NOT NULL,
  data_count INTEGER NOT NULL,
  dependency_count INTEGER NOT NULL,
  working_set_bytes INTEGER NOT NULL,
  total_flops REAL NOT NULL,
  N_tiles INTEGER, n_inner INTEGER, tile_size INTEGER, element_bytes INTEGER, density REAL, seed INTEGER);

CREATE TABLE kinds(
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  id INTEGER NOT NULL,
  name TEXT NOT NULL,
  PRIMARY KEY (workload_id, id)) WITHOUT ROWID;

CREATE TABLE data(
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  id INTEGER NOT NULL,
  name TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  matrix TEXT NOT NULL,
  row INTEGER NOT NULL,
  col INTEGER NOT NULL,
  PRIMARY KEY (workload_id, id)) WITHOUT ROWID;

CREATE TABLE tasks(
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  id INTEGER NOT NULL,
  kind_id INTEGER NOT NULL,
  flops REAL NOT NULL,
  priority INTEGER NOT NULL,
  i INTEGER NOT NULL, j INTEGER NOT NULL, k INTEGER NOT NULL,
  submit_order INTEGER NOT NULL,
  PRIMARY KEY (workload_id, id)) WITHOUT ROWID;

CREATE TABLE accesses(
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  task_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  data_id INTEGER NOT NULL,
  mode INTEGER NOT NULL REFERENCES access_modes(id),
  PRIMARY KEY (workload_id, task_id, position)) WITHOUT ROWID;

CREATE TABLE dependencies(
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  before_task INTEGER NOT NULL,
  after_task INTEGER NOT NULL,
  PRIMARY KEY (workload_id, after_task, before_task)) WITHOUT ROWID;

CREATE TABLE platforms(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  gpus INTEGER NOT NULL,
  memory_bytes REAL NOT NULL,
  bus_bandwidth REAL NOT NULL,
  gpu_link_bandwidth REAL NOT NULL,
  latency_ns INTEGER NOT NULL,
  default_gflops REAL NOT NULL,
  kind_gflops TEXT NOT NULL,
  description TEXT NOT NULL UNIQUE,
  gpu_bus_bandwidth REAL NOT NULL DEFAULT 0,
  gpus_per_switch INTEGER NOT NULL DEFAULT 0,
  switch_bandwidth REAL NOT NULL DEFAULT 0,
  workers_per_memory INTEGER NOT NULL DEFAULT 1,
  cpus INTEGER NOT NULL DEFAULT 0,
  cpu_default_gflops REAL NOT NULL DEFAULT 0,
  cpu_kind_gflops TEXT NOT NULL DEFAULT '');

CREATE TABLE sweeps(
  id INTEGER PRIMARY KEY,
  spec TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL);

CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  platform_id INTEGER NOT NULL REFERENCES platforms(id),
  scheduler TEXT NOT NULL,
  eviction TEXT NOT NULL,
  buffer_depth INTEGER NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('replay', 'cuda', 'starpu')),
  seed INTEGER,
  tilelens_version TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  status TEXT NOT NULL CHECK (status IN ('complete', 'failed', 'incomplete')),
  error TEXT,
  host TEXT,
  gpu_name TEXT,
  transfers_recorded INTEGER NOT NULL,
  sweep_id INTEGER REFERENCES sweeps(id),
  run_key TEXT NOT NULL);
CREATE INDEX runs_by_key ON runs(run_key);
CREATE INDEX runs_by_sweep ON runs(sweep_id);
CREATE INDEX runs_by_workload ON runs(workload_id);

CREATE TABLE task_executions(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  global_order INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  gpu INTEGER NOT NULL,
  gpu_order INTEGER NOT NULL,
  buffered_ns INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  PRIMARY KEY (run_id, global_order)) WITHOUT ROWID;

CREATE TABLE loads(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  seq INTEGER NOT NULL,
  data_id INTEGER NOT NULL,
  gpu INTEGER NOT NULL,
  source INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  issue_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  kind INTEGER NOT NULL REFERENCES load_kinds(id),
  task_id INTEGER,
  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;

CREATE TABLE evictions(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  seq INTEGER NOT NULL,
  data_id INTEGER NOT NULL,
  gpu INTEGER NOT NULL,
  time_ns INTEGER NOT NULL,
  cause INTEGER NOT NULL REFERENCES eviction_causes(id),
  for_task INTEGER,
  wrote_back INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;

CREATE TABLE writebacks(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  seq INTEGER NOT NULL,
  data_id INTEGER NOT NULL,
  gpu INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  cause INTEGER NOT NULL REFERENCES writeback_causes(id),
  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;

CREATE TABLE allocations(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  seq INTEGER NOT NULL,
  data_id INTEGER NOT NULL,
  gpu INTEGER NOT NULL,
  time_ns INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;

CREATE TABLE metrics(
  run_id INTEGER PRIMARY KEY REFERENCES runs(id),
  tasks INTEGER NOT NULL,
  loads INTEGER, fetches INTEGER, prefetches INTEGER, unused_loads INTEGER,
  loads_from_host INTEGER, loads_from_gpu INTEGER,
  bytes_loaded REAL, bytes_from_host REAL, bytes_gpu_to_gpu REAL, bytes_fetched REAL, bytes_prefetched REAL,
  evictions INTEGER, invalidations INTEGER, allocations INTEGER,
  writebacks INTEGER, bytes_written_back REAL,
  makespan_ns INTEGER NOT NULL,
  flush_end_ns INTEGER NOT NULL,
  total_flops REAL NOT NULL,
  gflops REAL NOT NULL,
  idle_ns INTEGER NOT NULL,
  scheduling_ns INTEGER NOT NULL,
  eviction_ns INTEGER NOT NULL,
  events INTEGER NOT NULL,
  lower_bound_bytes REAL NOT NULL,
  lower_bound TEXT NOT NULL,
  ratio_to_lower_bound REAL,
  bus_limit_bytes REAL NOT NULL,
  ideal_compute_ns REAL NOT NULL,
  prepare_ns INTEGER NOT NULL DEFAULT 0,
  charged_ns INTEGER NOT NULL DEFAULT 0);

CREATE TABLE gpu_metrics(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  gpu INTEGER NOT NULL,
  tasks INTEGER NOT NULL,
  loads INTEGER NOT NULL,
  allocations INTEGER NOT NULL,
  evictions INTEGER NOT NULL,
  invalidations INTEGER NOT NULL,
  resident_at_end INTEGER NOT NULL,
  busy_ns INTEGER NOT NULL,
  peak_bytes REAL NOT NULL,
  PRIMARY KEY (run_id, gpu)) WITHOUT ROWID;

)sql";

// kMigrations[v - 1] upgrades schema version v to v + 1. Version 1 is the first; a change to
// the schema above bumps kSchemaVersion and appends the SQL that brings a version-1 file to it.
const std::vector<const char*> kMigrations = {
    // 1 -> 2: the scheduler's prepare() time and the start delay charged for it (issue 4,
    // "HFP with sched. time"); runs stored by version 1 charged nothing.
    "ALTER TABLE metrics ADD COLUMN prepare_ns INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE metrics ADD COLUMN charged_ns INTEGER NOT NULL DEFAULT 0;",
    // 2 -> 3: the PCIe tree of a platform (issue 7); older platforms have none.
    "ALTER TABLE platforms ADD COLUMN gpu_bus_bandwidth REAL NOT NULL DEFAULT 0;"
    "ALTER TABLE platforms ADD COLUMN gpus_per_switch INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE platforms ADD COLUMN switch_bandwidth REAL NOT NULL DEFAULT 0;",
    // 3 -> 4: workers sharing a memory and CPU workers on the host (issues 7 and 8); older
    // platforms have one worker per GPU and no CPU worker.
    "ALTER TABLE platforms ADD COLUMN workers_per_memory INTEGER NOT NULL DEFAULT 1;"
    "ALTER TABLE platforms ADD COLUMN cpus INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE platforms ADD COLUMN cpu_default_gflops REAL NOT NULL DEFAULT 0;"
    "ALTER TABLE platforms ADD COLUMN cpu_kind_gflops TEXT NOT NULL DEFAULT '';",
    // 4 -> 5: measured runs of the CUDA executor (issue 6): how each was measured and
    // checked, and its CUPTI records. Older files have no measured run.
    kMeasuredRunTables,
};
static_assert(kSchemaVersion == 5, "add the migration step from the previous version to kMigrations");

std::uint32_t big_endian(const unsigned char* bytes, int count) {
  std::uint32_t value = 0;
  for (int i = 0; i < count; ++i) value = (value << 8) | bytes[i];
  return value;
}

}  // namespace

Status check_database_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status::success();  // created on open
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return make_error(path + ": cannot read: " + ec.message());
  if (size == 0) return Status::success();  // SQLite treats an empty file as a new database
  std::array<unsigned char, 100> header{};
  std::ifstream file(path, std::ios::binary);
  file.read(reinterpret_cast<char*>(header.data()), header.size());
  static constexpr char kMagic[] = "SQLite format 3";  // followed by a NUL byte
  if (file.gcount() < 100 || std::memcmp(header.data(), kMagic, sizeof kMagic) != 0) {
    return make_error(path + ": not a tilelens database (not an SQLite file: its first bytes are not 'SQLite format 3')");
  }
  std::uint64_t page_size = big_endian(header.data() + 16, 2);
  if (page_size == 1) page_size = 65536;
  const std::uint64_t pages = big_endian(header.data() + 28, 4);
  const bool pages_valid = big_endian(header.data() + 24, 4) == big_endian(header.data() + 92, 4);
  // With a write-ahead log beside it, the main file may legitimately lag its header.
  const bool has_wal = std::filesystem::exists(path + "-wal", ec);
  if (pages_valid && !has_wal && pages * page_size > size) {
    return make_error(path + ": the file is truncated: its header announces " + std::to_string(pages) + " pages of " +
                      std::to_string(page_size) + " bytes (" + std::to_string(pages * page_size) + " bytes) but it holds " +
                      std::to_string(size) + " bytes; restore it from a copy");
  }
  return Status::success();
}

Status prepare_schema(Connection& connection, bool writable) {
  const std::string& path = connection.path();
  // The first read is where SQLite notices a file that is not a database at all.
  auto application_id = connection.query_integer("PRAGMA application_id");
  if (!application_id) return make_error(path + ": not a tilelens database: " + application_id.error().message);
  auto version = connection.query_integer("PRAGMA user_version");
  if (!version) return version.error();
  auto tables = connection.query_integer("SELECT count(*) FROM sqlite_schema");
  if (!tables) return tables.error();

  if (*tables == 0) {
    if (!writable) return make_error(path + ": the database is empty (no tilelens schema yet); write a run to it first");
    auto transaction = Transaction::begin(connection);
    if (!transaction) return transaction.error();
    // Another process may have created the schema while this one waited for the lock.
    auto created = connection.query_integer("SELECT count(*) FROM sqlite_schema");
    if (!created) return created.error();
    if (*created != 0) {
      if (auto status = transaction->commit(); !status) return status;
      return prepare_schema(connection, writable);
    }
    if (auto status = connection.exec(std::string(kBaseSchema) + kMeasuredRunTables); !status) return status;
    if (auto status = connection.exec("PRAGMA application_id = " + std::to_string(kApplicationId) +
                                      "; PRAGMA user_version = " + std::to_string(kSchemaVersion));
        !status) {
      return status;
    }
    return transaction->commit();
  }
  if (*application_id != kApplicationId) {
    return make_error(path + ": not a tilelens database (it holds " + std::to_string(*tables) +
                      " schema objects of another application); give tilelens a new file name");
  }
  if (*version > kSchemaVersion) {
    return make_error(path + ": the database has schema version " + std::to_string(*version) +
                      ", newer than this tilelens reads (version " + std::to_string(kSchemaVersion) +
                      "); open it with a newer tilelens, or export what you need with that version");
  }
  if (*version < 1) return make_error(path + ": the database has no schema version; it was not written by tilelens");
  if (*version < kSchemaVersion) {
    if (!writable) {
      return make_error(path + ": the database has schema version " + std::to_string(*version) + "; open it read-write once to upgrade it to version " +
                        std::to_string(kSchemaVersion));
    }
    auto transaction = Transaction::begin(connection);
    if (!transaction) return transaction.error();
    for (std::int64_t v = *version; v < kSchemaVersion; ++v) {
      if (auto status = connection.exec(kMigrations[static_cast<std::size_t>(v - 1)]); !status) {
        return make_error(path + ": upgrading schema version " + std::to_string(v) + " failed (the file is unchanged): " +
                          status.error().message);
      }
    }
    if (auto status = connection.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion)); !status) return status;
    return transaction->commit();
  }
  return Status::success();
}

}  // namespace tilelens::db
