// A replay as a front end asks for it: which workload, which policies, which platform, and
// where the run goes. The CLI fills a ReplayRequest from its flags, the app from its dialog;
// both call run_replay() and print or draw what it returns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/platform_choice.hpp"
#include "core/runs.hpp"
#include "eviction/policy.hpp"
#include "replay/engine.hpp"

namespace tilelens::core {

// The task buffer's depth (--buffer): a whole number of tasks, 1 to kMaxBufferDepth, the
// running task included. Replay, sweep and execute read it with this one parser.
inline constexpr std::uint32_t kMaxBufferDepth = 100000;
Result<std::uint32_t> parse_buffer_depth(std::string_view text);

struct ReplayRequest {
  std::string workload;             // a generator spec (matmul2d:N=20) or a workload file
  std::string scheduler = "eager";  // NAME[:key=value,...]
  std::string eviction = "lru";
  PlatformChoice platform;
  std::uint32_t buffer_depth = 4;   // 1 to kMaxBufferDepth
  std::string memory_model = "starpu";  // a MemoryModel spec: starpu or fgcs, with key=value overrides
  bool charge_scheduling = false;   // fgcs "HFP with sched. time"
  std::string scheduling_cost;      // a SchedulingCost spec, "push=2us,pop=1us,pop_per_task=5ns"; "" for none
};

// Sets one field by its command-line name (workload, scheduler, eviction, platform, buffer,
// memory-model, scheduling-cost, charge-scheduling as 1 or 0, or a platform option), as
// set_sweep_option does for a sweep: for front ends that take options by name (the Python
// module). Errors name the field.
Status set_replay_option(ReplayRequest& request, std::string_view name, std::string_view text);

// A request resolved: the workload generated or read, the platform, the policies built with
// their canonical specs, and the run as it will be recorded.
struct PreparedReplay {
  Workload workload;
  std::string workload_spec;  // the generator's canonical spec, or the file as given
  std::string source;         // where the workload came from, as the store keeps it: "generated" or "file PATH"
  ReplayOptions options;
  MadeScheduler scheduler;
  MadeEviction eviction;
  RunInfo info;
};
// Errors name the field as the command line spells it ("--memory: ...").
Result<PreparedReplay> prepare_replay(const ReplayRequest& request);

struct RunOutputs {
  std::string database;                // store the run (or its failure) there; "" for none
  bool keep_trace = false;             // return the whole trace in the outcome
  ReplayObserver* observer = nullptr;  // also hand every record to it
  const std::atomic<bool>* cancel = nullptr;  // set from another thread: stop, store nothing
  double plugin_time_limit_s = 300;           // a plugin's trial replay (core/plugin_trial.hpp) may take this long
};

// Outputs that store the run in `database` and nothing else.
RunOutputs stored_in(const std::string& database);

struct ReplayOutcome {
  RunInfo info;                       // with its id and status once stored
  std::optional<RunMetrics> metrics;  // none when the replay failed
  std::string error;                  // why the replay failed
  Trace trace;                        // with RunOutputs::keep_trace
  Workload workload;
  std::string database;               // the store's path, when stored
  bool cancelled = false;             // stopped by RunOutputs::cancel: nothing was stored
};
// Prepares, replays and stores. An error means the run could not start (a bad request, a
// database that cannot be opened) or its result could not be stored; a replay that fails
// returns an outcome with `error` set, stored as a failed run when a database is given.
Result<ReplayOutcome> run_replay(const ReplayRequest& request, const RunOutputs& outputs = {});
// Whether a run's scheduler or eviction policy is a plugin (its spec carries plugin.hash).
bool uses_plugin(const RunInfo& info);
// Whether one is a class the embedding program registered (a Python class: python.hash): run
// in-process, stored only once it ended well, like a plugin's.
bool uses_embedded_policy(const RunInfo& info);

}  // namespace tilelens::core
