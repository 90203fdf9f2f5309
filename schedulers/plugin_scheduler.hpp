// A scheduler loaded from a plugin (include/tilelens/plugin.h); make_scheduler() calls it for
// a spec whose name is a path (is_plugin_path).
#pragma once

#include "schedulers/scheduler.hpp"

namespace tilelens {

Result<MadeScheduler> make_plugin_scheduler(const Spec& spec);

}  // namespace tilelens
