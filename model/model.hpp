// The problem model shared by every part of tilelens (DESIGN.md section 1): data, tasks with
// their accesses, dependencies, the submission order, and the platform they run on.
// A Workload is immutable once built; WorkloadBuilder checks it (ids, sizes, cycles) and
// derives the indexes schedulers need (successors, the tasks that read each data).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace tilelens {

using DataId = std::uint32_t;
using TaskId = std::uint32_t;
using GpuId = std::uint32_t;
using KindId = std::uint16_t;
inline constexpr std::uint32_t kNoId = std::numeric_limits<std::uint32_t>::max();

// What a workload may hold, so that every sum over it stays exact in 64 bits and finite in a
// double: the bytes of all its data together, and one task's flops (a zettaflop; a task of
// 1e21 flops at 1 TFlop/s runs for 31 years).
inline constexpr std::uint64_t kMaxWorkloadBytes = std::uint64_t{1} << 62;
inline constexpr double kMaxTaskFlops = 1e21;
// The replay clock's horizon: times are int64 nanoseconds, and a run whose makespan would
// pass 2^62 ns (146 years) is refused rather than wrapped (check_platform, the engine).
inline constexpr std::int64_t kMaxClockNs = std::int64_t{1} << 62;

enum class AccessMode : std::uint8_t { Read, Write, ReadWrite };
inline bool reads(AccessMode mode) { return mode != AccessMode::Write; }
inline bool writes(AccessMode mode) { return mode != AccessMode::Read; }
const char* to_string(AccessMode mode);  // "R", "W", "RW"
std::optional<AccessMode> access_mode_from(std::string_view text);

struct Access {
  DataId data;
  AccessMode mode;
};

// Logical coordinates, for drawing and for the bounds: a data is tile (row, col) of matrix
// 'A'/'B'/'C' (row or col is -1 for a whole block-row or block-column); a task sits at (i, j)
// of its output in layer or iteration k.
struct Data {
  std::string name;
  std::uint64_t bytes = 0;
  char matrix = '-';
  std::int32_t row = -1;
  std::int32_t col = -1;
  // Whether it has a valid copy on the host from the start even though its first access writes
  // it: a runtime's data registered with a home (StarPU's disk node, say), which the memory
  // manager keeps up to date, where data without one (registered without a home, a generator's
  // outputs) exist only once written. Data whose first access reads them have a home anyway.
  bool home = false;
};

struct Task {  // the 32-bit fields first: 40 bytes, not 48, for a million tasks held at once
  KindId kind = 0;
  std::uint32_t first_access = 0;
  std::uint32_t access_count = 0;
  std::int32_t i = 0, j = 0, k = 0;
  double flops = 0;
  std::int64_t priority = 0;  // larger runs first; bottom level in flops for the seed DAGs
};

// What produced a workload, so that bounds and figures know its shape. Empty name for
// workloads read from a file without a generator line or imported from a trace.
struct GeneratorInfo {
  std::string name;   // "matmul2d", ..., or "" when unknown
  std::string spec;   // canonical spec, "matmul2d:N=20,b=960,..."
  std::int64_t N = 0, n = 0, b = 0, elem = 4;
  double density = 1;
  std::uint64_t seed = 0;
};

class Workload {
 public:
  const std::string& name() const { return name_; }
  const GeneratorInfo& generator() const { return generator_; }
  const std::vector<std::string>& kinds() const { return kinds_; }
  const std::vector<Data>& data() const { return data_; }
  const std::vector<Task>& tasks() const { return tasks_; }
  std::size_t task_count() const { return tasks_.size(); }
  std::size_t data_count() const { return data_.size(); }
  // Accesses of all tasks together; Task::first_access indexes them.
  std::size_t access_count() const { return accesses_.size(); }

  std::span<const Access> accesses(TaskId task) const {
    const Task& t = tasks_[task];
    return {accesses_.data() + t.first_access, t.access_count};
  }
  // The same accesses by rising data id: the order in which StarPU fetches a task's handles
  // (its handles sorted, _STARPU_JOB_GET_ORDERED_BUFFERS). Built once with the workload; shares
  // accesses() when every task lists its data in that order already.
  std::span<const Access> accesses_by_data(TaskId task) const {
    const Task& t = tasks_[task];
    return {(by_data_.empty() ? accesses_ : by_data_).data() + t.first_access, t.access_count};
  }
  std::span<const TaskId> predecessors(TaskId task) const { return slice(pred_offsets_, preds_, task); }
  std::span<const TaskId> successors(TaskId task) const { return slice(succ_offsets_, succs_, task); }
  // Tasks that read the data (R or RW), in submission order.
  std::span<const TaskId> readers(DataId data) const { return slice(reader_offsets_, readers_, data); }
  const std::vector<TaskId>& submission_order() const { return order_; }

  bool has_dependencies() const { return !preds_.empty(); }
  std::size_t dependency_count() const { return preds_.size(); }
  // Total size of the distinct data read by some task (fgcs section 5.1).
  std::uint64_t working_set_bytes() const { return working_set_; }
  std::uint64_t largest_data_bytes() const { return largest_data_; }
  // Bytes a task needs resident to run: its distinct accessed data.
  std::uint64_t footprint_bytes(TaskId task) const;
  // The largest footprint among the tasks of each kind (by KindId).
  const std::vector<std::uint64_t>& largest_footprint_by_kind() const { return largest_footprint_; }
  double total_flops() const { return total_flops_; }
  std::string task_label(TaskId task) const;  // "GEMM(3,1,0) #17"

 private:
  friend class WorkloadBuilder;
  template <class T>
  static std::span<const T> slice(const std::vector<std::uint32_t>& offsets, const std::vector<T>& items,
                                  std::uint32_t index) {
    return {items.data() + offsets[index], offsets[index + 1] - offsets[index]};
  }

  std::string name_;
  GeneratorInfo generator_;
  std::vector<std::string> kinds_;
  std::vector<Data> data_;
  std::vector<Task> tasks_;
  std::vector<Access> accesses_;
  std::vector<Access> by_data_;  // accesses_ with each task's sorted by data id; empty when accesses_ is
  std::vector<std::uint32_t> pred_offsets_, succ_offsets_, reader_offsets_;
  std::vector<TaskId> preds_, succs_, readers_;
  std::vector<TaskId> order_;
  std::uint64_t working_set_ = 0;
  std::uint64_t largest_data_ = 0;
  std::vector<std::uint64_t> largest_footprint_;
  double total_flops_ = 0;
};

class WorkloadBuilder {
 public:
  explicit WorkloadBuilder(std::string name);

  void set_generator(GeneratorInfo info) { generator_ = std::move(info); }
  KindId kind(const std::string& name);  // interns a task kind name
  DataId add_data(Data data);
  TaskId add_task(KindId kind, std::span<const Access> accesses, double flops, std::int32_t i = 0,
                  std::int32_t j = 0, std::int32_t k = 0, std::int64_t priority = 0);
  void add_dependency(TaskId before, TaskId after);
  // Adds the edges a sequentially consistent runtime (StarPU's implicit dependencies) would
  // derive from the accesses in submission order: read-after-write, write-after-read and
  // write-after-write.
  void derive_data_dependencies();
  void set_submission_order(std::vector<TaskId> order) { order_ = std::move(order); }
  // Priority = bottom level: the task's flops plus the largest bottom level of its
  // successors (darts section 6.1, with flops standing in for durations).
  void use_bottom_level_priorities() { bottom_level_priorities_ = true; }

  std::size_t task_count() const { return tasks_.size(); }
  std::size_t data_count() const { return data_.size(); }

  // Checks everything and builds the indexes. Errors name the task or data at fault; a
  // dependency cycle is reported with a task on it.
  Result<Workload> finish() &&;

 private:
  std::string name_;
  GeneratorInfo generator_;
  std::vector<std::string> kinds_;
  std::map<std::string, KindId> kind_ids_;
  std::vector<Data> data_;
  std::vector<Task> tasks_;
  std::vector<Access> accesses_;
  std::vector<std::pair<TaskId, TaskId>> edges_;
  std::vector<TaskId> order_;
  bool bottom_level_priorities_ = false;
};

// A platform (DESIGN.md section 1): K GPUs with M bytes each, a host bus of bandwidth B
// (bytes/s, each direction, shared fluidly), a latency per transfer, optional GPU-to-GPU
// links, and a compute rate per task kind.
//
// Workers. A worker is what a scheduler hands tasks to (GpuId numbers workers). Workers
// 0..gpus-1 compute out of a bounded memory; `workers_per_memory` of them share one memory
// node of M bytes (1: every GPU has its own; gpus: the shared-memory multicore of darts
// section 7.3, whose "host" is the disk). Workers gpus..gpus+cpus-1 are CPU cores attached to
// the host memory itself (lahp): they need no transfer for data valid on the host.
// The most workers a platform holds: a load's source is an int16 in traces (trace.hpp).
inline constexpr std::uint32_t kMaxWorkers = 4096;
// The ranges of a platform's values, orders of magnitude wider than any machine's: past them
// one transfer or kernel would hang a replay or push its clock past kMaxClockNs. A platform
// file outside them is refused (formats/platform_io.cpp); where 0 is allowed it means none.
// The memory's limit is kMaxWorkloadBytes.
inline constexpr double kMinBandwidth = 1;     // bytes per second
inline constexpr double kMaxBandwidth = 1e15;  // bytes per second
inline constexpr double kMaxLatencyNs = 1e12;  // 1000 s
inline constexpr double kMinGflops = 1e-6;     // a kFlop/s
inline constexpr double kMaxGflops = 1e9;      // an EFlop/s, on one worker
inline constexpr std::uint32_t kMaxCopyEngines = 1024;
// A worker's speed factor (Platform::worker_speeds): its kernels at 1/1000 to 1000 times the rates.
inline constexpr double kMinWorkerSpeed = 1e-3;
inline constexpr double kMaxWorkerSpeed = 1e3;

struct Platform {
  std::string name = "custom";
  std::uint32_t gpus = 1;
  double memory_bytes = 500.0 * 1024 * 1024;
  double bus_bandwidth = 12e9;       // bytes per second, host to GPU and GPU to host
  double gpu_link_bandwidth = 0;     // bytes per second between two GPUs; 0: no direct link
  // The PCIe tree of a node (darts Fig. 5), each direction: a host-GPU transfer crosses the
  // host bus (bus_bandwidth), its switch's upstream link shared by `gpus_per_switch` GPUs,
  // and the GPU's own link; shared max-min fairly. 0 leaves a level out.
  double gpu_bus_bandwidth = 0;
  std::uint32_t gpus_per_switch = 0;
  double switch_bandwidth = 0;
  bool has_pcie_tree() const { return gpu_bus_bandwidth > 0 || (gpus_per_switch > 0 && switch_bandwidth > 0); }
  // The most the host moves to all memory nodes at once, each direction: the host bus, or less
  // when the PCIe tree's switches and GPU links together carry less (darts Fig. 5: two 22 GB/s
  // switches under a 100 GB/s host link move 44 GB/s).
  double host_throughput() const;
  std::int64_t latency_ns = 0;       // added to every transfer
  // How the host bus serves transfers. copy_engines 0: each direction shares its bandwidth
  // equally among every transfer at once; k > 0: each memory node moves at most k transfers
  // of a direction at once, in the order they start, the others waiting (a GPU's copy
  // engines: a stream's copies run in FIFO order, so an early prefetch delays a later fetch);
  // the nodes' moving transfers share the bus as before. half_duplex: both directions share
  // one channel and one set of engines (a disk), instead of one each (PCIe).
  std::uint32_t copy_engines = 0;
  bool half_duplex = false;
  double default_gflops = 13393;     // rate of any kind not listed below; a listed rate of 0: no kernel on this architecture
  std::map<std::string, double> kind_gflops;
  std::uint32_t workers_per_memory = 1;
  std::uint32_t cpus = 0;
  double cpu_default_gflops = 0;  // per CPU worker
  std::map<std::string, double> cpu_kind_gflops;
  // Per worker, the factor its kernels run at against the rates above (empty: every worker at
  // 1). A measured machine whose workers are alike on paper but not in a run: a real StarPU's
  // CPU worker whose core another thread shares runs its kernels at half speed for the whole
  // run (docs/replay.md, "Against a real StarPU"). Only the tasks' durations follow it: the
  // schedulers' estimates keep the per-kind rates, as StarPU's performance models are per
  // architecture, not per worker.
  std::vector<double> worker_speeds;

  double speed_of(GpuId worker) const { return worker < worker_speeds.size() ? worker_speeds[worker] : 1.0; }
  double gflops_of(const std::string& kind) const;      // on a bounded-memory worker (0: cannot run there)
  double cpu_gflops_of(const std::string& kind) const;  // on a CPU worker (0: cannot run there)
  std::uint32_t workers() const { return gpus + cpus; }
  bool is_cpu_worker(GpuId worker) const { return worker >= gpus; }
  // "GPU 2", or "CPU 0" for the first CPU worker (numbered from 0 after the GPUs); a run
  // imported with more workers than GPUs and no CPU workers names them all GPUs.
  std::string worker_name(GpuId worker) const;
  std::uint32_t memory_nodes() const { return workers_per_memory > 0 ? gpus / workers_per_memory : gpus; }
  // The bounded memory node a worker computes from; kNoId for a CPU worker (the host).
  std::uint32_t memory_node_of(GpuId worker) const { return worker < gpus ? worker / workers_per_memory : kNoId; }
  GpuId first_worker_of(std::uint32_t node) const { return node * workers_per_memory; }
  bool is_heterogeneous() const { return cpus > 0 || workers_per_memory > 1; }
  // The time a scheduler expects one transfer of `bytes` to take, alone: latency plus size over
  // the host bus, or over a GPU link when it comes from another GPU (DMDA's comm, DARTS's
  // transfer_duration). An estimate: it ignores sharing and the PCIe tree's per-GPU links.
  double transfer_seconds(double bytes, bool from_gpu = false) const;
  double peak_gflops() const;  // the fastest kind on one bounded-memory worker
  // Every worker at its fastest kind at once: the platform's peak throughput.
  double total_peak_gflops() const;
  std::string describe() const;
};

// Per-kind rates as one text, "POTRF=300;TRSM=2000" (each rate read back exactly, '%', ';'
// and '=' in a kind's name percent-encoded): how the store keeps them and run keys name them.
std::string format_kind_rates(const std::map<std::string, double>& rates);
// Worker speeds as one text, "0.6,1" (each read back exactly): how the store keeps them, run
// keys name them and --worker-speeds takes them; the parse names the first bad entry.
std::string format_worker_speeds(const std::vector<double>& speeds);
Result<std::vector<double>> parse_worker_speeds(std::string_view text);
// False when an entry does not read as KIND=RATE with a finite rate of 0 or more (it is skipped).
bool parse_kind_rates(const std::string& text, std::map<std::string, double>& into);

// Checks a platform against a workload before a run: positive sizes and rates, and every
// task's footprint within the memory (naming the first task that does not fit).
Status check_platform(const Platform& platform, const Workload& workload);

}  // namespace tilelens
