// fgcs Theorems 1 and 3 on random tiny instances: for a fixed order on one GPU with no
// prefetch window, Belady makes the minimum number of loads (found here by exhaustive
// search over eviction choices), no policy does better, and reversing the order under
// Belady gives the same count.
#include <catch2/catch.hpp>
#include <map>

#include "helpers.hpp"
#include "util/rng.hpp"

using namespace tilelens;

namespace {

struct Instance {
  Workload workload;
  std::vector<TaskId> order;
  int memory_items;
};

Instance random_instance(Rng& rng) {
  const int data_count = 3 + static_cast<int>(rng.below(5));   // 3..7
  const int task_count = 2 + static_cast<int>(rng.below(8));   // 2..9
  WorkloadBuilder builder("tiny");
  const KindId kind = builder.kind("K");
  for (int d = 0; d < data_count; ++d) builder.add_data({"d" + std::to_string(d), 100, 'D', d, 0});
  int widest = 1;
  for (int t = 0; t < task_count; ++t) {
    const int inputs = 1 + static_cast<int>(rng.below(3));
    std::vector<DataId> chosen;
    while (static_cast<int>(chosen.size()) < std::min(inputs, data_count)) {
      const auto d = static_cast<DataId>(rng.below(static_cast<std::uint64_t>(data_count)));
      if (std::find(chosen.begin(), chosen.end(), d) == chosen.end()) chosen.push_back(d);
    }
    std::vector<Access> accesses;
    for (DataId d : chosen) accesses.push_back({d, AccessMode::Read});
    builder.add_task(kind, accesses, 100);
    widest = std::max(widest, static_cast<int>(chosen.size()));
  }
  auto w = std::move(builder).finish();
  REQUIRE(w.ok());
  std::vector<TaskId> order(static_cast<std::size_t>(task_count));
  for (int t = 0; t < task_count; ++t) order[static_cast<std::size_t>(t)] = static_cast<TaskId>(t);
  rng.shuffle(order);
  const int memory = widest + static_cast<int>(rng.below(static_cast<std::uint64_t>(std::max(1, data_count - widest))));
  return {std::move(*w), order, memory};
}


// The fgcs model (section 3), in which the theorems hold: no prefetch, a load only when the
// next task needs it.
std::uint64_t replay_loads(const Workload& w, const std::vector<TaskId>& order, int memory, const std::string& eviction) {
  ExplicitOrderScheduler scheduler(order);
  const auto run = test::run_replay(w, scheduler, eviction, test::small_platform(memory * 100.0), 1, "fgcs");
  return run.summary.loads;
}

}  // namespace

TEST_CASE("Belady equals the exhaustive minimum on 300 random tiny instances (fgcs Theorem 1)", "[belady]") {
  Rng rng(20231);
  int evictions_seen = 0;
  for (int instance = 0; instance < 300; ++instance) {
    const Instance i = random_instance(rng);
    const std::uint64_t optimum = test::exhaustive_minimum_loads(i.workload, i.order, i.memory_items);
    INFO("instance " << instance << ": " << i.workload.task_count() << " tasks, " << i.workload.data_count() << " data, M=" << i.memory_items);
    CHECK(replay_loads(i.workload, i.order, i.memory_items, "belady") == optimum);
    CHECK(replay_loads(i.workload, i.order, i.memory_items, "lru") >= optimum);
    CHECK(replay_loads(i.workload, i.order, i.memory_items, "fifo") >= optimum);
    evictions_seen += replay_loads(i.workload, i.order, i.memory_items, "lru") > optimum ? 1 : 0;
  }
  CHECK(evictions_seen > 10);  // the instances are tight enough that LRU loses on some
}

TEST_CASE("reversing the order does not change Belady's loads (fgcs Theorem 3)", "[belady]") {
  Rng rng(7);
  for (int instance = 0; instance < 200; ++instance) {
    const Instance i = random_instance(rng);
    std::vector<TaskId> reversed(i.order.rbegin(), i.order.rend());
    INFO("instance " << instance);
    CHECK(replay_loads(i.workload, i.order, i.memory_items, "belady") == replay_loads(i.workload, reversed, i.memory_items, "belady"));
  }
  // And on a real workload, CM and RCM orders load the same under Belady.
  const Workload w = test::generated("matmul2d:N=12,b=32");
  const double row = static_cast<double>(w.largest_data_bytes());
  for (int items : {3, 5, 8}) {
    ExplicitOrderScheduler cm(cuthill_mckee_order(w, false)), rcm(cuthill_mckee_order(w, true));
    const Platform p = test::small_platform(row * items);
    CHECK(test::run_replay(w, cm, "belady", p, 1, "fgcs").summary.loads == test::run_replay(w, rcm, "belady", p, 1, "fgcs").summary.loads);
  }
}

TEST_CASE("Belady needs a scheduler with a known future", "[belady][errors]") {
  class Blind final : public Scheduler {
   public:
    void prepare(const Workload&, const Platform&, const SchedulerContext&) override {}
    void push(TaskId task) override { ready_.push_back(task); }
    std::optional<TaskId> pop(GpuId) override {
      if (ready_.empty()) return std::nullopt;
      const TaskId t = ready_.back();
      ready_.pop_back();
      return t;
    }

   private:
    std::vector<TaskId> ready_;
  } blind;
  const Workload w = test::generated("matmul2d:N=3,b=8");
  auto belady = make_eviction("belady");
  ReplayOptions options;
  options.platform = test::small_platform(1e9);
  auto result = replay(w, blind, *belady->policy, options);
  REQUIRE_FALSE(result.ok());
  CHECK_THAT(result.error().message, Catch::Contains("knows its future order"));
}
