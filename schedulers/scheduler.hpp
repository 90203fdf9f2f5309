// The scheduler interface: what every policy (static orders, DMDA*, HFP, DARTS, ...) offers
// to an executor, replay or CUDA. Contract, in the order calls happen:
//
//   1. prepare(workload, platform, context) once, before any task is ready. Static schedulers
//      compute their whole order here. The context stays valid for the whole run.
//   2. push(task) each time a task becomes ready (all predecessors done), in release order;
//      for a workload without dependencies every task is pushed, in submission order, right
//      after prepare.
//   3. pop(worker) when a worker (a GPU, or a core: see Platform) has room in its task buffer; returns the task it should append, or
//      nothing for now (the GPU asks again after the next event). Every pushed task is popped
//      exactly once.
//   4. hooks, as things happen: on_task_started, on_task_done, on_load_requested,
//      on_data_loaded, on_data_evicted (together they follow every replica state change; a
//      scheduler whose follows_replicas() is false is not told of the last three).
//
// A scheduler that knows its future order exposes it through future() for Belady-style
// eviction (DESIGN section 3: "with a dynamic scheduler the known future is what it has
// planned"), and one that plans per GPU exposes planned() for LUF.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "model/model.hpp"
#include "model/params.hpp"
#include "schedulers/embedded_policies.hpp"

namespace tilelens {

enum class ReplicaState : std::uint8_t { Absent, Loading, Resident };

// The executor's memory state, as schedulers may consult it (DMDA's "not in memory", DARTS's
// free tasks). Asked for a worker, it answers for the worker's memory: the memory node it
// shares with others, or the host for a CPU worker.
class MemoryView {
 public:
  virtual ~MemoryView() = default;
  virtual ReplicaState state(GpuId gpu, DataId data) const = 0;
  virtual double free_bytes(GpuId gpu) const = 0;
  // The host's copy: Resident while valid, Loading while a write-back brings it, else Absent.
  virtual ReplicaState host_state(DataId) const { return ReplicaState::Resident; }
  // Every data whose state changed since this was first asked (on any memory or the host, in
  // order; it grows as the run goes), so that a scheduler can keep what it derives from state()
  // and refresh only what changed (ReadyCosts); nullptr where the executor keeps no such log,
  // and then state() must be asked each time. Ask it in prepare(), before any state changes.
  virtual const std::vector<DataId>* state_change_log() const { return nullptr; }
};

// The known future of a GPU: the position of the next use of a data in what the scheduler
// will hand out, or kNever. Positions only need to be comparable for one GPU. The value for
// (gpu, data) may change only when a task reading the data is popped (the executor then
// tells the eviction policy), or when the scheduler calls SchedulerContext::future_changed.
class TaskFuture {
 public:
  static constexpr std::uint64_t kNever = UINT64_MAX;
  virtual ~TaskFuture() = default;
  virtual std::uint64_t next_use(GpuId gpu, DataId data) const = 0;
};

// The tasks a planning scheduler (DARTS) holds for a GPU beyond its task buffer.
class PlanView {
 public:
  virtual ~PlanView() = default;
  virtual std::span<const TaskId> planned(GpuId gpu) const = 0;
  // How many planned tasks of the GPU read the data (LUF's "used by the fewest planned tasks").
  virtual std::uint32_t planned_uses(GpuId gpu, DataId data) const = 0;
};

struct SchedulerContext {
  const MemoryView* memory = nullptr;
  std::uint64_t seed = 0;
  // Whether the eviction policy reads the known future (future()); a scheduler may skip
  // keeping it up to date when it does not.
  bool future_needed = true;
  // Tells the executor that the scheduler's future changed for this data (on every GPU).
  std::function<void(DataId)> future_changed;
  // A scheduler that allocates a task to a worker when the task becomes ready (StarPU's dmda
  // family) says so here, in push(); the executor may prefetch the task's inputs at once, as
  // StarPU's dmda push does. Unset: nobody listens.
  std::function<void(TaskId, GpuId)> allocated;
  // Whether tasks_scanned() must count (a scheduling cost is charged per task scanned); a
  // scheduler whose fast path skips a scan that StarPU's algorithm makes may then count the
  // tasks that scan would have visited at some extra cost.
  bool count_scans = false;
  // The executor's clock in ns (the replay's simulated one, or a real device's), for a
  // scheduler whose estimates are dates as StarPU's dmda's are; null: no clock, read as 0.
  const std::int64_t* clock_ns = nullptr;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual void prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) = 0;
  // Why the scheduler cannot run what prepare() gave it (a plugin that refused the workload),
  // or stopped answering (an embedded scheduler's exception); empty while it works. The
  // executor asks right after prepare(), when a run cannot go on, and at its end.
  virtual std::string failure() const { return {}; }
  virtual void push(TaskId task) = 0;
  virtual std::optional<TaskId> pop(GpuId gpu) = 0;

  virtual void on_task_started(GpuId, TaskId) {}
  virtual void on_task_done(GpuId, TaskId) {}
  virtual void on_load_requested(GpuId, DataId) {}  // Absent -> Loading
  virtual void on_data_loaded(GpuId, DataId) {}     // -> Resident (a load arrived, or a write-only output was allocated)
  virtual void on_data_evicted(GpuId, DataId) {}    // -> Absent (evicted or invalidated)
  virtual bool follows_replicas() const { return true; }

  virtual const TaskFuture* future() const { return nullptr; }
  // Whether the order the scheduler serves may depart from its future() as the run goes (Ready
  // picks out of package order, a GPU steals): Belady then replays until it sees the order
  // that runs (replay(), engine.hpp).
  virtual bool serves_out_of_future_order() const { return false; }
  virtual const PlanView* plan() const { return nullptr; }
  // The task's place, from 1, in an order the schedule imposes on its worker as a sched.rec's
  // Workerorder does (fixed:workerorder=1); 0 when none. StarPU prefetches such a task at push on
  // that worker, above every task priority, earliest place first (coherency.c:973-978).
  virtual std::uint32_t worker_order(TaskId) const { return 0; }
  // Whether pop() serves the platform's CPU workers (Platform::cpus); the executor asks
  // only GPU workers otherwise, and refuses workloads with CPU-only kinds.
  // Parameters the scheduler found out itself, recorded in the run's spec with the given ones
  // so that the run can be checked again (fixed's schedule file digest).
  virtual std::vector<std::pair<std::string, std::string>> recorded_params() const { return {}; }
  virtual bool uses_cpu_workers() const { return false; }
  // The tasks the scheduler's pushes and pops looked at so far, as StarPU's algorithm visits
  // them (a Ready pop scans its queue until a task needs nothing): what the per-task part of
  // a scheduling cost charges (runtime/scheduling_cost.hpp). Constant-time decisions (EAGER,
  // LWS, DMDA, static orders, LAHeteroprio) scan none.
  virtual std::uint64_t tasks_scanned() const { return 0; }
  // The scheduler's own counts, named, stored with the run (ReplaySummary::scheduler_counters):
  // what a paper plots about the scheduler itself, as lahp's BMD (docs/schedulers.md).
  virtual std::vector<std::pair<std::string, std::uint64_t>> counters() const { return {}; }
};

struct SchedulerInfo {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  std::function<Result<std::unique_ptr<Scheduler>>(const Params&)> make;
};

// The one registry of schedulers (scheduler_registry.cpp); `tilelens replay --scheduler list`
// prints it.
const std::vector<SchedulerInfo>& scheduler_registry();
// Builds a scheduler from "name" or "name:key=value,..."; unknown names list the valid ones.
// On success also returns the canonical spec with every parameter, for the run record.
struct MadeScheduler {
  std::unique_ptr<Scheduler> scheduler;
  std::string spec;
};
Result<MadeScheduler> make_scheduler(std::string_view spec);
// Where an embedding program registers its schedulers (schedulers/embedded_policies.hpp);
// make_scheduler() finds them by their "python.NAME" names.
EmbeddedPolicies<MadeScheduler>& embedded_schedulers();
// The spec without the parameters left at their defaults, for labels:
// "hfp:fast_start=0,flip=0,ready=1,steal=1,weighted=1" -> "hfp:flip=0". Unknown names as is.
std::string short_scheduler_spec(std::string_view spec);

}  // namespace tilelens
