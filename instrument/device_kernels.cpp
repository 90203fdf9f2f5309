// cuBLAS and cuSOLVER calls for the kernels of numeric.hpp; see device_kernels.hpp.
#include "instrument/device_kernels.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <utility>

#include "instrument/cuda_status.hpp"

namespace tilelens::instrument {
namespace {

constexpr int kStatusSlots = 4096;

Status blas_status(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return Status::success();
  return make_error(std::string(what) + ": cuBLAS status " + std::to_string(static_cast<int>(status)));
}
Status solver_status(cusolverStatus_t status, const char* what) {
  if (status == CUSOLVER_STATUS_SUCCESS) return Status::success();
  return make_error(std::string(what) + ": cuSOLVER status " + std::to_string(static_cast<int>(status)));
}

}  // namespace

Result<DeviceKernels> DeviceKernels::create(void* stream, std::int64_t b, bool tf32) {
  DeviceKernels kernels;
  kernels.stream_ = stream;
  kernels.b_ = b;
  cublasHandle_t blas = nullptr;
  if (auto s = blas_status(cublasCreate(&blas), "cublasCreate"); !s) return s.error();
  kernels.blas_ = blas;
  if (auto s = blas_status(cublasSetStream(blas, static_cast<cudaStream_t>(stream)), "cublasSetStream"); !s) return s.error();
  if (tf32) {
    if (auto s = blas_status(cublasSetMathMode(blas, CUBLAS_TF32_TENSOR_OP_MATH), "cublasSetMathMode"); !s) return s.error();
  }
  cusolverDnHandle_t solver = nullptr;
  if (auto s = solver_status(cusolverDnCreate(&solver), "cusolverDnCreate"); !s) return s.error();
  kernels.solver_ = solver;
  if (auto s = solver_status(cusolverDnSetStream(solver, static_cast<cudaStream_t>(stream)), "cusolverDnSetStream"); !s) {
    return s.error();
  }
  // One workspace large enough for POTRF and GETRF on a b x b tile (queried with no matrix).
  const int n = static_cast<int>(b);
  int potrf = 0, getrf = 0;
  if (auto s = solver_status(cusolverDnSpotrf_bufferSize(solver, CUBLAS_FILL_MODE_LOWER, n, nullptr, n, &potrf), "potrf buffer");
      !s) {
    return s.error();
  }
  if (auto s = solver_status(cusolverDnSgetrf_bufferSize(solver, n, n, nullptr, n, &getrf), "getrf buffer"); !s) return s.error();
  kernels.workspace_floats_ = std::max(1, std::max(potrf, getrf));
  if (auto s = cuda_status(cudaMalloc(&kernels.workspace_, sizeof(float) * static_cast<std::size_t>(kernels.workspace_floats_)),
                           "workspace");
      !s) {
    return s.error();
  }
  if (auto s = cuda_status(cudaMalloc(&kernels.info_, sizeof(int) * kStatusSlots), "status words"); !s) return s.error();
  if (auto s = cuda_status(cudaMemsetAsync(kernels.info_, 0, sizeof(int) * kStatusSlots, static_cast<cudaStream_t>(stream)), "status");
      !s) {
    return s.error();
  }
  return kernels;
}

DeviceKernels::DeviceKernels(DeviceKernels&& other) noexcept
    : stream_(other.stream_), blas_(std::exchange(other.blas_, nullptr)), solver_(std::exchange(other.solver_, nullptr)),
      b_(other.b_), workspace_(std::exchange(other.workspace_, nullptr)), workspace_floats_(other.workspace_floats_),
      info_(std::exchange(other.info_, nullptr)), next_slot_(other.next_slot_) {}

DeviceKernels::~DeviceKernels() {
  if (blas_) cublasDestroy(static_cast<cublasHandle_t>(blas_));
  if (solver_) cusolverDnDestroy(static_cast<cusolverDnHandle_t>(solver_));
  if (workspace_) cudaFree(workspace_);
  if (info_) cudaFree(info_);
}

Status DeviceKernels::launch(const TaskKernel& k, const std::vector<float*>& data, float* output) {
  auto blas = static_cast<cublasHandle_t>(blas_);
  auto solver = static_cast<cusolverDnHandle_t>(solver_);
  const int b = static_cast<int>(b_);
  const float one = 1, minus_one = -1, zero = 0;
  const auto operand = [&](DataId d) { return d == kNoId ? nullptr : data[d]; };
  float* A = operand(k.a);
  float* B = operand(k.b);
  float* T = operand(k.target);
  const auto slot = [&]() -> Result<int*> {
    if (next_slot_ == kStatusSlots) {
      if (auto s = check_factorizations(); !s) return s.error();
    }
    return info_ + next_slot_++;
  };
  switch (k.op) {
    case Op::Product:
    case Op::Accumulate:
      return blas_status(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(k.m), static_cast<int>(k.n), static_cast<int>(k.k),
                                     &one, A, static_cast<int>(k.m), B, static_cast<int>(k.k), k.op == Op::Accumulate ? &one : &zero,
                                     output, static_cast<int>(k.m)),
                         "sgemm (product)");
    case Op::Potrf: {
      auto info = slot();
      if (!info) return info.error();
      return solver_status(cusolverDnSpotrf(solver, CUBLAS_FILL_MODE_LOWER, b, T, b, workspace_, workspace_floats_, *info), "spotrf");
    }
    case Op::TrsmRightLowerT:
      return blas_status(cublasStrsm(blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, b, b, &one, A, b, T, b),
                         "strsm (Cholesky panel)");
    case Op::Syrk:
      return blas_status(cublasSsyrk(blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, b, b, &minus_one, A, b, &one, T, b), "ssyrk");
    case Op::GemmNT:
      return blas_status(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, b, b, b, &minus_one, A, b, B, b, &one, T, b), "sgemm (Cholesky)");
    case Op::Getrf: {
      auto info = slot();
      if (!info) return info.error();
      // A null pivot array: cuSOLVER factors without pivoting.
      return solver_status(cusolverDnSgetrf(solver, b, b, T, b, workspace_, nullptr, *info), "sgetrf");
    }
    case Op::TrsmRightUpper:
      return blas_status(cublasStrsm(blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, b, b, &one, A, b, T, b),
                         "strsm (LU column panel)");
    case Op::TrsmLeftUnitLower:
      return blas_status(cublasStrsm(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, b, b, &one, A, b, T, b),
                         "strsm (LU row panel)");
    case Op::GemmNN:
      return blas_status(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, b, b, b, &minus_one, A, b, B, b, &one, T, b), "sgemm (LU)");
  }
  return make_error("unknown kernel");
}

Status DeviceKernels::check_factorizations() {
  auto stream = static_cast<cudaStream_t>(stream_);
  if (next_slot_ == 0) return cuda_status(cudaStreamSynchronize(stream), "stream");
  std::vector<int> words(static_cast<std::size_t>(next_slot_));
  if (auto s = cuda_status(cudaMemcpyAsync(words.data(), info_, sizeof(int) * words.size(), cudaMemcpyDeviceToHost, stream), "status copy");
      !s) {
    return s;
  }
  if (auto s = cuda_status(cudaStreamSynchronize(stream), "stream"); !s) return s;
  const int used = next_slot_;
  next_slot_ = 0;
  if (auto s = cuda_status(cudaMemsetAsync(info_, 0, sizeof(int) * kStatusSlots, stream), "status reset"); !s) return s;
  for (int i = 0; i < used; ++i) {
    if (words[static_cast<std::size_t>(i)] != 0) {
      return make_error("a factorization kernel reported status " + std::to_string(words[static_cast<std::size_t>(i)]) +
                        " (not positive definite, or a zero pivot without pivoting)");
    }
  }
  return Status::success();
}

Result<DeviceInfo> probe_device() {
  DeviceInfo info;
  const cudaError_t error = cudaGetDeviceCount(&info.count);
  if (error != cudaSuccess || info.count == 0) {
    return make_error(std::string("no CUDA device (") + (error == cudaSuccess ? "none found" : cudaGetErrorString(error)) + ")");
  }
  cudaDeviceProp properties{};
  if (auto s = cuda_status(cudaGetDeviceProperties(&properties, 0), "device properties"); !s) return s.error();
  info.name = properties.name;
  if (auto s = cuda_status(cudaMemGetInfo(&info.free_bytes, &info.total_bytes), "memory info"); !s) return s.error();
  return info;
}

}  // namespace tilelens::instrument
