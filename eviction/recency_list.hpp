// An intrusive doubly linked list of data per GPU, oldest first: the ordering LRU and FIFO
// share. Constant-time insert, move-to-back and unlink; the victim search walks from the
// oldest end and skips the few data that are pinned.
#pragma once

#include <optional>
#include <vector>

#include "eviction/policy.hpp"

namespace tilelens {

class RecencyList {
 public:
  void reset(std::size_t gpus, std::size_t data_count) {
    stride_ = data_count + 1;  // one sentinel per GPU at index data_count
    prev_.assign(gpus * stride_, kNoId);
    next_.assign(gpus * stride_, kNoId);
    for (std::size_t g = 0; g < gpus; ++g) {
      const auto sentinel = static_cast<std::uint32_t>(data_count);
      prev_[g * stride_ + sentinel] = next_[g * stride_ + sentinel] = sentinel;
    }
  }
  bool contains(GpuId gpu, DataId data) const { return next_[slot(gpu, data)] != kNoId; }
  void push_back(GpuId gpu, DataId data) {
    std::uint32_t* prev = &prev_[slot(gpu, 0)];
    std::uint32_t* next = &next_[slot(gpu, 0)];
    const auto sentinel = static_cast<std::uint32_t>(stride_ - 1);
    const std::uint32_t last = prev[sentinel];
    next[last] = data;
    prev[data] = last;
    next[data] = sentinel;
    prev[sentinel] = data;
  }
  void unlink(GpuId gpu, DataId data) {
    std::uint32_t* prev = &prev_[slot(gpu, 0)];
    std::uint32_t* next = &next_[slot(gpu, 0)];
    if (next[data] == kNoId) return;
    const std::uint32_t before = prev[data], after = next[data];
    next[before] = after;
    prev[after] = before;
    prev[data] = next[data] = kNoId;
  }
  void move_to_back(GpuId gpu, DataId data) {
    std::uint32_t* next = &next_[slot(gpu, 0)];
    if (next[data] == static_cast<std::uint32_t>(stride_ - 1)) return;  // already the most recent
    unlink(gpu, data);
    push_back(gpu, data);
  }
  std::optional<DataId> oldest_evictable(GpuId gpu, const VictimRequest& request) const {
    std::optional<DataId> found;
    for_each_oldest_first(gpu, [&](DataId d) {
      if (!request.evictable(d)) return true;
      found = d;
      return false;
    });
    return found;
  }
  // The oldest datum, and the one after `data` (nothing past the newest).
  std::optional<DataId> oldest(GpuId gpu) const { return after(gpu, static_cast<std::uint32_t>(stride_ - 1)); }
  std::optional<DataId> next_after(GpuId gpu, DataId data) const { return after(gpu, data); }
  // Calls visit(data) from the oldest to the newest while it returns true.
  template <class Visit>
  void for_each_oldest_first(GpuId gpu, Visit&& visit) const {
    const auto sentinel = static_cast<std::uint32_t>(stride_ - 1);
    for (std::uint32_t d = next_[slot(gpu, sentinel)]; d != sentinel; d = next_[slot(gpu, d)]) {
      if (!visit(d)) return;
    }
  }

 private:
  std::optional<DataId> after(GpuId gpu, std::uint32_t data) const {
    const std::uint32_t next = next_[slot(gpu, data)];
    if (next == kNoId || next == static_cast<std::uint32_t>(stride_ - 1)) return std::nullopt;
    return next;
  }
  std::size_t slot(GpuId gpu, std::uint32_t data) const { return gpu * stride_ + data; }
  std::size_t stride_ = 1;
  std::vector<std::uint32_t> prev_, next_;
};

// Factories, one per file, listed in eviction_registry.cpp.
std::unique_ptr<EvictionPolicy> make_lru(const Params& params);
std::unique_ptr<EvictionPolicy> make_fifo(const Params& params);
std::unique_ptr<EvictionPolicy> make_belady(const Params& params);
std::unique_ptr<EvictionPolicy> make_luf(const Params& params);

}  // namespace tilelens
