// GPU test: every kernel of the plans on the device (cuBLAS, cuSOLVER, the fill and the wait)
// against the verification of instrument/numeric.hpp: the seed workloads in fp32 and fp64, and
// the Cholesky and LU traces recorded from a real StarPU (tests/starpu/fixtures), planned from
// their kernel names, in fp64. A wait must last at least what it was asked. Exits 77 (CTest's
// skip) when no CUDA device is present, saying why; never passes without running.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "formats/starpu_import.hpp"
#include "instrument/cuda/device_kernels.hpp"
#include "presets/seed_workloads.hpp"

using namespace tilelens;
using namespace tilelens::instrument;

namespace {

// Runs the workload's tasks in submission order on the device, all tiles resident, and
// verifies the result in the plan's precision. Returns "" or what failed.
template <class T>
std::string run_on_device(const std::string& name, const Workload& workload, const KernelPlan& plan) {
  const Tiles<T> input = make_tiles_as<T>(workload, plan, 5);
  cudaStream_t stream = nullptr;
  if (cudaStreamCreate(&stream) != cudaSuccess) return "cudaStreamCreate failed";
  std::vector<void*> data(workload.data_count(), nullptr), outputs(plan.outputs, nullptr);
  const auto upload = [&](const std::vector<T>& host, void*& device) {
    if (host.empty()) return;
    cudaMalloc(&device, host.size() * sizeof(T));
    cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  };
  for (DataId d = 0; d < data.size(); ++d) upload(input.data[d], data[d]);
  for (std::uint32_t o = 0; o < outputs.size(); ++o) upload(input.outputs[o], outputs[o]);
  std::string problem;
  {
    auto kernels = DeviceKernels::create(stream, plan.b, plan.precision, false);
    if (!kernels) {
      problem = name + ": " + kernels.error().message;
    } else {
      for (TaskId t : workload.submission_order()) {
        const TaskKernel& k = plan.tasks[t];
        const void* fill_from = k.op == Op::Fill ? input.data[k.target].data() : nullptr;
        if (auto s = kernels->launch(k, data, k.output == kNoId ? nullptr : outputs[k.output], fill_from); !s) {
          problem = name + ": " + s.error().message;
          break;
        }
      }
      if (problem.empty()) {
        if (auto s = kernels->check_factorizations(); !s) problem = name + ": " + s.error().message;
      }
    }
  }
  Tiles<T> result = input;
  for (DataId d = 0; d < data.size(); ++d) {
    if (!data[d]) continue;
    cudaMemcpy(result.data[d].data(), data[d], result.data[d].size() * sizeof(T), cudaMemcpyDeviceToHost);
    cudaFree(data[d]);
  }
  for (std::uint32_t o = 0; o < outputs.size(); ++o) {
    cudaMemcpy(result.outputs[o].data(), outputs[o], result.outputs[o].size() * sizeof(T), cudaMemcpyDeviceToHost);
    cudaFree(outputs[o]);
  }
  cudaStreamDestroy(stream);
  if (!problem.empty()) return problem;
  if (!plan.checkable) return name + ": the plan has no result to check";
  const Verdict verdict = verify(workload, plan, input, result, 64, 9, default_tolerance(plan.precision));
  std::printf("%-40s %s, %zu tiles checked, worst relative error %.2e\n", name.c_str(), to_string(plan.precision), verdict.checked,
              verdict.worst);
  return verdict.ok ? "" : name + ": " + verdict.detail;
}

std::string run_plan(const std::string& name, const Workload& workload) {
  auto plan = plan_kernels(workload);
  if (!plan) return name + ": " + plan.error().message;
  return plan->precision == Precision::Double ? run_on_device<double>(name, workload, *plan) : run_on_device<float>(name, workload, *plan);
}

// A wait of 2 ms, timed with events: it lasts at least that, and not ten times more.
std::string check_wait() {
  cudaStream_t stream = nullptr;
  cudaEvent_t begin = nullptr, end = nullptr;
  std::string problem;
  float ms = 0;
  if (cudaStreamCreate(&stream) != cudaSuccess || cudaEventCreate(&begin) != cudaSuccess || cudaEventCreate(&end) != cudaSuccess) {
    problem = "wait: cannot create a stream and events";
  } else {
    // The kernels' handles go before their stream.
    auto kernels = DeviceKernels::create(stream, 8, Precision::Single, false);
    TaskKernel wait;
    wait.op = Op::Wait;
    const std::vector<void*> none;
    if (!kernels) {
      problem = "wait: " + kernels.error().message;
    } else if (auto loaded = kernels->launch(wait, none, nullptr); !loaded) {  // loads the PTX
      problem = "wait: " + loaded.error().message;
    } else {
      wait.wait_ns = 2'000'000;
      cudaEventRecord(begin, stream);
      if (auto s = kernels->launch(wait, none, nullptr); !s) problem = "wait: " + s.error().message;
      cudaEventRecord(end, stream);
      cudaEventSynchronize(end);
      cudaEventElapsedTime(&ms, begin, end);
    }
  }
  if (begin) cudaEventDestroy(begin);
  if (end) cudaEventDestroy(end);
  if (stream) cudaStreamDestroy(stream);
  if (!problem.empty()) return problem;
  std::printf("a wait of 2 ms lasted %.3f ms\n", static_cast<double>(ms));
  return ms >= 2.0f && ms < 20.0f ? "" : "wait: a wait of 2 ms lasted " + std::to_string(ms) + " ms";
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
  const auto note = [&](const std::string& problem) {
    if (problem.empty()) return;
    std::printf("FAILED %s\n", problem.c_str());
    ++failures;
  };
  for (const char* spec : {"matmul2d:N=4,n=3,b=128", "matmul2d-random-pairs:N=4,b=128", "matmul3d:N=3,b=128", "cholesky:N=5,b=128",
                           "lu:N=5,b=128", "matmul2d:N=4,n=3,b=128,elem=8", "cholesky:N=5,b=128,elem=8", "lu:N=5,b=128,elem=8"}) {
    auto workload = generate_workload(spec);
    note(workload ? run_plan(spec, *workload) : std::string(spec) + ": " + workload.error().message);
  }
  const std::string fixtures = std::string(TILELENS_SOURCE_DIR) + "/tests/starpu/fixtures/";
  for (const std::string app : {"cholesky", "lu"}) {
    const std::string dir = fixtures + app + "/";
    auto imported = import_starpu_files(dir + "tasks.rec", dir + "data.rec", dir + "paje.trace", {app, std::nullopt});
    note(imported ? run_plan("StarPU trace " + app, imported->workload) : app + ": " + imported.error().message);
  }
  note(check_wait());
  return failures == 0 ? 0 : 1;
}
