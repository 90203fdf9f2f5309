// The exact optimum (schedulers/optimum_search.hpp) against exhaustive enumeration: every order
// (every topological order, with dependencies), Belady on each, on random instances of at most 8
// tasks; against the heuristics and the lower bound on the seed workloads; with and without the
// 2D product's symmetry; and as a run, through the engine and the command line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "analysis/bounds.hpp"
#include "helpers.hpp"
#include "schedulers/optimum_ilp.hpp"
#include "schedulers/optimum_search.hpp"
#include "util/rng.hpp"

using namespace tilelens;

namespace {

// The searches here stop at their state count, never at the wall clock: a sanitized build or a
// busy machine must give the same verdict (the default 10 s let the optimum scheduler serve an
// unproven order under AddressSanitizer while the direct search, run first, proved 17 loads).
const OptimumLimits kUntimed{.seconds = 1e9};
constexpr const char* kUntimedOptimum = "optimum:time_limit=1e9";

// Random tasks of 1 to 3 equal data among 3 to 7, and, half the time, random dependencies
// from earlier to later tasks.
Workload random_workload(Rng& rng, bool with_dependencies) {
  const int data_count = 3 + static_cast<int>(rng.below(5));
  const int task_count = 2 + static_cast<int>(rng.below(7));  // 2..8
  WorkloadBuilder builder("random");
  const KindId kind = builder.kind("K");
  for (int d = 0; d < data_count; ++d) builder.add_data({"d" + std::to_string(d), 100, 'D', d, 0});
  for (int t = 0; t < task_count; ++t) {
    const int inputs = 1 + static_cast<int>(rng.below(3));
    std::vector<Access> accesses;
    while (static_cast<int>(accesses.size()) < std::min(inputs, data_count)) {
      const auto d = static_cast<DataId>(rng.below(static_cast<std::uint64_t>(data_count)));
      if (std::none_of(accesses.begin(), accesses.end(), [&](const Access& a) { return a.data == d; })) {
        accesses.push_back({d, rng.below(4) == 0 ? AccessMode::ReadWrite : AccessMode::Read});
      }
    }
    builder.add_task(kind, accesses, 100);
  }
  if (with_dependencies) {
    for (int t = 1; t < task_count; ++t) {
      if (rng.below(2) == 0) builder.add_dependency(static_cast<TaskId>(rng.below(static_cast<std::uint64_t>(t))), static_cast<TaskId>(t));
    }
  }
  auto w = std::move(builder).finish();
  REQUIRE(w.ok());
  return std::move(*w);
}

// The complete bipartite instance of a rows x cols product (matmul2d's shape), in random task
// order: the search's symmetry applies to it.
Workload product_workload(int rows, int cols, Rng& rng) {
  WorkloadBuilder builder("product");
  const KindId kind = builder.kind("GEMM");
  for (int d = 0; d < rows + cols; ++d) builder.add_data({"d" + std::to_string(d), 100, d < rows ? 'A' : 'B', d, 0});
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) pairs.emplace_back(i, j);
  }
  rng.shuffle(pairs);
  for (const auto& [i, j] : pairs) {
    const std::vector<Access> accesses = {{static_cast<DataId>(i), AccessMode::Read}, {static_cast<DataId>(rows + j), AccessMode::Read}};
    builder.add_task(kind, accesses, 100);
  }
  auto w = std::move(builder).finish();
  REQUIRE(w.ok());
  return std::move(*w);
}

int widest_task(const Workload& w) {
  std::size_t widest = 1;
  for (TaskId t = 0; t < w.task_count(); ++t) widest = std::max(widest, w.accesses(t).size());
  return static_cast<int>(widest);
}

// The least Belady loads over every order the dependencies allow.
std::uint64_t enumerated_optimum(const OptimumProblem& p) {
  std::vector<TaskId> order(p.tasks);
  std::iota(order.begin(), order.end(), 0u);
  std::uint64_t best = UINT64_MAX;
  do {
    std::uint64_t done = 0;
    bool valid = true;
    for (TaskId t : order) {
      valid = valid && (p.preds[t] & ~done) == 0;
      done |= 1ull << t;
    }
    if (valid) best = std::min(best, belady_loads(p, order));
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

std::uint64_t engine_loads(const Workload& w, const std::vector<TaskId>& order, int memory_items) {
  ExplicitOrderScheduler scheduler(order);
  return test::run_replay(w, scheduler, "belady", test::small_platform(memory_items * 100.0), 1, "fgcs").summary.loads;
}

}  // namespace

TEST_CASE("the exact optimum equals exhaustive enumeration on 250 random instances of at most 8 tasks", "[optimum]") {
  Rng rng(36);
  int with_dependencies = 0, above_greedy = 0;  // instances where the greedy start was not optimal
  for (int instance = 0; instance < 250; ++instance) {
    const bool dependencies = instance % 2 == 1;
    const Workload w = random_workload(rng, dependencies);
    const int memory = widest_task(w) + static_cast<int>(rng.below(3));
    auto problem = optimum_problem(w, test::small_platform(memory * 100.0));
    REQUIRE(problem.ok());
    INFO("instance " << instance << ": " << w.task_count() << " tasks, " << w.data_count() << " data, M=" << memory);
    const OptimumResult found = solve_optimum(*problem, kUntimed);
    REQUIRE(found.proven);
    CHECK(found.loads == enumerated_optimum(*problem));
    CHECK(found.lower_bound == found.loads);
    // The order is a valid one whose Belady loads are what the search says, in the engine too.
    CHECK(belady_loads(*problem, found.schedule) == found.loads);
    CHECK(engine_loads(w, found.schedule.order, memory) == found.loads);
    with_dependencies += w.has_dependencies() ? 1 : 0;
    above_greedy += found.greedy_loads > found.loads ? 1 : 0;
  }
  CHECK(with_dependencies > 50);
  CHECK(above_greedy > 10);  // the search beat its starting order, not only confirmed it
}

// The least Belady loads over every order and every assignment to two GPUs.
std::uint64_t enumerated_two_gpu_optimum(const OptimumProblem& p) {
  std::vector<TaskId> order(p.tasks);
  std::iota(order.begin(), order.end(), 0u);
  std::uint64_t best = UINT64_MAX;
  do {
    for (std::uint32_t mask = 0; mask < (1u << p.tasks); ++mask) {
      OptimumSchedule schedule{order, {}};
      for (std::uint32_t k = 0; k < p.tasks; ++k) schedule.gpu.push_back((mask >> k) & 1u);
      best = std::min(best, belady_loads(p, schedule));
    }
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

TEST_CASE("on two GPUs the optimum equals enumeration over orders and assignments, and the engine agrees", "[optimum]") {
  Rng rng(22);
  int split = 0;
  for (int instance = 0; instance < 60; ++instance) {
    WorkloadBuilder builder("two");
    const KindId kind = builder.kind("K");
    const int data_count = 3 + static_cast<int>(rng.below(4));
    for (int d = 0; d < data_count; ++d) builder.add_data({"d" + std::to_string(d), 100, 'D', d, 0});
    const int task_count = 2 + static_cast<int>(rng.below(5));  // 2..6
    for (int t = 0; t < task_count; ++t) {
      std::vector<Access> accesses;
      const int inputs = 1 + static_cast<int>(rng.below(2));
      while (static_cast<int>(accesses.size()) < inputs) {
        const auto d = static_cast<DataId>(rng.below(static_cast<std::uint64_t>(data_count)));
        if (std::none_of(accesses.begin(), accesses.end(), [&](const Access& a) { return a.data == d; })) accesses.push_back({d, AccessMode::Read});
      }
      builder.add_task(kind, accesses, 100);
    }
    auto w = std::move(builder).finish();
    REQUIRE(w.ok());
    const int memory = 2 + static_cast<int>(rng.below(2));
    const Platform two = test::small_platform(memory * 100.0, 2);
    auto problem = optimum_problem(*w, two);
    REQUIRE(problem.ok());
    INFO("instance " << instance << ": " << w->task_count() << " tasks, " << w->data_count() << " data, M=" << memory);
    const OptimumResult found = solve_optimum(*problem, kUntimed);
    REQUIRE(found.proven);
    CHECK(found.loads == enumerated_two_gpu_optimum(*problem));
    CHECK(test::run_replay(*w, kUntimedOptimum, "belady", two, 1, "fgcs").summary.loads == found.loads);
    const OptimumResult one = solve_optimum(*optimum_problem(*w, test::small_platform(memory * 100.0)), kUntimed);
    CHECK(found.loads <= one.loads);  // one GPU left idle is a two-GPU schedule too
    split += std::set<std::uint32_t>(found.schedule.gpu.begin(), found.schedule.gpu.end()).size() > 1 ? 1 : 0;
  }
  CHECK(split > 5);  // some optima use both GPUs
}

TEST_CASE("Belady's loads on an order equal the exhaustive minimum over eviction choices", "[optimum]") {
  Rng rng(4);
  for (int instance = 0; instance < 200; ++instance) {
    const Workload w = random_workload(rng, false);
    const int memory = widest_task(w) + static_cast<int>(rng.below(3));
    auto problem = optimum_problem(w, test::small_platform(memory * 100.0));
    REQUIRE(problem.ok());
    std::vector<TaskId> order(w.task_count());
    std::iota(order.begin(), order.end(), 0u);
    rng.shuffle(order);
    CHECK(belady_loads(*problem, order) == test::exhaustive_minimum_loads(w, order, memory));
  }
}

TEST_CASE("the 2D product's symmetry changes no optimum, only the states searched", "[optimum]") {
  Rng rng(2);
  for (int instance = 0; instance < 40; ++instance) {
    const int rows = 2 + static_cast<int>(rng.below(3)), cols = 2 + static_cast<int>(rng.below(3));
    const Workload w = product_workload(rows, cols, rng);
    const int memory = 2 + static_cast<int>(rng.below(3));
    auto problem = optimum_problem(w, test::small_platform(memory * 100.0));
    REQUIRE(problem.ok());
    INFO(rows << " x " << cols << ", M=" << memory);
    OptimumLimits plain = kUntimed;
    plain.symmetry = false;
    const OptimumResult with = solve_optimum(*problem, kUntimed), without = solve_optimum(*problem, plain);
    REQUIRE(with.proven);
    REQUIRE(without.proven);
    CHECK(with.symmetric);
    CHECK_FALSE(without.symmetric);
    CHECK(with.loads == without.loads);
    CHECK(belady_loads(*problem, with.schedule) == with.loads);
    if (rows * cols <= 8) CHECK(with.loads == enumerated_optimum(*problem));
  }
}

TEST_CASE("the integer program CBC solves agrees with the search on 40 tiny instances", "[optimum]") {
  Rng rng(9);
  int loads_seen = 0;
  for (int instance = 0; instance < 40; ++instance) {
    const Workload w = random_workload(rng, instance % 2 == 1);
    const int memory = widest_task(w) + static_cast<int>(rng.below(2));
    auto problem = optimum_problem(w, test::small_platform(memory * 100.0));
    REQUIRE(problem.ok());
    if (problem->tasks > 6) continue;  // CBC's program grows as tasks squared
    INFO("instance " << instance << ": " << w.task_count() << " tasks, M=" << memory);
    const OptimumIlpResult ilp = solve_optimum_ilp(*problem, 60);
    REQUIRE(ilp.error.empty());
    REQUIRE(ilp.proven);
    CHECK(std::llround(ilp.loads) == static_cast<long long>(solve_optimum(*problem, kUntimed).loads));
    loads_seen += ilp.loads > 0 ? 1 : 0;
  }
  CHECK(loads_seen > 10);
}

TEST_CASE("fgcs Fig. 4: the 2D product of N = 4 in 4 tiles needs 10 loads, and no fewer", "[optimum]") {
  const Workload w = test::generated("matmul2d:N=4");
  auto problem = optimum_problem(w, test::small_platform(4.0 * static_cast<double>(w.largest_data_bytes())));
  REQUIRE(problem.ok());
  const OptimumResult found = solve_optimum(*problem, kUntimed);
  CHECK(found.proven);
  CHECK(found.loads == 10);
  CHECK(found.symmetric);
}

TEST_CASE("the optimum lies between the lower bound and every heuristic's loads", "[optimum]") {
  for (const char* spec : {"matmul2d:N=3", "matmul2d:N=5", "matmul2d-random-pairs:N=4", "cholesky-tasks:N=3", "cholesky:N=3", "matmul3d:N=2"}) {
    const Workload w = test::generated(spec);
    for (int items : {3, 4, 6}) {
      const Platform platform = test::small_platform(items * static_cast<double>(w.largest_data_bytes()));
      auto problem = optimum_problem(w, platform);
      if (!problem) continue;  // a memory below one task's data
      INFO(spec << " M=" << items);
      const OptimumResult found = solve_optimum(*problem, kUntimed);
      REQUIRE(found.proven);
      const test::Run optimum = test::run_replay(w, kUntimedOptimum, "belady", platform, 1, "fgcs");
      CHECK(optimum.summary.loads == found.loads);
      const ReferenceCurves curves = reference_curves(w, platform);
      CHECK(static_cast<double>(found.loads) * static_cast<double>(w.largest_data_bytes()) >= curves.lower_bound_bytes - 1);
      for (const char* heuristic : {"eager", "hfp", "rcm", "mst", "random:seed=1"}) {
        const test::Run run = test::run_replay(w, heuristic, "belady", platform, 1, "fgcs");
        INFO(heuristic);
        CHECK(run.summary.loads >= found.loads);
      }
    }
  }
}

TEST_CASE("the optimum refuses what it does not search, naming why", "[optimum]") {
  const Workload w = test::generated("matmul2d:N=4");
  const double tile = static_cast<double>(w.largest_data_bytes());
  CHECK_THAT(optimum_problem(w, test::small_platform(4 * tile, 3)).error().message, Catch::Contains("one or two GPUs"));
  auto writes = optimum_problem(test::generated("cholesky:N=3"), test::small_platform(6 * tile, 2));
  REQUIRE_FALSE(writes.ok());
  CHECK_THAT(writes.error().message, Catch::Contains("tasks that only read"));
  CHECK_THAT(optimum_problem(w, test::small_platform(1 * tile)).error().message, Catch::Contains("cannot hold one task's 2 data"));
  CHECK_THAT(optimum_problem(test::generated("matmul2d:N=9"), test::small_platform(4 * tile)).error().message,
             Catch::Contains("at most 64 tasks"));
  const auto cli = test::cli({"replay", "--workload", "matmul2d:N=3", "--memory", "4items", "--scheduler", "optimum"});
  CHECK(cli.code == 2);
  CHECK_THAT(cli.err, Catch::Contains("--eviction: must be belady"));
}

TEST_CASE("tilelens optimum prints the proven optimum as JSON and stores it as a run", "[optimum][cli]") {
  test::TempFile db("optimum.db");
  const auto run = test::cli({"optimum", "--workload", "matmul2d:N=4", "--memory", "4items", "--json", "--db", db.path});
  REQUIRE(run.code == 0);
  CHECK_THAT(run.out, Catch::Contains("\"loads\":10,\"lower_bound\":10,\"proven\":true,\"gap\":0.000000"));
  CHECK_THAT(run.out, Catch::Contains("\"order\":["));
  const auto shown = test::cli({"runs", "show", "1", "--db", db.path});
  REQUIRE(shown.code == 0);
  CHECK_THAT(shown.out, Catch::Contains("optimum"));
  CHECK_THAT(shown.out, Catch::Contains("optimum_proven"));
  const auto limited = test::cli({"optimum", "--workload", "matmul2d:N=8", "--memory", "4items", "--time-limit", "0.2", "--json"});
  REQUIRE(limited.code == 0);
  CHECK_THAT(limited.out, Catch::Contains("\"proven\":false"));
}
