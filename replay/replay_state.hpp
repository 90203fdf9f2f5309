// What the replay's components share: the run's inputs, the clock, the workers with their task
// buffers, the memory nodes, the way records go out (totals and the observer) and the first
// error. The engine (engine.cpp) owns it; the memory manager (memory_manager.hpp) and the
// scheduling-cost clock (decision_threads.hpp) read and advance it. Internal to replay/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eviction/policy.hpp"
#include "replay/engine.hpp"
#include "replay/execution_device.hpp"
#include "schedulers/scheduler.hpp"
#include "trace/totals.hpp"
#include "trace/trace.hpp"

namespace tilelens::replay_detail {

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

struct ReplayState {
  ReplayState(const Workload& workload, Scheduler& run_scheduler, EvictionPolicy& run_policy, const ReplayOptions& run_options,
              ReplayObserver* run_observer)
      : w(workload), scheduler(run_scheduler), policy(run_policy), options(run_options), observer(run_observer),
        W(run_options.platform.workers()), N(run_options.platform.memory_nodes()), nd(workload.data_count()), totals(W) {}

  const Workload& w;
  Scheduler& scheduler;
  EvictionPolicy& policy;
  const ReplayOptions& options;
  ReplayObserver* observer;
  const std::uint32_t W;  // workers
  const std::uint32_t N;  // bounded memory nodes
  const std::size_t nd;   // data

  std::int64_t now = 0;
  std::string error;
  ExecutionDevice* device = nullptr;
  std::vector<Worker> workers;
  std::vector<Node> nodes;
  std::vector<std::int64_t> buffered_at;  // per task: when it entered its worker's buffer
  std::vector<char> popped;               // per task: handed out by the scheduler
  bool follows_replicas = true;           // the scheduler wants the replica hooks
  TraceTotals totals;
  std::uint64_t allocations = 0;
  // Counts the changes outside the books (MemoryState::generation) that a memory manager's
  // requests depend on: a task handed out, entering a buffer, starting or ending, a transfer
  // ending, a request queued. Together with the books' count it tells a manager that serving
  // again could only repeat a pass that found nothing to do.
  std::uint64_t changes = 0;

  std::size_t slot(std::uint32_t node, DataId data) const { return static_cast<std::size_t>(node) * nd + data; }

  void fail(std::string message) {
    if (error.empty()) error = std::move(message);
  }
  // The scheduler's replica hooks, once per worker of the node (each sees its memory change).
  template <class F>
  void tell_workers(std::uint32_t n, F&& hook) {
    if (!follows_replicas) return;
    for (GpuId v : nodes[n].workers) hook(v);
  }
  void emit(const TaskRecord& r) {
    totals.add(r);
    if (observer) observer->on_task(r);
  }
  void emit(const LoadRecord& r) {
    totals.add(r);
    if (observer) observer->on_load(r);
  }
  void emit(const EvictionRecord& r) {
    totals.add(r);
    if (observer) observer->on_eviction(r);
  }
  void emit(const WritebackRecord& r) {
    totals.add(r);
    if (observer) observer->on_writeback(r);
  }
  void emit(const AllocationRecord& r) {
    ++allocations;
    totals.add(r);
    if (observer) observer->on_allocation(r);
  }
};

}  // namespace tilelens::replay_detail
