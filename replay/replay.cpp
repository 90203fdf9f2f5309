// replay(): one run of the engine, or, for a policy that reads the future under a scheduler
// that serves out of its future's order, runs until the order that ran repeats (engine.hpp).
#include "replay/engine.hpp"

#include <memory>
#include <optional>
#include <variant>

#include "replay/engine_run.hpp"
#include "schedulers/known_future.hpp"

namespace tilelens {
namespace {

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
    return replay_detail::run_engine(workload, scheduler, eviction, options, observer);
  }
  // Belady under a scheduler that departs from its own future: run, then run again with the
  // order that ran as the future, until the order repeats. The replay kept (its records go to
  // the caller's observer) is the one whose future was its own order, or, without a fixed
  // point, the one that loaded least.
  const std::uint32_t workers = options.platform.workers();
  std::vector<std::vector<TaskId>> orders;
  {
    RoundRecords first(workers, false);
    if (auto summary = replay_detail::run_engine(workload, scheduler, eviction, options, &first); !summary) return summary;
    orders = std::move(first.orders);
  }
  std::optional<ReplaySummary> kept;
  std::unique_ptr<RoundRecords> kept_records;
  std::uint32_t replays = 1;
  bool converged = false;
  for (int round = 1; round < kMaxFutureRounds && !converged; ++round) {
    KnownFutureScheduler known(scheduler, orders);
    auto records = std::make_unique<RoundRecords>(workers, observer != nullptr);
    auto summary = replay_detail::run_engine(workload, known, eviction, options, records.get());
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
