// LWS, locality work stealing (darts section 4.3, StarPU's lws): one queue per GPU. A released
// task goes to the queue of the GPU whose finished task released it (so a task and its
// descendants stay together); tasks released before any task ends go round robin. A GPU takes
// the head of its own queue; when it is empty it steals from the tail of its neighbours,
// nearest first ((k + 1) mod K, (k + 2) mod K, ...): those tasks are the least likely to have
// their inputs prefetched already. With steal_head=1 a thief takes the head instead, as StarPU
// 1.3.10 does: its prio_deque's REMOVE_TASK walks from the list's beginning whichever end the
// caller names, so lws steals the oldest task (prio_deque.c). With prio=1 (the default) each
// queue is StarPU's priority list: highest priority first, release order among equals
// (prio_deque.c, _starpu_prio_deque_push_back_task); prio=0 keeps release order, as the paper
// describes.
//
// WS, StarPU 1.3.10's plain work stealing (work_stealing_policy.c, the ws policy): the same
// queues and pushes, with the two choices StarPU makes differently from the paper's lws. Tasks
// pushed outside a release go round robin from the second GPU on (select_worker_round_robin
// starts at last_push_worker + 1, and last_push_worker starts at 0, :178-190). A GPU with an
// empty queue steals the head of a victim chosen round robin from where its own last steal
// left off (select_victim_round_robin, :129-170): the first GPU whose queue is not empty and
// whose last pop got a task ("busy", set by ws_pop_task, :564-660).
#include <set>

#include "model/priority_key.hpp"
#include "schedulers/static_order.hpp"

namespace tilelens {
namespace {

// lws and ws share their queues, their pushes and their hooks; `starpu_ws` selects ws's two
// choices (the first round-robin push and the victim).
class Lws final : public Scheduler {
 public:
  Lws(bool steal_head, bool prio, bool starpu_ws = false) : steal_head_(steal_head), prio_(prio), starpu_ws_(starpu_ws) {}
  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext&) override {
    w_ = &workload;
    queues_.assign(platform.gpus, {});
    busy_.assign(platform.gpus, 0);
    last_victim_.assign(platform.gpus, 0);
    releasing_.reset();
    next_ = 0;
    released_ = 0;
  }
  void push(TaskId task) override {
    const auto K = static_cast<GpuId>(queues_.size());
    GpuId target = 0;
    if (releasing_) {
      target = *releasing_;
    } else if (starpu_ws_) {  // ws: last_push_worker + 1, from 0
      next_ = (next_ + 1) % K;
      target = next_;
    } else {
      target = next_;
      next_ = (next_ + 1) % K;
    }
    queues_[target].insert({prio_ ? w_->tasks()[task].priority : 0, released_++, task});
  }
  std::optional<TaskId> pop(GpuId k) override {
    std::optional<TaskId> task;
    if (!queues_[k].empty()) {
      task = take(queues_[k], queues_[k].begin());
    } else if (starpu_ws_) {
      if (const auto victim = round_robin_victim(k)) task = take(queues_[*victim], queues_[*victim].begin());
    } else {
      task = steal_from_neighbours(k);
    }
    busy_[k] = task ? 1 : 0;  // ws's "busy": whether this GPU's last pop got a task
    return task;
  }
  // The engine releases a finished task's successors right after this hook, so they land on
  // this GPU; the next pop or push outside a release clears it.
  void on_task_done(GpuId k, TaskId) override { releasing_ = k; }
  void on_task_started(GpuId, TaskId) override { releasing_.reset(); }

 private:
  // A queue's head is the highest priority (all equal without prio), then the earliest released.
  static TaskId take(std::set<PriorityKey>& queue, std::set<PriorityKey>::iterator at) {
    const TaskId task = at->task;
    queue.erase(at);
    return task;
  }
  // lws: the nearest neighbour with tasks, its tail (its head with steal_head).
  std::optional<TaskId> steal_from_neighbours(GpuId k) {
    const auto K = static_cast<GpuId>(queues_.size());
    for (GpuId step = 1; step < K; ++step) {
      auto& victim = queues_[(k + step) % K];
      if (victim.empty()) continue;
      return take(victim, steal_head_ ? victim.begin() : std::prev(victim.end()));
    }
    return std::nullopt;
  }
  // ws: round robin from where thief k's last search stopped, the first GPU with tasks whose
  // last pop got one; the next search starts after the GPU this one ended at, found or not
  // (StarPU updates last_pop_worker either way). k's own queue is empty here.
  std::optional<GpuId> round_robin_victim(GpuId k) {
    const auto K = static_cast<GpuId>(queues_.size());
    const GpuId start = last_victim_[k];
    GpuId at = start;
    bool found = false;
    while (true) {
      if (!queues_[at].empty() && busy_[at]) {
        found = true;
        break;
      }
      at = (at + 1) % K;
      if (at == start) break;
    }
    last_victim_[k] = (at + 1) % K;
    return found ? std::optional<GpuId>(at) : std::nullopt;
  }

  const Workload* w_ = nullptr;
  std::vector<std::set<PriorityKey>> queues_;
  std::vector<char> busy_;
  std::vector<GpuId> last_victim_;
  std::optional<GpuId> releasing_;
  GpuId next_ = 0;
  std::uint64_t released_ = 0;
  bool steal_head_ = false;
  bool prio_ = true;
  bool starpu_ws_ = false;
};

// AP, PaRSEC's absolute priority (darts section 4.4): one queue shared by all GPUs, sorted by
// priority; an available GPU takes the head. PaRSEC's data-reuse-aware cost (a task whose
// inputs are already on the unit costs only its computation) is used among the tasks of the
// head's priority: the one with the fewest bytes missing on the GPU, then the first released.
class AbsolutePriority final : public Scheduler {
 public:
  void prepare(const Workload& workload, const Platform&, const SchedulerContext& context) override {
    w_ = &workload;
    memory_ = context.memory;
    queue_.clear();
    released_ = 0;
  }
  void push(TaskId task) override { queue_.insert({w_->tasks()[task].priority, released_++, task}); }
  std::optional<TaskId> pop(GpuId k) override {
    if (queue_.empty()) return std::nullopt;
    const std::int64_t top = queue_.begin()->priority;
    auto best = queue_.begin();
    double best_missing = missing_bytes(k, best->task);
    for (auto it = std::next(queue_.begin()); it != queue_.end() && it->priority == top && best_missing > 0; ++it) {
      const double missing = missing_bytes(k, it->task);
      if (missing < best_missing) {
        best = it;
        best_missing = missing;
      }
    }
    const TaskId task = best->task;
    queue_.erase(best);
    return task;
  }

 private:
  double missing_bytes(GpuId k, TaskId t) const {
    double missing = 0;
    for (const Access& access : w_->accesses(t)) {
      if (reads(access.mode) && memory_->state(k, access.data) == ReplicaState::Absent) {
        missing += static_cast<double>(w_->data()[access.data].bytes);
      }
    }
    return missing;
  }
  const Workload* w_ = nullptr;
  const MemoryView* memory_ = nullptr;
  std::set<PriorityKey> queue_;
  std::uint64_t released_ = 0;
};

}  // namespace

std::unique_ptr<Scheduler> make_work_stealing(const Params&) { return std::make_unique<Lws>(true, true, true); }

Result<std::unique_ptr<Scheduler>> make_lws(const Params& params) {
  bool steal_head = false, prio = true, starpu = false;
  if (auto status = params.flags({{"steal_head", &steal_head}, {"prio", &prio}, {"starpu", &starpu}}); !status) return status.error();
  // StarPU 1.3.10's lws is its ws but for the victim, which it takes from hwloc's proximity list
  // (work_stealing_policy.c:811-900); built without hwloc, as StarPU-SimGrid is here
  // (STARPU_HAVE_HWLOC undefined), lws keeps ws's round-robin victim and runs as ws does.
  if (starpu) return std::unique_ptr<Scheduler>(std::make_unique<Lws>(true, true, true));
  return std::unique_ptr<Scheduler>(std::make_unique<Lws>(steal_head, prio));
}
std::unique_ptr<Scheduler> make_absolute_priority(const Params&) { return std::make_unique<AbsolutePriority>(); }

}  // namespace tilelens
