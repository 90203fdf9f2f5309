// The real executor (issue "Instrumented CUDA executor"): runs a seed workload's kernels on
// NVIDIA GPUs under any tilelens scheduler and eviction policy, with each GPU's memory capped
// at M, and returns the measured trace.
//
// How: the replay engine takes every decision (pops, the task buffer, requests, victims,
// write-backs) exactly as in a replay, with a CUDA device in place of its simulated clock
// (ExecutionDevice). Per GPU: one arena of M bytes reserved up front and carved into slots
// by size; a compute stream, a host-to-device stream for loads and a device-to-host stream
// for write-backs; every operation is bracketed by CUDA events, and a watcher thread per
// stream waits on them in order and tells the engine what ended. A task's kernel is queued
// only once its loads have ended (the engine starts a task when its data are resident), and
// with launch-ahead (one kernel by default) the engine hears of a task's end when its kernel
// starts, so the next kernel waits in the stream behind it (two: when the kernel before it
// starts, so two wait); a load into a slot, a write-back or a
// GPU-to-GPU copy then waits on the end event of the last kernel that used the tile there. After the run every time is
// rewritten from the events (or CUPTI's kernel records), and loads are classified again on
// measured times by the rule of DESIGN section 3.
//
// The CUDA side is a module loaded on first use (cuda_module.hpp): a tilelens built without the
// CUDA toolkit, or run where the module or CUDA's libraries are missing, says so through
// cuda_available() and every entry point's error, and never loads CUDA otherwise.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "instrument/numeric.hpp"
#include "trace/measurement.hpp"
#include "replay/engine.hpp"

namespace tilelens::instrument {

// How CUPTI's kernel and copy records are linked to their task (cupti_recorder.hpp): by tracing
// every API call, only the launches and asynchronous copies (API records and external
// correlation records), or no API call at all (Callbacks: CUPTI's callback API hands each
// launch's correlation id to the executor, which notes its task; no record but the work's).
enum class CuptiApis : std::uint8_t { All, Launches, Callbacks };
// "all", "launches", "callbacks": the CLI's and the store's names. Inline: the CUDA module
// uses them too, and links nothing of the loader's side.
inline const char* to_string(CuptiApis apis) {
  switch (apis) {
    case CuptiApis::All: return "all";
    case CuptiApis::Launches: return "launches";
    case CuptiApis::Callbacks: return "callbacks";
  }
  return "all";
}
inline Result<CuptiApis> parse_cupti_apis(const std::string& name) {
  for (CuptiApis apis : {CuptiApis::All, CuptiApis::Launches, CuptiApis::Callbacks}) {
    if (name == to_string(apis)) return apis;
  }
  return make_error("CUPTI's API tracing must be all, launches or callbacks (got '" + name + "')");
}

inline constexpr std::uint32_t kLaunchAheadMax = 2;

struct ExecuteOptions {
  Platform platform;  // gpus and memory_bytes (M) are used; the rest is the schedulers' model
  std::uint32_t buffer_depth = 4;
  MemoryModel memory_model{};  // the engine's (replay/engine.hpp): the same decisions as a replay
  bool tf32 = false;
  bool cupti = true;
  // Callbacks by default: on the lent H100 (docs/executor.md) it linked every record, for the
  // least overhead; Launches linked none there, and All costs the most.
  CuptiApis cupti_apis = CuptiApis::Callbacks;
  std::uint64_t seed = 1;             // tile values
  std::size_t verify_samples = 8;     // tiles checked (0: no check)
  std::size_t verify_rows = 16;       // rows checked per tile (0: all)
  int first_device = 0;               // GPU k runs on CUDA device first_device + k
  // Every GPU of the platform is a logical one on device first_device: its own arena of M,
  // streams and handles, and GPU-to-GPU loads are device-to-device copies. So the multi-GPU
  // paths (peer loads, invalidations) run on a machine with one GPU.
  bool logical_gpus = false;
  // How the plan is made (numeric.hpp): the waits' durations of an imported workload.
  PlanOptions plan;
  // Kernels queued on a GPU's compute stream behind the running one. 1 (the default): the
  // engine hears that a task ended when its kernel starts, and queues the next kernel behind
  // it, so no launch gap separates them. 2: it hears it when the kernel before it starts, so
  // a second kernel waits too, and the host's decisions for one task overlap two kernels
  // (kLaunchAheadMax at most). 0: a task ends when its kernel does. Copies that touch a task's
  // tiles always wait on the kernel's real end on the device (cudaStreamWaitEvent).
  std::uint32_t launch_ahead = 1;
};

// Logical GPUs share one device's memory: a load from another logical GPU is a copy inside
// it, far faster than the bus. A platform naming no GPU link would have the engine bring every
// such tile through the host instead (no load from the other GPU ever happened on the H100),
// so the executor gives logical GPUs this link unless the platform names one. 1 TB/s: an H100
// moved about 1.5 TB/s each way in a device-to-device copy; the figure only has to rank the
// link above the bus for the engine's sources and the schedulers' transfer costs.
inline constexpr double kLogicalGpuLinkBandwidth = 1e12;
// The platform an execution runs on: options.platform, with the link above for logical GPUs.
Platform executed_platform(const ExecuteOptions& options);

struct ExecuteResult {
  ReplaySummary summary;  // measured
  Trace trace;            // measured times
  Measurement measurement;
  std::vector<CuptiRecord> cupti_records;
};

// Whether the CUDA module loads and sees a GPU to run on; the reason when not.
Status cuda_available();

Result<ExecuteResult> execute(const Workload& workload, Scheduler& scheduler, EvictionPolicy& eviction,
                              const ExecuteOptions& options);

// The bare references of the benchmark (same process, same calls, no scheduler, no cap):
// GFlop/s of the workload's kernels queued back to back on tiles already on the device, and
// the bandwidth of pinned host-to-device copies of `bytes` each.
struct BareFigures {
  double gflops = 0;
  double h2d_bytes_per_s = 0;
  double d2h_bytes_per_s = 0;
};
Result<BareFigures> measure_bare(const Workload& workload, bool tf32, std::size_t copies, int device = 0);

}  // namespace tilelens::instrument
