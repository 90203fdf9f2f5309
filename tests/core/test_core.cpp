// The core API both front ends call: sweep grids (ranges, flags), the sweep runner's progress
// and cancel, and replaying a stored run again.
#include <catch2/catch.hpp>
#include <atomic>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/platform_choice.hpp"
#include "core/replay_request.hpp"
#include "core/runs.hpp"
#include "core/sweep.hpp"
#include "helpers.hpp"
#include "db/store.hpp"

using namespace tilelens;
using namespace tilelens::test;

TEST_CASE("a sweep's ranges expand by count, also at the ends of int64", "[core][sweep]") {
  core::SweepGrid grid;
  grid.workloads = "matmul2d:N=4";
  grid.schedulers = "random";  // seeded: each seed is a run
  const std::int64_t top = std::numeric_limits<std::int64_t>::max();
  grid.seeds = std::to_string(top - 7) + ".." + std::to_string(top) + ":5";
  auto jobs = core::expand_grid(grid);
  REQUIRE(jobs);
  REQUIRE(jobs->size() == 2);  // top - 7 and top - 2: no wrap past the end
  CHECK_THAT(jobs->back().label, Catch::Contains(std::to_string(top - 2)));
  grid.seeds = std::to_string(std::numeric_limits<std::int64_t>::min()) + ".." + std::to_string(top);
  auto huge = core::expand_grid(grid);
  REQUIRE_FALSE(huge);
  CHECK_THAT(huge.error().message, Catch::Contains("more than"));
}

TEST_CASE("a sweep's flags take 1 or 0, and nothing else", "[core][sweep]") {
  core::SweepGrid grid;
  REQUIRE(core::set_sweep_option(grid, "metrics-only", "1"));
  CHECK(grid.metrics_only);
  REQUIRE(core::set_sweep_option(grid, "metrics-only", "0"));
  CHECK_FALSE(grid.metrics_only);
  REQUIRE(core::set_sweep_option(grid, "charge-scheduling", "1"));
  CHECK(grid.charge_scheduling);
  const auto bad = core::set_sweep_option(grid, "charge-scheduling", "yes");
  REQUIRE_FALSE(bad);
  // Core names the field, not a flag: each front end words it (the CLI as --charge-scheduling).
  CHECK(bad.error().field == "charge-scheduling");
  CHECK_THAT(bad.error().message, Catch::Contains("1 or 0") && !Catch::Contains("--"));
}

TEST_CASE("a sweep entry splits SCHEDULER/EVICTION where a policy follows, so paths keep their slashes", "[core][sweep]") {
  const auto split = [](const std::string& text) {
    const core::PolicyEntry entry = core::parse_policy_entry(text);
    return entry.scheduler + " | " + entry.eviction.value_or("-");
  };
  CHECK(split("eager") == "eager | -");
  CHECK(split("hfp/belady") == "hfp | belady");
  CHECK(split("dmdar:estimate=starpu/lru") == "dmdar:estimate=starpu | lru");
  // A schedule file's path, absolute or relative, with or without a policy after it.
  CHECK(split("fixed:file=/runs/order.csv/belady") == "fixed:file=/runs/order.csv | belady");
  CHECK(split("fixed:file=/runs/order.csv,prefetch=1/lru") == "fixed:file=/runs/order.csv,prefetch=1 | lru");
  CHECK(split("fixed:file=/runs/order.csv") == "fixed:file=/runs/order.csv | -");
  CHECK(split("fixed:file=./order.csv") == "fixed:file=./order.csv | -");
  // Plugins keep their paths on either side.
  CHECK(split("./libmine.so/lru") == "./libmine.so | lru");
  CHECK(split("hfp//opt/libvictim.so") == "hfp | /opt/libvictim.so");
  CHECK(split("/opt/lib/libmine.so") == "/opt/lib/libmine.so | -");
  // A mistyped policy after a bare scheduler name is still the eviction, to be named unknown.
  CHECK(split("eager/lruu") == "eager | lruu");
  CHECK(split("hfp/belady+time") == "hfp | belady");
  CHECK(core::parse_policy_entry("hfp/belady+time").charged);
}

TEST_CASE("an exception from the progress callback stops the sweep without terminating", "[core][sweep]") {
  TempFile db("core-sweep-throw.db");
  core::SweepGrid grid;
  grid.workloads = "matmul2d:N=3..8";
  grid.memories = "4items";
  core::SweepOptions options;
  options.database = db.path;
  options.threads = 2;
  int calls = 0;
  options.on_progress = [&](const core::SweepProgress&) {
    if (++calls == 2) throw std::runtime_error("stop here");
  };
  CHECK_THROWS_WITH(core::run_sweep(grid, options), "stop here");
  // The runs stored before the exception are complete, and a rerun resumes from them.
  options.on_progress = nullptr;
  auto resumed = core::run_sweep(grid, options);
  REQUIRE(resumed);
  CHECK(resumed->skipped == 2);
  CHECK(resumed->stored == 4);
}

TEST_CASE("replaying a stored run again keeps its policies, depth and charged scheduling time", "[core]") {
  TempFile db("core-replay-again.db");
  core::ReplayRequest request;
  request.workload = "matmul2d:N=5";
  request.scheduler = "hfp";
  request.eviction = "belady";
  request.buffer_depth = 2;
  request.charge_scheduling = true;
  REQUIRE(core::find_platform_option("memory")->set("6items", request.platform));
  auto outcome = core::run_replay(request, core::stored_in(db.path));
  REQUIRE(outcome);
  REQUIRE(outcome->info.id > 0);
  auto store = db::Store::open(db.path);
  REQUIRE(store);
  auto loaded = core::load_run(*store, outcome->info.id);
  REQUIRE(loaded);
  REQUIRE(charged_scheduling(loaded->run.info));
  auto again = core::replay_again(loaded->run, loaded->workload, loaded->run.info.platform);
  REQUIRE(again);
  CHECK(charged_scheduling(again->run.info));
  CHECK(again->run.info.buffer_depth == 2);
  CHECK(again->run.info.scheduler == loaded->run.info.scheduler);
  CHECK(again->run.metrics->summary.loads == loaded->run.metrics->summary.loads);
}

TEST_CASE("a replay cancelled from another thread stops and stores nothing", "[core]") {
  TempFile db_file("cancelled.db");
  core::ReplayRequest request;
  request.workload = "matmul2d:N=30";
  request.scheduler = "dmdar";
  std::atomic<bool> cancel{true};  // already set: it stops at its first event
  core::RunOutputs outputs = core::stored_in(db_file.path);
  outputs.cancel = &cancel;
  auto outcome = core::run_replay(request, outputs);
  REQUIRE(outcome.ok());
  CHECK(outcome->cancelled);
  CHECK(outcome->error == kCancelled);
  auto store = db::Store::open(db_file.path, db::Store::OpenMode::ReadOnly);
  REQUIRE(store.ok());
  CHECK(store->list_runs()->empty());
  // Unset, the same request runs and is stored.
  cancel = false;
  auto complete = core::run_replay(request, outputs);
  REQUIRE(complete.ok());
  CHECK_FALSE(complete->cancelled);
  CHECK(complete->error.empty());
  CHECK(store->list_runs()->size() == 1);
}
