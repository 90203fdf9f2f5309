// The CUDA module's one exported symbol: its table of entry points (cuda_module.hpp).
#include "instrument/cuda/cuda_executor.hpp"
#include "instrument/cuda_module.hpp"

extern "C" __attribute__((visibility("default"))) const tilelens::instrument::CudaModule* tilelens_cuda_module() {
  using namespace tilelens::instrument;
  static const CudaModule module{kCudaModuleVersion, kCudaModuleLayout, gpu_available, execute_on_gpus, measure_bare_on_gpu};
  return &module;
}
