// The one order in which tasks waiting by priority are served: the highest priority first, and
// among equals the one that arrived first (StarPU's priority lists; the papers' ready queues).
// Schedulers' queues keep std::set<PriorityKey>; a queue served only from its front keeps a
// PriorityFifo, which gives the same order at a fraction of the cost.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "model/model.hpp"

namespace tilelens {

struct PriorityKey {
  std::int64_t priority;
  std::uint64_t release;  // arrival order, among keys of one queue
  TaskId task;
  bool operator<(const PriorityKey& o) const { return priority != o.priority ? priority > o.priority : release < o.release; }
};

// PriorityKey's order for a queue that is only ever served from its front. Arrivals that come
// in that order already (a priority no higher than the last one's: every task of the papers'
// products has one priority, and bottom levels mostly fall as a DAG unfolds) join a FIFO; the
// others a binary heap; the front is the first of the two fronts. Both cost O(1) where most
// arrivals are in order, where the map of FIFOs this replaced allocated a node and a deque per
// distinct priority, and a balanced tree of every waiting task (the replay's push-time prefetch
// queue holds every ready task) cost far more in cache misses.
class PriorityFifo {
 public:
  bool empty() const { return in_order_.empty() && heap_.empty(); }
  void push(std::int64_t priority, TaskId task) {
    const PriorityKey key{priority, arrivals_++, task};
    if (in_order_.empty() || priority <= in_order_.back().priority) {
      in_order_.push_back(key);
    } else {
      heap_.push_back(key);
      std::push_heap(heap_.begin(), heap_.end(), after);
    }
  }
  TaskId front() const { return from_heap() ? heap_.front().task : in_order_.front().task; }
  void pop_front() {
    if (from_heap()) {
      std::pop_heap(heap_.begin(), heap_.end(), after);
      heap_.pop_back();
    } else {
      in_order_.pop_front();
    }
  }

 private:
  // The heap keeps its greatest element first: the one PriorityKey orders first.
  static bool after(const PriorityKey& a, const PriorityKey& b) { return b < a; }
  bool from_heap() const { return !heap_.empty() && (in_order_.empty() || heap_.front() < in_order_.front()); }
  std::deque<PriorityKey> in_order_;
  std::vector<PriorityKey> heap_;
  std::uint64_t arrivals_ = 0;
};

}  // namespace tilelens
