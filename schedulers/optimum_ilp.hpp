// The exact optimum as an integer program solved by CBC (coinor-libcbc-dev), to measure against
// the A* search (optimum_search.hpp) on the same instances: `tilelens bench optimum --cbc`.
// The search is what `optimum` uses; docs/optimum.md compares the two.
#pragma once

#include <string>

#include "schedulers/optimum_search.hpp"

namespace tilelens {

struct OptimumIlpResult {
  std::string error;         // why it did not run (two GPUs)
  double loads = 0;          // the best schedule found; infinity when none was found in time
  double lower_bound = 0;    // CBC's best bound
  bool proven = false;
  double seconds = 0;
  int columns = 0, rows = 0;  // the program's size
};

// A time-indexed program: a binary per (task, position), per (datum, position) in memory, loads
// as the data entering memory, read by their task; one GPU only.
OptimumIlpResult solve_optimum_ilp(const OptimumProblem& problem, double seconds);

}  // namespace tilelens
