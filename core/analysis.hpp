// What the front ends compute from stored runs: the I/O lower bounds and the calibration fit.
// The front ends include core/ only (tests/layering.sh); this header is how they reach these
// types.
#pragma once

#include "analysis/bounds.hpp"  // IWYU pragma: export
#include "analysis/calibration.hpp"  // IWYU pragma: export
