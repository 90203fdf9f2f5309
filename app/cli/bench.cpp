// `tilelens bench replay`: the replay engine's throughput (task-input accesses per second,
// one core) and peak memory, measured in one run and printed as figures and ratios to the
// targets of the core issue (5 M accesses/s with LRU, 2 M with Belady, 300 MB for a million
// tasks).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "app/cli/args.hpp"
#include "app/cli/commands.hpp"
#include "schedulers/generators.hpp"
#include "schedulers/units.hpp"

namespace tilelens::cli {
namespace {

const CommandSpec kBenchReplay{
    "tilelens bench replay [--quick]",
    "Measure the replay engine: task-input accesses replayed per second (single thread) with EAGER and\n"
    "LRU or Belady on matmul3d N=40 (64,000 tasks) and cholesky-tasks N=60, and the peak memory of a\n"
    "replay of matmul3d N=100 (one million tasks) with its whole trace kept.",
    {{"quick", "", "smaller sizes (for a smoke test); the figures are then not comparable to the targets", ""}},
    ""};

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

struct Measured {
  double seconds = 0;
  double accesses_per_second = 0;
  ReplaySummary summary;
};

Result<Measured> measure(const Workload& w, const std::string& eviction_name, double memory, ReplayObserver* observer) {
  auto scheduler = make_scheduler("eager");
  auto eviction = make_eviction(eviction_name);
  ReplayOptions options;
  options.platform = *find_platform_preset("v100-fgcs");
  options.platform.memory_bytes = memory;
  const auto begin = std::chrono::steady_clock::now();
  auto summary = replay(w, *scheduler->scheduler, *eviction->policy, options, observer);
  const auto end = std::chrono::steady_clock::now();
  if (!summary) return summary.error();
  Measured m;
  m.seconds = std::chrono::duration<double>(end - begin).count();
  m.accesses_per_second = static_cast<double>(read_accesses(w)) / m.seconds;
  m.summary = *summary;
  return m;
}

}  // namespace

int run_bench(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || (args[0] != "replay" && args[0] != "--help" && args[0] != "-h")) {
    err << "usage: tilelens bench replay [--quick]   (see --help)\n";
    return 2;
  }
  auto parsed = parse_args(kBenchReplay, std::vector<std::string>(args.begin() + (args[0] == "replay" ? 1 : 0), args.end()));
  if (!parsed) {
    err << "tilelens: " << parsed.error().message << "\n";
    return 2;
  }
  if (parsed->has("help")) {
    out << help_text(kBenchReplay);
    return 0;
  }
  const bool quick = parsed->has("quick");
  const double memory = 500.0 * 1048576.0;
  const std::vector<std::string> workloads = quick ? std::vector<std::string>{"matmul3d:N=12", "cholesky-tasks:N=20"}
                                                   : std::vector<std::string>{"matmul3d:N=40", "cholesky-tasks:N=60"};
  char line[256];
  out << "replay throughput: EAGER on one GPU of 500 MiB, 12 GB/s, buffer 4, no trace kept\n";
  std::snprintf(line, sizeof line, "%-22s %-8s %10s %12s %10s %16s %8s\n", "workload", "eviction", "tasks", "accesses",
                "seconds", "accesses/s", "target");
  out << line;
  for (const auto& spec : workloads) {
    auto w = generate_workload(spec);
    if (!w) {
      err << "tilelens: " << w.error().message << "\n";
      return 1;
    }
    for (const std::string eviction : {"lru", "belady"}) {
      auto m = measure(*w, eviction, memory, nullptr);
      if (!m) {
        err << "tilelens: " << m.error().message << "\n";
        return 1;
      }
      const double target = eviction == "lru" ? 5e6 : 2e6;
      std::snprintf(line, sizeof line, "%-22s %-8s %10zu %12llu %10.3f %16s %7.1fx\n", spec.c_str(), eviction.c_str(),
                    w->task_count(), static_cast<unsigned long long>(read_accesses(*w)), m->seconds,
                    format_count(m->accesses_per_second).c_str(), m->accesses_per_second / target);
      out << line;
    }
  }

  const std::string big = quick ? "matmul3d:N=40" : "matmul3d:N=100";
  auto w = generate_workload(big);
  if (!w) {
    err << "tilelens: " << w.error().message << "\n";
    return 1;
  }
  out << "\nmemory: " << big << " (" << format_count(static_cast<double>(w->task_count())) << " tasks), EAGER + LRU\n";
  // Streamed: records go to an observer that only counts them (as a database writer would
  // consume them); kept: the whole trace stays in memory.
  struct Counter final : ReplayObserver {
    std::uint64_t records = 0;
    void on_task(const TaskRecord&) override { ++records; }
    void on_load(const LoadRecord&) override { ++records; }
    void on_eviction(const EvictionRecord&) override { ++records; }
  };
  for (const bool keep : {false, true}) {
    const bool reset = reset_peak_rss();
    const double before = current_rss_bytes();
    Counter counter;
    TraceRecorder recorder;
    auto m = measure(*w, "lru", memory, keep ? static_cast<ReplayObserver*>(&recorder) : &counter);
    if (!m) {
      err << "tilelens: " << m.error().message << "\n";
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

}  // namespace tilelens::cli
