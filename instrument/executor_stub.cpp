// The executor in a build without the CUDA toolkit: every entry point says so.
#include "instrument/executor.hpp"

namespace tilelens::instrument {

Status cuda_available() { return make_error("this tilelens was built without the CUDA toolkit"); }

Result<ExecuteResult> execute(const Workload&, Scheduler&, EvictionPolicy&, const ExecuteOptions&) {
  return cuda_available().error();
}

Result<BareFigures> measure_bare(const Workload&, bool, std::size_t, int) { return cuda_available().error(); }

}  // namespace tilelens::instrument
