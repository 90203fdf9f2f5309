// The executor's numerical side (instrument/numeric.hpp): the kernel plan of each seed
// workload, the reference kernels and the verification, run on the host. A factorization run
// in any order its dependencies allow verifies; one run out of order, or a corrupted tile, fails.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "instrument/numeric.hpp"

using namespace tilelens;
using namespace tilelens::instrument;
using test::generated;

namespace {

// Runs every task once in `order` and verifies the result against the input.
Verdict run_in(const Workload& w, const KernelPlan& plan, const std::vector<TaskId>& order, HostTiles* out = nullptr) {
  const HostTiles input = make_tiles(w, plan, 11);
  HostTiles tiles = input;
  for (TaskId t : order) run_on_host(plan, t, tiles);
  const Verdict verdict = verify(w, plan, input, tiles, 1000, 3);
  if (out) *out = std::move(tiles);
  return verdict;
}

// A valid order other than the submission order: repeatedly the ready task of highest id.
std::vector<TaskId> latest_ready_first(const Workload& w) {
  std::vector<std::uint32_t> missing(w.task_count());
  std::vector<TaskId> ready, order;
  for (TaskId t = 0; t < w.task_count(); ++t) {
    missing[t] = static_cast<std::uint32_t>(w.predecessors(t).size());
    if (missing[t] == 0) ready.push_back(t);
  }
  while (!ready.empty()) {
    const auto it = std::max_element(ready.begin(), ready.end());
    const TaskId t = *it;
    ready.erase(it);
    order.push_back(t);
    for (TaskId s : w.successors(t)) {
      if (--missing[s] == 0) ready.push_back(s);
    }
  }
  return order;
}

}  // namespace

TEST_CASE("a Cholesky factorization verifies by L·Lᵀ in any order its dependencies allow", "[numeric]") {
  const Workload w = generated("cholesky:N=4,b=12");
  const auto plan = plan_kernels(w);
  REQUIRE(plan.ok());
  CHECK(plan->tasks[0].op == Op::Potrf);
  const Verdict natural = run_in(w, *plan, w.submission_order());
  INFO(natural.detail);
  CHECK(natural.ok);
  CHECK(natural.checked == 10);  // every tile of the lower triangle
  CHECK(natural.worst < 1e-5);
  const auto other = latest_ready_first(w);
  REQUIRE(other != w.submission_order());
  CHECK(run_in(w, *plan, other).ok);
  // Out of order (the last task first) the factor is wrong, and verification says where.
  std::vector<TaskId> wrong = w.submission_order();
  std::rotate(wrong.rbegin(), wrong.rbegin() + 1, wrong.rend());
  const Verdict bad = run_in(w, *plan, wrong);
  CHECK_FALSE(bad.ok);
  CHECK_THAT(bad.detail, Catch::Contains("tile (") && Catch::Contains("relative error"));
}

TEST_CASE("an LU factorization without pivoting verifies by L·U, a corrupted tile fails", "[numeric]") {
  const Workload w = generated("lu:N=4,b=10");
  const auto plan = plan_kernels(w);
  REQUIRE(plan.ok());
  std::size_t rows = 0, columns = 0;
  for (const TaskKernel& k : plan->tasks) {
    rows += k.op == Op::TrsmLeftUnitLower;
    columns += k.op == Op::TrsmRightUpper;
  }
  CHECK(rows == 6);
  CHECK(columns == 6);
  HostTiles result;
  CHECK(run_in(w, *plan, w.submission_order(), &result).ok);
  CHECK(run_in(w, *plan, latest_ready_first(w)).ok);
  // Flip one entry of the factor: the tiles that use it no longer match.
  const HostTiles input = make_tiles(w, *plan, 11);
  result.data[5][7] += 0.5f;
  const Verdict bad = verify(w, *plan, input, result, 1000, 3);
  CHECK_FALSE(bad.ok);
}

TEST_CASE("products verify against a reference on sampled tiles, in any order", "[numeric]") {
  for (const std::string spec : {"matmul2d:N=3,n=2,b=8", "matmul2d-random-pairs:N=3,b=8", "matmul3d:N=3,b=8"}) {
    INFO(spec);
    const Workload w = generated(spec);
    const auto plan = plan_kernels(w);
    REQUIRE(plan.ok());
    CHECK(plan->outputs == 9);
    std::vector<TaskId> reversed(w.submission_order().rbegin(), w.submission_order().rend());
    HostTiles result;
    const Verdict verdict = run_in(w, *plan, reversed, &result);
    CHECK(verdict.ok);
    CHECK(verdict.checked == 9);
    // A task left out: its output is wrong.
    std::vector<TaskId> missing(reversed.begin() + 1, reversed.end());
    CHECK_FALSE(run_in(w, *plan, missing).ok);
  }
}

TEST_CASE("the executor refuses workloads whose kernels it does not know, naming them", "[numeric][errors]") {
  WorkloadBuilder builder("imported");
  const KindId kind = builder.kind("FOO");
  const DataId d = builder.add_data({"d", 64});
  const std::array<Access, 1> a{{{d, AccessMode::Read}}};
  builder.add_task(kind, a, 1);
  const auto w = std::move(builder).finish();
  REQUIRE(w.ok());
  const auto plan = plan_kernels(*w);
  REQUIRE_FALSE(plan.ok());
  CHECK_THAT(plan.error().message, Catch::Contains("'imported' has no generator"));
  const auto fp64 = plan_kernels(generated("cholesky:N=3,b=8,elem=8"));
  REQUIRE_FALSE(fp64.ok());
  CHECK_THAT(fp64.error().message, Catch::Contains("fp32"));
}
