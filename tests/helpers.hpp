// Test helpers: run a replay and keep its trace, and check the invariants of DESIGN section 4
// from the trace alone (independently of the engine's own counters).
#pragma once

#include <string>

#include "replay/engine.hpp"
#include "presets/seed_workloads.hpp"
#include "schedulers/static_order.hpp"

namespace tilelens::test {

struct Run {
  ReplaySummary summary;
  Trace trace;
};

Platform small_platform(double memory_bytes, std::uint32_t gpus = 1);
Workload generated(const std::string& spec);
// A builder holding `tasks` tasks of one kind ("K"), each reading the one datum "d" of `bytes`
// with `flops`: the start of a hand-made DAG, whose dependencies the caller adds.
WorkloadBuilder one_datum_tasks(const std::string& name, int tasks, std::uint64_t bytes, double flops);
// `memory_model` is a MemoryModel spec: "starpu" (the default) or "fgcs" (the papers' model);
// `scheduling_cost` a SchedulingCost spec ("" charges nothing).
Run run_replay(const Workload& w, Scheduler& scheduler, const std::string& eviction, const Platform& platform,
               std::uint32_t depth = 4, const std::string& memory_model = "starpu", const std::string& scheduling_cost = "");
Run run_replay(const Workload& w, const std::string& scheduler, const std::string& eviction, const Platform& platform,
               std::uint32_t depth = 4, const std::string& memory_model = "starpu", const std::string& scheduling_cost = "");

// Memory in use never above M (from load issues, allocations and evictions); each task starts
// with all its data resident; loads + allocations = evictions + invalidations + resident at
// the end, per GPU; each task runs once, after its predecessors. Returns "" or what failed.
std::string check_invariants(const Workload& w, const Platform& platform, const Run& run);

// Each task the run started had the highest priority among the tasks ready at that moment
// (a one-GPU run with no prefetch window). Returns "" or the first task that broke the rule.
std::string check_priority_order(const Workload& w, const Run& run);

std::string trace_text(const Trace& trace);

// The fewest loads any eviction choice makes for a fixed order of tasks on one memory of
// `memory_items` equal data (ids below 32): the exhaustive minimum Belady must reach.
std::uint64_t exhaustive_minimum_loads(const Workload& w, const std::vector<TaskId>& order, int memory_items);

// The tilelens command line run in-process.
struct CliOutput {
  int code;
  std::string out, err;
};
CliOutput cli(const std::vector<std::string>& args);

// A file's whole content, as bytes ("" when it cannot be read).
std::string file_text(const std::string& path);

// A path in the temporary directory, unique to this process; a database there is removed with
// its -wal and -shm files when the TempFile goes.
std::string temp_path(const std::string& name);
struct TempFile {
  explicit TempFile(const std::string& name) : path(temp_path(name)) { remove(); }
  ~TempFile() { remove(); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  void remove() const;
  std::string path;
};

}  // namespace tilelens::test
