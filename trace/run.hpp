// A run as every part of tilelens names it: what it is (workload, policies, platform, how it
// was made and how it went) and its metrics against the lower bound. The store keeps runs,
// the front ends print them, the exports label their traces with them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"
#include "trace/summary.hpp"

namespace tilelens {

enum class RunMode { Replay, Cuda, StarPU };
const char* to_string(RunMode mode);

enum class RunStatus { Complete, Failed, Incomplete };
const char* to_string(RunStatus status);
std::optional<RunStatus> run_status_from(std::string_view text);  // "complete", "failed", "incomplete"

// What a run is: the workload, the policies and the platform, and how it went.
struct RunInfo {
  std::int64_t id = 0;  // set by the store
  std::int64_t workload_id = 0;
  std::string workload_spec;  // the generator's canonical spec, or the workload's name
  // Read back from the workloads table (set by the caller when printing a run not stored).
  std::string workload_name;
  std::uint64_t workload_tasks = 0, workload_data = 0, working_set_bytes = 0;
  std::string scheduler;      // canonical spec, "random:seed=3"
  std::string eviction;
  Platform platform;
  std::uint32_t buffer_depth = 4;
  // How the memory nodes served requests: MemoryModel's canonical spec (runtime/memory_model.hpp),
  // "fgcs" for runs stored before it was recorded, "" for an imported measurement.
  std::string memory_model;
  // What decisions cost on the replay clock: SchedulingCost's canonical spec, "" when free.
  std::string scheduling_cost;
  RunMode mode = RunMode::Replay;
  std::optional<std::int64_t> seed;
  std::string tilelens_version;
  std::string started_at;  // UTC, ISO 8601
  std::string finished_at;
  RunStatus status = RunStatus::Incomplete;
  std::string error;
  std::string host, gpu_name;  // measured runs
  bool transfers_recorded = true;  // false for an imported measurement without its transfers
  std::optional<std::int64_t> sweep_id;
  // What identifies the run in a sweep (workload, policies, platform, depth): a sweep rerun
  // skips every key already stored complete.
  std::string key;
};

// The metrics of one run: its summary and where it stands against the lower bound.
struct RunMetrics {
  ReplaySummary summary;
  double lower_bound_bytes = 0;
  std::string lower_bound;      // which bound, with its formula
  double bus_limit_bytes = 0;   // more than this cannot be hidden behind compute
  double ideal_compute_ns = 0;  // the work at the platform's peak rate on every GPU
  double ratio_to_lower_bound() const {
    return lower_bound_bytes > 0 ? summary.bytes_loaded / lower_bound_bytes : 0;
  }
};

// What an importer kept, left out and decided, as it told the user: notes (what was left out
// and why, with counts) and warnings (what was dropped, renamed or decided between disagreeing
// records). Stored with an imported run, so the reader of a database sees what its user saw.
struct ImportReport {
  std::vector<std::string> notes;
  std::vector<std::string> warnings;
  // Every record of the tasks file, one by one: where it is, its JobId, what became of it and why.
  struct Record {
    std::string where;   // "tasks.rec:123"
    std::string job;     // its JobId ("" for a control record, or one that could not be read)
    std::string fate;    // "kept", "skipped" or "left out"
    std::string reason;  // "a task of kind GEMM", "StarPU's own synchronisation", the error read, ...
  };
  std::vector<Record> records;
  bool empty() const { return notes.empty() && warnings.empty() && records.empty(); }
};
// "231 records: 229 kept as tasks, 2 skipped, 0 left out"; "" without records.
std::string records_summary(const ImportReport& report);
// One record as the front ends list it: "tasks.rec:12  JobId 5  kept: a task of kind 'GEMM'".
std::string record_line(const ImportReport::Record& record);

// A run as read back: its metrics are absent for a failed run.
struct StoredRun {
  RunInfo info;
  std::optional<RunMetrics> metrics;  // absent for a failed run
  ImportReport import_report;         // an imported run's (Store::load_run reads it; empty otherwise)
};

// The canonical run key of a replay: what a sweep compares to decide a run is done.
// `workload` is the workload's identity (workload_identity, formats/workload_io.hpp): its
// generator's spec, or its content hash, never a file's path. A memory model other than the
// fgcs one is part of the key; the fgcs model's keys are those stored before models were. A
// scheduling cost is part of the key when one was charged.
std::string run_key(const std::string& workload, const std::string& scheduler, const std::string& eviction,
                    const Platform& platform, std::uint32_t buffer_depth, RunMode mode, bool charged = false,
                    const std::string& memory_model = "", const std::string& scheduling_cost = "");
// Whether a run charged its scheduler's prepare() time to its makespan (run_key's mark).
bool charged_scheduling(const RunInfo& info);

}  // namespace tilelens
