// The CUDA module's interface: libtilelens_cuda.so holds the executor and every CUDA library
// it needs (runtime, cuBLAS, cuSOLVER, CUPTI), and `tilelens execute` and `bench gpu` load it
// at run time (executor.cpp, through util/loadable_module.hpp), so that no other command loads CUDA.
// The module exports one C function, kCudaModuleEntry, returning this table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "instrument/executor.hpp"
#include "util/loadable_module.hpp"

namespace tilelens::instrument {

// Bumped whenever this table or the behaviour of the types it passes change (a virtual
// added to ReplayObserver, say): a module of another version is refused with a clear error
// instead of being called.
inline constexpr std::uint32_t kCudaModuleVersion = 4;
inline constexpr const char* kCudaModuleEntry = "tilelens_cuda_module";
inline constexpr const char* kCudaModuleFile = "libtilelens_cuda.so";

// The layout of what crosses the boundary, down to the records inside the vectors, which no
// sizeof of the outer types shows: a module built against other layouts is refused even when
// the version was not bumped.
inline constexpr std::uint64_t kCudaModuleLayout = layout_fingerprint({
    sizeof(ExecuteOptions), sizeof(ExecuteResult), sizeof(BareFigures), sizeof(Workload), sizeof(Platform),
    sizeof(ReplaySummary), sizeof(GpuSummary), sizeof(Trace), sizeof(Measurement), sizeof(CuptiRecord), sizeof(Data),
    sizeof(Access), offsetof(Access, mode),
    sizeof(Task), offsetof(Task, first_access), offsetof(Task, access_count), offsetof(Task, i), offsetof(Task, flops),
    offsetof(Task, priority),
    sizeof(TaskRecord), offsetof(TaskRecord, gpu), offsetof(TaskRecord, global_order), offsetof(TaskRecord, gpu_order),
    offsetof(TaskRecord, buffered_ns), offsetof(TaskRecord, start_ns), offsetof(TaskRecord, end_ns),
    sizeof(LoadRecord), offsetof(LoadRecord, gpu), offsetof(LoadRecord, task), offsetof(LoadRecord, source),
    offsetof(LoadRecord, kind), offsetof(LoadRecord, bytes), offsetof(LoadRecord, issue_ns), offsetof(LoadRecord, end_ns),
    sizeof(EvictionRecord), offsetof(EvictionRecord, gpu), offsetof(EvictionRecord, for_task), offsetof(EvictionRecord, cause),
    offsetof(EvictionRecord, wrote_back), offsetof(EvictionRecord, time_ns),
    sizeof(WritebackRecord), offsetof(WritebackRecord, bytes), offsetof(WritebackRecord, start_ns),
    offsetof(WritebackRecord, end_ns), offsetof(WritebackRecord, cause),
    sizeof(AllocationRecord), offsetof(AllocationRecord, time_ns), offsetof(AllocationRecord, task)});

struct CudaModule {
  std::uint32_t version;
  std::uint64_t layout;  // kCudaModuleLayout in the module's build
  Status (*available)();
  Result<ExecuteResult> (*execute)(const Workload&, Scheduler&, EvictionPolicy&, const ExecuteOptions&);
  Result<BareFigures> (*measure_bare)(const Workload&, bool tf32, std::size_t copies, int device);
};

}  // namespace tilelens::instrument

extern "C" {
using TilelensCudaModuleEntry = const tilelens::instrument::CudaModule* (*)();
}
