// Trace records and their text forms; see trace.hpp.
#include "trace/trace.hpp"

#include <algorithm>
#include <ostream>

namespace tilelens {

const char* to_string(LoadKind kind) {
  switch (kind) {
    case LoadKind::Fetch: return "fetch";
    case LoadKind::Prefetch: return "prefetch";
    case LoadKind::Unused: return "unused";
  }
  return "?";
}

const char* to_string(EvictionCause cause) {
  return cause == EvictionCause::Capacity ? "capacity" : "invalidated";
}

const char* to_string(WritebackCause cause) {
  switch (cause) {
    case WritebackCause::Eviction: return "eviction";
    case WritebackCause::Request: return "request";
    case WritebackCause::Flush: return "flush";
  }
  return "?";
}

void write_trace_text(const Trace& trace, std::ostream& out) {
  for (const auto& r : trace.tasks) {
    out << "task " << r.task << ' ' << r.gpu << ' ' << r.global_order << ' ' << r.gpu_order << ' ' << r.buffered_ns << ' '
        << r.start_ns << ' ' << r.end_ns << '\n';
  }
  for (const auto& r : trace.loads) {
    out << "load " << r.data << ' ' << r.gpu << ' ' << r.source << ' ' << r.bytes << ' ' << r.issue_ns << ' ' << r.end_ns
        << ' ' << to_string(r.kind) << ' ' << static_cast<std::int64_t>(r.task == kNoId ? -1 : r.task) << '\n';
  }
  for (const auto& r : trace.evictions) {
    out << "evict " << r.data << ' ' << r.gpu << ' ' << r.time_ns << ' ' << to_string(r.cause) << ' ' << r.for_task << ' '
        << r.wrote_back << '\n';
  }
  for (const auto& r : trace.writebacks) {
    out << "writeback " << r.data << ' ' << r.gpu << ' ' << r.bytes << ' ' << r.start_ns << ' ' << r.end_ns << ' '
        << to_string(r.cause) << '\n';
  }
  for (const auto& r : trace.allocations) {
    out << "alloc " << r.data << ' ' << r.gpu << ' ' << r.time_ns << ' ' << r.task << '\n';
  }
}

void write_order_csv(const Workload& workload, const Trace& trace, std::ostream& out) {
  std::vector<std::vector<const LoadRecord*>> by_task(workload.task_count());
  for (const auto& load : trace.loads) {
    if (load.task != kNoId) by_task[load.task].push_back(&load);
  }
  out << "order,gpu,gpu_order,task,kind,i,j,k,start_ns,end_ns,fetches,prefetches,loads\n";
  for (const auto& r : trace.tasks) {
    const Task& task = workload.tasks()[r.task];
    int fetches = 0, prefetches = 0;
    std::string loads;
    for (const LoadRecord* load : by_task[r.task]) {
      (load->kind == LoadKind::Fetch ? fetches : prefetches)++;
      if (!loads.empty()) loads += ' ';
      loads += workload.data()[load->data].name + ":" + to_string(load->kind);
      if (load->source != kFromHost) loads += "@gpu" + std::to_string(load->source);
    }
    out << r.global_order << ',' << r.gpu << ',' << r.gpu_order << ',' << r.task << ',' << workload.kinds()[task.kind] << ','
        << task.i << ',' << task.j << ',' << task.k << ',' << r.start_ns << ',' << r.end_ns << ',' << fetches << ','
        << prefetches << ",\"" << loads << "\"\n";
  }
}

}  // namespace tilelens
