// DARTS and LUF (darts section 5): correctness on DAGs and several GPUs, LUF's rules, and the
// paper's qualitative results in replay.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <thread>

#include "helpers.hpp"
#include "eviction/policy.hpp"
#include "presets/platforms.hpp"

using namespace tilelens;
using test::check_invariants;
using test::generated;
using test::run_replay;
using test::small_platform;

TEST_CASE("DARTS runs every task once, after its dependencies, on 1 to 4 GPUs", "[darts]") {
  for (const std::string spec : {"cholesky:N=10", "lu:N=8", "matmul2d:N=12", "matmul3d:N=5", "cholesky-tasks:N=8"}) {
    for (const std::uint32_t gpus : {1u, 2u, 4u}) {
      INFO(spec << " on " << gpus << " GPUs");
      const Workload w = generated(spec);
      const Platform p = small_platform(12.0 * static_cast<double>(w.largest_data_bytes()), gpus);
      const auto run = run_replay(w, "darts", "luf", p, 4);
      CHECK(check_invariants(w, p, run).empty());
      CHECK(run.summary.tasks == w.task_count());
      if (gpus > 1) {
        for (const auto& gpu : run.summary.gpus) CHECK(gpu.tasks > 0);  // spread over all GPUs
      }
    }
  }
}

TEST_CASE("LUF never evicts an input of the task running on that GPU", "[darts][luf]") {
  const Workload w = generated("cholesky:N=12");
  const Platform p = small_platform(8.0 * static_cast<double>(w.largest_data_bytes()), 2);
  const auto run = run_replay(w, "darts", "luf", p, 4);
  REQUIRE(check_invariants(w, p, run).empty());
  REQUIRE(run.summary.evictions > 50);
  std::size_t checked = 0;
  for (const EvictionRecord& e : run.trace.evictions) {
    if (e.cause != EvictionCause::Capacity) continue;
    for (const TaskRecord& t : run.trace.tasks) {
      if (t.gpu != e.gpu || t.start_ns > e.time_ns || e.time_ns >= t.end_ns) continue;
      for (const Access& a : w.accesses(t.task)) CHECK(a.data != e.data);
      ++checked;
    }
  }
  CHECK(checked > 0);
}

namespace {
struct FakeBuffers final : BufferView {
  std::vector<TaskId> tasks;
  std::span<const TaskId> held(GpuId) const override { return tasks; }
};
struct FakePlan final : PlanView {
  std::vector<TaskId> tasks;
  const Workload* w = nullptr;
  std::span<const TaskId> planned(GpuId) const override { return tasks; }
  std::uint32_t planned_uses(GpuId, DataId d) const override {
    std::uint32_t uses = 0;
    for (TaskId t : tasks) {
      for (const Access& a : w->accesses(t)) uses += a.data == d;
    }
    return uses;
  }
};
}  // namespace

TEST_CASE("LUF's order: unused first, then fewest planned uses, refuse a prefetch, then Belady on the buffer", "[luf]") {
  // matmul2d N=3: T(i,j) reads A_i (data i) and B_j (data 3 + j).
  const Workload w = generated("matmul2d:N=3");
  const Platform p = small_platform(1e12);
  auto made = make_eviction("luf");
  REQUIRE(made.ok());
  EvictionPolicy& luf = *made->policy;
  FakeBuffers buffers;
  FakePlan plan;
  plan.w = &w;
  REQUIRE(luf.attach({&w, &p, nullptr, &plan, &buffers}).ok());
  const auto A = [](int i) { return static_cast<DataId>(i); };
  const auto B = [](int j) { return static_cast<DataId>(3 + j); };
  REQUIRE(w.data()[A(1)].matrix == 'A');
  REQUIRE(w.data()[B(1)].matrix == 'B');
  for (DataId d : {A(0), A(1), A(2), B(0), B(1), B(2)}) luf.on_inserted(0, d);  // A0 is the least recent
  VictimRequest request;
  const auto anything = [](DataId) { return true; };
  request.evictable = anything;
  // Buffer: T(0,0) then T(1,1); plan: T(2,1), T(2,2).
  buffers.tasks = {0 * 3 + 0, 1 * 3 + 1};
  plan.tasks = {2 * 3 + 1, 2 * 3 + 2};
  // Every data is used by the buffer or the plan, so rule 1 finds nothing; of the data the
  // buffer does not use, B2 has one planned use and A2 two: rule 2 picks B2.
  CHECK(luf.choose_victim(0, request) == B(2));
  plan.tasks = {2 * 3 + 1};  // now B2 is used by nobody: rule 1
  CHECK(luf.choose_victim(0, request) == B(2));
  // Only data the buffer uses are evictable: a prefetch is refused, a fetch gets Belady's
  // furthest first use in the buffer (T(1,1)'s inputs, A1 before B1 as the older).
  const auto only_some = [&](DataId d) { return d == A(0) || d == B(0) || d == A(1) || d == B(1); };
  request.evictable = only_some;
  request.prefetch = true;
  CHECK_FALSE(luf.choose_victim(0, request).has_value());
  request.prefetch = false;
  CHECK(luf.choose_victim(0, request) == A(1));
}

TEST_CASE("DARTS against the paper's baselines, past the memory", "[darts][fgcs]") {
  SECTION("matmul2d on one GPU: fewer loads than EAGER + LRU past the red line (darts 7.1)") {
    Platform p = *find_platform_preset("v100-fgcs");
    for (const int N : {40, 60}) {
      const Workload w = generated("matmul2d:N=" + std::to_string(N));
      const auto darts = run_replay(w, "darts", "luf", p, 4);
      const auto eager = run_replay(w, "eager", "lru", p, 4);
      INFO("N=" << N << " darts " << darts.summary.loads << " eager " << eager.summary.loads);
      CHECK(darts.summary.loads * 4 < eager.summary.loads);
    }
  }
  SECTION("cholesky N=40: fewer loads than DMDAS once the working set exceeds memory (darts Fig. 6b)") {
    Platform p = *find_platform_preset("v100-fgcs");
    const Workload w = generated("cholesky:N=40");
    REQUIRE(static_cast<double>(w.working_set_bytes()) > p.memory_bytes);
    const auto darts = run_replay(w, "darts", "luf", p, 4);
    const auto dmdas = run_replay(w, "dmdas", "lru", p, 4);
    const auto lws = run_replay(w, "lws", "lru", p, 4);
    INFO("darts " << darts.summary.loads << " dmdas " << dmdas.summary.loads << " lws " << lws.summary.loads);
    CHECK(darts.summary.loads < dmdas.summary.loads);
    CHECK(darts.summary.loads < lws.summary.loads);
    CHECK(check_invariants(w, p, darts).empty());
  }
}

TEST_CASE("LWS and AP run every task once after its dependencies, and AP starts the highest priority", "[lws][ap]") {
  for (const std::string scheduler : {"lws", "ap"}) {
    for (const std::uint32_t gpus : {1u, 3u}) {
      INFO(scheduler << " on " << gpus << " GPUs");
      const Workload w = generated("lu:N=8");
      const Platform p = small_platform(15.0 * static_cast<double>(w.largest_data_bytes()), gpus);
      const auto run = run_replay(w, scheduler, "lru", p, 4);
      CHECK(check_invariants(w, p, run).empty());
      for (const auto& gpu : run.summary.gpus) CHECK(gpu.tasks > 0);
    }
  }
  // One GPU, one task at a time: each task AP starts has the highest priority among the ready ones.
  const Workload w = generated("cholesky:N=8");
  const auto run = run_replay(w, "ap", "lru", small_platform(1e12, 1), 1);
  CHECK(test::check_priority_order(w, run).empty());
}

TEST_CASE("DARTS options are checked and recorded", "[darts][errors]") {
  auto bad = make_scheduler("darts:scan_limit=-2");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("scan_limit"));
  auto flags = make_scheduler("darts:first_free=maybe");
  REQUIRE_FALSE(flags.ok());
  CHECK_THAT(flags.error().message, Catch::Contains("first_free"));
  auto good = make_scheduler("darts:scan_limit=10,first_free=1");
  REQUIRE(good.ok());
  CHECK(good->spec == "darts:bypass=1,first_free=1,one_from_free=1,scan_limit=10");
  // The OPTI options still run every task.
  const Workload w = generated("cholesky:N=8");
  const Platform p = small_platform(10.0 * static_cast<double>(w.largest_data_bytes()), 2);
  for (const std::string spec : {"darts:scan_limit=3", "darts:first_free=1", "darts:one_from_free=0,bypass=0"}) {
    INFO(spec);
    CHECK(check_invariants(w, p, run_replay(w, spec, "luf", p, 4)).empty());
  }
}

TEST_CASE("The partitioner splits the tasks evenly and replicates little data", "[partition]") {
  const Workload w = generated("matmul2d:N=16");
  for (const std::uint32_t parts : {2u, 4u}) {
    INFO(parts << " parts");
    const auto part = partition_tasks(w, parts, 0);
    std::vector<std::size_t> sizes(parts, 0);
    std::vector<std::set<std::uint32_t>> parts_of(w.data_count());
    for (TaskId t = 0; t < w.task_count(); ++t) {
      REQUIRE(part[t] < parts);
      ++sizes[part[t]];
      for (const Access& a : w.accesses(t)) parts_of[a.data].insert(part[t]);
    }
    for (std::size_t size : sizes) CHECK(static_cast<double>(size) <= 1.1 * static_cast<double>(w.task_count()) / parts);
    // Copies beyond the first: the best splits (halves of C for 2 parts, its 2 x 2 blocks for
    // 4) make 16 and 32; a random split would put almost every row and column in every part.
    std::size_t extra = 0;
    for (const auto& in : parts_of) extra += in.size() - 1;
    CHECK(extra <= (parts == 2 ? 20u : 40u));
    CHECK(partition_tasks(w, parts, 0) == part);  // seeded: deterministic
  }
  const Workload dag = generated("cholesky:N=10");
  const Platform p = small_platform(12.0 * static_cast<double>(dag.largest_data_bytes()), 3);
  const auto run = run_replay(dag, "partition", "lru", p, 4);
  CHECK(check_invariants(dag, p, run).empty());
  for (const auto& gpu : run.summary.gpus) CHECK(gpu.tasks > 0);
}

TEST_CASE("on cores sharing one memory (darts 7.3), DARTS loads less than DMDAS, LWS and EAGER on LU past the memory", "[darts][shared]") {
  const Workload w = generated("lu:N=16,b=96");
  Platform p = small_platform(60.0 * static_cast<double>(w.largest_data_bytes()), 4);
  p.workers_per_memory = 4;  // one memory, one plan, four cores
  p.bus_bandwidth = 100e6;
  p.default_gflops = 25;
  REQUIRE(static_cast<double>(w.working_set_bytes()) > 4 * p.memory_bytes);
  std::map<std::string, std::uint64_t> loads;
  for (const std::string policy : {"darts/luf", "dmdas/lru", "lws/lru", "eager/lru"}) {
    const auto slash = policy.find('/');
    const auto run = run_replay(w, policy.substr(0, slash), policy.substr(slash + 1), p, 4);
    INFO(policy);
    CHECK(check_invariants(w, p, run) == "");
    for (const auto& core : run.summary.gpus) CHECK(core.tasks > 0);
    loads[policy] = run.summary.loads;
  }
  CHECK(loads["darts/luf"] < loads["dmdas/lru"]);
  CHECK(loads["darts/luf"] < loads["lws/lru"]);
  CHECK(loads["darts/luf"] < loads["eager/lru"]);
}

TEST_CASE("partitions made on several threads at once equal those made alone (a sweep's parallel replays)", "[darts][partition]") {
  const Workload w = generated("matmul2d:N=12");
  const auto alone = partition_tasks(w, 3, 7);
  std::vector<std::vector<std::uint32_t>> results(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int repeat = 0; repeat < 5; ++repeat) results[i] = partition_tasks(w, 3, 7);
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& result : results) CHECK(result == alone);
}
