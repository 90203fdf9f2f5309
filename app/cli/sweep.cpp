// `tilelens sweep`: replays a grid (workload parameter ranges x memory sizes x GPU counts x
// schedulers x eviction policies x seeds) on a pool of threads and stores every run in a
// database as it finishes. Worker threads replay; this thread alone writes, one transaction
// per run, so an interrupted sweep leaves only whole runs, and a rerun of the same sweep
// skips the runs it already stored.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "app/cli/args.hpp"
#include "app/cli/presets.hpp"
#include "app/cli/run_report.hpp"
#include "presets/seed_workloads.hpp"
#include "model/params.hpp"
#include "model/units.hpp"

namespace tilelens::cli {
namespace {

const CommandSpec kSweep{
    "tilelens sweep --db FILE --workload SPEC [options]",
    "Replay every combination of the values given and store each run in the database as it finishes, on\n"
    "--jobs threads, with a progress bar. Rerunning the same sweep skips the runs already stored, so an\n"
    "interrupted sweep resumes where it stopped.",
    {{"db", "FILE", "the database (created if absent)", ""},
     {"preset", "NAME", "a paper's experiment (its workloads, policies, memory and platform); 'list' prints them; options given override it", ""},
     {"workload", "SPEC[;SPEC]", "workload specs or files; a parameter value may be a range A..B, A..B:STEP, or a list a|b|c", ""},
     {"scheduler", "LIST", "schedulers, comma-separated (random:seed=1..3 expands too); NAME/EVICTION pins the eviction of one entry, a trailing +time charges its prepare() time", "eager"},
     {"eviction", "LIST", "eviction policies, comma-separated", "lru"},
     {"platform", "PRESET|FILE", "platform preset or platform file (docs/platform-file.md) the options below override", "v100-fgcs"},
     {"memory", "LIST", "memory sizes per GPU, comma-separated: 250MiB,500MiB or 4items,8items", ""},
     {"gpus", "LIST", "GPU counts: 1,2,4 or 1..4", ""},
     {"bandwidth", "RATE", "host bus bandwidth", ""},
     {"gpu-link", "RATE", "GPU-to-GPU bandwidth (0 for none)", ""},
     {"latency", "TIME", "latency of each transfer", ""},
     {"pcie", "N:SWITCH:GPU", "PCIe tree, as replay --pcie", ""},
     {"rate", "[KIND=]RATE,...", "compute rates", ""},
     {"cpus", "N", "CPU workers, as replay --cpus", ""},
     {"cpu-rate", "[KIND=]RATE,...", "CPU compute rates, as replay --cpu-rate", ""},
     {"workers-per-memory", "N", "GPU workers sharing one memory, as replay --workers-per-memory", ""},
     {"buffer", "LIST", "task buffer depths: 1,4", "4"},
     {"charge-scheduling", "", "charge every run's prepare() time to its makespan (as +time does for one entry)", ""},
     {"seeds", "LIST", "seeds, as 1..5 or 1,7,9: given to every scheduler and seeded generator whose spec sets none", ""},
     {"jobs", "N", "replays run in parallel (default: the number of cores)", ""},
     {"metrics-only", "", "store each run's metrics but not its trace (for very large sweeps)", ""},
     {"dry-run", "", "print the runs of the grid and exit", ""},
     {"quiet", "", "no progress output", ""}},
    "examples:\n"
    "  tilelens sweep --db fgcs.db --preset fgcs-fig5\n"
    "  tilelens sweep --db fgcs.db --workload 'matmul2d:N=5..60:5' --scheduler eager,rcm,mst,random --eviction lru\n"
    "  tilelens sweep --db hfp.db --workload 'matmul2d:N=10..40:10' --scheduler dmdar/lru,hfp/belady,hfp:fast_start=1/belady+time\n"
    "  tilelens sweep --db mem.db --workload matmul3d:N=10 --memory 100MiB,200MiB,400MiB --scheduler eager,rcm\n"
    "  tilelens runs compare --sweep 1 --db fgcs.db"};

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
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
      values.push_back(item);
      continue;
    }
    const auto colon = item.find(':', dots);
    auto first = parse_integer(item.substr(0, dots));
    auto last = parse_integer(item.substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2));
    auto step = colon == std::string::npos ? Result<std::int64_t>(std::int64_t{1}) : parse_integer(item.substr(colon + 1));
    if (!first || !last || !step || *step < 1 || *last < *first || (*last - *first) / *step > 100000) {
      return make_error("'" + item + "' is not a range: write FIRST..LAST or FIRST..LAST:STEP with whole numbers, FIRST <= LAST, STEP >= 1");
    }
    for (std::int64_t v = *first; v <= *last; v += *step) values.push_back(std::to_string(v));
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
std::vector<std::string> split_specs(const std::string& text) {
  std::vector<std::string> specs;
  for (const std::string& piece : split(text, ',')) {
    if (piece.empty()) continue;
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
  return make_error("--workload '" + text + "' is neither a file nor a generator spec (tilelens workload list shows the generators)");
}

struct Job {
  std::vector<std::string> args;  // the replay command's options for this run
  std::string label;
};

struct Outcome {
  std::size_t job = 0;
  enum class Kind { Done, Skipped, Failed, Invalid } kind = Kind::Done;
  std::string message;
  std::optional<ReplaySetup> setup;
  ReplaySummary summary;
  Trace trace;
};

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  char text[32];
  if (s >= 3600) std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(text, sizeof text, "%lld:%02lld", s / 60, s % 60);
  return text;
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  auto parsed = parse_args(kSweep, args);
  if (!parsed) return fail(err, parsed.error().message);
  if (parsed->has("help")) {
    out << help_text(kSweep);
    return 0;
  }
  if (!parsed->positional.empty()) return fail(err, "unexpected argument '" + parsed->positional[0] + "'; see tilelens sweep --help");
  std::string preset_name;
  if (parsed->has("preset")) {
    preset_name = parsed->get("preset");
    if (preset_name == "list") {
      for (const auto& preset : sweep_presets()) out << preset.name << "  " << preset.figure << ": " << preset.title << "\n";
      out << "fgcs-fig7  the runs of fgcs-fig5 (Fig. 7 shows their transfers)\n";
      return 0;
    }
    const SweepPreset* preset = find_sweep_preset(preset_name);
    if (!preset) return fail(err, "--preset: unknown preset '" + preset_name + "'; tilelens sweep --preset list shows them");
    preset_name = preset->name;
    std::vector<std::string> with_preset;
    for (const auto& [name, value] : preset->options) {
      if (!parsed->has(name)) with_preset.insert(with_preset.end(), {"--" + name, value});
    }
    if (!parsed->has("scheduler")) with_preset.insert(with_preset.end(), {"--scheduler", scheduler_option(*preset)});
    with_preset.insert(with_preset.end(), args.begin(), args.end());
    parsed = parse_args(kSweep, with_preset);
    if (!parsed) return fail(err, parsed.error().message);
  }
  if (!parsed->has("workload")) return fail(err, "--workload is required; see tilelens sweep --help");
  if (!parsed->has("db") && !parsed->has("dry-run")) return fail(err, "--db FILE is required");

  // The grid, validated before anything runs.
  std::vector<std::string> workloads, evictions;
  for (const auto& text : split(parsed->get("workload"), ';')) {
    if (text.empty()) continue;
    std::error_code ec;
    if (std::filesystem::is_regular_file(text, ec)) {
      workloads.push_back(text);
      continue;
    }
    auto specs = expand_spec(text);
    if (!specs) return fail(err, "--workload: " + specs.error().message);
    for (const auto& spec : *specs) {
      if (auto status = check_workload_spec(spec); !status) return fail(err, "--workload: " + status.error().message);
      workloads.push_back(spec);
    }
  }
  std::vector<PolicyEntry> policies;  // each expanded entry "SPEC[/EVICTION][+time]"
  for (const std::string& text : split_specs(parsed->get("scheduler"))) {
    PolicyEntry policy = parse_policy_entry(text);
    if (policy.eviction) {
      if (auto made = make_eviction(*policy.eviction); !made) return fail(err, "--scheduler: " + made.error().message);
    }
    auto specs = expand_spec(policy.scheduler);
    if (!specs) return fail(err, "--scheduler: " + specs.error().message);
    for (const auto& spec : *specs) {
      if (auto made = make_scheduler(spec); !made) return fail(err, "--scheduler: " + made.error().message);
      policy.scheduler = spec;
      policies.push_back(policy);
    }
  }
  for (const auto& text : split_specs(parsed->get("eviction"))) {
    if (auto made = make_eviction(text); !made) return fail(err, "--eviction: " + made.error().message);
    evictions.push_back(text);
  }
  auto list_option = [&](const std::string& name) -> Result<std::vector<std::string>> {
    if (!parsed->has(name) && parsed->get(name).empty()) return std::vector<std::string>{""};
    auto values = expand_value(parsed->get(name), ',');
    if (!values) return make_error("--" + name + ": " + values.error().message);
    return values;
  };
  auto memories = list_option("memory");
  auto gpu_counts = list_option("gpus");
  auto buffers = list_option("buffer");
  auto seeds_text = list_option("seeds");
  for (auto* list : {&memories, &gpu_counts, &buffers, &seeds_text}) {
    if (!*list) return fail(err, list->error().message);
  }
  std::vector<std::int64_t> seeds;
  for (const auto& text : *seeds_text) {
    if (text.empty()) continue;
    auto seed = parse_integer(text);
    if (!seed || *seed < 0) return fail(err, "--seeds: '" + text + "' is not a seed (a whole number, 0 or more)");
    seeds.push_back(*seed);
  }
  if (workloads.empty()) return fail(err, "--workload: no workload given");

  std::vector<std::string> shared = {"--platform", parsed->get("platform")};
  for (const char* name : {"bandwidth", "gpu-link", "latency", "rate", "pcie", "cpus", "cpu-rate", "workers-per-memory"}) {
    if (parsed->has(name)) shared.insert(shared.end(), {std::string("--") + name, parsed->get(name)});
  }
  std::vector<Job> jobs;
  for (const auto& workload : workloads) {
    for (const auto& memory : *memories) {
      for (const auto& gpus : *gpu_counts) {
        for (const auto& buffer : *buffers) {
          for (const auto& policy : policies) {
            const std::string& scheduler = policy.scheduler;
            const bool charged = policy.charged || parsed->has("charge-scheduling");
            for (const auto& eviction : policy.eviction ? std::vector<std::string>{*policy.eviction} : evictions) {
              const bool seed_workload = generator_is_seeded(workload) && !sets_seed(workload);
              const bool seed_scheduler = scheduler_takes_seed(scheduler) && !sets_seed(scheduler);
              std::vector<std::optional<std::int64_t>> run_seeds = {std::nullopt};
              if (!seeds.empty() && (seed_workload || seed_scheduler)) run_seeds.assign(seeds.begin(), seeds.end());
              for (const auto& seed : run_seeds) {
                Job job;
                const std::string w = seed && seed_workload ? with_seed(workload, *seed) : workload;
                const std::string s = seed && seed_scheduler ? with_seed(scheduler, *seed) : scheduler;
                job.args = {"--workload", w, "--scheduler", s, "--eviction", eviction};
                job.args.insert(job.args.end(), shared.begin(), shared.end());
                if (!memory.empty()) job.args.insert(job.args.end(), {"--memory", memory});
                if (!gpus.empty()) job.args.insert(job.args.end(), {"--gpus", gpus});
                if (!buffer.empty()) job.args.insert(job.args.end(), {"--buffer", buffer});
                if (charged) job.args.push_back("--charge-scheduling");
                job.label = w + " " + s + "/" + eviction + (charged ? "+time" : "") + (memory.empty() ? "" : " M=" + memory) +
                            (gpus.empty() ? "" : " K=" + gpus) + (buffer.empty() ? "" : " buffer=" + buffer);
                jobs.push_back(std::move(job));
              }
            }
          }
        }
      }
    }
  }
  if (parsed->has("dry-run")) {
    for (const auto& job : jobs) out << job.label << "\n";
    out << jobs.size() << " runs\n";
    return 0;
  }

  // The sweep's identity: every option that shapes its grid, so the same command maps to the
  // same sweep and resumes it.
  std::string sweep_spec = preset_name.empty() ? "" : "--preset=" + preset_name;
  for (const char* name : {"workload", "scheduler", "eviction", "platform", "memory", "gpus", "bandwidth", "gpu-link", "latency",
                           "rate", "pcie", "cpus", "cpu-rate", "workers-per-memory", "buffer", "charge-scheduling", "seeds",
                           "metrics-only"}) {
    if (parsed->has(name) || !parsed->get(name).empty()) sweep_spec += std::string(sweep_spec.empty() ? "" : " ") + "--" + name + "=" + parsed->get(name);
  }
  auto store = db::Store::open(parsed->get("db"));
  if (!store) return fail(err, "--db: " + store.error().message);
  auto sweep_id = store->put_sweep(sweep_spec);
  if (!sweep_id) return fail(err, sweep_id.error().message);
  auto done_keys = store->complete_run_keys(*sweep_id);
  if (!done_keys) return fail(err, done_keys.error().message);

  std::size_t threads = std::thread::hardware_concurrency();
  if (parsed->has("jobs")) {
    auto count = parse_integer(parsed->get("jobs"));
    if (!count || *count < 1 || *count > 1024) return fail(err, "--jobs must be a whole number from 1 to 1024");
    threads = static_cast<std::size_t>(*count);
  }
  threads = std::max<std::size_t>(1, std::min(threads, jobs.size()));
  const bool keep_trace = !parsed->has("metrics-only");

  std::mutex mutex;
  std::condition_variable ready, room;
  // Finished runs wait here until every earlier one is stored: runs are stored in grid order
  // whatever the threads' timing, so run ids are the same from one sweep to the next.
  std::map<std::size_t, Outcome> finished;
  std::size_t next_to_store = 0;
  std::atomic<std::size_t> next_job{0};
  bool stopping = false;  // under mutex: the writer gave up, workers drop what they have
  const std::size_t window = 4 * threads;  // jobs a worker may run ahead of the writer
  auto worker = [&] {
    for (std::size_t i = next_job++; i < jobs.size(); i = next_job++) {
      {
        std::unique_lock lock(mutex);
        room.wait(lock, [&] { return stopping || i < next_to_store + window; });
        if (stopping) return;
      }
      Outcome outcome;
      outcome.job = i;
      auto setup = resolve_replay_args(jobs[i].args);
      auto scheduler = setup ? make_scheduler(setup->scheduler_spec) : Result<MadeScheduler>(setup.error());
      auto eviction = setup ? make_eviction(setup->eviction_spec) : Result<MadeEviction>(setup.error());
      if (!setup || !scheduler || !eviction) {
        outcome.kind = Outcome::Kind::Invalid;
        outcome.message = !setup ? setup.error().message : !scheduler ? scheduler.error().message : eviction.error().message;
      } else {
        setup->scheduler_spec = scheduler->spec;
        setup->eviction_spec = eviction->spec;
        const RunInfo info = run_info_of(*setup);
        if (done_keys->count(info.key)) {
          outcome.kind = Outcome::Kind::Skipped;
        } else {
          TraceRecorder recorder;
          auto summary = replay(setup->workload, *scheduler->scheduler, *eviction->policy, setup->options,
                                keep_trace ? &recorder : nullptr);
          if (summary) {
            outcome.summary = std::move(*summary);
            outcome.trace = std::move(recorder.trace);
          } else {
            outcome.kind = Outcome::Kind::Failed;
            outcome.message = summary.error().message;
          }
          outcome.setup = std::move(*setup);
        }
      }
      std::unique_lock lock(mutex);
      finished.emplace(i, std::move(outcome));
      ready.notify_one();
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(worker);

  const bool progress_bar = !parsed->has("quiet") && &err == &std::cerr && isatty(STDERR_FILENO);
  const bool log_lines = !parsed->has("quiet") && !progress_bar;
  const auto started = std::chrono::steady_clock::now();
  std::size_t stored = 0, skipped = 0, failed = 0, invalid = 0;
  std::map<std::string, std::int64_t> workload_ids;  // by canonical spec, to hash each workload once
  std::string first_error, fatal;
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
    const Job& job = jobs[outcome.job];
    std::string line;
    if (outcome.kind == Outcome::Kind::Skipped) {
      ++skipped;
      line = "skipped (stored before)";
    } else if (outcome.kind == Outcome::Kind::Invalid) {
      ++invalid;
      line = "invalid: " + outcome.message;
      if (first_error.empty()) first_error = job.label + ": " + outcome.message;
    } else {
      ReplaySetup& setup = *outcome.setup;
      RunInfo info = run_info_of(setup);
      info.sweep_id = *sweep_id;
      auto id = workload_ids.find(setup.workload_spec);
      if (id == workload_ids.end()) {
        std::error_code ec;
        const bool from_file = std::filesystem::is_regular_file(setup.workload_spec, ec);
        auto stored_id = store->put_workload(setup.workload, from_file ? "file " + setup.workload_spec : "generated");
        if (!stored_id) {
          fatal = stored_id.error().message;
          break;
        }
        id = workload_ids.emplace(setup.workload_spec, *stored_id).first;
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
        ++failed;
        line = "failed (run " + std::to_string(*run_id) + "): " + outcome.message;
        if (first_error.empty()) first_error = job.label + ": " + outcome.message;
      } else {
        writer->write(outcome.trace);
        const RunMetrics metrics = metrics_of(outcome.summary, reference_curves(setup.workload, setup.options.platform));
        auto run_id = writer->finish(metrics);
        if (!run_id) {
          fatal = run_id.error().message;
          break;
        }
        ++stored;
        line = "run " + std::to_string(*run_id) + ": " + fixed(metrics.ratio_to_lower_bound(), 2) + "x the lower bound, " +
               fixed(metrics.summary.gflops, 0) + " GFlop/s";
      }
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::size_t done = handled + 1;
    const std::size_t executed = stored + failed;
    const double left = executed ? elapsed / static_cast<double>(executed) * static_cast<double>(jobs.size() - done) : 0;
    if (log_lines) err << "[" << done << "/" << jobs.size() << "] " << job.label << ": " << line << "\n";
    if (progress_bar) {
      constexpr std::size_t kWidth = 30;
      const std::size_t filled = done * kWidth / jobs.size();
      err << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] " << done << "/" << jobs.size()
          << "  elapsed " << clock_text(elapsed) << "  left ~" << clock_text(left) << "   " << std::flush;
    }
  }
  {
    std::lock_guard lock(mutex);
    stopping = true;
    next_job = jobs.size();
    room.notify_all();
  }
  for (auto& thread : pool) thread.join();
  if (progress_bar) err << "\n";
  if (!fatal.empty()) return fail(err, "sweep stopped, the runs stored so far are kept: " + fatal);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  out << "sweep " << *sweep_id << ": " << jobs.size() << " runs: " << stored << " stored, " << skipped
      << " skipped (already stored), " << failed << " failed, " << invalid << " invalid, in " << fixed(elapsed, 1) << " s on "
      << threads << " thread" << (threads == 1 ? "" : "s") << "\n";
  if (!first_error.empty()) out << "first problem: " << first_error << "\n";
  out << "see: tilelens runs compare --sweep " << *sweep_id << " --db " << store->path() << "\n";
  return failed + invalid > 0 ? 1 : 0;
}

}  // namespace tilelens::cli
