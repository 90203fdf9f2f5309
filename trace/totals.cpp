// Classifying loads and summing a trace; see totals.hpp.
#include "trace/totals.hpp"

#include <algorithm>

namespace tilelens {

void TraceTotals::add(const WritebackRecord& r) {
  ++writebacks_;
  bytes_written_back_ += static_cast<double>(r.bytes);
  writebacks_end_ns_ = std::max(writebacks_end_ns_, r.end_ns);
}

void TraceTotals::finish(ReplaySummary& s, double total_flops) const {
  s.gpus.resize(std::max(s.gpus.size(), gpus_.size()));
  s.tasks = 0;
  s.idle_ns = 0;
  for (std::size_t g = 0; g < gpus_.size(); ++g) {
    const Worker& w = gpus_[g];
    GpuSummary& out = s.gpus[g];
    out.tasks = w.tasks;
    out.loads = w.loads;
    out.allocations = w.allocations;
    out.evictions = w.evictions;
    out.invalidations = w.invalidations;
    out.busy_ns = w.busy_ns;
    s.tasks += w.tasks;
  }
  s.makespan_ns = makespan_ns_;
  for (const GpuSummary& g : s.gpus) s.idle_ns += makespan_ns_ - g.busy_ns;
  s.loads = loads_;
  s.fetches = fetches_;
  s.prefetches = prefetches_;
  s.unused_loads = unused_;
  s.loads_from_host = loads_from_host_;
  s.loads_from_gpu = loads_from_gpu_;
  s.bytes_loaded = bytes_loaded_;
  s.bytes_from_host = bytes_from_host_;
  s.bytes_gpu_to_gpu = bytes_gpu_to_gpu_;
  s.bytes_fetched = bytes_fetched_;
  s.bytes_prefetched = bytes_prefetched_;
  s.evictions = evictions_;
  s.invalidations = invalidations_;
  s.allocations = allocations_;
  s.writebacks = writebacks_;
  s.bytes_written_back = bytes_written_back_;
  s.flush_end_ns = std::max(writebacks_end_ns_, makespan_ns_);
  s.total_flops = total_flops;
  s.gflops = makespan_ns_ > 0 ? total_flops / static_cast<double>(makespan_ns_) : 0;
}

void classify_loads(Trace& trace) {
  std::size_t tasks = 0, workers = 0;
  for (const TaskRecord& t : trace.tasks) {
    tasks = std::max<std::size_t>(tasks, t.task + 1);
    workers = std::max<std::size_t>(workers, t.gpu + 1);
  }
  std::vector<std::int64_t> ready_of(tasks, 0);
  std::vector<std::vector<const TaskRecord*>> per_worker(workers);
  for (const TaskRecord& t : trace.tasks) per_worker[t.gpu].push_back(&t);
  for (auto& list : per_worker) {
    std::stable_sort(list.begin(), list.end(), [](auto* a, auto* b) { return a->gpu_order < b->gpu_order; });
    std::int64_t previous_end = 0;
    for (const TaskRecord* t : list) {
      ready_of[t->task] = std::max(previous_end, t->buffered_ns);
      previous_end = t->end_ns;
    }
  }
  for (LoadRecord& l : trace.loads) {
    if (l.kind != LoadKind::Unused && l.task < tasks) l.kind = classify_load(l.end_ns, ready_of[l.task]);
  }
}

void sum_trace(const Trace& trace, ReplaySummary& summary) {
  std::size_t workers = summary.gpus.size();
  for (const TaskRecord& t : trace.tasks) workers = std::max<std::size_t>(workers, t.gpu + 1);
  for (const LoadRecord& l : trace.loads) workers = std::max<std::size_t>(workers, l.gpu + 1);
  for (const EvictionRecord& e : trace.evictions) workers = std::max<std::size_t>(workers, e.gpu + 1);
  for (const AllocationRecord& a : trace.allocations) workers = std::max<std::size_t>(workers, a.gpu + 1);
  TraceTotals totals(workers);
  for (const auto& r : trace.tasks) totals.add(r);
  for (const auto& r : trace.loads) totals.add(r);
  for (const auto& r : trace.evictions) totals.add(r);
  for (const auto& r : trace.writebacks) totals.add(r);
  for (const auto& r : trace.allocations) totals.add(r);
  totals.finish(summary, summary.total_flops);
}

}  // namespace tilelens
