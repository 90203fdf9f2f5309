// Belady's MIN (fgcs Theorem 1): evict the data whose next use in the known future is the
// furthest; data with no next use go first, the smallest id on ties. The known future is the
// scheduler's (TaskFuture). Each GPU keeps a max-heap keyed on next use, with lazy deletion:
// an entry is stale once its stamp is older than the data's, so every insertion, removal and
// change of future costs O(log n), and a victim search pops stale entries and sets aside the
// few pinned ones (as libCacheSim does with its precomputed next-use heap).
#include <algorithm>

#include "eviction/recency_list.hpp"

namespace tilelens {
namespace {

class Belady final : public EvictionPolicy {
 public:
  Status attach(const EvictionContext& context) override {
    if (context.future == nullptr) {
      return make_error("eviction 'belady' needs a scheduler that knows its future order; this scheduler has none");
    }
    future_ = context.future;
    platform_ = context.platform;
    data_count_ = context.workload->data_count();
    const std::size_t nodes = platform_->memory_nodes();
    heaps_.assign(nodes, {});
    stamp_.assign(nodes * data_count_, 0);
    resident_.assign(nodes * data_count_, 0);
    resident_count_.assign(nodes, 0);
    return Status::success();
  }

  void on_inserted(GpuId gpu, DataId data) override {
    if (!resident_[slot(gpu, data)]) {
      resident_[slot(gpu, data)] = 1;
      ++resident_count_[gpu];
    }
    rekey(gpu, data);
  }
  void on_used(GpuId, DataId) override {}
  void on_future_changed(GpuId gpu, DataId data) override {
    if (resident_[slot(gpu, data)]) rekey(gpu, data);
  }
  void on_removed(GpuId gpu, DataId data) override {
    if (resident_[slot(gpu, data)]) {
      resident_[slot(gpu, data)] = 0;
      --resident_count_[gpu];
    }
    ++stamp_[slot(gpu, data)];
  }

  std::optional<DataId> choose_victim(GpuId gpu, const VictimRequest& request) override {
    auto& heap = heaps_[gpu];
    std::optional<DataId> victim;
    set_aside_.clear();
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end());
      const Entry top = heap.back();
      heap.pop_back();
      if (top.stamp != stamp_[slot(gpu, top.data)] || !resident_[slot(gpu, top.data)]) continue;
      if (!request.evictable(top.data)) {
        set_aside_.push_back(top);
        continue;
      }
      victim = top.data;
      set_aside_.push_back(top);  // stays until on_removed makes it stale
      break;
    }
    for (const Entry& entry : set_aside_) {
      heap.push_back(entry);
      std::push_heap(heap.begin(), heap.end());
    }
    return victim;
  }

 private:
  struct Entry {
    std::uint64_t key;
    DataId data;
    std::uint32_t stamp;
    bool operator<(const Entry& other) const {  // max-heap: furthest use, then smallest id
      return key != other.key ? key < other.key : data > other.data;
    }
  };

  std::size_t slot(GpuId gpu, DataId data) const { return static_cast<std::size_t>(gpu) * data_count_ + data; }

  void rekey(GpuId gpu, DataId data) {
    const std::uint32_t stamp = ++stamp_[slot(gpu, data)];
    auto& heap = heaps_[gpu];
    heap.push_back({next_use(gpu, data), data, stamp});
    std::push_heap(heap.begin(), heap.end());
    if (heap.size() > 4 * resident_count_[gpu] + 64) compact(gpu);
  }

  // On a memory shared by several workers, the soonest next use among them. Positions of two
  // workers compare only roughly (each counts its own future); a departure from Belady's
  // single sequence that only the shared-memory platforms see.
  std::uint64_t next_use(GpuId node, DataId data) const {
    const GpuId first = platform_->first_worker_of(node);
    std::uint64_t next = future_->next_use(first, data);
    for (GpuId w = first + 1; w < first + platform_->workers_per_memory; ++w) next = std::min(next, future_->next_use(w, data));
    return next;
  }

  // Drops stale entries when they outnumber live ones, keeping memory proportional to what
  // is resident.
  void compact(GpuId gpu) {
    auto& heap = heaps_[gpu];
    std::erase_if(heap, [&](const Entry& e) { return e.stamp != stamp_[slot(gpu, e.data)] || !resident_[slot(gpu, e.data)]; });
    std::make_heap(heap.begin(), heap.end());
  }

  const TaskFuture* future_ = nullptr;
  const Platform* platform_ = nullptr;
  std::size_t data_count_ = 0;
  std::vector<std::vector<Entry>> heaps_;
  std::vector<std::uint32_t> stamp_;
  std::vector<char> resident_;
  std::vector<std::size_t> resident_count_;
  std::vector<Entry> set_aside_;
};

}  // namespace

std::unique_ptr<EvictionPolicy> make_belady(const Params&) { return std::make_unique<Belady>(); }

}  // namespace tilelens
