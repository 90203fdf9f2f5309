// CUPTI activity recording for the executor (REFERENCE.md, CUPTI): concurrent kernels,
// memcpy and memset records, each linked to the executor's operation (its external id), in one
// of three ways (CuptiApis):
// - All: the ids pushed as external correlation ids, and every runtime and driver call,
//   synchronization and overhead traced (the records that carry the links);
// - Launches: the same, with only the launches and asynchronous copies and memsets traced
//   (cuptiActivityEnableRuntimeApi/DriverApi: far fewer records per task);
// - Callbacks: no API record and no external correlation at all; CUPTI's callback API calls
//   the recorder on entering those same launches and copies, with the correlation id their
//   work's records will carry, and the recorder notes it beside the operation being issued.
// One recorder at a time per process (CUPTI's buffers are process-wide). Built with the CUDA
// side only.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "instrument/executor.hpp"
#include "util/result.hpp"
#include "trace/measurement.hpp"

namespace tilelens::instrument {

class CuptiRecorder {
 public:
  // Registers the buffers and enables the activity kinds; fails with CUPTI's message.
  static Result<std::unique_ptr<CuptiRecorder>> start(CuptiApis apis = CuptiApis::All);
  ~CuptiRecorder();
  // The run's clock starts now: record times are given relative to it.
  void set_origin();
  // Tags the CUDA calls the calling thread makes until pop() with `external` (ExternalKind and
  // index).
  static void push(std::uint64_t external);
  static void pop();
  // Flushes every buffer, disables the activities, links each record to its external id,
  // and returns the records in time order with the count CUPTI dropped.
  struct Capture {
    std::vector<CuptiRecord> records;
    std::uint64_t dropped = 0;
  };
  Result<Capture> finish();

 private:
  CuptiRecorder() = default;
  bool finished_ = false;
  CuptiApis apis_ = CuptiApis::All;
};

}  // namespace tilelens::instrument
