// What the front ends compute from stored runs: the I/O lower bounds, the calibration fit, where
// the workers' time went, which data each GPU held, and where two schedules part.
// The front ends include core/ only (tests/layering.sh); this header is how they reach these
// types.
#pragma once

#include "analysis/bounds.hpp"  // IWYU pragma: export
#include "analysis/calibration.hpp"  // IWYU pragma: export
#include "analysis/divergence.hpp"  // IWYU pragma: export
#include "analysis/residency.hpp"  // IWYU pragma: export
#include "analysis/time_split.hpp"  // IWYU pragma: export
