// DESIGN section 3's classification of a load, and the totals of an execution summed from its
// records alone. One rule and one sum serve every executor: the replay engine adds each record
// as it emits it; the CUDA executor classifies and sums its trace again once the device has
// measured the times.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/summary.hpp"
#include "trace/trace.hpp"

namespace tilelens {

// A used load is a fetch when it arrived after its worker was ready for the task (the worker
// had finished the previous task and the task was in its buffer), a prefetch otherwise.
inline LoadKind classify_load(std::int64_t load_end_ns, std::int64_t ready_ns) {
  return load_end_ns > ready_ns ? LoadKind::Fetch : LoadKind::Prefetch;
}

// The totals of the records added so far. The summary's other fields (scheduling and eviction
// time, events, peak memory, copies resident at the end, stale write-backs) are the
// executor's own; finish() leaves them as they are.
class TraceTotals {
 public:
  explicit TraceTotals(std::size_t workers) : gpus_(workers) {}
  void add(const TaskRecord& r) {
    Worker& w = gpus_[r.gpu];
    ++w.tasks;
    w.busy_ns += r.end_ns - r.start_ns;
    if (r.end_ns > makespan_ns_) makespan_ns_ = r.end_ns;
  }
  void add(const LoadRecord& r) {
    const auto bytes = static_cast<double>(r.bytes);
    ++loads_;
    ++gpus_[r.gpu].loads;
    bytes_loaded_ += bytes;
    if (r.source == kFromHost) {
      ++loads_from_host_;
      bytes_from_host_ += bytes;
    } else {
      ++loads_from_gpu_;
      bytes_gpu_to_gpu_ += bytes;
    }
    if (r.kind == LoadKind::Fetch) {
      ++fetches_;
      bytes_fetched_ += bytes;
    } else if (r.kind == LoadKind::Prefetch) {
      ++prefetches_;
      bytes_prefetched_ += bytes;
    } else {
      ++unused_;
    }
  }
  void add(const EvictionRecord& r) {
    Worker& w = gpus_[r.gpu];
    if (r.cause == EvictionCause::Capacity) {
      ++w.evictions;
      ++evictions_;
    } else {
      ++w.invalidations;
      ++invalidations_;
    }
  }
  void add(const WritebackRecord& r);
  void add(const AllocationRecord& r) {
    ++gpus_[r.gpu].allocations;
    ++allocations_;
  }
  // Writes every total into `summary`, with `total_flops` for the throughput.
  void finish(ReplaySummary& summary, double total_flops) const;

 private:
  struct Worker {
    std::uint64_t tasks = 0, loads = 0, allocations = 0, evictions = 0, invalidations = 0;
    std::int64_t busy_ns = 0;
  };
  std::vector<Worker> gpus_;
  std::int64_t makespan_ns_ = 0, writebacks_end_ns_ = 0;
  std::uint64_t loads_ = 0, loads_from_host_ = 0, loads_from_gpu_ = 0;
  std::uint64_t fetches_ = 0, prefetches_ = 0, unused_ = 0;
  double bytes_loaded_ = 0, bytes_from_host_ = 0, bytes_gpu_to_gpu_ = 0, bytes_fetched_ = 0, bytes_prefetched_ = 0;
  std::uint64_t evictions_ = 0, invalidations_ = 0, allocations_ = 0, writebacks_ = 0;
  double bytes_written_back_ = 0;
};

// Classifies every used load of a trace again: each task is ready when its worker finished
// the task it ran before and the task was in its buffer (the executor, on measured times).
void classify_loads(Trace& trace);
// The totals of a whole trace into `summary` (TraceTotals over every record).
void sum_trace(const Trace& trace, ReplaySummary& summary);

}  // namespace tilelens
