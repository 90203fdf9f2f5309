// The built-in inputs: the seed workloads, the platform presets and the papers' experiments.
// The front ends include core/ only (tests/layering.sh); this header is how they reach these
// types.
#pragma once

#include "presets/seed_workloads.hpp"  // IWYU pragma: export
#include "presets/platforms.hpp"  // IWYU pragma: export
#include "presets/experiments.hpp"  // IWYU pragma: export
