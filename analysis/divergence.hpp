// Where two schedules of one workload part: the first rank, in the order tasks start, at
// which the two runs start a different task (or the same task on another worker), and the
// loads each run makes from there on. Before that rank both made the same decisions, so what
// follows is what their policies' difference cost.
#pragma once

#include <cstdint>

#include "trace/trace.hpp"

namespace tilelens {

struct DivergenceSide {
  TaskId task = kNoId;  // the task started at the divergence rank; kNoId when the run has no more
  GpuId worker = 0;
  std::int64_t start_ns = 0;     // when it started (the run's last task end when none)
  std::uint64_t loads_before = 0, loads_after = 0;
  std::uint64_t bytes_after = 0;
};

struct Divergence {
  bool identical = false;  // same tasks, same workers, same order throughout
  std::uint32_t rank = 0;  // 0-based rank of the first differing start (the common prefix's length)
  DivergenceSide first, second;
};

// A load is "after" when the task it served starts at the divergence rank or later, or, for a
// load no task used, when it was issued at or after that run's divergence start.
Divergence find_divergence(const Trace& first, const Trace& second);

}  // namespace tilelens
