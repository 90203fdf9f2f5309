// Trace records and their text forms; see trace.hpp.
#include "trace/trace.hpp"


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

}  // namespace tilelens
