// Static orders: permutations, CM/RCM relation, MST on a small graph, seeded RANDOM; which end
// LWS steals from; Ready's kept costs against its scan.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <numeric>

#include "helpers.hpp"
#include "schedulers/ready.hpp"
#include "util/rng.hpp"

using namespace tilelens;

namespace {
bool is_permutation_of_tasks(const Workload& w, std::vector<TaskId> order) {
  std::sort(order.begin(), order.end());
  std::vector<TaskId> all(w.task_count());
  std::iota(all.begin(), all.end(), 0);
  return order == all;
}

// The scheduler `spec` names, prepared on w and p (which, with `context`, outlive it).
std::unique_ptr<Scheduler> prepared(const std::string& spec, const Workload& w, const Platform& p, const SchedulerContext& context) {
  auto made = make_scheduler(spec);
  REQUIRE(made.ok());
  made->scheduler->prepare(w, p, context);
  return std::move(made->scheduler);
}
}  // namespace

TEST_CASE("CM, RCM and MST orders are permutations, RCM the reverse of CM", "[schedulers]") {
  for (const std::string spec : {"matmul2d:N=9", "matmul3d:N=4", "cholesky-tasks:N=7", "matmul2d-sparse:N=12,density=0.1",
                                 "matmul2d-random-order:N=6"}) {
    INFO(spec);
    const Workload w = test::generated(spec);
    const auto cm = cuthill_mckee_order(w, false);
    auto rcm = cuthill_mckee_order(w, true);
    CHECK(is_permutation_of_tasks(w, cm));
    CHECK(is_permutation_of_tasks(w, maximum_spanning_tree_order(w)));
    std::reverse(rcm.begin(), rcm.end());
    CHECK(rcm == cm);
  }
}

TEST_CASE("Cuthill-McKee starts at the smallest weighted degree and visits neighbours by degree", "[schedulers]") {
  // Path-like sharing: T0{a,b} T1{b,c} T2{c,d} T3{x,y} (disconnected); degrees 1,2,1,0 shared items.
  WorkloadBuilder builder("path");
  const KindId k = builder.kind("K");
  std::vector<DataId> d;
  for (const char* name : {"a", "b", "c", "d", "x", "y"}) d.push_back(builder.add_data({name, 10, 'A', 0, 0}));
  const auto task = [&](DataId p, DataId q) {
    const std::array<Access, 2> a{{{p, AccessMode::Read}, {q, AccessMode::Read}}};
    builder.add_task(k, a, 1);
  };
  task(d[0], d[1]);
  task(d[1], d[2]);
  task(d[2], d[3]);
  task(d[4], d[5]);
  auto w = std::move(builder).finish();
  REQUIRE(w.ok());
  // T3 has degree 0: it starts; then the walk restarts from T0 (degree 10, before T2's equal degree).
  CHECK(cuthill_mckee_order(*w, false) == std::vector<TaskId>{3, 0, 1, 2});
  CHECK(cuthill_mckee_order(*w, true) == std::vector<TaskId>{2, 1, 0, 3});
  // MST from T0: T1 (shares b), then T2 (shares c), then T3 (key 0).
  CHECK(maximum_spanning_tree_order(*w) == std::vector<TaskId>{0, 1, 2, 3});
}

TEST_CASE("MST on matmul2d follows maximum sharing from the first task", "[schedulers]") {
  const Workload w = test::generated("matmul2d:N=4");
  const auto order = maximum_spanning_tree_order(w);
  CHECK(order.front() == 0);
  // Every next task shares a data with an earlier one (the graph is connected, keys >= 1).
  for (std::size_t p = 1; p < order.size(); ++p) {
    bool shares = false;
    for (std::size_t q = 0; q < p && !shares; ++q) {
      for (const Access& a : w.accesses(order[p]))
        for (const Access& b : w.accesses(order[q])) shares |= a.data == b.data;
    }
    CHECK(shares);
  }
}

TEST_CASE("RANDOM is reproducible from its seed and the spec records it", "[schedulers]") {
  const Workload w = test::generated("matmul2d:N=6");
  const Platform p = test::small_platform(1e12);
  const auto order_of = [&](const std::string& spec) {
    auto run = test::run_replay(w, spec, "lru", p, 1);
    std::vector<TaskId> order;
    for (const auto& r : run.trace.tasks) order.push_back(r.task);
    return order;
  };
  CHECK(order_of("random:seed=5") == order_of("random:seed=5"));
  CHECK(order_of("random:seed=5") != order_of("random:seed=6"));
  CHECK(make_scheduler("random:seed=5")->spec == "random:seed=5");
  CHECK(make_scheduler("random")->spec == "random:seed=0");
}

TEST_CASE("unknown scheduler and eviction names list the valid ones", "[schedulers][errors]") {
  auto s = make_scheduler("hfp-magic");
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.error().message, Catch::Contains("unknown scheduler 'hfp-magic'") && Catch::Contains("eager, random, cm, rcm, mst"));
  auto e = make_eviction("mru");
  REQUIRE_FALSE(e.ok());
  CHECK_THAT(e.error().message, Catch::Contains("valid: lru, fifo, belady"));
  CHECK_FALSE(make_scheduler("random:seed=-1").ok());
  CHECK_FALSE(make_scheduler("eager:depth=3").ok());
}

TEST_CASE("LWS steals a neighbour's newest task, or its oldest with steal_head (StarPU 1.3.10)", "[schedulers][lws]") {
  const Workload w = test::generated("matmul2d:N=3,b=8");  // 9 independent tasks
  Platform p;
  p.gpus = 2;
  SchedulerContext context;
  const auto stolen = [&](const std::string& spec) {
    const auto made = prepared(spec, w, p, context);
    Scheduler& lws = *made;
    // Task 0 ends on GPU 0 and releases 1, 2, 3 there: GPU 0's queue is 1, 2, 3.
    lws.push(0);
    REQUIRE(lws.pop(0) == std::optional<TaskId>(0));
    lws.on_task_started(0, 0);
    lws.on_task_done(0, 0);
    for (TaskId t : {1u, 2u, 3u}) lws.push(t);
    // GPU 1's queue is empty: it steals from GPU 0.
    return lws.pop(1);
  };
  CHECK(stolen("lws") == std::optional<TaskId>(3));
  CHECK(stolen("lws:steal_head=1") == std::optional<TaskId>(1));
}

TEST_CASE("WS pushes round robin from the second GPU and steals the head of a victim found round robin (StarPU 1.3.10)",
          "[schedulers][ws]") {
  const Workload w = test::generated("matmul2d:N=3,b=8");  // 9 independent tasks of equal priority
  Platform p;
  p.gpus = 3;
  SchedulerContext context;
  const auto made = prepared("ws", w, p, context);
  Scheduler& ws = *made;
  // Pushed by the submitter: GPUs 1, 2, 0, 1, 2, 0 (select_worker_round_robin starts after 0).
  for (TaskId t = 0; t < 6; ++t) ws.push(t);
  CHECK(ws.pop(1) == std::optional<TaskId>(0));
  CHECK(ws.pop(2) == std::optional<TaskId>(1));
  CHECK(ws.pop(0) == std::optional<TaskId>(2));
  CHECK(ws.pop(1) == std::optional<TaskId>(3));
  // GPU 1's queue is empty now: it steals the head of the first busy GPU from where it starts (0).
  CHECK(ws.pop(1) == std::optional<TaskId>(5));
  CHECK(ws.pop(2) == std::optional<TaskId>(4));
  CHECK(ws.pop(0) == std::nullopt);
}

// StarPU 1.3.10's lws without hwloc is its ws: the same pops, whatever lws's own parameters say.
TEST_CASE("lws:starpu=1 decides as ws does", "[schedulers][ws][lws]") {
  const Workload w = test::generated("cholesky:N=6");
  Platform p;
  p.gpus = 3;
  SchedulerContext context;
  const auto pops = [&](const std::string& spec) {
    const auto made = prepared(spec, w, p, context);
    std::vector<std::optional<TaskId>> got;
    for (TaskId t = 0; t < 12; ++t) made->push(t);
    for (GpuId g : {1u, 1u, 0u, 2u, 2u, 2u, 0u, 1u, 0u, 2u, 2u, 1u, 0u}) got.push_back(made->pop(g));
    return got;
  };
  CHECK(pops("lws:starpu=1") == pops("ws"));
  CHECK(pops("lws:starpu=1,steal_head=0,prio=0") == pops("ws"));
  CHECK(pops("lws") != pops("ws"));
}

TEST_CASE("WS's thief takes its victim's oldest task, and only from a GPU whose last pop got one", "[schedulers][ws]") {
  const Workload w = test::generated("matmul2d:N=3,b=8");
  Platform p;
  p.gpus = 2;
  SchedulerContext context;
  const auto made = prepared("ws", w, p, context);
  Scheduler& ws = *made;
  ws.push(0);  // to GPU 1
  REQUIRE(ws.pop(1) == std::optional<TaskId>(0));
  ws.on_task_started(1, 0);
  ws.on_task_done(1, 0);
  for (TaskId t : {1u, 2u, 3u}) ws.push(t);  // released on GPU 1: its queue is 1, 2, 3
  CHECK(ws.pop(0) == std::optional<TaskId>(1));  // GPU 1 is busy (its last pop got a task): its head
  CHECK(ws.pop(1) == std::optional<TaskId>(2));
  // GPU 0's last pop got a task, GPU 1 finds its own queue not empty: no steal needed.
  CHECK(ws.pop(1) == std::optional<TaskId>(3));
  CHECK(ws.pop(1) == std::nullopt);  // empty everywhere; GPU 1 is idle now
  ws.on_task_started(1, 3);
  ws.on_task_done(1, 3);
  ws.push(4);  // on GPU 1, whose last pop got nothing: not a victim
  CHECK(ws.pop(0) == std::nullopt);
  CHECK(ws.pop(1) == std::optional<TaskId>(4));
}

TEST_CASE("starpu-random is StarPU's random: workers drawn from drand48 seeded as given, a stack per worker", "[schedulers][random]") {
  const Workload w = test::generated("cholesky:N=4");  // bottom-level priorities: the last task has the lowest
  std::int64_t lowest = INT64_MAX;
  for (const Task& t : w.tasks()) lowest = std::min(lowest, t.priority);
  SchedulerContext context;
  SECTION("one GPU: the last pushed first, a task of the lowest priority after all others") {
    Platform p;
    p.gpus = 1;
    const auto made = prepared("starpu-random", w, p, context);
    Scheduler& random = *made;
    std::vector<TaskId> high;
    TaskId low = kNoId;
    for (TaskId t = 0; t < w.task_count(); ++t) {
      if (w.tasks()[t].priority == lowest) low = t;
      else if (high.size() < 3) high.push_back(t);
    }
    REQUIRE(low != kNoId);
    random.push(low);
    for (TaskId t : high) random.push(t);
    CHECK(random.pop(0) == std::optional<TaskId>(high[2]));
    CHECK(random.pop(0) == std::optional<TaskId>(high[1]));
    CHECK(random.pop(0) == std::optional<TaskId>(high[0]));
    CHECK(random.pop(0) == std::optional<TaskId>(low));
    CHECK(random.pop(0) == std::nullopt);
  }
  SECTION("two GPUs of one speed: the draws of glibc's drand48 after srand48(seed)") {
    Platform p;
    p.gpus = 2;
    for (const long seed : {0L, 7L}) {
      const auto made = prepared("starpu-random:seed=" + std::to_string(seed), w, p, context);
      Scheduler& random = *made;
      ::srand48(seed);
      std::vector<std::vector<TaskId>> expected(2);
      for (TaskId t = 0; t < 12; ++t) {
        const GpuId g = ::drand48() * 2 <= 1 ? 0 : 1;  // the first worker whose running speed sum reaches the draw
        expected[g].insert(w.tasks()[t].priority == lowest ? expected[g].end() : expected[g].begin(), t);
        random.push(t);
      }
      for (GpuId g : {0u, 1u}) {
        std::vector<TaskId> got;
        while (const auto t = random.pop(g)) got.push_back(*t);
        CHECK(got == expected[g]);
      }
    }
  }
}

namespace {
// Two GPUs' replica states, changed at random, with the executor's log of changes.
class LoggedMemory final : public MemoryView {
 public:
  explicit LoggedMemory(std::size_t data) : states_(2 * data, ReplicaState::Absent), data_(data) {}
  ReplicaState state(GpuId gpu, DataId d) const override { return states_[gpu * data_ + d]; }
  double free_bytes(GpuId) const override { return 0; }
  const std::vector<DataId>* state_change_log() const override { return &log_; }
  void set(GpuId gpu, DataId d, ReplicaState state) {
    states_[gpu * data_ + d] = state;
    log_.push_back(d);
  }

 private:
  std::vector<ReplicaState> states_;
  std::size_t data_;
  std::vector<DataId> log_;
};
}  // namespace

TEST_CASE("Ready's kept costs equal the costs asked at each scan, and pick what the scan picks, through random state changes",
          "[ready]") {
  // Cholesky's tasks read one to three tiles, with priorities: the scan skips some by priority.
  const Workload w = test::generated("cholesky:N=7");
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    INFO("seed " << seed);
    Rng rng(seed);
    LoggedMemory memory(w.data_count());
    ReadyCosts costs;
    costs.reset(w, memory);
    TaskQueue queues[2], scanned_queues[2];
    std::vector<GpuId> queued(w.task_count(), kNoId);
    std::uint64_t by_costs = 0, by_scan = 0;
    for (int step = 0; step < 400; ++step) {
      const auto action = rng.below(4);
      const auto gpu = static_cast<GpuId>(rng.below(2));
      if (action == 0) {  // queue a task not queued yet
        const auto task = static_cast<TaskId>(rng.below(w.task_count()));
        if (queued[task] != kNoId) continue;
        queued[task] = gpu;
        queues[gpu].push_back(task, w.tasks()[task].priority);
        scanned_queues[gpu].push_back(task, w.tasks()[task].priority);
        costs.add(task, gpu);
      } else if (action == 1) {  // a datum changes state on one GPU
        memory.set(gpu, static_cast<DataId>(rng.below(w.data_count())), static_cast<ReplicaState>(rng.below(3)));
      } else if (!queues[gpu].empty()) {  // a pop: DMDAR's, against the scan that asks each time
        costs.refresh();
        const auto kept = ready_select_by(queues[gpu], ReadyPriority::AtLeastHead, [](TaskId) { return true; },
                                          [&](TaskId t) { return costs.cost(t); }, by_costs);
        const auto asked = ready_select(scanned_queues[gpu], w, memory, gpu, ReadyPriority::AtLeastHead, [](TaskId) { return true; }, by_scan);
        REQUIRE(kept.has_value());
        REQUIRE(asked.has_value());
        // DMDAR's queue drops the entry (remove), the other keeps a hole (take): the same picks.
        const TaskId task = queues[gpu].remove(*kept);
        REQUIRE(task == scanned_queues[gpu].take(*asked));
        REQUIRE(by_costs == by_scan);
        costs.remove(task);
        queued[task] = kNoId;
      }
      costs.refresh();
      for (TaskId t = 0; t < w.task_count(); ++t) {
        if (queued[t] == kNoId) continue;
        const ReadyCost kept = costs.cost(t), asked = ready_cost(w, memory, queued[t], t);
        REQUIRE(kept.missing == asked.missing);
        REQUIRE(kept.absent == asked.absent);
      }
    }
    CHECK(by_scan > 0);
  }
}

// StarPU 1.3.10 predicts a transfer at 2 x (number of GPUs) times its time alone
// (starpu_transfer_predict), so its dmda keeps tasks where their data are far longer than the
// paper's estimate does: here 8 tasks whose inputs all lie on GPU 0 of two.
TEST_CASE("DMDA's StarPU estimate keeps work by its data where the paper's spreads it", "[schedulers][dmda]") {
  const Workload w = test::generated("matmul2d:N=8");  // 960x960 fp32 tiles: a load takes 307 us, a product 132 us
  Platform p;
  p.gpus = 2;
  const DataId shared = w.accesses(0)[0].data;
  std::vector<TaskId> sharing;
  LoggedMemory memory(w.data_count());
  for (TaskId t = 0; t < w.task_count(); ++t) {
    const auto accesses = w.accesses(t);
    if (std::none_of(accesses.begin(), accesses.end(), [&](const Access& a) { return a.data == shared; })) continue;
    sharing.push_back(t);
    for (const Access& a : accesses) memory.set(0, a.data, ReplicaState::Resident);
  }
  REQUIRE(sharing.size() == 8);
  std::int64_t clock = 0;
  SchedulerContext context;
  context.memory = &memory;
  context.clock_ns = &clock;
  const auto on_second_gpu = [&](const std::string& spec) {
    const auto made = prepared(spec, w, p, context);
    for (TaskId t : sharing) made->push(t);
    std::size_t count = 0;
    while (made->pop(1)) ++count;
    return count;
  };
  // The paper's: GPU 1 wins once GPU 0's backlog (k x 132 us) passes two loads and a product,
  // at the seventh task; the eighth, its shared input planned on GPU 1 too, goes back to GPU 0.
  CHECK(on_second_gpu("dmda") == 1);
  CHECK(on_second_gpu("dmdar:estimate=paper") == 1);
  // StarPU's: two loads cost 2 x 4 x 307 us on GPU 1, twice over in the fitness: GPU 0 keeps all 8.
  CHECK(on_second_gpu("dmda:estimate=starpu") == 0);
  CHECK(on_second_gpu("dmdas:estimate=starpu") == 0);
  CHECK_FALSE(make_scheduler("dmda:estimate=fast").ok());
}

// StarPU 1.3.10's Ready takes the first task of the fewest missing bytes; REFERENCE.md's breaks
// that tie by the bytes not even being loaded (loading_tiebreak, on by default).
TEST_CASE("DMDAR's Ready breaks a tie by the bytes not loading unless loading_tiebreak=0", "[schedulers][dmda][ready]") {
  const Workload w = test::generated("matmul2d:N=2");  // tasks (i, j) read A_i and B_j, one priority
  Platform p;
  p.gpus = 1;
  std::vector<TaskId> sharing;  // the first task and the other one that reads its first input
  const DataId shared = w.accesses(0)[0].data;
  for (TaskId t = 0; t < w.task_count(); ++t) {
    for (const Access& a : w.accesses(t)) {
      if (a.data == shared) sharing.push_back(t);
    }
  }
  REQUIRE(sharing.size() == 2);
  LoggedMemory memory(w.data_count());
  memory.set(0, shared, ReplicaState::Resident);
  for (const Access& a : w.accesses(sharing[1])) {
    if (a.data != shared) memory.set(0, a.data, ReplicaState::Loading);  // the second task's other input is on its way
  }
  SchedulerContext context;
  context.memory = &memory;
  const auto first_pop = [&](const std::string& spec) {
    const auto made = prepared(spec, w, p, context);
    for (TaskId t : sharing) made->push(t);
    return made->pop(0);
  };
  CHECK(first_pop("dmdar") == std::optional<TaskId>(sharing[1]));
  CHECK(first_pop("dmdas") == std::optional<TaskId>(sharing[1]));
  CHECK(first_pop("dmdar:loading_tiebreak=0") == std::optional<TaskId>(sharing[0]));
  CHECK(first_pop("dmdas:estimate=starpu,loading_tiebreak=0") == std::optional<TaskId>(sharing[0]));
  CHECK_FALSE(make_scheduler("dmda:loading_tiebreak=0").ok());  // dmda has no Ready
}
