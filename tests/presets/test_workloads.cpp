// The eight seed workloads against the papers' definitions (DESIGN section 2, fgcs 5.1,
// darts 6.1): task counts, inputs, natural orders, dependencies and priorities.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "helpers.hpp"

using namespace tilelens;
using tilelens::test::generated;

namespace {
std::map<std::string, std::size_t> kinds_of(const Workload& w) {
  std::map<std::string, std::size_t> count;
  for (const Task& t : w.tasks()) ++count[w.kinds()[t.kind]];
  return count;
}
}  // namespace

TEST_CASE("matmul2d: N^2 tasks, each reads block-row A_i and block-column B_j, row-major", "[workloads]") {
  const Workload w = generated("matmul2d:N=7,n=4,b=960");
  REQUIRE(w.task_count() == 49);
  REQUIRE(w.data_count() == 14);
  CHECK(w.data()[0].bytes == 4ull * 960 * 960 * 4);
  // fgcs 5.1: working set = 2 x N x n x 960^2 x 4
  CHECK(w.working_set_bytes() == 2ull * 7 * 4 * 960 * 960 * 4);
  for (TaskId t = 0; t < w.task_count(); ++t) {
    const Task& task = w.tasks()[t];
    CHECK(static_cast<int>(t) == task.i * 7 + task.j);
    auto a = w.accesses(t);
    REQUIRE(a.size() == 2);
    CHECK(w.data()[a[0].data].name == "A" + std::to_string(task.i));
    CHECK(w.data()[a[1].data].name == "B" + std::to_string(task.j));
    CHECK(task.flops == Approx(2.0 * 4 * 960.0 * 960 * 960));
  }
  CHECK_FALSE(w.has_dependencies());
}

TEST_CASE("matmul3d: N^3 tasks, C(i,j) read by all but the first task on it, k outer", "[workloads]") {
  const Workload w = generated("matmul3d:N=5");
  REQUIRE(w.task_count() == 125);
  REQUIRE(w.data_count() == 75);
  for (TaskId t = 0; t < w.task_count(); ++t) {
    const Task& task = w.tasks()[t];
    CHECK(static_cast<int>(t) == task.k * 25 + task.i * 5 + task.j);
    auto a = w.accesses(t);
    REQUIRE(a.size() == (task.k == 0 ? 2u : 3u));
    CHECK(w.data()[a[0].data].name == "A(" + std::to_string(task.i) + "," + std::to_string(task.k) + ")");
    CHECK(w.data()[a[1].data].name == "B(" + std::to_string(task.k) + "," + std::to_string(task.j) + ")");
    if (task.k > 0) CHECK(w.data()[a[2].data].name == "C(" + std::to_string(task.i) + "," + std::to_string(task.j) + ")");
  }
  const Workload layers = generated("matmul3d:N=6,n=4");  // fgcs Fig. 12: four layers
  CHECK(layers.task_count() == 6 * 6 * 4);
}

TEST_CASE("cholesky-tasks: the tiled Cholesky kernels without dependencies", "[workloads]") {
  const Workload w = generated("cholesky-tasks:N=50");
  REQUIRE(w.task_count() == 22100);  // the FGCS issue's count for N=50
  auto kinds = kinds_of(w);
  CHECK(kinds["POTRF"] == 50);
  CHECK(kinds["TRSM"] == 50 * 49 / 2);
  CHECK(kinds["SYRK"] == 50 * 49 / 2);
  CHECK(kinds["GEMM"] == 50 * 49 * 48 / 6);
  CHECK(w.data_count() == 50 * 51 / 2);
  CHECK_FALSE(w.has_dependencies());
  for (TaskId t = 0; t < w.task_count(); ++t) {
    for (const Access& a : w.accesses(t)) CHECK(a.mode == AccessMode::Read);
  }
  // The loop order starts with POTRF(0) then the TRSMs of column 0.
  CHECK(w.kinds()[w.tasks()[0].kind] == "POTRF");
  CHECK(w.kinds()[w.tasks()[1].kind] == "TRSM");
  // GEMM(m,n,k) reads A(m,k), A(n,k) and A(m,n).
  for (TaskId t = 0; t < w.task_count(); ++t) {
    const Task& task = w.tasks()[t];
    if (w.kinds()[task.kind] != "GEMM") continue;
    auto a = w.accesses(t);
    CHECK(w.data()[a[0].data].row == task.i);
    CHECK(w.data()[a[0].data].col == task.k);
    CHECK(w.data()[a[1].data].row == task.j);
    CHECK(w.data()[a[2].data].row == task.i);
    CHECK(w.data()[a[2].data].col == task.j);
    break;
  }
}

TEST_CASE("cholesky DAG: counts, data dependencies and bottom-level priorities", "[workloads]") {
  const Workload w = generated("cholesky:N=90");
  CHECK(w.task_count() == 125580);  // darts issue: cholesky N=90
  const Workload small = generated("cholesky:N=3");  // darts Fig. 3
  REQUIRE(small.task_count() == 10);
  CHECK(small.has_dependencies());
  // Task ids in loop order: POTRF0 TRSM(1,0) TRSM(2,0) SYRK(1,0) GEMM(2,1,0) SYRK(2,0) POTRF1 TRSM(2,1) SYRK(2,1) POTRF2
  const auto preds = [&](TaskId t) {
    auto p = small.predecessors(t);
    return std::set<TaskId>(p.begin(), p.end());
  };
  CHECK(preds(0).empty());
  CHECK(preds(1) == std::set<TaskId>{0});
  CHECK(preds(2) == std::set<TaskId>{0});
  CHECK(preds(3) == std::set<TaskId>{1});
  CHECK(preds(4) == std::set<TaskId>{1, 2});
  CHECK(preds(6) == std::set<TaskId>{3});
  CHECK(preds(7) == std::set<TaskId>{4, 6});
  CHECK(preds(9) == std::set<TaskId>{8});
  // Bottom levels: the first POTRF heads the critical path; priorities decrease along edges.
  for (TaskId t = 0; t < small.task_count(); ++t) {
    for (TaskId s : small.successors(t)) CHECK(small.tasks()[t].priority > small.tasks()[s].priority);
  }
  CHECK(small.tasks()[0].priority == std::max_element(small.tasks().begin(), small.tasks().end(), [](const Task& a, const Task& b) {
                                       return a.priority < b.priority;
                                     })->priority);
}

TEST_CASE("lu DAG: GETRF, two TRSM panels and the trailing GEMMs", "[workloads]") {
  const Workload w = generated("lu:N=12");
  auto kinds = kinds_of(w);
  CHECK(kinds["GETRF"] == 12);
  CHECK(kinds["TRSM"] == 12 * 11);
  CHECK(kinds["GEMM"] == 11 * 12 * 23 / 6);
  CHECK(w.data_count() == 144);
  CHECK(generated("lu:N=72").task_count() == 72 + 72 * 71 + 71 * 72 * 143 / 6);
  // GEMM(m,n,k) reads L(m,k) and U(k,n) and updates A(m,n): it depends on both TRSMs.
  for (TaskId t = 0; t < w.task_count(); ++t) {
    const Task& task = w.tasks()[t];
    if (w.kinds()[task.kind] != "GEMM" || task.k != 0) continue;
    std::set<std::string> before;
    for (TaskId p : w.predecessors(t)) before.insert(w.kinds()[w.tasks()[p].kind]);
    CHECK(before == std::set<std::string>{"TRSM"});
    CHECK(w.predecessors(t).size() == 2);
  }
}

TEST_CASE("random order, random pairs and sparse are seeded variants of matmul2d", "[workloads]") {
  const Workload natural = generated("matmul2d:N=10");
  const Workload shuffled = generated("matmul2d-random-order:N=10,seed=3");
  CHECK(shuffled.task_count() == 100);
  auto order = shuffled.submission_order();
  CHECK(order != natural.submission_order());
  std::sort(order.begin(), order.end());
  CHECK(order == natural.submission_order());
  CHECK(generated("matmul2d-random-order:N=10,seed=3").submission_order() == shuffled.submission_order());
  CHECK(generated("matmul2d-random-order:N=10,seed=4").submission_order() != shuffled.submission_order());

  const Workload pairs = generated("matmul2d-random-pairs:N=10,seed=1");
  CHECK(pairs.task_count() == 100);
  bool differs = false;
  for (TaskId t = 0; t < 100; ++t) {
    auto a = pairs.accesses(t);
    REQUIRE(a.size() == 2);
    CHECK(pairs.data()[a[0].data].matrix == 'A');
    CHECK(pairs.data()[a[1].data].matrix == 'B');
    differs |= pairs.data()[a[0].data].row != pairs.tasks()[t].i;
  }
  CHECK(differs);

  const Workload sparse = generated("matmul2d-sparse:N=40,density=0.1,seed=2");
  CHECK(sparse.task_count() == 160);
  std::set<std::pair<int, int>> cells;
  int last = -1;
  for (TaskId t = 0; t < sparse.task_count(); ++t) {
    cells.insert({sparse.tasks()[t].i, sparse.tasks()[t].j});
    const int rank = sparse.tasks()[t].i * 40 + sparse.tasks()[t].j;
    CHECK(rank > last);  // row-major
    last = rank;
  }
  CHECK(cells.size() == 160);
}

TEST_CASE("generator parameters out of range get clear messages", "[workloads][errors]") {
  auto zero = generate_workload("matmul2d:N=0");
  REQUIRE_FALSE(zero.ok());
  CHECK_THAT(zero.error().message, Catch::Contains("N must be between 1 and"));
  auto big = generate_workload("matmul3d:N=100000");
  REQUIRE_FALSE(big.ok());
  CHECK_THAT(big.error().message, Catch::Contains("N must be between"));
  CHECK_FALSE(generate_workload("matmul2d-sparse:N=10,density=0").ok());
  CHECK_FALSE(generate_workload("matmul2d:N=10,b=0").ok());
  CHECK_FALSE(generate_workload("matmul2d:N=ten").ok());
  auto unknown = generate_workload("matmul4d:N=3");
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.error().message, Catch::Contains("valid: matmul2d, matmul3d, cholesky-tasks"));
}

TEST_CASE("a dependency cycle is reported with a task on it", "[workloads][errors]") {
  WorkloadBuilder builder = test::one_datum_tasks("cycle", 4, 8, 1);
  builder.add_dependency(0, 1);
  builder.add_dependency(1, 2);
  builder.add_dependency(2, 1);
  builder.add_dependency(2, 3);
  auto w = std::move(builder).finish();
  REQUIRE_FALSE(w.ok());
  CHECK_THAT(w.error().message, Catch::Contains("cycle through task"));
  const bool names_1_or_2 = w.error().message.find("task 1 ") != std::string::npos || w.error().message.find("task 2 ") != std::string::npos;
  CHECK(names_1_or_2);
}

TEST_CASE("a task's accesses by data id: StarPU's handle order, shared with accesses() when already sorted", "[workloads]") {
  WorkloadBuilder builder("handles");
  const KindId kind = builder.kind("K");
  const DataId a = builder.add_data({"a", 8, 'A', 0, 0});
  const DataId b = builder.add_data({"b", 8, 'A', 1, 0});
  const DataId c = builder.add_data({"c", 8, 'A', 2, 0});
  const std::vector<Access> sorted{{a, AccessMode::Read}, {c, AccessMode::ReadWrite}};
  builder.add_task(kind, sorted, 1);
  SECTION("every task already in data order: no second copy") {
    auto w = std::move(builder).finish();
    REQUIRE(w.ok());
    CHECK(w->accesses_by_data(0).data() == w->accesses(0).data());
  }
  SECTION("a task listing its data out of order: sorted, modes kept, the task's own order untouched") {
    const std::vector<Access> unsorted{{c, AccessMode::Write}, {a, AccessMode::Read}, {b, AccessMode::ReadWrite}};
    builder.add_task(kind, unsorted, 1);
    auto w = std::move(builder).finish();
    REQUIRE(w.ok());
    const auto by_data = w->accesses_by_data(1);
    REQUIRE(by_data.size() == 3);
    CHECK(by_data[0].data == a);
    CHECK(by_data[0].mode == AccessMode::Read);
    CHECK(by_data[1].data == b);
    CHECK(by_data[1].mode == AccessMode::ReadWrite);
    CHECK(by_data[2].data == c);
    CHECK(by_data[2].mode == AccessMode::Write);
    CHECK(w->accesses(1)[0].data == c);
    CHECK(w->accesses_by_data(0).size() == 2);
    CHECK(w->accesses_by_data(0)[1].data == c);
  }
}
