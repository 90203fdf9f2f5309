// The paper's experiments as sweep presets, `tilelens results`, charging the scheduler's time,
// and the schema upgrade from version 1 that stores it.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "presets/experiments.hpp"
#include "db/schema.hpp"
#include "db/sqlite.hpp"
#include "db/store.hpp"
#include "helpers.hpp"

using namespace tilelens;
using namespace tilelens::test;

namespace {
double json_number(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  REQUIRE(at != std::string::npos);
  return std::stod(json.substr(at + key.size() + 3));
}
}  // namespace

TEST_CASE("every preset's policies and options are valid sweep entries", "[presets]") {
  for (const auto& preset : sweep_presets()) {
    INFO(preset.name);
    const auto dry = test::cli({"sweep", "--preset", preset.name, "--dry-run"});
    INFO(dry.err);
    REQUIRE(dry.code == 0);
    CHECK_THAT(dry.out, Catch::Contains(" runs\n"));
    CHECK(!preset.policies.empty());
  }
  CHECK(find_sweep_preset("fgcs-fig7") == find_sweep_preset("fgcs-fig5"));
  CHECK(find_sweep_preset("fgcs-fig99") == nullptr);
  const auto unknown = test::cli({"sweep", "--preset", "fgcs-fig99", "--dry-run"});
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("unknown preset 'fgcs-fig99'"));
  const auto list = test::cli({"sweep", "--preset", "list"});
  CHECK_THAT(list.out, Catch::Contains("fgcs-fig11c") && Catch::Contains("Table 3"));
}

TEST_CASE("the order visualisations are one size each, laid out with a caption per policy at most", "[presets]") {
  std::size_t orders = 0;
  for (const auto& preset : sweep_presets()) {
    if (!preset.order_figure) continue;
    INFO(preset.name);
    ++orders;
    const auto dry = test::cli({"sweep", "--preset", preset.name, "--dry-run"});
    REQUIRE(dry.code == 0);
    CHECK_THAT(dry.out, Catch::EndsWith("\n" + std::to_string(preset.policies.size()) + " runs\n"));  // one run per policy
    CHECK(preset.order_figure->captions.size() <= preset.policies.size());
  }
  // fgcs Figs. 8, 9, 10, 12, 13 and darts Figs. 8, 9, 13.
  CHECK(orders == 8);
  for (const char* name : {"fgcs-cm-rcm", "darts-fig11-a100", "darts-fig15a-p100", "darts-fig15a-a100", "darts-fig15b-a100",
                           "slides-gemm-4gpu", "lahp-fig5-k40", "lahp-fig5-p100", "lahp-cholesky-p100"}) {
    CHECK(find_sweep_preset(name) != nullptr);
  }
  // darts Fig. 10 draws a curve: more than two working sets per GPU kind.
  const auto fig10 = test::cli({"sweep", "--preset", "darts-fig10-v100", "--dry-run"});
  REQUIRE(fig10.code == 0);
  CHECK(static_cast<std::size_t>(std::count(fig10.out.begin(), fig10.out.end(), '\n')) > 5 * find_sweep_preset("darts-fig10-v100")->policies.size());
}

TEST_CASE("lahp presets print the speedups over Heteroprio and the BMD panels", "[presets][db][cli][lahp]") {
  TempFile db_file("lahp-presets.db");
  const auto sweep = test::cli({"sweep", "--db", db_file.path, "--preset", "lahp-cholesky-4gpu", "--workload", "cholesky:N=8|12", "--quiet"});
  INFO(sweep.err);
  REQUIRE(sweep.code == 0);
  const auto printed = test::cli({"results", "--db", db_file.path});
  INFO(printed.err);
  REQUIRE(printed.code == 0);
  CHECK_THAT(printed.out, Catch::Contains("Speedup over Heteroprio") && Catch::Contains("BMD (lahp Figs. 6-8 E-F)") &&
                              Catch::Contains("LA AUTO: the pushes made under each formula"));
  // Plain Heteroprio has no BMD column; every LAHeteroprio push rule has one.
  const auto bmd = printed.out.substr(printed.out.find("BMD (lahp"));
  const auto header = bmd.substr(bmd.find("| N |"), bmd.find('\n', bmd.find("| N |")) - bmd.find("| N |"));
  CHECK_THAT(header, Catch::Contains("LA WORKER") && Catch::Contains("LA AUTO") && !Catch::Contains("Heteroprio"));
  // A run's counters are stored and read back.
  const auto shown = test::cli({"runs", "show", "8", "--db", db_file.path});
  REQUIRE(shown.code == 0);
  CHECK_THAT(shown.out, Catch::Contains("auto_pushes_ls_sdhb"));
}

TEST_CASE("sweep entries pin their eviction and charge their scheduling time", "[presets][cli]") {
  const auto dry = test::cli({"sweep", "--workload", "matmul2d:N=6", "--scheduler", "eager,hfp:flip=0,ready=0/belady,dmdar/lru+time",
                        "--eviction", "lru,fifo", "--dry-run"});
  INFO(dry.err);
  REQUIRE(dry.code == 0);
  // eager crosses both evictions; the pinned entries run once each.
  CHECK_THAT(dry.out, Catch::Contains("eager/lru") && Catch::Contains("eager/fifo") && !Catch::Contains("ready=0/lru") &&
                          !Catch::Contains("ready=0/fifo") && !Catch::Contains("dmdar/fifo"));
  CHECK_THAT(dry.out, Catch::Contains("hfp:flip=0,ready=0/belady") && Catch::Contains("dmdar/lru+time") &&
                          Catch::Contains("4 runs"));
  const auto bad = test::cli({"sweep", "--workload", "matmul2d:N=6", "--scheduler", "hfp/nosuch", "--dry-run"});
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("nosuch"));
}

TEST_CASE("charging the scheduling time delays the run by the prepare() time, and only then", "[presets][engine]") {
  const std::vector<std::string> base = {"replay", "--workload", "matmul2d:N=30", "--scheduler", "hfp", "--eviction", "belady",
                                         "--memory", "250MiB", "--json"};
  auto charged_args = base;
  charged_args.push_back("--charge-scheduling");
  const auto plain = test::cli(base);
  const auto charged = test::cli(charged_args);
  REQUIRE(plain.code == 0);
  REQUIRE(charged.code == 0);
  CHECK(json_number(plain.out, "charged_ns") == 0);
  const double delay = json_number(charged.out, "charged_ns");
  CHECK(delay > 0);
  CHECK(delay == json_number(charged.out, "prepare_ns"));
  // Every event moves by the delay: same loads, makespan longer by exactly the delay.
  CHECK(json_number(charged.out, "loads") == json_number(plain.out, "loads"));
  CHECK(json_number(charged.out, "makespan_ns") == json_number(plain.out, "makespan_ns") + delay);
}

TEST_CASE("a preset sweep gives results tables next to the paper's, rewritten between markers only", "[presets][db][cli]") {
  TempFile db_file("presets.db");
  TempFile doc("results.md");
  const auto sweep = test::cli({"sweep", "--db", db_file.path, "--preset", "fgcs-fig5", "--workload", "matmul2d:N=10|40", "--quiet"});
  INFO(sweep.err);
  REQUIRE(sweep.code == 0);
  const std::size_t policies = find_sweep_preset("fgcs-fig5")->policies.size();
  CHECK_THAT(sweep.out, Catch::Contains(std::to_string(2 * policies) + " runs: " + std::to_string(2 * policies) + " stored"));

  const auto printed = test::cli({"results", "--db", db_file.path});
  INFO(printed.err);
  REQUIRE(printed.code == 0);
  CHECK_THAT(printed.out, Catch::Contains("fgcs Figs. 5 and 7") && Catch::Contains("| 40 |") &&
                              Catch::Contains("| DMDAR |") && Catch::Contains("15.1 %") && Catch::Contains("HFP only flip"));

  {
    std::ofstream out(doc.path);
    out << "# Results\n\nintro kept\n\n<!-- tilelens results: begin -->\nstale\n<!-- tilelens results: end -->\n\ndiscussion kept\n";
  }
  const auto written = test::cli({"results", "--db", db_file.path, "--output", doc.path});
  REQUIRE(written.code == 0);
  const std::string text = file_text(doc.path);
  CHECK_THAT(text, Catch::Contains("intro kept") && Catch::Contains("discussion kept") && Catch::Contains("| 40 |"));
  CHECK_THAT(text, !Catch::Contains("stale"));
  // Twice gives the same file.
  REQUIRE(test::cli({"results", "--db", db_file.path, "--output", doc.path}).code == 0);
  CHECK(file_text(doc.path) == text);

  TempFile empty_db("no-presets.db");
  REQUIRE(db::Store::open(empty_db.path).ok());
  const auto none = test::cli({"results", "--db", empty_db.path});
  CHECK(none.code == 2);
  CHECK_THAT(none.err, Catch::Contains("no preset sweep"));
}

TEST_CASE("a version-1 database is upgraded in place and keeps its runs", "[db]") {
  TempFile file("v1.db");
  REQUIRE(test::cli({"replay", "--workload", "matmul2d:N=6", "--memory", "4items", "--db", file.path}).code == 0);
  {
    auto connection = db::Connection::open(file.path, db::Connection::Access::ReadWrite);
    REQUIRE(connection.ok());
    REQUIRE(connection->exec("ALTER TABLE metrics DROP COLUMN prepare_ns; ALTER TABLE metrics DROP COLUMN charged_ns; "
                             "ALTER TABLE platforms DROP COLUMN gpu_bus_bandwidth; ALTER TABLE platforms DROP COLUMN gpus_per_switch; "
                             "ALTER TABLE platforms DROP COLUMN switch_bandwidth; ALTER TABLE platforms DROP COLUMN workers_per_memory; "
                             "ALTER TABLE platforms DROP COLUMN cpus; ALTER TABLE platforms DROP COLUMN cpu_default_gflops; "
                             "ALTER TABLE platforms DROP COLUMN cpu_kind_gflops; DROP TABLE measurements; DROP TABLE cupti_records; "
                             "DROP TABLE run_claims; DROP INDEX runs_one_per_sweep_key; "
                             "ALTER TABLE runs DROP COLUMN scheduling_cost; ALTER TABLE metrics DROP COLUMN push_decisions; "
                             "ALTER TABLE metrics DROP COLUMN push_scanned; ALTER TABLE metrics DROP COLUMN push_base_ns; "
                             "ALTER TABLE metrics DROP COLUMN push_per_task_ns; ALTER TABLE metrics DROP COLUMN pop_decisions; "
                             "ALTER TABLE metrics DROP COLUMN pop_scanned; ALTER TABLE metrics DROP COLUMN pop_base_ns; "
                             "ALTER TABLE metrics DROP COLUMN pop_per_task_ns; ALTER TABLE metrics DROP COLUMN decisions_charged_ns; "
                             "ALTER TABLE runs DROP COLUMN memory_model; DELETE FROM writeback_causes WHERE id = 3; "
                             "ALTER TABLE platforms DROP COLUMN copy_engines; ALTER TABLE platforms DROP COLUMN half_duplex; "
                             "DROP TABLE scheduler_counters; DROP TABLE import_notes; DROP TABLE import_records; ALTER TABLE data DROP COLUMN home; ALTER TABLE platforms DROP COLUMN worker_speeds; PRAGMA user_version = 1")
                .ok());
  }
  auto reader = db::Store::open(file.path, db::Store::OpenMode::ReadOnly);
  REQUIRE_FALSE(reader.ok());
  CHECK_THAT(reader.error().message, Catch::Contains("schema version 1") && Catch::Contains("read-write once"));
  {
    // The app and the reading commands upgrade first, then read.
    auto upgrading = db::Store::open(file.path, db::Store::OpenMode::ReadOnlyUpgrading);
    INFO((upgrading.ok() ? "" : upgrading.error().message));
    REQUIRE(upgrading.ok());
    CHECK(upgrading->list_runs()->size() == 1);
  }
  // A file that is not a tilelens database is still refused by the upgrading open.
  TempFile junk("junk-upgrade.db");
  {
    std::ofstream out(junk.path);
    out << "plain text, not a database";
  }
  CHECK_FALSE(db::Store::open(junk.path, db::Store::OpenMode::ReadOnlyUpgrading).ok());
  {
    auto store = db::Store::open(file.path);
    INFO((store.ok() ? "" : store.error().message));
    REQUIRE(store.ok());
    auto run = store->load_run(1);
    REQUIRE(run.ok());
    REQUIRE(run->metrics.has_value());
    CHECK(run->metrics->summary.charged_ns == 0);
    CHECK_FALSE(run->info.platform.has_pcie_tree());
    CHECK(run->metrics->summary.loads > 0);
    CHECK(run->info.memory_model == "fgcs");  // replayed before models were recorded: the papers' model
  }
  {
    auto connection = db::Connection::open(file.path, db::Connection::Access::ReadOnly);
    REQUIRE(connection.ok());
    CHECK(*connection->query_integer("SELECT COUNT(*) FROM writeback_causes WHERE id = 3 AND name = 'idle'") == 1);
  }
  auto connection = db::Connection::open(file.path, db::Connection::Access::ReadOnly);
  REQUIRE(connection.ok());
  CHECK(*connection->query_integer("PRAGMA user_version") == db::kSchemaVersion);
}
