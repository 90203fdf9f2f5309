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
// are direct peer links. StarPU-SimGrid moves one transfer at a time per pair of memory nodes,
// first come first served (src/core/simgrid.c): a platform of one copy engine per direction
// (`--copy-engines 1`) is the same on the host's links, a platform of none (fluid sharing) is
// exported too but the two then differ in order. What cannot be said to StarPU is refused,
// naming the platform field.
#pragma once

#include <filesystem>

#include "model/model.hpp"
#include "util/result.hpp"

namespace tilelens {

// The most GPUs StarPU 1.3.10 simulates (STARPU_MAXCUDADEVS of its default build).
inline constexpr std::uint32_t kStarpuMaxCudaDevices = 4;
inline constexpr const char* kStarpuSimgridHost = "tilelens";  // STARPU_HOSTNAME

// StarPU's CUDA pipeline holds at most this many tasks per worker (STARPU_MAX_PIPELINE).
inline constexpr std::uint32_t kStarpuMaxPipeline = 4;

// `buffer_depth` is the replay's task buffer: StarPU's CUDA pipeline (STARPU_CUDA_PIPELINE), the
// tasks a GPU worker holds, the running one included (StarPU's default, 2, is a depth of 2).
Status write_starpu_simgrid(const Workload& workload, const Platform& platform, std::uint32_t buffer_depth,
                            const std::filesystem::path& folder);

}  // namespace tilelens
