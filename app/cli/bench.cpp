// `tilelens bench replay`, `tilelens bench db` and `tilelens bench schedulers`. Replay: the
// engine's throughput (task-input accesses per second, one core) next to a bare LRU loop over
// the same order, the share of StarPU's memory-manager rules (the same replays under the fgcs
// model), and its peak memory, measured in one run and printed as figures and ratios to the
// targets (30 M accesses/s with LRU, 20 M with Belady, 300 MB for a million tasks).
// Db: the trace store's write and read speed against the trace database issue's targets.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/cli/commands.hpp"
#include "core/runs.hpp"
#include "core/store.hpp"
#include "core/analysis.hpp"
#include "core/presets.hpp"
#include "core/policies.hpp"
#include "core/units.hpp"

namespace tilelens::cli {

const CommandSpec kBenchReplay{
    "tilelens bench replay [--quick]",
    "Measure the replay engine: task-input accesses replayed per second (one core, every record handed to an\n"
    "observer, best of eleven) with EAGER and LRU or Belady on matmul3d N=40 (64,000 tasks, depth 4) and\n"
    "cholesky-tasks N=60, against the targets (30 M/s for LRU, 20 M/s for Belady) and a bare LRU loop over\n"
    "the same order (the floor); what the default memory model's rules (StarPU's) cost against the fgcs model's;\n"
    "the cost of a plugin policy: EAGER and LRU from examples/plugins against\n"
    "the built-in ones, per task; then the peak memory of a replay of matmul3d N=100 (one million tasks),\n"
    "streamed and with its whole trace kept, against 300 MB per million tasks.",
    {{"quick", "", "smaller sizes (for a smoke test); the figures are then not comparable to the targets", ""},
     {"plugins", "DIR", "where libeager_plugin.so and liblru_plugin.so are (default: the build tree's examples/plugins beside this tilelens)", ""}},
    ""};

const CommandSpec kBenchSchedulers{
    "tilelens bench schedulers [--quick]",
    "Measure the schedulers' own time (wall clock, one core) on the FGCS issue's targets: HFP on matmul2d\n"
    "N=90 (8,100 tasks) under 1 s, matmul3d N=20 (8,000 tasks) under 2 s, cholesky-tasks N=50 (22,100\n"
    "tasks) under 10 s, with M = 500 MiB on v100-fgcs. For each: the packing alone (hfp_pack), then the\n"
    "whole time spent in the scheduler during a replay (packing plus Ready at every pop) for HFP with\n"
    "Belady, and for DMDAR with LRU beside it. The ratio is HFP's whole time over the target.\n"
    "Then the DARTS issue's targets: DARTS + LUF replaying cholesky N=90 (125,580 tasks) and lu N=72 on\n"
    "4 GPUs under 10 s each, with DMDAS + LRU beside it.",
    {{"quick", "", "smaller sizes (for a smoke test); the figures are then not comparable to the targets", ""}},
    ""};

const CommandSpec kBenchDb{
    "tilelens bench db [--quick]",
    "Measure the trace store: writing one run of about a million records (matmul3d N=100, n=21, EAGER +\n"
    "LRU at 6 tiles of memory) in its one transaction, and reading back one run of 100,000 tasks with its\n"
    "loads (matmul3d N=100, n=10) from a fresh read-only connection. Targets: 2 s and 0.3 s.",
    {{"quick", "", "smaller sizes (for a smoke test); the figures are then not comparable to the targets", ""}},
    ""};

namespace {

struct Run {
  ReplaySummary summary;
  Trace trace;
  Platform platform;
};

// A memory figure of this process from /proc/self/status, in bytes (Linux): "VmHWM" is the
// peak resident size since the last reset, "VmRSS" the current one.
double status_bytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stod(line.substr(field.size() + 1)) * 1024.0;
  }
  return 0;
}
double peak_rss_bytes() { return status_bytes("VmHWM"); }
double current_rss_bytes() { return status_bytes("VmRSS"); }

bool reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  return static_cast<bool>(clear);
}

std::uint64_t read_accesses(const Workload& w) {
  std::uint64_t count = 0;
  for (TaskId t = 0; t < w.task_count(); ++t) {
    for (const Access& a : w.accesses(t)) count += reads(a.mode) ? 1 : 0;
  }
  return count;
}

// Consumes every record as a database writer would, without keeping them.
struct RecordCounter final : ReplayObserver {
  std::uint64_t records = 0;
  void on_task(const TaskRecord&) override { ++records; }
  void on_load(const LoadRecord&) override { ++records; }
  void on_eviction(const EvictionRecord&) override { ++records; }
  void on_writeback(const WritebackRecord&) override { ++records; }
  void on_allocation(const AllocationRecord&) override { ++records; }
};

struct Measured {
  double seconds = 0;  // the best of the repetitions
  double median_seconds = 0;
  double accesses_per_second = 0;  // at the best
  ReplaySummary summary;
};

constexpr int kRepetitions = 11;  // 10 ms each: enough to see past a noisy neighbour, and a median worth the name

// Replays `w` `repetitions` times (a fresh scheduler and policy each time) and keeps the best
// and the median wall time: the first run also pays for touching fresh memory.
Result<Measured> measure(const Workload& w, const std::string& eviction_name, double memory, ReplayObserver* observer,
                         const std::string& scheduler_name = "eager", int repetitions = 1, const MemoryModel& model = {}) {
  std::vector<double> seconds;
  Measured m;
  for (int r = 0; r < repetitions; ++r) {
    auto scheduler = make_scheduler(scheduler_name);
    if (!scheduler) return scheduler.error();
    auto eviction = make_eviction(eviction_name);
    if (!eviction) return eviction.error();
    ReplayOptions options;
    options.platform = *find_platform_preset("v100-fgcs");
    options.platform.memory_bytes = memory;
    options.memory_model = model;
    const auto begin = std::chrono::steady_clock::now();
    auto summary = replay(w, *scheduler->scheduler, *eviction->policy, options, observer);
    const auto end = std::chrono::steady_clock::now();
    if (!summary) return summary.error();
    seconds.push_back(std::chrono::duration<double>(end - begin).count());
    m.summary = *summary;
  }
  std::sort(seconds.begin(), seconds.end());
  m.seconds = seconds.front();
  m.median_seconds = seconds[seconds.size() / 2];
  m.accesses_per_second = static_cast<double>(read_accesses(w)) / m.seconds;
  return m;
}

// The floor: a bare LRU loop over the submission order with M bytes of memory, no engine (no
// buffer, bus, scheduler, records): what the replay's LRU decisions cost at the least.
struct Floor {
  double accesses_per_second = 0;
  std::uint64_t loads = 0;
};
Floor bare_lru(const Workload& w, double memory, int repetitions) {
  Floor floor;
  const std::size_t nd = w.data_count();
  const auto none = static_cast<std::uint32_t>(nd);  // the sentinel of the recency list
  double best = 1e300;
  for (int r = 0; r < repetitions; ++r) {
    const auto begin = std::chrono::steady_clock::now();
    std::vector<std::uint32_t> older(nd + 1, none), newer(nd + 1, none);
    std::vector<char> resident(nd, 0);
    double used = 0;
    std::uint64_t loads = 0;
    const auto unlink = [&](std::uint32_t d) {
      newer[older[d]] = newer[d];
      older[newer[d]] = older[d];
    };
    const auto push_newest = [&](std::uint32_t d) {
      const std::uint32_t last = older[none];
      newer[last] = d;
      older[d] = last;
      newer[d] = none;
      older[none] = d;
    };
    for (TaskId t : w.submission_order()) {
      for (const Access& a : w.accesses(t)) {
        if (!reads(a.mode)) continue;
        if (resident[a.data]) {
          unlink(a.data);
          push_newest(a.data);
          continue;
        }
        const auto bytes = static_cast<double>(w.data()[a.data].bytes);
        while (used + bytes > memory && newer[none] != none) {
          const std::uint32_t oldest = newer[none];
          unlink(oldest);
          resident[oldest] = 0;
          used -= static_cast<double>(w.data()[oldest].bytes);
        }
        resident[a.data] = 1;
        used += bytes;
        push_newest(a.data);
        ++loads;
      }
    }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
    floor.loads = loads;
  }
  floor.accesses_per_second = static_cast<double>(read_accesses(w)) / best;
  return floor;
}

// A plugin's cost: the example EAGER (then LRU) plugin in place of the built-in policy, on the
// same workload, best of the same repetitions; the difference per task is what crossing the C
// interface costs (the examples do the same work as the built-ins).
int bench_plugins(const Workload& w, const std::string& spec, double memory, const std::string& folder, std::ostream& out, std::ostream& err) {
  std::string dir = folder;
  if (dir.empty()) {
    std::error_code ec;
    dir = (std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "../../examples/plugins").lexically_normal().string();
  }
  const std::string eager = dir + "/libeager_plugin.so", lru = dir + "/liblru_plugin.so";
  if (!std::filesystem::exists(eager) || !std::filesystem::exists(lru)) {
    out << "plugins: not measured: no libeager_plugin.so and liblru_plugin.so in " << dir << " (give --plugins DIR)\n";
    return 0;
  }
  RecordCounter counter;
  // The built-ins measured before and after the plugins, the better kept: a neighbour's load
  // that comes and goes weighs on both sides alike.
  auto builtin = measure(w, "lru", memory, &counter, "eager", kRepetitions);
  if (!builtin) return fail(err, describe(builtin.error()));
  std::vector<std::pair<const char*, Measured>> measured;
  for (const auto& [scheduler, eviction, what] : {std::tuple{eager, std::string("lru"), "EAGER plugin + built-in LRU"},
                                                  std::tuple{std::string("eager"), lru, "built-in EAGER + LRU plugin"},
                                                  std::tuple{eager, lru, "EAGER plugin + LRU plugin"}}) {
    auto m = measure(w, eviction, memory, &counter, scheduler, kRepetitions);
    if (!m) return fail(err, describe(m.error()));
    measured.emplace_back(what, *m);
  }
  auto again = measure(w, "lru", memory, &counter, "eager", kRepetitions);
  if (!again) return fail(err, describe(again.error()));
  if (again->seconds < builtin->seconds) builtin = again;
  char line[320];
  out << "plugins on " << spec << " (" << format_count(static_cast<double>(w.task_count())) << " tasks), against the built-in EAGER + LRU at "
      << format_count(builtin->accesses_per_second) << " accesses/s in the same run:\n";
  for (const auto& [what, measurement] : measured) {
    const Measured* m = &measurement;
    const double per_task_ns = (m->seconds - builtin->seconds) / static_cast<double>(w.task_count()) * 1e9;
    std::snprintf(line, sizeof line, "  %-30s %14s accesses/s  %.2fx the built-ins' time, %+.1f ns per task\n", what,
                  format_count(m->accesses_per_second).c_str(), m->seconds / builtin->seconds, per_task_ns);
    out << line;
  }
  return 0;
}

int bench_replay(bool quick, const std::string& plugins, std::ostream& out, std::ostream& err) {
  const double memory = 500.0 * 1048576.0;
  const std::vector<std::string> workloads = quick ? std::vector<std::string>{"matmul3d:N=12", "cholesky-tasks:N=20"}
                                                   : std::vector<std::string>{"matmul3d:N=40", "cholesky-tasks:N=60"};
  char line[320];
  out << "replay throughput: EAGER on one GPU of 500 MiB (v100-fgcs: 12 GB/s bus), buffer 4, every record handed to an\n"
         "observer; one core; the best of " << kRepetitions << " replays (and their median)\n";
  std::snprintf(line, sizeof line, "%-22s %-8s %9s %10s %9s %14s %14s %8s %8s\n", "workload", "eviction", "tasks", "accesses", "best s",
                "accesses/s", "median", "target", "ratio");
  out << line;
  const std::vector<std::string> evictions = {"lru", "belady"};
  std::vector<Measured> first;  // the first workload's, one per eviction: the floor and the fgcs model compare with them
  for (const auto& spec : workloads) {
    auto w = generate_workload(spec);
    if (!w) {
      err << "tilelens: " << describe(w.error()) << "\n";
      return 1;
    }
    for (const std::string& eviction : evictions) {
      RecordCounter counter;
      auto m = measure(*w, eviction, memory, &counter, "eager", kRepetitions);
      if (!m) {
        err << "tilelens: " << describe(m.error()) << "\n";
        return 1;
      }
      const double target = eviction == "lru" ? 30e6 : 20e6;  // issue 31: twice the speed of the engine it split
      if (spec == workloads.front()) first.push_back(*m);
      std::snprintf(line, sizeof line, "%-22s %-8s %9zu %10llu %9.4f %14s %14s %7.0fM %7.2fx\n", spec.c_str(), eviction.c_str(),
                    w->task_count(), static_cast<unsigned long long>(read_accesses(*w)), m->seconds,
                    format_count(m->accesses_per_second).c_str(),
                    format_count(static_cast<double>(read_accesses(*w)) / m->median_seconds).c_str(), target / 1e6,
                    m->accesses_per_second / target);
      out << line;
    }
  }
  {
    auto w = generate_workload(workloads.front());
    if (!w) return fail(err, describe(w.error()));
    const Floor floor = bare_lru(*w, memory, kRepetitions);
    std::snprintf(line, sizeof line,
                  "floor: a bare LRU loop over %s's order (no engine) runs at %s accesses/s (%llu loads); the engine's "
                  "LRU above is %.1fx slower (target: at most 14x)\n",
                  workloads.front().c_str(), format_count(floor.accesses_per_second).c_str(), static_cast<unsigned long long>(floor.loads),
                  floor.accesses_per_second / first.front().accesses_per_second);
    out << line;
    // What StarPU's rules cost: the replays above again under the papers' memory model.
    auto fgcs = parse_memory_model("fgcs");
    if (!fgcs) return fail(err, describe(fgcs.error()));
    out << "the memory model's share, on " << workloads.front() << ": the same replays under the fgcs model (the papers' rules)\n";
    for (std::size_t e = 0; e < evictions.size(); ++e) {
      const std::string& eviction = evictions[e];
      const Measured& starpu = first[e];
      RecordCounter counter;
      auto papers = measure(*w, eviction, memory, &counter, "eager", kRepetitions, *fgcs);
      if (!papers) return fail(err, describe(papers.error()));
      std::snprintf(line, sizeof line, "  %-8s starpu %14s accesses/s, fgcs %14s accesses/s: StarPU's rules take %.0f%% of the time\n",
                    eviction.c_str(), format_count(starpu.accesses_per_second).c_str(), format_count(papers->accesses_per_second).c_str(),
                    100.0 * (1.0 - papers->seconds / starpu.seconds));
      out << line;
    }
    if (const int status = bench_plugins(*w, workloads.front(), memory, plugins, out, err); status != 0) return status;
  }

  const std::string big = quick ? "matmul3d:N=40" : "matmul3d:N=100";
  auto w = generate_workload(big);
  if (!w) {
    err << "tilelens: " << describe(w.error()) << "\n";
    return 1;
  }
  out << "\nmemory: " << big << " (" << format_count(static_cast<double>(w->task_count())) << " tasks), EAGER + LRU\n";
  // Streamed: records go to an observer that only counts them (as a database writer would
  // consume them); kept: the whole trace stays in memory.
  for (const bool keep : {false, true}) {
    const bool reset = reset_peak_rss();
    const double before = current_rss_bytes();
    RecordCounter counter;
    TraceRecorder recorder;
    auto m = measure(*w, "lru", memory, keep ? static_cast<ReplayObserver*>(&recorder) : &counter);
    if (!m) {
      err << "tilelens: " << describe(m.error()) << "\n";
      return 1;
    }
    const double peak = peak_rss_bytes();
    const double per_million = peak / static_cast<double>(w->task_count()) * 1e6;
    std::snprintf(line, sizeof line,
                  "  %-33s replay %.2f s; peak RSS %s (workload included, %s for the run) = %s per million tasks: %.2fx of 300 MB%s\n",
                  keep ? "whole trace kept in memory:" : "records streamed to an observer:", m->seconds, format_bytes(peak).c_str(),
                  format_bytes(peak - before).c_str(), format_bytes(per_million).c_str(), per_million / 300e6,
                  reset ? "" : " [peak not reset]");
    out << line;
  }
  std::snprintf(line, sizeof line, "  the workload itself: %s resident after generation\n", format_bytes(current_rss_bytes()).c_str());
  out << line;
  return 0;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int bench_schedulers(bool quick, std::ostream& out, std::ostream& err) {
  const double memory = 500.0 * 1048576.0;
  struct Target {
    std::string spec;
    double seconds;
  };
  const std::vector<Target> targets = quick ? std::vector<Target>{{"matmul2d:N=30", 1}, {"matmul3d:N=8", 2}, {"cholesky-tasks:N=15", 10}}
                                            : std::vector<Target>{{"matmul2d:N=90", 1}, {"matmul3d:N=20", 2}, {"cholesky-tasks:N=50", 10}};
  char line[320];
  out << "scheduler time: one GPU of 500 MiB (v100-fgcs), buffer 4; wall clock, one core\n";
  std::snprintf(line, sizeof line, "%-22s %7s %10s %8s %10s %7s %14s %12s %8s %8s %8s\n", "workload", "tasks", "packing s", "rounds",
                "fast st. s", "ratio", "HFP+Belady s", "DMDAR+LRU s", "target", "ratio", "HFP/LB");
  out << line;
  for (const auto& target : targets) {
    auto w = generate_workload(target.spec);
    if (!w) {
      err << "tilelens: " << describe(w.error()) << "\n";
      return 1;
    }
    HfpOptions options;
    options.memory_bytes = memory;
    const auto begin = std::chrono::steady_clock::now();
    const HfpPacking packing = hfp_pack(*w, options);
    const double packing_seconds = seconds_since(begin);
    options.fast_start = true;
    const auto fast_begin = std::chrono::steady_clock::now();
    hfp_pack(*w, options);
    const double fast_seconds = seconds_since(fast_begin);
    auto hfp = measure(*w, "belady", memory, nullptr, "hfp");
    auto dmdar = measure(*w, "lru", memory, nullptr, "dmdar");
    if (!hfp || !dmdar) {
      err << "tilelens: " << (!hfp ? hfp.error() : dmdar.error()).message << "\n";
      return 1;
    }
    Platform platform = *find_platform_preset("v100-fgcs");
    platform.memory_bytes = memory;
    const ReferenceCurves curves = reference_curves(*w, platform);
    const double hfp_seconds = static_cast<double>(hfp->summary.scheduling_ns) * 1e-9;
    std::snprintf(line, sizeof line, "%-22s %7zu %10.3f %8llu %10.3f %6.2fx %14.3f %12.3f %7.0fs %7.2fx %7.2fx\n", target.spec.c_str(),
                  w->task_count(), packing_seconds, static_cast<unsigned long long>(packing.rounds), fast_seconds,
                  fast_seconds / std::max(packing_seconds, 1e-9), hfp_seconds,
                  static_cast<double>(dmdar->summary.scheduling_ns) * 1e-9, target.seconds, hfp_seconds / target.seconds,
                  hfp->summary.bytes_loaded / curves.lower_bound_bytes);
    out << line;
  }
  out << "fast st.: the packing with fast_start=1, and its ratio to the packing without (below 1: fast start saves time);\n"
         "ratio: HFP's whole scheduler time over the target (below 1 meets it); HFP/LB: HFP+Belady's loaded bytes over the lower bound\n";

  // The DARTS issue's targets: whole replays on 4 GPUs (2 GB each) under 10 s.
  const std::vector<Target> dags = quick ? std::vector<Target>{{"cholesky:N=20", 10}, {"lu:N=16", 10}}
                                         : std::vector<Target>{{"cholesky:N=90", 10}, {"lu:N=72", 10}};
  out << "\nDAG replays on 4 GPUs of 2 GB (v100-fgcs rates and bus): whole replay wall time, scheduler time inside it\n";
  std::snprintf(line, sizeof line, "%-16s %7s %-12s %10s %12s %8s %8s %8s\n", "workload", "tasks", "policy", "replay s", "scheduler s",
                "target", "ratio", "loads");
  out << line;
  for (const auto& target : dags) {
    auto w = generate_workload(target.spec);
    if (!w) {
      err << "tilelens: " << describe(w.error()) << "\n";
      return 1;
    }
    for (const auto& [scheduler, eviction] : std::vector<std::pair<std::string, std::string>>{{"darts", "luf"}, {"dmdas", "lru"}}) {
      auto scheduled = make_scheduler(scheduler);
      auto evicting = make_eviction(eviction);
      ReplayOptions options;
      options.platform = *find_platform_preset("v100-fgcs");
      options.platform.gpus = 4;
      options.platform.memory_bytes = 2e9;
      const auto begin = std::chrono::steady_clock::now();
      auto summary = replay(*w, *scheduled->scheduler, *evicting->policy, options);
      const double seconds = seconds_since(begin);
      if (!summary) {
        err << "tilelens: " << describe(summary.error()) << "\n";
        return 1;
      }
      std::snprintf(line, sizeof line, "%-16s %7zu %-12s %10.2f %12.2f %7.0fs %7.2fx %8llu\n", target.spec.c_str(), w->task_count(),
                    (scheduler + "+" + eviction).c_str(), seconds, static_cast<double>(summary->scheduling_ns) * 1e-9, target.seconds,
                    seconds / target.seconds, static_cast<unsigned long long>(summary->loads));
      out << line;
    }
  }
  return 0;
}

// Replays `spec` with EAGER + LRU at 6 tiles of memory and keeps the whole trace.
Result<std::pair<Workload, Run>> traced_replay(const std::string& spec) {
  auto w = generate_workload(spec);
  if (!w) return w.error();
  auto scheduler = make_scheduler("eager");
  auto eviction = make_eviction("lru");
  ReplayOptions options;
  options.platform = *find_platform_preset("v100-fgcs");
  options.platform.memory_bytes = 6.0 * static_cast<double>(w->largest_data_bytes());
  TraceRecorder recorder;
  auto summary = replay(*w, *scheduler->scheduler, *eviction->policy, options, &recorder);
  if (!summary) return summary.error();
  return std::pair<Workload, Run>{std::move(*w), Run{*summary, std::move(recorder.trace), options.platform}};
}

std::size_t record_count(const Trace& t) {
  return t.tasks.size() + t.loads.size() + t.evictions.size() + t.writebacks.size() + t.allocations.size();
}

int bench_db(bool quick, std::ostream& out, std::ostream& err) {
  const std::string path = (std::filesystem::temp_directory_path() / ("tilelens-bench-" + std::to_string(::getpid()) + ".db")).string();
  auto cleanup = [&] {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
  };
  cleanup();
  auto store = db::Store::open(path);
  if (!store) return fail(err, describe(store.error()));
  // Writing: a trace of about a million records (tasks, loads, evictions) in one run.
  const std::string write_spec = quick ? "matmul3d:N=30,n=10" : "matmul3d:N=100,n=21";
  const std::string read_spec = quick ? "matmul3d:N=30,n=4" : "matmul3d:N=100,n=10";
  char line[320];
  int status = 0;
  for (const auto& spec : {write_spec, read_spec}) {
    auto replayed = traced_replay(spec);
    if (!replayed) return fail(err, describe(replayed.error()));
    const auto& [w, run] = *replayed;
    auto start = std::chrono::steady_clock::now();
    auto workload_id = store->put_workload(w, "generated");
    if (!workload_id) return fail(err, describe(workload_id.error()));
    const double workload_seconds = seconds_since(start);
    RunInfo info;
    info.workload_id = *workload_id;
    info.workload_spec = w.generator().spec;
    info.scheduler = "eager";
    info.eviction = "lru";
    info.platform = run.platform;
    info.tilelens_version = core::kVersion;
    start = std::chrono::steady_clock::now();
    auto writer = store->begin_run(info);
    if (!writer) return fail(err, describe(writer.error()));
    writer->write(run.trace);
    RunMetrics metrics;
    metrics.summary = run.summary;
    auto id = writer->finish(metrics);
    if (!id) return fail(err, describe(id.error()));
    const double write_seconds = seconds_since(start);
    const double records = static_cast<double>(record_count(run.trace));
    if (spec == write_spec) {
      const double per_million = write_seconds / records * 1e6;
      std::snprintf(line, sizeof line,
                    "write: %s, %s tasks: workload stored in %.3f s; run of %s records (tasks, loads, evictions) in %.3f s = "
                    "%s records/s; 1 M records in %.3f s: %.2fx of the 2 s target\n",
                    spec.c_str(), format_count(static_cast<double>(w.task_count())).c_str(), workload_seconds,
                    format_count(records).c_str(), write_seconds, format_count(records / write_seconds).c_str(), per_million,
                    per_million / 2.0);
      out << line;
      continue;
    }
    // Reading: the run of 100,000 tasks with its loads (and the rest of its trace), from a
    // fresh read-only connection, as the app opens it.
    auto reader = db::Store::open(path, db::Store::OpenMode::ReadOnly);
    if (!reader) return fail(err, describe(reader.error()));
    start = std::chrono::steady_clock::now();
    auto trace = reader->load_trace(*id);
    if (!trace) return fail(err, describe(trace.error()));
    const double read_seconds = seconds_since(start);
    start = std::chrono::steady_clock::now();
    auto stored = reader->load_run(*id);
    auto workload = reader->load_workload(*workload_id);
    if (!stored || !workload) return fail(err, !stored ? describe(stored.error()) : describe(workload.error()));
    const double rest_seconds = seconds_since(start);
    if (trace->tasks.size() != run.trace.tasks.size() || trace->loads.size() != run.trace.loads.size()) {
      err << "tilelens: the trace read back differs from the one written\n";
      status = 1;
    }
    std::snprintf(line, sizeof line,
                  "read:  %s: %s task executions + %s loads (+ %s evictions) in %.3f s: %.2fx of the 0.3 s target; "
                  "its metrics and workload in %.3f s more\n",
                  spec.c_str(), format_count(static_cast<double>(trace->tasks.size())).c_str(),
                  format_count(static_cast<double>(trace->loads.size())).c_str(),
                  format_count(static_cast<double>(trace->evictions.size())).c_str(), read_seconds, read_seconds / 0.3,
                  rest_seconds);
    out << line;
  }
  std::error_code ec;
  const double bytes = static_cast<double>(std::filesystem::file_size(path, ec) + std::filesystem::file_size(path + "-wal", ec));
  std::snprintf(line, sizeof line, "database: %s for both runs and their workloads\n", format_bytes(bytes).c_str());
  out << line;
  // Every open checks the schema's tables and runs PRAGMA integrity_check over the file
  // (docs/database.md, "Damaged and concurrent databases"): its cost grows with the file.
  const auto opened = std::chrono::steady_clock::now();
  if (auto reader = db::Store::open(path, db::Store::OpenMode::ReadOnly); !reader) return fail(err, describe(reader.error()));
  const double open_seconds = seconds_since(opened);
  std::snprintf(line, sizeof line, "open:  schema and integrity check of %s in %.3f s = %.1f ms per MB\n", format_bytes(bytes).c_str(),
                open_seconds, open_seconds * 1e3 / (bytes / 1e6));
  out << line;
  cleanup();
  return status;
}

}  // namespace

int cmd_bench_replay(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  return bench_replay(args.has("quick"), args.get("plugins"), out, err);
}
int cmd_bench_db(const ParsedArgs& args, std::ostream& out, std::ostream& err) { return bench_db(args.has("quick"), out, err); }
int cmd_bench_schedulers(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  return bench_schedulers(args.has("quick"), out, err);
}

}  // namespace tilelens::cli
