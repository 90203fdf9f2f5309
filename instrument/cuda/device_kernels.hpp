// The kernels of numeric.hpp on an NVIDIA GPU: one cuBLAS or cuSOLVER call per task, on tiles
// already in device memory, queued on a stream. The plan, the operands and the results are
// those of run_on_host (tests/gpu/test_device_kernels.cpp checks it on a GPU). No Qt; built
// only when the CUDA toolkit is found (TILELENS_HAVE_CUDA).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "instrument/numeric.hpp"

namespace tilelens::instrument {

// The cuBLAS and cuSOLVER handles of one GPU stream and the factorizations' workspace.
class DeviceKernels {
 public:
  // Binds to the current device and `stream` (a cudaStream_t); tile size b; TF32 tensor cores
  // when asked.
  static Result<DeviceKernels> create(void* stream, std::int64_t b, bool tf32);
  DeviceKernels(DeviceKernels&& other) noexcept;
  DeviceKernels& operator=(DeviceKernels&&) = delete;
  ~DeviceKernels();

  // Queues task `kernel`: `data[d]` is the device address of data d (the ones the kernel uses
  // must be set), `output` the device address of its output tile for products.
  Status launch(const TaskKernel& kernel, const std::vector<float*>& data, float* output);
  // The factorizations' status words since the last check: a POTRF of a matrix that is not
  // positive definite or a zero pivot in GETRF makes the run fail loudly. Synchronizes the stream.
  Status check_factorizations();

 private:
  DeviceKernels() = default;
  void* stream_ = nullptr;
  void* blas_ = nullptr;
  void* solver_ = nullptr;
  std::int64_t b_ = 0;
  float* workspace_ = nullptr;
  int workspace_floats_ = 0;
  int* info_ = nullptr;  // device status words, one per factorization since the last check
  int next_slot_ = 0;
};

// A device's name and memory, or why there is none ("no CUDA device": the GPU tests skip then).
struct DeviceInfo {
  int count = 0;
  std::string name;
  std::size_t total_bytes = 0, free_bytes = 0;
};
Result<DeviceInfo> probe_device();

}  // namespace tilelens::instrument
