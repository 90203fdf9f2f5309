// Names of what measurement.hpp holds.
#include "trace/measurement.hpp"

namespace tilelens {

const char* to_string(CuptiRecord::Kind kind) {
  switch (kind) {
    case CuptiRecord::Kind::Kernel: return "kernel";
    case CuptiRecord::Kind::Memcpy: return "memcpy";
    case CuptiRecord::Kind::Memset: return "memset";
    case CuptiRecord::Kind::Runtime: return "runtime";
    case CuptiRecord::Kind::Synchronization: return "synchronization";
    case CuptiRecord::Kind::Overhead: return "overhead";
  }
  return "unknown";
}

}  // namespace tilelens
