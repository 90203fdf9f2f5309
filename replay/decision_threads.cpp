// The scheduling-cost clock; see decision_threads.hpp.
#include "replay/decision_threads.hpp"

namespace tilelens::replay_detail {

void DecisionThreads::reset(const SchedulingCost& cost, std::uint32_t workers) {
  cost_ = cost;
  charging_ = cost_.charged();
  submitter_ = workers;
  thread_free_.assign(workers + 1, 0);
  to_push_.assign(workers + 1, {});
  entering_.assign(workers, kNoId);
  charged_ns_ = 0;
}

// The pushes of one thread run one after the other, each when the previous one's cost has
// elapsed; the pushed task is the scheduler's from the moment its push starts.
void DecisionThreads::run_pushes(std::uint32_t thread, std::int64_t now, ExecutionDevice& device, FunctionRef<std::uint64_t(TaskId)> push) {
  auto& waiting = to_push_[thread];
  while (!waiting.empty() && thread_free_[thread] <= now) {
    const TaskId task = waiting.front();
    waiting.pop_front();
    keep_busy(thread, cost_.push_cost(push(task)), now, device);
  }
}

bool DecisionThreads::hold_pop(std::uint32_t worker, TaskId task, std::uint64_t scanned, std::int64_t now, ExecutionDevice& device) {
  if (!charging_) return false;
  const std::int64_t cost = cost_.pop_cost(scanned);
  if (cost <= 0) return false;
  keep_busy(worker, cost, now, device);
  entering_[worker] = task;
  return true;
}

void DecisionThreads::end_decisions(std::int64_t now, ExecutionDevice& device, FunctionRef<void(std::uint32_t, TaskId)> enter,
                                    FunctionRef<std::uint64_t(TaskId)> push) {
  for (std::uint32_t worker = 0; worker < entering_.size(); ++worker) {
    if (entering_[worker] != kNoId && thread_free_[worker] <= now) {
      const TaskId task = entering_[worker];
      entering_[worker] = kNoId;
      enter(worker, task);
    }
  }
  for (std::uint32_t thread = 0; thread < thread_free_.size(); ++thread) run_pushes(thread, now, device, push);
}

void DecisionThreads::keep_busy(std::uint32_t thread, std::int64_t cost, std::int64_t now, ExecutionDevice& device) {
  if (cost <= 0) return;
  thread_free_[thread] = now + cost;
  charged_ns_ += cost;
  device.wake_at(thread_free_[thread]);
}

}  // namespace tilelens::replay_detail
