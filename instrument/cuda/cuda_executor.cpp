// The real executor on CUDA, inside the CUDA module; see executor.hpp for what it does and
// cuda_executor.hpp for its entry points.
#include "instrument/cuda/cuda_executor.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "instrument/cuda/cuda_check.hpp"
#include "instrument/cuda/cupti_recorder.hpp"
#include "instrument/cuda/device_kernels.hpp"
#include "instrument/numeric.hpp"
#include "trace/totals.hpp"

namespace tilelens::instrument {
namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Peer access from the current device to `peer`; already enabled is not an error here.
// Peer access only makes GPU-to-GPU copies direct: cudaMemcpyPeerAsync copies without it,
// through the host. So a refusal (already enabled, or more peers than the device allows)
// costs speed, not the run: the error that call left is cleared and the run goes on.
void try_enable_peer_access(int peer) {
  if (cudaDeviceEnablePeerAccess(peer, 0) != cudaSuccess) (void)cudaGetLastError();
}

enum class OpType : std::uint8_t { Kernel, Load, Writeback };
// What must end before a slot takes a new tenant: the last kernel that used the old one, and
// the last copy that read it out (they run on different streams, so neither implies the other).
using SlotWaits = std::array<cudaEvent_t, 2>;
constexpr std::uint32_t kNoOp = UINT32_MAX;
enum StreamRole : std::uint32_t { kCompute = 0, kToDevice = 1, kToHost = 2, kStreams = 3 };

struct Op {
  OpType type = OpType::Kernel;
  std::uint32_t gpu = 0;      // memory node (one worker per GPU)
  std::uint32_t engine_id = 0;  // the engine's transfer id, or the worker of a kernel
  TaskId task = kNoId;
  DataId data = kNoId;
  std::int32_t source = kFromHost;
  cudaEvent_t start = nullptr, end = nullptr;
  // What the watcher waits on before the engine hears the operation ended: its end, or with
  // launch-ahead the start of a kernel on the compute stream (ExecuteOptions::launch_ahead);
  // none: at once.
  cudaEvent_t signal = nullptr;
};

// Completions, as the watcher threads see them.
struct Completions {
  std::mutex mutex;
  std::vector<std::uint32_t> ops;
  std::atomic<std::uint64_t> count{0};
  std::string error;
};

// Waits, in order, on the signal events of the operations queued on one stream, and reports
// each as it ends. One thread per stream: a stream's operations end in order, so the oldest
// is the only one worth waiting on.
class StreamWatcher {
 public:
  StreamWatcher(int device, std::deque<Op>& ops, Completions& done) : device_(device), ops_(ops), done_(done) {
    thread_ = std::thread([this] { loop(); });
  }
  ~StreamWatcher() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  void watch(std::uint32_t op) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(op);
    }
    wake_.notify_one();
  }

 private:
  void loop() {
    if (const Status selected = TILELENS_CUDA(cudaSetDevice(device_)); !selected) report(selected);
    while (true) {
      std::uint32_t op = 0;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        op = queue_.front();
        queue_.pop_front();
      }
      cudaEvent_t signal = nullptr;
      {
        std::lock_guard lock(done_.mutex);  // ops_ may grow (a deque keeps its elements in place)
        signal = ops_[op].signal;
      }
      if (signal) {
        if (const Status ended = TILELENS_CUDA(cudaEventSynchronize(signal)); !ended) report(ended);
      }
      std::lock_guard lock(done_.mutex);
      done_.ops.push_back(op);
      done_.count.fetch_add(1, std::memory_order_release);
    }
  }

  void report(const Status& failure) {
    std::lock_guard lock(done_.mutex);
    if (done_.error.empty()) done_.error = "a GPU operation failed: " + failure.error().message;
  }

  int device_;
  std::deque<Op>& ops_;
  Completions& done_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::uint32_t> queue_;
  bool stop_ = false;
  std::thread thread_;
};

struct Gpu {
  int device = 0;
  cudaStream_t streams[kStreams] = {};
  std::unique_ptr<DeviceKernels> kernels;
  char* arena = nullptr;
  std::uint64_t arena_bytes = 0, top = 0;
  std::map<std::uint64_t, std::vector<std::uint64_t>> free_slots;  // by size
  std::vector<std::int64_t> slot;  // per data: offset in the arena, -1 when none
  std::vector<void*> address;      // per data: the device address, for the kernels
  // Launch-ahead: the engine hears that a task ended when its kernel starts, so copies that
  // touch its tiles wait on the kernel's real end event on the device.
  std::vector<cudaEvent_t> last_use;        // per data: end of the last kernel that used it here
  std::vector<cudaEvent_t> last_read_out;   // per data: end of the last copy reading it from here (write-back, load elsewhere)
  std::map<std::uint64_t, SlotWaits> slot_busy;  // per freed slot: its last tenant's last kernel and last copy out
  std::vector<SlotWaits> fill_after;        // per data: what its slot's previous tenant still does there
  char* outputs = nullptr;
  cudaEvent_t origin = nullptr;
  std::unique_ptr<StreamWatcher> watchers[kStreams];
  // Events made before the run: creating two per operation during it would add two traced
  // API calls to each (CUPTI's overhead grows with the calls).
  std::vector<cudaEvent_t> spare_events;
  std::uint32_t previous_kernel = kNoOp;  // the last operation queued on the compute stream
};

class CudaDevice final : public ExecutionDevice {
 public:
  // `host[d]`: data d's pinned host tile (what loads read, write-backs write and fills copy).
  CudaDevice(const Workload& workload, const KernelPlan& plan, std::vector<void*> host, const ExecuteOptions& options)
      : w_(workload), plan_(plan), host_(std::move(host)), options_(options) {}
  ~CudaDevice() override { teardown(); }

  Status setup();
  void begin_clock();

  void start_load(std::uint32_t transfer, std::uint32_t node, DataId data, std::int32_t source) override {
    if (!ensure_slot(node, data)) return;
    Gpu& gpu = gpus_[node];
    const std::uint32_t index = new_op(OpType::Load, node, transfer, kNoId, data);
    ops_[index].source = source;
    const std::size_t bytes = w_.data()[data].bytes;
    tag(external_id(ExternalKind::Load, index));
    use(gpu.device);
    wait_for_slot(gpu, data, gpu.streams[kToDevice]);
    if (source != kFromHost && gpus_[static_cast<std::size_t>(source)].last_use[data]) {
      check(TILELENS_CUDA(cudaStreamWaitEvent(gpu.streams[kToDevice], gpus_[static_cast<std::size_t>(source)].last_use[data], 0)));
    }
    check(TILELENS_CUDA(cudaEventRecord(ops_[index].start, gpu.streams[kToDevice])));
    if (bytes == 0) {
      // a data of no bytes (a token ordering an imported workload's tasks): nothing to copy
    } else if (source == kFromHost) {
      check(TILELENS_CUDA(cudaMemcpyAsync(gpu.address[data], host_[data], bytes, cudaMemcpyHostToDevice, gpu.streams[kToDevice])));
    } else {
      const Gpu& from = gpus_[static_cast<std::size_t>(source)];
      check(TILELENS_CUDA(cudaMemcpyPeerAsync(gpu.address[data], gpu.device, from.address[data], from.device, bytes, gpu.streams[kToDevice])));
    }
    check(TILELENS_CUDA(cudaEventRecord(ops_[index].end, gpu.streams[kToDevice])));
    untag();
    // The source's copy may be evicted while this one reads it: its slot waits for the copy too.
    if (source != kFromHost) gpus_[static_cast<std::size_t>(source)].last_read_out[data] = ops_[index].end;
    watch(node, kToDevice, index);
  }

  void start_writeback(std::uint32_t transfer, std::uint32_t node, DataId data) override {
    Gpu& gpu = gpus_[node];
    const std::uint32_t index = new_op(OpType::Writeback, node, transfer, kNoId, data);
    tag(external_id(ExternalKind::Writeback, index));
    use(gpu.device);
    if (gpu.last_use[data]) check(TILELENS_CUDA(cudaStreamWaitEvent(gpu.streams[kToHost], gpu.last_use[data], 0)));
    check(TILELENS_CUDA(cudaEventRecord(ops_[index].start, gpu.streams[kToHost])));
    if (w_.data()[data].bytes > 0) {
      check(TILELENS_CUDA(cudaMemcpyAsync(host_[data], gpu.address[data], w_.data()[data].bytes, cudaMemcpyDeviceToHost,
                                          gpu.streams[kToHost])));
    }
    check(TILELENS_CUDA(cudaEventRecord(ops_[index].end, gpu.streams[kToHost])));
    untag();
    // A copy freed while this one reads it keeps its slot until it ends.
    gpu.last_read_out[data] = ops_[index].end;
    watch(node, kToHost, index);
  }

  void allocate(std::uint32_t node, DataId data) override { ensure_slot(node, data); }

  void release(std::uint32_t node, DataId data) override {
    Gpu& gpu = gpus_[node];
    const std::int64_t offset = gpu.slot[data];
    if (offset < 0) return;
    gpu.free_slots[w_.data()[data].bytes].push_back(static_cast<std::uint64_t>(offset));
    const SlotWaits busy{gpu.last_use[data], gpu.last_read_out[data]};
    if (busy[0] || busy[1]) gpu.slot_busy[static_cast<std::uint64_t>(offset)] = busy;
    else gpu.slot_busy.erase(static_cast<std::uint64_t>(offset));
    gpu.last_use[data] = nullptr;
    gpu.last_read_out[data] = nullptr;
    gpu.fill_after[data] = {nullptr, nullptr};
    gpu.slot[data] = -1;
    gpu.address[data] = nullptr;
  }

  std::int64_t start_task(GpuId worker, TaskId task) override {
    Gpu& gpu = gpus_[worker];
    const std::uint32_t index = new_op(OpType::Kernel, worker, worker, task, kNoId);
    task_op_[task] = index;
    tag(external_id(ExternalKind::Task, task));
    use(gpu.device);
    // A tile written without a load first (a fill, an allocated output) may sit in a slot whose
    // previous tenant is still being copied to another GPU on that GPU's stream: wait for it.
    for (const Access& access : w_.accesses(task)) wait_for_slot(gpu, access.data, gpu.streams[kCompute]);
    check(TILELENS_CUDA(cudaEventRecord(ops_[index].start, gpu.streams[kCompute])));
    const TaskKernel& kernel = plan_.tasks[task];
    void* output = kernel.output == kNoId ? nullptr : gpu.outputs + static_cast<std::size_t>(kernel.output) * output_tile_bytes();
    // A fill copies the tile's seeded values, which its host tile holds: a fill is the data's
    // first access (plan_imported makes no other fill), so no write-back has replaced them.
    const void* fill_from = kernel.op == instrument::Op::Fill ? host_[kernel.target] : nullptr;
    if (auto status = gpu.kernels->launch(kernel, gpu.address, output, fill_from); !status) fail(w_.task_label(task) + ": " + status.error().message);
    check(TILELENS_CUDA(cudaEventRecord(ops_[index].end, gpu.streams[kCompute])));
    untag();
    for (const Access& access : w_.accesses(task)) gpu.last_use[access.data] = ops_[index].end;
    // Launch-ahead D: the engine hears of this task's end when the kernel D - 1 places before
    // it on the stream starts, at once when there is none (D = 2, the first kernel).
    const std::uint32_t ahead = std::min(options_.launch_ahead, kLaunchAheadMax);
    if (ahead == 1) {
      ops_[index].signal = ops_[index].start;
    } else if (ahead >= 2) {
      ops_[index].signal = gpu.previous_kernel == kNoOp ? nullptr : ops_[gpu.previous_kernel].start;
    }
    gpu.previous_kernel = index;
    watch(worker, kCompute, index);
    return kUnknownEnd;
  }

  std::int64_t wait(std::vector<std::uint32_t>& transfers, std::vector<GpuId>& workers) override {
    if (in_flight_ == 0 || !error_.empty()) return kNothingInFlight;
    std::uint32_t spins = 0;
    while (done_.count.load(std::memory_order_acquire) == seen_) {
      if (++spins < 4096) {
#if defined(__x86_64__)
        _mm_pause();
#endif
      } else {
        std::this_thread::yield();
      }
    }
    std::vector<std::uint32_t> ended;
    {
      std::lock_guard lock(done_.mutex);
      ended.swap(done_.ops);
      seen_ += ended.size();
      if (!done_.error.empty()) fail(done_.error);
    }
    for (std::uint32_t index : ended) {
      --in_flight_;
      const Op& op = ops_[index];
      if (op.type == OpType::Kernel) workers.push_back(op.engine_id);
      else transfers.push_back(op.engine_id);
    }
    return now();
  }

  std::int64_t now() const override { return steady_ns() - host_origin_; }

  const std::string& error() const { return error_; }
  const std::string& measure_error() const { return measure_error_; }
  // Waits until every GPU has run all that was queued.
  Status drain();
  // After drain(): checks the factorizations, and brings the outputs back.
  Status finish();
  // Rewrites the engine's trace with the times the events measured, and the summary to match.
  void measure(Trace& trace, ReplaySummary& summary, const std::vector<CuptiRecord>* cupti) const;
  void teardown();
  double output_pool_bytes() const { return instrument::output_pool_bytes(plan_); }
  // After finish(): each GPU's output pool, as bytes (the products' result is their sum).
  const std::vector<std::vector<unsigned char>>& output_pools() const { return pools_; }

 private:
  std::size_t output_tile_bytes() const { return instrument::output_tile_bytes(plan_); }
  void fail(const std::string& message) {
    if (error_.empty()) error_ = message;
  }
  void check(const Status& status) {
    if (!status) fail(status.error().message);
  }
  void tag(std::uint64_t external) {
    if (options_.cupti) CuptiRecorder::push(external);
  }
  void untag() {
    if (options_.cupti) CuptiRecorder::pop();
  }
  std::uint32_t new_op(OpType type, std::uint32_t gpu, std::uint32_t engine_id, TaskId task, DataId data) {
    std::uint32_t index = 0;
    {
      std::lock_guard lock(done_.mutex);
      index = static_cast<std::uint32_t>(ops_.size());
      ops_.push_back({type, gpu, engine_id, task, data, kFromHost, nullptr, nullptr});
    }
    Op& op = ops_[index];
    use(gpus_[gpu].device);
    op.start = event(gpus_[gpu]);
    op.end = event(gpus_[gpu]);
    op.signal = op.end;
    return index;
  }
  // The engine's thread selects a device only when it changes (each call is one more API
  // call for CUPTI to trace).
  void use(int device) {
    if (device == current_device_) return;
    check(TILELENS_CUDA(cudaSetDevice(device)));
    current_device_ = device;
  }
  cudaEvent_t event(Gpu& gpu) {
    cudaEvent_t e = nullptr;
    if (!gpu.spare_events.empty()) {
      e = gpu.spare_events.back();
      gpu.spare_events.pop_back();
    } else {
      check(TILELENS_CUDA(cudaEventCreate(&e)));
    }
    return e;
  }
  // The first operation to write data's slot waits, on its stream, for what the slot's
  // previous tenant still does there.
  void wait_for_slot(Gpu& gpu, DataId data, cudaStream_t stream) {
    for (cudaEvent_t& busy : gpu.fill_after[data]) {
      if (!busy) continue;
      check(TILELENS_CUDA(cudaStreamWaitEvent(stream, busy, 0)));
      busy = nullptr;
    }
  }
  void watch(std::uint32_t gpu, StreamRole role, std::uint32_t index) {
    ++in_flight_;
    gpus_[gpu].watchers[role]->watch(index);
  }
  bool ensure_slot(std::uint32_t node, DataId data) {
    Gpu& gpu = gpus_[node];
    if (gpu.slot[data] >= 0) return true;
    const std::uint64_t bytes = w_.data()[data].bytes;
    auto& free = gpu.free_slots[bytes];
    std::uint64_t offset = 0;
    if (!free.empty()) {
      offset = free.back();
      free.pop_back();
      if (const auto busy = gpu.slot_busy.find(offset); busy != gpu.slot_busy.end()) {
        gpu.fill_after[data] = busy->second;  // the load or the kernel that first writes the slot waits on them
        gpu.slot_busy.erase(busy);
      }
    } else if (gpu.top + bytes <= gpu.arena_bytes) {
      offset = gpu.top;
      gpu.top += arena_slot_bytes(bytes);
    } else {
      // The engine keeps reserved bytes within M; with data of several sizes, slots of one
      // size cannot serve another and the arena can run out first.
      fail("GPU " + std::to_string(node) + ": no free slot of " + std::to_string(bytes) + " bytes in the arena of " +
           std::to_string(gpu.arena_bytes) + " bytes (slots of other sizes hold the rest)");
      return false;
    }
    gpu.slot[data] = static_cast<std::int64_t>(offset);
    gpu.address[data] = gpu.arena + offset;
    return true;
  }
  Status warm_up(Gpu& gpu);

  const Workload& w_;
  const KernelPlan& plan_;
  std::vector<void*> host_;
  std::vector<std::vector<unsigned char>> pools_;
  const ExecuteOptions& options_;
  std::vector<Gpu> gpus_;
  std::deque<Op> ops_;
  Completions done_;
  std::uint64_t seen_ = 0;
  std::uint64_t in_flight_ = 0;
  std::vector<std::uint32_t> task_op_;
  std::int64_t host_origin_ = 0;
  int current_device_ = -1;
  std::string error_;
  mutable std::string measure_error_;  // the first event whose time could not be read
};

Status CudaDevice::setup() {
  int count = 0;
  TILELENS_CUDA_TRY(cudaGetDeviceCount(&count));
  const std::uint32_t K = options_.platform.gpus;
  const int devices_needed = options_.logical_gpus ? 1 : static_cast<int>(K);
  if (options_.first_device < 0 || options_.first_device + devices_needed > count) {
    return make_error("the platform has " + std::to_string(K) + (options_.logical_gpus ? " logical GPUs on device " : " GPUs from device ") +
                      std::to_string(options_.first_device) + ", and this machine has " + std::to_string(count));
  }
  task_op_.assign(w_.task_count(), kNoId);
  gpus_.resize(K);
  const std::uint64_t arena = static_cast<std::uint64_t>(options_.platform.memory_bytes);
  for (std::uint32_t g = 0; g < K; ++g) {
    Gpu& gpu = gpus_[g];
    gpu.device = options_.first_device + (options_.logical_gpus ? 0 : static_cast<int>(g));
    TILELENS_CUDA_TRY(cudaSetDevice(gpu.device));
    for (auto& stream : gpu.streams) {
      TILELENS_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    }
    auto kernels = DeviceKernels::create(gpu.streams[kCompute], plan_.b, plan_.precision, options_.tf32);
    if (!kernels) return kernels.error();
    gpu.kernels = std::make_unique<DeviceKernels>(std::move(*kernels));
    gpu.arena_bytes = arena;
    if (auto s = TILELENS_CUDA(cudaMalloc(&gpu.arena, arena)); !s) {
      return make_error(s.error().message + " (M = " + std::to_string(arena) + " bytes on device " + std::to_string(gpu.device) + ")");
    }
    if (plan_.outputs > 0) {
      const std::size_t bytes = static_cast<std::size_t>(output_pool_bytes());
      if (auto s = TILELENS_CUDA(cudaMalloc(&gpu.outputs, bytes)); !s) {
        return make_error(s.error().message + " (the products' outputs take " + std::to_string(bytes) + " bytes outside M)");
      }
      TILELENS_CUDA_TRY(cudaMemset(gpu.outputs, 0, bytes));
    }
    if (auto s = warm_up(gpu); !s) return s;
    gpu.slot.assign(w_.data_count(), -1);
    gpu.address.assign(w_.data_count(), nullptr);
    TILELENS_CUDA_TRY(cudaEventCreate(&gpu.origin));
    for (std::uint32_t role = 0; role < kStreams; ++role) {
      gpu.watchers[role] = std::make_unique<StreamWatcher>(gpu.device, ops_, done_);
    }
    gpu.last_use.assign(w_.data_count(), nullptr);
    gpu.last_read_out.assign(w_.data_count(), nullptr);
    gpu.fill_after.assign(w_.data_count(), SlotWaits{nullptr, nullptr});
    // Each task brings a kernel and, on average, a few copies; more are made if needed.
    const std::size_t expected = 2 * (3 * w_.task_count() / K + w_.data_count() + 16);
    gpu.spare_events.resize(expected);
    for (auto& e : gpu.spare_events) {
      TILELENS_CUDA_TRY(cudaEventCreate(&e));
    }
    // Peer access where the devices allow it (GPU-to-GPU loads go direct then).
    for (std::uint32_t h = 0; h < g; ++h) {
      if (gpus_[h].device == gpu.device) continue;  // logical GPUs: a copy within one device
      int can = 0;
      TILELENS_CUDA_TRY(cudaDeviceCanAccessPeer(&can, gpu.device, gpus_[h].device));
      if (!can) continue;
      try_enable_peer_access(gpus_[h].device);
      TILELENS_CUDA_TRY(cudaSetDevice(gpus_[h].device));
      try_enable_peer_access(gpu.device);
      TILELENS_CUDA_TRY(cudaSetDevice(gpu.device));
    }
  }
  for (std::uint32_t g = 0; g < K; ++g) {
    TILELENS_CUDA_TRY(cudaSetDevice(gpus_[g].device));
    TILELENS_CUDA_TRY(cudaDeviceSynchronize());
  }
  return Status::success();
}

// Each kernel the plan uses, once, on scratch tiles: CUDA loads modules lazily at a kernel's
// first launch (about 90 ms for cuBLAS's GEMMs on an H100), which must not count in the run.
Status CudaDevice::warm_up(Gpu& gpu) {
  std::size_t largest = output_tile_bytes();
  for (const Data& d : w_.data()) largest = std::max<std::size_t>(largest, d.bytes);
  char* scratch = nullptr;
  TILELENS_CUDA_TRY(cudaMalloc(&scratch, 4 * largest));
  if (const Status zeroed = TILELENS_CUDA(cudaMemset(scratch, 0, 4 * largest)); !zeroed) {
    (void)TILELENS_CUDA(cudaFree(scratch));
    return zeroed;
  }
  std::vector<void*> address = {scratch, scratch + largest, scratch + 2 * largest};
  std::map<std::tuple<int, std::int64_t, std::int64_t, std::int64_t>, TaskKernel> kinds;
  for (const TaskKernel& k : plan_.tasks) kinds.emplace(std::make_tuple(static_cast<int>(k.op), k.m, k.n, k.k), k);
  Status status = Status::success();
  for (auto& [key, kernel] : kinds) {
    TaskKernel k = kernel;
    k.a = k.a == kNoId ? kNoId : 0;
    k.b = k.b == kNoId ? kNoId : 1;
    k.target = k.target == kNoId ? kNoId : 2;
    if (k.op == instrument::Op::Fill) continue;  // a copy: nothing to load
    if (k.op == instrument::Op::Wait) k.wait_ns = 0;  // loads the wait kernel (the driver compiles its PTX) before the clock
    if (auto s = gpu.kernels->launch(k, address, scratch + 3 * largest); !s) {
      status = make_error("warm-up of " + std::string(to_string(k.op)) + ": " + s.error().message);
      break;
    }
  }
  (void)gpu.kernels->check_factorizations();  // zeros are not positive definite: the status means nothing here
  const Status synchronized = TILELENS_CUDA(cudaStreamSynchronize(gpu.streams[kCompute]));
  const Status freed = TILELENS_CUDA(cudaFree(scratch));
  return !status ? status : !synchronized ? synchronized : freed;
}

void CudaDevice::begin_clock() {
  host_origin_ = steady_ns();
  for (Gpu& gpu : gpus_) {
    check(TILELENS_CUDA(cudaSetDevice(gpu.device)));
    check(TILELENS_CUDA(cudaEventRecord(gpu.origin, gpu.streams[kCompute])));
  }
  current_device_ = gpus_.empty() ? -1 : gpus_.back().device;
}

Status CudaDevice::drain() {
  for (Gpu& gpu : gpus_) {
    TILELENS_CUDA_TRY(cudaSetDevice(gpu.device));
    TILELENS_CUDA_TRY(cudaDeviceSynchronize());
  }
  return Status::success();
}

Status CudaDevice::finish() {
  for (Gpu& gpu : gpus_) {
    TILELENS_CUDA_TRY(cudaSetDevice(gpu.device));
    // cholesky-tasks runs its kernels for their cost on tiles that no order keeps positive
    // definite: its status words mean nothing (numeric.hpp).
    const Status factorizations = gpu.kernels->check_factorizations();
    if (!factorizations && plan_.checkable) return factorizations;
  }
  if (plan_.outputs > 0) {
    pools_.clear();
    for (Gpu& gpu : gpus_) {
      TILELENS_CUDA_TRY(cudaSetDevice(gpu.device));
      auto& pool = pools_.emplace_back(static_cast<std::size_t>(plan_.outputs) * output_tile_bytes());
      TILELENS_CUDA_TRY(cudaMemcpy(pool.data(), gpu.outputs, pool.size(), cudaMemcpyDeviceToHost));
    }
  }
  return Status::success();
}

// Frees everything, whatever failed before; the first failure of the teardown itself is kept
// (a run that went well reports it).
void CudaDevice::teardown() {
  for (Gpu& gpu : gpus_) {
    check(TILELENS_CUDA(cudaSetDevice(gpu.device)));
    check(TILELENS_CUDA(cudaDeviceSynchronize()));
    for (auto& watcher : gpu.watchers) watcher.reset();
  }
  for (Op& op : ops_) {
    if (op.start) check(TILELENS_CUDA(cudaEventDestroy(op.start)));
    if (op.end) check(TILELENS_CUDA(cudaEventDestroy(op.end)));
  }
  for (Gpu& gpu : gpus_) {
    check(TILELENS_CUDA(cudaSetDevice(gpu.device)));
    for (cudaEvent_t e : gpu.spare_events) {
      if (e) check(TILELENS_CUDA(cudaEventDestroy(e)));
    }
    gpu.spare_events.clear();
  }
  ops_.clear();
  for (Gpu& gpu : gpus_) {
    check(TILELENS_CUDA(cudaSetDevice(gpu.device)));
    gpu.kernels.reset();
    if (gpu.origin) check(TILELENS_CUDA(cudaEventDestroy(gpu.origin)));
    if (gpu.arena) check(TILELENS_CUDA(cudaFree(gpu.arena)));
    if (gpu.outputs) check(TILELENS_CUDA(cudaFree(gpu.outputs)));
    for (auto& stream : gpu.streams) {
      if (stream) check(TILELENS_CUDA(cudaStreamDestroy(stream)));
    }
  }
  gpus_.clear();
}

void CudaDevice::measure(Trace& trace, ReplaySummary& summary, const std::vector<CuptiRecord>* cupti) const {
  const auto at = [&](const Gpu& gpu, cudaEvent_t event) {
    float ms = 0;
    if (const Status elapsed = TILELENS_CUDA(cudaEventElapsedTime(&ms, gpu.origin, event)); !elapsed && measure_error_.empty()) {
      measure_error_ = elapsed.error().message;
    }
    return static_cast<std::int64_t>(static_cast<double>(ms) * 1e6);
  };
  // With CUPTI, every time comes from its records, on one clock: a task's kernel time is the
  // span of the kernels it launched (POTRF launches several), a copy's its memcpy record.
  // Without CUPTI, from the events around each operation.
  using Span = std::pair<std::int64_t, std::int64_t>;
  std::vector<Span> kernel_span(w_.task_count(), {INT64_MAX, INT64_MIN});
  std::vector<Span> copy_span(ops_.size(), {INT64_MAX, INT64_MIN});
  if (cupti) {
    for (const CuptiRecord& r : *cupti) {
      if (r.external == 0) continue;
      const std::uint64_t index = external_index(r.external);
      Span* span = nullptr;
      // A task's time is that of its kernels; a fill's, of its copy.
      const bool task_work = external_kind(r.external) == ExternalKind::Task && index < kernel_span.size() &&
                             (r.kind == CuptiRecord::Kind::Kernel ||
                              (r.kind == CuptiRecord::Kind::Memcpy && plan_.tasks[index].op == instrument::Op::Fill));
      if (task_work) {
        span = &kernel_span[index];
      } else if (r.kind == CuptiRecord::Kind::Memcpy && external_kind(r.external) != ExternalKind::Task && index < copy_span.size()) {
        span = &copy_span[index];
      }
      if (!span) continue;
      span->first = std::min(span->first, r.start_ns);
      span->second = std::max(span->second, r.end_ns);
    }
  }
  const auto times_of = [&](std::uint32_t index) -> Span {
    const Span& span = copy_span[index];
    if (span.first <= span.second) return span;
    const Op& op = ops_[index];
    return {at(gpus_[op.gpu], op.start), at(gpus_[op.gpu], op.end)};
  };
  for (TaskRecord& t : trace.tasks) {
    const Op& op = ops_[task_op_[t.task]];
    const Gpu& gpu = gpus_[op.gpu];
    const auto& span = kernel_span[t.task];
    if (span.first <= span.second) {
      t.start_ns = span.first;
      t.end_ns = span.second;
    } else {
      t.start_ns = at(gpu, op.start);
      t.end_ns = at(gpu, op.end);
    }
  }
  // The k-th load (write-back) record of a (GPU, data) is its k-th load (write-back) issued.
  std::map<std::pair<std::uint32_t, DataId>, std::deque<std::uint32_t>> loads, writebacks;
  for (std::uint32_t i = 0; i < ops_.size(); ++i) {
    const Op& op = ops_[i];
    if (op.type == OpType::Load) loads[{op.gpu, op.data}].push_back(i);
    if (op.type == OpType::Writeback) writebacks[{op.gpu, op.data}].push_back(i);
  }
  for (LoadRecord& l : trace.loads) {
    auto& queue = loads[{static_cast<std::uint32_t>(l.gpu), l.data}];
    if (queue.empty()) continue;
    const Span times = times_of(queue.front());
    queue.pop_front();
    l.issue_ns = times.first;
    l.end_ns = times.second;
  }
  for (WritebackRecord& r : trace.writebacks) {
    auto& queue = writebacks[{static_cast<std::uint32_t>(r.gpu), r.data}];
    if (queue.empty()) continue;
    const Span times = times_of(queue.front());
    queue.pop_front();
    r.start_ns = times.first;
    r.end_ns = times.second;
  }
  // The loads classified again and the totals summed again on the measured times, by the
  // same rule and the same sum as the replay (trace/totals.hpp).
  classify_loads(trace);
  sum_trace(trace, summary);
}

template <class T>
Result<Tiles<T>> pinned_tiles(const Workload& workload, const KernelPlan& plan, std::uint64_t seed) {
  Tiles<T> tiles = make_tiles_as<T>(workload, plan, seed);
  for (std::size_t i = 0; i < tiles.data.size(); ++i) {
    auto& values = tiles.data[i];
    if (values.empty()) continue;  // a data of no bytes (a token ordering tasks)
    if (const Status pinned = TILELENS_CUDA(cudaHostRegister(values.data(), values.size() * sizeof(T), cudaHostRegisterDefault)); !pinned) {
      for (std::size_t j = 0; j < i; ++j) {
        if (!tiles.data[j].empty()) (void)TILELENS_CUDA(cudaHostUnregister(tiles.data[j].data()));  // freed unpinned
      }
      return pinned.error();
    }
  }
  return tiles;
}
template <class T>
Status unpin(Tiles<T>& tiles) {
  Status first = Status::success();
  for (auto& values : tiles.data) {
    if (values.empty()) continue;
    if (const Status s = TILELENS_CUDA(cudaHostUnregister(values.data())); !s && first) first = s;
  }
  return first;
}
template <class T>
std::vector<void*> host_addresses(Tiles<T>& tiles) {
  std::vector<void*> host;
  for (auto& values : tiles.data) host.push_back(values.data());
  return host;
}

}  // namespace

Status gpu_available() {
  auto device = probe_device();
  if (!device) return device.error();
  return Status::success();
}

namespace {

// The run in the plan's element type T: tiles, verification and the products' sum are typed;
// the device moves bytes.
template <class T>
Result<ExecuteResult> execute_typed(const Workload& workload, const KernelPlan& plan, Scheduler& scheduler, EvictionPolicy& eviction,
                                    const ExecuteOptions& options) {
  const std::int64_t setup_begin = steady_ns();
  auto tiles = pinned_tiles<T>(workload, plan, options.seed);
  if (!tiles) return tiles.error();
  struct Unpin {
    Tiles<T>& tiles;
    ~Unpin() { (void)unpin(tiles); }  // after the run: its result stands
  } unpin_at_exit{*tiles};
  // The factorizations overwrite their tiles: keep the input for the check.
  std::optional<Tiles<T>> input;
  if (plan.checkable && plan.outputs == 0 && options.verify_samples > 0) {
    input.emplace();
    input->data = tiles->data;
  }

  ExecuteResult result;
  std::unique_ptr<CuptiRecorder> recorder;
  CudaDevice device(workload, plan, host_addresses(*tiles), options);
  if (auto status = device.setup(); !status) return status.error();
  if (options.cupti) {
    auto started = CuptiRecorder::start(options.cupti_apis);
    if (!started) return started.error();
    recorder = std::move(*started);
  }
  result.measurement.setup_ns = steady_ns() - setup_begin;

  ReplayOptions replay_options;
  replay_options.platform = options.platform;
  replay_options.buffer_depth = options.buffer_depth;
  replay_options.memory_model = options.memory_model;
  // Data made on a GPU (an imported generator writes them first) are dropped at the end as
  // StarPU drops them; a run whose result is checked brings them home instead.
  replay_options.flush_all = plan.checkable && options.verify_samples > 0;
  replay_options.device = &device;
  TraceRecorder trace;
  if (recorder) recorder->set_origin();
  device.begin_clock();
  const std::int64_t run_begin = steady_ns();
  auto summary = replay(workload, scheduler, eviction, replay_options, &trace);
  // The engine returns once every operation was reported ended; with launch-ahead the last
  // kernels may still be queued then, so the wall time waits for the devices.
  const Status drained = device.drain();
  result.measurement.wall_ns = steady_ns() - run_begin;
  const Status finished = device.finish();
  std::optional<CuptiRecorder::Capture> capture;
  if (recorder) {
    auto captured = recorder->finish();
    if (!captured) return captured.error();
    capture = std::move(*captured);
  }
  if (!device.error().empty()) return make_error(device.error());
  if (!summary) return summary.error();
  if (!drained) return drained.error();
  if (!finished) return finished.error();

  // Each output was computed on one GPU; the others hold zeros there, so the sum of the pools is the result.
  for (const auto& bytes : device.output_pools()) {
    const T* pool = reinterpret_cast<const T*>(bytes.data());
    const std::size_t n = static_cast<std::size_t>(plan.output_n * plan.output_n);
    for (std::uint32_t o = 0; o < plan.outputs; ++o) {
      auto& out = tiles->outputs[o];
      for (std::size_t i = 0; i < n; ++i) out[i] += pool[o * n + i];
    }
  }
  result.summary = *summary;
  result.trace = std::move(trace.trace);
  device.measure(result.trace, result.summary, capture ? &capture->records : nullptr);
  if (!device.measure_error().empty()) return make_error(device.measure_error());
  device.teardown();
  if (!device.error().empty()) return make_error(device.error());

  Measurement& m = result.measurement;
  if (auto info = probe_device()) m.device = info->name;
  if (options.logical_gpus) m.device += " (" + std::to_string(options.platform.gpus) + " logical GPUs)";
  m.tf32 = options.tf32;
  m.seed = options.seed;
  if (options.cupti) m.cupti_apis = to_string(options.cupti_apis);
  m.launch_ahead = std::min(options.launch_ahead, kLaunchAheadMax);
  for (const std::string& line : plan_lines(workload, plan)) m.kernels += (m.kernels.empty() ? "" : "\n") + line;
  m.arena_bytes = options.platform.memory_bytes;
  m.output_pool_bytes = device.output_pool_bytes();
  if (capture) {
    m.cupti = true;
    m.cupti_records = capture->records.size();
    m.cupti_dropped = capture->dropped;
    result.cupti_records = std::move(capture->records);
  }
  if (options.verify_samples == 0) {
    m.verification = "not checked: --verify 0";
  } else if (!plan.checkable) {
    m.verification = "not checked: " + plan.what + " has no result to check";
  } else {
    const Verdict verdict = verify(workload, plan, input ? *input : *tiles, *tiles, options.verify_samples, options.seed,
                                   options.tf32 && plan.precision == Precision::Single ? 2e-2 : default_tolerance(plan.precision),
                                   options.verify_rows);
    m.worst_error = verdict.worst;
    m.tiles_checked = verdict.checked;
    if (!verdict.ok) return make_error("the result is wrong: " + verdict.detail);
    m.verification = std::string("passed (") + to_string(plan.precision) +
                     (replay_options.flush_all ? "; every datum was written home at the end to be checked" : "") + ")";
  }
  return result;
}

}  // namespace

Result<ExecuteResult> execute_on_gpus(const Workload& workload, Scheduler& scheduler, EvictionPolicy& eviction,
                                      const ExecuteOptions& options) {
  if (auto status = gpu_available(); !status) return status.error();
  if (options.platform.cpus > 0 || options.platform.workers_per_memory != 1) {
    return make_error("the executor runs one worker per GPU (no CPU workers, no shared memories)");
  }
  auto plan = plan_kernels(workload, options.plan);
  if (!plan) return plan.error();
  if (plan->precision == Precision::Double) return execute_typed<double>(workload, *plan, scheduler, eviction, options);
  return execute_typed<float>(workload, *plan, scheduler, eviction, options);
}

namespace {

template <class T>
Result<BareFigures> measure_bare_typed(const Workload& workload, const KernelPlan& plan, bool tf32, std::size_t copies, int device_index) {
  BareFigures figures;
  TILELENS_CUDA_TRY(cudaSetDevice(device_index));
  auto tiles = pinned_tiles<T>(workload, plan, 1);
  if (!tiles) return tiles.error();
  cudaStream_t stream = nullptr;
  if (const Status created = TILELENS_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); !created) {
    (void)unpin(*tiles);
    return created.error();
  }
  // Freed whatever happens; a failure here comes after the figures, which stand.
  struct Cleanup {
    Tiles<T>& tiles;
    cudaStream_t stream;
    std::vector<void*> buffers;
    std::vector<cudaEvent_t> events;
    ~Cleanup() {
      (void)TILELENS_CUDA(cudaStreamSynchronize(stream));
      for (void* b : buffers) (void)TILELENS_CUDA(cudaFree(b));
      for (cudaEvent_t e : events) (void)TILELENS_CUDA(cudaEventDestroy(e));
      (void)TILELENS_CUDA(cudaStreamDestroy(stream));
      (void)unpin(tiles);
    }
  } cleanup{*tiles, stream, {}, {}};
  std::vector<void*> address(workload.data_count(), nullptr);
  for (DataId d = 0; d < workload.data_count(); ++d) {
    if (workload.data()[d].bytes == 0) continue;
    void* p = nullptr;
    TILELENS_CUDA_TRY(cudaMalloc(&p, workload.data()[d].bytes));
    cleanup.buffers.push_back(p);
    address[d] = p;
    TILELENS_CUDA_TRY(cudaMemcpy(p, tiles->data[d].data(), workload.data()[d].bytes, cudaMemcpyHostToDevice));
  }
  const std::size_t output_tile_bytes = instrument::output_tile_bytes(plan);
  char* outputs = nullptr;
  if (plan.outputs > 0) {
    void* p = nullptr;
    TILELENS_CUDA_TRY(cudaMalloc(&p, static_cast<std::size_t>(plan.outputs) * output_tile_bytes));
    cleanup.buffers.push_back(p);
    outputs = static_cast<char*>(p);
  }
  auto kernels = DeviceKernels::create(stream, plan.b, plan.precision, tf32);
  if (!kernels) return kernels.error();
  cudaEvent_t begin = nullptr, end = nullptr;
  TILELENS_CUDA_TRY(cudaEventCreate(&begin));
  cleanup.events.push_back(begin);
  TILELENS_CUDA_TRY(cudaEventCreate(&end));
  cleanup.events.push_back(end);
  const auto run_all = [&]() -> Status {
    for (TaskId t : workload.submission_order()) {
      const TaskKernel& k = plan.tasks[t];
      void* out = k.output == kNoId ? nullptr : outputs + static_cast<std::size_t>(k.output) * output_tile_bytes;
      const void* fill_from = k.op == instrument::Op::Fill ? tiles->data[k.target].data() : nullptr;
      if (auto s = kernels->launch(k, address, out, fill_from); !s) return s;
    }
    return Status::success();
  };
  if (auto s = run_all(); !s) return s.error();  // warm-up (module load, handles)
  TILELENS_CUDA_TRY(cudaStreamSynchronize(stream));
  TILELENS_CUDA_TRY(cudaEventRecord(begin, stream));
  if (auto s = run_all(); !s) return s.error();
  TILELENS_CUDA_TRY(cudaEventRecord(end, stream));
  TILELENS_CUDA_TRY(cudaEventSynchronize(end));
  float ms = 0;
  TILELENS_CUDA_TRY(cudaEventElapsedTime(&ms, begin, end));
  figures.gflops = workload.total_flops() / (static_cast<double>(ms) * 1e6);
  (void)kernels->check_factorizations();  // a factorization run twice on its own output: the status means nothing here

  // Copies of the largest data, pinned, one after another on one stream.
  DataId largest = 0;
  for (DataId d = 0; d < workload.data_count(); ++d) {
    if (workload.data()[d].bytes > workload.data()[largest].bytes) largest = d;
  }
  const std::size_t bytes = workload.data()[largest].bytes;
  const auto time_copies = [&](bool to_device) -> Result<double> {
    TILELENS_CUDA_TRY(cudaEventRecord(begin, stream));
    for (std::size_t i = 0; i < copies; ++i) {
      if (to_device) TILELENS_CUDA_TRY(cudaMemcpyAsync(address[largest], tiles->data[largest].data(), bytes, cudaMemcpyHostToDevice, stream));
      else TILELENS_CUDA_TRY(cudaMemcpyAsync(tiles->data[largest].data(), address[largest], bytes, cudaMemcpyDeviceToHost, stream));
    }
    TILELENS_CUDA_TRY(cudaEventRecord(end, stream));
    TILELENS_CUDA_TRY(cudaEventSynchronize(end));
    float elapsed = 0;
    TILELENS_CUDA_TRY(cudaEventElapsedTime(&elapsed, begin, end));
    return static_cast<double>(bytes) * static_cast<double>(copies) / (static_cast<double>(elapsed) * 1e-3);
  };
  if (auto warm = time_copies(true); !warm) return warm.error();
  auto h2d = time_copies(true);
  if (!h2d) return h2d.error();
  auto d2h = time_copies(false);
  if (!d2h) return d2h.error();
  figures.h2d_bytes_per_s = *h2d;
  figures.d2h_bytes_per_s = *d2h;
  return figures;
}

}  // namespace

Result<BareFigures> measure_bare_on_gpu(const Workload& workload, bool tf32, std::size_t copies, int device_index) {
  if (auto status = gpu_available(); !status) return status.error();
  auto plan = plan_kernels(workload);
  if (!plan) return plan.error();
  if (plan->precision == Precision::Double) return measure_bare_typed<double>(workload, *plan, tf32, copies, device_index);
  return measure_bare_typed<float>(workload, *plan, tf32, copies, device_index);
}

}  // namespace tilelens::instrument
