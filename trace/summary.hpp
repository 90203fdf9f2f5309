// The totals of one execution, replayed or measured: loads by kind and source, bytes,
// evictions, write-backs, makespan and throughput, with the per-worker figures.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/scheduling_cost.hpp"

namespace tilelens {

struct GpuSummary {
  std::uint64_t tasks = 0;
  std::uint64_t loads = 0;
  std::uint64_t allocations = 0;
  std::uint64_t evictions = 0;      // for room
  std::uint64_t invalidations = 0;  // copies made stale by a write on another GPU
  std::uint64_t resident_at_end = 0;
  std::int64_t busy_ns = 0;
  double peak_bytes = 0;
};

struct ReplaySummary {
  std::uint64_t tasks = 0;
  std::uint64_t loads = 0;  // every transfer into a GPU (fgcs section 3)
  std::uint64_t fetches = 0, prefetches = 0, unused_loads = 0;
  std::uint64_t loads_from_host = 0, loads_from_gpu = 0;
  double bytes_loaded = 0, bytes_from_host = 0, bytes_gpu_to_gpu = 0;
  double bytes_fetched = 0, bytes_prefetched = 0;
  std::uint64_t evictions = 0, invalidations = 0, allocations = 0;
  std::uint64_t writebacks = 0;
  double bytes_written_back = 0;
  std::uint64_t stale_writebacks = 0;  // write-backs whose version was overwritten on another GPU in flight
  std::int64_t makespan_ns = 0;    // last task end
  std::int64_t flush_end_ns = 0;   // last final write-back end (>= makespan)
  double total_flops = 0;
  double gflops = 0;               // total flops / makespan
  std::int64_t idle_ns = 0;        // sum over GPUs of makespan - busy time
  std::int64_t scheduling_ns = 0;  // wall time spent inside the scheduler (measured, not simulated)
  std::int64_t prepare_ns = 0;     // the part of it spent in prepare(): the static schedule
  std::int64_t charged_ns = 0;     // start delay charged to the makespan (ReplayOptions::charge_scheduling)
  std::int64_t eviction_ns = 0;    // wall time spent inside the eviction policy
  // The scheduler's pushes and pops that handed out a task, with the cost fitted from their
  // wall times (what `tilelens calibrate` charges back); for an imported StarPU run, from its
  // trace's scheduling states, against the ready tasks then (docs/starpu-import.md).
  DecisionFit push_decisions, pop_decisions;
  std::int64_t decisions_charged_ns = 0;   // simulated time charged to decisions (ReplayOptions::scheduling_cost)
  // Belady under a scheduler that departs from its future (replay(), engine.hpp): the replays
  // made, the kept one included (0: one replay, no such scheduler), and whether the order
  // that ran became the future Belady saw.
  std::uint32_t future_rounds = 0;
  bool future_converged = true;
  // The scheduler's own counts (Scheduler::counters), by name: LAHeteroprio's BMD and AUTO's
  // choices. Empty for the other schedulers and for measured and imported runs.
  std::vector<std::pair<std::string, std::uint64_t>> scheduler_counters;
  // One of them by name; none when the scheduler did not count it.
  std::optional<std::uint64_t> scheduler_counter(std::string_view name) const {
    for (const auto& [key, value] : scheduler_counters) {
      if (key == name) return value;
    }
    return std::nullopt;
  }
  std::uint64_t events = 0;
  std::vector<GpuSummary> gpus;
};

}  // namespace tilelens
