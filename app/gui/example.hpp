// The built-in example database (issue 5, "main job with no set-up"): matmul2d N=20 at
// M = 250 MiB under RCM + LRU, DMDAR + LRU and HFP + Belady (fgcs Figs. 8-10), plus a 3D
// product (layer panels, fgcs Fig. 12) and a Cholesky task graph on two GPUs under DMDAS and
// under DARTS + LUF (iteration panels, darts Figs. 8 and 13; select both to compare).
// Generated on first use through the core, as `tilelens replay --db` would.
#pragma once

#include <string>
#include <vector>

#include "core/units.hpp"

namespace tilelens::gui {

// The run ids the example opens side by side (RCM, DMDAR, HFP).
inline const std::vector<std::int64_t> kExampleComparison = {1, 2, 3};

// Creates the example database at `path` unless it exists. Written to a temporary file and
// renamed, so an interrupted start never leaves half an example.
Status ensure_example_database(const std::string& path);

}  // namespace tilelens::gui
