// What a scheduler's own decisions cost on the simulated clock (issue 18, point 4): each push
// and each pop that hands out a task takes a constant time plus a time per task the decision
// scanned, and keeps the thread that made it busy meanwhile. Off by default: the papers'
// model, like tilelens's replays before it, counts decisions as free. The spec is what a run
// records ("pop=1.5us,pop_per_task=4ns,push=2us,push_per_task=0ns"); docs/replay.md says who pays each cost.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace tilelens {

struct SchedulingCost {
  // Per push (a task released to the scheduler), and per task that push scanned.
  double push_ns = 0, push_per_task_ns = 0;
  // Per pop that hands out a task, and per task that pop scanned (Scheduler::tasks_scanned).
  double pop_ns = 0, pop_per_task_ns = 0;

  bool charged() const { return push_ns > 0 || pop_ns > 0 || push_per_task_ns > 0 || pop_per_task_ns > 0; }
  // The time one decision that scanned `scanned` tasks takes, whole nanoseconds.
  std::int64_t push_cost(std::uint64_t scanned) const { return cost(push_ns, push_per_task_ns, scanned); }
  std::int64_t pop_cost(std::uint64_t scanned) const { return cost(pop_ns, pop_per_task_ns, scanned); }
  // Every parameter, "pop=1500ns,pop_per_task=4ns,push=2000ns,push_per_task=0ns", or "" when
  // nothing is charged.
  std::string canonical() const;

 private:
  static std::int64_t cost(double base, double per_task, std::uint64_t scanned);
};

// "push=2us,pop=1us,pop_per_task=5ns" (each key optional, 0 by default), or "" / "0" / "none" for
// no cost. Errors name the bad key or value.
Result<SchedulingCost> parse_scheduling_cost(std::string_view text);

// Decisions of one kind and the cost fitted from those whose time was measured: time = base +
// per_task x tasks scanned, by least squares (per_task is 0 when every decision scanned as
// many tasks, or when the slope comes out negative).
struct DecisionFit {
  std::uint64_t count = 0;    // decisions
  std::uint64_t scanned = 0;  // tasks they scanned in all
  std::uint64_t timed = 0;    // decisions whose time the fit used
  double base_ns = 0;
  double per_task_ns = 0;
};

// Accumulates decisions and fits the line through the timed ones.
class DecisionFitter {
 public:
  void add(std::uint64_t scanned, double ns);  // a timed decision
  void add_untimed(std::uint64_t scanned);     // one whose time was not measured
  DecisionFit fit() const;

 private:
  std::uint64_t count_ = 0, scanned_ = 0, n_ = 0;
  double sx_ = 0, sy_ = 0, sxx_ = 0, sxy_ = 0;
};

// The cost model that charges what was measured: each kind of decision at its fitted line.
SchedulingCost cost_from_fits(const DecisionFit& push, const DecisionFit& pop);

}  // namespace tilelens
