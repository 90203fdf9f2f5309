// The replay engine's event loop and decisions; see engine.hpp for what it models.
#include "replay/engine.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <variant>
#include <optional>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "model/units.hpp"
#include "eviction/recency_list.hpp"
#include "replay/memory_state.hpp"
#include "replay/simulated_device.hpp"
#include "schedulers/known_future.hpp"
#include "trace/totals.hpp"

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

struct Transfer {
  bool is_load = true;
  DataId data = 0;
  std::uint32_t node = 0;    // memory node: destination of a load, source of a write-back
  std::int32_t source = kFromHost;  // a load's source: kFromHost or the first worker of a node
  std::int64_t start_ns = 0;
  std::uint32_t version = 0;  // a write-back: the version of the data it carries
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
  std::uint32_t started = 0;
  // The held tasks, from the first, whose data were all resident or loading when requests
  // were last issued, and the node's epoch then: while the epoch stands, they need nothing.
  std::size_t requested = 0;
  std::uint64_t requested_epoch = 0;
};

struct Node {  // a bounded memory, shared by one or more workers
  GpuId first = 0;  // its first worker: the name memory records give it
  std::vector<GpuId> workers;
};

constexpr double kHostFreeBytes = 1e300;

// Charges the wall time of one kind of decision (the scheduler's pops, the policy's victim
// searches, ...) to a total, in TSC ticks. Reading the clock twice costs about as much as a
// fast decision (a pop of EAGER), and more than the rest of the engine's work for a task, so
// while the calls prove fast, one call in kSample is timed and counts kSample times; a slow
// sampled call, or a slow average, brings back timing every call. Slow schedulers (HFP's Ready,
// DARTS) are thus timed call by call, and fast ones estimated within a few percent.
class DecisionClock {
 public:
  template <class F>
  auto operator()(F&& call) {
    if (skip_ > 0) {
      --skip_;
      last_ = -1;
      return call();
    }
    struct Charge {
      DecisionClock& clock;
      std::uint64_t begin;
      ~Charge() {
        clock.last_ = static_cast<std::int64_t>(wall_ticks() - begin);
        clock.charge(clock.last_);
      }
    } charge{*this, wall_ticks()};
    return call();
  }
  std::int64_t ticks() const { return total_; }
  // The ticks the last call took, or -1 when it was not timed (sampling).
  std::int64_t last_ticks() const { return last_; }

 private:
  static constexpr std::int64_t kSample = 16;
  static constexpr std::int64_t kFastTicks = 400;  // about 150 ns
  static constexpr std::int64_t kWindow = 64;       // calls timed before deciding to sample

  void charge(std::int64_t ticks) {
    if (sampling_) {
      total_ += ticks * kSample;
      if (ticks > 4 * kFastTicks) {
        sampling_ = false;  // a slow call: time every call again
        window_calls_ = window_ticks_ = 0;
      } else {
        skip_ = kSample - 1;
      }
      return;
    }
    total_ += ticks;
    window_ticks_ += ticks;
    if (++window_calls_ < kWindow) return;
    sampling_ = window_ticks_ < kFastTicks * kWindow;
    if (sampling_) skip_ = kSample - 1;
    window_calls_ = window_ticks_ = 0;
  }

  std::int64_t total_ = 0;
  std::int64_t last_ = -1;
  std::int64_t skip_ = 0;
  bool sampling_ = false;
  std::int64_t window_calls_ = 0, window_ticks_ = 0;
};

// A flag per (node, data) and, per node, how many are set.
class NodeFlags {
 public:
  void reset(std::uint32_t nodes, std::size_t data_count) {
    stride_ = data_count;
    flags_.assign(nodes * data_count, 0);
    count_.assign(nodes, 0);
  }
  bool test(std::uint32_t n, DataId d) const { return flags_[static_cast<std::size_t>(n) * stride_ + d] != 0; }
  std::uint32_t count(std::uint32_t n) const { return count_[n]; }
  void set(std::uint32_t n, DataId d) { change(n, d, 1); }
  void clear(std::uint32_t n, DataId d) { change(n, d, 0); }

 private:
  void change(std::uint32_t n, DataId d, char value) {
    char& flag = flags_[static_cast<std::size_t>(n) * stride_ + d];
    if (flag == value) return;
    flag = value;
    value ? ++count_[n] : --count_[n];
  }
  std::size_t stride_ = 0;
  std::vector<char> flags_;
  std::vector<std::uint32_t> count_;
};

class Engine final : public MemoryView, public BufferView {
 public:
  Engine(const Workload& workload, Scheduler& scheduler, EvictionPolicy& policy, const ReplayOptions& options,
         ReplayObserver* observer)
      : w_(workload), scheduler_(scheduler), policy_(policy), options_(options), observer_(observer),
        W_(options.platform.workers()), N_(options.platform.memory_nodes()), nd_(workload.data_count()),
        model_(options.memory_model), totals_(W_) {}

  Result<ReplaySummary> run();

  ReplicaState host_state(DataId data) const override {
    if (memory_.host_valid(data)) return ReplicaState::Resident;
    return memory_.writeback_from(data) >= 0 ? ReplicaState::Loading : ReplicaState::Absent;
  }
  ReplicaState state(GpuId worker, DataId data) const override {
    if (workers_[worker].cpu) return host_state(data);
    switch (memory_.copy(workers_[worker].node, data)) {
      case Copy::Loading: return ReplicaState::Loading;
      case Copy::Resident: return ReplicaState::Resident;
      default: return ReplicaState::Absent;
    }
  }
  double free_bytes(GpuId worker) const override {
    return workers_[worker].cpu ? kHostFreeBytes : options_.platform.memory_bytes - memory_.used(workers_[worker].node);
  }
  std::span<const TaskId> held(GpuId worker) const override { return workers_[worker].held; }

 private:
  std::size_t slot(std::uint32_t node, DataId data) const { return static_cast<std::size_t>(node) * nd_ + data; }

  // Charges the wall time of a one-off call to `total` (in ticks, converted to ns at the end).
  template <class F>
  auto timed(std::int64_t& total, F&& call) {
    struct Charge {
      std::int64_t& total;
      std::uint64_t begin;
      ~Charge() { total += static_cast<std::int64_t>(wall_ticks() - begin); }
    } charge{total, wall_ticks()};
    return call();
  }
  // The scheduler's replica hooks, once per worker of the node (each sees its memory change).
  template <class F>
  void tell_workers(std::uint32_t n, F&& hook) {
    if (!follows_replicas_) return;
    for (GpuId v : nodes_[n].workers) hook(v);
  }

  void fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }

  void emit(const TaskRecord& r) {
    totals_.add(r);
    if (observer_) observer_->on_task(r);
  }
  void emit(const EvictionRecord& r) {
    totals_.add(r);
    if (observer_) observer_->on_eviction(r);
  }
  void emit(const WritebackRecord& r) {
    totals_.add(r);
    if (observer_) observer_->on_writeback(r);
  }
  void emit(const AllocationRecord& r) {
    ++allocations_;
    totals_.add(r);
    if (observer_) observer_->on_allocation(r);
  }
  void emit_load(std::uint32_t n, DataId d, LoadKind kind, TaskId task);

  void fill_buffers();
  void dispatch(GpuId g);
  // The memory model's passes over every worker: fetches first, then prefetches.
  void dispatch_by_level();
  void try_start(GpuId g);
  // Which of a worker's held tasks a call requests for: all in buffer order, the next one to
  // run (a fetch), or those after it (prefetches). False when a request had to wait.
  enum class Requests { All, Fetch, Prefetch };
  bool issue_requests(GpuId g, Requests which = Requests::All);
  // Push-time prefetches (MemoryModel::prefetch_at_push) into node n, for the tasks queued
  // there and not taken by a worker yet. False when one had to wait.
  bool prefetch_pushed(std::uint32_t n);
  void prefetch_on_push(TaskId task);
  void queue_prefetch(std::uint32_t n, TaskId task);
  // Whether node n may start one more transfer of a fetch (or of a prefetch) now.
  bool may_start_transfer(std::uint32_t n, bool prefetch) const;
  // Idle write-back (MemoryModel::idle_writeback), on every node, after each event.
  void write_back_idle();
  // d on n is the most recently used now: a task starts with it, or a request found it there
  // (MemoryModel::touch_on_request).
  void touch(std::uint32_t n, DataId d) {
    policy_.on_used(n, d);
    if (model_.idle_writeback) recency_.move_to_back(n, d);
  }
  // Takes room on n for a new replica of d (loading, or a write-only output) and counts it.
  void reserve_replica(std::uint32_t n, DataId d);
  void request_host_copies(GpuId g);
  bool head_before(GpuId a, GpuId b) const;
  bool make_room(GpuId g, double bytes, std::size_t index);
  std::optional<DataId> choose_victim(std::uint32_t n, const VictimRequest& request, bool clean_only);
  void evict(std::uint32_t n, DataId d, TaskId for_task);
  void free_copy(std::uint32_t n, DataId d, TaskId for_task, EvictionCause cause, bool wrote_back);
  void invalidate_copies(DataId d, std::uint32_t keep, TaskId writer);
  void request_load(std::uint32_t n, DataId d);
  // A load into node n from the host (kFromHost) or from node `source`.
  void start_load(std::uint32_t n, DataId d, std::int32_t source);
  void start_writeback(std::uint32_t n, DataId d, WritebackCause cause);
  std::uint32_t new_transfer(const Transfer& transfer);
  void finish_transfer(std::uint32_t id);
  void finish_task(GpuId g);
  // A task whose predecessors are done goes to the scheduler: at once, or when decisions cost
  // time (ReplayOptions::scheduling_cost), once `thread` (the worker that released it, or
  // submitter_) is done with the pushes before it.
  void release(TaskId task, std::uint32_t thread);
  // The push itself, timed and counted for the decision fits; returns the tasks it scanned.
  std::uint64_t push_to_scheduler(TaskId task);
  // Runs the pushes waiting for `thread` while it is free, each keeping it busy for its cost.
  void run_pushes(std::uint32_t thread);
  // A popped task joins its worker's buffer (at once, or when its pop's cost has elapsed).
  void enter_buffer(GpuId g, TaskId task);
  // The pops and pushes whose cost ended by now.
  void end_decisions();
  void keep_busy(std::uint32_t thread, std::int64_t cost);
  static void record_decision(DecisionFitter& fitter, const DecisionClock& clock, std::uint64_t scanned) {
    if (clock.last_ticks() < 0) {
      fitter.add_untimed(scanned);
    } else {
      fitter.add(scanned, static_cast<double>(clock.last_ticks()) * ns_per_tick());
    }
  }
  void notify_future(DataId d);
  void flush();
  ReplaySummary summarize();
  // Why a run stops when its next event (at `next`) lies past kMaxClockNs, naming the event.
  std::string past_horizon_message(std::int64_t next) const;

  const Workload& w_;
  Scheduler& scheduler_;
  EvictionPolicy& policy_;
  const ReplayOptions& options_;
  ReplayObserver* observer_;
  const std::uint32_t W_;  // workers
  const std::uint32_t N_;  // bounded memory nodes
  const std::size_t nd_;
  const MemoryModel& model_;

  std::int64_t now_ = 0;
  std::string error_;
  MemoryState memory_;
  TraceTotals totals_;
  std::unique_ptr<SimulatedDevice> simulated_;
  ExecutionDevice* device_ = nullptr;
  std::vector<Worker> workers_;
  std::vector<Node> nodes_;
  bool cpus_used_ = false;                // the scheduler hands tasks to CPU workers
  bool follows_future_ = false;           // the policy wants on_future_changed
  bool follows_replicas_ = true;          // the scheduler wants the replica hooks
  // Scheduling costs: each worker's thread, then the submitting one (submitter_, the
  // application's, which pushes the tasks ready at the start), busy until thread_free_; the
  // tasks released and waiting for their thread's push; per worker, the task its pop hands
  // out once the pop's cost has elapsed.
  bool charging_ = false;
  std::uint32_t submitter_ = 0;
  SchedulingCost cost_;
  std::vector<std::int64_t> thread_free_;
  std::vector<std::deque<TaskId>> to_push_;
  std::vector<TaskId> entering_;
  std::int64_t decisions_charged_ns_ = 0;
  DecisionFitter push_fit_, pop_fit_;
  // The victim search's test, made once: resident, and not protected for the request at hand
  // (by the protection stamp, or on a node of one worker asking for its last held task, by
  // held_uses_ alone).
  struct Evictable {
    const Engine* engine;
    bool operator()(DataId d) const { return engine->evictable(d); }
  };
  std::uint32_t victim_node_ = 0, victim_stamp_ = 0;
  bool victim_by_uses_ = false;
  bool victim_clean_only_ = false;  // MemoryModel::clean_first's first search
  Evictable evictable_{this};
  bool evictable(DataId d) const {
    if (d >= nd_ || memory_.copy(victim_node_, d) != Copy::Resident) return false;
    if (victim_clean_only_ && dirty_.test(victim_node_, d)) return false;
    return victim_by_uses_ ? held_uses_[slot(victim_node_, d)] == 0 : protect_[slot(victim_node_, d)] != victim_stamp_;
  }
  std::vector<std::uint32_t> open_load_;  // per (node, data): index in open_loads_ or kNoId
  std::vector<OpenLoad> open_loads_;
  std::vector<std::uint32_t> free_open_loads_;
  std::vector<std::uint32_t> protect_;  // per (node, data): stamp of the last protection pass
  std::uint32_t protect_stamp_ = 0;
  std::vector<TaskId> evict_for_;       // per (node, data): whose request started an eviction write-back
  std::vector<std::uint32_t> held_uses_;  // per (node, data): tasks held by the node's workers that access it
  std::vector<std::uint64_t> epoch_;      // per node: bumped when a copy that a held task accesses leaves
  void copy_leaves(std::uint32_t n, DataId d) {
    if (held_uses_[slot(n, d)] > 0) ++epoch_[n];
  }
  // The memory model's books. Per node: transfers in flight (loads into it, write-backs from
  // it), replicas held (resident, loading or evicting), dirty replicas (newer than the host's
  // copy), untidy replicas as StarPU's idle write-back counts them (see write_back_idle),
  // whether idle write-back is under way, whether prefetching pauses until the next event.
  std::vector<std::uint32_t> in_flight_, replicas_;
  // The node's replicas from the least recently allocated or used, the order StarPU's tidy
  // walks (its mc_list), kept whatever the eviction policy is.
  RecencyList recency_;
  NodeFlags dirty_, untidy_;
  std::vector<char> tidying_, prefetch_paused_;
  // Per node: the tasks to prefetch there since their push, oldest first, until prefetched.
  std::vector<std::deque<TaskId>> push_prefetches_;
  bool single_node_prefetch_ = false;  // every pushed task is prefetched into the one memory node
  std::vector<char> homeless_;  // per data: its first access writes it (MemoryModel::flush_homeless)
  std::vector<std::uint32_t> missing_preds_;
  std::vector<std::int64_t> buffered_at_;
  std::vector<char> pushed_, popped_;
  std::vector<double> kind_rate_, cpu_kind_rate_;
  std::vector<Transfer> transfers_;
  std::vector<std::uint32_t> free_transfers_;
  std::vector<std::uint32_t> completed_;
  std::vector<GpuId> finished_;
  std::size_t done_ = 0;
  std::uint32_t started_ = 0;
  std::uint64_t events_ = 0, stale_writebacks_ = 0, allocations_ = 0;
  std::int64_t scheduling_ticks_ = 0, eviction_ticks_ = 0, prepare_ns_ = 0, charged_ns_ = 0;  // the one-off calls
  DecisionClock pop_clock_, push_clock_, victim_clock_, future_clock_;
};

Result<ReplaySummary> Engine::run() {
  const Platform& platform = options_.platform;
  if (auto status = check_platform(platform, w_); !status) return status.error();
  if (options_.buffer_depth == 0) return make_error("the task buffer depth must be at least 1");
  if (W_ > kMaxWorkers) return make_error("at most " + std::to_string(kMaxWorkers) + " workers");

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
  memory_.reset(N_, w_);
  open_load_.assign(N_ * nd_, kNoId);
  protect_.assign(N_ * nd_, 0);
  evict_for_.assign(N_ * nd_, kNoId);
  held_uses_.assign(N_ * nd_, 0);
  epoch_.assign(N_, 0);
  in_flight_.assign(N_, 0);
  replicas_.assign(N_, 0);

  if (model_.idle_writeback) recency_.reset(N_, nd_);
  dirty_.reset(N_, nd_);
  untidy_.reset(N_, nd_);
  tidying_.assign(N_, 0);
  prefetch_paused_.assign(N_, 0);
  push_prefetches_.assign(N_, {});
  homeless_.assign(nd_, 0);
  {
    std::vector<char> seen(nd_, 0);
    for (TaskId t : w_.submission_order()) {
      for (const Access& access : w_.accesses(t)) {
        if (seen[access.data]) continue;
        seen[access.data] = 1;
        homeless_[access.data] = reads(access.mode) ? 0 : 1;
      }
    }
  }
  buffered_at_.assign(w_.task_count(), 0);
  pushed_.assign(w_.task_count(), 0);
  popped_.assign(w_.task_count(), 0);

  cost_ = options_.scheduling_cost;
  charging_ = cost_.charged();
  if (charging_ && options_.device) {
    return make_error("a scheduling cost is charged on the replay clock only: a real executor pays its scheduler's own time");
  }
  submitter_ = W_;
  thread_free_.assign(W_ + 1, 0);
  to_push_.assign(W_ + 1, {});
  entering_.assign(W_, kNoId);
  SchedulerContext context;
  context.memory = this;
  context.count_scans = charging_;
  context.future_needed = policy_.follows_future();
  context.future_changed = [this](DataId d) { notify_future(d); };
  // StarPU prefetches a task at push when its architecture has a single memory node (every
  // scheduler: sched_policy.c), and the dmda family once it allocated the task to a worker.
  single_node_prefetch_ = model_.prefetch_at_push && N_ == 1;
  if (model_.prefetch_at_push && !single_node_prefetch_) {
    context.allocated = [this](TaskId task, GpuId worker) {
      if (worker < W_ && !workers_[worker].cpu) queue_prefetch(workers_[worker].node, task);
    };
  }
  std::int64_t prepare_ticks = 0;
  timed(prepare_ticks, [&] { scheduler_.prepare(w_, platform, context); });
  scheduling_ticks_ += prepare_ticks;
  prepare_ns_ = static_cast<std::int64_t>(static_cast<double>(prepare_ticks) * ns_per_tick());
  if (options_.charge_scheduling) {
    charged_ns_ = prepare_ns_;
    now_ = charged_ns_;
  }
  device_ = options_.device;
  if (!device_) {
    simulated_ = std::make_unique<SimulatedDevice>(w_, platform, now_);
    device_ = simulated_.get();
  }
  EvictionContext eviction_context{&w_, &platform, scheduler_.future(), scheduler_.plan(), this};
  if (auto status = timed(eviction_ticks_, [&] { return policy_.attach(eviction_context); }); !status) return status.error();
  follows_future_ = policy_.follows_future();
  follows_replicas_ = scheduler_.follows_replicas();

  if (observer_) observer_->on_start(w_);
  missing_preds_.resize(w_.task_count());
  for (TaskId t = 0; t < w_.task_count(); ++t) missing_preds_[t] = static_cast<std::uint32_t>(w_.predecessors(t).size());
  if (charging_) {
    for (TaskId t : w_.submission_order()) {
      if (missing_preds_[t] == 0) to_push_[submitter_].push_back(t);
    }
    run_pushes(submitter_);
  } else {
    for (TaskId t : w_.submission_order()) {
      if (missing_preds_[t] == 0) prefetch_on_push(t);
    }
    for (TaskId t : w_.submission_order()) {
      if (missing_preds_[t] == 0) push_to_scheduler(t);
    }
  }

  bool flushed = false;
  while (true) {
    if (options_.cancel && options_.cancel->load(std::memory_order_relaxed)) return make_error(kCancelled);
    if (charging_) {
      end_decisions();
      // A free thread starts its worker's next task before it pops another (StarPU's drivers).
      for (GpuId g = 0; g < W_; ++g) try_start(g);
    }
    fill_buffers();
    if (model_.fetches_first) {
      dispatch_by_level();
    } else {
      for (GpuId g = 0; g < W_; ++g) dispatch(g);
      if (model_.prefetch_at_push) {
        for (std::uint32_t n = 0; n < N_; ++n) prefetch_pushed(n);
      }
    }
    if (model_.idle_writeback && error_.empty()) write_back_idle();
    if (!error_.empty()) return make_error(error_);
    if (done_ == w_.task_count() && !flushed) {
      flush();
      flushed = true;
    }
    completed_.clear();
    finished_.clear();
    const std::int64_t next = device_->wait(completed_, finished_);
    if (next == ExecutionDevice::kNothingInFlight) {
      if (done_ == w_.task_count()) break;
      std::size_t held = 0;
      for (const Worker& worker : workers_) held += worker.held.size();
      return make_error("replay stalled at " + format_duration(now_) + ": " + std::to_string(done_) + " of " +
                        std::to_string(w_.task_count()) + " tasks done, " + std::to_string(held) +
                        " held by workers, and the scheduler hands out no task while nothing is in flight");
    }
    if (next > kMaxClockNs) return make_error(past_horizon_message(next));
    now_ = next;
    ++events_;
    if (completed_.size() > 1) std::sort(completed_.begin(), completed_.end());
    for (std::uint32_t id : completed_) finish_transfer(id);
    if (finished_.size() > 1) std::sort(finished_.begin(), finished_.end());
    for (GpuId g : finished_) {
      workers_[g].end_ns = now_;
      finish_task(g);
    }
    if (!error_.empty()) return make_error(error_);
  }
  return summarize();
}

std::string Engine::past_horizon_message(std::int64_t next) const {
  std::string event = "the next event";
  if (!completed_.empty()) {
    const Transfer& transfer = transfers_[completed_.front()];
    event = std::string(transfer.is_load ? "the load" : "the write-back") + " of data " + w_.data()[transfer.data].name + " (" +
            format_bytes(static_cast<double>(w_.data()[transfer.data].bytes)) + ") on GPU " + std::to_string(nodes_[transfer.node].first);
  } else if (!finished_.empty() && !workers_[finished_.front()].held.empty()) {
    event = "task " + w_.task_label(workers_[finished_.front()].held.front()) + " on worker " + std::to_string(finished_.front());
  }
  return "replay stopped at " + format_duration(now_) + ": " + event + " would end after " + format_duration(next) +
         ", past the replay clock's 2^62 ns (146 years); the platform's bandwidth or compute rate is too small for this workload";
}

ReplaySummary Engine::summarize() {
  // Loads still unclassified at the end were never used.
  std::vector<std::uint64_t> resident(N_, 0);
  for (std::uint32_t n = 0; n < N_; ++n) {
    for (DataId d = 0; d < nd_; ++d) {
      if (open_load_[slot(n, d)] != kNoId) emit_load(n, d, LoadKind::Unused, kNoId);
      if (memory_.copy(n, d) == Copy::Resident) ++resident[n];
    }
  }
  ReplaySummary summary;
  summary.gpus.assign(W_, {});
  totals_.finish(summary, w_.total_flops());
  for (std::uint32_t n = 0; n < N_; ++n) {
    GpuSummary& memory = summary.gpus[nodes_[n].first];  // a node's memory figures go to its first worker
    memory.resident_at_end = resident[n];
    memory.peak_bytes = memory_.peak(n);
  }
  summary.stale_writebacks = stale_writebacks_;
  summary.events = events_;
  const auto ns = [](std::int64_t ticks) { return static_cast<std::int64_t>(static_cast<double>(ticks) * ns_per_tick()); };
  summary.scheduling_ns = ns(scheduling_ticks_ + pop_clock_.ticks() + push_clock_.ticks());
  summary.eviction_ns = ns(eviction_ticks_ + victim_clock_.ticks() + future_clock_.ticks());
  summary.prepare_ns = prepare_ns_;
  summary.charged_ns = charged_ns_;
  summary.push_decisions = push_fit_.fit();
  summary.pop_decisions = pop_fit_.fit();
  summary.decisions_charged_ns = decisions_charged_ns_;
  summary.scheduler_counters = scheduler_.counters();
  return summary;
}

void Engine::release(TaskId task, std::uint32_t thread) {
  if (charging_) {
    to_push_[thread].push_back(task);
    run_pushes(thread);
    return;
  }
  prefetch_on_push(task);
  push_to_scheduler(task);
}

std::uint64_t Engine::push_to_scheduler(TaskId task) {
  pushed_[task] = 1;
  const std::uint64_t before = scheduler_.tasks_scanned();
  push_clock_([&] { scheduler_.push(task); });
  const std::uint64_t scanned = scheduler_.tasks_scanned() - before;
  record_decision(push_fit_, push_clock_, scanned);
  return scanned;
}

// The pushes of one thread run one after the other, each when the previous one's cost has
// elapsed; the pushed task is the scheduler's from the moment its push starts.
void Engine::run_pushes(std::uint32_t thread) {
  auto& waiting = to_push_[thread];
  while (!waiting.empty() && thread_free_[thread] <= now_) {
    const TaskId task = waiting.front();
    waiting.pop_front();
    prefetch_on_push(task);
    keep_busy(thread, cost_.push_cost(push_to_scheduler(task)));
  }
}

void Engine::keep_busy(std::uint32_t thread, std::int64_t cost) {
  if (cost <= 0) return;
  thread_free_[thread] = now_ + cost;
  decisions_charged_ns_ += cost;
  device_->wake_at(thread_free_[thread]);
}

void Engine::end_decisions() {
  for (GpuId g = 0; g < W_; ++g) {
    if (entering_[g] != kNoId && thread_free_[g] <= now_) {
      const TaskId task = entering_[g];
      entering_[g] = kNoId;
      enter_buffer(g, task);
    }
  }
  for (std::uint32_t thread = 0; thread <= W_; ++thread) run_pushes(thread);
}

// Before the scheduler's decision, as StarPU does: only for tasks that only the bounded
// memory's workers can run (not the CPU workers computing from the host).
void Engine::prefetch_on_push(TaskId task) {
  if (!single_node_prefetch_) return;
  if (cpus_used_ && cpu_kind_rate_[w_.tasks()[task].kind] > 0) return;
  queue_prefetch(0, task);
}

// StarPU posts a prefetch at once: an input already there is refreshed then (a cache hit),
// the others wait for room in the node's queue.
void Engine::queue_prefetch(std::uint32_t n, TaskId task) {
  if (model_.touch_on_request) {
    for (const Access& access : w_.accesses(task)) {
      if (reads(access.mode) && memory_.copy(n, access.data) == Copy::Resident) touch(n, access.data);
    }
  }
  push_prefetches_[n].push_back(task);
}

void Engine::notify_future(DataId d) {
  if (!follows_future_) return;
  for (std::uint32_t n = 0; n < N_; ++n) {
    if (memory_.copy(n, d) == Copy::Resident) {
      future_clock_([&] { policy_.on_future_changed(n, d); });
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
      if (charging_ && (thread_free_[g] > now_ || entering_[g] != kNoId)) continue;  // its thread is busy
      const std::uint64_t before = scheduler_.tasks_scanned();
      const auto task = pop_clock_([&] { return scheduler_.pop(g); });
      if (!task) continue;
      const std::uint64_t scanned = scheduler_.tasks_scanned() - before;
      record_decision(pop_fit_, pop_clock_, scanned);
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
      progress = true;
      if (charging_) {
        if (const std::int64_t cost = cost_.pop_cost(scanned); cost > 0) {
          keep_busy(g, cost);
          entering_[g] = *task;
          continue;
        }
      }
      enter_buffer(g, *task);
    }
  }
}

void Engine::enter_buffer(GpuId g, TaskId task) {
  Worker& worker = workers_[g];
  worker.held.push_back(task);
  buffered_at_[task] = now_;
  if (!worker.cpu) {
    for (const Access& access : w_.accesses(task)) ++held_uses_[slot(worker.node, access.data)];
  }
  if (follows_future_) {
    for (const Access& access : w_.accesses(task)) {
      if (reads(access.mode)) notify_future(access.data);
    }
  }
}

void Engine::dispatch(GpuId g) {
  const Worker& worker = workers_[g];
  if (worker.held.empty()) return;
  if (!worker.running) try_start(g);
  const std::uint64_t allocations = allocations_;
  issue_requests(g);
  if (!worker.running && allocations_ != allocations) try_start(g);  // write-only outputs are allocated at once
}

// StarPU serves a node's fetches before its prefetches, and prefetches only while every fetch
// could start; a prefetch that cannot be placed pauses the node's prefetching until the next
// event (data_request.c, docs/starpu-memory-manager.md section 3).
void Engine::dispatch_by_level() {
  std::fill(prefetch_paused_.begin(), prefetch_paused_.end(), 0);
  for (GpuId g = 0; g < W_; ++g) {
    if (!workers_[g].running && !workers_[g].held.empty()) try_start(g);
  }
  for (GpuId g = 0; g < W_; ++g) {
    if (!issue_requests(g, Requests::Fetch) && !workers_[g].cpu) prefetch_paused_[workers_[g].node] = 1;
  }
  for (GpuId g = 0; g < W_; ++g) {
    const Worker& worker = workers_[g];
    if (worker.cpu || prefetch_paused_[worker.node]) continue;
    if (!issue_requests(g, Requests::Prefetch)) prefetch_paused_[worker.node] = 1;
  }
  for (std::uint32_t n = 0; n < N_; ++n) {
    if (!prefetch_paused_[n]) prefetch_pushed(n);
  }
  for (GpuId g = 0; g < W_; ++g) {
    if (!workers_[g].running && !workers_[g].held.empty()) try_start(g);  // write-only outputs are allocated at once
  }
}

bool Engine::may_start_transfer(std::uint32_t n, bool prefetch) const {
  const std::uint32_t limit = prefetch ? model_.max_prefetches : model_.max_fetches;
  return limit == 0 || in_flight_[n] < limit;
}

// A push-time prefetch only uses free memory, whatever prefetch_evicts says: the task is not
// in any buffer yet, so no order of tasks says whose data it could take.
bool Engine::prefetch_pushed(std::uint32_t n) {
  std::deque<TaskId>& queue = push_prefetches_[n];
  while (!queue.empty()) {
    const TaskId task = queue.front();
    if (!popped_[task]) {  // once in a buffer, its requests are the buffer's
      for (const Access& access : w_.accesses(task)) {
        if (!reads(access.mode)) continue;  // StarPU prefetches only what a task reads
        const DataId d = access.data;
        const Copy copy = memory_.copy(n, d);
        if (copy == Copy::Resident || copy == Copy::Loading) continue;
        if (copy == Copy::Evicting || !may_start_transfer(n, true)) return false;
        if (options_.platform.memory_bytes - memory_.used(n) < memory_.bytes(d)) return false;
        reserve_replica(n, d);
        request_load(n, d);
      }
    }
    queue.pop_front();
  }
  return true;
}

// StarPU counts a new chunk clean only when its data has a home holding a valid copy.
void Engine::reserve_replica(std::uint32_t n, DataId d) {
  memory_.reserve(n, d);
  ++replicas_[n];
  if (model_.idle_writeback) recency_.push_back(n, d);
  if (homeless_[d] || !memory_.host_valid(d)) untidy_.set(n, d);
}

// StarPU's memchunk tidy (memalloc.c). When fewer than min_clean percent of a node's replicas
// count as clean, it visits the untidy ones, oldest first, until target_clean percent do: one
// whose host copy is valid is just counted clean; one that a running task writes is skipped;
// the others are written back (an idle request: one at a time, while the node has no other
// transfer in flight) and count as clean from then on. StarPU's count is its own: a replica of
// data with a home becomes untidy again when a task writes it, but one of data without a home
// (whose first access writes it) stays counted clean once visited, whatever writes it later.
// The replica stays resident, and clean once its write-back ends.
void Engine::write_back_idle() {
  for (std::uint32_t n = 0; n < N_; ++n) {
    // Whole numbers of replicas, rounded down, as StarPU counts them: with 32 replicas it
    // starts when none is clean and stops at 3.
    const std::uint32_t replicas = replicas_[n];
    const auto clean = [&] { return replicas - untidy_.count(n); };
    const auto share = [&](double percent) { return static_cast<std::uint32_t>(replicas * percent / 100); };
    if (!tidying_[n]) {
      if (!(clean() < share(model_.min_clean))) continue;
      tidying_[n] = 1;
    }
    std::optional<DataId> to_write;
    recency_.for_each_oldest_first(n, [&](DataId d) {
      if (!(clean() < share(model_.target_clean))) return false;
      if (!untidy_.test(n, d) || memory_.copy(n, d) != Copy::Resident) return true;
      if (memory_.host_valid(d) || memory_.writeback_from(d) >= 0) {
        untidy_.clear(n, d);
        return true;
      }
      for (GpuId v : nodes_[n].workers) {
        const Worker& worker = workers_[v];
        if (!worker.running) continue;
        for (const Access& access : w_.accesses(worker.held.front())) {
          if (access.data == d && writes(access.mode)) return true;
        }
      }
      to_write = d;
      return false;
    });
    if (to_write && in_flight_[n] == 0) {
      untidy_.clear(n, *to_write);
      start_writeback(n, *to_write, WritebackCause::Idle);
    }
    if (clean() >= share(model_.target_clean) || untidy_.count(n) == 0) tidying_[n] = 0;
  }
}

void Engine::try_start(GpuId g) {
  Worker& worker = workers_[g];
  if (worker.running || worker.held.empty() || !error_.empty()) return;
  if (charging_ && thread_free_[g] > now_) return;  // its thread is still pushing or popping
  const TaskId task = worker.held.front();
  for (const Access& access : w_.accesses(task)) {
    if (worker.cpu ? reads(access.mode) && !memory_.host_valid(access.data) : memory_.copy(worker.node, access.data) != Copy::Resident) {
      return;
    }
  }
  worker.running = true;
  worker.start_ns = now_;
  if (!worker.cpu) {
    const std::int64_t ready = std::max(worker.free_since, buffered_at_[task]);
    for (const Access& access : w_.accesses(task)) {
      touch(worker.node, access.data);
      const std::uint32_t open = open_load_[slot(worker.node, access.data)];
      if (open != kNoId) emit_load(worker.node, access.data, classify_load(open_loads_[open].end_ns, ready), task);
    }
  }
  const std::int64_t end = device_->start_task(g, task);
  worker.end_ns = end == ExecutionDevice::kUnknownEnd ? ExecutionDevice::kNothingInFlight : end;
  // A real device's end is known later: the record then carries the start, and the executor
  // rewrites every time from what the device measured.
  emit(TaskRecord{.task = task,
                  .gpu = g,
                  .global_order = started_++,
                  .gpu_order = worker.started++,
                  .buffered_ns = buffered_at_[task],
                  .start_ns = worker.start_ns,
                  .end_ns = end == ExecutionDevice::kUnknownEnd ? worker.start_ns : end});
  scheduler_.on_task_started(g, task);
}

// A CPU worker computes from the host: data its held tasks read whose only valid copy is on a
// GPU are written back (lahp: "write-backs when a CPU task reads data last written on a GPU").
void Engine::request_host_copies(GpuId g) {
  for (TaskId task : workers_[g].held) {
    for (const Access& access : w_.accesses(task)) {
      const DataId d = access.data;
      if (!reads(access.mode) || memory_.host_valid(d) || memory_.writeback_from(d) >= 0) continue;
      for (std::uint32_t n = 0; n < N_; ++n) {
        const Copy copy = memory_.copy(n, d);
        if ((copy == Copy::Resident || copy == Copy::Evicting) && !memory_.stale(n, d)) {
          start_writeback(n, d, WritebackCause::Request);
          break;
        }
      }
    }
  }
}

bool Engine::issue_requests(GpuId g, Requests which) {
  Worker& worker = workers_[g];
  if (worker.cpu) {
    if (which != Requests::Prefetch) request_host_copies(g);
    return true;
  }
  const std::uint32_t n = worker.node;
  const std::size_t head = worker.running ? 1 : 0;
  std::size_t index = head;
  if (worker.requested_epoch == epoch_[n]) index = std::max(index, worker.requested);
  std::size_t end = worker.held.size();
  if (which == Requests::Fetch) end = std::min(end, head + 1);
  if (which == Requests::Prefetch && index <= head && head < end) return false;  // the fetch waits: so do prefetches
  for (; index < end; ++index) {
    const TaskId task = worker.held[index];
    for (const Access& access : w_.accesses(task)) {
      const DataId d = access.data;
      const Copy copy = memory_.copy(n, d);
      if (copy == Copy::Resident || copy == Copy::Loading) continue;
      if (copy == Copy::Evicting) return false;  // wait until it is gone, then load it again
      if (reads(access.mode) && !may_start_transfer(n, index != head)) return false;
      if (!make_room(g, memory_.bytes(d), index)) return false;
      reserve_replica(n, d);
      if (reads(access.mode)) {
        request_load(n, d);
      } else {
        memory_.allocate(n, d);
        device_->allocate(n, d);
        policy_.on_inserted(n, d);
        tell_workers(n, [&](GpuId v) { scheduler_.on_data_loaded(v, d); });
        emit(AllocationRecord{d, nodes_[n].first, now_, task});
      }
    }
    // Requests for later tasks protect this one's data: it stays requested until the epoch moves.
    worker.requested = index + 1;
    worker.requested_epoch = epoch_[n];
  }
  return true;
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
  const Node& node = nodes_[n];
  const double capacity = options_.platform.memory_bytes;
  if (capacity - memory_.used(n) >= bytes) return true;
  // Data used by the running task or any held task up to this one stay; on a shared memory
  // also the data of the other workers' running tasks, and of their next tasks unless this
  // request is for a next task that goes before theirs.
  const std::size_t head = worker.running ? 1u : 0u;
  const bool prefetch = index != head;
  if (prefetch && !model_.prefetch_evicts) return false;  // StarPU: a prefetch waits for free room
  victim_node_ = n;
  victim_by_uses_ = node.workers.size() == 1 && index + 1 == worker.held.size();  // every held task is protected
  if (!victim_by_uses_) {
    const std::uint32_t stamp = victim_stamp_ = ++protect_stamp_;
    for (std::size_t i = 0; i <= index; ++i) {
      for (const Access& access : w_.accesses(worker.held[i])) protect_[slot(n, access.data)] = stamp;
    }
    for (GpuId v : node.workers) {
      if (v == g) continue;
      const Worker& other = workers_[v];
      const std::size_t other_head = other.running ? 1u : 0u;
      const std::size_t last = std::min(other.held.size(), (prefetch || head_before(v, g)) ? other_head + 1 : other_head);
      for (std::size_t i = 0; i < last; ++i) {
        for (const Access& access : w_.accesses(other.held[i])) protect_[slot(n, access.data)] = stamp;
      }
    }
  }
  VictimRequest request;
  request.for_task = worker.held[index];
  request.prefetch = prefetch;
  request.evictable = evictable_;
  // StarPU: a fetch reuses one clean replica's room if it can (clean_first); otherwise it
  // reclaims `reclaim` times the room it needs, writing dirty replicas back as it meets them.
  bool reclaiming = false;
  const double reclaim_bytes = bytes * model_.reclaim;
  while (true) {
    const double free = capacity - memory_.used(n), freeing = free + memory_.pending_free(n);
    if (free >= bytes && (!reclaiming || freeing >= reclaim_bytes)) return true;
    if (freeing >= (reclaiming ? reclaim_bytes : bytes)) return false;  // write-backs will free enough
    std::optional<DataId> victim;
    if (!reclaiming && model_.clean_first) victim = choose_victim(n, request, true);
    if (!victim) {
      reclaiming = !prefetch && model_.reclaim > 1;
      victim = choose_victim(n, request, false);
      if (!victim && free >= bytes) return true;  // reclaimed what it could
    }
    if (!victim) {
      bool busy = memory_.pending_free(n) > 0;
      for (GpuId v : node.workers) busy = busy || workers_[v].running || (v != g && head_before(v, g));
      if (!request.prefetch && !busy && !memory_.any_loading(n)) {
        fail("the eviction policy found no victim on GPU " + std::to_string(node.first) + " for the next task, " +
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
}

// The policy's victim, among clean replicas only (none dirty: no write-back needed) or all.
std::optional<DataId> Engine::choose_victim(std::uint32_t n, const VictimRequest& request, bool clean_only) {
  if (clean_only) {
    if (dirty_.count(n) == 0) clean_only = false;             // every replica is clean
    else if (dirty_.count(n) >= replicas_[n]) return std::nullopt;  // none is
  }
  victim_clean_only_ = clean_only;
  const auto victim = victim_clock_([&] { return policy_.choose_victim(n, request); });
  victim_clean_only_ = false;
  return victim;
}

void Engine::evict(std::uint32_t n, DataId d, TaskId for_task) {
  policy_.on_removed(n, d);
  if (!memory_.host_valid(d) && memory_.holders(d) == 1) {  // the last valid copy: write it back first
    memory_.begin_eviction(n, d);
    copy_leaves(n, d);
    evict_for_[slot(n, d)] = for_task;
    if (memory_.writeback_from(d) < 0) start_writeback(n, d, WritebackCause::Eviction);
    // The scheduler sees the copy as gone from now on (MemoryView says Absent).
    tell_workers(n, [&](GpuId v) { scheduler_.on_data_evicted(v, d); });
    return;
  }
  free_copy(n, d, for_task, EvictionCause::Capacity, false);
}

void Engine::free_copy(std::uint32_t n, DataId d, TaskId for_task, EvictionCause cause, bool wrote_back) {
  const bool reported = memory_.release(n, d);  // an evicting copy was told to the scheduler when its write-back began
  if (!reported) copy_leaves(n, d);
  dirty_.clear(n, d);
  untidy_.clear(n, d);
  if (model_.idle_writeback) recency_.unlink(n, d);
  --replicas_[n];
  device_->release(n, d);
  if (open_load_[slot(n, d)] != kNoId) emit_load(n, d, LoadKind::Unused, kNoId);
  emit(EvictionRecord{.data = d, .gpu = nodes_[n].first, .for_task = for_task, .cause = cause, .wrote_back = wrote_back, .time_ns = now_});
  if (!reported) tell_workers(n, [&](GpuId v) { scheduler_.on_data_evicted(v, d); });
}

void Engine::request_load(std::uint32_t n, DataId d) {
  memory_.begin_load(n, d);
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
  if (platform.gpu_link_bandwidth > 0 && (platform.gpu_link_bandwidth >= platform.bus_bandwidth || !memory_.host_valid(d))) {
    for (std::uint32_t h = 0; h < N_; ++h) {
      if (h != n && memory_.copy(h, d) == Copy::Resident) {
        start_load(n, d, static_cast<std::int32_t>(h));
        return;
      }
    }
  }
  if (memory_.host_valid(d)) {
    start_load(n, d, kFromHost);
    return;
  }
  // The only valid copy is on another GPU without a link to this one: go through the host.
  memory_.wait_for_host(d, n);
  if (memory_.writeback_from(d) < 0) {
    for (std::uint32_t h = 0; h < N_; ++h) {
      const Copy copy = memory_.copy(h, d);
      if (h != n && (copy == Copy::Resident || copy == Copy::Evicting)) {
        start_writeback(h, d, WritebackCause::Request);
        return;
      }
    }
    fail("internal: data " + w_.data()[d].name + " has no valid copy anywhere");
  }
}

std::uint32_t Engine::new_transfer(const Transfer& transfer) {
  std::uint32_t id = 0;
  if (!free_transfers_.empty()) {
    id = free_transfers_.back();
    free_transfers_.pop_back();
    transfers_[id] = transfer;
  } else {
    id = static_cast<std::uint32_t>(transfers_.size());
    transfers_.push_back(transfer);
  }
  return id;
}

void Engine::start_load(std::uint32_t n, DataId d, std::int32_t source) {
  Transfer transfer;
  transfer.is_load = true;
  transfer.data = d;
  transfer.node = n;
  // Records name a node by its first worker.
  transfer.source = source == kFromHost ? kFromHost : static_cast<std::int32_t>(nodes_[static_cast<std::uint32_t>(source)].first);
  transfer.start_ns = now_;
  open_loads_[open_load_[slot(n, d)]].source = transfer.source;
  ++in_flight_[n];
  device_->start_load(new_transfer(transfer), n, d, source);
}

void Engine::start_writeback(std::uint32_t n, DataId d, WritebackCause cause) {
  Transfer transfer;
  transfer.is_load = false;
  transfer.data = d;
  transfer.node = n;
  transfer.start_ns = now_;
  transfer.cause = cause;
  transfer.version = memory_.version(d);
  memory_.writeback_started(d, n);
  ++in_flight_[n];
  device_->start_writeback(new_transfer(transfer), n, d);
}

void Engine::finish_transfer(std::uint32_t id) {
  const Transfer transfer = transfers_[id];
  free_transfers_.push_back(id);
  const DataId d = transfer.data;
  const std::uint32_t n = transfer.node;
  --in_flight_[n];
  if (transfer.is_load) {
    memory_.finish_load(n, d);
    open_loads_[open_load_[slot(n, d)]].end_ns = now_;
    policy_.on_inserted(n, d);
    tell_workers(n, [&](GpuId v) { scheduler_.on_data_loaded(v, d); });
    return;
  }
  emit(WritebackRecord{d, nodes_[n].first, w_.data()[d].bytes, transfer.start_ns, now_, transfer.cause});
  if (transfer.version != memory_.version(d)) {
    // A write on another worker made this version stale while it moved: the host copy stays
    // invalid, and the evicting copy it came from simply leaves.
    ++stale_writebacks_;
    if (memory_.copy(n, d) == Copy::Evicting) free_copy(n, d, evict_for_[slot(n, d)], EvictionCause::Capacity, true);
    return;
  }
  const std::vector<std::uint32_t> waiting = memory_.writeback_done(d);
  // The host holds this version now: every copy of it is clean, and evicting ones may leave,
  // including those that waited for another node's write-back instead of starting their own.
  for (std::uint32_t h = 0; h < N_; ++h) {
    dirty_.clear(h, d);
    if (memory_.copy(h, d) == Copy::Evicting && !memory_.stale(h, d)) free_copy(h, d, evict_for_[slot(h, d)], EvictionCause::Capacity, true);
  }
  for (std::uint32_t h : waiting) start_load(h, d, kFromHost);
}

// A write by `writer` leaves one valid copy: node `keep`'s, or the host's when keep is kNoId.
void Engine::invalidate_copies(DataId d, std::uint32_t keep, TaskId writer) {
  for (std::uint32_t h = 0; h < N_; ++h) {
    if (h == keep) continue;
    const Copy copy = memory_.copy(h, d);
    if (copy == Copy::Resident) {
      policy_.on_removed(h, d);
      free_copy(h, d, writer, EvictionCause::Invalidated, false);
    } else if (copy == Copy::Evicting) {
      // h is writing back the version this task overwrote (its copy was the last valid one
      // when h chose to evict it): that write-back is now stale; h's copy leaves when it ends.
      memory_.mark_stale(h, d);
    } else if (copy != Copy::Absent) {
      fail("task " + w_.task_label(writer) + " wrote " + w_.data()[d].name + " while GPU " + std::to_string(nodes_[h].first) +
           " was loading it: the workload lacks a dependency between tasks that access it");
    }
  }
  memory_.written(d, keep);
}

void Engine::finish_task(GpuId g) {
  Worker& worker = workers_[g];
  const TaskId task = worker.held.front();
  worker.held.erase(worker.held.begin());
  worker.running = false;
  worker.free_since = now_;
  if (worker.requested > 0) --worker.requested;
  if (!worker.cpu) {
    for (const Access& access : w_.accesses(task)) --held_uses_[slot(worker.node, access.data)];
  }
  for (const Access& access : w_.accesses(task)) {
    if (!writes(access.mode)) continue;
    invalidate_copies(access.data, worker.cpu ? kNoId : worker.node, task);
    if (worker.cpu) continue;
    dirty_.set(worker.node, access.data);
    if (!homeless_[access.data]) untidy_.set(worker.node, access.data);
  }
  ++done_;
  scheduler_.on_task_done(g, task);
  for (TaskId successor : w_.successors(task)) {
    if (--missing_preds_[successor] == 0) release(successor, g);
  }
}

void Engine::emit_load(std::uint32_t n, DataId d, LoadKind kind, TaskId task) {
  const std::uint32_t open = open_load_[slot(n, d)];
  const OpenLoad load = open_loads_[open];
  open_load_[slot(n, d)] = kNoId;
  free_open_loads_.push_back(open);
  const LoadRecord record{.data = d,
                          .gpu = nodes_[n].first,
                          .task = task,
                          .source = static_cast<std::int16_t>(load.source),
                          .kind = kind,
                          .bytes = w_.data()[d].bytes,
                          .issue_ns = load.issue_ns,
                          .end_ns = load.end_ns};
  totals_.add(record);
  if (observer_) observer_->on_load(record);
}

void Engine::flush() {
  for (DataId d = 0; d < nd_; ++d) {
    if (memory_.host_valid(d) || memory_.writeback_from(d) >= 0) continue;
    if (homeless_[d] && !model_.flush_homeless) continue;  // StarPU drops data without a home at unregistration
    for (std::uint32_t n = 0; n < N_; ++n) {
      if (memory_.copy(n, d) == Copy::Resident) {
        start_writeback(n, d, WritebackCause::Flush);
        break;
      }
    }
  }
}

// A replay's records in the order they came, so that the caller's observer can be given them
// once this replay proves to be the one kept; and each worker's tasks in start order.
class RoundRecords final : public ReplayObserver {
 public:
  RoundRecords(std::uint32_t workers, bool keep) : orders(workers), keep_(keep) {}
  void on_start(const Workload& workload) override { workload_ = &workload; }
  void on_task(const TaskRecord& r) override {
    if (r.gpu < orders.size()) orders[r.gpu].push_back(r.task);
    keep(r);
  }
  void on_load(const LoadRecord& r) override { keep(r); }
  void on_eviction(const EvictionRecord& r) override { keep(r); }
  void on_writeback(const WritebackRecord& r) override { keep(r); }
  void on_allocation(const AllocationRecord& r) override { keep(r); }
  void forward_to(ReplayObserver& observer) const {
    if (workload_) observer.on_start(*workload_);
    for (const Record& record : records_) {
      std::visit([&](const auto& r) { forward(observer, r); }, record);
    }
  }

  std::vector<std::vector<TaskId>> orders;

 private:
  using Record = std::variant<TaskRecord, LoadRecord, EvictionRecord, WritebackRecord, AllocationRecord>;
  template <class R>
  void keep(const R& r) {
    if (keep_) records_.emplace_back(r);
  }
  static void forward(ReplayObserver& o, const TaskRecord& r) { o.on_task(r); }
  static void forward(ReplayObserver& o, const LoadRecord& r) { o.on_load(r); }
  static void forward(ReplayObserver& o, const EvictionRecord& r) { o.on_eviction(r); }
  static void forward(ReplayObserver& o, const WritebackRecord& r) { o.on_writeback(r); }
  static void forward(ReplayObserver& o, const AllocationRecord& r) { o.on_allocation(r); }

  bool keep_;
  const Workload* workload_ = nullptr;
  std::vector<Record> records_;
};

constexpr int kMaxFutureRounds = 8;

}  // namespace

Result<ReplaySummary> replay(const Workload& workload, Scheduler& scheduler, EvictionPolicy& eviction,
                             const ReplayOptions& options, ReplayObserver* observer) {
  if (!eviction.follows_future() || !scheduler.serves_out_of_future_order() || options.device) {
    Engine engine(workload, scheduler, eviction, options, observer);
    return engine.run();
  }
  // Belady under a scheduler that departs from its own future: run, then run again with the
  // order that ran as the future, until the order repeats. The replay kept (its records go to
  // the caller's observer) is the one whose future was its own order, or, without a fixed
  // point, the one that loaded least.
  const std::uint32_t workers = options.platform.workers();
  std::vector<std::vector<TaskId>> orders;
  {
    RoundRecords first(workers, false);
    Engine engine(workload, scheduler, eviction, options, &first);
    if (auto summary = engine.run(); !summary) return summary;
    orders = std::move(first.orders);
  }
  std::optional<ReplaySummary> kept;
  std::unique_ptr<RoundRecords> kept_records;
  std::uint32_t replays = 1;
  bool converged = false;
  for (int round = 1; round < kMaxFutureRounds && !converged; ++round) {
    KnownFutureScheduler known(scheduler, orders);
    auto records = std::make_unique<RoundRecords>(workers, observer != nullptr);
    Engine engine(workload, known, eviction, options, records.get());
    auto summary = engine.run();
    ++replays;
    if (!summary) return summary;
    auto next = std::move(records->orders);
    converged = next == orders;
    if (converged || !kept || summary->loads < kept->loads) {
      kept = std::move(*summary);
      kept_records = std::move(records);
    }
    orders = std::move(next);
  }
  if (observer) kept_records->forward_to(*observer);
  kept->future_rounds = replays;
  kept->future_converged = converged;
  return *kept;
}

}  // namespace tilelens
