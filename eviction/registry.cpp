// The one list of eviction policies known to tilelens, by name.
#include "eviction/plugin_eviction.hpp"
#include "schedulers/plugin_library.hpp"
#include "eviction/recency_list.hpp"

namespace tilelens {

const std::vector<EvictionInfo>& eviction_registry() {
  static const std::vector<EvictionInfo> registry = {
      {"lru", "least recently used (load or task start)", {}, make_lru},
      {"fifo", "first loaded, first evicted", {}, make_fifo},
      {"belady", "Belady's MIN: furthest next use in the scheduler's known future (fgcs Theorem 1)", {}, make_belady},
      {"luf", "Least Used in the Future (darts 5.4): unused by pulled and planned tasks first, refuses prefetch evictions", {}, make_luf},
  };
  return registry;
}

EmbeddedPolicies<MadeEviction>& embedded_evictions() {
  static EmbeddedPolicies<MadeEviction> registry;
  return registry;
}

Result<MadeEviction> make_eviction(std::string_view text) {
  auto spec = parse_spec(text);
  if (!spec) return spec.error();
  if (is_plugin_path(spec->name)) return make_plugin_eviction(*spec);
  if (is_embedded_name(spec->name)) return embedded_evictions().make(*spec, "eviction policy");
  std::string valid;
  for (const auto& info : eviction_registry()) {
    if (info.name == spec->name) {
      auto params = Params::bind(*spec, info.params, "eviction policy");
      if (!params) return params.error();
      return MadeEviction{info.make(*params), params->canonical()};
    }
    valid += (valid.empty() ? "" : ", ") + info.name;
  }
  return make_error("unknown eviction policy '" + spec->name + "' (valid: " + valid + ")");
}

std::string short_eviction_spec(std::string_view text) {
  auto spec = parse_spec(text);
  if (spec && (is_plugin_path(spec->name) || is_embedded_name(spec->name))) return plugin_label(*spec);
  return std::string(text);
}

}  // namespace tilelens
