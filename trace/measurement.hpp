// What a measured run keeps beside its trace: how it was measured and checked, and the CUPTI
// activity records, linked to the executor's tasks and transfers. Plain C++: the store keeps
// it and the front ends print it without CUDA; the executor (instrument/) fills it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tilelens {

// One CUPTI activity record, its times on the run's clock (ns since the run began).
struct CuptiRecord {
  enum class Kind : std::uint8_t { Kernel, Memcpy, Memset, Runtime, Synchronization, Overhead };  // Runtime: runtime and driver API calls
  Kind kind = Kind::Kernel;
  std::int64_t start_ns = 0, end_ns = 0;
  std::uint32_t device = 0, stream = 0, correlation = 0;
  // The executor's operation that issued it (tilelens' external correlation id, see
  // ExternalId), 0 when none: runtime calls outside a task or a transfer.
  std::uint64_t external = 0;
  std::uint64_t bytes = 0;  // memcpy and memset
  std::string name;         // kernel name, memcpy direction, runtime call id, overhead kind
};
const char* to_string(CuptiRecord::Kind kind);

// External correlation ids: the operation's kind in the top byte, its index below.
enum class ExternalKind : std::uint8_t { Task = 1, Load = 2, Writeback = 3 };
inline std::uint64_t external_id(ExternalKind kind, std::uint64_t index) {
  return (static_cast<std::uint64_t>(kind) << 56) | index;
}
inline ExternalKind external_kind(std::uint64_t id) { return static_cast<ExternalKind>(id >> 56); }
inline std::uint64_t external_index(std::uint64_t id) { return id & ((1ull << 56) - 1); }

// Kernel records and copies into a GPU (loads, fills, GPU-to-GPU) that no operation is linked
// to. During a run each comes from a task or a load, so any is a link a cheaper way of linking
// missed; a task partly linked would look shorter than it ran. Copies out of a GPU after the
// run (the checks' status words, the outputs) and memsets are legitimately unlinked.
inline std::size_t unlinked_work_records(const std::vector<CuptiRecord>& records) {
  std::size_t unlinked = 0;
  for (const CuptiRecord& r : records) {
    const bool into_gpu = r.kind == CuptiRecord::Kind::Memcpy && (r.name == "HtoD" || r.name == "DtoD" || r.name == "PtoP");
    if (r.external == 0 && (r.kind == CuptiRecord::Kind::Kernel || into_gpu)) ++unlinked;
  }
  return unlinked;
}

struct Measurement {
  std::string device;             // "NVIDIA H100 80GB HBM3"
  bool cupti = false;             // CUPTI activity was recorded
  std::uint64_t cupti_records = 0;
  std::uint64_t cupti_dropped = 0;  // records CUPTI reported lost: never hidden
  std::string verification;         // "passed (fp32)" or "(fp64)", "FAILED: ...", or "not checked: ..."
  double worst_error = 0;
  std::uint64_t tiles_checked = 0;
  bool tf32 = false;
  std::uint64_t seed = 0;           // of the tiles' values
  double arena_bytes = 0;           // M, reserved up front on each GPU
  double output_pool_bytes = 0;     // products' outputs, outside M
  std::int64_t wall_ns = 0;         // host time of the run, setup and the check after it excluded
  std::int64_t setup_ns = 0;        // tiles, pinning, arena, handles
  std::string cupti_apis;           // how CUPTI linked records to tasks: "all", "launches" or "callbacks"; "" when off
  std::uint32_t launch_ahead = 1;   // kernels queued behind the running one (instrument::ExecuteOptions)
  // What ran, kind by kind (instrument::plan_lines): each kind's call, fill or wait, so that
  // the tasks that only waited their measured duration are marked as such.
  std::string kernels;
};

}  // namespace tilelens
