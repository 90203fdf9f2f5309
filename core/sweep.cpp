// Sweeps; see sweep.hpp.
#include "core/sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <thread>
#include <tuple>

#include "core/plugin_trial.hpp"
#include "eviction/policy.hpp"
#include "model/params.hpp"
#include "model/units.hpp"
#include "presets/experiments.hpp"
#include "presets/seed_workloads.hpp"
#include "runtime/scheduling_cost.hpp"
#include "schedulers/scheduler.hpp"
#include "util/quoted.hpp"

namespace tilelens::core {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(separator, start);
    if (end == std::string::npos) end = text.size();
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// "5..60:5" -> 5,10,...,60; "a|b" -> a,b (with '|' as separator); anything else as is.
Result<std::vector<std::string>> expand_value(const std::string& text, char separator) {
  std::vector<std::string> values;
  for (const std::string& item : split(text, separator)) {
    if (item.empty()) return make_error("'" + text + "' has an empty value (two separators in a row, or one at an end)");
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
      values.push_back(item);
      continue;
    }
    const auto colon = item.find(':', dots);
    auto first = parse_integer(item.substr(0, dots));
    auto last = parse_integer(item.substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2));
    auto step = colon == std::string::npos ? Result<std::int64_t>(std::int64_t{1}) : parse_integer(item.substr(colon + 1));
    if (!first || !last || !step || *step < 1 || *last < *first) {
      return make_error("'" + item + "' is not a range: write FIRST..LAST or FIRST..LAST:STEP with whole numbers, FIRST <= LAST, STEP >= 1");
    }
    // The span in unsigned arithmetic and the values by count: near int64's ends neither
    // LAST - FIRST nor V + STEP may be computed in int64 without overflowing.
    const std::uint64_t span = static_cast<std::uint64_t>(*last) - static_cast<std::uint64_t>(*first);
    const std::uint64_t count = span / static_cast<std::uint64_t>(*step);
    if (count > 100000) return make_error("'" + item + "' holds more than 100,001 values");
    for (std::uint64_t i = 0; i <= count; ++i) {
      const std::uint64_t value = static_cast<std::uint64_t>(*first) + i * static_cast<std::uint64_t>(*step);
      values.push_back(std::to_string(static_cast<std::int64_t>(value)));
    }
  }
  return values;
}

// Every spec a spec with ranges or lists in its values stands for, the first key outermost.
Result<std::vector<std::string>> expand_spec(const std::string& text) {
  auto spec = parse_spec(text);
  if (!spec) return spec.error();
  std::vector<std::string> out = {spec->name};
  char separator = ':';
  for (const auto& [key, value] : spec->values) {
    auto values = expand_value(value, '|');
    if (!values) return make_error("in '" + text + "', " + key + ": " + values.error().message);
    std::vector<std::string> next;
    for (const auto& prefix : out) {
      for (const auto& v : *values) next.push_back(prefix + separator + key + "=" + v);
    }
    out = std::move(next);
    separator = ',';
  }
  return out;
}

// "random:seed=1,x=2,rcm" -> {"random:seed=1,x=2", "rcm"}: a piece without '=' starts a spec.
// An empty entry is refused, as in every list ("eager,,rcm": a value lost on the way).
Result<std::vector<std::string>> split_specs(const std::string& text) {
  std::vector<std::string> specs;
  if (text.empty()) return specs;
  for (const std::string& piece : split(text, ',')) {
    if (piece.empty()) return make_error(quote_input(text) + " has an empty entry (two commas in a row, or one at an end)");
    if (piece.find('=') != std::string::npos && piece.find(':') == std::string::npos && !specs.empty()) {
      specs.back() += "," + piece;
    } else {
      specs.push_back(piece);
    }
  }
  return specs;
}

bool sets_seed(const std::string& spec_text) {
  auto spec = parse_spec(spec_text);
  return spec && spec->values.count("seed");
}

bool scheduler_takes_seed(const std::string& spec_text) {
  auto spec = parse_spec(spec_text);
  if (!spec) return false;
  for (const auto& info : scheduler_registry()) {
    if (info.name != spec->name) continue;
    for (const auto& param : info.params) {
      if (param.key == "seed") return true;
    }
  }
  return false;
}

bool generator_is_seeded(const std::string& spec_text) {
  auto spec = parse_spec(spec_text);
  if (!spec) return false;
  for (const auto& generator : workload_generators()) {
    if (generator.name == spec->name) return generator.randomized;
  }
  return false;
}

std::string with_seed(const std::string& spec, std::int64_t seed) {
  return spec + (spec.find(':') == std::string::npos ? ":" : ",") + "seed=" + std::to_string(seed);
}

// A generator spec is checked against the generator's parameters without generating it; a
// file must exist.
Status check_workload_spec(const std::string& text) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(text, ec)) return Status::success();
  auto spec = parse_spec(text);
  if (!spec) return spec.error();
  for (const auto& generator : workload_generators()) {
    if (generator.name != spec->name) continue;
    auto params = Params::bind(*spec, generator.params, "workload");
    if (!params) return params.error();
    return Status::success();
  }
  return field_error("workload", "'" + text + "' is neither a file nor a generator spec (tilelens workload list shows the generators)");
}

// A list option: its values, or one empty value (the platform's own) when none is given.
Result<std::vector<std::string>> list_values(const char* name, const std::string& text) {
  if (text.empty()) return std::vector<std::string>{""};
  auto values = expand_value(text, ',');
  if (!values) return field_error(name, values.error().message);
  return values;
}

// The platform options a sweep shares between its runs, in the order a sweep's identity names them.
constexpr const char* kSharedPlatformOptions[] = {"bandwidth", "gpu-link", "latency", "rate", "pcie", "cpus", "cpu-rate", "workers-per-memory", "copy-engines", "half-duplex"};

}  // namespace

PolicyEntry parse_policy_entry(std::string text) {
  PolicyEntry entry;
  if (text.size() > 5 && text.ends_with("+time")) {
    entry.charged = true;
    text.resize(text.size() - 5);
  }
  // "SCHEDULER/EVICTION": the first '/' with a scheduler on its left (a registered name, or a
  // plugin's file name, .so) and an eviction policy on its right (a registered name, or a
  // plugin's file), so that paths keep their slashes: ./libmine.so/lru, hfp//opt/libvictim.so,
  // /opt/lib/libmine.so, fixed:file=/runs/order.csv/belady. Failing that, the first '/' after a
  // scheduler's bare name, so that a mistyped policy (eager/lruu) is named as the unknown
  // eviction it is; a scheduler with parameters and no policy keeps its slashes whole
  // (fixed:file=/runs/order.csv).
  // Whether a spec's name (before its ':') is one of `registry`'s entries or a plugin's file.
  const auto names_one_of = [](std::string_view spec, const auto& registry) {
    const std::string_view name = spec.substr(0, spec.find(':'));
    if (name.size() > 3 && name.substr(name.size() - 3) == ".so") return true;
    return std::any_of(registry.begin(), registry.end(), [&](const auto& info) { return info.name == name; });
  };
  std::size_t split = std::string::npos, bare_split = std::string::npos;
  for (std::size_t slash = text.find('/'); slash != std::string::npos && split == std::string::npos; slash = text.find('/', slash + 1)) {
    const std::string_view left = std::string_view(text).substr(0, slash);
    if (slash == 0 || !names_one_of(left, scheduler_registry())) continue;
    if (names_one_of(std::string_view(text).substr(slash + 1), eviction_registry())) split = slash;
    else if (bare_split == std::string::npos && left.find(':') == std::string_view::npos) bare_split = slash;
  }
  if (split == std::string::npos) split = bare_split;
  if (split != std::string::npos) {
    entry.eviction = text.substr(split + 1);
    text.resize(split);
  }
  entry.scheduler = std::move(text);
  return entry;
}

Status set_sweep_option(SweepGrid& grid, std::string_view name, std::string_view text) {
  const std::string value(text);
  if (name == "workload") grid.workloads = value;
  else if (name == "scheduler") grid.schedulers = value;
  else if (name == "eviction") grid.evictions = value;
  else if (name == "platform") grid.platform = value;
  else if (name == "memory") grid.memories = value;
  else if (name == "gpus") grid.gpus = value;
  else if (name == "buffer") grid.buffers = value;
  else if (name == "memory-model") grid.memory_model = value;
  else if (name == "scheduling-cost") grid.scheduling_cost = value;
  else if (name == "seeds") grid.seeds = value;
  else if (name == "charge-scheduling" || name == "metrics-only") {
    // A flag: "1" (as the command line and the presets give it) or "0".
    if (value != "0" && value != "1") return field_error(std::string(name), "is a flag: 1 or 0 (got '" + value + "')");
    (name == "charge-scheduling" ? grid.charge_scheduling : grid.metrics_only) = value == "1";
  }
  else if (name == "shard") {
    // K/N, 1 <= K <= N <= 100000
    const auto slash = value.find('/');
    auto k = slash == std::string::npos ? Result<std::int64_t>(make_error("")) : parse_integer(value.substr(0, slash));
    auto n = slash == std::string::npos ? Result<std::int64_t>(make_error("")) : parse_integer(value.substr(slash + 1));
    if (!k || !n || *n < 1 || *n > 100000 || *k < 1 || *k > *n) {
      return field_error("shard", "takes K/N, part K of N with 1 <= K <= N <= 100000 (got '" + value + "')");
    }
    grid.shard = static_cast<std::uint32_t>(*k);
    grid.shards = static_cast<std::uint32_t>(*n);
  }
  else if (find_platform_option(name)) grid.platform_options[std::string(name)] = value;
  else return make_error("a sweep has no option '" + std::string(name) + "'");
  return Status::success();
}

Status apply_sweep_preset(SweepGrid& grid, std::string_view name, const std::vector<std::string>& keep) {
  const SweepPreset* preset = find_sweep_preset(std::string(name));
  if (!preset) return field_error("preset", "unknown preset '" + std::string(name) + "'; the list of presets shows them (tilelens sweep --preset list)");
  return apply_sweep_preset(grid, *preset, keep);
}

Status apply_sweep_preset(SweepGrid& grid, const SweepPreset& preset, const std::vector<std::string>& keep) {
  grid.preset = preset.name;
  const auto kept = [&](const std::string& option) { return std::find(keep.begin(), keep.end(), option) != keep.end(); };
  for (const auto& [option, value] : preset.options) {
    if (kept(option)) continue;
    if (auto status = set_sweep_option(grid, option, value); !status) return make_error("preset " + preset.name + ": " + status.error().message);
  }
  if (!kept("scheduler")) grid.schedulers = scheduler_option(preset);
  return Status::success();
}

std::string sweep_identity(const SweepGrid& grid) {
  std::string identity = grid.preset.empty() ? "" : "--preset=" + grid.preset;
  const auto add = [&](const char* name, const std::string& value) {
    if (!value.empty()) identity += std::string(identity.empty() ? "" : " ") + "--" + name + "=" + value;
  };
  const auto option = [&](const char* name) {
    const auto it = grid.platform_options.find(name);
    return it == grid.platform_options.end() ? std::string() : it->second;
  };
  add("workload", grid.workloads);
  add("scheduler", grid.schedulers);
  add("eviction", grid.evictions);
  add("platform", grid.platform);
  add("memory", grid.memories);
  add("gpus", grid.gpus);
  for (const char* name : kSharedPlatformOptions) add(name, option(name));
  add("buffer", grid.buffers);
  add("memory-model", grid.memory_model);
  add("charge-scheduling", grid.charge_scheduling ? "1" : "");
  add("scheduling-cost", grid.scheduling_cost);
  add("seeds", grid.seeds);
  add("metrics-only", grid.metrics_only ? "1" : "");
  return identity;
}

Result<std::vector<SweepJob>> expand_grid(const SweepGrid& grid) {
  if (grid.workloads.empty()) return field_error("workload", "is required");
  if (auto cost = parse_scheduling_cost(grid.scheduling_cost); !cost) return field_error("scheduling-cost", cost.error().message);
  std::vector<std::string> workloads, evictions;
  for (const auto& text : split(grid.workloads, ';')) {
    if (text.empty()) return field_error("workload", quote_input(grid.workloads) + " has an empty entry (two ';' in a row, or one at an end)");
    std::error_code ec;
    if (std::filesystem::is_regular_file(text, ec)) {
      workloads.push_back(text);
      continue;
    }
    auto specs = expand_spec(text);
    if (!specs) return field_error("workload", specs.error().message);
    for (const auto& spec : *specs) {
      if (auto status = check_workload_spec(spec); !status) return field_error("workload", status.error().message);
      workloads.push_back(spec);
    }
  }
  std::vector<PolicyEntry> policies;  // each expanded entry "SPEC[/EVICTION][+time]"
  auto scheduler_specs = split_specs(grid.schedulers);
  if (!scheduler_specs) return field_error("scheduler", scheduler_specs.error().message);
  auto eviction_specs = split_specs(grid.evictions);
  if (!eviction_specs) return field_error("eviction", eviction_specs.error().message);
  for (const std::string& text : *scheduler_specs) {
    PolicyEntry policy = parse_policy_entry(text);
    if (policy.eviction) {
      if (auto made = make_eviction(*policy.eviction); !made) return field_error("scheduler", made.error().message);
    }
    auto specs = expand_spec(policy.scheduler);
    if (!specs) return field_error("scheduler", specs.error().message);
    for (const auto& spec : *specs) {
      if (auto made = make_scheduler(spec); !made) return field_error("scheduler", made.error().message);
      policy.scheduler = spec;
      policies.push_back(policy);
    }
  }
  for (const auto& text : *eviction_specs) {
    if (auto made = make_eviction(text); !made) return field_error("eviction", made.error().message);
    evictions.push_back(text);
  }
  auto memories = list_values("memory", grid.memories);
  auto gpu_counts = list_values("gpus", grid.gpus);
  auto buffers = list_values("buffer", grid.buffers);
  auto seeds_text = list_values("seeds", grid.seeds);
  for (auto* list : {&memories, &gpu_counts, &buffers, &seeds_text}) {
    if (!*list) return list->error();
  }
  std::vector<std::int64_t> seeds;
  for (const auto& text : *seeds_text) {
    if (text.empty()) continue;
    auto seed = parse_integer(text);
    if (!seed || *seed < 0) return field_error("seeds", "'" + text + "' is not a seed (a whole number, 0 or more)");
    seeds.push_back(*seed);
  }
  if (workloads.empty()) return field_error("workload", "no workload given");

  // The platform: the base and the shared options, then each memory and GPU count, all
  // checked once here.
  PlatformChoice shared;
  shared.base = grid.platform;
  if (auto base = base_platform(shared.base); !base) return base.error();
  for (const char* name : kSharedPlatformOptions) {
    const auto it = grid.platform_options.find(name);
    if (it == grid.platform_options.end()) continue;
    if (auto status = find_platform_option(name)->set(it->second, shared); !status) return status.error();
  }
  for (const auto& [name, value] : grid.platform_options) {
    if (std::find_if(std::begin(kSharedPlatformOptions), std::end(kSharedPlatformOptions),
                     [&](const char* shared_name) { return name == shared_name; }) == std::end(kSharedPlatformOptions)) {
      return field_error(name, "a sweep takes this option as a list (memory, gpus)");
    }
  }
  std::vector<PlatformChoice> with_memory;
  for (const auto& memory : *memories) {
    PlatformChoice choice = shared;
    if (!memory.empty()) {
      if (auto status = find_platform_option("memory")->set(memory, choice); !status) return status.error();
    }
    with_memory.push_back(std::move(choice));
  }
  std::vector<std::uint32_t> depths;
  for (const auto& buffer : *buffers) {
    auto depth = buffer.empty() ? Result<std::uint32_t>(ReplayRequest{}.buffer_depth) : parse_buffer_depth(buffer);
    if (!depth) return depth.error();
    depths.push_back(*depth);
  }

  std::vector<SweepJob> jobs;
  for (const auto& workload : workloads) {
    for (std::size_t m = 0; m < memories->size(); ++m) {
      const std::string& memory = (*memories)[m];
      for (const auto& gpus : *gpu_counts) {
        PlatformChoice platform = with_memory[m];
        if (!gpus.empty()) {
          if (auto status = find_platform_option("gpus")->set(gpus, platform); !status) return status.error();
        }
        for (std::size_t b = 0; b < buffers->size(); ++b) {
          const std::string& buffer = (*buffers)[b];
          for (const auto& policy : policies) {
            const std::string& scheduler = policy.scheduler;
            const bool charged = policy.charged || grid.charge_scheduling;
            for (const auto& eviction : policy.eviction ? std::vector<std::string>{*policy.eviction} : evictions) {
              const bool seed_workload = generator_is_seeded(workload) && !sets_seed(workload);
              const bool seed_scheduler = scheduler_takes_seed(scheduler) && !sets_seed(scheduler);
              std::vector<std::optional<std::int64_t>> run_seeds = {std::nullopt};
              if (!seeds.empty() && (seed_workload || seed_scheduler)) run_seeds.assign(seeds.begin(), seeds.end());
              for (const auto& seed : run_seeds) {
                SweepJob job;
                job.request.workload = seed && seed_workload ? with_seed(workload, *seed) : workload;
                job.request.scheduler = seed && seed_scheduler ? with_seed(scheduler, *seed) : scheduler;
                job.request.eviction = eviction;
                job.request.platform = platform;
                job.request.buffer_depth = depths[b];
                job.request.charge_scheduling = charged;
                job.request.memory_model = grid.memory_model;
                job.request.scheduling_cost = grid.scheduling_cost;
                job.label = job.request.workload + " " + job.request.scheduler + "/" + eviction + (charged ? "+time" : "") +
                            (memory.empty() ? "" : " M=" + memory) + (gpus.empty() ? "" : " K=" + gpus) +
                            (buffer.empty() ? "" : " buffer=" + buffer);
                jobs.push_back(std::move(job));
              }
            }
          }
        }
      }
    }
  }
  if (grid.shards > 1) {
    const auto parts = shard_of(jobs, grid.shards);
    std::vector<SweepJob> mine;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (parts[i] + 1 == grid.shard) mine.push_back(std::move(jobs[i]));
    }
    jobs = std::move(mine);
  }
  return jobs;
}

std::vector<double> estimated_costs(const std::vector<SweepJob>& jobs) {
  std::map<std::string, double> tasks_of;  // each workload generated once per call
  std::vector<double> costs;
  costs.reserve(jobs.size());
  for (const SweepJob& job : jobs) {
    auto known = tasks_of.find(job.request.workload);
    if (known == tasks_of.end()) {
      // A workload file, or a spec that does not generate: a middling guess of 1,000 tasks.
      auto workload = generate_workload(job.request.workload);
      known = tasks_of.emplace(job.request.workload, workload ? static_cast<double>(std::max<std::size_t>(1, workload->task_count())) : 1000.0).first;
    }
    const std::string scheduler = job.request.scheduler.substr(0, job.request.scheduler.find(':'));
    const bool heavy = scheduler == "dmda" || scheduler == "dmdar" || scheduler == "dmdas" || scheduler == "hfp" || scheduler == "darts" ||
                       scheduler == "partition";
    const bool belady = job.request.eviction.rfind("belady", 0) == 0;
    costs.push_back(known->second * (heavy ? 3.0 : 1.0) * (belady ? 2.0 : 1.0));
  }
  return costs;
}

std::vector<std::uint32_t> shard_of(const std::vector<SweepJob>& jobs, std::uint32_t shards) {
  std::vector<std::uint32_t> part(jobs.size(), 0);
  if (shards <= 1) return part;
  const std::vector<double> costs = estimated_costs(jobs);
  std::vector<std::pair<double, std::size_t>> order;
  for (std::size_t i = 0; i < jobs.size(); ++i) order.emplace_back(costs[i], i);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<double> load(shards, 0);
  for (const auto& [cost, index] : order) {
    const auto least = static_cast<std::uint32_t>(std::min_element(load.begin(), load.end()) - load.begin());
    part[index] = least;
    load[least] += cost;
  }
  return part;
}

namespace {

struct Outcome {
  enum class Kind { Done, Skipped, RunningElsewhere, Failed, Invalid, Cancelled, StoreError } kind = Kind::Done;
  std::string message;
  std::optional<PreparedReplay> prepared;
  ReplaySummary summary;
  Trace trace;
};

}  // namespace

Result<SweepReport> run_sweep(const SweepGrid& grid, const SweepOptions& options) {
  auto expanded = expand_grid(grid);
  if (!expanded) return expanded.error();
  const std::vector<SweepJob>& jobs = *expanded;
  auto store = db::Store::open(options.database);
  if (!store) return field_error("db", store.error().message);
  auto sweep_id = store->put_sweep(sweep_identity(grid));
  if (!sweep_id) return sweep_id.error();
  auto done_keys = store->complete_run_keys(*sweep_id);
  if (!done_keys) return done_keys.error();
  // Claims are taken by the workers, on their own connection; a run being written holds the
  // write lock for as long as its trace takes, so they wait long for it.
  auto claims = store->reopen(600000);
  if (!claims) return claims.error();
  std::mutex claims_mutex;
  const std::string owner = db::Store::new_claim_owner();
  // However the sweep ends, the claims it holds on runs it did not store are given back.
  struct ReleaseClaims {
    db::Store& store;
    std::int64_t sweep_id;
    const std::string& owner;
    ~ReleaseClaims() { (void)store.release_claims(sweep_id, owner); }
  } release_claims{*store, *sweep_id, owner};

  SweepReport report;
  report.sweep_id = *sweep_id;
  report.database = store->path();
  report.total = jobs.size();
  std::size_t threads = options.threads ? options.threads : std::thread::hardware_concurrency();
  threads = std::max<std::size_t>(1, std::min(threads, jobs.size()));
  report.threads = threads;
  const bool keep_trace = !grid.metrics_only;
  const auto cancelled = [&] { return options.cancel && options.cancel->load(); };

  std::mutex mutex;
  std::shared_mutex fork_gate;  // workers hold it shared while they work; a plugin trial forks holding it alone
  std::condition_variable ready, room;
  // Finished runs wait here until every earlier one is stored: runs are stored in grid order
  // whatever the threads' timing, so run ids are the same from one sweep to the next.
  std::map<std::size_t, Outcome> finished;
  std::size_t next_to_store = 0;
  std::atomic<std::size_t> next_job{0};
  bool stopping = false;  // under mutex: the writer gave up, workers drop what they have
  const std::size_t window = 4 * threads;  // jobs a worker may run ahead of the writer
  // Claims the run of `key` for this sweep; false when it is not to be replayed here, with
  // `outcome` saying why (stored already, named twice in the grid, another sweep's, or the
  // store failed).
  const auto claim = [&](const std::string& key, Outcome& outcome) {
    auto claimed = [&] {
      std::lock_guard lock(claims_mutex);
      return claims->claim_run(*sweep_id, key, owner);
    }();
    if (!claimed) {
      outcome.kind = Outcome::Kind::StoreError;
      outcome.message = claimed.error().message;
      return false;
    }
    switch (claimed->outcome) {
      case db::Store::Claim::Outcome::Claimed: return true;
      case db::Store::Claim::Outcome::Stored: outcome.kind = Outcome::Kind::Skipped; break;
      case db::Store::Claim::Outcome::Duplicate:
        outcome.kind = Outcome::Kind::Skipped;
        outcome.message = "the same run as an earlier one of this grid";
        break;
      case db::Store::Claim::Outcome::Running:
        outcome.kind = Outcome::Kind::RunningElsewhere;
        outcome.message = claimed->holder;
        break;
    }
    return false;
  };
  auto worker = [&] {
    for (std::size_t i = next_job++; i < jobs.size(); i = next_job++) {
      {
        std::unique_lock lock(mutex);
        room.wait(lock, [&] { return stopping || i < next_to_store + window; });
        if (stopping) return;
      }
      Outcome outcome;
      std::shared_lock working(fork_gate);  // no plugin trial forks while this worker works (plugin_trial)
      if (cancelled()) {
        outcome.kind = Outcome::Kind::Cancelled;
      } else if (auto prepared = prepare_replay(jobs[i].request); !prepared) {
        outcome.kind = Outcome::Kind::Invalid;
        outcome.message = prepared.error().message;
      } else if (done_keys->count(prepared->info.key)) {
        outcome.kind = Outcome::Kind::Skipped;
      } else if (!claim(prepared->info.key, outcome)) {
        // outcome says why the run is not this sweep's to replay
      } else if (uses_plugin(prepared->info) &&
                 !(outcome.message = plugin_trial(*prepared, options.plugin_time_limit_s, options.cancel, &fork_gate, &working)).empty()) {
        outcome.kind = Outcome::Kind::Invalid;  // a plugin that fails stores nothing, not even a failed run
      } else {
        TraceRecorder recorder;
        auto summary = replay(prepared->workload, *prepared->scheduler.scheduler, *prepared->eviction.policy, prepared->options,
                              keep_trace ? &recorder : nullptr);
        if (summary) {
          outcome.summary = std::move(*summary);
          outcome.trace = std::move(recorder.trace);
        } else {
          outcome.kind = Outcome::Kind::Failed;
          outcome.message = summary.error().message;
        }
        outcome.prepared = std::move(*prepared);
      }
      working.unlock();
      std::unique_lock lock(mutex);
      finished.emplace(i, std::move(outcome));
      ready.notify_one();
    }
  };
  std::vector<std::thread> pool;
  // However this function leaves (a store error, or an exception from on_progress or from
  // starting a thread), the workers are told to stop and joined: a joinable std::thread
  // destroyed would terminate the process.
  struct JoinAll {
    std::mutex& mutex;
    bool& stopping;
    std::atomic<std::size_t>& next_job;
    std::size_t jobs;
    std::condition_variable& room;
    std::vector<std::thread>& pool;
    ~JoinAll() {
      {
        std::lock_guard lock(mutex);
        stopping = true;
        next_job = jobs;
        room.notify_all();
      }
      for (auto& thread : pool) {
        if (thread.joinable()) thread.join();
      }
    }
  } join_all{mutex, stopping, next_job, jobs.size(), room, pool};
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(worker);

  const auto started = std::chrono::steady_clock::now();
  std::map<std::string, std::int64_t> workload_ids;  // by canonical spec, to hash each workload once
  std::string fatal;
  SweepProgress progress;
  progress.total = jobs.size();
  for (std::size_t handled = 0; handled < jobs.size() && fatal.empty(); ++handled) {
    Outcome outcome;
    {
      std::unique_lock lock(mutex);
      ready.wait(lock, [&] { return finished.count(handled) > 0; });
      outcome = std::move(finished.at(handled));
      finished.erase(handled);
      next_to_store = handled + 1;
      room.notify_all();
    }
    const SweepJob& job = jobs[handled];
    std::string line;
    if (outcome.kind == Outcome::Kind::Cancelled) {
      report.cancelled = true;
      break;
    }
    if (outcome.kind == Outcome::Kind::StoreError) {
      fatal = outcome.message;
      break;
    }
    if (outcome.kind == Outcome::Kind::Skipped) {
      ++report.skipped;
      line = "skipped (" + (outcome.message.empty() ? std::string("stored before") : outcome.message) + ")";
    } else if (outcome.kind == Outcome::Kind::RunningElsewhere) {
      ++report.running_elsewhere;
      line = "left to the sweep running it (" + outcome.message + ")";
    } else if (outcome.kind == Outcome::Kind::Invalid) {
      ++report.invalid;
      line = "invalid: " + outcome.message;
      if (report.first_problem.empty()) report.first_problem = job.label + ": " + outcome.message;
    } else {
      PreparedReplay& prepared = *outcome.prepared;
      RunInfo info = prepared.info;
      info.sweep_id = *sweep_id;
      auto id = workload_ids.find(prepared.workload_spec);
      if (id == workload_ids.end()) {
        auto stored_id = store->put_workload(prepared.workload, prepared.source);
        if (!stored_id) {
          fatal = stored_id.error().message;
          break;
        }
        id = workload_ids.emplace(prepared.workload_spec, *stored_id).first;
      }
      info.workload_id = id->second;
      auto writer = store->begin_run(info);
      if (!writer) {
        fatal = writer.error().message;
        break;
      }
      if (outcome.kind == Outcome::Kind::Failed) {
        auto run_id = writer->fail(outcome.message);
        if (!run_id) {
          fatal = run_id.error().message;
          break;
        }
        ++report.failed;
        line = "failed (run " + std::to_string(*run_id) + "): " + outcome.message;
        if (report.first_problem.empty()) report.first_problem = job.label + ": " + outcome.message;
      } else {
        writer->write(outcome.trace);
        const RunMetrics metrics = metrics_of(outcome.summary, reference_curves(prepared.workload, prepared.options.platform));
        auto run_id = writer->finish(metrics);
        if (!run_id) {
          fatal = run_id.error().message;
          break;
        }
        ++report.stored;
        line = "run " + std::to_string(*run_id) + ": " + format_fixed(metrics.ratio_to_lower_bound(), 2) + "x the lower bound, " +
               format_fixed(metrics.summary.gflops, 0) + " GFlop/s";
      }
    }
    if (options.on_progress) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const std::size_t done = handled + 1;
      const std::size_t executed = report.stored + report.failed;
      progress.done = done;
      progress.stored = report.stored;
      progress.skipped = report.skipped;
      progress.failed = report.failed;
      progress.invalid = report.invalid;
      progress.label = job.label;
      progress.line = line;
      progress.elapsed_seconds = elapsed;
      progress.left_seconds = executed ? elapsed / static_cast<double>(executed) * static_cast<double>(jobs.size() - done) : 0;
      options.on_progress(progress);
    }
  }
  if (!fatal.empty()) return make_error("sweep stopped, the runs stored so far are kept: " + fatal);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

Result<std::vector<PresetRun>> preset_runs(db::Store& store, const SweepPreset& preset, std::int64_t sweep_id) {
  struct Key {
    std::string scheduler, eviction;
    bool charged = false;
    bool operator<(const Key& o) const { return std::tie(scheduler, eviction, charged) < std::tie(o.scheduler, o.eviction, o.charged); }
  };
  std::map<Key, std::size_t> policy_of;
  for (std::size_t p = 0; p < preset.policies.size(); ++p) {
    const PolicyEntry entry = parse_policy_entry(preset.policies[p].entry);
    auto scheduler = make_scheduler(entry.scheduler);
    auto eviction = make_eviction(entry.eviction.value_or("lru"));
    if (!scheduler || !eviction) return make_error("preset " + preset.name + ": bad entry '" + preset.policies[p].entry + "'");
    policy_of.emplace(Key{scheduler->spec, eviction->spec, entry.charged}, p);
  }
  db::RunFilter filter;
  filter.sweep_id = sweep_id;
  auto runs = store.load_runs(filter);
  if (!runs) return runs.error();
  std::vector<PresetRun> found;
  for (auto& run : *runs) {
    const auto policy = policy_of.find(Key{run.info.scheduler, run.info.eviction, charged_scheduling(run.info)});
    if (policy == policy_of.end()) continue;
    double x = run.info.platform.memory_bytes / 1048576.0;
    if (preset.x_param == "N") {
      auto spec = parse_spec(run.info.workload_spec);
      if (!spec || !spec->values.count("N")) continue;
      x = std::stod(spec->values.at("N"));
    }
    found.push_back({policy->second, x, std::move(run)});
  }
  std::stable_sort(found.begin(), found.end(), [](const PresetRun& a, const PresetRun& b) { return std::tie(a.policy, a.x) < std::tie(b.policy, b.x); });
  return found;
}

Result<std::optional<std::int64_t>> latest_preset_sweep(db::Store& store, const std::string& preset) {
  auto sweeps = store.list_sweeps();
  if (!sweeps) return sweeps.error();
  std::optional<std::int64_t> latest;
  const std::string prefix = "--preset=" + preset;
  for (const auto& sweep : *sweeps) {
    if (sweep.spec == prefix || sweep.spec.starts_with(prefix + " ")) latest = sweep.id;
  }
  return latest;
}

}  // namespace tilelens::core
