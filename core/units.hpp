// Sizes, durations and rates as the front ends parse and print them, generator specs
// (key=value parameters) and Result: the vocabulary of every core call.
// The front ends include core/ only (tests/layering.sh); this header is how they reach these
// types.
#pragma once

#include "model/units.hpp"  // IWYU pragma: export
#include "model/params.hpp"  // IWYU pragma: export
#include "util/result.hpp"  // IWYU pragma: export
