// Records kept by id, an id reused once its record is taken back: the memory manager's
// transfers in flight and its loads not yet classified. Internal to replay/.
#pragma once

#include <cstdint>
#include <vector>

namespace tilelens::replay_detail {

template <class T>
class SlotPool {
 public:
  std::uint32_t add(const T& value) {
    if (!free_.empty()) {
      const std::uint32_t id = free_.back();
      free_.pop_back();
      items_[id] = value;
      return id;
    }
    items_.push_back(value);
    return static_cast<std::uint32_t>(items_.size() - 1);
  }
  // The record, whose id may be handed out again from now on.
  T take(std::uint32_t id) {
    free_.push_back(id);
    return items_[id];
  }
  T& operator[](std::uint32_t id) { return items_[id]; }
  const T& operator[](std::uint32_t id) const { return items_[id]; }

 private:
  std::vector<T> items_;
  std::vector<std::uint32_t> free_;
};

}  // namespace tilelens::replay_detail
