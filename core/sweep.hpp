// Sweeps: a grid of workloads x memories x GPU counts x buffer depths x policies x seeds,
// replayed on a pool of threads and stored in one database as the runs finish. The grid is
// written in the sweep's own small language (ranges A..B:STEP, lists a|b, entries
// SCHEDULER/EVICTION+time), set option by option with the names the command line uses, so a
// paper's preset, the CLI's flags and the app fill it the same way. expand_grid() checks it
// whole and turns it into typed replay requests before anything runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/replay_request.hpp"
#include "presets/experiments.hpp"
#include "db/store.hpp"

namespace tilelens::core {

// One entry of a sweep's scheduler list: "SPEC[/EVICTION][+time]", the eviction pinned for
// this entry (else the grid's eviction list applies) and its prepare() time charged. Not
// checked here.
struct PolicyEntry {
  std::string scheduler;
  std::optional<std::string> eviction;
  bool charged = false;
};
PolicyEntry parse_policy_entry(std::string text);

struct SweepGrid {
  std::string preset;                // the paper's experiment it starts from, if any
  std::string workloads;             // "SPEC[;SPEC]": generator specs with ranges, or files
  std::string schedulers = "eager";  // comma-separated entries SPEC[/EVICTION][+time]
  std::string evictions = "lru";
  std::string platform = "v100-fgcs";  // a preset or a platform file
  std::string memories, gpus;          // comma-separated lists (gpus: ranges too); "" keeps the platform's
  std::string buffers = "4";
  std::string memory_model = "starpu";  // one MemoryModel spec for every run
  std::string scheduling_cost;          // one SchedulingCost spec for every run; "" for none
  std::string seeds;                   // given to every seeded generator and scheduler whose spec sets none
  std::map<std::string, std::string> platform_options;  // the other platform options (bandwidth, pcie, ...), as typed
  bool charge_scheduling = false;
  bool metrics_only = false;  // store each run's metrics without its trace
  // Run only part K of N of the grid (1 <= K <= N; N = 0: the whole grid). Not part of the
  // sweep's identity: the N parts are one sweep, and merging their databases gives it whole.
  std::uint32_t shard = 0, shards = 0;
};
// Sets one option by its command-line name (workload, scheduler, eviction, platform, memory,
// gpus, buffer, memory-model, scheduling-cost, seeds, charge-scheduling, metrics-only, or a
// platform option).
Status set_sweep_option(SweepGrid& grid, std::string_view name, std::string_view text);
// Applies a preset (presets/experiments.hpp): its options, except those in `keep`, and its
// policies unless the schedulers are kept.
Status apply_sweep_preset(SweepGrid& grid, std::string_view name, const std::vector<std::string>& keep);
Status apply_sweep_preset(SweepGrid& grid, const SweepPreset& preset, const std::vector<std::string>& keep);
// What names the sweep in the database: the same grid resumes the same sweep.
std::string sweep_identity(const SweepGrid& grid);

struct SweepJob {
  ReplayRequest request;
  std::string label;  // "matmul2d:N=5 eager/lru M=500MiB"
};
// Every run of the grid, in the order they are stored (workload outermost, then memory, GPUs,
// buffer, policy, eviction, seed); errors name the option at fault. With a shard set, only
// that shard's runs (shard_of), in the same order.
Result<std::vector<SweepJob>> expand_grid(const SweepGrid& grid);

// Each run's estimated cost, to balance shards: its tasks (each workload generated once)
// times its scheduler's weight (1 for the static orders and EAGER-like ones, 3 for a Ready
// scan, DMDA's models, HFP's packing or DARTS's choice) times 2 for Belady (its future, and
// the fixed point under Ready). Measured, not exact: the bench reports the balance it gets.
std::vector<double> estimated_costs(const std::vector<SweepJob>& jobs);
// Which of `shards` parts each job goes to: a deterministic longest-processing-time split,
// the costliest job first onto the least loaded part (ties to the lower part, jobs in grid
// order), so that every part gets about the same estimated cost. The parts' union is the grid.
std::vector<std::uint32_t> shard_of(const std::vector<SweepJob>& jobs, std::uint32_t shards);

struct SweepProgress {
  std::size_t done = 0, total = 0;
  std::size_t stored = 0, skipped = 0, failed = 0, invalid = 0;
  std::string label;  // the run just handled
  std::string line;   // what happened to it: "run 12: 2.10x the lower bound, ..." or the error
  double elapsed_seconds = 0, left_seconds = 0;
};

struct SweepOptions {
  std::string database;
  std::size_t threads = 0;  // 0: one per core
  std::function<void(const SweepProgress&)> on_progress;  // on the calling thread, after each run is handled
  const std::atomic<bool>* cancel = nullptr;               // stop after the runs in progress
  // A plugin's replay first runs in a child process (docs/plugins.md): one that crashes there,
  // or runs past this many seconds, is reported invalid and stores nothing.
  double plugin_time_limit_s = 300;
};

struct SweepReport {
  std::int64_t sweep_id = 0;
  std::string database;
  std::size_t total = 0, stored = 0, skipped = 0, failed = 0, invalid = 0;
  std::size_t running_elsewhere = 0;  // claimed by another sweep running now (left to it)
  std::size_t threads = 0;
  double seconds = 0;
  bool cancelled = false;
  std::string first_problem;  // the first failed or invalid run, with its label
};
// Replays every job not already stored complete in this sweep (a rerun resumes), storing the
// runs in grid order whatever the threads' timing, one transaction each. Each run is claimed
// first (db::Store::claim_run): a second sweep of the grid into the same file, running at the
// same time, leaves the runs the first one claimed to it, and neither stores a run twice. An error means the
// store failed; the runs stored until then are kept.
Result<SweepReport> run_sweep(const SweepGrid& grid, const SweepOptions& options);

// A preset's runs as one of its sweeps stored them, each with the preset policy it belongs to
// (matched by canonical scheduler and eviction specs and the charged mark) and its value of the
// varied parameter (N, or M in MiB), sorted by policy then value. Runs of policies the preset
// lacks (a sweep given more schedulers) are left out.
struct PresetRun {
  std::size_t policy = 0;  // index into preset.policies
  double x = 0;
  StoredRun run;
};
Result<std::vector<PresetRun>> preset_runs(db::Store& store, const SweepPreset& preset, std::int64_t sweep_id);
// The newest sweep stored from `preset` (tilelens sweep --preset NAME, any options), if any.
Result<std::optional<std::int64_t>> latest_preset_sweep(db::Store& store, const std::string& preset);

}  // namespace tilelens::core
