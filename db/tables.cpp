// The schema's one declaration; see tables.hpp. Times are integer nanoseconds from the start
// of the run; task and data ids are the workload's own (0-based), so a trace row joins its
// workload's tables on (workload_id, id); small enumerations are integers with a lookup table.
// A change here bumps kSchemaVersion (schema.hpp) and marks what it adds with `since`.
#include "db/tables.hpp"

#include <stdexcept>

#include "db/metric_columns.hpp"
#include "db/schema.hpp"

namespace tilelens::db {
namespace {

// The metrics table: run_id, then the metrics' one declaration (metric_columns.cpp).
std::vector<Column> metrics_columns() {
  std::vector<Column> columns = {{"run_id", "INTEGER PRIMARY KEY REFERENCES runs(id)", "the run"}};
  for (const MetricColumn& metric : metric_columns()) columns.push_back(metric.column);
  return columns;
}

const std::vector<Table> kTables = {
    {"meta", "Free key-value pairs about the file (reserved; tilelens writes none yet).",
     {{"key", "TEXT PRIMARY KEY", "the key"}, {"value", "TEXT NOT NULL", "its value"}},
     "", true, {}, ""},
    {"access_modes", "How a task accesses a data: 0 R (read), 1 W (write only), 2 RW.",
     {{"id", "INTEGER PRIMARY KEY", "the mode as stored in accesses.mode"}, {"name", "TEXT NOT NULL UNIQUE", "R, W or RW"}},
     "", false, {}, "(0, 'R'), (1, 'W'), (2, 'RW')"},
    {"load_kinds", "What a load turned out to be (DESIGN section 3): 0 fetch, 1 prefetch, 2 unused.",
     {{"id", "INTEGER PRIMARY KEY", "the kind as stored in loads.kind"}, {"name", "TEXT NOT NULL UNIQUE", "fetch, prefetch or unused"}},
     "", false, {}, "(0, 'fetch'), (1, 'prefetch'), (2, 'unused')"},
    {"eviction_causes", "Why a copy left a GPU: 0 capacity (room for a load), 1 invalidated (a write elsewhere).",
     {{"id", "INTEGER PRIMARY KEY", "the cause as stored in evictions.cause"}, {"name", "TEXT NOT NULL UNIQUE", "capacity or invalidated"}},
     "", false, {}, "(0, 'capacity'), (1, 'invalidated')"},
    {"writeback_causes",
     "Why a copy went back to the host: 0 eviction of the last copy, 1 request (another worker needs it, or, under the starpu model, a queued "
     "idle write-back that the node's next task waited for: StarPU promotes it to a fetch), 2 flush at the end, "
     "3 idle (the memory model's idle write-back, since version 7).",
     {{"id", "INTEGER PRIMARY KEY", "the cause as stored in writebacks.cause"}, {"name", "TEXT NOT NULL UNIQUE", "eviction, request, flush or idle"}},
     "", false, {}, "(0, 'eviction'), (1, 'request'), (2, 'flush'), (3, 'idle')"},
    {"workloads",
     "One row per distinct workload; an identical workload (same content hash: FNV-1a of its file form, "
     "docs/workload-format.md) is stored once whatever produced it.",
     {{"id", "INTEGER PRIMARY KEY", "the workload's id"},
      {"name", "TEXT NOT NULL", "its name"},
      {"generator", "TEXT", "the seed workload that made it (matmul2d, ...); NULL for a file or an import"},
      {"spec", "TEXT", "the generator's canonical spec, matmul2d:N=20,b=960,...; NULL as generator"},
      {"source", "TEXT NOT NULL", "where it came from: generated, file PATH, starpu PATH"},
      {"content_hash", "TEXT NOT NULL UNIQUE", "FNV-1a of its file form, 16 hex digits"},
      {"task_count", "INTEGER NOT NULL", "tasks"},
      {"data_count", "INTEGER NOT NULL", "data"},
      {"dependency_count", "INTEGER NOT NULL", "dependency edges"},
      {"working_set_bytes", "INTEGER NOT NULL", "the distinct data read by some task, bytes"},
      {"total_flops", "REAL NOT NULL", "the tasks' flops summed"},
      {"N_tiles", "INTEGER", "the generator's N (tiles per side)"},
      {"n_inner", "INTEGER", "the generator's n (inner dimension in tiles)"},
      {"tile_size", "INTEGER", "the generator's b (tile side in elements)"},
      {"element_bytes", "INTEGER", "the generator's elem (bytes per element)"},
      {"density", "REAL", "the generator's density (matmul2d-sparse)"},
      {"seed", "INTEGER", "the generator's seed"}},
     "", false, {}, ""},
    {"kinds", "A workload's task kinds (GEMM, POTRF, ...).",
     {{"workload_id", "INTEGER NOT NULL REFERENCES workloads(id)", "the workload"},
      {"id", "INTEGER NOT NULL", "the kind's id in its workload"},
      {"name", "TEXT NOT NULL", "its name"}},
     "PRIMARY KEY (workload_id, id)", true, {}, ""},
    {"data", "A workload's data (tiles, block-rows, handles).",
     {{"workload_id", "INTEGER NOT NULL REFERENCES workloads(id)", "the workload"},
      {"id", "INTEGER NOT NULL", "the data's id in its workload"},
      {"name", "TEXT NOT NULL", "its name, A(3,1)"},
      {"bytes", "INTEGER NOT NULL", "its size"},
      {"matrix", "TEXT NOT NULL", "A, B, C or - (the figures' logical coordinates)"},
      {"row", "INTEGER NOT NULL", "its tile row, -1 for a whole block-column"},
      {"col", "INTEGER NOT NULL", "its tile column, -1 for a whole block-row"},
      {"home", "INTEGER NOT NULL DEFAULT 0", "1: a valid copy on the host from the start, though its first access writes it (docs/workload-format.md)", 14}},
     "PRIMARY KEY (workload_id, id)", true, {}, ""},
    {"tasks", "A workload's tasks.",
     {{"workload_id", "INTEGER NOT NULL REFERENCES workloads(id)", "the workload"},
      {"id", "INTEGER NOT NULL", "the task's id in its workload"},
      {"kind_id", "INTEGER NOT NULL", "its kind (kinds.id)"},
      {"flops", "REAL NOT NULL", "its work"},
      {"priority", "INTEGER NOT NULL", "larger runs first (the seed DAGs: bottom level in flops)"},
      {"i", "INTEGER NOT NULL", "its row in the figures (the output tile's)"},
      {"j", "INTEGER NOT NULL", "its column in the figures"},
      {"k", "INTEGER NOT NULL", "its layer or iteration"},
      {"submit_order", "INTEGER NOT NULL", "its rank in the submission order"}},
     "PRIMARY KEY (workload_id, id)", true, {}, ""},
    {"accesses", "The data each task accesses, in order.",
     {{"workload_id", "INTEGER NOT NULL REFERENCES workloads(id)", "the workload"},
      {"task_id", "INTEGER NOT NULL", "the task"},
      {"position", "INTEGER NOT NULL", "the access's rank in the task"},
      {"data_id", "INTEGER NOT NULL", "the data"},
      {"mode", "INTEGER NOT NULL REFERENCES access_modes(id)", "R, W or RW (access_modes)"}},
     "PRIMARY KEY (workload_id, task_id, position)", true, {}, ""},
    {"dependencies", "A workload's dependency edges: after_task waits for before_task.",
     {{"workload_id", "INTEGER NOT NULL REFERENCES workloads(id)", "the workload"},
      {"before_task", "INTEGER NOT NULL", "the predecessor"},
      {"after_task", "INTEGER NOT NULL", "the successor"}},
     "PRIMARY KEY (workload_id, after_task, before_task)", true, {}, ""},
    {"platforms",
     "The platforms runs were made on, one row per distinct platform (every field makes the description). "
     "Workers 0..gpus-1 have a bounded memory, workers_per_memory of them sharing one memory node; the cpus "
     "CPU workers on the host come after them in every gpu column.",
     {{"id", "INTEGER PRIMARY KEY", "the platform's id"},
      {"name", "TEXT NOT NULL", "the preset or file it came from"},
      {"gpus", "INTEGER NOT NULL", "workers with a bounded memory"},
      {"memory_bytes", "REAL NOT NULL", "M, bytes per memory node"},
      {"bus_bandwidth", "REAL NOT NULL", "host bus, bytes/s each direction"},
      {"gpu_link_bandwidth", "REAL NOT NULL", "GPU-to-GPU links, bytes/s; 0: none"},
      {"latency_ns", "INTEGER NOT NULL", "added to every transfer"},
      {"default_gflops", "REAL NOT NULL", "the rate of every kind without its own, GFlop/s"},
      {"kind_gflops", "TEXT NOT NULL", "per-kind rates, KIND=RATE;KIND=RATE (0: no kernel)"},
      {"description", "TEXT NOT NULL UNIQUE", "every field as one text: the row's identity"},
      {"gpu_bus_bandwidth", "REAL NOT NULL DEFAULT 0", "each GPU's own PCIe link, bytes/s; 0: none", 3},
      {"gpus_per_switch", "INTEGER NOT NULL DEFAULT 0", "GPUs behind one PCIe switch; 0: no switch level", 3},
      {"switch_bandwidth", "REAL NOT NULL DEFAULT 0", "a switch's upstream link, bytes/s", 3},
      {"workers_per_memory", "INTEGER NOT NULL DEFAULT 1", "GPU workers sharing one memory node", 4},
      {"cpus", "INTEGER NOT NULL DEFAULT 0", "CPU workers computing from the host", 4},
      {"cpu_default_gflops", "REAL NOT NULL DEFAULT 0", "a CPU worker's rate for kinds without their own", 4},
      {"cpu_kind_gflops", "TEXT NOT NULL DEFAULT ''", "a CPU worker's per-kind rates, as kind_gflops", 4},
      {"copy_engines", "INTEGER NOT NULL DEFAULT 0", "transfers each direction serves at once, in start order; 0: all, sharing the bus", 7},
      {"half_duplex", "INTEGER NOT NULL DEFAULT 0", "1: both directions share one channel (a disk)", 7},
      {"worker_speeds", "TEXT NOT NULL DEFAULT ''", "per worker, the factor on its kernels' rates, S,S,...; '': every worker at 1", 15}},
     "", false, {}, ""},
    {"sweeps", "Sweeps, by the options that shape their grid: the same command maps to the same sweep, which is how a rerun resumes it.",
     {{"id", "INTEGER PRIMARY KEY", "the sweep's id"},
      {"spec", "TEXT NOT NULL UNIQUE", "its grid options, --workload=... --scheduler=... (the sweep's identity)"},
      {"created_at", "TEXT NOT NULL", "UTC, ISO 8601"}},
     "", false, {}, ""},
    {"runs", "Every run, replayed, measured on a GPU or imported, with how it went.",
     {{"id", "INTEGER PRIMARY KEY", "the run's id"},
      {"workload_id", "INTEGER NOT NULL REFERENCES workloads(id)", "its workload"},
      {"platform_id", "INTEGER NOT NULL REFERENCES platforms(id)", "its platform"},
      {"scheduler", "TEXT NOT NULL", "the scheduler's canonical spec, hfp:fast_start=0,flip=1,... (starpu for an import)"},
      {"eviction", "TEXT NOT NULL", "the eviction policy's spec"},
      {"buffer_depth", "INTEGER NOT NULL", "tasks a worker holds, the running one included (0 for an import)"},
      {"mode", "TEXT NOT NULL CHECK (mode IN ('replay', 'cuda', 'starpu'))", "replay, cuda (measured by tilelens execute) or starpu (imported)"},
      {"seed", "INTEGER", "the seed it used: the scheduler's when it takes one, else the generator's"},
      {"tilelens_version", "TEXT NOT NULL", "the tilelens that made it"},
      {"started_at", "TEXT NOT NULL", "UTC, ISO 8601"},
      {"finished_at", "TEXT", "UTC, ISO 8601; NULL while incomplete"},
      {"status", "TEXT NOT NULL CHECK (status IN ('complete', 'failed', 'incomplete'))", "complete, failed (with error) or incomplete"},
      {"error", "TEXT", "why a failed run failed"},
      {"host", "TEXT", "the machine a measured run ran on"},
      {"gpu_name", "TEXT", "the device a measured run ran on"},
      {"transfers_recorded", "INTEGER NOT NULL", "0 for an imported measurement without its transfers (load figures unknown)"},
      {"sweep_id", "INTEGER REFERENCES sweeps(id)", "the sweep it belongs to, if any"},
      {"run_key", "TEXT NOT NULL",
       "the workload spec, the policies, every platform field and the depth: a sweep skips the keys it holds complete"},
      {"memory_model", "TEXT NOT NULL DEFAULT 'fgcs'",
       "how memory nodes served requests: the memory model's spec, starpu:... or fgcs (docs/replay.md; fgcs:... with StarPU's parameters before the fgcs manager); fgcs for runs stored before "
       "version 7, empty for an import",
       7},
      {"scheduling_cost", "TEXT NOT NULL DEFAULT ''",
       "what each push and pop cost on the replay clock, pop=...,pop_per_task=...,push=...,push_per_task=... (docs/replay.md); "
       "empty: decisions were free",
       8}},
     "", false,
     {"runs_by_key ON runs(run_key)", "runs_by_sweep ON runs(sweep_id)", "runs_by_workload ON runs(workload_id)",
      {"UNIQUE runs_one_per_sweep_key ON runs(sweep_id, run_key) WHERE sweep_id IS NOT NULL", 6}},
     ""},
    {"run_claims",
     "The runs of a sweep being replayed right now, one row per run key: a second sweep of the same grid, started "
     "while the first runs, skips the keys claimed by a live process instead of replaying them again. A claim goes "
     "with its run's commit; a killed process leaves its claims, which the next sweep takes over once that process "
     "is gone (docs/database.md, concurrent use).",
     {{"sweep_id", "INTEGER NOT NULL REFERENCES sweeps(id)", "the sweep"},
      {"run_key", "TEXT NOT NULL", "the run's key (runs.run_key)"},
      {"owner", "TEXT NOT NULL", "the claiming sweep: host, process id and a counter within the process"},
      {"host", "TEXT NOT NULL", "the machine it runs on"},
      {"pid", "INTEGER NOT NULL", "its process id there"},
      {"claimed_at", "TEXT NOT NULL", "UTC, ISO 8601"}},
     "PRIMARY KEY (sweep_id, run_key)", true, {}, "", 6},
    {"import_notes",
     "What an import kept, left out and decided, as tilelens import printed it (docs/starpu-import.md): the "
     "notes and warnings of an imported run, in the order they were given.",
     {{"run_id", "INTEGER NOT NULL REFERENCES runs(id)", "the imported run"},
      {"seq", "INTEGER NOT NULL", "rank among the run's notes and warnings"},
      {"level", "TEXT NOT NULL CHECK (level IN ('note', 'warning'))",
       "note (what was left out and why) or warning (what was dropped, renamed or decided between disagreeing records)"},
      {"text", "TEXT NOT NULL", "the sentence, with its counts and the first case's file and line"}},
     "PRIMARY KEY (run_id, seq)", true, {}, "", 12},
    {"import_records",
     "Every record of an imported run's tasks file, one by one (docs/starpu-import.md): where it is, its JobId, "
     "whether it became a task, and why not.",
     {{"run_id", "INTEGER NOT NULL REFERENCES runs(id)", "the imported run"},
      {"seq", "INTEGER NOT NULL", "rank in the file"},
      {"place", "TEXT NOT NULL", "the file and line where the record starts: tasks.rec:123"},
      {"job", "TEXT NOT NULL", "its JobId, empty for a control record or one that could not be read"},
      {"fate", "TEXT NOT NULL CHECK (fate IN ('kept', 'skipped', 'left out'))",
       "kept (a task of the workload), skipped (StarPU's own records, other MPI ranks) or left out (--lenient: unreadable or cut)"},
      {"reason", "TEXT NOT NULL", "why, in words"}},
     "PRIMARY KEY (run_id, seq)", true, {}, "", 13},
    {"task_executions", "Each task a run executed, in start order: one run's processing order is a range scan.",
     {{"run_id", "INTEGER NOT NULL REFERENCES runs(id)", "the run"},
      {"global_order", "INTEGER NOT NULL", "rank among all task starts"},
      {"task_id", "INTEGER NOT NULL", "the task"},
      {"gpu", "INTEGER NOT NULL", "the worker that ran it"},
      {"gpu_order", "INTEGER NOT NULL", "rank among its worker's task starts"},
      {"buffered_ns", "INTEGER NOT NULL", "entered the worker's task buffer"},
      {"start_ns", "INTEGER NOT NULL", "started"},
      {"end_ns", "INTEGER NOT NULL", "ended"}},
     "PRIMARY KEY (run_id, global_order)", true, {}, ""},
    {"loads", "Each load into a worker's memory, in the order they were classified.",
     {{"run_id", "INTEGER NOT NULL REFERENCES runs(id)", "the run"},
      {"seq", "INTEGER NOT NULL", "rank among the run's loads"},
      {"data_id", "INTEGER NOT NULL", "the data loaded"},
      {"gpu", "INTEGER NOT NULL", "the memory node, named by its first worker"},
      {"source", "INTEGER NOT NULL", "-1 for the host, else the worker it was copied from"},
      {"bytes", "INTEGER NOT NULL", "its size"},
      {"issue_ns", "INTEGER NOT NULL", "room reserved and transfer requested"},
      {"end_ns", "INTEGER NOT NULL", "resident"},
      {"kind", "INTEGER NOT NULL REFERENCES load_kinds(id)", "fetch, prefetch or unused (load_kinds)"},
      {"task_id", "INTEGER", "the first task there that used it after it arrived (DESIGN section 3); NULL when unused"}},
     "PRIMARY KEY (run_id, seq)", true, {}, ""},
    {"evictions", "Each copy that left a worker's memory.",
     {{"run_id", "INTEGER NOT NULL REFERENCES runs(id)", "the run"},
      {"seq", "INTEGER NOT NULL", "rank among the run's evictions"},
      {"data_id", "INTEGER NOT NULL", "the data"},
      {"gpu", "INTEGER NOT NULL", "the memory node, named by its first worker"},
      {"time_ns", "INTEGER NOT NULL", "memory freed"},
      {"cause", "INTEGER NOT NULL REFERENCES eviction_causes(id)", "capacity or invalidated (eviction_causes)"},
      {"for_task", "INTEGER", "whose load needed the room, or whose write invalidated it"},
      {"wrote_back", "INTEGER NOT NULL", "1 when the only valid copy was written back first"}},
     "PRIMARY KEY (run_id, seq)", true, {}, ""},
    {"writebacks", "Each copy written back to the host.",
     {{"run_id", "INTEGER NOT NULL REFERENCES runs(id)", "the run"},
      {"seq", "INTEGER NOT NULL", "rank among the run's write-backs"},
      {"data_id", "INTEGER NOT NULL", "the data"},
      {"gpu", "INTEGER NOT NULL", "the memory node it left, named by its first worker"},
      {"bytes", "INTEGER NOT NULL", "its size"},
      {"start_ns", "INTEGER NOT NULL", "transfer started"},
      {"end_ns", "INTEGER NOT NULL", "host copy valid"},
      {"cause", "INTEGER NOT NULL REFERENCES writeback_causes(id)", "eviction, request, flush or idle (writeback_causes)"}},
     "PRIMARY KEY (run_id, seq)", true, {}, ""},
    {"allocations", "Room taken for a write-only output, without a transfer.",
     {{"run_id", "INTEGER NOT NULL REFERENCES runs(id)", "the run"},
      {"seq", "INTEGER NOT NULL", "rank among the run's allocations"},
      {"data_id", "INTEGER NOT NULL", "the output"},
      {"gpu", "INTEGER NOT NULL", "the memory node, named by its first worker"},
      {"time_ns", "INTEGER NOT NULL", "room taken"},
      {"task_id", "INTEGER NOT NULL", "the task that writes it"}},
     "PRIMARY KEY (run_id, seq)", true, {}, ""},
    {"metrics",
     "A complete run's totals (docs/replay.md) and where it stands against the lower bound (docs/bounds.md). "
     "The transfer columns are NULL when runs.transfers_recorded is 0.",
     metrics_columns(),
     "", false, {}, ""},
    {"gpu_metrics",
     "A complete run's figures per worker (CPU workers included); a shared memory's columns are on its first "
     "worker, 0 on the others and on CPU workers.",
     {{"run_id", "INTEGER NOT NULL REFERENCES runs(id)", "the run"},
      {"gpu", "INTEGER NOT NULL", "the worker"},
      {"tasks", "INTEGER NOT NULL", "tasks it executed"},
      {"loads", "INTEGER NOT NULL", "loads into its memory"},
      {"allocations", "INTEGER NOT NULL", "outputs given room in its memory"},
      {"evictions", "INTEGER NOT NULL", "copies evicted from its memory for room"},
      {"invalidations", "INTEGER NOT NULL", "copies made stale in its memory"},
      {"resident_at_end", "INTEGER NOT NULL", "copies still resident at the end"},
      {"busy_ns", "INTEGER NOT NULL", "time spent executing tasks"},
      {"peak_bytes", "REAL NOT NULL", "the most bytes reserved in its memory at once"}},
     "PRIMARY KEY (run_id, gpu)", true, {}, ""},
    {"scheduler_counters",
     "A complete run's scheduler's own counts (docs/schedulers.md, Counters): LAHeteroprio's best memory node "
     "differences (BMD) and AUTO's pushes per formula, lahp Figs. 6-8 E-F.",
     {{"run_id", "INTEGER NOT NULL REFERENCES runs(id)", "the run"},
      {"name", "TEXT NOT NULL", "what is counted: bmd, bmd_ls_sdh, auto_pushes_ls_sdh, ..."},
      {"value", "INTEGER NOT NULL", "the count"}},
     "PRIMARY KEY (run_id, name)", true, {}, "", 9},
    {"measurements", "How a measured run (tilelens execute, mode cuda) was measured and checked (docs/executor.md).",
     {{"run_id", "INTEGER PRIMARY KEY REFERENCES runs(id)", "the run"},
      {"device", "TEXT NOT NULL", "the device's name"},
      {"cupti", "INTEGER NOT NULL", "1 when CUPTI recorded activity"},
      {"cupti_records", "INTEGER NOT NULL", "records CUPTI kept"},
      {"cupti_dropped", "INTEGER NOT NULL", "records CUPTI reported lost"},
      {"verification", "TEXT NOT NULL", "passed, or not checked: why (a failed check fails the run)"},
      {"worst_error", "REAL NOT NULL", "the largest relative error over the tiles checked"},
      {"tiles_checked", "INTEGER NOT NULL", "tiles checked against the CPU reference"},
      {"tf32", "INTEGER NOT NULL", "1 for TF32 tensor cores, 0 for fp32"},
      {"seed", "INTEGER NOT NULL", "the seed of the tiles' values"},
      {"arena_bytes", "REAL NOT NULL", "M, the arena reserved on each GPU"},
      {"output_pool_bytes", "REAL NOT NULL", "the products' output pool, outside M"},
      {"wall_ns", "INTEGER NOT NULL", "the host's wall time of the run"},
      {"setup_ns", "INTEGER NOT NULL", "the host's wall time of the setup before it"},
      {"cupti_apis", "TEXT NOT NULL DEFAULT ''",
       "how CUPTI linked its records to tasks: tracing all API calls, the launches only (launches), or none (callbacks); empty when off", 10},
      {"kernels", "TEXT NOT NULL DEFAULT ''",
       "what ran, kind by kind, one line each: its call, a fill, or a wait of its measured duration (and why)", 10},
      {"launch_ahead", "INTEGER NOT NULL DEFAULT 1",
       "kernels queued on a GPU behind the running one: 0, 1 (the engine hears of a task's end when its kernel starts) or 2", 11}},
     "", false, {}, "", 5},
    {"cupti_records",
     "CUPTI's activity records of a measured run, in start order; times in ns from the start of the run. "
     "external_kind and external_index link a record to the executor's operation.",
     {{"run_id", "INTEGER NOT NULL REFERENCES runs(id)", "the run"},
      {"seq", "INTEGER NOT NULL", "rank among the run's records"},
      {"kind", "TEXT NOT NULL", "kernel, memcpy, memset, runtime (runtime and driver calls), synchronization or overhead"},
      {"start_ns", "INTEGER NOT NULL", "began"},
      {"end_ns", "INTEGER NOT NULL", "ended"},
      {"device", "INTEGER NOT NULL", "the CUDA device"},
      {"stream", "INTEGER NOT NULL", "the CUDA stream"},
      {"correlation", "INTEGER NOT NULL", "CUPTI's, shared by an API call and the activity it caused"},
      {"external_kind", "TEXT", "task, load or writeback: the executor's operation that issued it"},
      {"external_index", "INTEGER", "a task's id, or the executor's operation index for a copy"},
      {"bytes", "INTEGER NOT NULL", "bytes of a memcpy or memset"},
      {"name", "TEXT NOT NULL", "kernel name, copy direction, API call or overhead kind"}},
     "PRIMARY KEY (run_id, seq)", true, {}, "", 5},
};

std::string column_definition(const Column& column) { return std::string(column.name) + " " + std::string(column.type); }

std::string index_sql(const Index& index) {
  const bool unique = index.sql.starts_with("UNIQUE ");
  return std::string(unique ? "CREATE UNIQUE INDEX " : "CREATE INDEX ") + std::string(index.sql.substr(unique ? 7 : 0)) + ";\n";
}

// What a version must do to existing rows before its new constraints can hold.
std::string migration_preparation(int to) {
  // Version 7 adds the idle write-back cause.
  if (to == 7) return "INSERT OR IGNORE INTO writeback_causes VALUES (3, 'idle');\n";
  // Version 6 keeps one run per key in a sweep. Earlier files may hold more (two sweeps of one
  // grid at once, a failed run retried at each resume): the sweep keeps its first complete run,
  // or else its latest failed one, and the others stay in the file outside any sweep.
  if (to == 6) {
    return "UPDATE runs SET sweep_id = NULL WHERE sweep_id IS NOT NULL AND id <> (SELECT k.id FROM runs k WHERE "
           "k.sweep_id = runs.sweep_id AND k.run_key = runs.run_key ORDER BY k.status = 'complete' DESC, "
           "CASE WHEN k.status = 'complete' THEN k.id ELSE -k.id END LIMIT 1);\n";
  }
  return "";
}

std::string create_table_sql(const Table& table, int version) {
  std::string sql = "CREATE TABLE " + std::string(table.name) + "(";
  bool first = true;
  for (const Column& column : table.columns) {
    if (column.since > version) continue;
    sql += (first ? "\n  " : ",\n  ") + column_definition(column);
    first = false;
  }
  if (!table.key.empty()) sql += ",\n  " + std::string(table.key);
  sql += ")";
  if (table.without_rowid) sql += " WITHOUT ROWID";
  sql += ";\n";
  if (!table.rows.empty()) sql += "INSERT INTO " + std::string(table.name) + " VALUES " + std::string(table.rows) + ";\n";
  for (const Index& index : table.indexes) {
    if (index.since <= version) sql += index_sql(index);
  }
  return sql;
}

}  // namespace

bool has_column(const Table& table, std::string_view name) {
  for (const Column& column : table.columns) {
    if (column.name == name) return true;
  }
  return false;
}

const std::vector<Table>& schema_tables() { return kTables; }

const Table& schema_table(std::string_view name) {
  for (const Table& table : kTables) {
    if (table.name == name) return table;
  }
  throw std::logic_error("no table " + std::string(name) + " in the schema");
}

std::string create_sql(int version) {
  std::string sql;
  for (const Table& table : kTables) {
    if (table.since <= version) sql += create_table_sql(table, version);
  }
  return sql;
}

std::string migration_sql(int from) {
  std::string sql = migration_preparation(from + 1);
  for (const Table& table : kTables) {
    if (table.since == from + 1) {
      sql += create_table_sql(table, from + 1);
      continue;
    }
    if (table.since > from) continue;
    for (const Column& column : table.columns) {
      if (column.since == from + 1) sql += "ALTER TABLE " + std::string(table.name) + " ADD COLUMN " + column_definition(column) + ";\n";
    }
    for (const Index& index : table.indexes) {
      if (index.since == from + 1) sql += index_sql(index);
    }
  }
  return sql;
}

std::string insert_sql(const Table& table) {
  std::string names, values;
  for (const Column& column : table.columns) {
    names += (names.empty() ? "" : ", ") + std::string(column.name);
    values += (values.empty() ? ":" : ", :") + std::string(column.name);
  }
  return "INSERT INTO " + std::string(table.name) + " (" + names + ") VALUES (" + values + ")";
}

std::string select_columns(const Table& table, std::string_view alias) {
  std::string sql;
  for (const Column& column : table.columns) {
    sql += (sql.empty() ? "" : ", ") + std::string(alias) + "." + std::string(column.name) + " AS \"" + std::string(table.name) +
           "." + std::string(column.name) + "\"";
  }
  return sql;
}

std::vector<std::string_view> run_tables() {
  std::vector<std::string_view> tables;
  for (const Table& table : kTables) {
    if (table.name != "runs" && has_column(table, "run_id")) tables.push_back(table.name);
  }
  return tables;
}

std::vector<std::string_view> workload_tables() {
  std::vector<std::string_view> tables;
  for (const Table& table : kTables) {
    if (table.name != "runs" && has_column(table, "workload_id")) tables.push_back(table.name);
  }
  return tables;
}

std::string schema_markdown() {
  std::string text = "Schema version " + std::to_string(kSchemaVersion) +
                     ", generated from `db/tables.cpp` by `tilelens db schema --markdown`.\n";
  for (const Table& table : kTables) {
    text += "\n### " + std::string(table.name) + "\n" + std::string(table.doc);
    if (table.since > 1) text += " (Since version " + std::to_string(table.since) + ".)";
    if (!table.key.empty()) text += " Key: `" + std::string(table.key.substr(table.key.find('('))) + "`.";
    text += "\n\n| column | type | meaning |\n|---|---|---|\n";
    for (const Column& column : table.columns) {
      std::string type(column.type);
      text += "| `" + std::string(column.name) + "` | " + type + " | " + std::string(column.doc) +
              (column.since > table.since ? " (since version " + std::to_string(column.since) + ")" : "") + " |\n";
    }
    for (std::size_t i = 0; i < table.indexes.size(); ++i) {
      const Index& index = table.indexes[i];
      text += std::string(i == 0 ? "\nIndexes: " : ", ") + "`" + std::string(index.sql) + "`" +
              (index.since > table.since ? " (since version " + std::to_string(index.since) + ")" : "");
      if (i + 1 == table.indexes.size()) text += ".\n";
    }
  }
  return text;
}

}  // namespace tilelens::db
