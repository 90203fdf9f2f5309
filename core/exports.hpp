// The file formats the front ends read and write: the exporter registry (Paje, Chrome, CSV,
// ...), the workload and platform files, the StarPU-SimGrid and starpu_replay exports, and safe output files.
// The front ends include core/ only (tests/layering.sh); this header is how they reach these
// types.
#pragma once

#include "formats/exports.hpp"  // IWYU pragma: export
#include "formats/output_file.hpp"  // IWYU pragma: export
#include "formats/starpu_replay.hpp"  // IWYU pragma: export
#include "formats/starpu_simgrid.hpp"  // IWYU pragma: export
#include "formats/platform_io.hpp"  // IWYU pragma: export
#include "formats/workload_io.hpp"  // IWYU pragma: export
