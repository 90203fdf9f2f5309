// Scheduling costs (runtime/scheduling_cost.hpp, docs/replay.md "Scheduling cost"): the spec, the
// fit, what a charged push and pop do to the simulated clock, the tasks the schedulers report
// scanning, and the decisions an imported StarPU trace yields.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "formats/starpu_import.hpp"
#include "helpers.hpp"
#include "runtime/memory_model.hpp"
#include "runtime/scheduling_cost.hpp"

using namespace tilelens;
using test::generated;
using test::small_platform;

namespace {

test::Run replay_costing(const Workload& w, const std::string& scheduler, const Platform& p, std::uint32_t depth,
                         const std::string& cost, const std::string& model = "fgcs") {
  return test::run_replay(w, scheduler, "lru", p, depth, model, cost);
}

// n tasks, each reading and writing the one data: a chain, each task released by the previous.
Workload chain(std::size_t n) {
  WorkloadBuilder builder("chain");
  const KindId k = builder.kind("K");
  const DataId x = builder.add_data({"x", 1000, 'A', 0, 0});
  const Access rw{x, AccessMode::ReadWrite};
  for (std::size_t i = 0; i < n; ++i) builder.add_task(k, std::span<const Access>(&rw, 1), 1000);
  builder.derive_data_dependencies();
  auto w = std::move(builder).finish();
  REQUIRE(w.ok());
  return std::move(*w);
}

}  // namespace

TEST_CASE("scheduling cost specs: every key named, canonical, errors naming the key", "[scheduling-cost]") {
  auto cost = parse_scheduling_cost("push=2us,pop=1.5us,pop_per_task=4.5ns");
  REQUIRE(cost.ok());
  CHECK(cost->push_ns == 2000);
  CHECK(cost->pop_ns == 1500);
  CHECK(cost->pop_per_task_ns == 4.5);
  CHECK(cost->push_per_task_ns == 0);
  CHECK(cost->charged());
  CHECK(cost->canonical() == "pop=1500ns,pop_per_task=4.5ns,push=2000ns,push_per_task=0ns");
  auto again = parse_scheduling_cost(cost->canonical());
  REQUIRE(again.ok());
  CHECK(again->canonical() == cost->canonical());
  CHECK(cost->pop_cost(3) == 1514);  // 1500 + 13.5, rounded to the nanosecond
  CHECK(cost->push_cost(10) == 2000);
  for (const std::string none : {"", "0", "none", "pop=0"}) {
    auto free = parse_scheduling_cost(none);
    REQUIRE(free.ok());
    CHECK(!free->charged());
    CHECK(free->canonical().empty());
  }
  auto unknown = parse_scheduling_cost("pull=1us");
  REQUIRE(!unknown.ok());
  CHECK_THAT(unknown.error().message, Catch::Contains("pull") && Catch::Contains("pop_per_task"));
  auto unitless = parse_scheduling_cost("pop=3");
  REQUIRE(!unitless.ok());
  CHECK_THAT(unitless.error().message, Catch::Contains("pop") && Catch::Contains("unit"));
  CHECK(!parse_scheduling_cost("push=-1us").ok());
}

TEST_CASE("the decision fit recovers a line, and a constant when every decision scanned as many", "[scheduling-cost]") {
  DecisionFitter line;
  for (std::uint64_t x = 0; x < 50; ++x) line.add(x, 100 + 5.0 * static_cast<double>(x));
  line.add_untimed(7);
  const DecisionFit fit = line.fit();
  CHECK(fit.count == 51);
  CHECK(fit.timed == 50);
  CHECK(fit.scanned == 49 * 50 / 2 + 7);
  CHECK(fit.base_ns == Approx(100));
  CHECK(fit.per_task_ns == Approx(5));
  DecisionFitter flat;
  for (double ns : {80.0, 120.0, 100.0}) flat.add(4, ns);
  CHECK(flat.fit().per_task_ns == 0);
  CHECK(flat.fit().base_ns == Approx(100));
  const SchedulingCost cost = cost_from_fits(flat.fit(), fit);
  CHECK(cost.push_ns == Approx(100));
  CHECK(cost.pop_ns == Approx(100));
  CHECK(cost.pop_per_task_ns == Approx(5));
  CHECK(DecisionFitter{}.fit().count == 0);
}

TEST_CASE("no scheduling cost leaves the replay as it was, bit for bit", "[scheduling-cost]") {
  const Workload w = generated("cholesky:N=8,b=32");
  const Platform p = small_platform(static_cast<double>(w.largest_data_bytes()) * 7, 2);
  for (const std::string scheduler : {"eager", "dmdar", "hfp", "darts"}) {
    INFO(scheduler);
    const auto plain = test::run_replay(w, scheduler, "lru", p, 4);
    const auto zero = replay_costing(w, scheduler, p, 4, "pop=0ns", "starpu");
    CHECK(test::trace_text(plain.trace) == test::trace_text(zero.trace));
    CHECK(zero.summary.decisions_charged_ns == 0);
    CHECK(zero.summary.pop_decisions.count == w.task_count());
    CHECK(zero.summary.push_decisions.count == w.task_count());
  }
}

TEST_CASE("a charged pop delays the task it hands out by its cost, and the worker decides one thing at a time", "[scheduling-cost]") {
  // One GPU, no prefetch window, the fgcs model: each pop is on the critical path, so every
  // task starts exactly one pop cost later than the one before it would have.
  const Workload w = generated("matmul2d:N=4,b=32");
  const Platform p = small_platform(1e12);
  const auto free = replay_costing(w, "eager", p, 1, "");
  const std::int64_t pop = 7000;
  const auto charged = replay_costing(w, "eager", p, 1, "pop=7us");
  REQUIRE(free.trace.tasks.size() == charged.trace.tasks.size());
  CHECK(charged.summary.makespan_ns == free.summary.makespan_ns + pop * static_cast<std::int64_t>(w.task_count()));
  CHECK(charged.summary.decisions_charged_ns == pop * static_cast<std::int64_t>(w.task_count()));
  CHECK(charged.summary.loads == free.summary.loads);
  std::int64_t previous_end = 0;
  for (const TaskRecord& r : charged.trace.tasks) {  // in start order on the one worker
    CHECK(r.buffered_ns == previous_end + pop);
    previous_end = r.end_ns;
  }
  CHECK(test::check_invariants(w, p, charged).empty());
}

TEST_CASE("a charged push keeps the releasing worker busy: a chain pays it once per link", "[scheduling-cost]") {
  const Workload w = chain(6);
  Platform p = small_platform(1e9);
  p.default_gflops = 1;
  const auto free = replay_costing(w, "eager", p, 1, "");
  const auto charged = replay_costing(w, "eager", p, 1, "push=3us");
  // The first task is pushed by the submitter: the worker takes it at once. Each next one is
  // pushed by the worker whose task released it, which pops again only when that push is done.
  CHECK(charged.summary.makespan_ns == free.summary.makespan_ns + 3000 * 5);
  CHECK(charged.summary.decisions_charged_ns == 3000 * 6);
  std::int64_t previous_end = -1;
  for (const TaskRecord& r : charged.trace.tasks) {
    CHECK(r.buffered_ns == (previous_end < 0 ? 0 : previous_end + 3000));
    previous_end = r.end_ns;
  }
}

TEST_CASE("charged decisions are deterministic and every scheduler still runs every task once", "[scheduling-cost]") {
  const Workload w = generated("cholesky:N=8,b=32");
  const Platform p = small_platform(static_cast<double>(w.largest_data_bytes()) * 7, 2);
  for (const std::string scheduler : {"eager", "lws", "dmda", "dmdas", "hfp", "darts", "heteroprio"}) {
    INFO(scheduler);
    const std::string cost = "push=2us,pop=1us,pop_per_task=50ns,push_per_task=20ns";
    const auto a = replay_costing(w, scheduler, p, 4, cost, "starpu");
    const auto b = replay_costing(w, scheduler, p, 4, cost, "starpu");
    CHECK(test::trace_text(a.trace) == test::trace_text(b.trace));
    CHECK(a.summary.tasks == w.task_count());
    CHECK(test::check_invariants(w, p, a).empty());
    CHECK(a.summary.decisions_charged_ns >= 3000 * static_cast<std::int64_t>(w.task_count()));
  }
}

TEST_CASE("the tasks scanned: Ready's index counts what Ready's scan visits, constant-time schedulers none", "[scheduling-cost]") {
  const Workload w = generated("matmul2d:N=10,b=32");
  const Platform p = small_platform(static_cast<double>(w.largest_data_bytes()) * 8, 2);
  const std::string cost = "pop_per_task=1ns";
  const auto indexed = replay_costing(w, "hfp", p, 4, cost, "starpu");
  const auto scanning = replay_costing(w, "hfp:ready_scan=1", p, 4, cost, "starpu");
  CHECK(test::trace_text(indexed.trace) == test::trace_text(scanning.trace));
  CHECK(indexed.summary.pop_decisions.scanned == scanning.summary.pop_decisions.scanned);
  CHECK(indexed.summary.pop_decisions.scanned > w.task_count());
  CHECK(indexed.summary.decisions_charged_ns == static_cast<std::int64_t>(indexed.summary.pop_decisions.scanned));
  const auto eager = replay_costing(w, "eager", p, 4, cost, "starpu");
  CHECK(eager.summary.pop_decisions.scanned == 0);
  CHECK(eager.summary.decisions_charged_ns == 0);
  const auto dmdar = replay_costing(w, "dmdar", p, 4, cost, "starpu");
  CHECK(dmdar.summary.pop_decisions.scanned >= w.task_count());
  const auto darts = replay_costing(w, "darts", p, 4, cost, "starpu");
  CHECK(darts.summary.pop_decisions.scanned > 0);  // fill() weighs each candidate data's ready readers
}

TEST_CASE("an imported StarPU trace gives one decision per push and pop event, timed by its Scheduling states", "[scheduling-cost][starpu]") {
  const std::string dir = std::string(TILELENS_SOURCE_DIR) + "/tests/starpu/fixtures/cholesky/";
  auto imported = import_starpu_files(dir + "tasks.rec", dir + "data.rec", dir + "paje.trace", {"cholesky", std::nullopt});
  REQUIRE(imported.ok());
  // Count the trace's own push and pop events ("9 TIME pu p N", "9 TIME po p N").
  std::ifstream paje(dir + "paje.trace");
  std::string event, time, type;
  std::uint64_t pushes = 0, pops = 0;
  for (std::string line; std::getline(paje, line);) {
    std::istringstream words(line);
    if (!(words >> event >> time >> type) || event != "9") continue;
    pushes += type == "pu";
    pops += type == "po";
  }
  REQUIRE(pushes > 0);
  const ReplaySummary& s = imported->summary;
  CHECK(s.push_decisions.count == pushes);
  CHECK(s.pop_decisions.count == pops);
  // StarPU's decisions take microseconds, not nanoseconds nor milliseconds.
  CHECK(s.push_decisions.base_ns > 100);
  CHECK(s.push_decisions.base_ns < 1e6);
  CHECK(s.pop_decisions.base_ns > 100);
  CHECK(s.pop_decisions.base_ns < 1e6);
  // Without paje.trace there are no decisions to fit.
  auto bare = import_starpu_files(dir + "tasks.rec", dir + "data.rec", "", {"cholesky", std::nullopt});
  REQUIRE(bare.ok());
  CHECK(bare->summary.pop_decisions.count == 0);
}
