// Serving per-GPU task lists computed up front (HFP's packages, the partitioner's parts): each
// GPU takes from its own list, the first ready task or, with Ready, the one Ready picks; a
// GPU whose list has no ready task left steals the last ready task of the list with the most
// ready tasks (issue 4: "load balancing by task stealing at the end"). On a DAG only pushed
// (ready) tasks are served; each list keeps the positions of its ready tasks, so neither the
// first nor the last one costs a scan. Ready uses the incremental ReadyIndex, or the plain
// scan (`scan`, slower, kept to check the index against).
#pragma once

#include <functional>

#include "schedulers/ready.hpp"

namespace tilelens {

class QueueServer {
 public:
  struct Options {
    bool ready = true;
    bool steal = true;
    bool scan = false;
    // Count the tasks StarPU's Ready scan would visit even where the index spares the scan
    // (SchedulerContext::count_scans).
    bool count_scans = false;
  };
  // Called when a task joins a GPU's list, with its position there (HFP's known future).
  using Appended = std::function<void(GpuId, TaskId, std::size_t)>;

  void reset(const Workload& workload, std::uint32_t gpus, const MemoryView& memory, Options options, Appended appended = {}) {
    workload_ = &workload;
    memory_ = &memory;
    options_ = options;
    appended_ = std::move(appended);
    queues_.assign(gpus, {});
    ready_.assign(gpus, {});
    indexes_.assign(gpus, {});
    for (GpuId g = 0; g < gpus; ++g) indexes_[g].reset(workload, g, memory);
    pushed_.assign(workload.task_count(), 0);
    gpu_of_.assign(workload.task_count(), kNoId);
    position_.assign(workload.task_count(), 0);
    state_.assign(static_cast<std::size_t>(gpus) * workload.data_count(), ReplicaState::Absent);
  }

  void append(GpuId g, TaskId task) {
    const std::size_t position = queues_[g].end_position();
    queues_[g].push_back(task, workload_->tasks()[task].priority);
    gpu_of_[task] = g;
    position_[task] = position;
    if (pushed_[task]) make_ready(task);
    if (appended_) appended_(g, task, position);
  }

  void push(TaskId task) {
    pushed_[task] = 1;
    if (gpu_of_[task] != kNoId) make_ready(task);
  }

  std::optional<TaskId> pop(GpuId g) {
    auto position = select(g);
    if (!position && options_.steal && steal(g)) position = select(g);
    if (!position) return std::nullopt;
    const TaskId task = queues_[g].take(*position);
    forget(task);
    return task;
  }

  // The replica state hooks of the scheduler, forwarded.
  void on_state(GpuId g, DataId d, ReplicaState after) {
    ReplicaState& before = state_[static_cast<std::size_t>(g) * workload_->data_count() + d];
    if (indexed()) indexes_[g].changed(d, before, after);
    before = after;
  }

  const TaskQueue& queue(GpuId g) const { return queues_[g]; }
  std::uint64_t tasks_scanned() const { return scanned_; }

 private:
  bool indexed() const { return options_.ready && !options_.scan; }

  void make_ready(TaskId task) {
    ready_[gpu_of_[task]].insert(position_[task]);
    if (indexed()) indexes_[gpu_of_[task]].add(task, position_[task]);
  }
  void forget(TaskId task) {
    ready_[gpu_of_[task]].erase(position_[task]);
    if (indexed()) indexes_[gpu_of_[task]].remove(task);
  }

  std::optional<std::size_t> select(GpuId g) {
    TaskQueue& queue = queues_[g];
    const auto eligible = [this](TaskId t) { return pushed_[t] != 0; };
    if (options_.ready) {
      if (options_.scan) return ready_select(queue, *workload_, *memory_, g, ReadyPriority::Ignored, eligible, scanned_);
      auto best = indexes_[g].best();
      if (best && options_.count_scans) {
        // The scan visits every ready task up to the first that needs nothing, or all of them.
        const auto& ready = ready_[g];
        scanned_ += indexes_[g].best_needs_nothing()
                        ? static_cast<std::uint64_t>(std::distance(ready.begin(), ready.upper_bound(best->second)))
                        : ready.size();
      }
      if (best) return best->second;
      return std::nullopt;
    }
    if (ready_[g].empty()) return std::nullopt;
    return *ready_[g].begin();
  }

  bool steal(GpuId thief) {
    std::optional<GpuId> victim;
    for (GpuId g = 0; g < queues_.size(); ++g) {
      if (g != thief && !ready_[g].empty() && (!victim || ready_[g].size() > ready_[*victim].size())) victim = g;
    }
    if (!victim) return false;
    const TaskId task = queues_[*victim].take(*ready_[*victim].rbegin());
    forget(task);
    append(thief, task);
    return true;
  }

  const Workload* workload_ = nullptr;
  const MemoryView* memory_ = nullptr;
  Options options_;
  Appended appended_;
  std::vector<TaskQueue> queues_;
  std::vector<std::set<std::size_t>> ready_;  // per GPU: positions of its ready, untaken tasks
  std::vector<ReadyIndex> indexes_;
  std::vector<char> pushed_;
  std::vector<GpuId> gpu_of_;
  std::vector<std::size_t> position_;
  std::vector<ReplicaState> state_;  // per (GPU, data), as the hooks told
  std::uint64_t scanned_ = 0;
};

}  // namespace tilelens
