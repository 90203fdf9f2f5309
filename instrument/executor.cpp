// The executor's entry points in every tilelens: they load the CUDA module on first use
// (dlopen) and call it, or say why it cannot be loaded. See executor.hpp and cuda_module.hpp.
#include "instrument/executor.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "instrument/cuda_module.hpp"

namespace tilelens::instrument {
namespace {

// Where the module may be, in the order tried: $TILELENS_CUDA_MODULE, beside the running
// program, in ../lib/tilelens from it (an installed layout), in the build folder it was built
// in, then the dynamic linker's own search path.
std::vector<std::string> module_candidates() {
  std::vector<std::string> candidates;
  if (const char* path = std::getenv("TILELENS_CUDA_MODULE"); path && *path) candidates.emplace_back(path);
  char self[PATH_MAX] = {};
  if (const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1); length > 0) {
    const std::filesystem::path folder = std::filesystem::path(std::string(self, static_cast<std::size_t>(length))).parent_path();
    candidates.push_back((folder / kCudaModuleFile).string());
    candidates.push_back((folder / ".." / "lib" / "tilelens" / kCudaModuleFile).string());
  }
#ifdef TILELENS_CUDA_MODULE_BUILD_DIR
  candidates.push_back(std::string(TILELENS_CUDA_MODULE_BUILD_DIR) + "/" + kCudaModuleFile);
#endif
  candidates.emplace_back(kCudaModuleFile);
  return candidates;
}

Result<const CudaModule*> load() {
  std::string tried;
  for (const std::string& candidate : module_candidates()) {
    const bool by_path = candidate.find('/') != std::string::npos;
    std::error_code ec;
    if (by_path && !std::filesystem::exists(candidate, ec)) {
      tried += (tried.empty() ? "" : ", ") + candidate;
      continue;
    }
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      if (!by_path) {
        // Absent from the library path, or there but missing a CUDA library: dlerror says which.
        tried += (tried.empty() ? "" : ", ") + candidate + " on the library path (" + (why ? why : "not found") + ")";
        continue;
      }
      // The module is there but cannot load: usually a CUDA library it needs is missing.
      return make_error("the CUDA module " + candidate + " cannot be loaded: " + (why ? why : "unknown error") +
                        " (the CUDA 13 runtime, cuBLAS, cuSOLVER and CUPTI must be installed)");
    }
    const auto entry = reinterpret_cast<TilelensCudaModuleEntry>(dlsym(handle, kCudaModuleEntry));
    const CudaModule* module = entry ? entry() : nullptr;
    if (!module) return make_error(candidate + " is not a tilelens CUDA module (no " + kCudaModuleEntry + ")");
    if (module->version != kCudaModuleVersion || module->layout != kCudaModuleLayout) {
      const std::string why = module->version != kCudaModuleVersion
                                  ? "module version " + std::to_string(module->version) + ", this tilelens expects " +
                                        std::to_string(kCudaModuleVersion)
                                  : "its records and workloads are laid out differently";
      return make_error("the CUDA module " + candidate + " comes from another build of tilelens (" + why +
                        "): rebuild it, or point TILELENS_CUDA_MODULE at the right one");
    }
    return module;
  }
  return make_error("this tilelens has no CUDA module (" + std::string(kCudaModuleFile) + " is not in " + tried +
                    "): it was built without the CUDA toolkit, or the module was moved; set TILELENS_CUDA_MODULE to its path");
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
