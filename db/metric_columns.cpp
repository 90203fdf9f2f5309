// The metrics' one declaration; see metric_columns.hpp.
#include "db/metric_columns.hpp"

#include <type_traits>

namespace tilelens::db {
namespace {

// A column holding the member that `field` returns a reference to (for a const RunMetrics and
// a mutable one alike): unsigned counts are stored as SQLite integers.
template <class Field>
MetricColumn metric(Column column, bool transfer, Field field) {
  MetricColumn m{column, transfer, {}, {}};
  m.get = [field](const RunMetrics& metrics) -> MetricColumn::Value {
    using T = std::remove_cvref_t<decltype(field(metrics))>;
    if constexpr (std::is_same_v<T, std::string>) {
      return field(metrics);
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<double>(field(metrics));
    } else {
      return static_cast<std::int64_t>(field(metrics));
    }
  };
  m.set = [field](RunMetrics& metrics, const MetricColumn::Value& value) {
    auto& target = field(metrics);
    using T = std::remove_cvref_t<decltype(target)>;
    if constexpr (std::is_same_v<T, std::string>) {
      if (const auto* text = std::get_if<std::string>(&value)) target = *text;
    } else if constexpr (std::is_floating_point_v<T>) {
      if (const auto* real = std::get_if<double>(&value)) target = *real;
      if (const auto* integer = std::get_if<std::int64_t>(&value)) target = static_cast<T>(*integer);
    } else {
      if (const auto* integer = std::get_if<std::int64_t>(&value)) target = static_cast<T>(*integer);
    }
  };
  return m;
}

// The summary's member `field` of a ReplaySummary, and a figure of the metrics beside it.
#define TILELENS_SUMMARY(member) [](auto& m) -> auto& { return m.summary.member; }
#define TILELENS_METRICS(member) [](auto& m) -> auto& { return m.member; }

std::vector<MetricColumn> declare() {
  constexpr bool kTransfer = true, kAlways = false;
  std::vector<MetricColumn> c = {
      metric({"tasks", "INTEGER NOT NULL", "tasks executed"}, kAlways, TILELENS_SUMMARY(tasks)),
      metric({"loads", "INTEGER", "loads into a worker's memory (fgcs section 3)"}, kTransfer, TILELENS_SUMMARY(loads)),
      metric({"fetches", "INTEGER", "loads the worker sat idle waiting for"}, kTransfer, TILELENS_SUMMARY(fetches)),
      metric({"prefetches", "INTEGER", "loads that arrived before the worker was ready"}, kTransfer, TILELENS_SUMMARY(prefetches)),
      metric({"unused_loads", "INTEGER", "loads evicted or left over before any task used them"}, kTransfer, TILELENS_SUMMARY(unused_loads)),
      metric({"loads_from_host", "INTEGER", "loads from the host"}, kTransfer, TILELENS_SUMMARY(loads_from_host)),
      metric({"loads_from_gpu", "INTEGER", "loads over a GPU link"}, kTransfer, TILELENS_SUMMARY(loads_from_gpu)),
      metric({"bytes_loaded", "REAL", "bytes of every load"}, kTransfer, TILELENS_SUMMARY(bytes_loaded)),
      metric({"bytes_from_host", "REAL", "bytes loaded from the host"}, kTransfer, TILELENS_SUMMARY(bytes_from_host)),
      metric({"bytes_gpu_to_gpu", "REAL", "bytes loaded over GPU links"}, kTransfer, TILELENS_SUMMARY(bytes_gpu_to_gpu)),
      metric({"bytes_fetched", "REAL", "bytes of the fetches"}, kTransfer, TILELENS_SUMMARY(bytes_fetched)),
      metric({"bytes_prefetched", "REAL", "bytes of the prefetches"}, kTransfer, TILELENS_SUMMARY(bytes_prefetched)),
      metric({"evictions", "INTEGER", "copies evicted for room"}, kTransfer, TILELENS_SUMMARY(evictions)),
      metric({"invalidations", "INTEGER", "copies made stale by a write elsewhere"}, kTransfer, TILELENS_SUMMARY(invalidations)),
      metric({"allocations", "INTEGER", "write-only outputs given room"}, kTransfer, TILELENS_SUMMARY(allocations)),
      metric({"writebacks", "INTEGER", "copies written back to the host"}, kTransfer, TILELENS_SUMMARY(writebacks)),
      metric({"bytes_written_back", "REAL", "their bytes"}, kTransfer, TILELENS_SUMMARY(bytes_written_back)),
      metric({"makespan_ns", "INTEGER NOT NULL", "the last task's end"}, kAlways, TILELENS_SUMMARY(makespan_ns)),
      metric({"flush_end_ns", "INTEGER NOT NULL", "the last final write-back's end (at least the makespan)"}, kAlways,
             TILELENS_SUMMARY(flush_end_ns)),
      metric({"total_flops", "REAL NOT NULL", "the workload's flops"}, kAlways, TILELENS_SUMMARY(total_flops)),
      metric({"gflops", "REAL NOT NULL", "total flops over the makespan"}, kAlways, TILELENS_SUMMARY(gflops)),
      metric({"idle_ns", "INTEGER NOT NULL", "makespan minus busy time, summed over the workers"}, kAlways, TILELENS_SUMMARY(idle_ns)),
      metric({"scheduling_ns", "INTEGER NOT NULL", "wall time inside the scheduler (measured, not simulated)"}, kAlways,
             TILELENS_SUMMARY(scheduling_ns)),
      metric({"eviction_ns", "INTEGER NOT NULL", "wall time inside the eviction policy"}, kAlways, TILELENS_SUMMARY(eviction_ns)),
      metric({"events", "INTEGER NOT NULL", "events the engine processed"}, kAlways, TILELENS_SUMMARY(events)),
      metric({"lower_bound_bytes", "REAL NOT NULL", "the largest valid lower bound on the bytes loaded"}, kAlways,
             TILELENS_METRICS(lower_bound_bytes)),
      metric({"lower_bound", "TEXT NOT NULL", "which bound, with its formula"}, kAlways, TILELENS_METRICS(lower_bound)),
      {{"ratio_to_lower_bound", "REAL", "bytes_loaded over lower_bound_bytes"},
       kTransfer,
       [](const RunMetrics& m) -> MetricColumn::Value { return m.ratio_to_lower_bound(); },
       {}},
      metric({"bus_limit_bytes", "REAL NOT NULL", "the most the bus moves in the ideal compute time"}, kAlways,
             TILELENS_METRICS(bus_limit_bytes)),
      metric({"ideal_compute_ns", "REAL NOT NULL", "the work at the platform's peak on every worker"}, kAlways,
             TILELENS_METRICS(ideal_compute_ns)),
      metric({"prepare_ns", "INTEGER NOT NULL DEFAULT 0", "the part of scheduling_ns spent in prepare() (the static schedule)", 2}, kAlways,
             TILELENS_SUMMARY(prepare_ns)),
      metric({"charged_ns", "INTEGER NOT NULL DEFAULT 0", "start delay charged to the makespan (fgcs \"HFP with sched. time\")", 2},
             kAlways, TILELENS_SUMMARY(charged_ns)),
      metric({"push_decisions", "INTEGER NOT NULL DEFAULT 0", "the scheduler's pushes", 8}, kAlways, TILELENS_SUMMARY(push_decisions.count)),
      metric({"push_scanned", "INTEGER NOT NULL DEFAULT 0", "tasks those pushes scanned", 8}, kAlways,
             TILELENS_SUMMARY(push_decisions.scanned)),
      metric({"push_base_ns", "REAL NOT NULL DEFAULT 0", "a push's fitted constant time (wall, or an import's trace)", 8}, kAlways,
             TILELENS_SUMMARY(push_decisions.base_ns)),
      metric({"push_per_task_ns", "REAL NOT NULL DEFAULT 0", "a push's fitted time per task scanned", 8}, kAlways,
             TILELENS_SUMMARY(push_decisions.per_task_ns)),
      metric({"pop_decisions", "INTEGER NOT NULL DEFAULT 0", "the scheduler's pops that handed out a task", 8}, kAlways,
             TILELENS_SUMMARY(pop_decisions.count)),
      metric({"pop_scanned", "INTEGER NOT NULL DEFAULT 0", "tasks those pops scanned", 8}, kAlways, TILELENS_SUMMARY(pop_decisions.scanned)),
      metric({"pop_base_ns", "REAL NOT NULL DEFAULT 0", "a pop's fitted constant time", 8}, kAlways, TILELENS_SUMMARY(pop_decisions.base_ns)),
      metric({"pop_per_task_ns", "REAL NOT NULL DEFAULT 0", "a pop's fitted time per task scanned", 8}, kAlways,
             TILELENS_SUMMARY(pop_decisions.per_task_ns)),
      metric({"decisions_charged_ns", "INTEGER NOT NULL DEFAULT 0", "simulated time the run's scheduling cost charged to decisions", 8},
             kAlways, TILELENS_SUMMARY(decisions_charged_ns)),
  };
  return c;
}

#undef TILELENS_SUMMARY
#undef TILELENS_METRICS

}  // namespace

const std::vector<MetricColumn>& metric_columns() {
  static const std::vector<MetricColumn> columns = declare();
  return columns;
}

}  // namespace tilelens::db
