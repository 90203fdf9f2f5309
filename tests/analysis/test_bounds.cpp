// Lower bounds (DESIGN section 5): the formulas, and no replayed schedule below them on a
// grid of N and M for matmul2d and matmul3d, and on random DAGs under every scheduler.
#include <catch2/catch.hpp>
#include <cmath>
#include <span>
#include <vector>

#include "analysis/bounds.hpp"
#include "eviction/policy.hpp"
#include "helpers.hpp"
#include "util/rng.hpp"
#include "presets/platforms.hpp"
#include "schedulers/scheduler.hpp"

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

namespace {

// A random DAG: tasks of two kinds, each accessing 1 to 3 of `data` data in random modes (write
// only among them), with dependencies derived from the accesses as StarPU would, or (odd
// seeds) random edges from earlier to later tasks that ignore the accesses.
Workload random_dag(std::uint64_t seed, std::uint32_t tasks, std::uint32_t data) {
  Rng rng(seed);
  WorkloadBuilder builder("random-dag-" + std::to_string(seed));
  const KindId kinds[2] = {builder.kind("A"), builder.kind("B")};
  for (std::uint32_t d = 0; d < data; ++d) {
    builder.add_data({"d" + std::to_string(d), 1000 + 1000 * rng.below(3), 'A', static_cast<std::int32_t>(d), 0});
  }
  for (std::uint32_t t = 0; t < tasks; ++t) {
    std::vector<Access> accesses;
    const auto count = 1 + rng.below(3);
    for (std::uint64_t a = 0; a < count; ++a) {
      const auto d = static_cast<DataId>(rng.below(data));
      bool seen = false;
      for (const Access& access : accesses) seen |= access.data == d;
      if (seen) continue;
      const AccessMode modes[3] = {AccessMode::Read, AccessMode::Write, AccessMode::ReadWrite};
      accesses.push_back({d, modes[rng.below(3)]});
    }
    builder.add_task(kinds[rng.below(2)], accesses, 1e6 * static_cast<double>(1 + rng.below(4)), static_cast<std::int32_t>(t), 0, 0,
                     static_cast<std::int64_t>(rng.below(10)));
  }
  if (seed % 2 == 0) {
    builder.derive_data_dependencies();
  } else {
    for (TaskId after = 1; after < tasks; ++after) {
      for (int edge = 0; edge < 2; ++edge) {
        if (rng.below(3) == 0) builder.add_dependency(static_cast<TaskId>(rng.below(after)), after);
      }
    }
  }
  auto workload = std::move(builder).finish();
  REQUIRE(workload);
  return std::move(*workload);
}

}  // namespace

TEST_CASE("no schedule of any scheduler loads less than the compulsory bound, on random DAGs", "[bounds][random]") {
  // The smallest case of issue 17: a data whose first use writes it needs no load.
  {
    WorkloadBuilder builder("write-then-read");
    const KindId k = builder.kind("K");
    builder.add_data({"d", 1000, 'A', 0, 0});
    const Access write{0, AccessMode::Write}, read{0, AccessMode::Read};
    builder.add_task(k, std::span<const Access>(&write, 1), 1);
    builder.add_task(k, std::span<const Access>(&read, 1), 1);
    builder.derive_data_dependencies();
    auto w = std::move(builder).finish();
    REQUIRE(w);
    CHECK(reference_curves(*w, test::small_platform(4000)).lower_bound_bytes == 0);
  }
  std::size_t runs = 0, at_the_bound = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Workload w = random_dag(seed, 40, 12);
    for (const double memory : {4 * 3000.0, 1e9}) {  // tight, and room for every data at once
    for (std::uint32_t gpus : {1u, 2u}) {
      for (std::uint32_t cpus : {0u, 2u}) {
        Platform p = test::small_platform(memory, gpus);
        p.cpus = cpus;
        p.cpu_default_gflops = cpus ? 100 : 0;
        if (cpus) p.cpu_kind_gflops["B"] = 0;  // kind B runs on GPUs only: its reads stay compulsory
        const double bound = reference_curves(w, p).lower_bound_bytes;
        for (const auto& scheduler : scheduler_registry()) {
          if (scheduler.name == "fixed") continue;  // replays a schedule file (tests/schedulers/test_fixed_order.cpp)
          for (const auto& eviction : eviction_registry()) {
            auto made = make_scheduler(scheduler.name);
            auto policy = make_eviction(eviction.name);
            REQUIRE(made);
            REQUIRE(policy);
            ReplayOptions options;
            options.platform = p;
            auto summary = replay(w, *made->scheduler, *policy->policy, options, nullptr);
            if (!summary) continue;  // a pairing that does not apply (Belady without a known future, CPU-only schedulers)
            ++runs;
            INFO(w.name() << " " << scheduler.name << "/" << eviction.name << " on " << gpus << " GPUs and " << cpus << " CPUs");
            CHECK(summary->bytes_loaded >= bound);
            at_the_bound += summary->bytes_loaded == bound ? 1 : 0;
          }
        }
      }
    }
    }
  }
  CHECK(runs > 500);        // the grid ran, not only refused
  CHECK(at_the_bound > 0);  // and the bound is reached: it is not trivially low
}

TEST_CASE("the bus limit counts what the PCIe tree carries below the host link", "[bounds]") {
  Platform node = *find_platform_preset("v100x4-darts");
  // Two 22 GB/s switches of two 12 GB/s GPUs each, under a 100 GB/s host link: 44 GB/s.
  CHECK(node.host_throughput() == 44e9);
  const Workload w = test::generated("matmul2d:N=10");
  const ReferenceCurves curves = reference_curves(w, node);
  CHECK(curves.bus_limit_bytes == Approx(44e9 * curves.ideal_compute_ns * 1e-9));
  node.gpus = 3;  // a full switch and a half one: 22 + 12 GB/s
  CHECK(node.host_throughput() == 34e9);
  node.gpus_per_switch = 0;  // only the GPUs' own links: 3 x 12 GB/s
  node.switch_bandwidth = 0;
  CHECK(node.host_throughput() == 36e9);
  node.bus_bandwidth = 20e9;  // a host link below them all is the bottleneck again
  CHECK(node.host_throughput() == 20e9);
  Platform flat = *find_platform_preset("v100-fgcs");
  CHECK(flat.host_throughput() == flat.bus_bandwidth);
}
