// The replay engine: a deterministic discrete-event simulation of K GPUs with memory M
// (DESIGN section 3). It drives any Scheduler and EvictionPolicy and reports to an observer.
//
// What it models: each GPU holds at most `buffer_depth` tasks it has popped and not finished
// (the running one included; depth 1 means no prefetch window, the fgcs model). As soon as a
// task enters the buffer its missing inputs are requested, in buffer order: a fetch for the
// next task to run, prefetches for the others. A request reserves room when it starts,
// evicting as the policy says, and may evict only data that no earlier held task (nor the
// running one) uses, so the next task to run can always make progress. The memory model
// (memory_model.hpp) says which requests may evict, in what order a node serves them, how
// many transfers it has in flight, and when dirty data are written back.
// Transfers share the host bus fluidly (one link per direction) or go over a GPU-to-GPU
// link when the platform has one; each pays the platform's latency first. A task starts
// when the GPU is idle and all its data are resident; by default tasks start in buffer order.
// When a task writing data ends, its GPU holds the only valid copy: other GPUs' copies are
// invalidated, and the host's copy is refreshed by a write-back when that copy is evicted,
// when another GPU needs the data and no GPU link exists, or at the end of the run.
// The clock is integer nanoseconds; equal-time events are processed in a fixed order, so
// the same inputs give the same trace bit for bit.
//
// The engine is the event loop and its decisions (engine.cpp). The books of the copies are
// memory_state.hpp; the clock and the links are an ExecutionDevice (execution_device.hpp):
// the simulated one (simulated_device.hpp, platform_links.hpp) unless a real executor gives its
// own (instrument/), which then runs the very same decisions on a GPU.
#pragma once

#include <atomic>
#include <cstdint>

#include "eviction/policy.hpp"
#include "replay/execution_device.hpp"
#include "runtime/memory_model.hpp"
#include "runtime/scheduling_cost.hpp"
#include "schedulers/scheduler.hpp"
#include "trace/summary.hpp"
#include "trace/trace.hpp"

namespace tilelens {

struct ReplayOptions {
  Platform platform;
  std::uint32_t buffer_depth = 4;
  // How memory nodes serve requests: StarPU's rules by default, the fgcs paper's selectable.
  MemoryModel memory_model{};
  // Every datum goes home at the end, those the memory model drops included (a real executor
  // whose results are checked reads them from the host).
  bool flush_all = false;
  // fgcs "HFP with sched. time": the wall time the scheduler spends in prepare() (the whole
  // computation of a static schedule) delays the start of every GPU, so it shows in the
  // makespan. Decisions taken during the run (push, pop) stay uncharged: the simulated clock
  // does not model the CPU. The run is then no longer reproducible bit for bit.
  bool charge_scheduling = false;
  // What each push and pop costs on the simulated clock (runtime/scheduling_cost.hpp); none by
  // default. A charged pop hands its task out once its cost has elapsed, and a thread (a
  // worker's, or the submitter's for the first tasks) makes one decision at a time and starts
  // no task while it decides.
  SchedulingCost scheduling_cost{};
  // Set by a real executor: the engine's clock and events are then the device's.
  ExecutionDevice* device = nullptr;
  // Set from another thread to stop the replay at its next event, with kCancelled as the
  // error (the app's Cancel).
  const std::atomic<bool>* cancel = nullptr;
};
inline constexpr const char* kCancelled = "cancelled";

// Runs the workload to completion. Errors: a task that cannot fit (checked before the run),
// a Belady policy without a known future, or a scheduler that stops handing out tasks while
// some remain (reported with the time and the count).
//
// A policy that reads the future (Belady) under a scheduler that serves out of its future's
// order (Ready, stealing: Scheduler::serves_out_of_future_order) would evict by an order that
// does not run. The workload is then replayed again with the order each worker ran as the
// future (KnownFutureScheduler), until that order repeats, at most 8 replays in all; the
// observer is given the records of only the replay whose future was its own order, or
// without a fixed point of the one that loaded least (summary.future_rounds, future_converged).
//
// The summary's scheduling_ns and eviction_ns are the wall time of the decisions taken by the
// scheduler (prepare, push, pop) and by the policy (attach, choose_victim, on_future_changed);
// the bookkeeping hooks that follow every replica change are not timed, as timing each would
// cost more than most of them do.
Result<ReplaySummary> replay(const Workload& workload, Scheduler& scheduler, EvictionPolicy& eviction,
                             const ReplayOptions& options, ReplayObserver* observer = nullptr);

}  // namespace tilelens
