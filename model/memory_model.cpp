// The memory models' parameters and their specs; see memory_model.hpp.
#include "model/memory_model.hpp"

#include "model/units.hpp"

namespace tilelens {
namespace {

std::vector<ParamSpec> declare(const MemoryModel& defaults) {
  const auto flag = [](bool value) { return std::string(value ? "1" : "0"); };
  return {
      {"clean_first", flag(defaults.clean_first), "a fetch that must evict takes a clean replica of the same size first"},
      {"fetches_first", flag(defaults.fetches_first),
       "a node serves every worker's fetch before any prefetch, and pauses prefetching at the first one it cannot place"},
      {"flush_homeless", flag(defaults.flush_homeless), "write back at the end data whose first access writes them (no home)"},
      {"idle_writeback", flag(defaults.idle_writeback), "write the oldest dirty replicas back while the node has no transfer in flight"},
      {"max_fetches", std::to_string(defaults.max_fetches), "transfers in flight on a node before fetches wait (0: no limit)"},
      {"max_prefetches", std::to_string(defaults.max_prefetches), "transfers in flight on a node before prefetches wait (0: no limit)"},
      {"min_clean", format_exact(defaults.min_clean), "percent of a node's replicas kept clean, below which idle write-back starts"},
      {"prefetch_at_push", flag(defaults.prefetch_at_push), "prefetch a task's inputs when the scheduler allocates it to a worker"},
      {"prefetch_evicts", flag(defaults.prefetch_evicts), "requests for buffered tasks after the next one may evict"},
      {"reclaim", format_exact(defaults.reclaim), "a fetch with no clean replica to take frees this many times its room (1 to 16)"},
      {"target_clean", format_exact(defaults.target_clean), "percent of clean replicas at which idle write-back stops"},
      {"touch_on_request", flag(defaults.touch_on_request), "a prefetch finding its data there makes it the most recently used"},
  };
}

MemoryModel fgcs_defaults() {
  MemoryModel model;
  model.base = "fgcs";
  model.prefetch_evicts = true;
  model.prefetch_at_push = false;
  model.fetches_first = false;
  model.max_fetches = 0;
  model.max_prefetches = 0;
  model.clean_first = false;
  model.reclaim = 1;
  model.touch_on_request = false;
  model.idle_writeback = false;
  model.flush_homeless = true;
  return model;
}

}  // namespace

const std::vector<ParamSpec>& memory_model_params(std::string_view base) {
  static const std::vector<ParamSpec> starpu = declare(MemoryModel{});
  static const std::vector<ParamSpec> fgcs = declare(fgcs_defaults());
  return base == "fgcs" ? fgcs : starpu;
}

// Every parameter with this model's value: declare() writes each value as the spec reads it.
std::string MemoryModel::canonical() const {
  std::string out = base;
  char separator = ':';
  for (const ParamSpec& param : declare(*this)) {
    out += separator + param.key + "=" + param.default_value;
    separator = ',';
  }
  return out;
}

const std::string& fgcs_memory_model_spec() {
  static const std::string spec = fgcs_defaults().canonical();
  return spec;
}

std::string short_memory_model_spec(std::string_view text) {
  auto spec = parse_spec(text);
  if (!spec || (spec->name != "starpu" && spec->name != "fgcs")) return std::string(text);
  auto model = parse_memory_model(text);
  if (!model) return std::string(text);
  std::string out = spec->name;
  char separator = ':';
  // The model's own canonical values, so that "on" and "1" compare equal.
  const auto canonical = parse_spec(model->canonical());
  for (const ParamSpec& param : memory_model_params(spec->name)) {
    const std::string& value = canonical->values.at(param.key);
    if (value == param.default_value) continue;
    out += separator + param.key + "=" + value;
    separator = ',';
  }
  return out;
}

Result<MemoryModel> parse_memory_model(std::string_view text) {
  auto spec = parse_spec(text);
  if (!spec) return spec.error();
  if (spec->name != "starpu" && spec->name != "fgcs") {
    return make_error("unknown memory model '" + spec->name + "' (valid: starpu, fgcs)");
  }
  auto params = Params::bind(*spec, memory_model_params(spec->name), "memory model");
  if (!params) return params.error();
  MemoryModel model = spec->name == "fgcs" ? fgcs_defaults() : MemoryModel{};
  if (auto status = params->flags({{"clean_first", &model.clean_first},
                                   {"fetches_first", &model.fetches_first},
                                   {"flush_homeless", &model.flush_homeless},
                                   {"idle_writeback", &model.idle_writeback},
                                   {"prefetch_at_push", &model.prefetch_at_push},
                                   {"prefetch_evicts", &model.prefetch_evicts},
                                   {"touch_on_request", &model.touch_on_request}});
      !status) {
    return status.error();
  }
  for (const auto& [key, target] : {std::pair{"max_fetches", &model.max_fetches}, std::pair{"max_prefetches", &model.max_prefetches}}) {
    auto value = params->integer(key);
    if (!value) return value.error();
    if (*value < 0 || *value > 1000000) return make_error("parameter " + std::string(key) + " of memory model: must be 0 to 1000000");
    *target = static_cast<std::uint32_t>(*value);
  }
  for (const auto& [key, target] : {std::pair{"min_clean", &model.min_clean}, std::pair{"target_clean", &model.target_clean}}) {
    auto value = params->real(key);
    if (!value) return value.error();
    if (!(*value >= 0 && *value <= 100)) return make_error("parameter " + std::string(key) + " of memory model: a percentage, 0 to 100");
    *target = *value;
  }
  {
    auto value = params->real("reclaim");
    if (!value) return value.error();
    if (!(*value >= 1 && *value <= 16)) return make_error("parameter reclaim of memory model: a factor from 1 to 16");
    model.reclaim = *value;
  }
  if (model.target_clean < model.min_clean) {
    return make_error("memory model: target_clean (" + format_exact(model.target_clean) + ") is below min_clean (" +
                      format_exact(model.min_clean) + ")");
  }
  return model;
}

}  // namespace tilelens
