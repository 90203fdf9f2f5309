// Lower bounds (DESIGN section 5): the formulas, and no replayed schedule below them on a
// grid of N and M for matmul2d and matmul3d.
#include <catch2/catch.hpp>
#include <cmath>

#include "helpers.hpp"
#include "analysis/bounds.hpp"
#include "presets/platforms.hpp"

using namespace tilelens;

TEST_CASE("the bound formulas as printed in the papers", "[bounds]") {
  // matmul2d: max(2I, floor(I^2/M^2) M + min(M, 2I))
  CHECK(matmul2d_lower_bound(100, 1000) == Approx(200));    // both fit: compulsory
  CHECK(matmul2d_lower_bound(300, 100) == Approx(1000));    // floor(9) * 100 + 100
  CHECK(matmul2d_lower_bound(250, 100) == Approx(700));     // floor(6.25) * 100 + 100 = 700 > 500
  // matmul3d: 2M floor(P S / (M sqrt(M/S)))
  CHECK(matmul3d_lower_bound(1000, 1, 25) == Approx(2 * 25 * std::floor(1000.0 / (25 * 5))));
  CHECK(cholesky_lower_bound_tiles(90, 100) == Approx(90.0 * 90 * 90 / (3 * std::sqrt(2.0) * 10)));
  CHECK(lu_lower_bound_tiles(72, 64) == Approx(2 * 72.0 * 72 * 72 / (3 * 8)));
}

TEST_CASE("reference curves: bus limit and memory marks", "[bounds]") {
  const Workload w = test::generated("matmul2d:N=15");  // fgcs Fig. 6: working set 422 MB (MiB)
  Platform p = *find_platform_preset("v100-fgcs");
  const auto curves = reference_curves(w, p);
  CHECK(curves.working_set_bytes / 1048576.0 == Approx(421.875));
  CHECK(curves.one_input_bytes * 2 == Approx(curves.both_inputs_bytes));
  CHECK(curves.ideal_compute_ns == Approx(w.total_flops() / 13393.0));
  CHECK(curves.bus_limit_bytes == Approx(12e9 * curves.ideal_compute_ns * 1e-9));
  p.gpus = 2;
  CHECK(reference_curves(w, p).bus_limit_bytes == Approx(curves.bus_limit_bytes / 2));
}

TEST_CASE("no schedule loads less than its lower bound (matmul2d and matmul3d grids)", "[bounds]") {
  int above_compulsory = 0;
  for (int N : {4, 6, 9, 12, 16}) {
    const Workload w = test::generated("matmul2d:N=" + std::to_string(N) + ",b=16");
    for (int items : {2, 3, 5, 8, 13, 40}) {
      const Platform p = test::small_platform(items * static_cast<double>(w.largest_data_bytes()));
      const double bound = reference_curves(w, p).lower_bound_bytes;
      above_compulsory += bound > static_cast<double>(w.working_set_bytes()) ? 1 : 0;
      for (const std::string scheduler : {"eager", "rcm", "mst", "random:seed=3"}) {
        for (const std::string eviction : {"lru", "belady"}) {
          for (std::uint32_t depth : {1u, 4u}) {
            INFO("matmul2d N=" << N << " M=" << items << " " << scheduler << " " << eviction << " depth " << depth);
            CHECK(test::run_replay(w, scheduler, eviction, p, depth).summary.bytes_loaded >= bound);
          }
        }
      }
    }
  }
  for (int N : {3, 4, 6, 8}) {
    const Workload w = test::generated("matmul3d:N=" + std::to_string(N) + ",b=16");
    for (int items : {3, 4, 6, 9, 16, 30}) {
      const Platform p = test::small_platform(items * static_cast<double>(w.largest_data_bytes()));
      const double bound = reference_curves(w, p).lower_bound_bytes;
      above_compulsory += bound > static_cast<double>(w.working_set_bytes()) ? 1 : 0;
      for (const std::string scheduler : {"eager", "rcm", "mst"}) {
        for (const std::string eviction : {"lru", "belady"}) {
          INFO("matmul3d N=" << N << " M=" << items << " " << scheduler << " " << eviction);
          CHECK(test::run_replay(w, scheduler, eviction, p, 4).summary.bytes_loaded >= bound);
        }
      }
    }
  }
  CHECK(above_compulsory > 5);  // the grid reaches where the bound is more than compulsory
}
