// What a trace says (analysis/time_split, divergence, residency): where workers' time went, where two
// schedules part, which data sat in memory. Hand
// traces with known answers, then properties of real replays (each worker's states fill the
// span; busy time is the engine's own; identical runs never part; the loads add up).
#include <catch2/catch.hpp>

#include <map>

#include "analysis/divergence.hpp"
#include "analysis/residency.hpp"
#include "analysis/time_split.hpp"
#include "helpers.hpp"

using namespace tilelens;

namespace {
TaskRecord task_record(TaskId task, GpuId gpu, std::int64_t buffered, std::int64_t start, std::int64_t end) {
  return TaskRecord{.task = task, .gpu = gpu, .global_order = 0, .gpu_order = 0, .buffered_ns = buffered, .start_ns = start, .end_ns = end};
}
}  // namespace

TEST_CASE("time split of a hand trace: each gap is cut at the task's entry into the buffer", "[analysis]") {
  // GPU 0: held task 0 from 0, started at 30 (30 waiting), ran to 100; task 1 entered at 150
  // (50 with nothing to hold), started at 170 (20 waiting), ran to 300. GPU 1: task 2 from 120
  // to 200, entered its buffer at 100, then idle to the span's end (300).
  const std::vector<TaskRecord> tasks = {task_record(0, 0, 0, 30, 100), task_record(2, 1, 100, 120, 200), task_record(1, 0, 150, 170, 300)};
  const TimeSplit split = split_worker_time(tasks, 2, 0);
  REQUIRE(split.span_ns == 300);
  REQUIRE(split.workers.size() == 2);
  CHECK(split.workers[0].of(WorkerState::Busy) == 200);
  CHECK(split.workers[0].of(WorkerState::WaitingForData) == 50);
  CHECK(split.workers[0].of(WorkerState::NoReadyTask) == 50);
  CHECK(split.workers[1].of(WorkerState::Busy) == 80);
  CHECK(split.workers[1].of(WorkerState::NoReadyTask) == 100 + 100);
  CHECK(split.workers[1].of(WorkerState::WaitingForData) == 20);
  for (const WorkerTime& worker : split.workers) CHECK(worker.total() == 300);
  CHECK(split.all().of(WorkerState::Busy) == 280);
  // The idle intervals, per worker in time order, touching ones of one state merged.
  REQUIRE(split.idle.size() == 6);
  CHECK(split.idle[0].worker == 0);
  CHECK(split.idle[0].state == WorkerState::WaitingForData);
  CHECK(split.idle[0].end_ns == 30);
  CHECK(split.idle[1].state == WorkerState::NoReadyTask);
  CHECK(split.idle[1].begin_ns == 100);
  CHECK(split.idle[1].end_ns == 150);
  CHECK(split.idle[5].worker == 1);
  CHECK(split.idle[5].begin_ns == 200);
}

TEST_CASE("time split: the charged preparation comes first, a worker that ran nothing is idle throughout", "[analysis]") {
  const std::vector<TaskRecord> tasks = {task_record(0, 0, 0, 50, 80)};
  const TimeSplit split = split_worker_time(tasks, 3, 40);
  REQUIRE(split.workers.size() == 3);
  CHECK(split.workers[0].of(WorkerState::SchedulerCost) == 40);
  CHECK(split.workers[0].of(WorkerState::WaitingForData) == 10);
  CHECK(split.workers[0].of(WorkerState::Busy) == 30);
  CHECK(split.workers[2].of(WorkerState::SchedulerCost) == 40);
  CHECK(split.workers[2].of(WorkerState::NoReadyTask) == 40);
  CHECK(split.workers[2].total() == 80);
  CHECK(std::string(to_string(WorkerState::WaitingForData)) == "waiting for data");
}

TEST_CASE("time split of replays: states fill the span and busy time is the engine's", "[analysis]") {
  const Workload w = test::generated("cholesky:N=8");
  for (const std::string scheduler : {"eager", "dmdar", "lws"}) {
    for (std::uint32_t gpus : {1u, 2u}) {
      const Platform platform = test::small_platform(static_cast<double>(w.working_set_bytes()) / 4, gpus);
      const test::Run run = test::run_replay(w, scheduler, "lru", platform, 2);
      const TimeSplit split = split_worker_time(run.trace.tasks, gpus, run.summary.charged_ns);
      INFO(scheduler << " on " << gpus << " GPUs");
      CHECK(split.span_ns == run.summary.makespan_ns);
      std::int64_t idle = 0;
      for (GpuId g = 0; g < gpus; ++g) {
        CHECK(split.workers[g].total() == split.span_ns);
        CHECK(split.workers[g].of(WorkerState::Busy) == run.summary.gpus[g].busy_ns);
        idle += split.span_ns - split.workers[g].of(WorkerState::Busy);
      }
      CHECK(idle == run.summary.idle_ns);
      // Under a quarter of the working set, tasks wait for their data.
      CHECK(split.all().of(WorkerState::WaitingForData) > 0);
    }
  }
}

TEST_CASE("divergence: identical runs never part, and two schedulers part where their orders first differ", "[analysis]") {
  const Workload w = test::generated("matmul2d:N=6");
  const Platform platform = test::small_platform(6 * static_cast<double>(w.data()[0].bytes));
  const test::Run eager = test::run_replay(w, "eager", "lru", platform, 1);
  const test::Run again = test::run_replay(w, "eager", "lru", platform, 1);
  const Divergence same = find_divergence(eager.trace, again.trace);
  CHECK(same.identical);
  CHECK(same.rank == w.task_count());
  CHECK(same.first.task == kNoId);
  CHECK(same.first.loads_after == 0);
  CHECK(same.first.loads_before == eager.trace.loads.size());

  const test::Run hfp = test::run_replay(w, "hfp", "lru", platform, 1);
  const Divergence part = find_divergence(eager.trace, hfp.trace);
  REQUIRE_FALSE(part.identical);
  std::uint32_t expected = 0;
  while (eager.trace.tasks[expected].task == hfp.trace.tasks[expected].task) ++expected;
  CHECK(part.rank == expected);
  CHECK(part.first.task == eager.trace.tasks[expected].task);
  CHECK(part.second.task == hfp.trace.tasks[expected].task);
  CHECK(part.first.task != part.second.task);
  CHECK(part.first.loads_before + part.first.loads_after == eager.trace.loads.size());
  CHECK(part.second.loads_before + part.second.loads_after == hfp.trace.loads.size());
  std::uint64_t bytes = 0;
  for (const LoadRecord& load : hfp.trace.loads) bytes += load.bytes;
  CHECK(part.second.bytes_after <= bytes);
  CHECK(part.second.loads_after > 0);
}

TEST_CASE("residency of a hand trace: a load opens a stay, its eviction closes it, a stay the trace began with starts at 0", "[analysis]") {
  Trace trace;
  trace.loads.push_back(LoadRecord{.data = 3, .gpu = 0, .task = 7, .source = kFromHost, .kind = LoadKind::Fetch, .bytes = 10, .issue_ns = 10, .end_ns = 20});
  trace.loads.push_back(LoadRecord{.data = 3, .gpu = 0, .task = 9, .source = kFromHost, .kind = LoadKind::Fetch, .bytes = 10, .issue_ns = 60, .end_ns = 70});
  trace.allocations.push_back(AllocationRecord{.data = 4, .gpu = 1, .time_ns = 30, .task = 8});
  trace.evictions.push_back(EvictionRecord{.data = 3, .gpu = 0, .for_task = 8, .cause = EvictionCause::Capacity, .wrote_back = false, .time_ns = 50});
  trace.evictions.push_back(EvictionRecord{.data = 5, .gpu = 0, .for_task = 8, .cause = EvictionCause::Capacity, .wrote_back = true, .time_ns = 40});
  const std::vector<Residency> stays = residencies(trace, 100);
  REQUIRE(stays.size() == 4);
  // GPU 0 by time: data 5 (there from the start, evicted at 40), data 3 twice; then GPU 1.
  CHECK(stays[0].data == 5);
  CHECK(stays[0].from_ns == 0);
  CHECK(stays[0].load == kNoRecord);
  CHECK(stays[0].until_ns == 40);
  CHECK(stays[0].eviction == 1);
  CHECK(stays[1].data == 3);
  CHECK(stays[1].from_ns == 10);
  CHECK(stays[1].resident_ns == 20);
  CHECK(stays[1].until_ns == 50);
  CHECK(stays[1].load == 0);
  CHECK(stays[1].eviction == 0);
  CHECK(stays[2].load == 1);
  CHECK(stays[2].until_ns == 100);  // stayed to the end
  CHECK(stays[2].eviction == kNoRecord);
  CHECK(stays[3].gpu == 1);
  CHECK(stays[3].allocation == 0);
  CHECK(stays[3].resident_ns == 30);
}

TEST_CASE("residency of replays: every record opens or closes one stay, stays never overlap, and they fit in M", "[analysis]") {
  const Workload w = test::generated("cholesky:N=8");
  for (const std::string scheduler : {"eager", "dmdar"}) {
    const Platform platform = test::small_platform(static_cast<double>(w.working_set_bytes()) / 4, 2);
    const test::Run run = test::run_replay(w, scheduler, "lru", platform, 2);
    INFO(scheduler);
    const std::vector<Residency> stays = residencies(run.trace, run.summary.makespan_ns);
    CHECK(stays.size() == run.trace.loads.size() + run.trace.allocations.size());
    std::vector<int> closed(run.trace.evictions.size(), 0);
    std::map<std::pair<GpuId, DataId>, std::int64_t> last_until;
    std::vector<std::pair<std::int64_t, std::int64_t>> changes;  // per GPU 0: (time, +-bytes)
    for (const Residency& stay : stays) {
      CHECK(stay.from_ns <= stay.resident_ns);
      CHECK(stay.resident_ns <= stay.until_ns);
      if (stay.eviction != kNoRecord) ++closed[stay.eviction];
      CHECK((stay.load != kNoRecord) != (stay.allocation != kNoRecord));
      const auto key = std::pair{stay.gpu, stay.data};
      if (last_until.count(key)) CHECK(last_until[key] <= stay.from_ns);
      last_until[key] = stay.until_ns;
      if (stay.gpu == 0) {
        const auto bytes = static_cast<std::int64_t>(w.data()[stay.data].bytes);
        changes.push_back({stay.from_ns, bytes});
        if (stay.eviction != kNoRecord) changes.push_back({stay.until_ns, -bytes});
      }
    }
    for (int count : closed) CHECK(count == 1);
    std::sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) { return std::tie(a.first, a.second) < std::tie(b.first, b.second); });
    std::int64_t in_use = 0, peak = 0;
    for (const auto& [time, delta] : changes) peak = std::max(peak, in_use += delta);
    CHECK(peak == static_cast<std::int64_t>(run.summary.gpus[0].peak_bytes));
  }
}
