// The eviction policy interface. A policy picks which resident data leaves a GPU when a
// load needs room (DESIGN section 3). Contract, in the order calls happen:
//
//   1. attach(context) once before the run.
//   2. on_inserted(gpu, data) when a replica becomes resident (load completed or output
//      allocated); on_used(gpu, data) when a task starts using it; on_removed(gpu, data) when
//      it leaves the GPU (eviction or invalidation) or stops being a candidate;
//      on_future_changed(gpu, data) when the scheduler's known future of that data changed
//      (a task reading it was popped, or the scheduler said so), only for a policy whose
//      follows_future() is true.
//   3. choose_victim(gpu, request) when room is needed: returns a data for which
//      request.evictable(data) is true, or nothing. Returning nothing is allowed only for a
//      prefetch (request.prefetch); the executor then leaves that request for later.
//
// Policies see replicas that are resident; those loading are never candidates.
//
// The GpuId a policy receives names a memory node (Platform::memory_nodes()), not a worker:
// with one worker per memory they coincide. A policy that consults per-worker views (the
// known future, the plan, the task buffers) combines the node's workers, from
// Platform::first_worker_of(node) on.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/function_ref.hpp"
#include "model/model.hpp"
#include "model/params.hpp"
#include "schedulers/scheduler.hpp"

namespace tilelens {

// The tasks a GPU holds: the running one first, then its task buffer in order.
class BufferView {
 public:
  virtual ~BufferView() = default;
  virtual std::span<const TaskId> held(GpuId gpu) const = 0;
};

struct EvictionContext {
  const Workload* workload = nullptr;
  const Platform* platform = nullptr;
  const TaskFuture* future = nullptr;  // the scheduler's, may be null
  const PlanView* plan = nullptr;      // the scheduler's, may be null
  const BufferView* buffers = nullptr;
  const MemoryView* memory = nullptr;  // the executor's memory states, as schedulers see them (plugins read them)
};

struct VictimRequest {
  TaskId for_task = kNoId;  // the task whose input needs room
  bool prefetch = false;    // the task is not the next one to run on that GPU
  FunctionRef<bool(DataId)> evictable;  // refers to the executor's test (it outlives the request)
};

class EvictionPolicy {
 public:
  virtual ~EvictionPolicy() = default;
  virtual Status attach(const EvictionContext& context) = 0;
  virtual void on_inserted(GpuId gpu, DataId data) = 0;
  virtual void on_used(GpuId gpu, DataId data) = 0;
  virtual void on_removed(GpuId gpu, DataId data) = 0;
  virtual void on_future_changed(GpuId, DataId) {}
  virtual bool follows_future() const { return false; }
  virtual std::optional<DataId> choose_victim(GpuId gpu, const VictimRequest& request) = 0;
  // Why the policy stopped answering (an embedded policy's exception); empty while it works.
  // The executor asks when a run cannot go on, and at its end.
  virtual std::string failure() const { return {}; }
};

struct EvictionInfo {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<EvictionPolicy>(const Params&)> make;
};

const std::vector<EvictionInfo>& eviction_registry();
struct MadeEviction {
  std::unique_ptr<EvictionPolicy> policy;
  std::string spec;
};
Result<MadeEviction> make_eviction(std::string_view spec);
// Where an embedding program registers its eviction policies (schedulers/embedded_policies.hpp).
EmbeddedPolicies<MadeEviction>& embedded_evictions();
// The spec as labels show it: a plugin by its own name and parameters (plugin_label); a
// built-in policy as is.
std::string short_eviction_spec(std::string_view spec);

}  // namespace tilelens
