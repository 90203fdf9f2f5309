// The policies a run is made of, as the front ends list and parse them: the scheduler and
// eviction registries, HFP's options, and the memory models.
// The front ends include core/ only (tests/layering.sh); this header is how they reach these
// types.
#pragma once

#include "eviction/policy.hpp"  // IWYU pragma: export
#include "schedulers/scheduler.hpp"  // IWYU pragma: export
#include "schedulers/hfp.hpp"  // IWYU pragma: export
#include "schedulers/plugin_library.hpp"  // IWYU pragma: export
#include "schedulers/optimum_ilp.hpp"  // IWYU pragma: export
#include "runtime/memory_model.hpp"  // IWYU pragma: export
