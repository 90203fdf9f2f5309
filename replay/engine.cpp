// The replay engine; see engine.hpp for what it models.
#include "replay/engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "replay/channel.hpp"
#include "replay/network.hpp"
#include "model/units.hpp"

namespace tilelens {
namespace {

// A cheap wall clock for the scheduling-time accounting: the TSC on x86-64 (a few ns per
// read, calibrated once per process against steady_clock), steady_clock elsewhere.
#if defined(__x86_64__)
std::uint64_t wall_ticks() { return __rdtsc(); }
double ns_per_tick() {
  static const double ratio = [] {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t c0 = __rdtsc();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(2)) {
    }
    const auto t1 = std::chrono::steady_clock::now();
    const std::uint64_t c1 = __rdtsc();
    return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) /
           static_cast<double>(c1 - c0);
  }();
  return ratio;
}
#else
std::uint64_t wall_ticks() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}
double ns_per_tick() { return 1.0; }
#endif

enum class Copy : std::uint8_t { Absent, Loading, Resident, Evicting };

struct Transfer {
  bool is_load = true;
  DataId data = 0;
  std::uint32_t node = 0;    // memory node: destination of a load, source of a write-back
  std::int32_t source = kFromHost;
  std::int64_t start_ns = 0;
  std::uint32_t channel = 0;
  bool on_tree = false;       // crosses the PCIe tree (FluidNetwork) instead of one channel
  std::uint32_t version = 0;  // a write-back: the version of the data it carries
  FluidNetwork::Path path;
  WritebackCause cause = WritebackCause::Eviction;
};

struct OpenLoad {  // a load not yet classified (fetch / prefetch / unused)
  std::int32_t source = kFromHost;
  std::int64_t issue_ns = 0;
  std::int64_t end_ns = 0;
};

struct Worker {
  std::vector<TaskId> held;  // the running task first while one runs, then the buffer
  bool running = false;
  bool cpu = false;          // computes from host memory
  std::uint32_t node = 0;    // its memory node (GPU workers)
  std::int64_t start_ns = 0, end_ns = 0;
  std::int64_t free_since = 0;
  std::uint64_t started = 0;
  GpuSummary summary;        // tasks and busy time; a node's memory counters go to its first worker
};

struct Node {  // a bounded memory, shared by one or more workers
  double used = 0;          // reserved bytes: resident, loading and being evicted
  double pending_free = 0;  // bytes of copies being written back before their eviction
  GpuId first = 0;          // its first worker: the name memory records give it
  std::vector<GpuId> workers;
};

constexpr double kHostFreeBytes = 1e300;

class Engine final : public MemoryView, public BufferView {
 public:
  Engine(const Workload& workload, Scheduler& scheduler, EvictionPolicy& policy, const ReplayOptions& options,
         ReplayObserver* observer)
      : w_(workload), scheduler_(scheduler), policy_(policy), options_(options), observer_(observer),
        W_(options.platform.workers()), N_(options.platform.memory_nodes()), nd_(workload.data_count()) {}

  Result<ReplaySummary> run();

  ReplicaState host_state(DataId data) const override {
    if (host_valid_[data]) return ReplicaState::Resident;
    return writeback_from_[data] >= 0 ? ReplicaState::Loading : ReplicaState::Absent;
  }
  ReplicaState state(GpuId worker, DataId data) const override {
    if (workers_[worker].cpu) return host_state(data);
    switch (copy_[slot(workers_[worker].node, data)]) {
      case Copy::Loading: return ReplicaState::Loading;
      case Copy::Resident: return ReplicaState::Resident;
      default: return ReplicaState::Absent;
    }
  }
  double free_bytes(GpuId worker) const override {
    return workers_[worker].cpu ? kHostFreeBytes : options_.platform.memory_bytes - nodes_[workers_[worker].node].used;
  }
  std::span<const TaskId> held(GpuId worker) const override { return workers_[worker].held; }

 private:
  std::size_t slot(std::uint32_t node, DataId data) const { return static_cast<std::size_t>(node) * nd_ + data; }
  double bytes_of(DataId data) const { return static_cast<double>(w_.data()[data].bytes); }
  GpuSummary& node_summary(std::uint32_t n) { return workers_[nodes_[n].first].summary; }

  // Charges the wall time of a call to the scheduler or the policy to `total` (in ticks,
  // converted to ns at the end). Called around every hook, so it must be cheap.
  template <class F>
  auto timed(std::int64_t& total, F&& call) {
    struct Charge {
      std::int64_t& total;
      std::uint64_t begin;
      ~Charge() { total += static_cast<std::int64_t>(wall_ticks() - begin); }
    } charge{total, wall_ticks()};
    return call();
  }
  // The scheduler's memory hooks, once per worker of the node (each sees its memory change).
  template <class F>
  void tell_workers(std::uint32_t n, F&& hook) {
    for (GpuId v : nodes_[n].workers) timed(summary_.scheduling_ns, [&] { hook(v); });
  }

  void fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }

  void fill_buffers();
  void dispatch(GpuId g);
  void try_start(GpuId g);
  void issue_requests(GpuId g);
  void request_host_copies(GpuId g);
  bool head_before(GpuId a, GpuId b) const;
  bool make_room(GpuId g, double bytes, std::size_t index);
  void evict(std::uint32_t n, DataId d, TaskId for_task);
  void free_copy(std::uint32_t n, DataId d, TaskId for_task, EvictionCause cause, bool wrote_back);
  void invalidate_copies(DataId d, std::uint32_t keep, TaskId writer);
  void request_load(std::uint32_t n, DataId d);
  void start_load(std::uint32_t n, DataId d, std::int32_t source);
  void start_writeback(std::uint32_t n, DataId d, WritebackCause cause);
  std::uint32_t start_transfer(const Transfer& transfer, double bytes);
  void finish_transfer(std::uint32_t id);
  void finish_task(GpuId g);
  void release(TaskId task);
  void notify_future(DataId d);
  void emit_load(std::uint32_t n, DataId d, LoadKind kind, TaskId task);
  std::int64_t next_event() const;
  std::int64_t wait_device();
  void step(std::int64_t now);
  void flush();
  std::int64_t duration_of(TaskId task, GpuId g) const;

  const Workload& w_;
  Scheduler& scheduler_;
  EvictionPolicy& policy_;
  const ReplayOptions& options_;
  ReplayObserver* observer_;
  const std::uint32_t W_;  // workers
  const std::uint32_t N_;  // bounded memory nodes
  const std::size_t nd_;

  std::int64_t now_ = 0;
  std::string error_;
  ReplaySummary summary_;
  std::vector<Worker> workers_;
  std::vector<Node> nodes_;
  bool cpus_used_ = false;               // the scheduler hands tasks to CPU workers
  std::vector<Copy> copy_;               // per (node, data)
  std::vector<std::uint32_t> open_load_;  // per (node, data): index in open_loads_ or kNoId
  std::vector<OpenLoad> open_loads_;
  std::vector<std::uint32_t> free_open_loads_;
  std::vector<std::uint32_t> protect_;  // per (node, data): stamp of the last protection pass
  std::uint32_t protect_stamp_ = 0;
  std::vector<TaskId> evict_for_;       // per (node, data): whose request started an eviction write-back
  std::vector<char> host_valid_;
  std::vector<std::uint16_t> holders_;  // nodes holding a valid copy (resident or being evicted)
  std::vector<std::uint32_t> version_;  // per data: writes completed so far
  std::vector<char> stale_;             // per (node, data): an evicting copy of an older version
  std::vector<std::int32_t> writeback_from_;
  std::vector<std::vector<std::uint32_t>> waiting_for_host_;  // nodes waiting for a write-back to load
  std::vector<std::uint32_t> missing_preds_;
  std::vector<std::int64_t> buffered_at_;
  std::vector<char> pushed_, popped_;
  std::vector<double> kind_rate_, cpu_kind_rate_;
  std::vector<FluidChannel> channels_;
  // The PCIe tree when the platform has one: per direction the host link, each switch's
  // upstream link and each GPU's own link (indices into tree_).
  FluidNetwork tree_;
  std::uint32_t host_down_ = 0, host_up_ = 0;
  std::vector<std::uint32_t> switch_down_, switch_up_, gpu_down_, gpu_up_;
  FluidNetwork::Path tree_path(std::uint32_t n, bool to_gpu) const;
  void add_to_link(std::uint32_t id, double bytes);
  std::vector<Transfer> transfers_;
  std::vector<std::uint32_t> free_transfers_;
  std::deque<std::pair<std::int64_t, std::uint32_t>> joins_;  // transfers waiting out their latency
  std::vector<std::uint32_t> completed_;
  std::vector<GpuId> finished_;  // a real device's workers whose task ended
  ExecutionDevice* device_ = nullptr;
  std::size_t done_ = 0;
  std::uint64_t started_ = 0;
  bool flushed_ = false;
};

std::int64_t Engine::duration_of(TaskId task, GpuId g) const {
  const Task& t = w_.tasks()[task];
  const double rate = workers_[g].cpu ? cpu_kind_rate_[t.kind] : kind_rate_[t.kind];
  return static_cast<std::int64_t>(std::ceil(t.flops / rate));  // 1 GFlop/s = 1 flop per ns
}

Result<ReplaySummary> Engine::run() {
  const Platform& platform = options_.platform;
  if (auto status = check_platform(platform, w_); !status) return status.error();
  if (options_.buffer_depth == 0) return make_error("the task buffer depth must be at least 1");
  if (W_ > 4096) return make_error("at most 4096 workers");
  device_ = options_.device;
  if (device_ && platform.cpus > 0) return make_error("the real executor runs tasks on GPUs only (no CPU workers)");

  workers_.assign(W_, {});
  nodes_.assign(N_, {});
  for (GpuId g = 0; g < W_; ++g) {
    workers_[g].cpu = platform.is_cpu_worker(g);
    if (workers_[g].cpu) continue;
    workers_[g].node = platform.memory_node_of(g);
    nodes_[workers_[g].node].workers.push_back(g);
  }
  for (std::uint32_t n = 0; n < N_; ++n) nodes_[n].first = platform.first_worker_of(n);
  cpus_used_ = platform.cpus > 0 && scheduler_.uses_cpu_workers();
  for (const auto& kind : w_.kinds()) {
    kind_rate_.push_back(platform.gflops_of(kind));
    cpu_kind_rate_.push_back(platform.cpu_gflops_of(kind));
    if (!(kind_rate_.back() > 0) && !cpus_used_) {
      return make_error(kind + " tasks run only on CPU workers, and this scheduler hands tasks to GPUs only");
    }
  }
  copy_.assign(N_ * nd_, Copy::Absent);
  open_load_.assign(N_ * nd_, kNoId);
  protect_.assign(N_ * nd_, 0);
  evict_for_.assign(N_ * nd_, kNoId);
  host_valid_.assign(nd_, 1);
  holders_.assign(nd_, 0);
  version_.assign(nd_, 0);
  stale_.assign(N_ * nd_, 0);
  writeback_from_.assign(nd_, -1);
  waiting_for_host_.assign(nd_, {});
  buffered_at_.assign(w_.task_count(), 0);
  pushed_.assign(w_.task_count(), 0);
  popped_.assign(w_.task_count(), 0);
  channels_.emplace_back(platform.bus_bandwidth);  // 0: host to GPUs
  channels_.emplace_back(platform.bus_bandwidth);  // 1: GPUs to host
  if (platform.gpu_link_bandwidth > 0) {
    for (std::uint32_t i = 0; i < N_ * N_; ++i) channels_.emplace_back(platform.gpu_link_bandwidth);
  }
  if (platform.has_pcie_tree()) {
    host_down_ = tree_.add_link(platform.bus_bandwidth);
    host_up_ = tree_.add_link(platform.bus_bandwidth);
    if (platform.gpus_per_switch > 0 && platform.switch_bandwidth > 0) {
      for (std::uint32_t s = 0; s < (N_ + platform.gpus_per_switch - 1) / platform.gpus_per_switch; ++s) {
        switch_down_.push_back(tree_.add_link(platform.switch_bandwidth));
        switch_up_.push_back(tree_.add_link(platform.switch_bandwidth));
      }
    }
    if (platform.gpu_bus_bandwidth > 0) {
      for (std::uint32_t n = 0; n < N_; ++n) {
        gpu_down_.push_back(tree_.add_link(platform.gpu_bus_bandwidth));
        gpu_up_.push_back(tree_.add_link(platform.gpu_bus_bandwidth));
      }
    }
  }
  summary_.gpus.assign(W_, {});
  summary_.total_flops = w_.total_flops();

  SchedulerContext context;
  context.memory = this;
  context.future_changed = [this](DataId d) { notify_future(d); };
  std::int64_t prepare_ticks = 0;
  timed(prepare_ticks, [&] { scheduler_.prepare(w_, platform, context); });
  summary_.scheduling_ns += prepare_ticks;
  summary_.prepare_ns = static_cast<std::int64_t>(static_cast<double>(prepare_ticks) * ns_per_tick());
  if (options_.charge_scheduling) {
    summary_.charged_ns = summary_.prepare_ns;
    now_ = summary_.charged_ns;
  }
  EvictionContext eviction_context{&w_, &platform, scheduler_.future(), scheduler_.plan(), this};
  if (auto status = timed(summary_.eviction_ns, [&] { return policy_.attach(eviction_context); }); !status) {
    return status.error();
  }

  missing_preds_.resize(w_.task_count());
  for (TaskId t = 0; t < w_.task_count(); ++t) missing_preds_[t] = static_cast<std::uint32_t>(w_.predecessors(t).size());
  for (TaskId t : w_.submission_order()) {
    if (missing_preds_[t] == 0) release(t);
  }

  while (true) {
    fill_buffers();
    for (GpuId g = 0; g < W_; ++g) dispatch(g);
    if (!error_.empty()) return make_error(error_);
    if (done_ == w_.task_count() && !flushed_) {
      flush();
      flushed_ = true;
    }
    const std::int64_t next = device_ ? wait_device() : next_event();
    if (next == FluidChannel::kNever) {
      if (done_ == w_.task_count()) break;
      std::size_t held = 0;
      for (const Worker& worker : workers_) held += worker.held.size();
      return make_error("replay stalled at " + format_duration(now_) + ": " + std::to_string(done_) + " of " +
                        std::to_string(w_.task_count()) + " tasks done, " + std::to_string(held) +
                        " held by workers, and the scheduler hands out no task while nothing is in flight");
    }
    step(next);
    if (!error_.empty()) return make_error(error_);
  }

  // Loads still unclassified at the end were never used.
  for (std::uint32_t n = 0; n < N_; ++n) {
    for (DataId d = 0; d < nd_; ++d) {
      if (open_load_[slot(n, d)] != kNoId) emit_load(n, d, LoadKind::Unused, kNoId);
      if (copy_[slot(n, d)] == Copy::Resident) ++node_summary(n).resident_at_end;
    }
  }
  summary_.tasks = done_;
  for (GpuId g = 0; g < W_; ++g) {
    summary_.gpus[g] = workers_[g].summary;
    summary_.idle_ns += summary_.makespan_ns - summary_.gpus[g].busy_ns;
  }
  summary_.flush_end_ns = std::max(summary_.flush_end_ns, summary_.makespan_ns);
  summary_.scheduling_ns = static_cast<std::int64_t>(static_cast<double>(summary_.scheduling_ns) * ns_per_tick());
  summary_.eviction_ns = static_cast<std::int64_t>(static_cast<double>(summary_.eviction_ns) * ns_per_tick());
  summary_.gflops = summary_.makespan_ns > 0 ? summary_.total_flops / static_cast<double>(summary_.makespan_ns) : 0;
  return summary_;
}

void Engine::release(TaskId task) {
  pushed_[task] = 1;
  timed(summary_.scheduling_ns, [&] { scheduler_.push(task); });
}

void Engine::notify_future(DataId d) {
  for (std::uint32_t n = 0; n < N_; ++n) {
    if (copy_[slot(n, d)] == Copy::Resident) {
      timed(summary_.eviction_ns, [&] { policy_.on_future_changed(n, d); });
    }
  }
}

void Engine::fill_buffers() {
  bool progress = true;
  while (progress && error_.empty()) {
    progress = false;
    for (GpuId g = 0; g < W_; ++g) {
      Worker& worker = workers_[g];
      if (worker.cpu && !cpus_used_) continue;
      if (worker.held.size() >= options_.buffer_depth) continue;
      const auto task = timed(summary_.scheduling_ns, [&] { return scheduler_.pop(g); });
      if (!task) continue;
      if (*task >= w_.task_count() || !pushed_[*task] || popped_[*task]) {
        fail("the scheduler handed out task " + std::to_string(*task) + ", which is not ready or was already handed out");
        return;
      }
      const KindId kind = w_.tasks()[*task].kind;
      if (!((worker.cpu ? cpu_kind_rate_ : kind_rate_)[kind] > 0)) {
        fail("the scheduler handed task " + w_.task_label(*task) + " to " + (worker.cpu ? "CPU" : "GPU") + " worker " +
             std::to_string(g) + ", which has no " + w_.kinds()[kind] + " kernel");
        return;
      }
      popped_[*task] = 1;
      worker.held.push_back(*task);
      buffered_at_[*task] = now_;
      for (const Access& access : w_.accesses(*task)) {
        if (reads(access.mode)) notify_future(access.data);
      }
      progress = true;
    }
  }
}

void Engine::dispatch(GpuId g) {
  try_start(g);
  issue_requests(g);
  try_start(g);  // write-only outputs are allocated at once
}

void Engine::try_start(GpuId g) {
  Worker& worker = workers_[g];
  if (worker.running || worker.held.empty() || !error_.empty()) return;
  const TaskId task = worker.held.front();
  for (const Access& access : w_.accesses(task)) {
    if (worker.cpu ? reads(access.mode) && !host_valid_[access.data] : copy_[slot(worker.node, access.data)] != Copy::Resident) return;
  }
  worker.running = true;
  worker.start_ns = now_;
  worker.end_ns = device_ ? FluidChannel::kNever : now_ + duration_of(task, g);
  if (!worker.cpu) {
    const std::int64_t ready = std::max(worker.free_since, buffered_at_[task]);
    for (const Access& access : w_.accesses(task)) {
      timed(summary_.eviction_ns, [&] { policy_.on_used(worker.node, access.data); });
      const std::uint32_t open = open_load_[slot(worker.node, access.data)];
      if (open != kNoId) {
        emit_load(worker.node, access.data, open_loads_[open].end_ns > ready ? LoadKind::Fetch : LoadKind::Prefetch, task);
      }
    }
  }
  if (device_) device_->start_task(g, task);
  // A real device's end is known later: the record then carries the start, and the executor
  // rewrites every time from what the device measured.
  const TaskRecord record{task, g, started_++, worker.started++, buffered_at_[task], worker.start_ns,
                          device_ ? worker.start_ns : worker.end_ns};
  if (observer_) observer_->on_task(record);
  timed(summary_.scheduling_ns, [&] { scheduler_.on_task_started(g, task); });
}

// A CPU worker computes from the host: data its held tasks read whose only valid copy is on a
// GPU are written back (lahp: "write-backs when a CPU task reads data last written on a GPU").
void Engine::request_host_copies(GpuId g) {
  for (TaskId task : workers_[g].held) {
    for (const Access& access : w_.accesses(task)) {
      const DataId d = access.data;
      if (!reads(access.mode) || host_valid_[d] || writeback_from_[d] >= 0) continue;
      for (std::uint32_t n = 0; n < N_; ++n) {
        const Copy copy = copy_[slot(n, d)];
        if ((copy == Copy::Resident || copy == Copy::Evicting) && !stale_[slot(n, d)]) {
          start_writeback(n, d, WritebackCause::Request);
          break;
        }
      }
    }
  }
}

void Engine::issue_requests(GpuId g) {
  Worker& worker = workers_[g];
  if (worker.cpu) {
    request_host_copies(g);
    return;
  }
  const std::uint32_t n = worker.node;
  Node& node = nodes_[n];
  for (std::size_t index = worker.running ? 1 : 0; index < worker.held.size(); ++index) {
    const TaskId task = worker.held[index];
    for (const Access& access : w_.accesses(task)) {
      const DataId d = access.data;
      const Copy copy = copy_[slot(n, d)];
      if (copy == Copy::Resident || copy == Copy::Loading) continue;
      if (copy == Copy::Evicting) return;  // wait until it is gone, then load it again
      const double bytes = bytes_of(d);
      if (!make_room(g, bytes, index)) return;
      node.used += bytes;
      GpuSummary& memory = node_summary(n);
      memory.peak_bytes = std::max(memory.peak_bytes, node.used);
      if (reads(access.mode)) {
        request_load(n, d);
      } else {
        copy_[slot(n, d)] = Copy::Resident;
        if (device_) device_->allocate(n, d);
        ++memory.allocations;
        ++summary_.allocations;
        timed(summary_.eviction_ns, [&] { policy_.on_inserted(n, d); });
        tell_workers(n, [&](GpuId v) { scheduler_.on_data_loaded(v, d); });
        if (observer_) observer_->on_allocation({d, node.first, now_, task});
      }
    }
  }
}

// Between two workers of one memory, whose next task goes first when both need room: the one
// buffered earlier, then the lower worker. Its data are safe from the other's requests, so
// the oldest waiting task always makes progress.
bool Engine::head_before(GpuId a, GpuId b) const {
  const Worker& wa = workers_[a];
  const Worker& wb = workers_[b];
  const std::size_t ia = wa.running ? 1 : 0, ib = wb.running ? 1 : 0;
  if (ia >= wa.held.size()) return false;
  if (ib >= wb.held.size()) return true;
  const std::int64_t ta = buffered_at_[wa.held[ia]], tb = buffered_at_[wb.held[ib]];
  return ta != tb ? ta < tb : a < b;
}

bool Engine::make_room(GpuId g, double bytes, std::size_t index) {
  Worker& worker = workers_[g];
  const std::uint32_t n = worker.node;
  Node& node = nodes_[n];
  const double capacity = options_.platform.memory_bytes;
  if (capacity - node.used >= bytes) return true;
  // Data used by the running task or any held task up to this one stay; on a shared memory
  // also the data of the other workers' running tasks, and of their next tasks unless this
  // request is for a next task that goes before theirs.
  const std::uint32_t stamp = ++protect_stamp_;
  for (std::size_t i = 0; i <= index; ++i) {
    for (const Access& access : w_.accesses(worker.held[i])) protect_[slot(n, access.data)] = stamp;
  }
  const std::size_t head = worker.running ? 1u : 0u;
  const bool prefetch = index != head;
  for (GpuId v : node.workers) {
    if (v == g) continue;
    const Worker& other = workers_[v];
    const std::size_t other_head = other.running ? 1u : 0u;
    const std::size_t last = std::min(other.held.size(), (prefetch || head_before(v, g)) ? other_head + 1 : other_head);
    for (std::size_t i = 0; i < last; ++i) {
      for (const Access& access : w_.accesses(other.held[i])) protect_[slot(n, access.data)] = stamp;
    }
  }
  VictimRequest request;
  request.for_task = worker.held[index];
  request.prefetch = prefetch;
  request.evictable = [this, n, stamp](DataId d) {  // small enough for std::function's inline buffer
    return d < nd_ && copy_[slot(n, d)] == Copy::Resident && protect_[slot(n, d)] != stamp;
  };
  while (capacity - node.used < bytes) {
    if (capacity - node.used + node.pending_free >= bytes) return false;  // write-backs will free enough
    const auto victim = timed(summary_.eviction_ns, [&] { return policy_.choose_victim(n, request); });
    if (!victim) {
      bool busy = node.pending_free > 0;
      for (GpuId v : node.workers) busy = busy || workers_[v].running || (v != g && head_before(v, g));
      if (!request.prefetch && !busy) {
        bool loading = false;
        for (DataId d = 0; d < nd_ && !loading; ++d) loading = copy_[slot(n, d)] == Copy::Loading;
        if (!loading) fail("the eviction policy found no victim on GPU " + std::to_string(node.first) + " for the next task, " +
                           w_.task_label(request.for_task) + ", although its data fit in memory");
      }
      return false;
    }
    if (!request.evictable(*victim)) {
      fail("the eviction policy chose data " + std::to_string(*victim) + ", which cannot be evicted now");
      return false;
    }
    evict(n, *victim, request.for_task);
  }
  return true;
}

void Engine::evict(std::uint32_t n, DataId d, TaskId for_task) {
  timed(summary_.eviction_ns, [&] { policy_.on_removed(n, d); });
  if (!host_valid_[d] && holders_[d] == 1) {  // the last valid copy: write it back first
    copy_[slot(n, d)] = Copy::Evicting;
    nodes_[n].pending_free += bytes_of(d);
    evict_for_[slot(n, d)] = for_task;
    if (writeback_from_[d] < 0) start_writeback(n, d, WritebackCause::Eviction);
    // The scheduler sees the copy as gone from now on (MemoryView says Absent).
    tell_workers(n, [&](GpuId v) { scheduler_.on_data_evicted(v, d); });
    return;
  }
  free_copy(n, d, for_task, EvictionCause::Capacity, false);
}

void Engine::free_copy(std::uint32_t n, DataId d, TaskId for_task, EvictionCause cause, bool wrote_back) {
  Node& node = nodes_[n];
  Copy& copy = copy_[slot(n, d)];
  const bool reported = copy == Copy::Evicting;  // told to the scheduler when its write-back began
  if (copy == Copy::Evicting) node.pending_free -= bytes_of(d);
  copy = Copy::Absent;
  node.used -= bytes_of(d);
  if (device_) device_->release(n, d);
  if (stale_[slot(n, d)]) {
    stale_[slot(n, d)] = 0;  // it no longer counted as a holder
  } else if (holders_[d] > 0) {
    --holders_[d];
  }
  if (open_load_[slot(n, d)] != kNoId) emit_load(n, d, LoadKind::Unused, kNoId);
  GpuSummary& memory = node_summary(n);
  if (cause == EvictionCause::Capacity) {
    ++memory.evictions;
    ++summary_.evictions;
  } else {
    ++memory.invalidations;
    ++summary_.invalidations;
  }
  if (observer_) observer_->on_eviction({d, node.first, now_, cause, for_task, wrote_back});
  if (!reported) tell_workers(n, [&](GpuId v) { scheduler_.on_data_evicted(v, d); });
}

void Engine::request_load(std::uint32_t n, DataId d) {
  copy_[slot(n, d)] = Copy::Loading;
  tell_workers(n, [&](GpuId v) { scheduler_.on_load_requested(v, d); });
  std::uint32_t open = 0;
  if (!free_open_loads_.empty()) {
    open = free_open_loads_.back();
    free_open_loads_.pop_back();
  } else {
    open = static_cast<std::uint32_t>(open_loads_.size());
    open_loads_.emplace_back();
  }
  open_loads_[open] = {kFromHost, now_, 0};
  open_load_[slot(n, d)] = open;

  const Platform& platform = options_.platform;
  if (platform.gpu_link_bandwidth > 0 && (platform.gpu_link_bandwidth >= platform.bus_bandwidth || !host_valid_[d])) {
    for (std::uint32_t h = 0; h < N_; ++h) {
      if (h != n && copy_[slot(h, d)] == Copy::Resident) {
        start_load(n, d, static_cast<std::int32_t>(nodes_[h].first));
        return;
      }
    }
  }
  if (host_valid_[d]) {
    start_load(n, d, kFromHost);
    return;
  }
  // The only valid copy is on another GPU without a link to this one: go through the host.
  waiting_for_host_[d].push_back(n);
  if (writeback_from_[d] < 0) {
    for (std::uint32_t h = 0; h < N_; ++h) {
      const Copy copy = copy_[slot(h, d)];
      if (h != n && (copy == Copy::Resident || copy == Copy::Evicting)) {
        start_writeback(h, d, WritebackCause::Request);
        return;
      }
    }
    fail("internal: data " + w_.data()[d].name + " has no valid copy anywhere");
  }
}

std::uint32_t Engine::start_transfer(const Transfer& transfer, double bytes) {
  std::uint32_t id = 0;
  if (!free_transfers_.empty()) {
    id = free_transfers_.back();
    free_transfers_.pop_back();
    transfers_[id] = transfer;
  } else {
    id = static_cast<std::uint32_t>(transfers_.size());
    transfers_.push_back(transfer);
  }
  if (device_) {
    if (transfer.is_load) {
      const std::int32_t source = transfer.source == kFromHost
                                      ? kFromHost
                                      : static_cast<std::int32_t>(options_.platform.memory_node_of(static_cast<GpuId>(transfer.source)));
      device_->start_load(id, transfer.node, transfer.data, source);
    } else {
      device_->start_writeback(id, transfer.node, transfer.data);
    }
    return id;
  }
  if (options_.platform.latency_ns > 0) {
    joins_.emplace_back(now_ + options_.platform.latency_ns, id);
  } else {
    add_to_link(id, bytes);
  }
  return id;
}

void Engine::add_to_link(std::uint32_t id, double bytes) {
  const Transfer& transfer = transfers_[id];
  if (transfer.on_tree) tree_.add(id, bytes, transfer.path, now_);
  else channels_[transfer.channel].add(id, bytes, now_);
}

FluidNetwork::Path Engine::tree_path(std::uint32_t n, bool to_gpu) const {
  FluidNetwork::Path path;
  path.links[path.length++] = to_gpu ? host_down_ : host_up_;
  const std::uint32_t per_switch = options_.platform.gpus_per_switch;
  if (!switch_down_.empty()) path.links[path.length++] = to_gpu ? switch_down_[n / per_switch] : switch_up_[n / per_switch];
  if (!gpu_down_.empty()) path.links[path.length++] = to_gpu ? gpu_down_[n] : gpu_up_[n];
  return path;
}

void Engine::start_load(std::uint32_t n, DataId d, std::int32_t source) {
  Transfer transfer;
  transfer.is_load = true;
  transfer.data = d;
  transfer.node = n;
  transfer.source = source;
  transfer.start_ns = now_;
  transfer.channel = source == kFromHost
                         ? 0
                         : 2 + options_.platform.memory_node_of(static_cast<GpuId>(source)) * N_ + n;
  if (source == kFromHost && options_.platform.has_pcie_tree()) {
    transfer.on_tree = true;
    transfer.path = tree_path(n, true);
  }
  open_loads_[open_load_[slot(n, d)]].source = source;
  start_transfer(transfer, bytes_of(d));
}

void Engine::start_writeback(std::uint32_t n, DataId d, WritebackCause cause) {
  Transfer transfer;
  transfer.is_load = false;
  transfer.data = d;
  transfer.node = n;
  transfer.start_ns = now_;
  transfer.channel = 1;
  if (options_.platform.has_pcie_tree()) {
    transfer.on_tree = true;
    transfer.path = tree_path(n, false);
  }
  transfer.cause = cause;
  writeback_from_[d] = static_cast<std::int32_t>(n);
  transfer.version = version_[d];
  start_transfer(transfer, bytes_of(d));
}

void Engine::finish_transfer(std::uint32_t id) {
  const Transfer transfer = transfers_[id];
  free_transfers_.push_back(id);
  const DataId d = transfer.data;
  const std::uint32_t n = transfer.node;
  const double bytes = bytes_of(d);
  if (transfer.is_load) {
    copy_[slot(n, d)] = Copy::Resident;
    ++holders_[d];
    open_loads_[open_load_[slot(n, d)]].end_ns = now_;
    ++summary_.loads;
    ++node_summary(n).loads;
    summary_.bytes_loaded += bytes;
    if (transfer.source == kFromHost) {
      ++summary_.loads_from_host;
      summary_.bytes_from_host += bytes;
    } else {
      ++summary_.loads_from_gpu;
      summary_.bytes_gpu_to_gpu += bytes;
    }
    timed(summary_.eviction_ns, [&] { policy_.on_inserted(n, d); });
    tell_workers(n, [&](GpuId v) { scheduler_.on_data_loaded(v, d); });
    return;
  }
  ++summary_.writebacks;
  summary_.bytes_written_back += bytes;
  summary_.flush_end_ns = std::max(summary_.flush_end_ns, now_);
  if (observer_) {
    observer_->on_writeback({d, nodes_[n].first, w_.data()[d].bytes, transfer.start_ns, now_, transfer.cause});
  }
  if (transfer.version != version_[d]) {
    // A write on another worker made this version stale while it moved: the host copy stays
    // invalid, and the evicting copy it came from simply leaves.
    ++summary_.stale_writebacks;
    if (copy_[slot(n, d)] == Copy::Evicting) free_copy(n, d, evict_for_[slot(n, d)], EvictionCause::Capacity, true);
    return;
  }
  host_valid_[d] = 1;
  writeback_from_[d] = -1;
  if (copy_[slot(n, d)] == Copy::Evicting) free_copy(n, d, evict_for_[slot(n, d)], EvictionCause::Capacity, true);
  auto waiting = std::move(waiting_for_host_[d]);
  waiting_for_host_[d].clear();
  for (std::uint32_t h : waiting) start_load(h, d, kFromHost);
}

// A write by `writer` leaves one valid copy: node `keep`'s, or the host's when keep is kNoId.
void Engine::invalidate_copies(DataId d, std::uint32_t keep, TaskId writer) {
  for (std::uint32_t h = 0; h < N_; ++h) {
    if (h == keep) continue;
    const Copy copy = copy_[slot(h, d)];
    if (copy == Copy::Resident) {
      timed(summary_.eviction_ns, [&] { policy_.on_removed(h, d); });
      free_copy(h, d, writer, EvictionCause::Invalidated, false);
    } else if (copy == Copy::Evicting) {
      // h is writing back the version this task overwrote (its copy was the last valid one
      // when h chose to evict it): that write-back is now stale; h's copy leaves when it ends.
      // (The writer's caller resets the holder count.)
      stale_[slot(h, d)] = 1;
    } else if (copy != Copy::Absent) {
      fail("task " + w_.task_label(writer) + " wrote " + w_.data()[d].name + " while GPU " + std::to_string(nodes_[h].first) +
           " was loading it: the workload lacks a dependency between tasks that access it");
    }
  }
  ++version_[d];
  writeback_from_[d] = -1;  // an older version's write-back in flight no longer counts
}

void Engine::finish_task(GpuId g) {
  Worker& worker = workers_[g];
  const TaskId task = worker.held.front();
  worker.held.erase(worker.held.begin());
  worker.running = false;
  worker.summary.busy_ns += worker.end_ns - worker.start_ns;
  ++worker.summary.tasks;
  worker.free_since = now_;
  summary_.makespan_ns = std::max(summary_.makespan_ns, now_);
  for (const Access& access : w_.accesses(task)) {
    if (!writes(access.mode)) continue;
    const DataId d = access.data;
    if (worker.cpu) {
      invalidate_copies(d, kNoId, task);
      host_valid_[d] = 1;
      holders_[d] = 0;
    } else {
      invalidate_copies(d, worker.node, task);
      host_valid_[d] = 0;
      holders_[d] = 1;
    }
  }
  ++done_;
  timed(summary_.scheduling_ns, [&] { scheduler_.on_task_done(g, task); });
  for (TaskId successor : w_.successors(task)) {
    if (--missing_preds_[successor] == 0) release(successor);
  }
}

void Engine::emit_load(std::uint32_t n, DataId d, LoadKind kind, TaskId task) {
  const std::uint32_t open = open_load_[slot(n, d)];
  const OpenLoad load = open_loads_[open];
  open_load_[slot(n, d)] = kNoId;
  free_open_loads_.push_back(open);
  const double bytes = bytes_of(d);
  switch (kind) {
    case LoadKind::Fetch:
      ++summary_.fetches;
      summary_.bytes_fetched += bytes;
      break;
    case LoadKind::Prefetch:
      ++summary_.prefetches;
      summary_.bytes_prefetched += bytes;
      break;
    case LoadKind::Unused: ++summary_.unused_loads; break;
  }
  if (observer_) {
    observer_->on_load({d, nodes_[n].first, load.source, w_.data()[d].bytes, load.issue_ns, load.end_ns, kind, task});
  }
}

std::int64_t Engine::next_event() const {
  std::int64_t next = FluidChannel::kNever;
  for (const auto& channel : channels_) next = std::min(next, channel.next_completion());
  next = std::min(next, tree_.next_completion());
  if (!joins_.empty()) next = std::min(next, joins_.front().first);
  for (const Worker& worker : workers_) {
    if (worker.running) next = std::min(next, worker.end_ns);
  }
  return next;
}

std::int64_t Engine::wait_device() {
  completed_.clear();
  finished_.clear();
  return device_->wait(completed_, finished_);
}

void Engine::step(std::int64_t now) {
  now_ = now;
  ++summary_.events;
  if (device_) {
    std::sort(completed_.begin(), completed_.end());
    for (std::uint32_t id : completed_) finish_transfer(id);
    std::sort(finished_.begin(), finished_.end());
    for (GpuId g : finished_) {
      workers_[g].end_ns = now;
      finish_task(g);
    }
    return;
  }
  completed_.clear();
  for (auto& channel : channels_) {
    channel.advance(now);
    channel.take_completed(completed_);
  }
  tree_.advance(now);
  tree_.take_completed(completed_);
  std::sort(completed_.begin(), completed_.end());
  for (std::uint32_t id : completed_) finish_transfer(id);
  while (!joins_.empty() && joins_.front().first <= now) {
    const std::uint32_t id = joins_.front().second;
    joins_.pop_front();
    add_to_link(id, bytes_of(transfers_[id].data));
  }
  for (GpuId g = 0; g < W_; ++g) {
    if (workers_[g].running && workers_[g].end_ns == now) finish_task(g);
  }
}

void Engine::flush() {
  for (DataId d = 0; d < nd_; ++d) {
    if (host_valid_[d] || writeback_from_[d] >= 0) continue;
    for (std::uint32_t n = 0; n < N_; ++n) {
      if (copy_[slot(n, d)] == Copy::Resident) {
        start_writeback(n, d, WritebackCause::Flush);
        break;
      }
    }
  }
}

}  // namespace

Result<ReplaySummary> replay(const Workload& workload, Scheduler& scheduler, EvictionPolicy& eviction,
                             const ReplayOptions& options, ReplayObserver* observer) {
  Engine engine(workload, scheduler, eviction, options, observer);
  return engine.run();
}

}  // namespace tilelens
