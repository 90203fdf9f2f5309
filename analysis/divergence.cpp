// Where two schedules part; see divergence.hpp.
#include "analysis/divergence.hpp"

#include <algorithm>
#include <unordered_map>

namespace tilelens {
namespace {

void count_loads(const Trace& trace, std::uint32_t rank, DivergenceSide& side) {
  std::unordered_map<TaskId, std::uint32_t> rank_of;
  rank_of.reserve(trace.tasks.size());
  std::int64_t last_end = 0;
  for (std::uint32_t r = 0; r < trace.tasks.size(); ++r) {
    rank_of.emplace(trace.tasks[r].task, r);
    last_end = std::max(last_end, trace.tasks[r].end_ns);
  }
  if (rank < trace.tasks.size()) {
    side.task = trace.tasks[rank].task;
    side.worker = trace.tasks[rank].gpu;
    side.start_ns = trace.tasks[rank].start_ns;
  } else {
    side.start_ns = last_end;
  }
  for (const LoadRecord& load : trace.loads) {
    bool after = false;
    if (load.task == kNoId) {
      after = load.issue_ns >= side.start_ns;
    } else {
      const auto it = rank_of.find(load.task);
      after = it == rank_of.end() || it->second >= rank;
    }
    if (after) {
      ++side.loads_after;
      side.bytes_after += load.bytes;
    } else {
      ++side.loads_before;
    }
  }
}

}  // namespace

Divergence find_divergence(const Trace& first, const Trace& second) {
  Divergence divergence;
  const std::size_t common = std::min(first.tasks.size(), second.tasks.size());
  std::uint32_t rank = 0;
  while (rank < common && first.tasks[rank].task == second.tasks[rank].task && first.tasks[rank].gpu == second.tasks[rank].gpu) ++rank;
  divergence.rank = rank;
  divergence.identical = rank == first.tasks.size() && rank == second.tasks.size();
  count_loads(first, rank, divergence.first);
  count_loads(second, rank, divergence.second);
  return divergence;
}

}  // namespace tilelens
