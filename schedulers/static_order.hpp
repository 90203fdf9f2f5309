// Schedulers that serve an order: a base class for policies that compute the whole order up
// front (RANDOM, CM, RCM, MST; later HFP and partitioners) and EAGER, which serves tasks in
// the order they are released. On K GPUs an idle GPU takes the next task of the order; with
// dependencies, the earliest task of the order that is ready. Both expose their order as the
// known future for Belady.
#pragma once

#include <queue>
#include <vector>

#include "schedulers/scheduler.hpp"

namespace tilelens {

// For each data, the positions of its uses in an order, and a cursor past consumed ones:
// next_use() is amortised O(1).
class NextUseIndex {
 public:
  void reset(std::size_t data_count) {
    uses_.assign(data_count, {});
    cursor_.assign(data_count, 0);
  }
  // As reset(), with room for one use per read access of the workload (no growth when every
  // read is appended, as EAGER and the static orders do).
  void reset_for_every_read(const Workload& workload) {
    reset(workload.data_count());
    std::vector<std::uint32_t> reads_of(workload.data_count(), 0);
    for (TaskId t = 0; t < workload.task_count(); ++t) {
      for (const Access& access : workload.accesses(t)) reads_of[access.data] += reads(access.mode) ? 1 : 0;
    }
    for (DataId d = 0; d < workload.data_count(); ++d) uses_[d].reserve(reads_of[d]);
  }
  void append(DataId data, std::uint64_t position) { uses_[data].push_back(position); }
  // Every datum `task` reads, used at `position` (a task in an order).
  void append_reads(const Workload& workload, TaskId task, std::uint64_t position) {
    for (const Access& access : workload.accesses(task)) {
      if (reads(access.mode)) append(access.data, position);
    }
  }
  template <class Consumed>
  std::uint64_t next(DataId data, Consumed&& consumed) const {
    const auto& list = uses_[data];
    auto& cursor = cursor_[data];
    while (cursor < list.size() && consumed(list[cursor])) ++cursor;
    return cursor < list.size() ? list[cursor] : TaskFuture::kNever;
  }

 private:
  std::vector<std::vector<std::uint64_t>> uses_;
  mutable std::vector<std::uint32_t> cursor_;
};

class OrderedScheduler : public Scheduler, public TaskFuture {
 public:
  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) override;
  void push(TaskId task) override;
  std::optional<TaskId> pop(GpuId gpu) override;
  bool follows_replicas() const override { return false; }
  const TaskFuture* future() const override { return this; }
  std::uint64_t next_use(GpuId gpu, DataId data) const override;

  const std::vector<TaskId>& order() const { return order_; }

 protected:
  // The order to serve: a permutation of all tasks.
  virtual std::vector<TaskId> compute_order(const Workload& workload, const Platform& platform,
                                            const SchedulerContext& context) = 0;

 private:
  std::vector<TaskId> order_;
  std::vector<std::uint32_t> position_;
  std::vector<char> served_;  // by position
  NextUseIndex uses_;
  // Ready positions, smallest first; without dependencies every task is ready in order and
  // a cursor serves them.
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready_;
  bool sequential_ = false;
  std::size_t pushed_ = 0;
  std::size_t cursor_ = 0;
};

// A given order, for tests and for re-serving a recorded order.
class ExplicitOrderScheduler : public OrderedScheduler {
 public:
  explicit ExplicitOrderScheduler(std::vector<TaskId> order) : given_(std::move(order)) {}

 protected:
  std::vector<TaskId> compute_order(const Workload&, const Platform&, const SchedulerContext&) override { return given_; }

 private:
  std::vector<TaskId> given_;
};

// Factories, one per file, listed in scheduler_registry.cpp.
std::unique_ptr<Scheduler> make_eager(const Params& params);
std::unique_ptr<Scheduler> make_random_order(const Params& params);
std::unique_ptr<Scheduler> make_starpu_random(const Params& params);  // "starpu-random", random_order.cpp
std::unique_ptr<Scheduler> make_cuthill_mckee(const Params& params);          // "cm"
std::unique_ptr<Scheduler> make_reverse_cuthill_mckee(const Params& params);  // "rcm"
std::unique_ptr<Scheduler> make_maximum_spanning_tree(const Params& params);  // "mst"
Result<std::unique_ptr<Scheduler>> make_hfp(const Params& params);             // hfp.cpp
Result<std::unique_ptr<Scheduler>> make_dmda(const Params& params);  // dmda.cpp
Result<std::unique_ptr<Scheduler>> make_dmdar(const Params& params);
Result<std::unique_ptr<Scheduler>> make_dmdas(const Params& params);
Result<std::unique_ptr<Scheduler>> make_darts(const Params& params);           // darts.cpp
Result<std::unique_ptr<Scheduler>> make_lws(const Params& params);             // lws.cpp
std::unique_ptr<Scheduler> make_work_stealing(const Params& params);           // "ws", lws.cpp
Result<std::unique_ptr<Scheduler>> make_heteroprio(const Params& params);      // heteroprio.cpp
Result<std::unique_ptr<Scheduler>> make_laheteroprio(const Params& params);    // heteroprio.cpp
std::unique_ptr<Scheduler> make_absolute_priority(const Params& params);       // "ap", lws.cpp
Result<std::unique_ptr<Scheduler>> make_partitioned(const Params& params);     // "partition", partition.cpp
Result<std::unique_ptr<Scheduler>> make_optimum(const Params& params);         // optimum.cpp
Result<std::unique_ptr<Scheduler>> make_fixed_order(const Params& params);     // "fixed", fixed_order.cpp

// The orders themselves, for tests and for the app: vertex indices are submission positions.
std::vector<TaskId> cuthill_mckee_order(const Workload& workload, bool reverse);
std::vector<TaskId> maximum_spanning_tree_order(const Workload& workload);
// The part (0..parts-1) of each task: METIS on the task-data graph (partition.cpp).
std::vector<std::uint32_t> partition_tasks(const Workload& workload, std::uint32_t parts, std::uint64_t seed);

}  // namespace tilelens
