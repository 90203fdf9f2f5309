// The database both front ends open (runs, their traces and metrics, sweeps) and its declared
// schema, which `tilelens db schema` prints.
// The front ends include core/ only (tests/layering.sh); this header is how they reach these
// types.
#pragma once

#include "db/store.hpp"  // IWYU pragma: export
#include "db/tables.hpp"  // IWYU pragma: export
#include "db/schema.hpp"  // IWYU pragma: export
#include "db/metric_columns.hpp"  // IWYU pragma: export
#include "trace/run.hpp"  // IWYU pragma: export
#include "trace/measurement.hpp"  // IWYU pragma: export
