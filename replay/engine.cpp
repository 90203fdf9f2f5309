// The replay engine's event loop and the tasks' lifecycle; see engine.hpp for what it models.
// The engine asks the scheduler for tasks (fill_buffers), starts a worker's next task once its
// data are resident (try_start), and at each event (a transfer or a task ending, or a charged
// decision's cost elapsing) tells its components: the memory manager (memory_manager.hpp)
// serves the requests and owns every copy, the scheduling-cost clock (decision_threads.hpp)
// holds pushes and pops back while they cost time, and the ExecutionDevice (the simulated
// links and workers, or a real GPU) says when things end.
#include "replay/engine.hpp"

#include <algorithm>

#include "model/units.hpp"
#include "replay/decision_clock.hpp"
#include "replay/decision_threads.hpp"
#include "replay/engine_run.hpp"
#include "replay/memory_manager.hpp"
#include "replay/replay_state.hpp"
#include "replay/simulated_device.hpp"

namespace tilelens::replay_detail {
namespace {

constexpr double kHostFreeBytes = 1e300;

class Engine final : public MemoryView, public BufferView {
 public:
  Engine(const Workload& workload, Scheduler& scheduler, EvictionPolicy& policy, const ReplayOptions& options, ReplayObserver* observer)
      : s_(workload, scheduler, policy, options, observer), memory_(make_memory_manager(s_, options.memory_model)), books_(memory_->books()) {}

  Result<ReplaySummary> run();

  ReplicaState host_state(DataId data) const override {
    if (books_.host_valid(data)) return ReplicaState::Resident;
    return books_.writeback_from(data) >= 0 ? ReplicaState::Loading : ReplicaState::Absent;
  }
  ReplicaState state(GpuId worker, DataId data) const override {
    if (s_.workers[worker].cpu) return host_state(data);
    switch (books_.copy(s_.workers[worker].node, data)) {
      case Copy::Loading: return ReplicaState::Loading;
      case Copy::Resident: return ReplicaState::Resident;
      default: return ReplicaState::Absent;
    }
  }
  double free_bytes(GpuId worker) const override {
    return s_.workers[worker].cpu ? kHostFreeBytes : memory_->free_bytes(s_.workers[worker].node);
  }
  std::span<const TaskId> held(GpuId worker) const override { return s_.workers[worker].held; }
  const std::vector<DataId>* state_change_log() const override {
    memory_->log_state_changes();
    return &books_.change_log();
  }

 private:
  Result<ReplaySummary> run_events();
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

  Status set_up();
  void fill_buffers();
  void try_start(GpuId g);
  void finish_task(GpuId g);
  // Ends the tasks in unnoticed_ whose worker the memory manager no longer holds; whether any.
  bool finish_noticed();
  // A task whose predecessors are done goes to the scheduler: at once, or when decisions cost
  // time (ReplayOptions::scheduling_cost), once `thread` (the worker that released it, or the
  // submitter) is done with the pushes before it.
  void release(TaskId task, std::uint32_t thread);
  // The push-time prefetch, then the push itself; returns the tasks it scanned.
  std::uint64_t push(TaskId task);
  void prefetch_on_push(TaskId task);
  // The push, timed and counted for the decision fits; returns the tasks it scanned.
  std::uint64_t push_to_scheduler(TaskId task);
  // A popped task joins its worker's buffer (at once, or when its pop's cost has elapsed).
  void enter_buffer(GpuId g, TaskId task);
  static void record_decision(DecisionFitter& fitter, const DecisionClock& clock, std::uint64_t scanned) {
    if (clock.last_ticks() < 0) {
      fitter.add_untimed(scanned);
    } else {
      fitter.add(scanned, static_cast<double>(clock.last_ticks()) * ns_per_tick());
    }
  }
  ReplaySummary summarize();
  // Why a run stops when its next event (at `next`) lies past kMaxClockNs, naming the event.
  std::string past_horizon_message(std::int64_t next) const;

  ReplayState s_;
  SchedulerContext context_;  // the scheduler keeps it for the whole run
  std::unique_ptr<MemoryManager> memory_;
  const MemoryState& books_;  // the manager's: asked at every scheduler's query
  DecisionThreads threads_;
  std::unique_ptr<SimulatedDevice> simulated_;
  bool cpus_used_ = false;  // the scheduler hands tasks to CPU workers
  std::vector<double> kind_rate_, cpu_kind_rate_;
  std::vector<std::uint32_t> missing_preds_;
  std::vector<char> pushed_;
  std::vector<std::uint32_t> completed_;
  std::vector<GpuId> finished_;
  std::vector<GpuId> unnoticed_;  // workers whose task ended while the memory manager held them
  std::size_t done_ = 0;
  std::uint32_t started_ = 0;
  std::uint64_t events_ = 0;
  std::int64_t scheduling_ticks_ = 0, eviction_ticks_ = 0, prepare_ns_ = 0, charged_ns_ = 0;  // the one-off calls
  DecisionClock pop_clock_, push_clock_;
  DecisionFitter push_fit_, pop_fit_;
};

// The workers and memory nodes, the kernels' rates, the books, then the scheduler's and the
// eviction policy's preparation.
Status Engine::set_up() {
  const Platform& platform = s_.options.platform;
  if (auto status = check_platform(platform, s_.w); !status) return status;
  if (s_.options.buffer_depth == 0) return make_error("the task buffer depth must be at least 1");
  if (s_.W > kMaxWorkers) return make_error("at most " + std::to_string(kMaxWorkers) + " workers");

  s_.workers.assign(s_.W, {});
  s_.nodes.assign(s_.N, {});
  for (GpuId g = 0; g < s_.W; ++g) {
    s_.workers[g].cpu = platform.is_cpu_worker(g);
    if (s_.workers[g].cpu) continue;
    s_.workers[g].node = platform.memory_node_of(g);
    s_.nodes[s_.workers[g].node].workers.push_back(g);
  }
  for (std::uint32_t n = 0; n < s_.N; ++n) s_.nodes[n].first = platform.first_worker_of(n);
  cpus_used_ = platform.cpus > 0 && s_.scheduler.uses_cpu_workers();
  for (const auto& kind : s_.w.kinds()) {
    kind_rate_.push_back(platform.gflops_of(kind));
    cpu_kind_rate_.push_back(platform.cpu_gflops_of(kind));
    if (!(kind_rate_.back() > 0) && !cpus_used_) {
      return make_error(kind + " tasks run only on CPU workers, and this scheduler hands tasks to GPUs only");
    }
  }
  s_.buffered_at.assign(s_.w.task_count(), 0);
  s_.popped.assign(s_.w.task_count(), 0);
  pushed_.assign(s_.w.task_count(), 0);

  threads_.reset(s_.options.scheduling_cost, s_.W);
  if (threads_.charging() && s_.options.device) {
    return make_error("a scheduling cost is charged on the replay clock only: a real executor pays its scheduler's own time");
  }
  SchedulerContext& context = context_;
  context.memory = this;
  context.clock_ns = &s_.now;
  context.count_scans = threads_.charging();
  context.future_needed = s_.policy.follows_future();
  memory_->reset(context);
  std::int64_t prepare_ticks = 0;
  timed(prepare_ticks, [&] { s_.scheduler.prepare(s_.w, platform, context); });
  if (const std::string why = s_.scheduler.failure(); !why.empty()) return make_error(why);
  scheduling_ticks_ += prepare_ticks;
  prepare_ns_ = static_cast<std::int64_t>(static_cast<double>(prepare_ticks) * ns_per_tick());
  if (s_.options.charge_scheduling) {
    charged_ns_ = prepare_ns_;
    s_.now = charged_ns_;
  }
  s_.device = s_.options.device;
  if (!s_.device) {
    simulated_ = std::make_unique<SimulatedDevice>(s_.w, platform, s_.now);
    simulated_->order_starts(memory_->orders_starts());
    s_.device = simulated_.get();
  }
  EvictionContext eviction_context{&s_.w, &platform, s_.scheduler.future(), s_.scheduler.plan(), this, this};
  if (auto status = timed(eviction_ticks_, [&] { return s_.policy.attach(eviction_context); }); !status) return status;
  memory_->set_follows_future(s_.policy.follows_future());
  s_.follows_replicas = s_.scheduler.follows_replicas();
  return Status::success();
}

Result<ReplaySummary> Engine::run() {
  auto summary = run_events();
  if (!summary && summary.error().message == kCancelled) return summary;
  // A policy that stopped answering (an embedded class that raised) made the run stall or
  // fail: its reason is the run's, and a run it let finish is not a result either.
  std::string why = s_.scheduler.failure();
  if (why.empty()) why = s_.policy.failure();
  if (!why.empty()) return make_error(why);
  return summary;
}

Result<ReplaySummary> Engine::run_events() {
  if (auto status = set_up(); !status) return status.error();
  if (s_.observer) s_.observer->on_start(s_.w);
  missing_preds_.resize(s_.w.task_count());
  for (TaskId t = 0; t < s_.w.task_count(); ++t) missing_preds_[t] = static_cast<std::uint32_t>(s_.w.predecessors(t).size());
  const auto push_one = [this](TaskId task) { return push(task); };
  if (threads_.charging()) {
    for (TaskId t : s_.w.submission_order()) {
      if (missing_preds_[t] == 0) threads_.queue_push(threads_.submitter(), t);
    }
    threads_.run_pushes(threads_.submitter(), s_.now, *s_.device, push_one);
  } else {
    // Every ready task's push-time prefetch is queued before the first push (StarPU submits them all first).
    for (TaskId t : s_.w.submission_order()) {
      if (missing_preds_[t] == 0) prefetch_on_push(t);
    }
    for (TaskId t : s_.w.submission_order()) {
      if (missing_preds_[t] == 0) push_to_scheduler(t);
    }
  }

  const auto enter = [this](std::uint32_t g, TaskId task) { enter_buffer(g, task); };
  const auto start = [this](GpuId g) { try_start(g); };
  bool flushed = false;
  while (true) {
    if (s_.options.cancel && s_.options.cancel->load(std::memory_order_relaxed)) return make_error(kCancelled);
    if (threads_.charging()) {
      threads_.end_decisions(s_.now, *s_.device, enter, push_one);
      // A free thread starts its worker's next task before it pops another (StarPU's drivers).
      for (GpuId g = 0; g < s_.W; ++g) try_start(g);
    }
    memory_->before_pops();
    fill_buffers();
    memory_->serve(start);
    if (!s_.error.empty()) return make_error(s_.error);
    if (finish_noticed()) continue;  // what the ends released is pushed and served before the clock moves
    if (done_ == s_.w.task_count() && !flushed) {
      memory_->flush();
      flushed = true;
    }
    completed_.clear();
    finished_.clear();
    const std::int64_t next = s_.device->wait(completed_, finished_);
    if (next == ExecutionDevice::kNothingInFlight) {
      if (done_ == s_.w.task_count()) break;
      std::size_t held = 0;
      for (const Worker& worker : s_.workers) held += worker.held.size();
      return make_error("replay stalled at " + format_duration(s_.now) + ": " + std::to_string(done_) + " of " +
                        std::to_string(s_.w.task_count()) + " tasks done, " + std::to_string(held) +
                        " held by workers, and the scheduler hands out no task while nothing is in flight");
    }
    if (next > kMaxClockNs) return make_error(past_horizon_message(next));
    s_.now = next;
    ++events_;
    if (completed_.size() > 1) std::sort(completed_.begin(), completed_.end());
    for (std::uint32_t id : completed_) memory_->finish_transfer(id);
    if (finished_.size() > 1) std::sort(finished_.begin(), finished_.end());
    for (GpuId g : finished_) {
      s_.workers[g].end_ns = s_.now;
      if (memory_->holds_completion(g)) {
        unnoticed_.push_back(g);
      } else {
        finish_task(g);
      }
    }
    // A worker the manager held may be free now (a reclaim's last write-back ended): its
    // task's end comes before the next pass.
    finish_noticed();
    if (!s_.error.empty()) return make_error(s_.error);
  }
  return summarize();
}

std::string Engine::past_horizon_message(std::int64_t next) const {
  std::string event = "the next event";
  if (!completed_.empty()) {
    event = memory_->describe_transfer(completed_.front());
  } else if (!finished_.empty() && !s_.workers[finished_.front()].held.empty()) {
    event = "task " + s_.w.task_label(s_.workers[finished_.front()].held.front()) + " on worker " + std::to_string(finished_.front());
  }
  return "replay stopped at " + format_duration(s_.now) + ": " + event + " would end after " + format_duration(next) +
         ", past the replay clock's 2^62 ns (146 years); the platform's bandwidth or compute rate is too small for this workload";
}

ReplaySummary Engine::summarize() {
  ReplaySummary summary;
  summary.gpus.assign(s_.W, {});
  memory_->summarize(summary);
  summary.events = events_;
  const auto ns = [](std::int64_t ticks) { return static_cast<std::int64_t>(static_cast<double>(ticks) * ns_per_tick()); };
  summary.scheduling_ns = ns(scheduling_ticks_ + pop_clock_.ticks() + push_clock_.ticks());
  summary.eviction_ns = ns(eviction_ticks_ + memory_->victim_ticks() + memory_->future_ticks());
  summary.prepare_ns = prepare_ns_;
  summary.charged_ns = charged_ns_;
  summary.push_decisions = push_fit_.fit();
  summary.pop_decisions = pop_fit_.fit();
  summary.decisions_charged_ns = threads_.charged_ns();
  summary.scheduler_counters = s_.scheduler.counters();
  return summary;
}

void Engine::release(TaskId task, std::uint32_t thread) {
  if (threads_.charging()) {
    threads_.queue_push(thread, task);
    const auto push_one = [this](TaskId t) { return push(t); };
    threads_.run_pushes(thread, s_.now, *s_.device, push_one);
    return;
  }
  push(task);
}

std::uint64_t Engine::push(TaskId task) {
  prefetch_on_push(task);
  return push_to_scheduler(task);
}

// Before the scheduler's decision, as StarPU does: only for tasks that only the bounded
// memory's workers can run (not the CPU workers computing from the host).
void Engine::prefetch_on_push(TaskId task) {
  memory_->task_ready(task);
  if (!(cpus_used_ && cpu_kind_rate_[s_.w.tasks()[task].kind] > 0)) memory_->prefetch_on_push(task);
}

std::uint64_t Engine::push_to_scheduler(TaskId task) {
  pushed_[task] = 1;
  const std::uint64_t before = s_.scheduler.tasks_scanned();
  push_clock_([&] { s_.scheduler.push(task); });
  const std::uint64_t scanned = s_.scheduler.tasks_scanned() - before;
  record_decision(push_fit_, push_clock_, scanned);
  return scanned;
}

// Each worker with room takes tasks, in index order; with a runtime whose idle workers poll
// (MemoryManager::ended_workers_pop_last), those whose task just ended go in a second round.
void Engine::fill_buffers() {
  const bool ended_last = finished_.size() < s_.W && !finished_.empty() && memory_->ended_workers_pop_last();
  bool progress = true;
  while (progress && s_.error.empty()) {
    progress = false;
    for (GpuId i = 0; i < (ended_last ? 2 * s_.W : s_.W); ++i) {
      const GpuId g = i % s_.W;
      if (ended_last && std::binary_search(finished_.begin(), finished_.end(), g) != (i >= s_.W)) continue;
      Worker& worker = s_.workers[g];
      if (worker.cpu && !cpus_used_) continue;
      if (worker.held.size() >= s_.options.buffer_depth || (!worker.cpu && !memory_->may_pop(g))) continue;
      if (threads_.busy(g, s_.now) || threads_.entering(g)) continue;  // its thread is busy
      const std::uint64_t before = s_.scheduler.tasks_scanned();
      const auto task = pop_clock_([&] { return s_.scheduler.pop(g); });
      if (!task) continue;
      const std::uint64_t scanned = s_.scheduler.tasks_scanned() - before;
      record_decision(pop_fit_, pop_clock_, scanned);
      if (*task >= s_.w.task_count() || !pushed_[*task] || s_.popped[*task]) {
        s_.fail("the scheduler handed out task " + std::to_string(*task) + ", which is not ready or was already handed out");
        return;
      }
      const KindId kind = s_.w.tasks()[*task].kind;
      if (!((worker.cpu ? cpu_kind_rate_ : kind_rate_)[kind] > 0)) {
        s_.fail("the scheduler handed task " + s_.w.task_label(*task) + " to " + (worker.cpu ? "CPU" : "GPU") + " worker " +
                std::to_string(g) + ", which has no " + s_.w.kinds()[kind] + " kernel");
        return;
      }
      s_.popped[*task] = 1;
      ++s_.changes;
      progress = true;
      if (threads_.hold_pop(g, *task, scanned, s_.now, *s_.device)) continue;
      enter_buffer(g, *task);
    }
  }
}

void Engine::enter_buffer(GpuId g, TaskId task) {
  s_.workers[g].held.push_back(task);
  ++s_.changes;
  s_.buffered_at[task] = s_.now;
  memory_->task_buffered(g, task);
}

void Engine::try_start(GpuId g) {
  Worker& worker = s_.workers[g];
  if (worker.running || worker.held.empty() || !s_.error.empty()) return;
  if (threads_.busy(g, s_.now)) return;  // its thread is still pushing or popping
  const TaskId task = worker.held.front();
  const MemoryState& books = books_;
  for (const Access& access : s_.w.accesses(task)) {
    if (worker.cpu ? reads(access.mode) && !books.host_valid(access.data) : books.copy(worker.node, access.data) != Copy::Resident) {
      return;
    }
  }
  if (!worker.cpu && !memory_->may_start(g, task)) return;
  worker.running = true;
  ++s_.changes;
  worker.start_ns = s_.now;
  if (!worker.cpu) memory_->task_started(g, task, std::max(worker.free_since, s_.buffered_at[task]));
  const std::int64_t end = s_.device->start_task(g, task);
  worker.end_ns = end == ExecutionDevice::kUnknownEnd ? ExecutionDevice::kNothingInFlight : end;
  // A real device's end is known later: the record then carries the start, and the executor
  // rewrites every time from what the device measured.
  s_.emit(TaskRecord{.task = task,
                     .gpu = g,
                     .global_order = started_++,
                     .gpu_order = worker.started++,
                     .buffered_ns = s_.buffered_at[task],
                     .start_ns = worker.start_ns,
                     .end_ns = end == ExecutionDevice::kUnknownEnd ? worker.start_ns : end});
  s_.scheduler.on_task_started(g, task);
}

// Tasks that ended while their worker was busy in the memory manager end once it is free.
bool Engine::finish_noticed() {
  if (unnoticed_.empty()) return false;
  const std::size_t before = unnoticed_.size();
  std::erase_if(unnoticed_, [&](GpuId g) {
    if (memory_->holds_completion(g)) return false;
    finish_task(g);
    return true;
  });
  return unnoticed_.size() != before;
}

void Engine::finish_task(GpuId g) {
  Worker& worker = s_.workers[g];
  const TaskId task = worker.held.front();
  worker.held.erase(worker.held.begin());
  worker.running = false;
  ++s_.changes;
  worker.free_since = s_.now;
  if (worker.requested > 0) --worker.requested;
  memory_->task_done(g, task);
  ++done_;
  s_.scheduler.on_task_done(g, task);
  for (TaskId successor : s_.w.successors(task)) {
    if (--missing_preds_[successor] == 0) release(successor, g);
  }
}

}  // namespace

Result<ReplaySummary> run_engine(const Workload& workload, Scheduler& scheduler, EvictionPolicy& eviction, const ReplayOptions& options,
                                 ReplayObserver* observer) {
  Engine engine(workload, scheduler, eviction, options, observer);
  return engine.run();
}

}  // namespace tilelens::replay_detail
