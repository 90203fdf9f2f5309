// The exact optimum of the papers' problem on small instances (fgcs sections 3 and 4): the
// order of the tasks (and, on two GPUs, their assignment) that loads the fewest data on GPUs
// of M equal-sized items each, with no prefetch. For a fixed order Belady's rule is optimal (fgcs Theorem 1), so the optimum is the
// least, over all orders, of Belady's loads on that order. The search is A* over the states
// (tasks done, data in memory), docs/optimum.md says how and how far it reaches.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "util/result.hpp"

namespace tilelens {

// An instance as the search sees it: bit masks over at most 64 tasks and 64 data.
struct OptimumProblem {
  std::uint32_t gpus = 1;             // 1 or 2, each with its own memory
  std::uint32_t tasks = 0, data = 0;
  std::uint32_t memory = 0;           // items one GPU holds
  std::vector<std::uint64_t> needs;   // per task: every datum it accesses (in memory while it runs)
  std::vector<std::uint64_t> reads;   // per task: those it reads (a load when absent)
  std::vector<std::uint64_t> preds;   // per task: the tasks it depends on
};
inline constexpr std::uint32_t kOptimumMaxTasks = 64, kOptimumMaxData = 64;

// The instance, or why the search does not take it: more than two GPUs, GPUs sharing a memory or
// any CPU worker, a task that writes on two GPUs (its invalidations are not searched), more
// than 64 tasks or data, data of unequal sizes, or a memory that cannot hold one task's data.
Result<OptimumProblem> optimum_problem(const Workload& workload, const Platform& platform);

struct OptimumLimits {
  double seconds = 10;                 // then the best order found, with the bound proven so far
  std::uint64_t states = 4'000'000;    // states kept and queued (about 100 bytes each), the same
  bool symmetry = true;                // merge states the 2D product's symmetry maps onto each other
};

// An order of the tasks and the GPU each runs on (all 0 on one GPU). On two GPUs the optimum
// minimises the loads alone: it may leave a GPU idle if that loads least.
struct OptimumSchedule {
  std::vector<TaskId> order;
  std::vector<std::uint32_t> gpu;  // per position of `order`
};

struct OptimumResult {
  OptimumSchedule schedule;
  std::uint64_t loads = 0;        // Belady's loads on the schedule, each GPU with its own future
  std::uint64_t lower_bound = 0;  // no order loads fewer (equal to loads when proven)
  bool proven = false;
  std::uint64_t greedy_loads = 0; // the starting order's (the greedy one's), for comparison
  std::uint64_t expanded = 0;     // states expanded
  bool symmetric = false;         // states were merged by the 2D product's symmetry
  double seconds = 0;
};
OptimumResult solve_optimum(const OptimumProblem& problem, const OptimumLimits& limits = {});

// Belady's loads on a given schedule (on each GPU the datum whose next use there is furthest is
// evicted; fgcs Theorem 1): its cost, as the papers count it. The order alone runs on GPU 0.
std::uint64_t belady_loads(const OptimumProblem& problem, const OptimumSchedule& schedule);
std::uint64_t belady_loads(const OptimumProblem& problem, const std::vector<TaskId>& order);

}  // namespace tilelens
