// What an execution records (replay or CUDA alike): task executions, loads classified as
// fetch or prefetch and attributed to a task, evictions, write-backs and allocations. An
// executor hands finished records to a ReplayObserver; TraceRecorder keeps them all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace tilelens {

inline constexpr std::int32_t kFromHost = -1;

// DESIGN section 3: a load is a prefetch if it arrived before the GPU was ready to start the
// task that needed it, a fetch if the GPU sat idle waiting for it; a load evicted or left
// over before any task used it is unused.
enum class LoadKind : std::uint8_t { Fetch, Prefetch, Unused };
const char* to_string(LoadKind kind);

// The records are laid out for size (a kept trace of a million tasks holds about four million
// of them): the fields of the widest type come last, and ranks are 32-bit like task ids.
struct TaskRecord {
  TaskId task;
  GpuId gpu;
  std::uint32_t global_order;  // rank among all task starts
  std::uint32_t gpu_order;     // rank among the task starts of its GPU
  std::int64_t buffered_ns;    // entered the GPU's task buffer
  std::int64_t start_ns;
  std::int64_t end_ns;
};

struct LoadRecord {
  DataId data;
  GpuId gpu;
  TaskId task;          // the first task on that GPU that used it after it arrived; kNoId if unused
  std::int16_t source;  // kFromHost or the GPU it was copied from (platforms hold at most 4096 GPUs)
  LoadKind kind;
  std::uint64_t bytes;
  std::int64_t issue_ns;  // room reserved and transfer requested
  std::int64_t end_ns;    // data resident
};

enum class EvictionCause : std::uint8_t { Capacity, Invalidated };
const char* to_string(EvictionCause cause);

struct EvictionRecord {
  DataId data;
  GpuId gpu;
  TaskId for_task;  // whose load needed the room (capacity) or whose write invalidated it
  EvictionCause cause;
  bool wrote_back;       // the only valid copy was written back to the host first
  std::int64_t time_ns;  // memory freed
};

enum class WritebackCause : std::uint8_t { Eviction, Request, Flush, Idle };
const char* to_string(WritebackCause cause);

struct WritebackRecord {
  DataId data;
  GpuId gpu;
  std::uint64_t bytes;
  std::int64_t start_ns;
  std::int64_t end_ns;
  WritebackCause cause;  // evicting the last copy, another GPU needs it, the end of the run, or idle time (memory_model.hpp)
};

struct AllocationRecord {  // room for a write-only output, no transfer
  DataId data;
  GpuId gpu;
  std::int64_t time_ns;
  TaskId task;
};

class ReplayObserver {
 public:
  virtual ~ReplayObserver() = default;
  virtual void on_start(const Workload&) {}  // before the first record
  virtual void on_task(const TaskRecord&) {}
  virtual void on_load(const LoadRecord&) {}
  virtual void on_eviction(const EvictionRecord&) {}
  virtual void on_writeback(const WritebackRecord&) {}
  virtual void on_allocation(const AllocationRecord&) {}
};

struct Trace {
  std::vector<TaskRecord> tasks;  // in start order
  std::vector<LoadRecord> loads;  // in classification order
  std::vector<EvictionRecord> evictions;
  std::vector<WritebackRecord> writebacks;
  std::vector<AllocationRecord> allocations;
};

class TraceRecorder final : public ReplayObserver {
 public:
  void on_start(const Workload& workload) override;
  void on_task(const TaskRecord& r) override { trace.tasks.push_back(r); }
  void on_load(const LoadRecord& r) override { trace.loads.push_back(r); }
  void on_eviction(const EvictionRecord& r) override { trace.evictions.push_back(r); }
  void on_writeback(const WritebackRecord& r) override { trace.writebacks.push_back(r); }
  void on_allocation(const AllocationRecord& r) override { trace.allocations.push_back(r); }
  Trace trace;
};

// Hands every record to several observers in turn (say, a recorder and a database writer).
class ObserverList final : public ReplayObserver {
 public:
  void add(ReplayObserver* observer) { observers_.push_back(observer); }
  bool empty() const { return observers_.empty(); }
  void on_start(const Workload& workload) override {
    for (auto* o : observers_) o->on_start(workload);
  }
  void on_task(const TaskRecord& r) override {
    for (auto* o : observers_) o->on_task(r);
  }
  void on_load(const LoadRecord& r) override {
    for (auto* o : observers_) o->on_load(r);
  }
  void on_eviction(const EvictionRecord& r) override {
    for (auto* o : observers_) o->on_eviction(r);
  }
  void on_writeback(const WritebackRecord& r) override {
    for (auto* o : observers_) o->on_writeback(r);
  }
  void on_allocation(const AllocationRecord& r) override {
    for (auto* o : observers_) o->on_allocation(r);
  }

 private:
  std::vector<ReplayObserver*> observers_;
};

}  // namespace tilelens
