// One run of the engine (engine.cpp), for replay() (replay.cpp), which may run it several
// times for a policy that reads the future. Internal to replay/.
#pragma once

#include "replay/engine.hpp"

namespace tilelens::replay_detail {

Result<ReplaySummary> run_engine(const Workload& workload, Scheduler& scheduler, EvictionPolicy& eviction, const ReplayOptions& options,
                                 ReplayObserver* observer);

}  // namespace tilelens::replay_detail
