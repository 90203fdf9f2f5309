// The scheduling cost model and its fit; see scheduling_cost.hpp.
#include "runtime/scheduling_cost.hpp"

#include <algorithm>
#include <cmath>

#include "model/params.hpp"
#include "model/units.hpp"

namespace tilelens {
namespace {

const std::vector<ParamSpec>& cost_params() {
  static const std::vector<ParamSpec> params = {
      {"pop", "0", "time per pop that hands out a task, paid by the popping worker"},
      {"pop_per_task", "0", "time per task a pop scanned"},
      {"push", "0", "time per push, paid by the worker whose task released it (the submitter for the first tasks)"},
      {"push_per_task", "0", "time per task a push scanned"},
  };
  return params;
}

std::string format_ns(double ns) { return format_exact(ns) + "ns"; }

}  // namespace

std::int64_t SchedulingCost::cost(double base, double per_task, std::uint64_t scanned) {
  return static_cast<std::int64_t>(std::llround(base + per_task * static_cast<double>(scanned)));
}

std::string SchedulingCost::canonical() const {
  if (!charged()) return "";
  return "pop=" + format_ns(pop_ns) + ",pop_per_task=" + format_ns(pop_per_task_ns) + ",push=" + format_ns(push_ns) +
         ",push_per_task=" + format_ns(push_per_task_ns);
}

Result<SchedulingCost> parse_scheduling_cost(std::string_view text) {
  if (text.empty() || text == "0" || text == "none") return SchedulingCost{};
  auto spec = parse_spec("scheduling-cost:" + std::string(text));
  if (!spec) return spec.error();
  auto params = Params::bind(*spec, cost_params(), "scheduling cost");
  if (!params) return params.error();
  SchedulingCost cost;
  for (const auto& [key, target] : {std::pair{"push", &cost.push_ns}, std::pair{"push_per_task", &cost.push_per_task_ns},
                                    std::pair{"pop", &cost.pop_ns}, std::pair{"pop_per_task", &cost.pop_per_task_ns}}) {
    auto ns = parse_duration(params->text(key));
    if (!ns) return make_error("scheduling cost '" + std::string(key) + "': " + ns.error().message);
    if (!(*ns <= 1e12)) return make_error("scheduling cost '" + std::string(key) + "': at most 1000 s");
    *target = *ns;
  }
  return cost;
}

void DecisionFitter::add(std::uint64_t scanned, double ns) {
  add_untimed(scanned);
  const auto x = static_cast<double>(scanned);
  ++n_;
  sx_ += x;
  sy_ += ns;
  sxx_ += x * x;
  sxy_ += x * ns;
}

void DecisionFitter::add_untimed(std::uint64_t scanned) {
  ++count_;
  scanned_ += scanned;
}

DecisionFit DecisionFitter::fit() const {
  DecisionFit fit;
  fit.count = count_;
  fit.scanned = scanned_;
  fit.timed = n_;
  if (n_ == 0) return fit;
  const double n = static_cast<double>(n_);
  const double spread = sxx_ - sx_ * sx_ / n;
  if (spread > 1e-9 * std::max(1.0, sxx_)) fit.per_task_ns = std::max(0.0, (sxy_ - sx_ * sy_ / n) / spread);
  // A negative slope is noise: the constant alone then explains the times.
  fit.base_ns = std::max(0.0, (sy_ - fit.per_task_ns * sx_) / n);
  if (!std::isfinite(fit.base_ns) || !std::isfinite(fit.per_task_ns)) fit.base_ns = fit.per_task_ns = 0;  // hostile times
  return fit;
}

SchedulingCost cost_from_fits(const DecisionFit& push, const DecisionFit& pop) {
  SchedulingCost cost;
  // A tenth of a nanosecond is finer than any measured decision: a spec that reads well.
  const auto tenth = [](double ns) { return std::round(ns * 10) / 10; };
  cost.push_ns = tenth(push.base_ns);
  cost.push_per_task_ns = tenth(push.per_task_ns);
  cost.pop_ns = tenth(pop.base_ns);
  cost.pop_per_task_ns = tenth(pop.per_task_ns);
  return cost;
}

}  // namespace tilelens
