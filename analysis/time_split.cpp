// Where each worker's time went; see time_split.hpp.
#include "analysis/time_split.hpp"

#include <algorithm>

namespace tilelens {

const char* to_string(WorkerState state) {
  switch (state) {
    case WorkerState::Busy: return "busy";
    case WorkerState::WaitingForData: return "waiting for data";
    case WorkerState::NoReadyTask: return "no ready task";
    case WorkerState::SchedulerCost: return "scheduler cost";
  }
  return "?";
}

std::int64_t WorkerTime::total() const {
  std::int64_t sum = 0;
  for (std::int64_t part : ns) sum += part;
  return sum;
}

WorkerTime TimeSplit::all() const {
  WorkerTime sum;
  for (const WorkerTime& worker : workers) {
    for (std::size_t s = 0; s < kWorkerStates; ++s) sum.ns[s] += worker.ns[s];
  }
  return sum;
}

namespace {

class Splitter {
 public:
  Splitter(TimeSplit& split, std::int64_t charged_ns) : split_(split), charged_ns_(charged_ns) {}

  // [begin, end) on `worker`, idle: the scheduler's charged preparation first, then nothing to
  // hold until `held_from`, then the held task's data.
  void idle(GpuId worker, std::int64_t begin, std::int64_t end, std::int64_t held_from) {
    const std::int64_t prepared = std::clamp(charged_ns_, begin, end);
    add(worker, WorkerState::SchedulerCost, begin, prepared);
    const std::int64_t held = std::clamp(held_from, prepared, end);
    add(worker, WorkerState::NoReadyTask, prepared, held);
    add(worker, WorkerState::WaitingForData, held, end);
  }
  void busy(GpuId worker, std::int64_t begin, std::int64_t end) {
    split_.workers[worker].ns[static_cast<std::size_t>(WorkerState::Busy)] += std::max<std::int64_t>(0, end - begin);
  }

 private:
  void add(GpuId worker, WorkerState state, std::int64_t begin, std::int64_t end) {
    if (end <= begin) return;
    split_.workers[worker].ns[static_cast<std::size_t>(state)] += end - begin;
    if (!split_.idle.empty()) {
      StateInterval& last = split_.idle.back();
      if (last.worker == worker && last.state == state && last.end_ns == begin) {
        last.end_ns = end;
        return;
      }
    }
    split_.idle.push_back({worker, state, begin, end});
  }

  TimeSplit& split_;
  std::int64_t charged_ns_;
};

}  // namespace

TimeSplit split_worker_time(const std::vector<TaskRecord>& tasks, std::uint32_t workers, std::int64_t charged_ns) {
  TimeSplit split;
  for (const TaskRecord& task : tasks) {
    split.span_ns = std::max(split.span_ns, task.end_ns);
    workers = std::max<std::uint32_t>(workers, task.gpu + 1);
  }
  split.workers.assign(workers, {});
  // Each worker's tasks in its own start order (a trace lists them in global start order).
  std::vector<std::vector<const TaskRecord*>> on(workers);
  for (const TaskRecord& task : tasks) on[task.gpu].push_back(&task);
  Splitter splitter(split, charged_ns);
  for (GpuId worker = 0; worker < workers; ++worker) {
    std::stable_sort(on[worker].begin(), on[worker].end(), [](const TaskRecord* a, const TaskRecord* b) { return a->start_ns < b->start_ns; });
    std::int64_t free_since = 0;
    for (const TaskRecord* task : on[worker]) {
      // A task starts once its worker is free: an overlap (an import's clock skew) is busy time.
      const std::int64_t start = std::max(task->start_ns, free_since);
      splitter.idle(worker, free_since, start, task->buffered_ns);
      const std::int64_t end = std::max(task->end_ns, start);
      splitter.busy(worker, start, end);
      free_since = end;
    }
    splitter.idle(worker, free_since, split.span_ns, split.span_ns);
  }
  return split;
}

}  // namespace tilelens
