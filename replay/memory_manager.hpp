// The replay's memory manager: how memory nodes serve the workers' requests for data (DESIGN
// section 3, docs/replay.md). The engine (engine.cpp) runs the event loop and the tasks'
// lifecycle and calls in at each event; the manager owns every copy, issues the fetches and
// prefetches of the tasks held in the workers' buffers, evicts, writes back and classifies the
// loads. Each memory model (runtime/memory_model.hpp) is one implementation with its own rules:
// starpu_memory_manager.hpp (StarPU 1.3.10's) and fgcs_memory_manager.hpp (the papers'), both
// built on the mechanics they share (node_memory.hpp). Another runtime's manager is one more
// implementation and one line in make_memory_manager. Internal to replay/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "util/function_ref.hpp"
#include "runtime/memory_model.hpp"
#include "replay/memory_state.hpp"
#include "replay/replay_state.hpp"

namespace tilelens::replay_detail {

class MemoryManager {
 public:
  virtual ~MemoryManager() = default;

  // Before the scheduler prepares: the books sized for the run. A manager may hook `context`
  // (allocated, future_changed).
  virtual void reset(SchedulerContext& context) = 0;
  // After the eviction policy attached: whether it wants on_future_changed.
  virtual void set_follows_future(bool follows) = 0;
  // The books of every copy; the reference stays valid for the manager's life.
  virtual const MemoryState& books() const = 0;
  // Starts the books' log of state changes (MemoryView::state_change_log).
  virtual void log_state_changes() = 0;

  // The room node n can still give, in bytes (what a scheduler asking MemoryView sees).
  virtual double free_bytes(std::uint32_t n) const = 0;
  // A task whose predecessors are all done takes its data (StarPU's data dependencies), before
  // the push and its prefetch.
  virtual void task_ready(TaskId) {}
  // A ready task, before the scheduler's push (for a model that prefetches at push).
  virtual void prefetch_on_push(TaskId task) = 0;
  // At an event, before the workers take tasks from the scheduler (StarPU's drivers make their
  // memory progress before they pop).
  virtual void before_pops() {}
  // The requests of every worker's held tasks, in the order the model serves them;
  // `try_start(g)` starts worker g's next task if its data are resident.
  virtual void serve(FunctionRef<void(GpuId)> try_start) = 0;
  // A task entered worker g's buffer / starts on g (its data resident; `ready` is when g could
  // have started it) / ended on g.
  virtual void task_buffered(GpuId g, TaskId task) = 0;
  // Whether worker g's next task, its data resident, may start now: a model may hold it back
  // while its own transfers of that data are in flight.
  virtual bool may_start(GpuId g, TaskId task) const = 0;
  // Whether worker g (its buffer not full) may take another task from the scheduler now: a
  // model may hold it back while a task it holds still waits for its data.
  virtual bool may_pop(GpuId) const { return true; }
  // Whether the workers whose task ended at this event take their next tasks after the others
  // (a runtime whose idle workers poll the scheduler while an ending worker releases successors).
  virtual bool ended_workers_pop_last() const { return false; }
  // Whether worker g is busy inside the memory manager and notices no task of its ending now
  // (StarPU's driver waiting in a synchronous reclaim): the engine ends it once this is false.
  virtual bool holds_completion(GpuId) const { return false; }
  // Whether a simulated clock should end the transfers started at one instant in the order they
  // started (SimulatedDevice::order_starts): a runtime whose decisions take time never sees them
  // end together.
  virtual bool orders_starts() const { return false; }
  virtual void task_started(GpuId g, TaskId task, std::int64_t ready) = 0;
  virtual void task_done(GpuId g, TaskId task) = 0;
  // The device reports transfer `id` ended.
  virtual void finish_transfer(std::uint32_t id) = 0;
  // Every task done: the data the model sends home go now.
  virtual void flush() = 0;
  virtual void summarize(ReplaySummary& summary) = 0;
  // The transfer `id` in words, for an error.
  virtual std::string describe_transfer(std::uint32_t id) const = 0;
  // The wall-clock ticks spent in the eviction policy's choose_victim / on_future_changed.
  virtual std::int64_t victim_ticks() const = 0;
  virtual std::int64_t future_ticks() const = 0;
};

// The memory model's manager, on the engine's shared state.
std::unique_ptr<MemoryManager> make_memory_manager(ReplayState& state, const MemoryModel& model);

}  // namespace tilelens::replay_detail
