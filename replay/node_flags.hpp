// A flag per (memory node, data) with, per node, how many are set: the replay's dirty and
// untidy replicas. Internal to replay/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/model.hpp"

namespace tilelens::replay_detail {

// A flag per (node, data) and, per node, how many are set.
class NodeFlags {
 public:
  void reset(std::uint32_t nodes, std::size_t data_count) {
    stride_ = data_count;
    flags_.assign(nodes * data_count, 0);
    count_.assign(nodes, 0);
  }
  bool test(std::uint32_t n, DataId d) const { return flags_[static_cast<std::size_t>(n) * stride_ + d] != 0; }
  std::uint32_t count(std::uint32_t n) const { return count_[n]; }
  void set(std::uint32_t n, DataId d) { change(n, d, 1); }
  void clear(std::uint32_t n, DataId d) { change(n, d, 0); }

 private:
  void change(std::uint32_t n, DataId d, char value) {
    char& flag = flags_[static_cast<std::size_t>(n) * stride_ + d];
    if (flag == value) return;
    flag = value;
    value ? ++count_[n] : --count_[n];
  }
  std::size_t stride_ = 0;
  std::vector<char> flags_;
  std::vector<std::uint32_t> count_;
};

}  // namespace tilelens::replay_detail
