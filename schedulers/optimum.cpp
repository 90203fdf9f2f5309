// OPTIMUM: the schedule of fewest loads, found by the exact search (optimum_search.hpp) when the
// run is prepared, then served as found: each GPU takes its own tasks in their order, each once
// it is ready, and Belady reads each GPU's list as its future. Its counters say whether the
// search proved it, and the bound it proved otherwise.
#include "schedulers/optimum_search.hpp"
#include "schedulers/static_order.hpp"

namespace tilelens {
namespace {

class OptimumScheduler final : public Scheduler, public TaskFuture {
 public:
  explicit OptimumScheduler(OptimumLimits limits) : limits_(limits) {}

  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) override {
    failure_.clear();
    result_ = {};
    lists_.assign(std::max(platform.gpus, 1u), {});
    cursor_.assign(lists_.size(), 0);
    ready_.assign(workload.task_count(), 0);
    auto problem = optimum_problem(workload, platform);
    if (!problem) {
      failure_ = "optimum: " + problem.error().message;
      return;
    }
    result_ = solve_optimum(*problem, limits_);
    for (std::size_t k = 0; k < result_.schedule.order.size(); ++k) lists_[result_.schedule.gpu[k]].push_back(result_.schedule.order[k]);
    uses_.assign(lists_.size(), {});
    if (context.future_needed) {
      for (std::size_t g = 0; g < lists_.size(); ++g) {
        uses_[g].reset_for_every_read(workload);
        for (std::uint32_t position = 0; position < lists_[g].size(); ++position) uses_[g].append_reads(workload, lists_[g][position], position);
      }
    }
  }
  std::string failure() const override { return failure_; }
  void push(TaskId task) override { ready_[task] = 1; }
  std::optional<TaskId> pop(GpuId gpu) override {
    if (gpu >= lists_.size() || cursor_[gpu] >= lists_[gpu].size()) return std::nullopt;
    const TaskId next = lists_[gpu][cursor_[gpu]];
    if (!ready_[next]) return std::nullopt;  // its predecessors run elsewhere: wait for them
    ++cursor_[gpu];
    return next;
  }
  bool follows_replicas() const override { return false; }
  const TaskFuture* future() const override { return this; }
  std::uint64_t next_use(GpuId gpu, DataId data) const override {
    if (gpu >= uses_.size()) return kNever;
    return uses_[gpu].next(data, [this, gpu](std::uint64_t position) { return position < cursor_[gpu]; });
  }
  std::vector<std::pair<std::string, std::uint64_t>> counters() const override {
    if (!failure_.empty()) return {};
    return {{"optimum_proven", result_.proven ? 1 : 0},
            {"optimum_loads", result_.loads},
            {"optimum_lower_bound", result_.lower_bound},
            {"optimum_states_expanded", result_.expanded},
            {"optimum_search_ms", static_cast<std::uint64_t>(result_.seconds * 1e3)}};
  }

 private:
  OptimumLimits limits_;
  OptimumResult result_;
  std::string failure_;
  std::vector<std::vector<TaskId>> lists_;  // per GPU, in the order found
  std::vector<std::size_t> cursor_;
  std::vector<char> ready_;
  std::vector<NextUseIndex> uses_;
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
