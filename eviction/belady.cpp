// Belady's MIN (fgcs Theorem 1): evict the data whose next use in the known future is the
// furthest; data with no next use go first, the smallest id on ties. The known future is the
// scheduler's (TaskFuture). Each memory node keeps its resident data in an indexed max-heap
// keyed on next use: an insertion, a removal or a change of future moves one entry in place
// (O(log n)), and a victim search walks the heap best-first from the top, past the few data
// that are pinned, without changing it.
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
    position_.assign(nodes * data_count_, kNoId);
    return Status::success();
  }

  void on_inserted(GpuId gpu, DataId data) override {
    if (position_[slot(gpu, data)] == kNoId) {
      auto& heap = heaps_[gpu];
      position_[slot(gpu, data)] = static_cast<std::uint32_t>(heap.size());
      heap.push_back({0, data});
    }
    rekey(gpu, data);
  }
  void on_used(GpuId, DataId) override {}
  bool follows_future() const override { return true; }
  void on_future_changed(GpuId gpu, DataId data) override {
    if (position_[slot(gpu, data)] != kNoId) rekey(gpu, data);
  }
  void on_removed(GpuId gpu, DataId data) override {
    const std::uint32_t at = position_[slot(gpu, data)];
    if (at == kNoId) return;
    auto& heap = heaps_[gpu];
    position_[slot(gpu, data)] = kNoId;
    const Entry last = heap.back();
    heap.pop_back();
    if (at == heap.size()) return;
    heap[at] = last;
    sift(gpu, at);
  }

  std::optional<DataId> choose_victim(GpuId gpu, const VictimRequest& request) override {
    const auto& heap = heaps_[gpu];
    if (heap.empty()) return std::nullopt;
    // Best first from the top: a pinned entry's children are the next candidates. The order
    // is strict (the data id breaks ties), so the victim is the best evictable data.
    const auto worse = [&](std::uint32_t a, std::uint32_t b) { return heap[b].before(heap[a]); };
    frontier_.assign(1, 0);
    while (!frontier_.empty()) {
      std::pop_heap(frontier_.begin(), frontier_.end(), worse);
      const std::uint32_t at = frontier_.back();
      frontier_.pop_back();
      if (request.evictable(heap[at].data)) return heap[at].data;
      for (std::uint32_t child : {2 * at + 1, 2 * at + 2}) {
        if (child >= heap.size()) continue;
        frontier_.push_back(child);
        std::push_heap(frontier_.begin(), frontier_.end(), worse);
      }
    }
    return std::nullopt;
  }

 private:
  struct Entry {
    std::uint64_t key;  // the next use
    DataId data;
    // Whether this goes before `other` as a victim: the furthest next use, then the smallest id.
    bool before(const Entry& other) const { return key != other.key ? key > other.key : data < other.data; }
  };

  std::size_t slot(GpuId gpu, DataId data) const { return static_cast<std::size_t>(gpu) * data_count_ + data; }

  void rekey(GpuId gpu, DataId data) {
    const std::uint32_t at = position_[slot(gpu, data)];
    heaps_[gpu][at].key = next_use(gpu, data);
    sift(gpu, at);
  }

  // Moves the entry at `at` up or down to its place.
  void sift(GpuId gpu, std::uint32_t at) {
    auto& heap = heaps_[gpu];
    std::uint32_t* position = &position_[slot(gpu, 0)];
    const Entry moving = heap[at];
    while (at > 0) {
      const std::uint32_t parent = (at - 1) / 2;
      if (!moving.before(heap[parent])) break;
      heap[at] = heap[parent];
      position[heap[at].data] = at;
      at = parent;
    }
    while (true) {
      const std::uint32_t left = 2 * at + 1;
      if (left >= heap.size()) break;
      std::uint32_t best = left;
      if (left + 1 < heap.size() && heap[left + 1].before(heap[left])) best = left + 1;
      if (!heap[best].before(moving)) break;
      heap[at] = heap[best];
      position[heap[at].data] = at;
      at = best;
    }
    heap[at] = moving;
    position[moving.data] = at;
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

  const TaskFuture* future_ = nullptr;
  const Platform* platform_ = nullptr;
  std::size_t data_count_ = 0;
  std::vector<std::vector<Entry>> heaps_;  // per node: resident data, best victim on top
  std::vector<std::uint32_t> position_;    // per (node, data): index in the heap, or kNoId
  std::vector<std::uint32_t> frontier_;     // a victim search's candidates
};

}  // namespace

std::unique_ptr<EvictionPolicy> make_belady(const Params&) { return std::make_unique<Belady>(); }

}  // namespace tilelens
