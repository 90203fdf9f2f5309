// DMDA, DMDAR and DMDAS (fgcs section 4.3, Algorithms 3 and 4; darts Algorithms 1 and 2):
// StarPU's "deque model data aware" family.
//
// A task is allocated when it becomes ready (push), to the GPU that minimises its expected
// completion time C = backlog + transfers + computation, where the transfers count only the
// inputs that GPU neither holds nor will receive for a task already allocated to it (the
// paper's InMem), each at latency + bytes / bus bandwidth, and the backlog is the expected
// time of the tasks allocated to that GPU and not finished yet. Ties go to the lowest GPU.
// The GPU then serves its queue: DMDA in allocation order, DMDAR with Ready (ready.hpp),
// DMDAS in priority order (largest first, allocation order among equals) with Ready among the
// tasks whose priority is at least the head's. The eviction policy is the caller's (the paper
// uses LRU). With one GPU DMDA is EAGER and DMDAR is Ready over all tasks (fgcs 4.3).
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
    queues_.assign(platform.gpus, {});
    backlog_.assign(platform.gpus, 0);
    cost_.assign(workload.task_count(), 0);
    planned_.assign(static_cast<std::size_t>(platform.gpus) * workload.data_count(), 0);
    seconds_per_flop_.clear();
    for (const auto& kind : workload.kinds()) seconds_per_flop_.push_back(1e-9 / platform.gflops_of(kind));
  }

  void push(TaskId task) override {
    const Task& t = workload_->tasks()[task];
    const double compute = t.flops * seconds_per_flop_[t.kind];
    GpuId chosen = 0;
    double chosen_cost = 0, chosen_completion = 0;
    for (GpuId g = 0; g < queues_.size(); ++g) {
      double transfers = 0;
      for (const Access& access : workload_->accesses(task)) {
        if (!reads(access.mode) || planned_[slot(g, access.data)]) continue;
        if (context_->memory->state(g, access.data) != ReplicaState::Absent) continue;
        transfers += platform_->transfer_seconds(static_cast<double>(workload_->data()[access.data].bytes));
      }
      const double completion = backlog_[g] + transfers + compute;
      if (g == 0 || completion < chosen_completion) {
        chosen = g;
        chosen_completion = completion;
        chosen_cost = transfers + compute;
      }
    }
    cost_[task] = chosen_cost;
    backlog_[chosen] += chosen_cost;
    for (const Access& access : workload_->accesses(task)) {
      if (reads(access.mode)) planned_[slot(chosen, access.data)] = 1;
    }
    if (variant_ == DmdaVariant::Sorted) {
      const std::int64_t priority = t.priority;
      queues_[chosen].insert_before_first(task, [&](TaskId other) { return workload_->tasks()[other].priority < priority; });
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
      position = ready_select(queue, *workload_, *context_->memory, gpu, variant_ == DmdaVariant::Sorted,
                              [](TaskId) { return true; });
    }
    return queue.take(*position);
  }

  void on_task_done(GpuId gpu, TaskId task) override { backlog_[gpu] = std::max(0.0, backlog_[gpu] - cost_[task]); }
  void on_data_evicted(GpuId gpu, DataId data) override { planned_[slot(gpu, data)] = 0; }

 private:
  std::size_t slot(GpuId g, DataId d) const { return static_cast<std::size_t>(g) * workload_->data_count() + d; }

  DmdaVariant variant_;
  const Workload* workload_ = nullptr;
  const Platform* platform_ = nullptr;
  const SchedulerContext* context_ = nullptr;
  std::vector<TaskQueue> queues_;
  std::vector<double> backlog_, cost_, seconds_per_flop_;
  std::vector<char> planned_;
};

}  // namespace

std::unique_ptr<Scheduler> make_dmda(const Params&) { return std::make_unique<Dmda>(DmdaVariant::Plain); }
std::unique_ptr<Scheduler> make_dmdar(const Params&) { return std::make_unique<Dmda>(DmdaVariant::Ready); }
std::unique_ptr<Scheduler> make_dmdas(const Params&) { return std::make_unique<Dmda>(DmdaVariant::Sorted); }

}  // namespace tilelens
