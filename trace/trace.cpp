// Trace records and their text forms; see trace.hpp.
#include "trace/trace.hpp"

namespace tilelens {

// Grown by doubling, a kept trace of a million tasks left about 17 MB of outgrown buffers
// resident. A run starts each task once and loads and evicts at most about once per access,
// and capacity never written costs no memory (large blocks are mapped lazily), so reserving
// that much up front is free where the guess is high and saves the copies where it holds.
void TraceRecorder::on_start(const Workload& workload) {
  std::size_t accesses = 0;
  for (const Task& task : workload.tasks()) accesses += task.access_count;
  trace.tasks.reserve(trace.tasks.size() + workload.task_count());
  trace.loads.reserve(trace.loads.size() + accesses);
  trace.evictions.reserve(trace.evictions.size() + accesses);
}

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
    case WritebackCause::Idle: return "idle";
  }
  return "?";
}

}  // namespace tilelens
