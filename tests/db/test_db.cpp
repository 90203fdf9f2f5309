// The trace store: round trips, crash safety, a reader beside a writer, refusing files that
// are not tilelens databases of this version, and the sweep / runs / export commands.
#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "db/metric_columns.hpp"
#include "db/schema.hpp"
#include "db/store.hpp"
#include "db/tables.hpp"
#include "helpers.hpp"
#include "util/rng.hpp"
#include "formats/workload_io.hpp"

using namespace tilelens;
using namespace tilelens::test;

namespace {

std::string summary_text(const ReplaySummary& s) {
  std::ostringstream out;
  out << s.tasks << ' ' << s.loads << ' ' << s.fetches << ' ' << s.prefetches << ' ' << s.unused_loads << ' ' << s.loads_from_host
      << ' ' << s.loads_from_gpu << ' ' << s.bytes_loaded << ' ' << s.bytes_from_host << ' ' << s.bytes_gpu_to_gpu << ' '
      << s.bytes_fetched << ' ' << s.bytes_prefetched << ' ' << s.evictions << ' ' << s.invalidations << ' ' << s.allocations
      << ' ' << s.writebacks << ' ' << s.bytes_written_back << ' ' << s.makespan_ns << ' ' << s.flush_end_ns << ' '
      << s.total_flops << ' ' << s.gflops << ' ' << s.idle_ns << ' ' << s.scheduling_ns << ' ' << s.eviction_ns << ' ' << s.events;
  for (const GpuSummary& g : s.gpus) {
    out << " | " << g.tasks << ' ' << g.loads << ' ' << g.allocations << ' ' << g.evictions << ' ' << g.invalidations << ' '
        << g.resident_at_end << ' ' << g.busy_ns << ' ' << g.peak_bytes;
  }
  return out.str();
}

std::string workload_text(const Workload& w) {
  std::ostringstream out;
  REQUIRE(write_workload(w, out).ok());
  return out.str();
}

RunInfo info_for(std::int64_t workload_id, const std::string& spec, const Platform& platform) {
  RunInfo info;
  info.workload_id = workload_id;
  info.workload_spec = spec;
  info.scheduler = "eager";
  info.eviction = "lru";
  info.platform = platform;
  info.tilelens_version = "test";
  return info;
}

// Replays and stores through the writer as the records come; returns the run id and the run.
std::pair<std::int64_t, Run> replay_into(db::Store& store, const Workload& w, const std::string& spec, const Platform& platform) {
  auto workload_id = store.put_workload(w, "generated");
  REQUIRE(workload_id.ok());
  auto writer = store.begin_run(info_for(*workload_id, spec, platform));
  REQUIRE(writer.ok());
  auto scheduler = make_scheduler("eager");
  auto eviction = make_eviction("lru");
  REQUIRE((scheduler.ok() && eviction.ok()));
  TraceRecorder recorder;
  ObserverList observers;
  observers.add(&recorder);
  observers.add(&*writer);
  ReplayOptions options;
  options.platform = platform;
  auto summary = replay(w, *scheduler->scheduler, *eviction->policy, options, &observers);
  REQUIRE(summary.ok());
  RunMetrics metrics;
  metrics.summary = *summary;
  metrics.lower_bound_bytes = 1e6;
  metrics.lower_bound = "test bound";
  auto id = writer->finish(metrics);
  REQUIRE(id.ok());
  return {*id, Run{*summary, std::move(recorder.trace)}};
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("a replay read back from the database has the same summary, order, loads and workload", "[db]") {
  TempFile file("roundtrip.db");
  auto store = db::Store::open(file.path);
  REQUIRE(store.ok());
  // Two GPUs, little memory, a DAG: loads of both kinds, evictions, invalidations, write-backs.
  const Workload cholesky = generated("cholesky:N=7");
  const Platform platform = small_platform(6.0 * 960 * 960 * 4, 2);
  auto [id, run] = replay_into(*store, cholesky, cholesky.generator().spec, platform);
  REQUIRE(run.summary.evictions > 0);
  REQUIRE(run.summary.invalidations > 0);
  REQUIRE(run.summary.writebacks > 0);
  REQUIRE(run.summary.prefetches > 0);

  auto stored = store->load_run(id);
  REQUIRE(stored.ok());
  REQUIRE(stored->metrics.has_value());
  CHECK(stored->info.status == RunStatus::Complete);
  CHECK(stored->info.platform.gpus == 2);
  CHECK(stored->info.platform.memory_bytes == platform.memory_bytes);
  CHECK(stored->info.workload_tasks == cholesky.task_count());
  CHECK(summary_text(stored->metrics->summary) == summary_text(run.summary));
  CHECK(stored->metrics->lower_bound == "test bound");

  auto trace = store->load_trace(id);
  REQUIRE(trace.ok());
  CHECK(trace_text(*trace) == trace_text(run.trace));

  auto workload = store->load_workload(stored->info.workload_id);
  REQUIRE(workload.ok());
  CHECK(workload_text(*workload) == workload_text(cholesky));

  // The same workload is stored once.
  auto again = store->put_workload(cholesky, "generated");
  REQUIRE(again.ok());
  CHECK(*again == stored->info.workload_id);

  // A datum first written with a home (docs/workload-format.md) keeps it, and that is another workload.
  WorkloadBuilder builder("homes");
  const KindId k = builder.kind("K");
  const DataId homed = builder.add_data({"homed", 64, 'A', 0, 0, true});
  const DataId fresh = builder.add_data({"fresh", 64, 'A', 1, 0});
  const Access init[] = {{homed, AccessMode::Write}, {fresh, AccessMode::Write}};
  builder.add_task(k, init, 1);
  auto homes = std::move(builder).finish();
  REQUIRE(homes.ok());
  auto homes_id = store->put_workload(*homes, "test");
  REQUIRE(homes_id.ok());
  auto homes_back = store->load_workload(*homes_id);
  REQUIRE(homes_back.ok());
  CHECK(homes_back->data()[0].home);
  CHECK_FALSE(homes_back->data()[1].home);
  CHECK(workload_text(*homes_back) == workload_text(*homes));
}

TEST_CASE("a process killed while writing a run leaves earlier runs intact and that run absent", "[db]") {
  TempFile file("killed.db");
  const Workload w = generated("matmul2d:N=6");
  const Platform platform = small_platform(4.0 * 4 * 960 * 960 * 4);
  std::int64_t first_id = 0;
  std::string first_trace;
  {
    auto store = db::Store::open(file.path);
    REQUIRE(store.ok());
    auto [id, run] = replay_into(*store, w, w.generator().spec, platform);
    first_id = id;
    first_trace = trace_text(run.trace);
  }
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The child starts a second run, writes records for a while, says so, and keeps writing.
    ::close(ready[0]);
    auto store = db::Store::open(file.path);
    if (!store) ::_exit(3);
    auto workload_id = store->put_workload(w, "generated");
    if (!workload_id) ::_exit(4);
    auto writer = store->begin_run(info_for(*workload_id, "killed", platform));
    if (!writer) ::_exit(5);
    for (std::uint32_t i = 0;; ++i) {
      writer->on_task(TaskRecord{0, 0, i, i, 0, 0, 1});
      if (i == 50000) {
        const char byte = 1;
        if (::write(ready[1], &byte, 1) != 1) ::_exit(6);
      }
    }
  }
  ::close(ready[1]);
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));

  auto store = db::Store::open(file.path);
  REQUIRE(store.ok());
  auto runs = store->list_runs();
  REQUIRE(runs.ok());
  REQUIRE(runs->size() == 1);
  CHECK(runs->front().id == first_id);
  CHECK(runs->front().status == RunStatus::Complete);
  auto trace = store->load_trace(first_id);
  REQUIRE(trace.ok());
  CHECK(trace_text(*trace) == first_trace);
  // No records of the killed run remain, and the file is sound and writable.
  auto check = db::Connection::open(file.path, db::Connection::Access::ReadOnly);
  REQUIRE(check.ok());
  CHECK(check->query_integer("SELECT count(*) FROM task_executions WHERE run_id <> " + std::to_string(first_id)).value() == 0);
  auto integrity = check->prepare("PRAGMA integrity_check");
  REQUIRE(integrity.ok());
  REQUIRE(integrity->step().value());
  CHECK(integrity->text(0) == "ok");
  auto [second, run] = replay_into(*store, w, "after the crash", platform);
  CHECK(second > first_id);
}

TEST_CASE("a reader opens the database while a writer appends and sees only complete runs", "[db]") {
  TempFile file("concurrent.db");
  auto writer_store = db::Store::open(file.path);
  REQUIRE(writer_store.ok());
  const Workload w = generated("matmul2d:N=5");
  const Platform platform = small_platform(1e9);
  replay_into(*writer_store, w, "first", platform);

  auto workload_id = writer_store->put_workload(w, "generated");
  REQUIRE(workload_id.ok());
  auto writer = writer_store->begin_run(info_for(*workload_id, "second", platform));
  REQUIRE(writer.ok());
  for (std::uint32_t i = 0; i < 1000; ++i) writer->on_task(TaskRecord{0, 0, i, i, 0, 0, 1});

  // Another connection, read-only, while the writer holds its transaction open.
  auto reader = db::Store::open(file.path, db::Store::OpenMode::ReadOnly);
  REQUIRE(reader.ok());
  auto during = reader->list_runs();
  REQUIRE(during.ok());
  CHECK(during->size() == 1);

  RunMetrics metrics;
  metrics.summary.tasks = 1000;
  REQUIRE(writer->finish(metrics).ok());
  auto after = reader->list_runs();
  REQUIRE(after.ok());
  CHECK(after->size() == 2);
  CHECK(after->back().workload_spec == "matmul2d:N=5,b=960,elem=4,n=4,seed=0");
}

TEST_CASE("files that are not tilelens databases of this version are refused and left untouched", "[db]") {
  SECTION("random bytes") {
    TempFile file("random.db");
    {
      std::ofstream out(file.path, std::ios::binary);
      Rng rng(7);
      for (int i = 0; i < 5000; ++i) out.put(static_cast<char>(rng.below(256)));
    }
    const std::string before = file_bytes(file.path);
    auto store = db::Store::open(file.path);
    REQUIRE_FALSE(store.ok());
    CHECK_THAT(store.error().message, Catch::Contains(file.path) && Catch::Contains("not a tilelens database"));
    CHECK(file_bytes(file.path) == before);
  }
  SECTION("a truncated copy") {
    TempFile file("whole.db");
    TempFile cut("truncated.db");
    {
      auto store = db::Store::open(file.path);
      REQUIRE(store.ok());
      const Workload w = generated("matmul2d:N=12");
      replay_into(*store, w, "whole", small_platform(4.0 * 4 * 960 * 960 * 4));
    }  // closing the last connection checkpoints the log into the file
    const std::string bytes = file_bytes(file.path);
    REQUIRE(bytes.size() > 8192);
    {
      std::ofstream out(cut.path, std::ios::binary);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
    }
    auto store = db::Store::open(cut.path, db::Store::OpenMode::ReadOnly);
    REQUIRE_FALSE(store.ok());
    CHECK_THAT(store.error().message, Catch::Contains("truncated"));
  }
  SECTION("another application's SQLite database") {
    TempFile file("other.db");
    {
      auto connection = db::Connection::open(file.path, db::Connection::Access::ReadWrite);
      REQUIRE(connection.ok());
      REQUIRE(connection->exec("CREATE TABLE photos(id INTEGER PRIMARY KEY, path TEXT)").ok());
    }
    const std::string before = file_bytes(file.path);
    auto store = db::Store::open(file.path);
    REQUIRE_FALSE(store.ok());
    CHECK_THAT(store.error().message, Catch::Contains("not a tilelens database"));
    CHECK(file_bytes(file.path) == before);
  }
  SECTION("a newer schema version") {
    TempFile file("newer.db");
    {
      auto store = db::Store::open(file.path);
      REQUIRE(store.ok());
    }
    {
      auto connection = db::Connection::open(file.path, db::Connection::Access::ReadWrite);
      REQUIRE(connection.ok());
      REQUIRE(connection->exec("PRAGMA user_version = 99").ok());
    }
    auto store = db::Store::open(file.path);
    REQUIRE_FALSE(store.ok());
    CHECK_THAT(store.error().message, Catch::Contains("schema version 99") && Catch::Contains("newer") &&
                                          Catch::Contains("version " + std::to_string(db::kSchemaVersion)));
  }
  SECTION("a database that does not exist, opened to read") {
    auto store = db::Store::open(temp_path("absent.db"), db::Store::OpenMode::ReadOnly);
    REQUIRE_FALSE(store.ok());
    CHECK_THAT(store.error().message, Catch::Contains("no such database"));
  }
}

TEST_CASE("a failed replay is stored as a failed run without records", "[db]") {
  TempFile file("failed.db");
  auto store = db::Store::open(file.path);
  REQUIRE(store.ok());
  const Workload w = generated("matmul2d:N=5");
  auto workload_id = store->put_workload(w, "generated");
  REQUIRE(workload_id.ok());
  auto writer = store->begin_run(info_for(*workload_id, "doomed", small_platform(1e9)));
  REQUIRE(writer.ok());
  writer->on_task(TaskRecord{0, 0, 0, 0, 0, 0, 1});
  auto id = writer->fail("the scheduler stopped");
  REQUIRE(id.ok());
  auto run = store->load_run(*id);
  REQUIRE(run.ok());
  CHECK(run->info.status == RunStatus::Failed);
  CHECK(run->info.error == "the scheduler stopped");
  CHECK_FALSE(run->metrics.has_value());
  CHECK(store->load_trace(*id).value().tasks.empty());
}

TEST_CASE("sweep stores a grid, resumes without redoing runs, and the runs commands read it", "[db][cli]") {
  TempFile file("sweep.db");
  const std::vector<std::string> sweep = {"sweep", "--db", file.path, "--workload", "matmul2d:N=4..12:4", "--scheduler",
                                          "eager,rcm,random", "--eviction", "lru,belady", "--memory", "4items", "--jobs", "2",
                                          "--quiet"};
  const auto first = cli(sweep);
  INFO(first.err);
  REQUIRE(first.code == 0);
  CHECK_THAT(first.out, Catch::Contains("18 runs: 18 stored, 0 skipped"));
  const auto second = cli(sweep);
  REQUIRE(second.code == 0);
  CHECK_THAT(second.out, Catch::Contains("18 runs: 0 stored, 18 skipped"));

  // Runs are stored in grid order whatever the threads did.
  auto store = db::Store::open(file.path, db::Store::OpenMode::ReadOnly);
  REQUIRE(store.ok());
  auto runs = store->list_runs();
  REQUIRE(runs.ok());
  REQUIRE(runs->size() == 18);
  CHECK(runs->front().workload_spec == "matmul2d:N=4,b=960,elem=4,n=4,seed=0");
  CHECK(runs->front().scheduler == "eager");
  CHECK(runs->back().workload_spec == "matmul2d:N=12,b=960,elem=4,n=4,seed=0");
  CHECK(runs->back().eviction == "belady");

  const auto list = cli({"runs", "list", "--db", file.path, "--scheduler", "rcm"});
  REQUIRE(list.code == 0);
  CHECK_THAT(list.out, Catch::Contains("6 runs in"));
  const auto compare = cli({"runs", "compare", "--sweep", "1", "--db", file.path});
  REQUIRE(compare.code == 0);
  CHECK_THAT(compare.out, Catch::Contains("LB MiB") && Catch::Contains("N=12") && Catch::Contains("rcm/belady"));
  const auto pair = cli({"runs", "compare", "1", "2", "--db", file.path});
  REQUIRE(pair.code == 0);
  CHECK_THAT(pair.out, Catch::Contains("lower bound") && Catch::Contains("ratio to LB") && Catch::Contains("2 / 1"));
  const auto csv = cli({"export", "csv", "--sweep", "1", "--db", file.path});
  REQUIRE(csv.code == 0);
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 19);
  const auto order = cli({"export", "csv", "--run", "3", "--db", file.path});
  REQUIRE(order.code == 0);
  CHECK(std::count(order.out.begin(), order.out.end(), '\n') == 1 + 16);

  const auto removed = cli({"runs", "delete", "1", "2", "--db", file.path});
  REQUIRE(removed.code == 0);
  const auto missing = cli({"runs", "delete", "1", "--db", file.path});
  CHECK(missing.code == 2);
  CHECK_THAT(missing.err, Catch::Contains("no run 1"));
  // A rerun redoes exactly the deleted runs.
  const auto third = cli(sweep);
  CHECK_THAT(third.out, Catch::Contains("18 runs: 2 stored, 16 skipped"));
}

TEST_CASE("sweep and runs refuse bad input with a message that names it", "[db][cli]") {
  TempFile file("bad.db");
  CHECK_THAT(cli({"sweep", "--db", file.path, "--workload", "matmul2d:N=9..3"}).err, Catch::Contains("9..3") && Catch::Contains("not a range"));
  CHECK_THAT(cli({"sweep", "--db", file.path, "--workload", "matmul2d:Q=3"}).err, Catch::Contains("unknown parameter 'Q'"));
  CHECK_THAT(cli({"sweep", "--db", file.path, "--workload", "matmul2d", "--scheduler", "nope"}).err, Catch::Contains("nope"));
  CHECK_THAT(cli({"runs", "show", "x", "--db", file.path}).err, Catch::Contains("run id"));
  CHECK_THAT(cli({"runs", "list", "--db", temp_path("nowhere.db")}).err, Catch::Contains("no such database"));
  const auto dry = cli({"sweep", "--workload", "matmul2d:N=2..3", "--scheduler", "eager,random", "--seeds", "1..3", "--dry-run"});
  REQUIRE(dry.code == 0);
  // random takes a seed (3 runs per workload), eager does not (1): 2 x (1 + 3).
  CHECK_THAT(dry.out, Catch::Contains("8 runs") && Catch::Contains("random:seed=3"));
}

TEST_CASE("the schema is declared once: docs/database.md shows the declaration as it is", "[db][docs]") {
  std::ifstream in(TILELENS_SOURCE_DIR "/docs/database.md");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string begin = "<!-- tilelens db schema: begin -->\n", end = "<!-- tilelens db schema: end -->";
  const auto from = doc.find(begin), to = doc.find(end);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  INFO("regenerate the section with: tilelens db schema --markdown");
  CHECK(doc.substr(from + begin.size(), to - from - begin.size()) == db::schema_markdown());
}

TEST_CASE("the documents name the schema version this tilelens writes", "[db][docs]") {
  const std::string version = "(schema version " + std::to_string(db::kSchemaVersion) + ")";
  for (const char* file : {"/docs/database.md", "/docs/README.md"}) {
    std::ifstream in(std::string(TILELENS_SOURCE_DIR) + file);
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    INFO(file << " should say " << version);
    CHECK_THAT(text.str(), Catch::Contains(version));
  }
}

namespace {

// Every table's columns as SQLite reports them: name, type, NOT NULL, default, key rank.
std::string table_shapes(db::Connection& connection) {
  std::string shapes;
  for (const db::Table& table : db::schema_tables()) {
    auto info = connection.prepare("SELECT name, type, \"notnull\", coalesce(dflt_value, ''), pk FROM pragma_table_info('" +
                                   std::string(table.name) + "')");
    REQUIRE(info.ok());
    shapes += std::string(table.name) + ":";
    while (*info->step()) {
      shapes += " " + info->text(0) + " " + info->text(1) + " " + info->text(2) + " " + info->text(3) + " " + info->text(4) + ";";
    }
    shapes += "\n";
  }
  return shapes;
}

}  // namespace

TEST_CASE("a load whose stored source is no GPU is refused with its row, not wrapped to the host", "[db]") {
  TempFile file("bad-source.db");
  std::int64_t id = 0;
  {
    auto store = db::Store::open(file.path);
    REQUIRE(store.ok());
    const Workload w = generated("matmul2d:N=12");
    id = replay_into(*store, w, "bad-source", small_platform(4.0 * 4 * 960 * 960 * 4)).first;
  }
  {
    auto connection = db::Connection::open(file.path, db::Connection::Access::ReadWrite);
    REQUIRE(connection.ok());
    REQUIRE(connection->exec("UPDATE loads SET source = 65535 WHERE seq = 3").ok());
  }
  auto store = db::Store::open(file.path);
  REQUIRE(store.ok());
  auto trace = store->load_trace(id);
  REQUIRE_FALSE(trace.ok());
  CHECK_THAT(trace.error().message, Catch::Contains("loads, row seq=3") && Catch::Contains("65535"));
}

TEST_CASE("a file of every older schema version upgrades to the tables of a new file", "[db]") {
  TempFile fresh("schema-fresh.db");
  REQUIRE(db::Store::open(fresh.path).ok());
  auto reference = db::Connection::open(fresh.path, db::Connection::Access::ReadOnly);
  REQUIRE(reference.ok());
  const std::string expected = table_shapes(*reference);
  for (int version = 1; version < db::kSchemaVersion; ++version) {
    INFO("from version " << version);
    TempFile old("schema-v" + std::to_string(version) + ".db");
    {
      auto connection = db::Connection::open(old.path, db::Connection::Access::ReadWrite);
      REQUIRE(connection.ok());
      REQUIRE(connection->exec(db::create_sql(version)).ok());
      REQUIRE(connection->exec("PRAGMA application_id = " + std::to_string(db::kApplicationId) +
                               "; PRAGMA user_version = " + std::to_string(version))
                  .ok());
    }
    auto upgraded = db::Store::open(old.path, db::Store::OpenMode::ReadOnlyUpgrading);
    REQUIRE(upgraded.ok());
    auto connection = db::Connection::open(old.path, db::Connection::Access::ReadOnly);
    REQUIRE(connection.ok());
    CHECK(*connection->query_integer("PRAGMA user_version") == db::kSchemaVersion);
    CHECK(table_shapes(*connection) == expected);
  }
}

TEST_CASE("every table's named INSERT and SELECT are valid SQL on a new file", "[db]") {
  TempFile file("schema-statements.db");
  REQUIRE(db::Store::open(file.path).ok());
  auto connection = db::Connection::open(file.path, db::Connection::Access::ReadOnly);
  REQUIRE(connection.ok());
  for (const db::Table& table : db::schema_tables()) {
    INFO(table.name);
    CHECK(connection->prepare(db::insert_sql(table)).ok());
    CHECK(connection->prepare("SELECT " + db::select_columns(table, "t") + " FROM " + std::string(table.name) + " t").ok());
  }
  // The tables a run's deletion visits: every one with a run_id, the measured runs' included.
  const auto tables = db::run_tables();
  for (const char* name : {"task_executions", "loads", "evictions", "writebacks", "allocations", "metrics", "gpu_metrics", "measurements", "cupti_records"}) {
    CHECK(std::find(tables.begin(), tables.end(), name) != tables.end());
  }
}

TEST_CASE("a read of a column that the query does not select fails, naming it, instead of reading NULL") {
  TempFile file("unknown-column.db");
  auto connection = db::Connection::open(file.path, db::Connection::Access::ReadWrite);
  REQUIRE(connection.ok());
  REQUIRE(connection->exec("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (7), (8)").ok());
  auto query = connection->prepare("SELECT a AS \"t.a\" FROM t ORDER BY a");
  REQUIRE(query.ok());
  REQUIRE(query->step().value());
  CHECK(query->integer("t.a") == 7);
  CHECK(query->check_columns().ok());
  CHECK(query->integer("t.mistyped") == 0);
  const auto checked = query->check_columns();
  REQUIRE_FALSE(checked.ok());
  CHECK_THAT(checked.error().message, Catch::Contains("'t.mistyped'") && Catch::Contains("does not select"));
  // The next step says so too, once.
  CHECK(query->integer("t.other") == 0);
  const auto next = query->step();
  REQUIRE_FALSE(next.ok());
  CHECK_THAT(next.error().message, Catch::Contains("'t.other'"));
}

TEST_CASE("the metrics are declared once: the metrics table's columns, written and read back, are the declaration's") {
  const db::Table& table = db::schema_table("metrics");
  const auto& metrics = db::metric_columns();
  REQUIRE(table.columns.size() == metrics.size() + 1);
  CHECK(table.columns.front().name == "run_id");
  RunMetrics written;
  std::int64_t next = 1;
  // Every member a distinct value: a column bound to another member, or not read back, shows.
  for (const db::MetricColumn& metric : metrics) {
    if (!metric.set) continue;
    if (metric.column.type.starts_with("TEXT")) {
      metric.set(written, std::string("text ") + std::to_string(next++));
    } else if (metric.column.type.starts_with("REAL")) {
      metric.set(written, static_cast<double>(next++) + 0.5);
    } else {
      metric.set(written, next++);
    }
  }
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    INFO(metrics[i].column.name);
    CHECK(table.columns[i + 1].name == metrics[i].column.name);
    if (!metrics[i].set) continue;
    const auto value = metrics[i].get(written);
    CHECK_FALSE(std::holds_alternative<std::monostate>(value));
    for (std::size_t j = 0; j < i; ++j) {
      if (metrics[j].set) CHECK(metrics[j].get(written) != value);
    }
  }
}

TEST_CASE("tilelens_mistyped names the first value its column's letter does not admit", "[db]") {
  auto c = db::Connection::open(":memory:", db::Connection::Access::ReadWrite);
  REQUIRE(c.ok());
  const auto first_mistyped = [&](const std::string& args) { return *c->query_integer("SELECT tilelens_mistyped(" + args + ")"); };
  CHECK(first_mistyped("'i', 3") == 0);
  CHECK(first_mistyped("'i', 3.5") == 1);
  CHECK(first_mistyped("'i', '3'") == 1);
  CHECK(first_mistyped("'i', NULL") == 1);
  CHECK(first_mistyped("'I', NULL") == 0);
  CHECK(first_mistyped("'r', 3") == 0);  // a REAL column admits an integer (SQLite stores 3.0 as 3)
  CHECK(first_mistyped("'r', 2.5") == 0);
  CHECK(first_mistyped("'R', NULL") == 0);
  CHECK(first_mistyped("'t', 'x'") == 0);
  CHECK(first_mistyped("'t', 1") == 1);
  CHECK(first_mistyped("'T', NULL") == 0);
  CHECK(first_mistyped("'iit', 1, 2, 'x'") == 0);
  CHECK(first_mistyped("'iit', 1, x'00', 'x'") == 2);  // no letter admits a blob
  CHECK(first_mistyped("'iit', 1, 2, 3") == 3);
  // One letter per value, or the statement fails.
  CHECK_FALSE(c->query_integer("SELECT tilelens_mistyped('ii', 1)").ok());
  CHECK_FALSE(c->query_integer("SELECT tilelens_mistyped(NULL, 1)").ok());
}
