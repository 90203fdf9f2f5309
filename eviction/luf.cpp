// LUF, "Least Used in the Future" (darts section 5.4, REFERENCE.md): DARTS's eviction policy.
// Among the evictable data of the GPU, in this order:
//   1. a data used by no task the GPU has pulled (its task buffer, running task included) and
//      by no task planned for it: evict it;
//   2. else, among the data used by no pulled task, the one used by the fewest planned tasks;
//   3. else, if the request is only a prefetch, refuse (the load waits): StarPU's darts.c
//      does this (REFERENCE.md); darts 5.4 does not say it;
//   4. else Belady over the pulled tasks: the data whose first use in buffer order is furthest.
// Ties go to the least recently used. Without a planning scheduler the plan is empty, and
// LUF is LRU with the prefetch refusal and the Belady step over the buffer. What DARTS does
// after an eviction (planned tasks back to the ready list) is the scheduler's, on its
// on_data_evicted hook.
#include "eviction/recency_list.hpp"

namespace tilelens {
namespace {

class Luf final : public EvictionPolicy {
 public:
  Status attach(const EvictionContext& context) override {
    if (context.buffers == nullptr) return make_error("eviction 'luf' needs the executor's task buffers");
    plan_ = context.plan;
    platform_ = context.platform;
    buffers_ = context.buffers;
    workload_ = context.workload;
    list_.reset(context.platform->memory_nodes(), context.workload->data_count());
    first_use_.assign(context.workload->data_count(), kUnused);
    return Status::success();
  }
  void on_inserted(GpuId gpu, DataId data) override { list_.move_to_back(gpu, data); }
  void on_used(GpuId gpu, DataId data) override { list_.move_to_back(gpu, data); }
  void on_removed(GpuId gpu, DataId data) override { list_.unlink(gpu, data); }

  std::optional<DataId> choose_victim(GpuId gpu, const VictimRequest& request) override {
    // First use of each data in the buffers of the memory's workers (0 = a running task or a
    // buffer's head); `gpu` names the memory node.
    const GpuId first = platform_->first_worker_of(gpu);
    marked_.clear();
    for (GpuId worker = first; worker < first + platform_->workers_per_memory; ++worker) {
      const auto held = buffers_->held(worker);
      for (std::uint32_t position = 0; position < held.size(); ++position) {
        for (const Access& access : workload_->accesses(held[position])) {
          if (first_use_[access.data] == kUnused || first_use_[access.data] > position) {
            if (first_use_[access.data] == kUnused) marked_.push_back(access.data);
            first_use_[access.data] = position;
          }
        }
      }
    }
    std::optional<DataId> unused, fewest, furthest;
    std::uint32_t fewest_uses = UINT32_MAX, furthest_use = 0;
    list_.for_each_oldest_first(gpu, [&](DataId d) {
      if (!request.evictable(d)) return true;
      if (first_use_[d] == kUnused) {
        const std::uint32_t planned = plan_ ? plan_->planned_uses(first, d) : 0;
        if (planned == 0) {
          unused = d;
          return false;  // rule 1: nothing better
        }
        if (planned < fewest_uses) {
          fewest_uses = planned;
          fewest = d;
        }
      } else if (!furthest || first_use_[d] > furthest_use) {
        furthest_use = first_use_[d];
        furthest = d;
      }
      return true;
    });
    for (DataId d : marked_) first_use_[d] = kUnused;
    if (unused) return unused;
    if (fewest) return fewest;
    if (request.prefetch) return std::nullopt;
    return furthest;
  }

 private:
  static constexpr std::uint32_t kUnused = UINT32_MAX;
  const PlanView* plan_ = nullptr;
  const Platform* platform_ = nullptr;
  const BufferView* buffers_ = nullptr;
  const Workload* workload_ = nullptr;
  RecencyList list_;
  std::vector<std::uint32_t> first_use_;
  std::vector<DataId> marked_;
};

}  // namespace

std::unique_ptr<EvictionPolicy> make_luf(const Params&) { return std::make_unique<Luf>(); }

}  // namespace tilelens
