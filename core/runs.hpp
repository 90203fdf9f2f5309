// Runs as both front ends handle them: what a run about to be stored is (run_info_of), its
// metrics against the bounds (metrics_of), its short label in tables and legends
// (policy_label), one loader of a whole stored run, and replaying a stored run again on
// another platform (the app's "what if", tilelens fidelity).
#pragma once

#include <cstdint>
#include <string>

#include "analysis/bounds.hpp"
#include "replay/engine.hpp"
#include "db/store.hpp"
#include "trace/run.hpp"

namespace tilelens::core {

inline constexpr const char* kVersion = "0.1.0";

// A run about to be stored or printed: everything but its ids and times.
RunInfo run_info_of(const Workload& workload, const std::string& workload_spec, const std::string& scheduler_spec,
                    const std::string& eviction_spec, const ReplayOptions& options);
RunMetrics metrics_of(const ReplaySummary& summary, const ReferenceCurves& curves);

// "hfp:flip=0/belady", with "+time" when its prepare() time was charged: a run's policy as
// sweeps write it, for column and series labels.
std::string policy_label(const RunInfo& run);

// One stored run with its workload and, when asked, its whole trace.
struct LoadedRun {
  StoredRun run;
  Workload workload;
  Trace trace;
};
enum class WithTrace { No, Yes };
Result<LoadedRun> load_run(db::Store& store, std::int64_t run_id, WithTrace with_trace = WithTrace::Yes);

// The workload of a stored run replayed under its own scheduler, eviction policy and depth on
// `platform`, with its trace; not stored (id 0).
Result<LoadedRun> replay_again(const StoredRun& run, const Workload& workload, const Platform& platform);

}  // namespace tilelens::core
