// The CUDA check's messages; see cuda_check.hpp.
#include "instrument/cuda/cuda_check.hpp"

#include <string>

namespace tilelens::instrument {
namespace {

Status failed(const char* call, const char* file, int line, const std::string& message) {
  std::string where = file;
  if (const auto slash = where.rfind("instrument/"); slash != std::string::npos) where = where.substr(slash);
  return make_error(message + " (" + call + " at " + where + ":" + std::to_string(line) + ")");
}

}  // namespace

Status cuda_check(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return Status::success();
  return failed(call, file, line, std::string("CUDA: ") + cudaGetErrorString(status));
}

Status cuda_check(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return Status::success();
  return failed(call, file, line, std::string("cuBLAS: ") + cublasGetStatusString(status));
}

Status cuda_check(cusolverStatus_t status, const char* call, const char* file, int line) {
  if (status == CUSOLVER_STATUS_SUCCESS) return Status::success();
  return failed(call, file, line, "cuSOLVER: status " + std::to_string(static_cast<int>(status)));
}

Status cuda_check(CUptiResult status, const char* call, const char* file, int line) {
  if (status == CUPTI_SUCCESS) return Status::success();
  const char* text = nullptr;
  cuptiGetResultString(status, &text);
  return failed(call, file, line, std::string("CUPTI: ") + (text ? text : "error " + std::to_string(static_cast<int>(status))));
}

}  // namespace tilelens::instrument
