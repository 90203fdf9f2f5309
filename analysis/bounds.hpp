// I/O lower bounds and the reference curves of the papers' figures (DESIGN section 5,
// docs/bounds.md): the lower bound on bytes loaded, compulsory loads, the bus limit and the
// memory marks. All quantities are bytes.
#pragma once

#include <string>

#include "model/model.hpp"

namespace tilelens {

// fgcs 5.2: max(2I, floor(I^2/M^2) * M + min(M, 2I)), I = size of one input matrix.
double matmul2d_lower_bound(double input_matrix_bytes, double memory_bytes);
// fgcs 5.3: 2M * floor(P * S / (M * sqrt(M / S))), P = number of tile products, S = tile
// size; the caller takes the max with the compulsory loads.
double matmul3d_lower_bound(double tile_products, double tile_bytes, double memory_bytes);
// Leading terms in tiles with m tiles of memory: Cholesky N^3 / (3 sqrt(2) sqrt(m)) (Beaumont
// et al., SPAA 2022); LU 2 N^3 / (3 sqrt(m)) (Kwasniewski et al., PPoPP 2021).
double cholesky_lower_bound_tiles(double N, double memory_tiles);
double lu_lower_bound_tiles(double N, double memory_tiles);

// The bytes every schedule of `workload` on `platform` loads at least once: each data read
// by a task that only a GPU can run (CPU workers read the host copy), unless a task writing
// it without reading it may come first (its data is then made on a GPU, without a load): a
// write-only access counts as preceded when a predecessor of its task reads the data (or
// writes it and is itself preceded); on a platform whose CPUs compute, any write-only access.
double compulsory_load_bytes(const Workload& workload, const Platform& platform);

struct ReferenceCurves {
  double lower_bound_bytes = 0;  // the largest valid bound we know for this workload
  std::string bound;             // which formula gave it ("matmul2d (fgcs 5.2)", "compulsory", ...)
  bool asymptotic = false;       // true when only a leading term is known (cholesky, lu)
  double compulsory_bytes = 0;   // compulsory_load_bytes: every input a GPU must read, loaded once
  double bus_limit_bytes = 0;    // B x total flops / (K x peak): what the bus moves in the ideal compute time
  double ideal_compute_ns = 0;   // total flops / (K x peak)
  // Memory marks (0 when the workload has no such matrix): M holds one input matrix (red),
  // both input matrices (orange), the whole working set (green).
  double one_input_bytes = 0;
  double both_inputs_bytes = 0;
  double working_set_bytes = 0;
};

// For K GPUs the bounds use the aggregated memory K x M: any K-GPU schedule is also a
// schedule for one memory of K x M with no more loads, so the bound stays valid.
ReferenceCurves reference_curves(const Workload& workload, const Platform& platform);

}  // namespace tilelens
