// Lower bounds and reference curves; see bounds.hpp and docs/bounds.md.
#include "analysis/bounds.hpp"

#include <algorithm>
#include <cmath>

namespace tilelens {

double matmul2d_lower_bound(double I, double M) {
  return std::max(2 * I, std::floor(I * I / (M * M)) * M + std::min(M, 2 * I));
}

double matmul3d_lower_bound(double products, double S, double M) {
  return 2 * M * std::floor(products * S / (M * std::sqrt(M / S)));
}

double cholesky_lower_bound_tiles(double N, double m) { return N * N * N / (3 * std::sqrt(2.0) * std::sqrt(m)); }

double lu_lower_bound_tiles(double N, double m) { return 2 * N * N * N / (3 * std::sqrt(m)); }

ReferenceCurves reference_curves(const Workload& workload, const Platform& platform) {
  ReferenceCurves curves;
  const double M = platform.memory_bytes * platform.memory_nodes();
  const GeneratorInfo& g = workload.generator();
  curves.compulsory_bytes = static_cast<double>(workload.working_set_bytes());
  curves.working_set_bytes = curves.compulsory_bytes;
  curves.lower_bound_bytes = curves.compulsory_bytes;
  curves.bound = "compulsory (each input loaded once)";
  curves.ideal_compute_ns = workload.total_flops() / (platform.total_peak_gflops());
  curves.bus_limit_bytes = platform.bus_bandwidth * curves.ideal_compute_ns * 1e-9;

  const double N = static_cast<double>(g.N);
  const double S = static_cast<double>(g.b) * static_cast<double>(g.b) * static_cast<double>(g.elem);
  if (g.name == "matmul2d" || g.name == "matmul2d-random-order") {
    const double I = N * static_cast<double>(g.n) * S;
    curves.one_input_bytes = I;
    curves.both_inputs_bytes = 2 * I;
    const double bound = matmul2d_lower_bound(I, M);
    if (bound > curves.lower_bound_bytes) {
      curves.lower_bound_bytes = bound;
      curves.bound = "matmul2d (fgcs 5.2)";
    }
  } else if (g.name == "matmul2d-random-pairs" || g.name == "matmul2d-sparse") {
    const double I = N * static_cast<double>(g.n) * S;  // marks only: not every pair is computed
    curves.one_input_bytes = I;
    curves.both_inputs_bytes = 2 * I;
  } else if (g.name == "matmul3d") {
    const double inner = static_cast<double>(g.n);
    curves.one_input_bytes = N * inner * S;
    curves.both_inputs_bytes = 2 * N * inner * S;
    const double bound = matmul3d_lower_bound(N * N * inner, S, M);
    if (bound > curves.lower_bound_bytes) {
      curves.lower_bound_bytes = bound;
      curves.bound = "matmul3d (fgcs 5.3)";
    }
  } else if (g.name == "cholesky" || g.name == "cholesky-tasks") {
    const double tiles = cholesky_lower_bound_tiles(N, M / S) * S;
    if (tiles > curves.lower_bound_bytes) {
      curves.asymptotic = true;
      curves.lower_bound_bytes = tiles;
      curves.bound = "cholesky leading term (Beaumont et al. 2022)";
    }
  } else if (g.name == "lu") {
    const double tiles = lu_lower_bound_tiles(N, M / S) * S;
    if (tiles > curves.lower_bound_bytes) {
      curves.asymptotic = true;
      curves.lower_bound_bytes = tiles;
      curves.bound = "lu leading term (Kwasniewski et al. 2021)";
    }
  }
  return curves;
}

}  // namespace tilelens
