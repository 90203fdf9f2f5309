// A CUDA module as an older build of tilelens would have left it: the right version number,
// records laid out differently. The loader must refuse it, not call it.
#include "instrument/cuda_module.hpp"

namespace {

using namespace tilelens;
using namespace tilelens::instrument;

Status never() { return make_error("the stale test module was called"); }
Result<ExecuteResult> never_execute(const Workload&, Scheduler&, EvictionPolicy&, const ExecuteOptions&) { return never().error(); }
Result<BareFigures> never_measure(const Workload&, bool, std::size_t, int) { return never().error(); }

}  // namespace

extern "C" __attribute__((visibility("default"))) const CudaModule* tilelens_cuda_module() {
  static const CudaModule module{kCudaModuleVersion, kCudaModuleLayout + 1, never, never_execute, never_measure};
  return &module;
}
