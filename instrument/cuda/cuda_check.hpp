// The one way the CUDA module checks a call to the CUDA runtime, cuBLAS, cuSOLVER or CUPTI:
// TILELENS_CUDA(call) is a Status that names the call, its file and line, and the library's own
// message; TILELENS_CUDA_TRY(call) returns that error from the enclosing function (which
// returns a Status or a Result). Internal to instrument/cuda (it includes CUDA's headers).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cusolverDn.h>

#include "util/result.hpp"

namespace tilelens::instrument {

Status cuda_check(cudaError_t status, const char* call, const char* file, int line);
Status cuda_check(cublasStatus_t status, const char* call, const char* file, int line);
Status cuda_check(cusolverStatus_t status, const char* call, const char* file, int line);
Status cuda_check(CUptiResult status, const char* call, const char* file, int line);

}  // namespace tilelens::instrument

#define TILELENS_CUDA(call) ::tilelens::instrument::cuda_check((call), #call, __FILE__, __LINE__)
#define TILELENS_CUDA_TRY(call)                                                \
  do {                                                                         \
    if (auto tilelens_cuda_status = TILELENS_CUDA(call); !tilelens_cuda_status) \
      return tilelens_cuda_status.error();                                     \
  } while (0)
