// The one list of schedulers known to tilelens, by name.
#include "schedulers/static_order.hpp"

namespace tilelens {

const std::vector<SchedulerInfo>& scheduler_registry() {
  static const std::vector<SchedulerInfo> registry = {
      {"eager", "tasks in release order (the natural submission order without dependencies), darts 4.1", {}, make_eager},
      {"random", "the submission order shuffled with a seed", {{"seed", "0", "seed of the shuffle"}}, make_random_order},
      {"cm", "Cuthill-McKee order of the task graph (fgcs Algorithm 1, not reversed)", {}, make_cuthill_mckee},
      {"rcm", "Reverse Cuthill-McKee order of the task graph (fgcs Algorithm 1)", {}, make_reverse_cuthill_mckee},
      {"mst", "Maximum Spanning Tree order, Prim from the first task (fgcs Algorithm 2)", {}, make_maximum_spanning_tree},
  };
  return registry;
}

Result<MadeScheduler> make_scheduler(std::string_view text) {
  auto spec = parse_spec(text);
  if (!spec) return spec.error();
  std::string valid;
  for (const auto& info : scheduler_registry()) {
    if (info.name == spec->name) {
      auto params = Params::bind(*spec, info.params, "scheduler");
      if (!params) return params.error();
      for (const auto& param : info.params) {  // every declared parameter must parse
        if (param.key == "seed") {
          auto seed = params->integer("seed");
          if (!seed) return seed.error();
          if (*seed < 0) return make_error("scheduler '" + info.name + "': seed must not be negative");
        }
      }
      return MadeScheduler{info.make(*params), params->canonical()};
    }
    valid += (valid.empty() ? "" : ", ") + info.name;
  }
  return make_error("unknown scheduler '" + spec->name + "' (valid: " + valid + ")");
}

}  // namespace tilelens
