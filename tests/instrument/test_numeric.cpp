// The executor's numerical side (instrument/numeric.hpp): the kernel plan of each seed
// workload, the reference kernels and the verification, run on the host. A factorization run
// in any order its dependencies allow verifies; one run out of order, or a corrupted tile, fails.
#include <catch2/catch.hpp>

#include <numeric>

#include "helpers.hpp"
#include "instrument/numeric.hpp"

using namespace tilelens;
using namespace tilelens::instrument;
using test::generated;

namespace {

// Runs every task once in `order` and verifies the result against the input.
template <class T = float>
Verdict run_in(const Workload& w, const KernelPlan& plan, const std::vector<TaskId>& order, Tiles<T>* out = nullptr, std::size_t rows = 0) {
  const Tiles<T> input = make_tiles_as<T>(w, plan, 11);
  Tiles<T> tiles = input;
  for (TaskId t : order) run_on_host(w, plan, t, tiles, 11);
  const Verdict verdict = verify(w, plan, input, tiles, 1000, 3, default_tolerance(plan.precision), rows);
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

TEST_CASE("fp64 plans compute in double: a Cholesky verifies a million times closer than in fp32", "[numeric]") {
  const Workload w = generated("cholesky:N=3,b=8,elem=8");
  const auto plan = plan_kernels(w);
  REQUIRE(plan.ok());
  CHECK(plan->precision == Precision::Double);
  const Verdict in_double = run_in<double>(w, *plan, w.submission_order());
  INFO(in_double.detail);
  CHECK(in_double.ok);
  CHECK(in_double.worst < 1e-13);
  // The same plan on fp32 tiles is off by far more than fp64's tolerance: the check sees it.
  const Verdict in_single = run_in<float>(w, *plan, w.submission_order());
  CHECK_FALSE(in_single.ok);
  CHECK(in_single.worst > 1e-9);
  CHECK_THAT(plan_lines(w, *plan).front(), Catch::StartsWith("fp64 tiles of 8 x 8"));
}

TEST_CASE("an imported task with no known call becomes a wait of its measured duration, or of its flops", "[numeric]") {
  WorkloadBuilder builder("imported");
  const KindId foo = builder.kind("FOO");
  const KindId complex = builder.kind("zgemm");
  const DataId d = builder.add_data({"d", 64});
  const std::array<Access, 1> a{{{d, AccessMode::Read}}};
  builder.add_task(foo, a, 2e6);
  builder.add_task(complex, a, 4e6);
  const auto w = std::move(builder).finish();
  REQUIRE(w.ok());
  PlanOptions options;
  options.wait_gflops = 1000;  // 1 flop per ps: 2e6 flops wait 2 µs
  auto plan = plan_kernels(*w, options);
  REQUIRE(plan.ok());
  CHECK(plan->tasks[0].op == Op::Wait);
  CHECK(plan->tasks[0].wait_ns == 2000);
  CHECK(plan->tasks[1].op == Op::Wait);
  CHECK_FALSE(plan->checkable);
  const auto lines = plan_lines(*w, *plan);
  const std::string all = std::accumulate(lines.begin(), lines.end(), std::string(), [](std::string x, const std::string& l) { return x + l + "\n"; });
  CHECK_THAT(all, Catch::Contains("FOO (1 tasks): a wait") && Catch::Contains("not a BLAS or LAPACK kernel name") &&
                      Catch::Contains("complex kernels are not mapped"));
  options.measured_ns = {12345, 678};
  plan = plan_kernels(*w, options);
  REQUIRE(plan.ok());
  CHECK(plan->tasks[0].wait_ns == 12345);
  CHECK(plan->tasks[1].wait_ns == 678);
  CHECK_THAT(plan_lines(*w, *plan).back(), Catch::Contains("0 cuBLAS/cuSOLVER calls") && Catch::Contains("2 waits (0.013 ms)"));
}

TEST_CASE("an imported generator fills a tile only as its first access, and odd-sized data get whole elements", "[numeric]") {
  WorkloadBuilder builder("imported");
  const KindId plgsy = builder.kind("dplgsy"), potrf = builder.kind("dpotrf"), other = builder.kind("sort_keys");
  const DataId tile = builder.add_data({"A_0_0", 8 * 8 * 8, 'A', 0, 0});
  const DataId odd = builder.add_data({"keys", 12});  // 12 bytes: one and a half doubles
  const std::array<Access, 1> fill{{{tile, AccessMode::Write}}}, factor{{{tile, AccessMode::ReadWrite}}}, keys{{{odd, AccessMode::ReadWrite}}};
  builder.add_task(plgsy, fill, 0);
  builder.add_task(potrf, factor, 100);
  builder.add_task(plgsy, fill, 0);  // again, after the tile was factored
  builder.add_task(other, keys, 50);
  builder.derive_data_dependencies();
  auto w = std::move(builder).finish();
  REQUIRE(w.ok());
  auto plan = plan_kernels(*w);
  REQUIRE(plan.ok());
  CHECK(plan->precision == Precision::Double);
  CHECK(plan->b == 8);
  CHECK(plan->tasks[0].op == Op::Fill);
  CHECK(plan->tasks[1].op == Op::Potrf);
  CHECK(plan->tasks[2].op == Op::Wait);  // its values would not be the seed's
  CHECK(plan->tasks[3].op == Op::Wait);
  CHECK_FALSE(plan->checkable);  // a wait writes a tile
  const auto lines = plan_lines(*w, *plan);
  const std::string all = std::accumulate(lines.begin(), lines.end(), std::string(), [](std::string x, const std::string& l) { return x + l + "\n"; });
  CHECK_THAT(all, Catch::Contains("a generator on a tile used before"));
  const HostTilesD tiles = make_tiles_as<double>(*w, *plan, 3);
  CHECK(tiles.data[tile].size() == 64);
  CHECK(tiles.data[odd].size() * sizeof(double) >= 12);  // every byte a load or write-back copies is there
}

TEST_CASE("a generator with no kernels, or an element size other than 4 or 8, is refused by name", "[numeric][errors]") {
  const auto half = plan_kernels(generated("cholesky:N=3,b=8,elem=2"));
  REQUIRE_FALSE(half.ok());
  CHECK_THAT(half.error().message, Catch::Contains("elem=2"));
}
