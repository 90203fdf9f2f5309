// Where each worker's time went (StarVZ's and StarPU's Gantt states): executing tasks, waiting
// for data (holding its next task, whose data are not resident yet: StarPU's FetchingInput),
// no ready task (nothing to hold), and scheduler cost (the charged prepare() delay before the
// first start). Computed from a trace alone, so replays, CUDA runs and imports read alike; the
// rules are in docs/gui.md, "Where time went".
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "trace/trace.hpp"

namespace tilelens {

enum class WorkerState : std::uint8_t { Busy, WaitingForData, NoReadyTask, SchedulerCost };
inline constexpr std::size_t kWorkerStates = 4;
const char* to_string(WorkerState state);

struct StateInterval {
  GpuId worker;
  WorkerState state;
  std::int64_t begin_ns, end_ns;
};

struct WorkerTime {
  std::array<std::int64_t, kWorkerStates> ns{};  // indexed by WorkerState; they sum to the span
  std::int64_t of(WorkerState state) const { return ns[static_cast<std::size_t>(state)]; }
  std::int64_t total() const;
};

struct TimeSplit {
  std::int64_t span_ns = 0;         // from 0 to the last task's end: every worker's row covers it
  std::vector<WorkerTime> workers;  // one per worker
  std::vector<StateInterval> idle;  // every interval that is not Busy, per worker in time order
  WorkerTime all() const;           // the workers summed
};

// `workers` rows (a worker that ran nothing is idle throughout). `charged_ns` is the run's
// start delay charged for the scheduler's preparation (RunSummary::charged_ns): every worker
// spends [0, charged_ns) in SchedulerCost. Per-decision costs are not in the trace: they count
// as NoReadyTask (a charged pop) or WaitingForData (a push on the worker's thread).
TimeSplit split_worker_time(const std::vector<TaskRecord>& tasks, std::uint32_t workers, std::int64_t charged_ns);

}  // namespace tilelens
