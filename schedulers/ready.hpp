// A GPU's queue of planned tasks and the Ready selection that reorders it (fgcs Algorithm 4,
// REFERENCE.md "Ready"), shared by DMDAR/DMDAS and HFP.
//
// Ready, as StarPU's STARPU_SCHED_READY does it: among the queued tasks whose priority is at
// least the head's, take the one with the fewest bytes not yet resident on the GPU (a
// transfer in flight counts as not resident), then the fewest bytes not even being loaded,
// then the earliest in the queue; the scan stops at the first task that needs nothing.
#pragma once

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "schedulers/scheduler.hpp"

namespace tilelens {

// Tasks in planned order with lazy removal: taking a task from the middle marks it, and the
// head skips marked entries, so take() is O(1) and the queue stays in planned order. Each entry
// keeps its task's priority beside it: StarPU's Ready compares every entry's priority with the
// head's, and reading them in a row costs a scan far less than one task record each.
class TaskQueue {
 public:
  void clear() {
    items_.clear();
    priorities_.clear();
    taken_.clear();
    head_ = 0;
    live_ = 0;
  }
  void push_back(TaskId task, std::int64_t priority) {
    items_.push_back(task);
    priorities_.push_back(priority);
    taken_.push_back(0);
    ++live_;
  }
  // Inserts before the first entry of lower priority (DMDAS: priority order, first come first
  // among equals); returns how many entries it examined.
  std::size_t insert_by_priority(TaskId task, std::int64_t priority) {
    compact();
    const auto at = static_cast<std::size_t>(
        std::find_if(priorities_.begin(), priorities_.end(), [&](std::int64_t other) { return other < priority; }) - priorities_.begin());
    items_.insert(items_.begin() + static_cast<std::ptrdiff_t>(at), task);
    priorities_.insert(priorities_.begin() + static_cast<std::ptrdiff_t>(at), priority);
    taken_.insert(taken_.begin() + static_cast<std::ptrdiff_t>(at), 0);
    ++live_;
    return std::min(at + 1, items_.size() - 1);
  }
  bool empty() const { return live_ == 0; }
  std::size_t size() const { return live_; }
  // Positions are stable until the next insert_by_priority or remove.
  std::size_t begin_position() {
    while (head_ < items_.size() && taken_[head_]) ++head_;
    return head_;
  }
  std::size_t end_position() const { return items_.size(); }
  bool taken(std::size_t position) const { return taken_[position] != 0; }
  TaskId at(std::size_t position) const { return items_[position]; }
  std::int64_t priority(std::size_t position) const { return priorities_[position]; }
  TaskId take(std::size_t position) {
    taken_[position] = 1;
    --live_;
    return items_[position];
  }
  // Takes the task at `position` out of the queue at once, moving the later entries up: for a
  // queue whose positions are not kept between calls (DMDAR's), whose scan then walks live
  // entries only (the move is a memmove of the tail, cheaper than stepping over holes).
  TaskId remove(std::size_t position) {
    const TaskId task = items_[position];
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(position));
    priorities_.erase(priorities_.begin() + static_cast<std::ptrdiff_t>(position));
    taken_.erase(taken_.begin() + static_cast<std::ptrdiff_t>(position));
    --live_;
    return task;
  }

 private:
  void compact() {
    std::size_t out = 0;
    for (std::size_t i = 0; i < items_.size(); ++i) {
      if (taken_[i]) continue;
      items_[out] = items_[i];
      priorities_[out++] = priorities_[i];
    }
    items_.resize(out);
    priorities_.resize(out);
    taken_.assign(out, 0);
    head_ = 0;
  }

  std::vector<TaskId> items_;
  std::vector<std::int64_t> priorities_;
  std::vector<char> taken_;
  std::size_t head_ = 0;
  std::size_t live_ = 0;
};

// Which queued tasks Ready weighs: all of them (the papers' HFP and partitioner), or, as
// StarPU's _starpu_fifo_pop_first_ready_task does (fifo_queues.c:398-433), only those whose
// priority is at least the head's, the others skipped wherever they sit in the queue.
enum class ReadyPriority { Ignored, AtLeastHead };

// What Ready weighs for a task on a GPU: the bytes of its inputs not resident there (a
// transfer in flight counts as not resident), and of those not even being loaded.
struct ReadyCost {
  double missing = 0, absent = 0;
};
inline ReadyCost ready_cost(const Workload& workload, const MemoryView& memory, GpuId gpu, TaskId task) {
  ReadyCost cost;
  for (const Access& access : workload.accesses(task)) {
    if (!reads(access.mode)) continue;
    const ReplicaState state = memory.state(gpu, access.data);
    if (state == ReplicaState::Resident) continue;
    const auto bytes = static_cast<double>(workload.data()[access.data].bytes);
    cost.missing += bytes;
    if (state == ReplicaState::Absent) cost.absent += bytes;
  }
  return cost;
}

// The position Ready picks in `queue`, among live tasks for which `eligible(task)` is true (HFP
// on a DAG: the pushed ones), weighed by `cost(task)` (a ReadyCost) as `priority` says. Adds
// the tasks it examined to `scanned`.
template <class Eligible, class Cost>
std::optional<std::size_t> ready_select_by(TaskQueue& queue, ReadyPriority priority_rule, Eligible&& eligible,
                                           Cost&& cost, std::uint64_t& scanned) {
  std::optional<std::size_t> best;
  double best_missing = 0, best_absent = 0;
  const std::size_t end = queue.end_position();
  std::size_t p = queue.begin_position();
  while (p < end && (queue.taken(p) || !eligible(queue.at(p)))) ++p;
  if (p == end) return best;
  // Below the head's priority an entry is skipped whatever else it is: that test comes first,
  // on the priorities the queue keeps in a row (most entries of a DAG's queue fail it).
  const std::int64_t head_priority = queue.priority(p);
  const bool by_priority = priority_rule == ReadyPriority::AtLeastHead;
  for (; p < end; ++p) {
    if (by_priority && queue.priority(p) < head_priority) continue;
    if (queue.taken(p)) continue;
    const TaskId task = queue.at(p);
    if (!eligible(task)) continue;
    ++scanned;
    const ReadyCost weighed = cost(task);
    if (!best || weighed.missing < best_missing || (weighed.missing == best_missing && weighed.absent < best_absent)) {
      best = p;
      best_missing = weighed.missing;
      best_absent = weighed.absent;
      if (weighed.missing == 0) break;
    }
  }
  return best;
}

// The same, each task weighed by asking `memory` for the states of its inputs.
template <class Eligible>
std::optional<std::size_t> ready_select(TaskQueue& queue, const Workload& workload, const MemoryView& memory,
                                        GpuId gpu, ReadyPriority priority_rule, Eligible&& eligible, std::uint64_t& scanned) {
  return ready_select_by(queue, priority_rule, eligible,
                         [&](TaskId task) { return ready_cost(workload, memory, gpu, task); }, scanned);
}

// Each queued task's ReadyCost on its GPU, kept from the executor's log of state changes
// (MemoryView::state_change_log): a task's cost is computed again, by ready_cost, when it is
// queued and whenever a datum it reads changes state, instead of at every scan that weighs it
// (StarPU's scan, which DMDAR and DMDAS model, weighs hundreds of tasks per pop on a Cholesky
// of N = 40). The same numbers as asking at each scan; where the executor keeps no log, cost()
// asks the memory each time.
class ReadyCosts {
 public:
  void reset(const Workload& workload, const MemoryView& memory) {
    workload_ = &workload;
    memory_ = &memory;
    log_ = memory.state_change_log();
    seen_ = log_ ? log_->size() : 0;
    gpu_.assign(workload.task_count(), kNoId);
    cost_.assign(log_ ? workload.task_count() : 0, {});
  }
  void add(TaskId task, GpuId gpu) {
    gpu_[task] = gpu;
    if (log_) cost_[task] = ready_cost(*workload_, *memory_, gpu, task);
  }
  void remove(TaskId task) { gpu_[task] = kNoId; }
  // Brings the queued tasks' costs up to date with the states now.
  void refresh() {
    if (!log_) return;
    for (; seen_ < log_->size(); ++seen_) {
      for (TaskId task : workload_->readers((*log_)[seen_])) {
        if (gpu_[task] != kNoId) cost_[task] = ready_cost(*workload_, *memory_, gpu_[task], task);
      }
    }
  }
  ReadyCost cost(TaskId task) const { return log_ ? cost_[task] : ready_cost(*workload_, *memory_, gpu_[task], task); }

 private:
  const Workload* workload_ = nullptr;
  const MemoryView* memory_ = nullptr;
  const std::vector<DataId>* log_ = nullptr;
  std::size_t seen_ = 0;
  std::vector<GpuId> gpu_;  // per task: the GPU whose queue holds it, or kNoId
  std::vector<ReadyCost> cost_;
};

// Ready without the scan, for the queues served without priorities (HFP, the partitioner):
// each task of one GPU's queue that may be served keeps its bytes missing (not resident) and
// absent (not even loading) on that GPU, updated on each replica state change of the data it
// reads; the tasks sit in a set ordered as ready_select picks (fewest missing, then fewest
// absent, then queue position), so a pick is the set's first element: the same task as
// ready_select's scan (a test checks it), in O(log n) instead of O(n).
class ReadyIndex {
 public:
  void reset(const Workload& workload, GpuId gpu, const MemoryView& memory) {
    workload_ = &workload;
    gpu_ = gpu;
    memory_ = &memory;
    order_.clear();
    key_.assign(workload.task_count(), {});
    in_.assign(workload.task_count(), 0);
  }
  void add(TaskId task, std::size_t position) {
    const ReadyCost cost = ready_cost(*workload_, *memory_, gpu_, task);
    const Key key{cost.missing, cost.absent, position, task};
    key_[task] = key;
    in_[task] = 1;
    order_.insert(key);
  }
  void remove(TaskId task) {
    if (!in_[task]) return;
    order_.erase(key_[task]);
    in_[task] = 0;
  }
  // The data changed state on this GPU: every indexed task reading it moves.
  void changed(DataId data, ReplicaState before, ReplicaState after) {
    if (before == after) return;
    const auto bytes = static_cast<double>(workload_->data()[data].bytes);
    const double missing = (after != ReplicaState::Resident ? bytes : 0) - (before != ReplicaState::Resident ? bytes : 0);
    const double absent = (after == ReplicaState::Absent ? bytes : 0) - (before == ReplicaState::Absent ? bytes : 0);
    for (TaskId task : workload_->readers(data)) {
      if (!in_[task]) continue;
      order_.erase(key_[task]);
      // A task reading the data through two accesses counts it twice, as the scan does.
      for (const Access& access : workload_->accesses(task)) {
        if (!reads(access.mode) || access.data != data) continue;
        key_[task].missing += missing;
        key_[task].absent += absent;
      }
      order_.insert(key_[task]);
    }
  }
  std::optional<std::pair<TaskId, std::size_t>> best() const {
    if (order_.empty()) return std::nullopt;
    return std::pair{order_.begin()->task, order_.begin()->position};
  }
  // Whether the best task has all its inputs resident (ready_select's scan stops at it).
  bool best_needs_nothing() const { return !order_.empty() && order_.begin()->missing == 0; }

 private:
  struct Key {
    double missing = 0, absent = 0;
    std::size_t position = 0;
    TaskId task = kNoId;
    bool operator<(const Key& o) const {
      if (missing != o.missing) return missing < o.missing;
      if (absent != o.absent) return absent < o.absent;
      return position < o.position;
    }
  };
  const Workload* workload_ = nullptr;
  GpuId gpu_ = 0;
  const MemoryView* memory_ = nullptr;
  std::set<Key> order_;
  std::vector<Key> key_;
  std::vector<char> in_;
};

}  // namespace tilelens
