// The one order in which tasks waiting by priority are served: the highest priority first, and
// among equals the one that arrived first (StarPU's priority lists; the papers' ready queues).
// Schedulers' queues and the replay's request queues keep std::set<PriorityKey>.
#pragma once

#include <cstdint>

#include "model/model.hpp"

namespace tilelens {

struct PriorityKey {
  std::int64_t priority;
  std::uint64_t release;  // arrival order, among keys of one queue
  TaskId task;
  bool operator<(const PriorityKey& o) const { return priority != o.priority ? priority > o.priority : release < o.release; }
};

}  // namespace tilelens
