// A plugin's replay tried in a child process (docs/plugins.md): whatever the plugin does there
// (crash, hang, a task or victim it may not hand out), the caller's process and database are
// safe. Sweeps and run_replay call it before replaying a plugin policy in-process.
#pragma once

#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "core/replay_request.hpp"

namespace tilelens::core {

// "" when the child's replay ended well, else what went wrong: a crash (its signal), a run past
// `time_limit_s` (the child is killed), the replay's own failure, or kCancelled when `cancel`
// was set meanwhile. With several threads replaying, `gate` is held shared by each while it
// works and `shared` is the caller's own hold: the fork then waits until no other thread is
// inside a replay (a lock another thread holds at the fork stays held in the child forever).
std::string plugin_trial(const PreparedReplay& prepared, double time_limit_s, const std::atomic<bool>* cancel = nullptr,
                         std::shared_mutex* gate = nullptr, std::shared_lock<std::shared_mutex>* shared = nullptr);

}  // namespace tilelens::core
