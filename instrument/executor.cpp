// The executor's entry points in every tilelens: they load the CUDA module on first use
// (dlopen) and call it, or say why it cannot be loaded. See executor.hpp and cuda_module.hpp.
#include "instrument/executor.hpp"

#include <string>

#include "instrument/cuda_module.hpp"
#include "util/loadable_module.hpp"

namespace tilelens::instrument {
namespace {

Result<const CudaModule*> load() {
  ModuleSearch search{.file = kCudaModuleFile,
                      .env_variable = "TILELENS_CUDA_MODULE",
#ifdef TILELENS_CUDA_MODULE_BUILD_DIR
                      .build_folder = TILELENS_CUDA_MODULE_BUILD_DIR,
#endif
                      .what = "CUDA module",
                      .needs = "the CUDA 13 runtime, cuBLAS, cuSOLVER and CUPTI must be installed",
                      .absent_because = "it was built without the CUDA toolkit",
                      .entry = kCudaModuleEntry};
  return load_module_table<CudaModule>(search, kCudaModuleVersion, kCudaModuleLayout);
}

// Loaded once per process; the outcome, good or bad, is kept.
const Result<const CudaModule*>& module() {
  static const Result<const CudaModule*> loaded = load();
  return loaded;
}

}  // namespace

Status cuda_available() {
  const auto& loaded = module();
  if (!loaded) return loaded.error();
  return (*loaded)->available();
}

Platform executed_platform(const ExecuteOptions& options) {
  Platform platform = options.platform;
  if (options.logical_gpus && platform.gpus > 1 && platform.gpu_link_bandwidth <= 0) platform.gpu_link_bandwidth = kLogicalGpuLinkBandwidth;
  return platform;
}

Result<ExecuteResult> execute(const Workload& workload, Scheduler& scheduler, EvictionPolicy& eviction, const ExecuteOptions& options) {
  const auto& loaded = module();
  if (!loaded) return loaded.error();
  ExecuteOptions executed = options;
  executed.platform = executed_platform(options);
  return (*loaded)->execute(workload, scheduler, eviction, executed);
}

Result<BareFigures> measure_bare(const Workload& workload, bool tf32, std::size_t copies, int device) {
  const auto& loaded = module();
  if (!loaded) return loaded.error();
  return (*loaded)->measure_bare(workload, tf32, copies, device);
}

}  // namespace tilelens::instrument
