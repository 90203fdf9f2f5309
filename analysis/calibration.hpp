// Calibration (issue "Instrumented CUDA executor", point 5): a replay platform derived from a
// trace, measured or replayed. Plain C++; `tilelens calibrate` and `tilelens fidelity` use it.
//
// Per kind, the rate is the kind's flops over the time its tasks kept a GPU busy: from the
// moment the GPU could start the task (the previous task ended, its loads arrived and it was
// in the buffer) to its end. Launch gaps and per-task overheads are folded into the rate in
// this way, since the replay model has no per-task cost of its own. The bus bandwidth is the
// bytes of the loads from the host over their durations (each measured alone on its stream);
// the latency is the intercept of a least-squares line through (bytes, duration) when the
// loads have several sizes, else 0 (one size cannot separate latency from bandwidth).
#pragma once

#include <map>
#include <string>

#include "runtime/scheduling_cost.hpp"
#include "trace/trace.hpp"

namespace tilelens {

struct Calibration {
  Platform platform;  // the base platform with the measured rates, bandwidth and latency
  // Behind each rate of platform.kind_gflops (the bounded-memory workers'): its tasks, and the
  // rate on kernel time alone, for comparison.
  std::map<std::string, std::uint64_t> tasks_per_kind;
  std::map<std::string, double> kernel_gflops;
  std::uint64_t host_loads = 0;
  double load_bytes_per_s = 0, writeback_bytes_per_s = 0;
  std::int64_t latency_ns = 0;
  // What the run's scheduler decisions cost, fitted from its pushes and pops (their wall times
  // in a run tilelens made, the Scheduling states of an imported StarPU trace): what
  // `replay --scheduling-cost` charges. Not part of the platform: the platform file leaves it out.
  SchedulingCost scheduling_cost;
  std::uint64_t decisions = 0;  // the pushes and pops behind it; 0: none recorded
};

// Errors: a trace without tasks, or a kind with tasks of zero duration.
Result<Calibration> calibrate(const Workload& workload, const Trace& trace, const Platform& base);

}  // namespace tilelens
