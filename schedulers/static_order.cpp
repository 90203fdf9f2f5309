// Serving a precomputed order; see static_order.hpp.
#include "schedulers/static_order.hpp"

#include <cassert>

namespace tilelens {

void OrderedScheduler::prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) {
  order_ = compute_order(workload, platform, context);
  assert(order_.size() == workload.task_count());
  position_.assign(workload.task_count(), 0);
  for (std::uint32_t p = 0; p < order_.size(); ++p) position_[order_[p]] = p;
  served_.assign(order_.size(), 0);
  if (context.future_needed) {
    uses_.reset_for_every_read(workload);
    for (std::uint32_t p = 0; p < order_.size(); ++p) uses_.append_reads(workload, order_[p], p);
  }
  sequential_ = !workload.has_dependencies();
  pushed_ = 0;
  cursor_ = 0;
  ready_ = {};
}

void OrderedScheduler::push(TaskId task) {
  ++pushed_;
  if (!sequential_) ready_.push(position_[task]);
}

std::optional<TaskId> OrderedScheduler::pop(GpuId) {
  std::uint32_t position = 0;
  if (sequential_) {
    if (cursor_ >= pushed_) return std::nullopt;
    position = static_cast<std::uint32_t>(cursor_++);
  } else {
    if (ready_.empty()) return std::nullopt;
    position = ready_.top();
    ready_.pop();
  }
  served_[position] = 1;
  return order_[position];
}

std::uint64_t OrderedScheduler::next_use(GpuId, DataId data) const {
  return uses_.next(data, [this](std::uint64_t position) { return served_[position] != 0; });
}

}  // namespace tilelens
