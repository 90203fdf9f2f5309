// GPU test: every kernel of the seed workloads on the device (cuBLAS, cuSOLVER) against the
// verification of instrument/numeric.hpp. Exits 77 (CTest's skip) when no CUDA device is
// present, saying why; never passes without running.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "instrument/cuda/device_kernels.hpp"
#include "presets/seed_workloads.hpp"

using namespace tilelens;
using namespace tilelens::instrument;

namespace {

// Runs the workload's tasks in submission order on the device, all tiles resident, and
// verifies the result. Returns "" or what failed.
std::string run_on_device(const std::string& spec) {
  auto workload = generate_workload(spec);
  if (!workload) return spec + ": " + workload.error().message;
  auto plan = plan_kernels(*workload);
  if (!plan) return spec + ": " + plan.error().message;
  const HostTiles input = make_tiles(*workload, *plan, 5);
  cudaStream_t stream = nullptr;
  if (cudaStreamCreate(&stream) != cudaSuccess) return "cudaStreamCreate failed";
  std::vector<float*> data(workload->data_count(), nullptr), outputs(plan->outputs, nullptr);
  const auto upload = [&](const std::vector<float>& host, float*& device) {
    cudaMalloc(&device, host.size() * sizeof(float));
    cudaMemcpy(device, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
  };
  for (DataId d = 0; d < data.size(); ++d) upload(input.data[d], data[d]);
  for (std::uint32_t o = 0; o < outputs.size(); ++o) upload(input.outputs[o], outputs[o]);
  std::string problem;
  {
    auto kernels = DeviceKernels::create(stream, plan->b, false);
    if (!kernels) {
      problem = spec + ": " + kernels.error().message;
    } else {
      for (TaskId t : workload->submission_order()) {
        const TaskKernel& k = plan->tasks[t];
        if (auto s = kernels->launch(k, data, k.output == kNoId ? nullptr : outputs[k.output]); !s) {
          problem = spec + ": " + s.error().message;
          break;
        }
      }
      if (problem.empty()) {
        if (auto s = kernels->check_factorizations(); !s) problem = spec + ": " + s.error().message;
      }
    }
  }
  HostTiles result = input;
  for (DataId d = 0; d < data.size(); ++d) {
    cudaMemcpy(result.data[d].data(), data[d], result.data[d].size() * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(data[d]);
  }
  for (std::uint32_t o = 0; o < outputs.size(); ++o) {
    cudaMemcpy(result.outputs[o].data(), outputs[o], result.outputs[o].size() * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(outputs[o]);
  }
  cudaStreamDestroy(stream);
  if (!problem.empty()) return problem;
  const Verdict verdict = verify(*workload, *plan, input, result, 64, 9);
  std::printf("%-32s %zu tiles checked, worst relative error %.2e\n", spec.c_str(), verdict.checked, verdict.worst);
  return verdict.ok ? "" : spec + ": " + verdict.detail;
}

}  // namespace

int main() {
  auto device = probe_device();
  if (!device) {
    std::printf("skipped: %s\n", device.error().message.c_str());
    return 77;
  }
  std::printf("device: %s, %.1f GiB\n", device->name.c_str(), static_cast<double>(device->total_bytes) / (1 << 30));
  int failures = 0;
  for (const char* spec : {"matmul2d:N=4,n=3,b=128", "matmul2d-random-pairs:N=4,b=128", "matmul3d:N=3,b=128", "cholesky:N=5,b=128",
                           "lu:N=5,b=128"}) {
    const std::string problem = run_on_device(spec);
    if (!problem.empty()) {
      std::printf("FAILED %s\n", problem.c_str());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
