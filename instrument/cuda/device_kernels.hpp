// The kernels of numeric.hpp on an NVIDIA GPU: one cuBLAS or cuSOLVER call per task, in fp32
// or fp64, on tiles already in device memory, queued on a stream; a fill is a copy of the
// tile's seeded values from the host, and a wait a kernel of our own that spins on the GPU's
// nanosecond timer (PTX, loaded by the runtime: no nvcc needed to build). The plan, the
// operands and the results are those of run_on_host (tests/gpu/test_device_kernels.cpp checks
// it on a GPU). No Qt; built only when the CUDA toolkit is found (TILELENS_HAVE_CUDA).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "instrument/numeric.hpp"

namespace tilelens::instrument {

// The cuBLAS and cuSOLVER handles of one GPU stream and the factorizations' workspace.
class DeviceKernels {
 public:
  // Binds to the current device and `stream` (a cudaStream_t); tile size b in `precision`;
  // TF32 tensor cores for fp32 products when asked.
  static Result<DeviceKernels> create(void* stream, std::int64_t b, Precision precision, bool tf32);
  DeviceKernels(DeviceKernels&& other) noexcept;
  DeviceKernels& operator=(DeviceKernels&&) = delete;
  ~DeviceKernels();

  // Queues task `kernel`: `data[d]` is the device address of data d (the ones the kernel uses
  // must be set), `output` the device address of its output tile for products, `fill_from`
  // the pinned host address of a fill's seeded values.
  Status launch(const TaskKernel& kernel, const std::vector<void*>& data, void* output, const void* fill_from = nullptr);
  // The factorizations' status words since the last check: a POTRF of a matrix that is not
  // positive definite or a zero pivot in GETRF makes the run fail loudly. Synchronizes the stream.
  Status check_factorizations();

 private:
  DeviceKernels() = default;
  void* stream_ = nullptr;
  void* blas_ = nullptr;
  void* solver_ = nullptr;
  Status launch_wait(std::int64_t ns);
  std::int64_t b_ = 0;
  Precision precision_ = Precision::Single;
  void* workspace_ = nullptr;
  int workspace_elements_ = 0;
  void* wait_library_ = nullptr;  // cudaLibrary_t of the wait kernel, loaded at the first wait
  void* wait_kernel_ = nullptr;   // cudaKernel_t
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
