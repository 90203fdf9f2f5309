// CUPTI activity recording; see cupti_recorder.hpp.
#include "instrument/cuda/cupti_recorder.hpp"

#include "instrument/cuda/cuda_check.hpp"

#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tilelens::instrument {
namespace {

constexpr std::size_t kBufferBytes = 8u << 20;

// Process-wide: CUPTI calls back from its own threads.
struct Shared {
  std::mutex mutex;
  std::vector<CuptiRecord> records;
  std::unordered_map<std::uint32_t, std::uint64_t> external_of;  // correlation id -> external id
  std::uint64_t dropped = 0;
  std::uint64_t origin = 0;
  bool active = false;
  // Read by push() and pop() on the executor's thread without the lock.
  std::atomic<CuptiApis> apis{CuptiApis::All};
  CUpti_SubscriberHandle subscriber = nullptr;  // CuptiApis::Callbacks
  // The launches' links (CuptiApis::Callbacks), under their own lock: the launching thread
  // must not wait while a completed buffer is copied under `mutex`.
  std::mutex launch_mutex;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> launches;
  std::string error;  // the first CUPTI call that failed where it could not be reported at once
};
Shared& shared() {
  static Shared s;
  return s;
}

// Keeps the first failure of a call made where no error can be returned (CUPTI's callbacks,
// the tags around each operation); finish() reports it.
void note(const Status& status) {
  if (status) return;
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  if (s.error.empty()) s.error = status.error().message;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

const char* memcpy_name(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "other";
  }
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  Shared& s = shared();
  std::vector<CuptiRecord> batch;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> links;
  CUpti_Activity* record = nullptr;
  const auto rel = [&](std::uint64_t t) { return static_cast<std::int64_t>(t) - static_cast<std::int64_t>(s.origin); };
  // The fields every record of work on a device has (kernels, copies, memsets).
  const auto on_device = [&](CuptiRecord& r, CuptiRecord::Kind kind, const auto& a) {
    r.kind = kind;
    r.start_ns = rel(a.start);
    r.end_ns = rel(a.end);
    r.device = a.deviceId;
    r.stream = a.streamId;
    r.correlation = a.correlationId;
  };
  while (true) {
    const CUptiResult next = cuptiActivityGetNextRecord(buffer, valid, &record);
    if (next == CUPTI_ERROR_MAX_LIMIT_REACHED) break;  // the end of the buffer
    if (next != CUPTI_SUCCESS) {
      note(TILELENS_CUDA(next));
      break;
    }
    CuptiRecord r;
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        on_device(r, CuptiRecord::Kind::Kernel, *k);
        r.name = k->name ? k->name : "";
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        on_device(r, CuptiRecord::Kind::Memcpy, *m);
        r.bytes = m->bytes;
        r.name = memcpy_name(m->copyKind);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
        on_device(r, CuptiRecord::Kind::Memcpy, *m);
        r.bytes = m->bytes;
        r.name = "PtoP";
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        on_device(r, CuptiRecord::Kind::Memset, *m);
        r.bytes = m->bytes;
        r.name = "memset";
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME:
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        r.kind = CuptiRecord::Kind::Runtime;
        r.start_ns = rel(a->start);
        r.end_ns = rel(a->end);
        r.correlation = a->correlationId;
        r.name = std::string(record->kind == CUPTI_ACTIVITY_KIND_DRIVER ? "driver" : "runtime") + " cbid " + std::to_string(a->cbid);
        break;
      }
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const auto* y = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
        r.kind = CuptiRecord::Kind::Synchronization;
        r.start_ns = rel(y->start);
        r.end_ns = rel(y->end);
        r.stream = y->streamId;
        r.correlation = y->correlationId;
        r.name = "sync type " + std::to_string(static_cast<int>(y->type));
        break;
      }
      case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
        r.kind = CuptiRecord::Kind::Overhead;
        r.start_ns = rel(o->start);
        r.end_ns = rel(o->end);
        r.name = "overhead kind " + std::to_string(static_cast<int>(o->overheadKind));
        break;
      }
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
        links.emplace_back(e->correlationId, e->externalId);
        continue;
      }
      default: continue;
    }
    batch.push_back(std::move(r));
  }
  std::size_t dropped = 0;
  note(TILELENS_CUDA(cuptiActivityGetNumDroppedRecords(context, stream, &dropped)));
  std::free(buffer);
  std::lock_guard lock(s.mutex);
  s.dropped += dropped;
  for (auto& [correlation, external] : links) s.external_of[correlation] = external;
  s.records.insert(s.records.end(), std::make_move_iterator(batch.begin()), std::make_move_iterator(batch.end()));
}

// The work on the device: recorded in every mode.
constexpr CUpti_ActivityKind kWorkKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
                                             CUPTI_ACTIVITY_KIND_MEMSET};
// CuptiApis::All adds every API call, synchronization (each event query of the stream
// watchers) and CUPTI's own overhead.
constexpr CUpti_ActivityKind kAllApiKinds[] = {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                               CUPTI_ACTIVITY_KIND_OVERHEAD};
// The calls that put work on a stream, through which a kernel, copy or memset record gets
// its task: every kernel launch (the runtime's and the driver's, through which cuBLAS
// launches; cooperative and graph launches; the per-thread-stream variants) and every
// asynchronous copy and memset. CuptiApis::Launches traces them, CuptiApis::Callbacks hooks
// them. Found by CUPTI's own names rather than listed, so that no variant a library uses is
// missed, and a CUPTI older than these headers offers only the calls it knows.
struct ApiCall {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
};
const std::vector<ApiCall>& stream_work_calls() {
  static const std::vector<ApiCall> calls = [] {
    std::vector<ApiCall> found;
    const auto scan = [&](CUpti_CallbackDomain domain, std::uint32_t size) {
      for (std::uint32_t cbid = 1; cbid < size; ++cbid) {
        const char* name = nullptr;
        if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || !name) continue;
        const std::string_view call(name);
        const bool launch = call.find("Launch") != std::string_view::npos;
        const bool async_copy = (call.find("Memcpy") != std::string_view::npos || call.find("Memset") != std::string_view::npos) &&
                                call.find("Async") != std::string_view::npos;
        if (launch || async_copy) found.push_back({domain, cbid});
      }
    };
    scan(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE);
    scan(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
    return found;
  }();
  return calls;
}

// Switches one call's tracing or callback on (or off) for each of stream_work_calls(). A
// call this CUPTI refuses is skipped (a library never makes it); none accepted is an error.
template <class Switch>
Status switch_stream_work_calls(Switch&& one) {
  std::size_t accepted = 0;
  Status first = Status::success();
  for (const ApiCall& call : stream_work_calls()) {
    const CUptiResult result = one(call);
    if (result == CUPTI_SUCCESS) {
      ++accepted;
    } else if (result != CUPTI_ERROR_INVALID_PARAMETER && result != CUPTI_ERROR_NOT_SUPPORTED && first) {
      first = TILELENS_CUDA(result);
    }
  }
  if (!first) return first;
  if (accepted == 0) return make_error("CUPTI accepted none of the launch and copy calls that link records to tasks");
  return Status::success();
}

// Switches the API records of every call outside stream_work_calls() off (CuptiApis::Launches,
// after both API kinds were switched on). A call this CUPTI refuses is skipped.
Status switch_other_calls_off() {
  const auto wanted = [](CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    for (const ApiCall& call : stream_work_calls()) {
      if (call.domain == domain && call.cbid == cbid) return true;
    }
    return false;
  };
  const auto off = [&](CUpti_CallbackDomain domain, std::uint32_t size) -> Status {
    for (std::uint32_t cbid = 1; cbid < size; ++cbid) {
      if (wanted(domain, cbid)) continue;
      const CUptiResult result = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? cuptiActivityEnableRuntimeApi(cbid, 0)
                                                                       : cuptiActivityEnableDriverApi(cbid, 0);
      if (result != CUPTI_SUCCESS && result != CUPTI_ERROR_INVALID_PARAMETER && result != CUPTI_ERROR_NOT_SUPPORTED) {
        return TILELENS_CUDA(result);
      }
    }
    return Status::success();
  };
  if (Status s = off(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE); !s) return s;
  return off(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
}

// The task whose work the calling thread is putting on a stream (CuptiApis::Callbacks): the
// executor's thread sets it around each operation, and CUPTI calls on_launch on that thread.
thread_local std::uint64_t current_external = 0;

// CuptiApis::Callbacks: CUPTI calls this on entering each launch or copy enabled below, with
// the correlation id its kernel, memcpy or memset record will carry. Noting the pair costs a
// function call and a push; no API record is made.
void CUPTIAPI on_launch(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite != CUPTI_API_ENTER || current_external == 0) return;
  // A runtime call and the driver call it makes share one correlation id: noted once.
  thread_local std::uint32_t last_noted = 0;
  if (call->correlationId == last_noted) return;
  last_noted = call->correlationId;
  Shared& s = shared();
  std::lock_guard lock(s.launch_mutex);
  s.launches.emplace_back(call->correlationId, current_external);
}

// Turns the mode's activities on or off; when turning on, stops at the first failure.
Status set_activities(CuptiApis apis, bool enable) {
  const auto kind = [&](CUpti_ActivityKind k) { return TILELENS_CUDA(enable ? cuptiActivityEnable(k) : cuptiActivityDisable(k)); };
  Status first = Status::success();
  // Keeps the first failure; true when the switches must stop there (enabling; disabling goes
  // through them all).
  const auto stop = [&](const Status& s) {
    if (!s && first) first = s;
    return enable && !first;
  };
  for (CUpti_ActivityKind k : kWorkKinds) {
    if (stop(kind(k))) return first;
  }
  if (apis == CuptiApis::Callbacks) {
    // No API record: the links come from the callbacks (subscribe() below).
    return first;
  }
  // The links to external ids come with the API records.
  if (stop(kind(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION))) return first;
  if (apis == CuptiApis::All) {
    for (CUpti_ActivityKind k : kAllApiKinds) {
      if (stop(kind(k))) return first;
    }
    return first;
  }
  // Launches: both API kinds on, then every call that puts no work on a stream switched off
  // one by one. CUPTI's header also allows switching the few wanted calls on without the
  // kinds, but on the lent H100 (CUDA 13.0, driver 580.159.04) that made no API record at all,
  // so no kernel or copy record was linked to its task; this is the other way the header gives.
  if (stop(kind(CUPTI_ACTIVITY_KIND_RUNTIME)) || stop(kind(CUPTI_ACTIVITY_KIND_DRIVER)) || !enable) return first;
  (void)stop(switch_other_calls_off());
  return first;
}

// CuptiApis::Callbacks: subscribes, before any activity is enabled (CUPTI wants a subscriber
// in place before a session starts; under Nsight or another tool it refuses, and says so).
Status subscribe() {
  Shared& s = shared();
  CUpti_SubscriberHandle subscriber = nullptr;
  if (const Status subscribed = TILELENS_CUDA(cuptiSubscribe(&subscriber, on_launch, nullptr)); !subscribed) {
    return make_error(subscribed.error().message + " (linking by callbacks needs CUPTI's only subscriber: is another profiler attached?)");
  }
  s.subscriber = subscriber;
  return switch_stream_work_calls([&](const ApiCall& call) { return cuptiEnableCallback(1, subscriber, call.domain, call.cbid); });
}
Status unsubscribe() {
  Shared& s = shared();
  if (!s.subscriber) return Status::success();
  const Status done = TILELENS_CUDA(cuptiUnsubscribe(s.subscriber));
  s.subscriber = nullptr;
  return done;
}

}  // namespace

Result<std::unique_ptr<CuptiRecorder>> CuptiRecorder::start(CuptiApis apis) {
  Shared& s = shared();
  {
    std::lock_guard lock(s.mutex);
    if (s.active) return make_error("CUPTI is already recording in this process");
    s.records.clear();
    s.external_of.clear();
    s.dropped = 0;
    s.error.clear();
    s.active = true;
    s.apis = apis;
  }
  {
    std::lock_guard lock(s.launch_mutex);
    s.launches.clear();
  }
  if (apis == CuptiApis::Callbacks) {
    if (const Status subscribed = subscribe(); !subscribed) {
      (void)unsubscribe();
      s.active = false;
      return subscribed.error();
    }
  }
  if (auto st = TILELENS_CUDA(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)); !st) {
    (void)unsubscribe();
    s.active = false;
    return st.error();
  }
  if (const Status enabled = set_activities(apis, true); !enabled) {
    (void)set_activities(apis, false);  // some were never enabled
    (void)unsubscribe();
    s.active = false;
    return enabled.error();
  }
  auto recorder = std::unique_ptr<CuptiRecorder>(new CuptiRecorder());
  recorder->apis_ = apis;
  recorder->set_origin();
  return recorder;
}

CuptiRecorder::~CuptiRecorder() {
  if (!finished_) (void)finish();
}

void CuptiRecorder::set_origin() {
  std::uint64_t now = 0;
  note(TILELENS_CUDA(cuptiGetTimestamp(&now)));
  std::lock_guard lock(shared().mutex);
  shared().origin = now;
}

void CuptiRecorder::push(std::uint64_t external) {
  if (shared().apis.load(std::memory_order_relaxed) == CuptiApis::Callbacks) {
    current_external = external;
    return;
  }
  note(TILELENS_CUDA(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, external)));
}
void CuptiRecorder::pop() {
  if (shared().apis.load(std::memory_order_relaxed) == CuptiApis::Callbacks) {
    current_external = 0;
    return;
  }
  std::uint64_t last = 0;
  note(TILELENS_CUDA(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last)));
}

Result<CuptiRecorder::Capture> CuptiRecorder::finish() {
  finished_ = true;
  note(TILELENS_CUDA(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)));
  note(set_activities(apis_, false));
  note(unsubscribe());
  note(TILELENS_CUDA(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)));
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  s.active = false;
  if (!s.error.empty()) return make_error(s.error);
  Capture capture;
  capture.records = std::move(s.records);
  s.records.clear();
  capture.dropped = s.dropped;
  {
    std::lock_guard launches(s.launch_mutex);
    for (const auto& [correlation, external] : s.launches) s.external_of[correlation] = external;
    s.launches.clear();
  }
  for (CuptiRecord& r : capture.records) {
    const auto link = s.external_of.find(r.correlation);
    if (link != s.external_of.end()) r.external = link->second;
  }
  std::stable_sort(capture.records.begin(), capture.records.end(),
                   [](const CuptiRecord& a, const CuptiRecord& b) { return a.start_ns < b.start_ns; });
  return capture;
}

}  // namespace tilelens::instrument
