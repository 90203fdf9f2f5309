// OPTIMUM: the order of fewest loads, found by the exact search (optimum_search.hpp) when the
// run is prepared, then served like any static order (Belady reads it as its future). Its
// counters say whether the search proved it, and the bound it proved otherwise.
#include <chrono>

#include "schedulers/optimum_search.hpp"
#include "schedulers/static_order.hpp"

namespace tilelens {
namespace {

class OptimumScheduler final : public OrderedScheduler {
 public:
  explicit OptimumScheduler(OptimumLimits limits) : limits_(limits) {}
  std::string failure() const override { return failure_; }
  std::vector<std::pair<std::string, std::uint64_t>> counters() const override {
    if (!failure_.empty()) return {};
    return {{"optimum_proven", result_.proven ? 1 : 0},
            {"optimum_loads", result_.loads},
            {"optimum_lower_bound", result_.lower_bound},
            {"optimum_states_expanded", result_.expanded},
            {"optimum_search_ms", static_cast<std::uint64_t>(result_.seconds * 1e3)}};
  }

 protected:
  std::vector<TaskId> compute_order(const Workload& workload, const Platform& platform, const SchedulerContext&) override {
    failure_.clear();
    result_ = {};
    auto problem = optimum_problem(workload, platform);
    if (!problem) {
      failure_ = "optimum: " + problem.error().message;
      std::vector<TaskId> submission(workload.task_count());
      for (TaskId t = 0; t < workload.task_count(); ++t) submission[t] = t;
      return submission;
    }
    result_ = solve_optimum(*problem, limits_);
    return result_.order;
  }

 private:
  OptimumLimits limits_;
  OptimumResult result_;
  std::string failure_;
};

}  // namespace

Result<std::unique_ptr<Scheduler>> make_optimum(const Params& params) {
  auto seconds = params.real("time_limit");
  if (!seconds) return seconds.error();
  auto states = params.integer("states");
  if (!states) return states.error();
  if (*seconds <= 0 || *states < 1) return make_error("optimum: time_limit and states must be positive");
  return std::unique_ptr<Scheduler>(std::make_unique<OptimumScheduler>(OptimumLimits{*seconds, static_cast<std::uint64_t>(*states)}));
}

}  // namespace tilelens
