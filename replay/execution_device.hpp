// What runs an engine's decisions: the simulated clock of a replay (simulated_device.hpp) or
// a real GPU (instrument/). The engine takes every decision (pops, the task buffers, requests,
// victims, write-backs) and tells the device to carry them out; the device moves the data,
// runs the tasks and says when they end. Transfer ids and the order of the calls are the
// engine's; the device keeps whatever it needs (links, slots, events). Contract, in the order
// calls happen:
//
//   1. allocate(node, data) gives a write-only output room; start_load(...) and
//      start_writeback(...) start a transfer; release(node, data) frees a copy's room (its
//      data left). Room was reserved by the engine before it asked for a transfer.
//   2. start_task(worker, task) once the task's data are resident: returns when it will end
//      if the device knows (a simulated clock), else kUnknownEnd.
//   3. wait(transfers, workers) until at least one started transfer or task ends, or a time
//      asked for by wake_at comes: appends the ended transfers and the workers whose task
//      ended, and returns the time. It returns kNothingInFlight at once when nothing is in
//      flight and no wake-up is due.
//
// Times are integer nanoseconds since the run began.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "model/model.hpp"

namespace tilelens {

class ExecutionDevice {
 public:
  static constexpr std::int64_t kUnknownEnd = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t kNothingInFlight = std::numeric_limits<std::int64_t>::max();

  virtual ~ExecutionDevice() = default;
  // A load of `data` into memory node `node`, from the host (source kFromHost) or from the
  // copy of memory node `source`.
  virtual void start_load(std::uint32_t transfer, std::uint32_t node, DataId data, std::int32_t source) = 0;
  // The copy of `data` on `node` goes back to the host.
  virtual void start_writeback(std::uint32_t transfer, std::uint32_t node, DataId data) = 0;
  virtual void allocate(std::uint32_t node, DataId data) = 0;
  virtual void release(std::uint32_t node, DataId data) = 0;
  virtual std::int64_t start_task(GpuId worker, TaskId task) = 0;
  virtual std::int64_t wait(std::vector<std::uint32_t>& transfers, std::vector<GpuId>& workers) = 0;
  virtual std::int64_t now() const = 0;
  // Makes wait() return by `when` even if nothing ends then (the replay's scheduling costs).
  // A real device has no such timer: the engine refuses to charge costs on one.
  virtual void wake_at(std::int64_t) {}
};

}  // namespace tilelens
