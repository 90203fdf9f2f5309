// The scheduling-cost clock (ReplayOptions::scheduling_cost, docs/replay.md "Scheduling
// cost"): when decisions cost simulated time, each worker's thread and the submitter's (the
// application's, which pushes the tasks ready at the start) make one decision at a time. A
// push keeps its thread busy for its cost; a charged pop hands its task out once its cost has
// elapsed, and the worker starts no task meanwhile. With no cost, nothing here is used and
// every push and pop takes effect at once. Internal to replay/.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "util/function_ref.hpp"
#include "runtime/scheduling_cost.hpp"
#include "replay/execution_device.hpp"

namespace tilelens::replay_detail {

class DecisionThreads {
 public:
  // Threads 0 to workers - 1 are the workers', thread `workers` the submitter's.
  void reset(const SchedulingCost& cost, std::uint32_t workers);
  bool charging() const { return charging_; }
  std::uint32_t submitter() const { return submitter_; }
  // The thread is still deciding at `now`, or its worker waits for a popped task to enter.
  bool busy(std::uint32_t thread, std::int64_t now) const { return charging_ && thread_free_[thread] > now; }
  bool entering(std::uint32_t worker) const { return charging_ && entering_[worker] != kNoId; }

  // The push of `task` waits for `thread`; run_pushes then runs it once the thread is free.
  void queue_push(std::uint32_t thread, TaskId task) { to_push_[thread].push_back(task); }
  // Runs the pushes waiting for `thread` while it is free, each keeping it busy for its cost;
  // `push` pushes one task and returns the tasks the scheduler scanned.
  void run_pushes(std::uint32_t thread, std::int64_t now, ExecutionDevice& device, FunctionRef<std::uint64_t(TaskId)> push);
  // A pop that scanned `scanned` tasks: true when its cost holds the task back until it has
  // elapsed (end_decisions then hands it to `enter`).
  bool hold_pop(std::uint32_t worker, TaskId task, std::uint64_t scanned, std::int64_t now, ExecutionDevice& device);
  // The pops and pushes whose cost ended by `now`.
  void end_decisions(std::int64_t now, ExecutionDevice& device, FunctionRef<void(std::uint32_t, TaskId)> enter,
                     FunctionRef<std::uint64_t(TaskId)> push);
  std::int64_t charged_ns() const { return charged_ns_; }

 private:
  void keep_busy(std::uint32_t thread, std::int64_t cost, std::int64_t now, ExecutionDevice& device);

  SchedulingCost cost_;
  bool charging_ = false;
  std::uint32_t submitter_ = 0;
  std::vector<std::int64_t> thread_free_;  // per thread: busy until then
  std::vector<std::deque<TaskId>> to_push_;  // per thread: released tasks waiting for its push
  std::vector<TaskId> entering_;           // per worker: the task its pop hands out when its cost has elapsed
  std::int64_t charged_ns_ = 0;
};

}  // namespace tilelens::replay_detail
