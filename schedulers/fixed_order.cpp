// FIXED: each worker runs the tasks a schedule file gives it, in the file's order. The file is
// the order and mapping a run took: a real StarPU's or StarPU-SimGrid's, as the programs of
// tests/starpu write it (TILELENS_ORDER_OUT: task,worker,start_us,end_us), or a replay's own
// (--order-out: order,gpu,gpu_order,task,...). Replayed under tilelens's memory model, it splits
// a disagreement with a runtime in two: what the runtime's policy chose, and what the memory
// manager made of that choice (docs/schedulers.md, docs/replay.md "Against a real StarPU").
// A worker whose next task is not ready yet waits for it and takes no other; a task the file
// gives no worker, or two, is refused before the run. Its order is the known future (Belady).
// With prefetch=1 each task's worker is announced when the task is pushed, so that the memory
// model prefetches its inputs there at once, as StarPU does for its dmda family's choices. With
// workerorder=1 the order is imposed as a sched.rec's Workerorder imposes it (tilelens export
// starpu-replay --run): each task is announced at its push, as StarPU prefetches every task given a
// specific worker (sched_policy.c:540-545), and its place in its worker's order sets the priority of
// that prefetch (Scheduler::worker_order).
#include <algorithm>
#include <charconv>
#include <sstream>

#include "schedulers/static_order.hpp"
#include "util/content_hash.hpp"
#include "util/quoted.hpp"

namespace tilelens {
namespace {

// One comma-separated line, a double-quoted field kept whole ("A(0,1):fetch" in --order-out).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

struct Assignment {
  TaskId task = 0;
  GpuId worker = 0;
  double rank = 0;  // the worker runs its tasks by increasing rank (start time, or its own order)
  std::size_t line = 0;
};

class FixedOrder final : public Scheduler, public TaskFuture {
 public:
  FixedOrder(std::string path, std::string digest, std::vector<Assignment> assignments, bool announce, bool worker_order)
      : path_(std::move(path)),
        digest_(std::move(digest)),
        assignments_(std::move(assignments)),
        announce_(announce || worker_order),
        imposed_order_(worker_order) {}

  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) override {
    allocated_ = announce_ ? context.allocated : nullptr;
    worker_of_.assign(workload.task_count(), 0);
    place_of_.assign(imposed_order_ ? workload.task_count() : 0, 0);
    orders_.assign(platform.workers(), {});
    next_.assign(platform.workers(), 0);
    pushed_.assign(workload.task_count(), 0);
    failure_.clear();
    std::vector<std::size_t> listed_at(workload.task_count(), 0);
    for (const Assignment& a : assignments_) {
      const std::string where = "schedule file '" + path_ + "' line " + std::to_string(a.line) + ": ";
      if (a.task >= workload.task_count()) {
        failure_ = where + "task " + std::to_string(a.task) + " is not in the workload (" + std::to_string(workload.task_count()) + " tasks)";
        return;
      }
      if (listed_at[a.task] != 0) {
        failure_ = where + "task " + std::to_string(a.task) + " is listed twice (first at line " + std::to_string(listed_at[a.task]) + ")";
        return;
      }
      if (a.worker >= platform.workers()) {
        failure_ = where + "worker " + std::to_string(a.worker) + ", and the platform has " + std::to_string(platform.workers()) + " workers";
        return;
      }
      listed_at[a.task] = a.line;
      worker_of_[a.task] = a.worker;
      orders_[a.worker].push_back(a);
    }
    for (TaskId t = 0; t < workload.task_count(); ++t) {
      if (listed_at[t] == 0) {
        failure_ = "schedule file '" + path_ + "' gives task " + workload.task_label(t) + " (" + std::to_string(t) + ") to no worker";
        return;
      }
    }
    uses_.assign(orders_.size(), {});
    for (std::size_t w = 0; w < orders_.size(); ++w) {
      auto& order = orders_[w];
      std::stable_sort(order.begin(), order.end(), [](const Assignment& a, const Assignment& b) { return a.rank < b.rank; });
      uses_[w].reset(workload.data_count());
      for (std::size_t p = 0; p < order.size(); ++p) {
        uses_[w].append_reads(workload, order[p].task, p);
        if (imposed_order_) place_of_[order[p].task] = static_cast<std::uint32_t>(p + 1);
      }
    }
  }
  std::string failure() const override { return failure_; }
  void push(TaskId task) override {
    pushed_[task] = 1;
    if (allocated_) allocated_(task, worker_of_[task]);
  }
  std::optional<TaskId> pop(GpuId worker) override {
    if (worker >= orders_.size() || next_[worker] >= orders_[worker].size()) return std::nullopt;
    const TaskId task = orders_[worker][next_[worker]].task;
    if (!pushed_[task]) return std::nullopt;  // not ready yet: the worker waits for it
    ++next_[worker];
    return task;
  }
  std::uint32_t worker_order(TaskId task) const override { return task < place_of_.size() ? place_of_[task] : 0; }
  bool follows_replicas() const override { return false; }
  bool uses_cpu_workers() const override { return true; }
  // The file's content, not only its path: a changed file is another schedule (another run key).
  std::vector<std::pair<std::string, std::string>> recorded_params() const override { return {{"digest", digest_}}; }
  const TaskFuture* future() const override { return this; }
  std::uint64_t next_use(GpuId gpu, DataId data) const override {
    if (gpu >= uses_.size()) return kNever;
    return uses_[gpu].next(data, [&](std::uint64_t position) { return position < next_[gpu]; });
  }

 private:
  std::string path_;
  std::string digest_;
  std::vector<Assignment> assignments_;
  bool announce_ = false;
  bool imposed_order_ = false;  // workerorder=1
  std::vector<std::uint32_t> place_of_;  // with imposed_order_: per task, its place in its worker's order, from 1
  std::function<void(TaskId, GpuId)> allocated_;  // set with prefetch=1: the executor's push-time prefetch
  std::vector<GpuId> worker_of_;
  std::vector<std::vector<Assignment>> orders_;  // per worker, by rank
  std::vector<std::size_t> next_;                // per worker: its next task's place in its order
  std::vector<char> pushed_;
  std::vector<NextUseIndex> uses_;
  std::string failure_;
};

// The schedule file: a header naming its columns, then one task a line. The task's column is
// "task"; the worker's "worker" (StarPU's) or "gpu" (a replay's); a worker runs its tasks by
// start_us, start_ns or gpu_order, whichever the file has first, else in the file's order.
Result<std::vector<Assignment>> read_schedule(const std::string& path, const std::string& bytes) {
  std::istringstream in(bytes);
  std::string line;
  if (!std::getline(in, line)) return make_error("schedule file '" + path + "': empty (a header line, then one task a line)");
  const std::vector<std::string> header = csv_fields(line);
  const auto column = [&](std::initializer_list<const char*> names) -> int {
    for (const char* name : names) {
      if (const auto at = std::find(header.begin(), header.end(), name); at != header.end()) return static_cast<int>(at - header.begin());
    }
    return -1;
  };
  const int task_column = column({"task"}), worker_column = column({"worker", "gpu"}), rank_column = column({"start_us", "start_ns", "gpu_order"});
  if (task_column < 0 || worker_column < 0) {
    return make_error("schedule file '" + path + "' line 1: the header needs a 'task' column and a 'worker' (or 'gpu') column");
  }
  std::vector<Assignment> assignments;
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> fields = csv_fields(line);
    const std::string where = "schedule file '" + path + "' line " + std::to_string(number) + ": ";
    const auto field = [&](int index) -> const std::string& {
      static const std::string none;
      return index >= 0 && static_cast<std::size_t>(index) < fields.size() ? fields[static_cast<std::size_t>(index)] : none;
    };
    Assignment a;
    a.line = number;
    const auto whole = [](const std::string& text, auto& value) {
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      return ec == std::errc() && end == text.data() + text.size() && !text.empty();
    };
    if (!whole(field(task_column), a.task)) return make_error(where + "task " + quote_input(field(task_column)) + " is not a task id");
    if (!whole(field(worker_column), a.worker)) return make_error(where + "worker " + quote_input(field(worker_column)) + " is not a worker id");
    a.rank = static_cast<double>(assignments.size());
    if (rank_column >= 0 && !whole(field(rank_column), a.rank)) {
      return make_error(where + header[static_cast<std::size_t>(rank_column)] + " " + quote_input(field(rank_column)) + " is not a number");
    }
    assignments.push_back(a);
  }
  return assignments;
}

}  // namespace

Result<std::unique_ptr<Scheduler>> make_fixed_order(const Params& params) {
  const std::string& path = params.text("file");
  if (path.empty()) return make_error("scheduler 'fixed': give the schedule file, fixed:file=PATH (docs/schedulers.md)");
  const auto bytes = read_file_bytes(path);
  if (!bytes) return make_error("schedule file '" + path + "': cannot open it");
  std::string digest = content_hash(*bytes);
  if (const std::string& recorded = params.text("digest"); !recorded.empty() && recorded != digest) {
    return make_error("schedule file '" + path + "' changed since the run that named it: the run recorded digest " + recorded +
                      ", the file has " + digest + " now");
  }
  auto assignments = read_schedule(path, *bytes);
  if (!assignments) return assignments.error();
  auto prefetch = params.flag("prefetch");
  if (!prefetch) return prefetch.error();
  auto worker_order = params.flag("workerorder");
  if (!worker_order) return worker_order.error();
  return std::unique_ptr<Scheduler>(
      std::make_unique<FixedOrder>(path, std::move(digest), std::move(*assignments), *prefetch, *worker_order));
}

}  // namespace tilelens
