// The real-GPU executor (tilelens execute), as the front ends describe and check its options.
// The front ends include core/ only (tests/layering.sh); this header is how they reach these
// types.
#pragma once

#include "instrument/executor.hpp"  // IWYU pragma: export
