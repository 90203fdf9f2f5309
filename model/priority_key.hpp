// The one order in which tasks waiting by priority are served: the highest priority first, and
// among equals the one that arrived first (StarPU's priority lists; the papers' ready queues).
// Schedulers' queues keep std::set<PriorityKey>; a queue served only from its front keeps a
// PriorityFifo, which gives the same order at a fraction of the cost.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>

#include "model/model.hpp"

namespace tilelens {

struct PriorityKey {
  std::int64_t priority;
  std::uint64_t release;  // arrival order, among keys of one queue
  TaskId task;
  bool operator<(const PriorityKey& o) const { return priority != o.priority ? priority > o.priority : release < o.release; }
};

// PriorityKey's order for a queue that is only ever served from its front: one FIFO per
// priority, so that an arrival costs a lookup among the priorities in use rather than a
// balanced-tree insert among every waiting task (the replay's push-time prefetch queue holds
// every ready task).
class PriorityFifo {
 public:
  bool empty() const { return buckets_.empty(); }
  void push(std::int64_t priority, TaskId task) { buckets_[priority].push_back(task); }
  TaskId front() const { return buckets_.begin()->second.front(); }
  void pop_front() {
    const auto first = buckets_.begin();
    first->second.pop_front();
    if (first->second.empty()) buckets_.erase(first);
  }

 private:
  std::map<std::int64_t, std::deque<TaskId>, std::greater<>> buckets_;  // the highest priority first
};

}  // namespace tilelens
