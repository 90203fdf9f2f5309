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

// The wait kernel: spins until the GPU's global nanosecond timer has advanced by its argument.
// PTX for sm_75 and later, compiled by the driver when first loaded (ptxas accepts it).
constexpr const char* kWaitPtx = R"(.version 7.0
.target sm_75
.address_size 64

.visible .entry tilelens_wait(.param .u64 duration_ns)
{
  .reg .u64 %rd<4>;
  .reg .pred %p;
  ld.param.u64 %rd0, [duration_ns];
  mov.u64 %rd1, %globaltimer;
  add.u64 %rd2, %rd1, %rd0;
SPIN:
  mov.u64 %rd3, %globaltimer;
  setp.lt.u64 %p, %rd3, %rd2;
  @%p bra SPIN;
  ret;
}
)";

// cuBLAS and cuSOLVER by element type, so that one body of calls serves fp32 and fp64.
template <class T>
struct Calls;
template <>
struct Calls<float> {
  static constexpr auto gemm = cublasSgemm;
  static constexpr auto trsm = cublasStrsm;
  static constexpr auto syrk = cublasSsyrk;
  static constexpr auto potrf = cusolverDnSpotrf;
  static constexpr auto getrf = cusolverDnSgetrf;
  static constexpr auto potrf_size = cusolverDnSpotrf_bufferSize;
  static constexpr auto getrf_size = cusolverDnSgetrf_bufferSize;
};
template <>
struct Calls<double> {
  static constexpr auto gemm = cublasDgemm;
  static constexpr auto trsm = cublasDtrsm;
  static constexpr auto syrk = cublasDsyrk;
  static constexpr auto potrf = cusolverDnDpotrf;
  static constexpr auto getrf = cusolverDnDgetrf;
  static constexpr auto potrf_size = cusolverDnDpotrf_bufferSize;
  static constexpr auto getrf_size = cusolverDnDgetrf_bufferSize;
};

template <class T>
Result<int> workspace_elements(cusolverDnHandle_t solver, int n) {
  int potrf = 0, getrf = 0;
  TILELENS_CUDA_TRY(Calls<T>::potrf_size(solver, CUBLAS_FILL_MODE_LOWER, n, nullptr, n, &potrf));
  TILELENS_CUDA_TRY(Calls<T>::getrf_size(solver, n, n, nullptr, n, &getrf));
  return std::max(1, std::max(potrf, getrf));
}

// One task's call in T. `info` gives a status word's device address for the factorizations.
template <class T, class Info>
Status call(const TaskKernel& k, cublasHandle_t blas, cusolverDnHandle_t solver, int b, const std::vector<void*>& data, void* output_tile,
            T* workspace, int workspace_size, Info&& info) {
  const T one = 1, minus_one = -1, zero = 0;
  const auto operand = [&](DataId d) { return d == kNoId ? nullptr : static_cast<T*>(data[d]); };
  T* A = operand(k.a);
  T* B = operand(k.b);
  T* X = operand(k.target);
  T* output = static_cast<T*>(output_tile);
  switch (k.op) {
    case Op::Product:
    case Op::Accumulate:
      return TILELENS_CUDA(Calls<T>::gemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(k.m), static_cast<int>(k.n), static_cast<int>(k.k),
                                          &one, A, static_cast<int>(k.m), B, static_cast<int>(k.k), k.op == Op::Accumulate ? &one : &zero,
                                          output, static_cast<int>(k.m)));
    case Op::Potrf: {
      auto word = info();
      if (!word) return word.error();
      return TILELENS_CUDA(Calls<T>::potrf(solver, CUBLAS_FILL_MODE_LOWER, b, X, b, workspace, workspace_size, *word));
    }
    case Op::TrsmRightLowerT:
      return TILELENS_CUDA(Calls<T>::trsm(blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, b, b, &one, A, b, X, b));
    case Op::Syrk:
      return TILELENS_CUDA(Calls<T>::syrk(blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, b, b, &minus_one, A, b, &one, X, b));
    case Op::GemmNT:
      return TILELENS_CUDA(Calls<T>::gemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, b, b, b, &minus_one, A, b, B, b, &one, X, b));
    case Op::Getrf: {
      auto word = info();
      if (!word) return word.error();
      // A null pivot array: cuSOLVER factors without pivoting.
      return TILELENS_CUDA(Calls<T>::getrf(solver, b, b, X, b, workspace, nullptr, *word));
    }
    case Op::TrsmRightUpper:
      return TILELENS_CUDA(Calls<T>::trsm(blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, b, b, &one, A, b, X, b));
    case Op::TrsmLeftUnitLower:
      return TILELENS_CUDA(Calls<T>::trsm(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, b, b, &one, A, b, X, b));
    case Op::GemmNN:
      return TILELENS_CUDA(Calls<T>::gemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, b, b, b, &minus_one, A, b, B, b, &one, X, b));
    case Op::Fill:
    case Op::Wait:
      break;  // not BLAS calls: DeviceKernels::launch queues them
  }
  return make_error(std::string("no BLAS call for a ") + to_string(k.op) + " kernel");
}

}  // namespace

Result<DeviceKernels> DeviceKernels::create(void* stream, std::int64_t b, Precision precision, bool tf32) {
  DeviceKernels kernels;
  kernels.stream_ = stream;
  kernels.b_ = b;
  kernels.precision_ = precision;
  cublasHandle_t blas = nullptr;
  TILELENS_CUDA_TRY(cublasCreate(&blas));
  kernels.blas_ = blas;
  TILELENS_CUDA_TRY(cublasSetStream(blas, static_cast<cudaStream_t>(stream)));
  if (tf32 && precision == Precision::Single) {
    TILELENS_CUDA_TRY(cublasSetMathMode(blas, CUBLAS_TF32_TENSOR_OP_MATH));
  }
  cusolverDnHandle_t solver = nullptr;
  TILELENS_CUDA_TRY(cusolverDnCreate(&solver));
  kernels.solver_ = solver;
  TILELENS_CUDA_TRY(cusolverDnSetStream(solver, static_cast<cudaStream_t>(stream)));
  // One workspace large enough for POTRF and GETRF on a b x b tile (queried with no matrix).
  const int n = static_cast<int>(std::max<std::int64_t>(1, b));
  auto elements = precision == Precision::Double ? workspace_elements<double>(solver, n) : workspace_elements<float>(solver, n);
  if (!elements) return elements.error();
  kernels.workspace_elements_ = *elements;
  TILELENS_CUDA_TRY(cudaMalloc(&kernels.workspace_, element_size(precision) * static_cast<std::size_t>(kernels.workspace_elements_)));
  TILELENS_CUDA_TRY(cudaMalloc(&kernels.info_, sizeof(int) * kStatusSlots));
  TILELENS_CUDA_TRY(cudaMemsetAsync(kernels.info_, 0, sizeof(int) * kStatusSlots, static_cast<cudaStream_t>(stream)));
  return kernels;
}

DeviceKernels::DeviceKernels(DeviceKernels&& other) noexcept
    : stream_(other.stream_), blas_(std::exchange(other.blas_, nullptr)), solver_(std::exchange(other.solver_, nullptr)),
      b_(other.b_), precision_(other.precision_), workspace_(std::exchange(other.workspace_, nullptr)),
      workspace_elements_(other.workspace_elements_), wait_library_(std::exchange(other.wait_library_, nullptr)),
      wait_kernel_(std::exchange(other.wait_kernel_, nullptr)), info_(std::exchange(other.info_, nullptr)), next_slot_(other.next_slot_) {}

// A destructor cannot report: a failure here is one the run already met and reported.
DeviceKernels::~DeviceKernels() {
  if (blas_) (void)TILELENS_CUDA(cublasDestroy(static_cast<cublasHandle_t>(blas_)));
  if (solver_) (void)TILELENS_CUDA(cusolverDnDestroy(static_cast<cusolverDnHandle_t>(solver_)));
  if (workspace_) (void)TILELENS_CUDA(cudaFree(workspace_));
  if (info_) (void)TILELENS_CUDA(cudaFree(info_));
  if (wait_library_) (void)TILELENS_CUDA(cudaLibraryUnload(static_cast<cudaLibrary_t>(wait_library_)));
}

Status DeviceKernels::launch_wait(std::int64_t ns) {
  if (!wait_kernel_) {
    cudaLibrary_t library = nullptr;
    TILELENS_CUDA_TRY(cudaLibraryLoadData(&library, kWaitPtx, nullptr, nullptr, 0, nullptr, nullptr, 0));
    cudaKernel_t kernel = nullptr;
    if (const Status found = TILELENS_CUDA(cudaLibraryGetKernel(&kernel, library, "tilelens_wait")); !found) {
      (void)TILELENS_CUDA(cudaLibraryUnload(library));
      return found;
    }
    wait_library_ = library;
    wait_kernel_ = kernel;
  }
  unsigned long long duration = static_cast<unsigned long long>(std::max<std::int64_t>(0, ns));
  void* args[] = {&duration};
  // One thread of one block: the wait occupies the stream, not the GPU.
  return TILELENS_CUDA(cudaLaunchKernel(static_cast<const void*>(wait_kernel_), dim3(1), dim3(1), args, 0, static_cast<cudaStream_t>(stream_)));
}

Status DeviceKernels::launch(const TaskKernel& k, const std::vector<void*>& data, void* output, const void* fill_from) {
  if (k.op == Op::Wait) return launch_wait(k.wait_ns);
  if (k.op == Op::Fill) {
    if (!fill_from) return make_error("a fill without its seeded values");
    const std::size_t bytes = static_cast<std::size_t>(b_ * b_) * element_size(precision_);
    return TILELENS_CUDA(cudaMemcpyAsync(data[k.target], fill_from, bytes, cudaMemcpyHostToDevice, static_cast<cudaStream_t>(stream_)));
  }
  auto blas = static_cast<cublasHandle_t>(blas_);
  auto solver = static_cast<cusolverDnHandle_t>(solver_);
  const int b = static_cast<int>(b_);
  const auto slot = [&]() -> Result<int*> {
    if (next_slot_ == kStatusSlots) {
      if (auto s = check_factorizations(); !s) return s.error();
    }
    return info_ + next_slot_++;
  };
  if (precision_ == Precision::Double) {
    return call<double>(k, blas, solver, b, data, output, static_cast<double*>(workspace_), workspace_elements_, slot);
  }
  return call<float>(k, blas, solver, b, data, output, static_cast<float*>(workspace_), workspace_elements_, slot);
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
