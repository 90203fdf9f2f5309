// An eviction policy loaded from a plugin (include/tilelens/plugin.h); make_eviction() calls
// it for a spec whose name is a path (is_plugin_path).
#pragma once

#include "eviction/policy.hpp"

namespace tilelens {

Result<MadeEviction> make_plugin_eviction(const Spec& spec);

}  // namespace tilelens
