// EAGER (darts section 4.1): a shared FIFO of ready tasks, served in release order. Without
// dependencies this is the natural submission order. Its known future is the FIFO itself.
#include "schedulers/static_order.hpp"

#include <deque>

namespace tilelens {
namespace {

class Eager final : public Scheduler, public TaskFuture {
 public:
  void prepare(const Workload& workload, const Platform&, const SchedulerContext& context) override {
    workload_ = &workload;
    context_ = &context;
    if (context.future_needed) uses_.reset_for_every_read(workload);
    fifo_.clear();
    released_ = 0;
    served_ = 0;
  }

  void push(TaskId task) override {
    const std::uint64_t sequence = released_++;
    fifo_.push_back(task);
    if (!context_->future_needed) return;
    for (const Access& access : workload_->accesses(task)) {
      if (!reads(access.mode)) continue;
      const bool had_future = next_use(0, access.data) != kNever;
      uses_.append(access.data, sequence);
      if (!had_future && context_->future_changed) context_->future_changed(access.data);
    }
  }

  std::optional<TaskId> pop(GpuId) override {
    if (fifo_.empty()) return std::nullopt;
    const TaskId task = fifo_.front();
    fifo_.pop_front();
    ++served_;
    return task;
  }

  bool follows_replicas() const override { return false; }
  const TaskFuture* future() const override { return this; }
  std::uint64_t next_use(GpuId, DataId data) const override {
    return uses_.next(data, [this](std::uint64_t sequence) { return sequence < served_; });
  }

 private:
  const Workload* workload_ = nullptr;
  const SchedulerContext* context_ = nullptr;
  std::deque<TaskId> fifo_;
  NextUseIndex uses_;
  std::uint64_t released_ = 0;
  std::uint64_t served_ = 0;
};

}  // namespace

std::unique_ptr<Scheduler> make_eager(const Params&) { return std::make_unique<Eager>(); }

}  // namespace tilelens
