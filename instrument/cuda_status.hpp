// A CUDA runtime error as a tilelens Status, naming what failed. Internal to the CUDA side of
// instrument/ (it includes the CUDA runtime's header).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "model/result.hpp"

namespace tilelens::instrument {

inline Status cuda_status(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return Status::success();
  return make_error(std::string(what) + ": " + cudaGetErrorString(error));
}

}  // namespace tilelens::instrument
