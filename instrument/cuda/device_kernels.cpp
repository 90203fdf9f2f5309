// cuBLAS and cuSOLVER calls for the kernels of numeric.hpp; see device_kernels.hpp.
#include "instrument/cuda/device_kernels.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <utility>

#include "instrument/cuda/cuda_check.hpp"

namespace tilelens::instrument {
namespace {

constexpr int kStatusSlots = 4096;

}  // namespace

Result<DeviceKernels> DeviceKernels::create(void* stream, std::int64_t b, bool tf32) {
  DeviceKernels kernels;
  kernels.stream_ = stream;
  kernels.b_ = b;
  cublasHandle_t blas = nullptr;
  TILELENS_CUDA_TRY(cublasCreate(&blas));
  kernels.blas_ = blas;
  TILELENS_CUDA_TRY(cublasSetStream(blas, static_cast<cudaStream_t>(stream)));
  if (tf32) {
    TILELENS_CUDA_TRY(cublasSetMathMode(blas, CUBLAS_TF32_TENSOR_OP_MATH));
  }
  cusolverDnHandle_t solver = nullptr;
  TILELENS_CUDA_TRY(cusolverDnCreate(&solver));
  kernels.solver_ = solver;
  TILELENS_CUDA_TRY(cusolverDnSetStream(solver, static_cast<cudaStream_t>(stream)));
  // One workspace large enough for POTRF and GETRF on a b x b tile (queried with no matrix).
  const int n = static_cast<int>(b);
  int potrf = 0, getrf = 0;
  TILELENS_CUDA_TRY(cusolverDnSpotrf_bufferSize(solver, CUBLAS_FILL_MODE_LOWER, n, nullptr, n, &potrf));
  TILELENS_CUDA_TRY(cusolverDnSgetrf_bufferSize(solver, n, n, nullptr, n, &getrf));
  kernels.workspace_floats_ = std::max(1, std::max(potrf, getrf));
  TILELENS_CUDA_TRY(cudaMalloc(&kernels.workspace_, sizeof(float) * static_cast<std::size_t>(kernels.workspace_floats_)));
  TILELENS_CUDA_TRY(cudaMalloc(&kernels.info_, sizeof(int) * kStatusSlots));
  TILELENS_CUDA_TRY(cudaMemsetAsync(kernels.info_, 0, sizeof(int) * kStatusSlots, static_cast<cudaStream_t>(stream)));
  return kernels;
}

DeviceKernels::DeviceKernels(DeviceKernels&& other) noexcept
    : stream_(other.stream_), blas_(std::exchange(other.blas_, nullptr)), solver_(std::exchange(other.solver_, nullptr)),
      b_(other.b_), workspace_(std::exchange(other.workspace_, nullptr)), workspace_floats_(other.workspace_floats_),
      info_(std::exchange(other.info_, nullptr)), next_slot_(other.next_slot_) {}

// A destructor cannot report: a failure here is one the run already met and reported.
DeviceKernels::~DeviceKernels() {
  if (blas_) (void)TILELENS_CUDA(cublasDestroy(static_cast<cublasHandle_t>(blas_)));
  if (solver_) (void)TILELENS_CUDA(cusolverDnDestroy(static_cast<cusolverDnHandle_t>(solver_)));
  if (workspace_) (void)TILELENS_CUDA(cudaFree(workspace_));
  if (info_) (void)TILELENS_CUDA(cudaFree(info_));
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
      return TILELENS_CUDA(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(k.m), static_cast<int>(k.n), static_cast<int>(k.k),
                                     &one, A, static_cast<int>(k.m), B, static_cast<int>(k.k), k.op == Op::Accumulate ? &one : &zero,
                                     output, static_cast<int>(k.m)));
    case Op::Potrf: {
      auto info = slot();
      if (!info) return info.error();
      return TILELENS_CUDA(cusolverDnSpotrf(solver, CUBLAS_FILL_MODE_LOWER, b, T, b, workspace_, workspace_floats_, *info));
    }
    case Op::TrsmRightLowerT:
      return TILELENS_CUDA(cublasStrsm(blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, b, b, &one, A, b, T, b));
    case Op::Syrk:
      return TILELENS_CUDA(cublasSsyrk(blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, b, b, &minus_one, A, b, &one, T, b));
    case Op::GemmNT:
      return TILELENS_CUDA(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, b, b, b, &minus_one, A, b, B, b, &one, T, b));
    case Op::Getrf: {
      auto info = slot();
      if (!info) return info.error();
      // A null pivot array: cuSOLVER factors without pivoting.
      return TILELENS_CUDA(cusolverDnSgetrf(solver, b, b, T, b, workspace_, nullptr, *info));
    }
    case Op::TrsmRightUpper:
      return TILELENS_CUDA(cublasStrsm(blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, b, b, &one, A, b, T, b));
    case Op::TrsmLeftUnitLower:
      return TILELENS_CUDA(cublasStrsm(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, b, b, &one, A, b, T, b));
    case Op::GemmNN:
      return TILELENS_CUDA(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, b, b, b, &minus_one, A, b, B, b, &one, T, b));
    case Op::Fill:
    case Op::Wait:
      break;  // cuda_runs refuses such plans before a launch
  }
  return make_error(std::string("no device call for a ") + to_string(k.op) + " kernel in this build");
}

Status DeviceKernels::check_factorizations() {
  auto stream = static_cast<cudaStream_t>(stream_);
  if (next_slot_ == 0) return TILELENS_CUDA(cudaStreamSynchronize(stream));
  std::vector<int> words(static_cast<std::size_t>(next_slot_));
  TILELENS_CUDA_TRY(cudaMemcpyAsync(words.data(), info_, sizeof(int) * words.size(), cudaMemcpyDeviceToHost, stream));
  TILELENS_CUDA_TRY(cudaStreamSynchronize(stream));
  const int used = next_slot_;
  next_slot_ = 0;
  TILELENS_CUDA_TRY(cudaMemsetAsync(info_, 0, sizeof(int) * kStatusSlots, stream));
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
  const Status counted = TILELENS_CUDA(cudaGetDeviceCount(&info.count));
  if (!counted || info.count == 0) return make_error("no CUDA device (" + (counted ? std::string("none found") : counted.error().message) + ")");
  cudaDeviceProp properties{};
  TILELENS_CUDA_TRY(cudaGetDeviceProperties(&properties, 0));
  info.name = properties.name;
  TILELENS_CUDA_TRY(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
}

}  // namespace tilelens::instrument
