// DARTS (darts section 5, Algorithm 3; REFERENCE.md "DARTS selection"): data-first dynamic
// scheduling. Each GPU k has a list of planned tasks and the set dataNotInMem_k of the data
// some ready task reads that k neither holds nor will receive for a task it has planned or
// pulled. When k asks for a task and its plan is empty, DARTS looks for the data D of that set
// whose load makes the most work "free" on k:
//   S0(D): ready tasks whose other inputs are all present on k (free once D is there);
//   S1(D): ready tasks missing exactly one other input ("1-from-free", the slides' 3inputs);
//   ratio = transfer time of D / total duration of S0(D) (infinite when S0 is empty);
// smallest ratio first, then larger |S0|, then higher priority (over S0, or over S1 while S0
// is empty), then larger |S1|, then more remaining work reading D; full ties keep the earlier
// data of the list. If S0(D) is not empty all of it is planned and D leaves the set; else the
// highest-priority task of S1(D); else the highest-priority ready task (the first released on
// ties). Present means resident, being loaded, or read by a task planned or pulled on k.
//
// Dynamic updates (darts 5.3-5.4): a newly ready task that is already free on some GPU goes
// straight into that GPU's plan (fewest planned tasks first), before its first planned task
// that is not free; otherwise its inputs missing on each GPU join that GPU's set. After an
// eviction of D from k, the tasks planned on k that read D go back to the ready list and their
// missing inputs back to k's set; D joins the set of every GPU lacking it while a ready task
// reads it. Without dependencies GPU k starts its data list rotated by k * data / K, so the
// GPUs begin apart. Options: one_from_free (the S1 step), scan_limit (the slides' "OPTI":
// look at the first N data of the set only), first_free (stop at the first data that frees a
// task), bypass (the newly-ready shortcut). Priorities are the tasks' (bottom levels on the
// seed DAGs, 0 on independent tasks).
//
// DARTS plans per memory: workers sharing one memory (darts section 7.3, the multicore with a
// shared memory) share one plan and one set, "a single plannedTasks queue as well as a single
// taskBuffer"; below, k numbers memory nodes. On a platform with CPU workers DARTS serves the
// GPUs only, as in the paper.
#include <algorithm>
#include <limits>
#include <set>

#include "model/priority_key.hpp"
#include "schedulers/static_order.hpp"

namespace tilelens {
namespace {

struct DartsOptions {
  bool one_from_free = true;
  std::uint32_t scan_limit = 0;  // 0: the whole set
  bool first_free = false;
  bool bypass = true;
};

class Darts final : public Scheduler, public PlanView {
 public:
  explicit Darts(DartsOptions options) : options_(options) {}

  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) override {
    w_ = &workload;
    platform_ = &platform;
    memory_ = context.memory;
    K_ = platform.memory_nodes();
    nd_ = workload.data_count();
    const std::size_t tasks = workload.task_count();
    state_.assign(tasks, State::Waiting);
    release_.assign(tasks, 0);
    duration_.resize(tasks);
    for (TaskId t = 0; t < tasks; ++t) {
      const Task& task = workload.tasks()[t];
      duration_[t] = task.flops * 1e-9 / platform.gflops_of(workload.kinds()[task.kind]);
    }
    planned_.assign(K_, {});
    head_.assign(K_, 0);
    pulled_.assign(K_, 0);
    planned_uses_.assign(K_ * nd_, 0);
    pulled_uses_.assign(K_ * nd_, 0);
    in_set_.assign(K_ * nd_, 0);
    readers_.assign(nd_, {});
    ready_readers_.assign(nd_, 0);
    work_left_.assign(nd_, 0);
    ready_.clear();
    released_ = 0;
    rotation_.assign(K_, 0);
    if (!workload.has_dependencies()) {
      for (GpuId k = 0; k < K_; ++k) rotation_[k] = static_cast<std::size_t>(k) * nd_ / K_;
    }
  }

  void push(TaskId task) override {
    state_[task] = State::Ready;
    release_[task] = released_++;
    for (const Access& access : w_->accesses(task)) {
      if (reads(access.mode)) readers_[access.data].push_back(task);
    }
    add_ready(task);
    if (options_.bypass) {
      // darts 5.3: among the memories where the task is free, the one with the fewest queued
      // tasks (planned, and pulled into its workers' buffers); the first on ties.
      const auto queued = [&](GpuId k) { return planned_[k].size() - head_[k] + pulled_[k]; };
      std::optional<GpuId> best;
      for (GpuId k = 0; k < K_; ++k) {
        if (is_free(k, task) && (!best || queued(k) < queued(*best))) best = k;
      }
      if (best) {
        plan(*best, task, /*before_first_not_free=*/true);
        return;
      }
    }
    for (GpuId k = 0; k < K_; ++k) add_missing_to_set(k, task);
  }

  std::optional<TaskId> pop(GpuId worker) override {
    const GpuId k = node_of(worker);
    if (head_[k] == planned_[k].size()) fill(k);
    if (head_[k] == planned_[k].size()) return std::nullopt;
    auto& plan_k = planned_[k];
    const TaskId task = plan_k[head_[k]++];
    if (head_[k] * 2 > plan_k.size()) {  // drop the consumed head now and then
      plan_k.erase(plan_k.begin(), plan_k.begin() + static_cast<std::ptrdiff_t>(head_[k]));
      head_[k] = 0;
    }
    state_[task] = State::Pulled;
    ++pulled_[k];
    for (const Access& access : w_->accesses(task)) {
      if (!reads(access.mode)) continue;
      --planned_uses_[slot(k, access.data)];
      ++pulled_uses_[slot(k, access.data)];
    }
    return task;
  }

  void on_task_done(GpuId worker, TaskId task) override {
    const GpuId k = node_of(worker);
    --pulled_[k];
    state_[task] = State::Done;
    for (const Access& access : w_->accesses(task)) {
      if (reads(access.mode)) --pulled_uses_[slot(k, access.data)];
    }
  }

  void on_data_evicted(GpuId worker, DataId d) override {
    if (platform_->first_worker_of(node_of(worker)) != worker) return;  // once per memory
    const GpuId k = node_of(worker);
    // The planned tasks of k that read d go back to the ready list.
    auto& plan_k = planned_[k];
    plan_k.erase(plan_k.begin(), plan_k.begin() + static_cast<std::ptrdiff_t>(head_[k]));
    head_[k] = 0;
    std::vector<TaskId> back;
    for (TaskId t : plan_k) {
      for (const Access& access : w_->accesses(t)) {
        if (reads(access.mode) && access.data == d) {
          back.push_back(t);
          break;
        }
      }
    }
    if (!back.empty()) {
      std::erase_if(plan_k, [&](TaskId t) { return std::find(back.begin(), back.end(), t) != back.end(); });
      for (TaskId t : back) {
        for (const Access& access : w_->accesses(t)) {
          if (reads(access.mode)) --planned_uses_[slot(k, access.data)];
        }
        state_[t] = State::Ready;
        add_ready(t);
      }
      for (TaskId t : back) add_missing_to_set(k, t);
    }
    if (ready_readers_[d] == 0) return;
    for (GpuId j = 0; j < K_; ++j) {
      if (!present(j, d)) in_set_[slot(j, d)] = 1;
    }
  }

  const PlanView* plan() const override { return this; }
  // The ready tasks fill() weighed: each candidate data's readers, as DARTS's scan visits them.
  std::uint64_t tasks_scanned() const override { return scanned_; }
  std::span<const TaskId> planned(GpuId worker) const override {
    const GpuId k = node_of(worker);
    return std::span<const TaskId>(planned_[k]).subspan(head_[k]);
  }
  std::uint32_t planned_uses(GpuId worker, DataId data) const override { return planned_uses_[slot(node_of(worker), data)]; }

 private:
  enum class State : std::uint8_t { Waiting, Ready, Planned, Pulled, Done };

  std::size_t slot(GpuId k, DataId d) const { return static_cast<std::size_t>(k) * nd_ + d; }
  GpuId node_of(GpuId worker) const { return platform_->memory_node_of(worker); }
  ReplicaState node_state(GpuId k, DataId d) const { return memory_->state(platform_->first_worker_of(k), d); }
  PriorityKey key(TaskId t) const { return {w_->tasks()[t].priority, release_[t], t}; }

  bool present(GpuId k, DataId d) const {
    return planned_uses_[slot(k, d)] > 0 || pulled_uses_[slot(k, d)] > 0 || node_state(k, d) != ReplicaState::Absent;
  }
  bool is_free(GpuId k, TaskId t) const {
    for (const Access& access : w_->accesses(t)) {
      if (reads(access.mode) && !present(k, access.data)) return false;
    }
    return true;
  }

  void add_ready(TaskId t) {
    ready_.insert(key(t));
    for (const Access& access : w_->accesses(t)) {
      if (!reads(access.mode)) continue;
      ++ready_readers_[access.data];
      work_left_[access.data] += duration_[t];
    }
  }
  void remove_ready(TaskId t) {
    ready_.erase(key(t));
    for (const Access& access : w_->accesses(t)) {
      if (!reads(access.mode)) continue;
      --ready_readers_[access.data];
      work_left_[access.data] -= duration_[t];
    }
  }
  void add_missing_to_set(GpuId k, TaskId t) {
    for (const Access& access : w_->accesses(t)) {
      if (reads(access.mode) && !present(k, access.data)) in_set_[slot(k, access.data)] = 1;
    }
  }

  // Moves a ready task into k's plan: at the end, or (bypass) before the first planned task
  // that is not free yet.
  void plan(GpuId k, TaskId t, bool before_first_not_free) {
    remove_ready(t);
    state_[t] = State::Planned;
    auto& plan_k = planned_[k];
    auto at = plan_k.end();
    if (before_first_not_free) {
      at = std::find_if(plan_k.begin() + static_cast<std::ptrdiff_t>(head_[k]), plan_k.end(), [&](TaskId other) { return !is_free(k, other); });
    }
    plan_k.insert(at, t);
    for (const Access& access : w_->accesses(t)) {
      if (!reads(access.mode)) continue;
      ++planned_uses_[slot(k, access.data)];
      in_set_[slot(k, access.data)] = 0;
    }
  }

  // How many inputs of t other than d are missing on k, stopping at 2.
  int missing_besides(GpuId k, TaskId t, DataId d) const {
    int missing = 0;
    for (const Access& access : w_->accesses(t)) {
      if (!reads(access.mode) || access.data == d || present(k, access.data)) continue;
      if (++missing == 2) break;
    }
    return missing;
  }

  // Over a GPU link when another GPU holds the data (darts 5.3: this favours NVLink copies).
  double transfer_seconds(GpuId k, DataId d) const {
    bool from_gpu = false;
    for (GpuId j = 0; j < K_ && platform_->gpu_link_bandwidth > 0 && !from_gpu; ++j) {
      from_gpu = j != k && node_state(j, d) == ReplicaState::Resident;
    }
    return platform_->transfer_seconds(static_cast<double>(w_->data()[d].bytes), from_gpu);
  }

  struct Candidate {
    DataId data = kNoId;
    double ratio = std::numeric_limits<double>::infinity();
    std::uint32_t free = 0, one_from_free = 0;
    std::int64_t priority = std::numeric_limits<std::int64_t>::min();
    double work_left = 0;
    bool better_than(const Candidate& o) const {
      if (o.data == kNoId) return true;
      if (ratio != o.ratio) return ratio < o.ratio;
      if (free != o.free) return free > o.free;
      if (priority != o.priority) return priority > o.priority;
      if (one_from_free != o.one_from_free) return one_from_free > o.one_from_free;
      return work_left > o.work_left;
    }
  };

  Candidate evaluate(GpuId k, DataId d) {
    Candidate c;
    c.data = d;
    double free_time = 0;
    std::int64_t free_priority = std::numeric_limits<std::int64_t>::min(), one_priority = free_priority;
    auto& list = readers_[d];
    std::size_t dead = 0;
    for (TaskId t : list) {
      if (state_[t] != State::Ready) {
        dead += state_[t] == State::Pulled || state_[t] == State::Done;
        continue;
      }
      ++scanned_;
      const int missing = missing_besides(k, t, d);
      const std::int64_t priority = w_->tasks()[t].priority;
      if (missing == 0) {
        ++c.free;
        free_time += duration_[t];
        free_priority = std::max(free_priority, priority);
      } else if (missing == 1 && options_.one_from_free) {
        ++c.one_from_free;
        one_priority = std::max(one_priority, priority);
      }
    }
    // Tasks pulled or done never come back: drop them once they are half the list.
    if (dead * 2 > list.size()) {
      std::erase_if(list, [&](TaskId t) { return state_[t] == State::Pulled || state_[t] == State::Done; });
    }
    c.priority = c.free > 0 ? free_priority : one_priority;
    if (c.free > 0) c.ratio = transfer_seconds(k, d) / std::max(free_time, 1e-300);
    c.work_left = work_left_[d];
    return c;
  }

  void fill(GpuId k) {
    if (ready_.empty()) return;
    Candidate best;
    std::uint32_t scanned = 0;
    for (std::size_t p = 0; p < nd_; ++p) {
      const DataId d = static_cast<DataId>((p + rotation_[k]) % nd_);
      if (!in_set_[slot(k, d)]) continue;
      if (ready_readers_[d] == 0 || present(k, d)) {  // no longer wanted here: leave the set
        in_set_[slot(k, d)] = 0;
        continue;
      }
      const Candidate c = evaluate(k, d);
      if (c.better_than(best)) best = c;
      ++scanned;
      if (options_.first_free && best.free > 0) break;
      if (options_.scan_limit > 0 && scanned >= options_.scan_limit) break;
    }
    if (best.data != kNoId && best.free > 0) {
      std::vector<TaskId> chosen;
      for (TaskId t : readers_[best.data]) {
        if (state_[t] == State::Ready && missing_besides(k, t, best.data) == 0) chosen.push_back(t);
      }
      std::sort(chosen.begin(), chosen.end(), [&](TaskId a, TaskId b) { return key(a) < key(b); });
      for (TaskId t : chosen) plan(k, t, false);
      in_set_[slot(k, best.data)] = 0;
      return;
    }
    if (best.data != kNoId && best.one_from_free > 0) {
      std::optional<TaskId> chosen;
      for (TaskId t : readers_[best.data]) {
        if (state_[t] == State::Ready && missing_besides(k, t, best.data) == 1 && (!chosen || key(t) < key(*chosen))) chosen = t;
      }
      if (chosen) {
        plan(k, *chosen, false);
        return;
      }
    }
    plan(k, ready_.begin()->task, false);
  }

  DartsOptions options_;
  const Workload* w_ = nullptr;
  const Platform* platform_ = nullptr;
  const MemoryView* memory_ = nullptr;
  std::uint32_t K_ = 1;
  std::size_t nd_ = 0;
  std::vector<State> state_;
  std::vector<std::uint64_t> release_;
  std::uint64_t released_ = 0;
  std::vector<double> duration_;                // seconds at the platform's rate
  std::vector<std::vector<TaskId>> planned_;    // per GPU, in order, from head_ on
  std::vector<std::size_t> head_;
  std::vector<std::size_t> pulled_;             // per GPU: tasks its workers hold, running ones included
  std::vector<std::uint32_t> planned_uses_, pulled_uses_;  // per (GPU, data)
  std::vector<char> in_set_;                    // per (GPU, data): in dataNotInMem_k
  std::vector<std::vector<TaskId>> readers_;    // per data: released tasks reading it (lazily pruned)
  std::vector<std::uint32_t> ready_readers_;    // per data: ready, unplanned tasks reading it
  std::vector<double> work_left_;               // per data: their total duration
  std::set<PriorityKey> ready_;
  std::vector<std::size_t> rotation_;
  std::uint64_t scanned_ = 0;
};

}  // namespace

Result<std::unique_ptr<Scheduler>> make_darts(const Params& params) {
  DartsOptions options;
  if (auto status = params.flags({{"one_from_free", &options.one_from_free}, {"first_free", &options.first_free},
                                  {"bypass", &options.bypass}});
      !status) {
    return status.error();
  }
  auto limit = params.integer("scan_limit");
  if (!limit) return limit.error();
  if (*limit < 0 || *limit > std::numeric_limits<std::uint32_t>::max()) return make_error("scheduler 'darts': scan_limit must be 0 or more");
  options.scan_limit = static_cast<std::uint32_t>(*limit);
  return std::unique_ptr<Scheduler>(std::make_unique<Darts>(options));
}

}  // namespace tilelens
