// DMDA, DMDAR and DMDAS (fgcs section 4.3, Algorithms 3 and 4; darts Algorithms 1 and 2):
// StarPU's "deque model data aware" family.
//
// A task is allocated when it becomes ready (push), to the GPU that minimises its expected
// completion time C = backlog + transfers + computation, where the transfers count only the
// inputs that GPU neither holds nor will receive for a task already allocated to it (the
// paper's InMem), each at latency + bytes / bus bandwidth, and the backlog is the expected
// time of the tasks allocated to that GPU and not finished yet. Ties go to the lowest GPU.
// The GPU then serves its queue: DMDA in allocation order, DMDAR with Ready (ready.hpp) among
// the queued tasks whose priority is at least the head's, as StarPU 1.3.10 does
// (fifo_queues.c:398-433: lower-priority tasks are skipped wherever they sit), DMDAS in
// priority order (largest first, allocation order among equals) with the same Ready. The
// eviction policy is the caller's (the paper uses LRU). With one GPU DMDA is EAGER and DMDAR
// is Ready over every task of the head's priority or more (fgcs 4.3; the papers' matrix
// products give every task one priority, so there it is Ready over all tasks).
//
// On a platform with CPU workers (lahp's nodes) every worker is a candidate, each at its own
// rate for the kind (none where it has no kernel); a CPU worker's transfers are the inputs
// whose host copy is stale (written back from a GPU), as in StarPU.
//
// Two estimates (the `estimate` parameter). `paper` (the default) is the papers' Algorithm 3:
// the backlog is an expected amount of work, decreased when a task finishes, and the least C
// wins. `starpu` is StarPU 1.3.10's own (deque_modeling_policy_data_aware.c), on the executor's
// clock: each worker's queue has an expected start date and length, a task would start when the
// queue is done or its transfers are, whichever is later, and the worker of least
// (end - best end) + transfers wins; a transfer is predicted at latency + bytes / bandwidth times
// 2 x the number of GPUs (StarPU's allowance for a shared bus), two hops from another GPU
// without a link. Against StarPU-SimGrid on 2 and 4 GPUs it agrees where the paper's estimate
// spreads the work StarPU keeps local (docs/fidelity.md); on one GPU both choose the same.
#include <algorithm>

#include "schedulers/ready.hpp"
#include "schedulers/static_order.hpp"

namespace tilelens {
namespace {

enum class DmdaVariant { Plain, Ready, Sorted };
// How a push weighs the workers: the paper's completion time, or StarPU 1.3.10's fitness.
enum class DmdaEstimate { Paper, Starpu };

class Dmda final : public Scheduler {
 public:
  Dmda(DmdaVariant variant, DmdaEstimate estimate, bool loading_tiebreak)
      : variant_(variant), estimate_(estimate), loading_tiebreak_(loading_tiebreak) {}

  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) override {
    workload_ = &workload;
    platform_ = &platform;
    context_ = &context;
    const std::uint32_t workers = platform.workers();
    queues_.assign(workers, {});
    backlog_.assign(workers, 0);
    cost_.assign(workload.task_count(), 0);
    clocks_.assign(workers, {});
    candidate_end_.assign(workers, 0);
    candidate_penalty_.assign(workers, 0);
    candidate_compute_.assign(workers, 0);
    if (estimate_ == DmdaEstimate::Starpu) {
      predicted_.assign(workload.task_count(), 0);
      predicted_transfer_.assign(workload.task_count(), 0);
    }
    planned_.assign(static_cast<std::size_t>(workers) * workload.data_count(), 0);
    if (variant_ != DmdaVariant::Plain) costs_.reset(workload, *context.memory);
    gpu_seconds_per_flop_.clear();
    cpu_seconds_per_flop_.clear();
    const auto per_flop = [](double gflops) { return gflops > 0 ? 1e-9 / gflops : -1.0; };  // -1: no kernel
    for (const auto& kind : workload.kinds()) {
      gpu_seconds_per_flop_.push_back(per_flop(platform.gflops_of(kind)));
      cpu_seconds_per_flop_.push_back(per_flop(platform.cpu_gflops_of(kind)));
    }
  }

  void push(TaskId task) override {
    const Allocation allocation = estimate_ == DmdaEstimate::Starpu ? choose_as_starpu(task) : choose_as_paper(task);
    const GpuId chosen = allocation.worker;
    if (estimate_ == DmdaEstimate::Starpu) {
      queue_task_as_starpu(task, allocation);
    } else {
      cost_[task] = allocation.transfers + allocation.compute;
      backlog_[chosen] += cost_[task];
    }
    if (context_->allocated) context_->allocated(task, chosen);
    for (const Access& access : workload_->accesses(task)) {
      if (reads(access.mode)) planned_[slot(chosen, access.data)] = 1;
    }
    if (variant_ != DmdaVariant::Plain) costs_.add(task, chosen);
    const std::int64_t priority = workload_->tasks()[task].priority;
    if (variant_ == DmdaVariant::Sorted) {
      scanned_ += queues_[chosen].insert_by_priority(task, priority);
    } else {
      queues_[chosen].push_back(task, priority);
    }
  }

  std::optional<TaskId> pop(GpuId gpu) override {
    TaskQueue& queue = queues_[gpu];
    if (queue.empty()) return std::nullopt;
    std::optional<std::size_t> position;
    if (variant_ == DmdaVariant::Plain) {
      position = queue.begin_position();
    } else {
      costs_.refresh();
      // Without the tie-break, bytes not even loading weigh nothing: the first of the fewest missing wins.
      position = ready_select_by(queue, ReadyPriority::AtLeastHead, [](TaskId) { return true; },
                                 [this](TaskId task) {
                                   ReadyCost cost = costs_.cost(task);
                                   if (!loading_tiebreak_) cost.absent = 0;
                                   return cost;
                                 },
                                 scanned_);
    }
    // Ready takes from anywhere in the queue: the entry goes at once, so the next scan walks no hole.
    const TaskId task = variant_ == DmdaVariant::Plain ? queue.take(*position) : queue.remove(*position);
    if (variant_ != DmdaVariant::Plain) costs_.remove(task);
    if (estimate_ == DmdaEstimate::Starpu) {
      // dmda_pop_task: the transfer is under way, its time moves from the queue to the pipeline.
      QueueClock& q = clocks_[gpu];
      const double now = now_seconds();
      q.exp_start = std::max(q.exp_start, now);
      q.exp_len -= predicted_transfer_[task];
      q.pipeline_len += predicted_transfer_[task];
      q.exp_start = now + q.pipeline_len;
    }
    return task;
  }

  void on_task_started(GpuId gpu, TaskId task) override {
    if (estimate_ != DmdaEstimate::Starpu) return;
    // dmda_pre_exec_hook: the transfer is over, the computation moves from the queue to the pipeline.
    QueueClock& q = clocks_[gpu];
    q.pipeline_len += predicted_[task] - predicted_transfer_[task];
    q.exp_len -= predicted_[task];
    q.exp_start = std::max(q.exp_start, now_seconds() + q.pipeline_len);
  }
  void on_task_done(GpuId gpu, TaskId task) override {
    if (estimate_ == DmdaEstimate::Starpu) {
      // dmda_post_exec_hook.
      QueueClock& q = clocks_[gpu];
      q.pipeline_len -= predicted_[task];
      q.exp_start = std::max(q.exp_start, now_seconds() + q.pipeline_len);
      return;
    }
    backlog_[gpu] = std::max(0.0, backlog_[gpu] - cost_[task]);
  }
  void on_data_evicted(GpuId gpu, DataId data) override { planned_[slot(gpu, data)] = 0; }
  bool uses_cpu_workers() const override { return true; }
  std::uint64_t tasks_scanned() const override { return scanned_; }

 private:
  std::size_t slot(GpuId g, DataId d) const { return static_cast<std::size_t>(g) * workload_->data_count() + d; }
  double now_seconds() const { return context_->clock_ns ? static_cast<double>(*context_->clock_ns) * 1e-9 : 0.0; }
  // The worker's time for the task's kernel, in seconds; negative where it has none.
  double compute_seconds(GpuId g, const Task& t) const {
    const double per_flop = (platform_->is_cpu_worker(g) ? cpu_seconds_per_flop_ : gpu_seconds_per_flop_)[t.kind];
    return per_flop < 0 ? -1.0 : t.flops * per_flop;
  }

  struct Allocation {
    GpuId worker = kNoId;
    double compute = 0, transfers = 0;
  };

  // The summed `cost` of the task's inputs that worker g neither holds nor will receive for a
  // task already allocated to it.
  template <class Cost>
  double missing_inputs(GpuId g, TaskId task, Cost cost) const {
    double total = 0;
    for (const Access& access : workload_->accesses(task)) {
      if (!reads(access.mode) || planned_[slot(g, access.data)]) continue;
      if (context_->memory->state(g, access.data) != ReplicaState::Absent) continue;
      total += cost(access.data);
    }
    return total;
  }

  // The paper's estimate: C = backlog + transfers + computation, the least C wins.
  Allocation choose_as_paper(TaskId task) const {
    const Task& t = workload_->tasks()[task];
    Allocation chosen;
    double chosen_completion = 0;
    for (GpuId g = 0; g < queues_.size(); ++g) {
      const double compute = compute_seconds(g, t);
      if (compute < 0) continue;
      const double transfers = missing_inputs(g, task, [&](DataId d) {
        return platform_->transfer_seconds(static_cast<double>(workload_->data()[d].bytes));
      });
      const double completion = backlog_[g] + transfers + compute;
      if (chosen.worker == kNoId || completion < chosen_completion) {
        chosen = {g, compute, transfers};
        chosen_completion = completion;
      }
    }
    return chosen;
  }

  // StarPU 1.3.10's transfer estimate for one input that worker g neither holds nor has
  // requested (starpu_data_expected_transfer_time, perfmodel.c:281-318): each hop of its path
  // from the cheapest valid copy costs latency + bytes / bandwidth * 2 * (number of GPUs)
  // (starpu_transfer_predict, perfmodel_bus.c:3181-3212: StarPU's allowance for GPUs sharing
  // the bus). From another GPU without a direct link the path is two hops through the host.
  double starpu_transfer_seconds(GpuId g, DataId d) const {
    const double bytes = static_cast<double>(workload_->data()[d].bytes);
    const double latency = static_cast<double>(platform_->latency_ns) * 1e-9;
    const double sharing = 2.0 * platform_->gpus;
    const double over_bus = latency + bytes / platform_->bus_bandwidth * sharing;
    const MemoryView& memory = *context_->memory;
    if (platform_->is_cpu_worker(g) || memory.host_state(d) == ReplicaState::Resident) return over_bus;
    for (GpuId h = 0; h < platform_->gpus; ++h) {
      if (h == g || memory.state(h, d) != ReplicaState::Resident) continue;
      return platform_->gpu_link_bandwidth > 0 ? latency + bytes / platform_->gpu_link_bandwidth * sharing : 2 * over_bus;
    }
    return over_bus;
  }

  // StarPU 1.3.10's choice (compute_all_performance_predictions and _dmda_push_task,
  // deque_modeling_policy_data_aware.c:367-690, alpha = beta = 1, no energy model): on each
  // worker the task would start when its queue is done or when its transfers are, whichever
  // is later, and the worker of least (end - best end) + transfers wins, the lowest on a tie.
  Allocation choose_as_starpu(TaskId task) {
    const Task& t = workload_->tasks()[task];
    const double now = now_seconds();
    double best_end = 0;
    bool any = false;
    for (GpuId g = 0; g < queues_.size(); ++g) {
      candidate_end_[g] = -1;
      const double compute = compute_seconds(g, t);
      if (compute < 0) continue;
      const double penalty = missing_inputs(g, task, [&](DataId d) { return starpu_transfer_seconds(g, d); });
      const QueueClock& q = clocks_[g];
      const double start = std::max(std::max(q.exp_start, now) + q.exp_len, now + penalty);
      candidate_end_[g] = start + compute;
      candidate_compute_[g] = compute;
      candidate_penalty_[g] = penalty;
      if (!any || candidate_end_[g] < best_end) best_end = candidate_end_[g];
      any = true;
    }
    Allocation chosen;
    double chosen_fitness = 0;
    for (GpuId g = 0; g < queues_.size(); ++g) {
      if (candidate_end_[g] < 0) continue;
      const double fitness = candidate_end_[g] - best_end + candidate_penalty_[g];
      if (chosen.worker == kNoId || fitness < chosen_fitness) {
        chosen = {g, candidate_compute_[g], candidate_penalty_[g]};
        chosen_fitness = fitness;
      }
    }
    return chosen;
  }

  // push_task_on_best_worker (deque_modeling_policy_data_aware.c:229-300): transfers that end
  // before the queue does are hidden behind it; the rest, and the kernel, lengthen the queue.
  void queue_task_as_starpu(TaskId task, const Allocation& allocation) {
    QueueClock& q = clocks_[allocation.worker];
    const double now = now_seconds();
    q.exp_start = std::max(q.exp_start, now);
    const double exp_end = q.exp_start + q.exp_len;
    const double transfer = now + allocation.transfers < exp_end ? 0.0 : now + allocation.transfers - exp_end;
    predicted_[task] = allocation.compute;
    predicted_transfer_[task] = transfer;
    q.exp_len += transfer + allocation.compute;
  }

  DmdaVariant variant_;
  DmdaEstimate estimate_;
  // Ready breaks a tie on missing bytes by the bytes not even loading (REFERENCE.md); StarPU
  // 1.3.10 takes the first (_starpu_fifo_pop_first_ready_task, fifo_queues.c:398-447).
  bool loading_tiebreak_ = true;
  // StarPU's per-worker queue clock (struct _starpu_fifo_taskq), in seconds: when the queued
  // work may start, the queued work's expected length, the popped work's not yet done.
  struct QueueClock {
    double exp_start = 0, exp_len = 0, pipeline_len = 0;
  };
  std::vector<QueueClock> clocks_;
  std::vector<double> predicted_, predicted_transfer_;  // per task, as queued (StarPU's estimate)
  std::vector<double> candidate_end_, candidate_compute_, candidate_penalty_;  // per worker, one push's scratch
  const Workload* workload_ = nullptr;
  const Platform* platform_ = nullptr;
  const SchedulerContext* context_ = nullptr;
  std::vector<TaskQueue> queues_;
  std::vector<double> backlog_, cost_, gpu_seconds_per_flop_, cpu_seconds_per_flop_;
  std::vector<char> planned_;
  ReadyCosts costs_;  // DMDAR's and DMDAS's Ready
  std::uint64_t scanned_ = 0;  // DMDAS's sorted inserts and the Ready scans
};

}  // namespace

namespace {
Result<std::unique_ptr<Scheduler>> make_variant(DmdaVariant variant, const Params& params) {
  const std::string& estimate = params.text("estimate");
  if (estimate != "paper" && estimate != "starpu") {
    return make_error("estimate: '" + estimate + "' is not an estimate (valid: paper, starpu)");
  }
  bool loading_tiebreak = true;
  if (variant != DmdaVariant::Plain) {
    if (auto status = params.flags({{"loading_tiebreak", &loading_tiebreak}}); !status) return status.error();
  }
  return std::unique_ptr<Scheduler>(
      std::make_unique<Dmda>(variant, estimate == "starpu" ? DmdaEstimate::Starpu : DmdaEstimate::Paper, loading_tiebreak));
}
}  // namespace

Result<std::unique_ptr<Scheduler>> make_dmda(const Params& params) { return make_variant(DmdaVariant::Plain, params); }
Result<std::unique_ptr<Scheduler>> make_dmdar(const Params& params) { return make_variant(DmdaVariant::Ready, params); }
Result<std::unique_ptr<Scheduler>> make_dmdas(const Params& params) { return make_variant(DmdaVariant::Sorted, params); }

}  // namespace tilelens
