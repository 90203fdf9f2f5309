// A tilelens workload on a tilelens platform, as StarPU 1.3.10 in SimGrid mode runs it: the
// oracle of the fidelity comparison (docs/fidelity.md). One folder holds everything the
// reference program (tests/starpu/simgrid_dag.c) and StarPU need:
//   workload   the workload file (docs/workload-format.md);
//   rates      each task kind's GPU rate in GFlop/s, "KIND GFLOPS" per line: a task lasts
//              FLOPS / rate, StarPU's performance model gives exactly that;
//   env        the environment of a run, KEY=VALUE per line (STARPU_HOME is the folder);
//   .starpu/sampling/bus/tilelens.*   the simulated machine: the SimGrid platform
//              (platform.v4.xml), the bandwidth and latency matrices StarPU's schedulers
//              predict with, and the config and affinity files StarPU writes beside them.
// Both simulators then agree on kernel times, bandwidths, latencies, memory sizes and links:
// host transfers share a host link per direction (both directions one link when the platform
// is half-duplex), each GPU has its own link when the platform has a PCIe tree, and GPU links
// are direct peer links. What cannot be said to StarPU is refused, naming the platform field.
#pragma once

#include <filesystem>

#include "model/model.hpp"
#include "util/result.hpp"

namespace tilelens {

// The most GPUs StarPU 1.3.10 simulates (STARPU_MAXCUDADEVS of its default build).
inline constexpr std::uint32_t kStarpuMaxCudaDevices = 4;
inline constexpr const char* kStarpuSimgridHost = "tilelens";  // STARPU_HOSTNAME

Status write_starpu_simgrid(const Workload& workload, const Platform& platform, const std::filesystem::path& folder);

}  // namespace tilelens
