// The CUDA module's interface: libtilelens_cuda.so holds the executor and every CUDA library
// it needs (runtime, cuBLAS, cuSOLVER, CUPTI), and `tilelens execute` and `bench gpu` load it
// at run time (module_loader in executor.cpp), so that no other command loads CUDA.
// The module exports one C function, kCudaModuleEntry, returning this table.
#pragma once

#include <cstdint>

#include "instrument/executor.hpp"

namespace tilelens::instrument {

// Bumped whenever this table or the types it passes change: a module of another version is
// refused with a clear error instead of being called.
inline constexpr std::uint32_t kCudaModuleVersion = 1;
inline constexpr const char* kCudaModuleEntry = "tilelens_cuda_module";
inline constexpr const char* kCudaModuleFile = "libtilelens_cuda.so";

struct CudaModule {
  std::uint32_t version;
  std::uint32_t options_size, result_size;  // sizeof(ExecuteOptions), sizeof(ExecuteResult) in the module's build
  Status (*available)();
  Result<ExecuteResult> (*execute)(const Workload&, Scheduler&, EvictionPolicy&, const ExecuteOptions&);
  Result<BareFigures> (*measure_bare)(const Workload&, bool tf32, std::size_t copies, int device);
};

}  // namespace tilelens::instrument

extern "C" {
using TilelensCudaModuleEntry = const tilelens::instrument::CudaModule* (*)();
}
