// The memory models' names, parameters and specs; see memory_model.hpp.
#include "runtime/memory_model.hpp"

#include "model/units.hpp"

namespace tilelens {
namespace {

constexpr std::string_view kStarpu = "starpu";
constexpr std::string_view kFgcs = "fgcs";

std::vector<ParamSpec> declare(const StarpuMemoryRules& defaults) {
  const auto flag = [](bool value) { return std::string(value ? "1" : "0"); };
  return {
      {"clean_first", flag(defaults.clean_first), "a fetch that must evict takes a clean replica of the same size first"},
      {"fetches_first", flag(defaults.fetches_first),
       "a node serves every worker's fetch before any prefetch, and pauses prefetching at the first one it cannot place"},
      {"fetch_list_order", flag(defaults.fetch_list_order),
       "a request promoted to a fetch joins the back of its node's fetch list: first hops in the fetch's data order, idle write-backs after a reclaim"},
      {"flush_homeless", flag(defaults.flush_homeless), "write back at the end data whose first access writes them (no home)"},
      {"handle_order", flag(defaults.handle_order), "a task's fetches go in the order of its data (StarPU sorts its handles)"},
      {"insert_at_allocation", flag(defaults.insert_at_allocation),
       "the eviction policy meets a new replica when its room is taken (StarPU's chunk list), not when its load arrives"},
      {"invalid_keeps_room", flag(defaults.invalid_keeps_room),
       "a replica invalidated by a write on another node keeps its room until evicted"},
      {"idle_writeback", flag(defaults.idle_writeback), "write the oldest dirty replicas back while the node has no transfer in flight"},
      {"list_at_second_hop", flag(defaults.list_at_second_hop),
       "a load through the host joins the destination's list of replicas when its second hop starts, not when it is asked for"},
      {"max_fetches", std::to_string(defaults.max_fetches), "transfers in flight on a node before fetches wait (0: no limit)"},
      {"max_prefetches", std::to_string(defaults.max_prefetches), "transfers in flight on a node before prefetches wait (0: no limit)"},
      {"min_clean", format_exact(defaults.min_clean), "percent of a node's replicas kept clean, below which idle write-back starts"},
      {"ordered_starts", flag(defaults.ordered_starts),
       "transfers started at one instant end in the order they started (the k-th moves k ns longer), never together"},
      {"pop_when_fetched", flag(defaults.pop_when_fetched), "a GPU worker takes no task while one it holds waits for its data"},
      {"polling_drivers", flag(defaults.polling_drivers),
       "idle workers poll the scheduler: at a task's end they pop before the worker whose task ended"},
      {"prefetch_at_push", flag(defaults.prefetch_at_push), "prefetch a task's inputs when the scheduler allocates it to a worker"},
      {"prefetch_evicts", flag(defaults.prefetch_evicts), "requests for buffered tasks after the next one may evict"},
      {"prioritized_requests", flag(defaults.prioritized_requests), "a node serves waiting push-time prefetches by task priority, highest first"},
      {"progress_before_pop", flag(defaults.progress_before_pop), "with fetches_first, a node serves its requests before its workers pop"},
      {"progress_between_tasks", flag(defaults.progress_between_tasks),
       "a node's workers are CPU drivers: a transfer's end is noticed only when one of them is between tasks"},
      {"recency_at_request", flag(defaults.recency_at_request),
       "a replica is most recently used when a buffered task's request finds it, not when a task starts with it"},
      {"referenced_stay", flag(defaults.referenced_stay),
       "no replica a request references, nor one of a datum a task is writing somewhere, is evicted"},
      {"relay_requests", flag(defaults.relay_requests),
       "the first hop of a GPU-to-GPU load through the host waits among the source node's requests, at the load's level"},
      {"reclaim", format_exact(defaults.reclaim), "a fetch with no clean replica to take frees this many times its room (1 to 16)"},
      {"requests_at_push", flag(defaults.requests_at_push),
       "a push-time prefetch asks for the data missing at the push only, and a fetch serves first those it still waits for"},
      {"sequential_reclaim", flag(defaults.sequential_reclaim),
       "a fetch's reclaim chooses its next victim only once the last one's write-back ended; an idle write-back may go between"},
      {"same_pass_pop", flag(defaults.same_pass_pop),
       "a worker whose next task has its data pops in the pass that noticed its task's end, before the tidy that sees that pass's requests"},
      {"shared_push_requests", flag(defaults.shared_push_requests),
       "push-time prefetches share one request per datum and node, served by priority, which a fetch of the datum keeps"},
      {"suballocate", flag(defaults.suballocate),
       "data of at most 4 MiB take 16 KiB blocks in 32 MiB chunks, and the memory counts whole chunks (StarPU's GPU memory)"},
      {"sync_reclaim", flag(defaults.sync_reclaim),
       "a fetch's eviction write-backs stop its node's workers from starting tasks until they end"},
      {"tidy_skips_busy", flag(defaults.tidy_skips_busy),
       "idle write-back passes over a datum its last ready task writes while any copy of it is referenced"},
      {"tidy_fetches_home", flag(defaults.tidy_fetches_home),
       "idle write-back's walk asks for an invalidated replica's datum home, from the node holding it, when the home is not valid"},
      {"target_clean", format_exact(defaults.target_clean), "percent of clean replicas at which idle write-back stops"},
      {"touch_on_request", flag(defaults.touch_on_request), "a prefetch finding its data there makes it the most recently used"},
      {"write_at_load", flag(defaults.write_at_load),
       "a load for a task that writes the datum makes that copy the only valid one when it arrives, not when the task ends"},
      {"wait_for_writebacks", flag(defaults.wait_for_writebacks),
       "a task waits for the write-backs leaving its node of data it writes; a queued idle one goes at once"},
      {"write_at_hit", flag(defaults.write_at_hit),
       "a request finding its datum in place for a task that writes it makes that copy the only valid one at once"},
  };
}

// The StarPU parameters that reproduce the fgcs model: the long fgcs specs that runs stored
// before the fgcs model had a manager of its own recorded.
StarpuMemoryRules fgcs_as_starpu_rules() {
  StarpuMemoryRules rules;
  rules.prefetch_evicts = true;
  rules.prefetch_at_push = false;
  rules.fetches_first = false;
  rules.max_fetches = 0;
  rules.max_prefetches = 0;
  rules.clean_first = false;
  rules.reclaim = 1;
  rules.touch_on_request = false;
  rules.idle_writeback = false;
  rules.flush_homeless = true;
  rules.prioritized_requests = false;
  rules.wait_for_writebacks = false;
  rules.sync_reclaim = false;
  rules.recency_at_request = false;
  rules.suballocate = false;
  rules.relay_requests = false;
  rules.pop_when_fetched = false;
  rules.write_at_load = false;
  rules.write_at_hit = false;
  rules.progress_before_pop = false;
  rules.handle_order = false;
  rules.tidy_skips_busy = false;
  rules.invalid_keeps_room = false;
  rules.referenced_stay = false;
  rules.sequential_reclaim = false;
  rules.insert_at_allocation = false;
  rules.requests_at_push = false;
  rules.fetch_list_order = false;
  rules.ordered_starts = false;
  rules.list_at_second_hop = false;
  rules.tidy_fetches_home = false;
  rules.same_pass_pop = false;
  rules.shared_push_requests = false;
  return rules;
}

Result<StarpuMemoryRules> parse_starpu_rules(const Spec& spec, const StarpuMemoryRules& defaults, const std::vector<ParamSpec>& declared) {
  auto params = Params::bind(spec, declared, "memory model");
  if (!params) return params.error();
  StarpuMemoryRules rules = defaults;
  if (auto status = params->flags({{"clean_first", &rules.clean_first},
                                   {"fetches_first", &rules.fetches_first},
                                   {"fetch_list_order", &rules.fetch_list_order},
                                   {"flush_homeless", &rules.flush_homeless},
                                   {"handle_order", &rules.handle_order},
                                   {"idle_writeback", &rules.idle_writeback},
                                   {"insert_at_allocation", &rules.insert_at_allocation},
                                   {"invalid_keeps_room", &rules.invalid_keeps_room},
                                   {"list_at_second_hop", &rules.list_at_second_hop},
                                   {"ordered_starts", &rules.ordered_starts},
                                   {"polling_drivers", &rules.polling_drivers},
                                   {"pop_when_fetched", &rules.pop_when_fetched},
                                   {"prefetch_at_push", &rules.prefetch_at_push},
                                   {"prefetch_evicts", &rules.prefetch_evicts},
                                   {"progress_before_pop", &rules.progress_before_pop},
                                   {"progress_between_tasks", &rules.progress_between_tasks},
                                   {"prioritized_requests", &rules.prioritized_requests},
                                   {"recency_at_request", &rules.recency_at_request},
                                   {"referenced_stay", &rules.referenced_stay},
                                   {"relay_requests", &rules.relay_requests},
                                   {"requests_at_push", &rules.requests_at_push},
                                   {"same_pass_pop", &rules.same_pass_pop},
                                   {"shared_push_requests", &rules.shared_push_requests},
                                   {"sequential_reclaim", &rules.sequential_reclaim},
                                   {"suballocate", &rules.suballocate},
                                   {"sync_reclaim", &rules.sync_reclaim},
                                   {"tidy_fetches_home", &rules.tidy_fetches_home},
                                   {"tidy_skips_busy", &rules.tidy_skips_busy},
                                   {"touch_on_request", &rules.touch_on_request},
                                   {"wait_for_writebacks", &rules.wait_for_writebacks},
                                   {"write_at_load", &rules.write_at_load},
                                   {"write_at_hit", &rules.write_at_hit}});
      !status) {
    return status.error();
  }
  for (const auto& [key, target] : {std::pair{"max_fetches", &rules.max_fetches}, std::pair{"max_prefetches", &rules.max_prefetches}}) {
    auto value = params->integer(key);
    if (!value) return value.error();
    if (*value < 0 || *value > 1000000) return make_error("parameter " + std::string(key) + " of memory model: must be 0 to 1000000");
    *target = static_cast<std::uint32_t>(*value);
  }
  for (const auto& [key, target] : {std::pair{"min_clean", &rules.min_clean}, std::pair{"target_clean", &rules.target_clean}}) {
    auto value = params->real(key);
    if (!value) return value.error();
    if (!(*value >= 0 && *value <= 100)) return make_error("parameter " + std::string(key) + " of memory model: a percentage, 0 to 100");
    *target = *value;
  }
  {
    auto value = params->real("reclaim");
    if (!value) return value.error();
    if (!(*value >= 1 && *value <= 16)) return make_error("parameter reclaim of memory model: a factor from 1 to 16");
    rules.reclaim = *value;
  }
  if (rules.target_clean < rules.min_clean) {
    return make_error("memory model: target_clean (" + format_exact(rules.target_clean) + ") is below min_clean (" +
                      format_exact(rules.min_clean) + ")");
  }
  return rules;
}

// fgcs takes no parameter; a stored long spec names StarPU's, each at the value that makes them
// the fgcs model.
Status check_fgcs_spec(const Spec& spec) {
  if (spec.values.empty()) return Status::success();
  static const std::vector<ParamSpec> legacy = declare(fgcs_as_starpu_rules());
  auto rules = parse_starpu_rules(spec, fgcs_as_starpu_rules(), legacy);
  if (rules && MemoryModel{*rules}.canonical() == MemoryModel{fgcs_as_starpu_rules()}.canonical()) return Status::success();
  const std::string& key = spec.values.begin()->first;
  return make_error("the fgcs memory model takes no parameter ('" + key +
                    "' given): it follows the paper's rules; to change one rule, start from StarPU's model, e.g. starpu:" + key + "=...");
}

}  // namespace

std::string_view MemoryModel::name() const { return std::holds_alternative<FgcsMemoryRules>(rules) ? kFgcs : kStarpu; }

// Every parameter with this model's value: declare() writes each value as the spec reads it.
std::string MemoryModel::canonical() const {
  std::string out(name());
  if (const auto* starpu = std::get_if<StarpuMemoryRules>(&rules)) {
    char separator = ':';
    for (const ParamSpec& param : declare(*starpu)) {
      out += separator + param.key + "=" + param.default_value;
      separator = ',';
    }
  }
  return out;
}

const std::vector<ParamSpec>& memory_model_params(std::string_view name) {
  static const std::vector<ParamSpec> starpu = declare(StarpuMemoryRules{});
  static const std::vector<ParamSpec> none;
  return name == kFgcs ? none : starpu;
}

Result<MemoryModel> parse_memory_model(std::string_view text) {
  auto spec = parse_spec(text);
  if (!spec) return spec.error();
  if (spec->name == kFgcs) {
    if (auto status = check_fgcs_spec(*spec); !status) return status.error();
    return MemoryModel{FgcsMemoryRules{}};
  }
  if (spec->name != kStarpu) return make_error("unknown memory model '" + spec->name + "' (valid: starpu, fgcs)");
  auto rules = parse_starpu_rules(*spec, StarpuMemoryRules{}, memory_model_params(kStarpu));
  if (!rules) return rules.error();
  return MemoryModel{*rules};
}

std::string short_memory_model_spec(std::string_view text) {
  auto model = parse_memory_model(text);
  if (!model) return std::string(text);
  std::string out(model->name());
  // The model's own canonical values, so that "on" and "1" compare equal.
  const auto canonical = parse_spec(model->canonical());
  char separator = ':';
  for (const ParamSpec& param : memory_model_params(model->name())) {
    const std::string& value = canonical->values.at(param.key);
    if (value == param.default_value) continue;
    out += separator + param.key + "=" + value;
    separator = ',';
  }
  return out;
}

bool is_fgcs_memory_model(std::string_view spec) {
  if (spec.empty()) return true;
  auto model = parse_memory_model(spec);
  return model && model->name() == kFgcs;
}

}  // namespace tilelens
