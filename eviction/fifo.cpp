// FIFO: evict the data that arrived first, whatever its uses since.
#include "eviction/recency_list.hpp"

namespace tilelens {
namespace {

class Fifo final : public EvictionPolicy {
 public:
  Status attach(const EvictionContext& context) override {
    list_.reset(context.platform->memory_nodes(), context.workload->data_count());
    return Status::success();
  }
  void on_inserted(GpuId gpu, DataId data) override {
    if (!list_.contains(gpu, data)) list_.push_back(gpu, data);
  }
  void on_used(GpuId, DataId) override {}
  void on_removed(GpuId gpu, DataId data) override { list_.unlink(gpu, data); }
  std::optional<DataId> choose_victim(GpuId gpu, const VictimRequest& request) override {
    return list_.oldest_evictable(gpu, request);
  }

 private:
  RecencyList list_;
};

}  // namespace

std::unique_ptr<EvictionPolicy> make_fifo(const Params&) { return std::make_unique<Fifo>(); }

}  // namespace tilelens
