// LRU: evict the data whose last use (load or task start) is the oldest.
#include "eviction/recency_list.hpp"

namespace tilelens {
namespace {

class Lru final : public EvictionPolicy {
 public:
  Status attach(const EvictionContext& context) override {
    list_.reset(context.platform->memory_nodes(), context.workload->data_count());
    return Status::success();
  }
  void on_inserted(GpuId gpu, DataId data) override { list_.move_to_back(gpu, data); }
  void on_used(GpuId gpu, DataId data) override { list_.move_to_back(gpu, data); }
  void on_removed(GpuId gpu, DataId data) override { list_.unlink(gpu, data); }
  std::optional<DataId> choose_victim(GpuId gpu, const VictimRequest& request) override {
    return list_.oldest_evictable(gpu, request);
  }

 private:
  RecencyList list_;
};

}  // namespace

std::unique_ptr<EvictionPolicy> make_lru(const Params&) { return std::make_unique<Lru>(); }

}  // namespace tilelens
