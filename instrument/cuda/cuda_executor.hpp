// The CUDA module's side of executor.hpp: the same operations, run on the GPUs (internal to
// instrument/cuda; executor.cpp reaches them through the module's table).
#pragma once

#include "instrument/executor.hpp"

namespace tilelens::instrument {

Status gpu_available();
Result<ExecuteResult> execute_on_gpus(const Workload& workload, Scheduler& scheduler, EvictionPolicy& eviction,
                                      const ExecuteOptions& options);
Result<BareFigures> measure_bare_on_gpu(const Workload& workload, bool tf32, std::size_t copies, int device);

}  // namespace tilelens::instrument
