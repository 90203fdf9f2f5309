// DMDA, DMDAR and DMDAS (fgcs section 4.3, Algorithms 3 and 4; darts Algorithms 1 and 2):
// StarPU's "deque model data aware" family.
//
// A task is allocated when it becomes ready (push), to the GPU that minimises its expected
// completion time C = backlog + transfers + computation, where the transfers count only the
// inputs that GPU neither holds nor will receive for a task already allocated to it (the
// paper's InMem), each at latency + bytes / bus bandwidth, and the backlog is the expected
// time of the tasks allocated to that GPU and not finished yet. Ties go to the lowest GPU.
// The GPU then serves its queue: DMDA in allocation order, DMDAR with Ready (ready.hpp) among
// the queued tasks whose priority is at least the head's, as StarPU 1.3.10 does
// (fifo_queues.c:398-433: lower-priority tasks are skipped wherever they sit), DMDAS in
// priority order (largest first, allocation order among equals) with the same Ready. The
// eviction policy is the caller's (the paper uses LRU). With one GPU DMDA is EAGER and DMDAR
// is Ready over every task of the head's priority or more (fgcs 4.3; the papers' matrix
// products give every task one priority, so there it is Ready over all tasks).
//
// On a platform with CPU workers (lahp's nodes) every worker is a candidate, each at its own
// rate for the kind (none where it has no kernel); a CPU worker's transfers are the inputs
// whose host copy is stale (written back from a GPU), as in StarPU.
//
// Departure from StarPU: the backlog is an expected amount of work, not a clock date, since
// schedulers do not see the simulated clock; it is decreased when a task finishes.
#include <algorithm>

#include "schedulers/ready.hpp"
#include "schedulers/static_order.hpp"

namespace tilelens {
namespace {

enum class DmdaVariant { Plain, Ready, Sorted };

class Dmda final : public Scheduler {
 public:
  explicit Dmda(DmdaVariant variant) : variant_(variant) {}

  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) override {
    workload_ = &workload;
    platform_ = &platform;
    context_ = &context;
    const std::uint32_t workers = platform.workers();
    queues_.assign(workers, {});
    backlog_.assign(workers, 0);
    cost_.assign(workload.task_count(), 0);
    planned_.assign(static_cast<std::size_t>(workers) * workload.data_count(), 0);
    if (variant_ != DmdaVariant::Plain) costs_.reset(workload, *context.memory);
    gpu_seconds_per_flop_.clear();
    cpu_seconds_per_flop_.clear();
    const auto per_flop = [](double gflops) { return gflops > 0 ? 1e-9 / gflops : -1.0; };  // -1: no kernel
    for (const auto& kind : workload.kinds()) {
      gpu_seconds_per_flop_.push_back(per_flop(platform.gflops_of(kind)));
      cpu_seconds_per_flop_.push_back(per_flop(platform.cpu_gflops_of(kind)));
    }
  }

  void push(TaskId task) override {
    const Task& t = workload_->tasks()[task];
    GpuId chosen = kNoId;
    double chosen_cost = 0, chosen_completion = 0;
    for (GpuId g = 0; g < queues_.size(); ++g) {
      const double per_flop = (platform_->is_cpu_worker(g) ? cpu_seconds_per_flop_ : gpu_seconds_per_flop_)[t.kind];
      if (per_flop < 0) continue;
      const double compute = t.flops * per_flop;
      double transfers = 0;
      for (const Access& access : workload_->accesses(task)) {
        if (!reads(access.mode) || planned_[slot(g, access.data)]) continue;
        if (context_->memory->state(g, access.data) != ReplicaState::Absent) continue;
        transfers += platform_->transfer_seconds(static_cast<double>(workload_->data()[access.data].bytes));
      }
      const double completion = backlog_[g] + transfers + compute;
      if (chosen == kNoId || completion < chosen_completion) {
        chosen = g;
        chosen_completion = completion;
        chosen_cost = transfers + compute;
      }
    }
    cost_[task] = chosen_cost;
    backlog_[chosen] += chosen_cost;
    if (context_->allocated) context_->allocated(task, chosen);
    for (const Access& access : workload_->accesses(task)) {
      if (reads(access.mode)) planned_[slot(chosen, access.data)] = 1;
    }
    if (variant_ != DmdaVariant::Plain) costs_.add(task, chosen);
    if (variant_ == DmdaVariant::Sorted) {
      const std::int64_t priority = t.priority;
      scanned_ += queues_[chosen].insert_before_first(task, [&](TaskId other) { return workload_->tasks()[other].priority < priority; });
    } else {
      queues_[chosen].push_back(task);
    }
  }

  std::optional<TaskId> pop(GpuId gpu) override {
    TaskQueue& queue = queues_[gpu];
    if (queue.empty()) return std::nullopt;
    std::optional<std::size_t> position;
    if (variant_ == DmdaVariant::Plain) {
      position = queue.begin_position();
    } else {
      costs_.refresh();
      queue.compact_if_sparse();
      position = ready_select_by(queue, *workload_, ReadyPriority::AtLeastHead, [](TaskId) { return true; },
                                 [this](TaskId task) { return costs_.cost(task); }, scanned_);
    }
    const TaskId task = queue.take(*position);
    if (variant_ != DmdaVariant::Plain) costs_.remove(task);
    return task;
  }

  void on_task_done(GpuId gpu, TaskId task) override { backlog_[gpu] = std::max(0.0, backlog_[gpu] - cost_[task]); }
  void on_data_evicted(GpuId gpu, DataId data) override { planned_[slot(gpu, data)] = 0; }
  bool uses_cpu_workers() const override { return true; }
  std::uint64_t tasks_scanned() const override { return scanned_; }

 private:
  std::size_t slot(GpuId g, DataId d) const { return static_cast<std::size_t>(g) * workload_->data_count() + d; }

  DmdaVariant variant_;
  const Workload* workload_ = nullptr;
  const Platform* platform_ = nullptr;
  const SchedulerContext* context_ = nullptr;
  std::vector<TaskQueue> queues_;
  std::vector<double> backlog_, cost_, gpu_seconds_per_flop_, cpu_seconds_per_flop_;
  std::vector<char> planned_;
  ReadyCosts costs_;  // DMDAR's and DMDAS's Ready
  std::uint64_t scanned_ = 0;  // DMDAS's sorted inserts and the Ready scans
};

}  // namespace

std::unique_ptr<Scheduler> make_dmda(const Params&) { return std::make_unique<Dmda>(DmdaVariant::Plain); }
std::unique_ptr<Scheduler> make_dmdar(const Params&) { return std::make_unique<Dmda>(DmdaVariant::Ready); }
std::unique_ptr<Scheduler> make_dmdas(const Params&) { return std::make_unique<Dmda>(DmdaVariant::Sorted); }

}  // namespace tilelens
