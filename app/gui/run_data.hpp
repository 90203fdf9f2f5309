// One stored run as the app draws it: the run row and metrics, its workload and its trace,
// plus per-task indexes (order, GPU, times, the loads attributed to it). Plain C++ (no Qt), so
// the figures, the tests and the headless export share it.
#pragma once

#include <string>
#include <vector>

#include "core/analysis.hpp"
#include "core/runs.hpp"

namespace tilelens::gui {

struct RunData {
  StoredRun run;
  Workload workload;
  Trace trace;
  std::vector<std::uint32_t> order_of;      // per task: rank among all task starts; kNoId if it never ran
  std::vector<std::uint32_t> gpu_order_of;  // per task: rank on its GPU
  std::vector<GpuId> gpu_of;
  std::vector<std::int64_t> start_of, end_of;  // per task, ns
  std::vector<std::uint32_t> gpu_tasks;     // per GPU: tasks it ran
  std::vector<std::vector<std::uint32_t>> loads_of;  // per task: indices in trace.loads attributed to it
  std::uint32_t gpus = 1;  // workers: GPUs first, then the platform's CPU workers
  TimeSplit time_split;    // where each worker's time went (the timeline's idle shading, the bars)

  bool is_cpu(GpuId worker) const { return worker >= run.info.platform.gpus && run.info.platform.cpus > 0; }
  // "GPU 2" or "CPU 5" (CPU workers numbered from 0 after the GPUs).
  std::string worker_name(GpuId worker) const;
  // "RCM + LRU, matmul2d N=20, M = 250 MiB" (the figures' captions).
  std::string title() const;
  std::string policy_title() const;  // "RCM + LRU": the title's first part
  std::string task_tooltip(TaskId task) const;
};

RunData make_run_data(core::LoadedRun run);
Result<RunData> load_run_data(db::Store& store, std::int64_t run_id);
// "What if": the same workload, scheduler, eviction and platform replayed with another memory
// per GPU; the result is not stored (id 0).
Result<RunData> replay_with_memory(const RunData& base, double memory_bytes);

}  // namespace tilelens::gui
