// Sweeps beyond one machine (issue 21): a grid split into shards by estimated cost, and
// databases merged into one, each run once, atomically, refusing other schema versions and
// inputs whose runs do not read back.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <filesystem>
#include <map>
#include <set>

#include "core/sweep.hpp"
#include "helpers.hpp"
#include "db/schema.hpp"
#include "db/sqlite.hpp"
#include "db/store.hpp"

using namespace tilelens;
using namespace tilelens::test;

namespace {

core::SweepGrid small_grid() {
  core::SweepGrid grid;
  grid.workloads = "matmul2d:N=4..12:2;cholesky:N=4|6";
  grid.schedulers = "eager,dmdar,hfp/belady";
  grid.memories = "4items,8items";
  return grid;
}

// run key -> loads, of the complete runs of a database.
std::map<std::string, std::uint64_t> loads_by_key(const std::string& path) {
  auto store = db::Store::open(path, db::Store::OpenMode::ReadOnly);
  REQUIRE(store.ok());
  auto runs = store->load_runs({});
  REQUIRE(runs.ok());
  std::map<std::string, std::uint64_t> loads;
  for (const auto& run : *runs) {
    REQUIRE(run.metrics);
    loads[run.info.key] = run.metrics->summary.loads;
    // load_runs reads every run in four queries; it must read what load_run reads alone.
    auto alone = store->load_run(run.info.id);
    REQUIRE(alone.ok());
    CHECK(alone->info.key == run.info.key);
    REQUIRE(alone->metrics);
    CHECK(alone->metrics->summary.loads == run.metrics->summary.loads);
    CHECK(alone->metrics->summary.gpus.size() == run.metrics->summary.gpus.size());
    CHECK(alone->metrics->summary.scheduler_counters == run.metrics->summary.scheduler_counters);
  }
  // An id range selects exactly the runs in it.
  if (runs->size() >= 3) {
    db::RunFilter middle;
    middle.first_id = (*runs)[1].info.id;
    middle.last_id = (*runs)[runs->size() - 2].info.id;
    auto some = store->load_runs(middle);
    REQUIRE(some.ok());
    CHECK(some->size() == runs->size() - 2);
  }
  return loads;
}

}  // namespace

TEST_CASE("the shards of a grid are disjoint, their union is the grid, and their estimated costs are balanced", "[cluster][sweep]") {
  const core::SweepGrid whole = small_grid();
  auto all = core::expand_grid(whole);
  REQUIRE(all.ok());
  for (std::uint32_t shards : {1u, 2u, 3u, 7u, 100u}) {
    INFO(shards << " shards");
    std::multiset<std::string> seen;
    std::vector<double> cost(shards, 0);
    for (std::uint32_t k = 1; k <= shards; ++k) {
      core::SweepGrid part = whole;
      REQUIRE(core::set_sweep_option(part, "shard", std::to_string(k) + "/" + std::to_string(shards)));
      CHECK(core::sweep_identity(part) == core::sweep_identity(whole));  // one sweep, in parts
      auto jobs = core::expand_grid(part);
      REQUIRE(jobs.ok());
      const auto costs = core::estimated_costs(*jobs);
      for (std::size_t i = 0; i < jobs->size(); ++i) {
        seen.insert((*jobs)[i].label);
        cost[k - 1] += costs[i];
      }
    }
    std::multiset<std::string> expected;
    for (const auto& job : *all) expected.insert(job.label);
    CHECK(seen == expected);
    if (shards <= all->size() / 4) {
      // LPT: no part exceeds the mean by more than its largest job.
      double largest = 0, total = 0;
      for (double one : core::estimated_costs(*all)) largest = std::max(largest, one), total += one;
      CHECK(*std::max_element(cost.begin(), cost.end()) <= total / shards + largest);
    }
  }
  core::SweepGrid bad = whole;
  for (const char* text : {"0/3", "4/3", "3", "a/b", "1/0", "-1/2"}) {
    INFO(text);
    auto status = core::set_sweep_option(bad, "shard", text);
    REQUIRE_FALSE(status);
    CHECK(status.error().field == "shard");
    CHECK_THAT(status.error().message, Catch::Contains("K/N") && !Catch::Contains("--"));
  }
}

TEST_CASE("merged shard databases equal the sweep run whole, run for run, and merging twice adds nothing", "[cluster][db]") {
  TempFile whole_db("whole.db"), merged_db("merged.db");
  TempFile part_1("shard-1.db"), part_2("shard-2.db"), part_3("shard-3.db");
  const std::vector<const TempFile*> parts = {&part_1, &part_2, &part_3};
  core::SweepOptions options;
  options.threads = 2;
  options.database = whole_db.path;
  REQUIRE(core::run_sweep(small_grid(), options).ok());
  for (int k = 1; k <= 3; ++k) {
    core::SweepGrid part = small_grid();
    REQUIRE(core::set_sweep_option(part, "shard", std::to_string(k) + "/3"));
    options.database = parts[static_cast<std::size_t>(k - 1)]->path;
    auto report = core::run_sweep(part, options);
    REQUIRE(report.ok());
    CHECK(report->failed + report->invalid == 0);
  }
  std::vector<std::string> args = {"db", "merge", merged_db.path};
  for (const TempFile* part : parts) args.push_back(part->path);
  const auto merged = test::cli(args);
  INFO(merged.err);
  REQUIRE(merged.code == 0);
  const auto expected = loads_by_key(whole_db.path);
  CHECK(loads_by_key(merged_db.path) == expected);
  {
    auto store = db::Store::open(merged_db.path, db::Store::OpenMode::ReadOnly);
    REQUIRE(store.ok());
    CHECK(store->list_sweeps()->size() == 1);  // the parts are one sweep
    // A merged run reads back whole, its trace included.
    auto runs = store->list_runs();
    REQUIRE(runs.ok());
    REQUIRE(store->load_trace(runs->back().id).ok());
  }
  // Again, and with the whole sweep on top: nothing new.
  args.push_back(whole_db.path);
  const auto again = test::cli(args);
  REQUIRE(again.code == 0);
  CHECK_THAT(again.out, Catch::Contains(merged_db.path + ": 0 runs added"));
  CHECK(loads_by_key(merged_db.path) == expected);
}

TEST_CASE("a merge is atomic and refuses another schema version, naming it", "[cluster][db]") {
  TempFile source("merge-source.db"), target("merge-target.db"), older("merge-older.db");
  core::SweepOptions options;
  options.database = source.path;
  REQUIRE(core::run_sweep(small_grid(), options).ok());
  REQUIRE(test::cli({"replay", "--workload", "matmul2d:N=6", "--memory", "4items", "--db", target.path}).code == 0);
  const auto before = loads_by_key(target.path);
  {
    // A merge that fails part way (here a trigger stops the metrics) leaves the target as it was.
    auto c = db::Connection::open(target.path, db::Connection::Access::ReadWrite);
    REQUIRE(c.ok());
    REQUIRE(c->exec("CREATE TRIGGER stop BEFORE INSERT ON metrics BEGIN SELECT RAISE(ABORT, 'interrupted'); END;").ok());
  }
  const auto failed = test::cli({"db", "merge", target.path, source.path});
  CHECK(failed.code == 2);
  CHECK_THAT(failed.err, Catch::Contains("interrupted") && Catch::Contains(source.path));
  {
    auto c = db::Connection::open(target.path, db::Connection::Access::ReadWrite);
    REQUIRE(c.ok());
    REQUIRE(c->exec("DROP TRIGGER stop;").ok());
    CHECK(*c->query_integer("SELECT COUNT(*) FROM workloads") == 1);
  }
  CHECK(loads_by_key(target.path) == before);
  // A source whose values are hostile (a metrics row with a negative count) is refused whole:
  // the target's runs stay readable.
  {
    TempFile hostile("merge-hostile.db");
    REQUIRE(test::cli({"replay", "--workload", "matmul2d:N=5", "--memory", "4items", "--db", hostile.path}).code == 0);
    auto c = db::Connection::open(hostile.path, db::Connection::Access::ReadWrite);
    REQUIRE(c.ok());
    REQUIRE(c->exec("UPDATE metrics SET loads = -5;").ok());
    const auto refused_hostile = test::cli({"db", "merge", target.path, hostile.path});
    CHECK(refused_hostile.code == 2);
    CHECK_THAT(refused_hostile.err, Catch::Contains(hostile.path) && Catch::Contains("metrics.loads is -5"));
    CHECK(loads_by_key(target.path) == before);
  }
  // Another schema version is refused, and the target is untouched.
  REQUIRE(test::cli({"replay", "--workload", "matmul2d:N=4", "--memory", "4items", "--db", older.path}).code == 0);
  {
    auto c = db::Connection::open(older.path, db::Connection::Access::ReadWrite);
    REQUIRE(c.ok());
    REQUIRE(c->exec("PRAGMA user_version = " + std::to_string(db::kSchemaVersion - 1)).ok());
  }
  const auto refused = test::cli({"db", "merge", target.path, older.path});
  CHECK(refused.code == 2);
  CHECK_THAT(refused.err, Catch::Contains("schema version " + std::to_string(db::kSchemaVersion - 1)));
  CHECK(loads_by_key(target.path) == before);
  // Bad use is named.
  CHECK(test::cli({"db", "merge", target.path}).code == 2);
  CHECK_THAT(test::cli({"db", "merge", target.path, target.path}).err, Catch::Contains("both the output and an input"));
  // And the good merge then goes through.
  REQUIRE(test::cli({"db", "merge", target.path, source.path}).code == 0);
  const auto count = [](const std::string& path) { return db::Store::open(path, db::Store::OpenMode::ReadOnly)->list_runs()->size(); };
  CHECK(count(target.path) == 1 + count(source.path));  // the target's own run stays outside the source's sweep
}

// Each input refused for what it holds, however it merges: the output stays byte for byte as it
// was, even with good inputs before and after the bad one.
TEST_CASE("a merge with any bad input leaves the output byte for byte unchanged", "[cluster][db]") {
  TempFile good("merge-bytes-good.db"), later("merge-bytes-later.db"), target("merge-bytes-target.db");
  REQUIRE(test::cli({"replay", "--workload", "matmul2d:N=4", "--memory", "4items", "--db", good.path}).code == 0);
  REQUIRE(test::cli({"replay", "--workload", "matmul2d:N=6", "--memory", "4items", "--db", later.path}).code == 0);
  REQUIRE(test::cli({"replay", "--workload", "cholesky:N=4", "--memory", "6items", "--db", target.path}).code == 0);
  const std::string before = file_text(target.path);
  REQUIRE(!before.empty());
  const std::vector<std::pair<std::string, std::string>> damages = {
      {"UPDATE metrics SET loads = 'many'", "metrics.loads"},
      {"UPDATE metrics SET makespan_ns = '12 ms'", "metrics.makespan_ns"},
      {"UPDATE loads SET data_id = 9999 WHERE seq = 0", "data_id 9999"},
      {"UPDATE task_executions SET task_id = 777 WHERE global_order = 0", "task_id 777"},
      {"UPDATE gpu_metrics SET busy_ns = -1", "busy_ns"},
      {"PRAGMA ignore_check_constraints = 1; UPDATE runs SET status = 'weird'", "weird"},
      {"UPDATE accesses SET data_id = 4242 WHERE task_id = 0 AND position = 0", "data_id 4242"},
      // Every type a trace's column may not hold: a real, a text in a nullable column, a blob.
      {"UPDATE loads SET bytes = 1.5 WHERE seq = 0", "bytes holds real 1.5"},
      {"UPDATE loads SET task_id = 'first' WHERE seq = 0", "task_id holds text 'first'"},
      {"UPDATE evictions SET time_ns = x'00ff' WHERE seq = 0", "time_ns holds blob X'00FF'"},
      // Records of no run: the run gone, or a key that names none (text sorts above numbers).
      {"DELETE FROM runs", "run_id 1 names no run"},
      {"UPDATE loads SET run_id = 'x' WHERE seq = 0", "run_id holds text 'x'"},
      {"UPDATE loads SET run_id = 1.5 WHERE seq = 0", "run_id holds real 1.5"},
      {"UPDATE evictions SET run_id = -3 WHERE seq = 0", "run_id -3 names no run"},
  };
  for (const auto& [sql, named] : damages) {
    INFO(sql);
    TempFile bad("merge-bytes-bad.db");
    REQUIRE(test::cli({"replay", "--workload", "matmul2d:N=5", "--memory", "4items", "--db", bad.path}).code == 0);
    {
      auto c = db::Connection::open(bad.path, db::Connection::Access::ReadWrite);
      REQUIRE(c.ok());
      REQUIRE(c->exec(sql).ok());
    }
    const auto merged = test::cli({"db", "merge", target.path, good.path, bad.path, later.path});
    CHECK(merged.code == 2);
    CHECK_THAT(merged.err, Catch::Contains(bad.path) && Catch::Contains(named) && Catch::Contains("nothing was merged"));
    CHECK(file_text(target.path) == before);
  }
  // An output that did not exist is not left behind, empty, nor the file it was being built in;
  // and more than ten inputs (SQLite's attach limit, one transaction each ten into an existing
  // file) still merge whole or not at all into a new one.
  const TempFile fresh_file("merge-bytes-fresh.db");
  const std::string& fresh = fresh_file.path;
  const auto staging_left = [&] {
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(fresh).parent_path())) {
      if (entry.path().filename().string().starts_with("." + std::filesystem::path(fresh).filename().string())) return true;
    }
    return false;
  };
  TempFile bad("merge-bytes-bad2.db");
  REQUIRE(test::cli({"replay", "--workload", "matmul2d:N=5", "--memory", "4items", "--db", bad.path}).code == 0);
  REQUIRE(db::Connection::open(bad.path, db::Connection::Access::ReadWrite)->exec("UPDATE metrics SET loads = 'x'").ok());
  CHECK(test::cli({"db", "merge", fresh, good.path, bad.path}).code == 2);
  CHECK_FALSE(std::filesystem::exists(fresh));
  CHECK_FALSE(staging_left());
  std::vector<std::unique_ptr<TempFile>> copies;
  std::vector<std::string> eleven;
  for (int i = 0; i < 10; ++i) {
    copies.push_back(std::make_unique<TempFile>("merge-bytes-copy-" + std::to_string(i) + ".db"));
    std::filesystem::copy_file(good.path, copies.back()->path, std::filesystem::copy_options::overwrite_existing);
    eleven.push_back(copies.back()->path);
  }
  eleven.push_back(bad.path);
  std::vector<std::string> args = {"db", "merge", fresh};
  args.insert(args.end(), eleven.begin(), eleven.end());
  const auto many = test::cli(args);
  CHECK(many.code == 2);
  CHECK_THAT(many.err, Catch::Contains(bad.path) && Catch::Contains("was not created"));
  CHECK_FALSE(std::filesystem::exists(fresh));
  CHECK_FALSE(staging_left());
  eleven.back() = later.path;
  args = {"db", "merge", fresh};
  args.insert(args.end(), eleven.begin(), eleven.end());
  const auto whole = test::cli(args);
  REQUIRE(whole.code == 0);
  CHECK(loads_by_key(fresh).size() == loads_by_key(good.path).size() + loads_by_key(later.path).size());
  // A file named twice, under any name, merges once; the output under another name is refused.
  std::filesystem::remove(fresh);
  const std::string alias = temp_path("merge-bytes-alias.db");
  std::filesystem::remove(alias);
  std::filesystem::create_symlink(good.path, alias);
  const auto twice = test::cli({"db", "merge", fresh, good.path, alias, good.path});
  CHECK(twice.code == 0);
  CHECK_THAT(twice.out, Catch::Contains("1 runs added, 0 skipped"));
  const auto self = test::cli({"db", "merge", alias, good.path});
  CHECK(self.code == 2);
  CHECK_THAT(self.err, Catch::Contains("it is the output"));
  std::filesystem::remove(alias);
  CHECK_FALSE(staging_left());
  std::filesystem::remove(fresh);
  // A missing input is named as such, and no empty file is left under its name (nor the output).
  const std::string missing = temp_path("merge-bytes-missing.db");
  std::filesystem::remove(missing);
  const auto absent = test::cli({"db", "merge", target.path, good.path, missing});
  CHECK(absent.code == 2);
  CHECK_THAT(absent.err, Catch::Contains(missing + ": no such file"));
  CHECK_FALSE(std::filesystem::exists(missing));
  CHECK(file_text(target.path) == before);
  CHECK(test::cli({"db", "merge", fresh, missing}).code == 2);
  CHECK_FALSE(std::filesystem::exists(missing));
  CHECK_FALSE(std::filesystem::exists(fresh));
}

TEST_CASE("several inputs: all checked first, on other threads, then merged in order in one transaction", "[cluster][db]") {
  TempFile first("merge-all-1.db"), damaged("merge-all-2.db"), last("merge-all-3.db"), target("merge-all-target.db");
  REQUIRE(test::cli({"replay", "--workload", "matmul2d:N=4", "--memory", "4items", "--db", first.path}).code == 0);
  REQUIRE(test::cli({"replay", "--workload", "matmul2d:N=5", "--memory", "4items", "--db", last.path}).code == 0);
  {
    std::ofstream garbage(damaged.path, std::ios::binary);
    garbage << "SQLite format 3" << std::string(4096, '\x7f');
  }
  const auto merged = test::cli({"db", "merge", target.path, first.path, damaged.path, last.path});
  CHECK(merged.code == 2);
  CHECK_THAT(merged.err, Catch::Contains(damaged.path) && Catch::Contains("nothing was merged"));
  CHECK_THAT(merged.out, !Catch::Contains(first.path) && !Catch::Contains(last.path));
  CHECK_FALSE(std::filesystem::exists(target.path));  // it did not exist: not left behind, empty
  REQUIRE(test::cli({"db", "merge", target.path, first.path}).code == 0);
  CHECK(loads_by_key(target.path) == loads_by_key(first.path));
  // Without the damaged file, every input goes in, in order, and the totals add up.
  auto store = db::Store::open(target.path);
  REQUIRE(store.ok());
  std::vector<std::string> heard;
  auto total = store->merge_all({first.path, last.path}, [&](const std::string& path, const db::Store::MergeReport&) { heard.push_back(path); });
  REQUIRE(total.ok());
  CHECK(heard == std::vector<std::string>{first.path, last.path});
  CHECK(total->runs_added == 1);  // the first file's run is there already
  CHECK(total->runs_skipped == 1);
  CHECK(store->list_runs()->size() == 2);
}
