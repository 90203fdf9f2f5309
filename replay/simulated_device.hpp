// The replay's execution device: a simulated clock. Transfers cross the platform's links
// (platform_links.hpp); a task takes its flops over its kind's rate on the worker's architecture
// (1 GFlop/s is one flop per ns), rounded up to the nanosecond. Everything is known at once, so
// the same decisions give the same times, bit for bit.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "replay/execution_device.hpp"
#include "replay/platform_links.hpp"

namespace tilelens {

class SimulatedDevice final : public ExecutionDevice {
 public:
  // The clock starts at `start_ns` (a scheduling time charged to the run, else 0).
  SimulatedDevice(const Workload& workload, const Platform& platform, std::int64_t start_ns);

  void start_load(std::uint32_t transfer, std::uint32_t node, DataId data, std::int32_t source) override {
    links_.start_load(transfer, bytes_of(data), node, source, now_);
  }
  void start_writeback(std::uint32_t transfer, std::uint32_t node, DataId data) override {
    links_.start_writeback(transfer, bytes_of(data), node, now_);
  }
  void allocate(std::uint32_t, DataId) override {}
  void release(std::uint32_t, DataId) override {}
  std::int64_t start_task(GpuId worker, TaskId task) override;
  std::int64_t wait(std::vector<std::uint32_t>& transfers, std::vector<GpuId>& workers) override;
  std::int64_t now() const override { return now_; }
  void wake_at(std::int64_t when) override { wake_ups_.push(when); }
  // Transfers started at one instant end in the order they started (PlatformLinks::order_starts).
  void order_starts(bool on) { links_.order_starts(on); }

 private:
  double bytes_of(DataId data) const { return static_cast<double>(workload_.data()[data].bytes); }

  const Workload& workload_;
  PlatformLinks links_;
  std::vector<double> gpu_rate_, cpu_rate_;  // per kind, GFlop/s
  std::vector<char> cpu_;                    // per worker
  std::vector<double> speed_;                // per worker: Platform::speed_of
  std::vector<std::int64_t> ends_;           // per worker: when its task ends, or kNever
  std::uint32_t running_ = 0;
  std::priority_queue<std::int64_t, std::vector<std::int64_t>, std::greater<>> wake_ups_;
  std::int64_t now_ = 0;
};

}  // namespace tilelens
