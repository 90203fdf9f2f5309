// The replay engine: a deterministic discrete-event simulation of K GPUs with memory M
// (DESIGN section 3). It drives any Scheduler and EvictionPolicy and reports to an observer.
//
// What it models: each GPU holds at most `buffer_depth` tasks it has popped and not finished
// (the running one included; depth 1 means no prefetch window, the fgcs model). As soon as a
// task enters the buffer its missing inputs are requested, in buffer order; a request
// reserves room at once, evicting as the policy says, and may evict only data that no earlier
// held task (nor the running one) uses, so the next task to run can always make progress.
// Transfers share the host bus fluidly (one channel per direction) or go over a GPU-to-GPU
// link when the platform has one; each pays the platform's latency first. A task starts
// when the GPU is idle and all its data are resident; by default tasks start in buffer order.
// When a task writing data ends, its GPU holds the only valid copy: other GPUs' copies are
// invalidated, and the host's copy is refreshed by a write-back when that copy is evicted,
// when another GPU needs the data and no GPU link exists, or at the end of the run.
// The clock is integer nanoseconds; equal-time events are processed in a fixed order, so
// the same inputs give the same trace bit for bit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eviction/policy.hpp"
#include "schedulers/scheduler.hpp"
#include "trace/summary.hpp"
#include "trace/trace.hpp"

namespace tilelens {

// The physics of a real executor (instrument/): when ReplayOptions::device is set, the engine
// takes every decision exactly as in a replay (pops, requests, victims, write-backs), but the
// device moves the data and runs the kernels, and says when they end. Transfer ids and the
// order of the calls are the engine's; the device keeps whatever it needs (slots, events).
class ExecutionDevice {
 public:
  virtual ~ExecutionDevice() = default;
  // A load of `data` into memory node `node`, from the host (source kFromHost) or from the
  // copy of memory node `source`. Room was reserved by the engine when it asked for it.
  virtual void start_load(std::uint32_t transfer, std::uint32_t node, DataId data, std::int32_t source) = 0;
  // The copy of `data` on `node` goes back to the host.
  virtual void start_writeback(std::uint32_t transfer, std::uint32_t node, DataId data) = 0;
  virtual void allocate(std::uint32_t node, DataId data) = 0;  // room for a write-only output
  virtual void release(std::uint32_t node, DataId data) = 0;   // the copy left: its room is free
  virtual void start_task(GpuId worker, TaskId task) = 0;
  // Waits until at least one started transfer or task has ended, appends those that ended
  // (transfer ids; workers whose task ended) and returns the time (ns since the run began).
  // Returns INT64_MAX at once when nothing is in flight.
  virtual std::int64_t wait(std::vector<std::uint32_t>& transfers, std::vector<GpuId>& workers) = 0;
  virtual std::int64_t now() const = 0;  // ns since the run began
};

struct ReplayOptions {
  Platform platform;
  std::uint32_t buffer_depth = 4;
  // fgcs "HFP with sched. time": the wall time the scheduler spends in prepare() (the whole
  // computation of a static schedule) delays the start of every GPU, so it shows in the
  // makespan. Decisions taken during the run (push, pop) stay uncharged: the simulated clock
  // does not model the CPU. The run is then no longer reproducible bit for bit.
  bool charge_scheduling = false;
  // Set by the real executor: the engine's clock and events are then the device's.
  ExecutionDevice* device = nullptr;
};

// Runs the workload to completion. Errors: a task that cannot fit (checked before the run),
// a Belady policy without a known future, or a scheduler that stops handing out tasks while
// some remain (reported with the time and the count).
Result<ReplaySummary> replay(const Workload& workload, Scheduler& scheduler, EvictionPolicy& eviction,
                             const ReplayOptions& options, ReplayObserver* observer = nullptr);

}  // namespace tilelens
