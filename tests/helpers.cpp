// Test helpers; see helpers.hpp.
#include "helpers.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "app/cli/commands.hpp"
#include "formats/exports.hpp"

#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <map>
#include <sstream>
#include <tuple>

namespace tilelens::test {

Platform small_platform(double memory_bytes, std::uint32_t gpus) {
  Platform p;
  p.gpus = gpus;
  p.memory_bytes = memory_bytes;
  p.bus_bandwidth = 1e9;
  p.default_gflops = 100;
  return p;
}

Workload generated(const std::string& spec) {
  auto w = generate_workload(spec);
  INFO(spec);
  REQUIRE(w.ok());
  return std::move(*w);
}

WorkloadBuilder one_datum_tasks(const std::string& name, int tasks, std::uint64_t bytes, double flops) {
  WorkloadBuilder builder(name);
  const KindId kind = builder.kind("K");
  const Access read{builder.add_data({"d", bytes, 'A', 0, 0}), AccessMode::Read};
  for (int t = 0; t < tasks; ++t) builder.add_task(kind, std::span<const Access>(&read, 1), flops);
  return builder;
}

Run run_replay(const Workload& w, Scheduler& scheduler, const std::string& eviction, const Platform& platform,
               std::uint32_t depth, const std::string& memory_model, const std::string& scheduling_cost) {
  auto policy = make_eviction(eviction);
  REQUIRE(policy.ok());
  auto model = parse_memory_model(memory_model);
  REQUIRE(model.ok());
  auto cost = parse_scheduling_cost(scheduling_cost);
  REQUIRE(cost.ok());
  ReplayOptions options;
  options.platform = platform;
  options.buffer_depth = depth;
  options.memory_model = *model;
  options.scheduling_cost = *cost;
  TraceRecorder recorder;
  auto summary = replay(w, scheduler, *policy->policy, options, &recorder);
  INFO((summary.ok() ? std::string() : summary.error().message));
  REQUIRE(summary.ok());
  return {*summary, std::move(recorder.trace)};
}

Run run_replay(const Workload& w, const std::string& scheduler, const std::string& eviction, const Platform& platform,
               std::uint32_t depth, const std::string& memory_model, const std::string& scheduling_cost) {
  auto made = make_scheduler(scheduler);
  REQUIRE(made.ok());
  return run_replay(w, *made->scheduler, eviction, platform, depth, memory_model, scheduling_cost);
}

std::string check_priority_order(const Workload& w, const Run& run) {
  std::vector<TaskId> order(run.trace.tasks.size());
  for (const auto& record : run.trace.tasks) order[record.global_order] = record.task;
  std::vector<char> done(w.task_count(), 0);
  for (TaskId t : order) {
    for (TaskId other = 0; other < w.task_count(); ++other) {
      if (done[other] || other == t) continue;
      bool ready = true;
      for (TaskId pred : w.predecessors(other)) ready = ready && done[pred];
      if (ready && w.tasks()[other].priority > w.tasks()[t].priority) {
        return w.task_label(t) + " started while " + w.task_label(other) + " of higher priority was ready";
      }
    }
    done[t] = 1;
  }
  return "";
}

std::string check_invariants(const Workload& w, const Platform& platform, const Run& run) {
  const Trace& t = run.trace;
  std::ostringstream problem;
  // Each task once, after its predecessors ended.
  std::vector<std::int64_t> end(w.task_count(), -1), start(w.task_count(), -1);
  for (const auto& r : t.tasks) {
    if (start[r.task] >= 0) return "task " + std::to_string(r.task) + " ran twice";
    start[r.task] = r.start_ns;
    end[r.task] = r.end_ns;
  }
  for (TaskId task = 0; task < w.task_count(); ++task) {
    if (start[task] < 0) return "task " + std::to_string(task) + " never ran";
    for (TaskId p : w.predecessors(task)) {
      if (end[p] > start[task]) return "task " + std::to_string(task) + " started before its predecessor " + std::to_string(p) + " ended";
    }
  }
  // Events per memory node, named by its first worker as the memory records name it: (time,
  // order, kind, data, bytes, task). At equal times frees come first. CPU workers compute from
  // the host and have none.
  enum Kind { Free = 0, Arrive = 1, Reserve = 2, Start = 3 };
  std::vector<std::vector<std::tuple<std::int64_t, int, DataId, double, TaskId>>> events(platform.workers());
  for (const auto& l : t.loads) {
    events[l.gpu].emplace_back(l.issue_ns, Reserve, l.data, static_cast<double>(l.bytes), kNoId);
    events[l.gpu].emplace_back(l.end_ns, Arrive, l.data, 0.0, kNoId);
  }
  for (const auto& a : t.allocations) {
    events[a.gpu].emplace_back(a.time_ns, Reserve, a.data, static_cast<double>(w.data()[a.data].bytes), kNoId);
    events[a.gpu].emplace_back(a.time_ns, Arrive, a.data, 0.0, kNoId);
  }
  for (const auto& e : t.evictions) {
    events[e.gpu].emplace_back(e.time_ns, Free, e.data, static_cast<double>(w.data()[e.data].bytes), kNoId);
  }
  for (const auto& r : t.tasks) {
    if (platform.is_cpu_worker(r.gpu)) continue;
    events[platform.first_worker_of(platform.memory_node_of(r.gpu))].emplace_back(r.start_ns, Start, 0, 0.0, r.task);
  }
  for (std::uint32_t node = 0; node < platform.memory_nodes(); ++node) {
    const GpuId g = platform.first_worker_of(node);
    auto& list = events[g];
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b) : std::get<1>(a) < std::get<1>(b);
    });
    double used = 0;
    std::vector<char> resident(w.data_count(), 0);
    std::uint64_t arrived = 0, freed = 0;
    for (const auto& [time, kind, data, bytes, task] : list) {
      switch (kind) {
        case Free:
          used -= bytes;
          resident[data] = 0;
          ++freed;
          break;
        case Reserve:
          used += bytes;
          if (used > platform.memory_bytes + 1e-6) {
            return "GPU " + std::to_string(g) + " holds " + std::to_string(used) + " bytes at t=" + std::to_string(time) +
                   ", over M=" + std::to_string(platform.memory_bytes);
          }
          break;
        case Arrive:
          resident[data] = 1;
          ++arrived;
          break;
        case Start:
          for (const Access& a : w.accesses(task)) {
            if (!resident[a.data]) {
              return "task " + std::to_string(task) + " started on GPU " + std::to_string(g) + " at t=" + std::to_string(time) +
                     " without " + w.data()[a.data].name;
            }
          }
          break;
      }
    }
    std::uint64_t resident_end = 0;
    for (char r : resident) resident_end += r ? 1 : 0;
    if (arrived != freed + resident_end) {
      return "GPU " + std::to_string(g) + ": " + std::to_string(arrived) + " loads+allocations but " + std::to_string(freed) +
             " evictions and " + std::to_string(resident_end) + " resident at the end";
    }
    const GpuSummary& s = run.summary.gpus[g];
    if (s.loads + s.allocations != s.evictions + s.invalidations + s.resident_at_end) {
      return "GPU " + std::to_string(g) + " summary: loads + allocations != evictions + invalidations + resident";
    }
    if (s.resident_at_end != resident_end) return "GPU " + std::to_string(g) + ": resident count differs between summary and trace";
  }
  if (run.summary.loads != t.loads.size()) return "summary loads differ from the trace's load records";
  return "";
}

std::string trace_text(const Trace& trace) {
  std::ostringstream out;
  write_trace_text(trace, out);
  return out.str();
}

CliOutput cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::run_cli(args, out, err);
  return {code, out.str(), err.str()};
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tilelens-test-" + std::to_string(::getpid()) + "-" + name)).string();
}

void TempFile::remove() const {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix, ec);
}

// Dynamic programming over the resident sets.
std::uint64_t exhaustive_minimum_loads(const Workload& w, const std::vector<TaskId>& order, int memory) {
  std::map<std::uint32_t, std::uint64_t> states{{0u, 0u}};
  for (TaskId t : order) {
    std::uint32_t needed = 0;
    for (const Access& a : w.accesses(t)) needed |= 1u << a.data;
    std::map<std::uint32_t, std::uint64_t> next;
    for (const auto& [held, cost] : states) {
      const std::uint64_t loads = cost + static_cast<std::uint64_t>(std::popcount(needed & ~held));
      const std::uint32_t optional = held & ~needed;  // data we may keep
      for (std::uint32_t keep = optional;; keep = (keep - 1) & optional) {
        if (std::popcount(needed | keep) <= memory) {
          auto [it, inserted] = next.emplace(needed | keep, loads);
          if (!inserted) it->second = std::min(it->second, loads);
        }
        if (keep == 0) break;
      }
    }
    states = std::move(next);
  }
  std::uint64_t best = UINT64_MAX;
  for (const auto& [held, cost] : states) best = std::min(best, cost);
  return best;
}

}  // namespace tilelens::test
