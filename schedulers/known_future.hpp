// A scheduler whose known future is a given order of tasks per worker: it serves exactly as
// the scheduler it wraps, and tells the eviction policy that the tasks not handed out yet will
// run in the given order. Belady under a scheduler that reorders as it goes (Ready) then sees
// the order the run takes once that order is known: replay() (engine.hpp) replays again with
// the order of the previous run until the two agree (docs/schedulers.md, "Belady under Ready").
#pragma once

#include <memory>
#include <utility>

#include "schedulers/static_order.hpp"

namespace tilelens {

class KnownFutureScheduler final : public Scheduler, public TaskFuture {
 public:
  // orders[w]: the tasks worker w will run, in order (a task listed twice counts once).
  KnownFutureScheduler(Scheduler& inner, std::vector<std::vector<TaskId>> orders) : inner_(inner), orders_(std::move(orders)) {}

  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) override {
    inner_.prepare(workload, platform, context);
    popped_.assign(workload.task_count(), 0);
    orders_.resize(platform.workers());
    uses_.assign(orders_.size(), {});
    std::vector<char> listed(workload.task_count(), 0);
    for (std::size_t w = 0; w < orders_.size(); ++w) {
      uses_[w].reset(workload.data_count());
      auto& order = orders_[w];
      std::erase_if(order, [&](TaskId t) { return t >= workload.task_count() || std::exchange(listed[t], 1) != 0; });
      for (std::size_t p = 0; p < order.size(); ++p) uses_[w].append_reads(workload, order[p], p);
    }
  }
  void push(TaskId task) override { inner_.push(task); }
  std::optional<TaskId> pop(GpuId gpu) override {
    auto task = inner_.pop(gpu);
    if (task && *task < popped_.size()) popped_[*task] = 1;
    return task;
  }
  void on_task_started(GpuId g, TaskId t) override { inner_.on_task_started(g, t); }
  void on_task_done(GpuId g, TaskId t) override { inner_.on_task_done(g, t); }
  void on_load_requested(GpuId g, DataId d) override { inner_.on_load_requested(g, d); }
  void on_data_loaded(GpuId g, DataId d) override { inner_.on_data_loaded(g, d); }
  void on_data_evicted(GpuId g, DataId d) override { inner_.on_data_evicted(g, d); }
  bool follows_replicas() const override { return inner_.follows_replicas(); }
  const PlanView* plan() const override { return inner_.plan(); }
  bool uses_cpu_workers() const override { return inner_.uses_cpu_workers(); }
  std::uint64_t tasks_scanned() const override { return inner_.tasks_scanned(); }
  bool serves_out_of_future_order() const override { return inner_.serves_out_of_future_order(); }

  const TaskFuture* future() const override { return this; }
  std::uint64_t next_use(GpuId gpu, DataId data) const override {
    if (gpu >= orders_.size()) return kNever;
    const auto& order = orders_[gpu];
    return uses_[gpu].next(data, [&](std::uint64_t p) { return popped_[order[p]] != 0; });
  }

 private:
  Scheduler& inner_;
  std::vector<std::vector<TaskId>> orders_;
  std::vector<char> popped_;
  std::vector<NextUseIndex> uses_;
};

}  // namespace tilelens
