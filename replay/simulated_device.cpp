// The simulated clock; see simulated_device.hpp.
#include "replay/simulated_device.hpp"

#include <algorithm>

namespace tilelens {

SimulatedDevice::SimulatedDevice(const Workload& workload, const Platform& platform, std::int64_t start_ns)
    : workload_(workload), links_(platform), now_(start_ns) {
  for (const auto& kind : workload.kinds()) {
    gpu_rate_.push_back(platform.gflops_of(kind));
    cpu_rate_.push_back(platform.cpu_gflops_of(kind));
  }
  for (GpuId w = 0; w < platform.workers(); ++w) {
    cpu_.push_back(platform.is_cpu_worker(w) ? 1 : 0);
    speed_.push_back(platform.speed_of(w));
  }
  ends_.assign(platform.workers(), PlatformLinks::kNever);
}

std::int64_t SimulatedDevice::start_task(GpuId worker, TaskId task) {
  const Task& t = workload_.tasks()[task];
  const double rate = cpu_[worker] ? cpu_rate_[t.kind] : gpu_rate_[t.kind];
  ends_[worker] = now_ + ceil_ns(t.flops / (rate * speed_[worker]));
  ++running_;
  return ends_[worker];
}

std::int64_t SimulatedDevice::wait(std::vector<std::uint32_t>& transfers, std::vector<GpuId>& workers) {
  std::int64_t next = links_.next_event();
  if (running_ > 0) {
    for (const std::int64_t end : ends_) next = std::min(next, end);
  }
  while (!wake_ups_.empty() && wake_ups_.top() <= now_) wake_ups_.pop();  // already past
  if (!wake_ups_.empty()) next = std::min(next, wake_ups_.top());
  if (next == PlatformLinks::kNever) return kNothingInFlight;
  while (!wake_ups_.empty() && wake_ups_.top() <= next) wake_ups_.pop();
  now_ = next;
  links_.advance(next, transfers);
  if (running_ > 0) {
    for (GpuId w = 0; w < ends_.size(); ++w) {
      if (ends_[w] != next) continue;
      ends_[w] = PlatformLinks::kNever;
      --running_;
      workers.push_back(w);
    }
  }
  return next;
}

}  // namespace tilelens
