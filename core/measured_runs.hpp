// Measured runs as both front ends ask for them: executing a workload on real GPUs under a
// scheduler (tilelens execute), a replay platform calibrated from a measured run (tilelens
// calibrate), and that run replayed on its calibrated platform next to what was measured
// (tilelens fidelity).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "analysis/calibration.hpp"
#include "core/platform_choice.hpp"
#include "core/runs.hpp"
#include "instrument/executor.hpp"

namespace tilelens::core {

struct ExecuteRequest {
  ExecuteRequest() { platform.base = "h100"; }
  std::string workload;                  // a seed workload spec; or from_run
  std::optional<std::int64_t> from_run;  // re-execute a stored run's workload, platform and depth
  std::string database;                  // store the measured run here (and read from_run here)
  std::optional<std::string> scheduler;  // default: eager, or the stored run's
  std::optional<std::string> eviction;   // default: lru, or the stored run's
  PlatformChoice platform;                // the platform the schedulers plan with (default: the h100 preset)
  std::optional<std::uint32_t> buffer_depth;   // default: 4, or the stored run's
  std::optional<std::string> memory_model;     // default: starpu, or the stored replay's
  bool tf32 = false;
  bool cupti = true;
  instrument::CuptiApis cupti_apis = instrument::CuptiApis::Callbacks;
  std::uint32_t launch_ahead = 1;    // kernels queued behind the running one (instrument::ExecuteOptions)
  std::uint64_t seed = 1;            // of the tiles' values
  std::size_t verify_tiles = 8;      // checked against the CPU reference (0: no check)
  std::size_t verify_rows = 16;      // per tile (0: all)
  int first_device = 0;
  std::optional<std::uint32_t> logical_gpus;  // that many logical GPUs on first_device
};

// A request resolved, ready to run: the workload, the policies, the executor's options and
// the run as it will be recorded. Errors name the field as the command line spells it.
struct PreparedExecute {
  Workload workload;
  MadeScheduler scheduler;
  MadeEviction eviction;
  instrument::ExecuteOptions options;
  RunInfo info;
  std::string database;
};
Result<PreparedExecute> prepare_execute(const ExecuteRequest& request);

// What execute would run, said without a GPU (`tilelens execute --dry-run`): the kernel plan
// of each kind and the arena on each GPU.
struct ExecutePlan {
  std::vector<std::string> kernels, arena;
};
Result<ExecutePlan> plan_execute(const PreparedExecute& prepared);

struct ExecuteOutcome {
  RunInfo info;  // with its id once stored
  RunMetrics metrics;
  Measurement measurement;
  Trace trace;
  std::string database;  // the store's path, when stored
};
// Runs it on the GPUs (instrument::cuda_available() tells beforehand whether it can) and stores
// the measured run, or the failure, in the request's database.
Result<ExecuteOutcome> run_execute(PreparedExecute prepared);

// A complete measured (or replayed) run with its workload and trace; errors name the run.
Result<LoadedRun> load_measured_run(db::Store& store, std::int64_t run_id);

// The run's calibrated platform, named "calibrated-run-ID".
Result<Calibration> calibrate_run(const LoadedRun& run);

struct FidelityReport {
  LoadedRun measured;
  Calibration calibration;
  LoadedRun replayed;              // on the calibrated platform
  std::int64_t stored_run_id = 0;  // when stored
};
// Replays a measured run under its own policies and depth on its calibrated platform; with
// `store`, the replay is stored in `store_in` too.
Result<FidelityReport> fidelity(db::Store& store, std::int64_t run_id, bool store_replay);

}  // namespace tilelens::core
