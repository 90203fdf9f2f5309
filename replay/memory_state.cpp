// The books of the copies; see memory_state.hpp.
#include "replay/memory_state.hpp"

#include <algorithm>

namespace tilelens {

void MemoryState::reset(std::uint32_t nodes, const Workload& workload) {
  data_count_ = workload.data_count();
  bytes_.resize(data_count_);
  for (DataId d = 0; d < data_count_; ++d) bytes_[d] = static_cast<double>(workload.data()[d].bytes);
  copy_.assign(nodes * data_count_, Copy::Absent);
  stale_.assign(nodes * data_count_, 0);
  used_.assign(nodes, 0);
  pending_free_.assign(nodes, 0);
  peak_.assign(nodes, 0);
  host_valid_.assign(data_count_, 1);
  holders_.assign(data_count_, 0);
  version_.assign(data_count_, 0);
  writeback_from_.assign(data_count_, -1);
  waiting_for_host_.assign(data_count_, {});
  logging_ = false;
  change_log_.clear();
  generation_ = 0;
}

bool MemoryState::any_loading(std::uint32_t node) const {
  const auto begin = copy_.begin() + static_cast<std::ptrdiff_t>(slot(node, 0));
  return std::find(begin, begin + static_cast<std::ptrdiff_t>(data_count_), Copy::Loading) != begin + static_cast<std::ptrdiff_t>(data_count_);
}

void MemoryState::reserve(std::uint32_t node, DataId data) {
  used_[node] += bytes_[data];
  ++generation_;
  peak_[node] = std::max(peak_[node], used_[node]);
}

bool MemoryState::release(std::uint32_t node, DataId data) {
  Copy& copy = copy_[slot(node, data)];
  const bool evicting = copy == Copy::Evicting;
  const bool invalid = copy == Copy::Invalid;  // not a holder since it was invalidated
  if (evicting) pending_free_[node] -= bytes_[data];
  copy = Copy::Absent;
  changed(data);
  used_[node] -= bytes_[data];
  if (!invalid) {
    if (stale_[slot(node, data)]) {
      stale_[slot(node, data)] = 0;  // it no longer counted as a holder
    } else if (holders_[data] > 0) {
      --holders_[data];
    }
  }
  return evicting;
}

void MemoryState::written(DataId data, std::uint32_t node) {
  ++version_[data];
  writeback_from_[data] = -1;  // an older version's write-back in flight no longer counts
  host_valid_[data] = node == kNoId ? 1 : 0;
  holders_[data] = node == kNoId ? 0 : 1;
  changed(data);
}

std::vector<std::uint32_t> MemoryState::writeback_done(DataId data) {
  host_valid_[data] = 1;
  writeback_from_[data] = -1;
  changed(data);
  std::vector<std::uint32_t> waiting = std::move(waiting_for_host_[data]);
  waiting_for_host_[data].clear();
  return waiting;
}

}  // namespace tilelens
