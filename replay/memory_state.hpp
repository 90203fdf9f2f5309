// Where every data's copies are and the room they take (DESIGN section 3). Per bounded memory
// node and data: the state of the node's copy. Per node: the bytes reserved (copies resident,
// loading or being evicted) and those that write-backs in flight will free. Per data: whether
// the host's copy is valid, how many nodes hold a valid copy, its version (writes completed),
// the node writing it back and the nodes waiting for that write-back to load it. The engine
// decides what happens; this class keeps the books and the invariants between them.
#pragma once

#include <cstdint>
#include <vector>

#include "model/model.hpp"

namespace tilelens {

// Invalid: a copy that a write elsewhere made stale but whose room stays taken until it is
// evicted or loaded again (StarPU invalidates a replica without freeing its allocation).
enum class Copy : std::uint8_t { Absent, Loading, Resident, Evicting, Invalid };

class MemoryState {
 public:
  void reset(std::uint32_t nodes, const Workload& workload);

  Copy copy(std::uint32_t node, DataId data) const { return copy_[slot(node, data)]; }
  double bytes(DataId data) const { return bytes_[data]; }  // a dense copy of the workload's sizes
  bool stale(std::uint32_t node, DataId data) const { return stale_[slot(node, data)] != 0; }
  double used(std::uint32_t node) const { return used_[node]; }
  double pending_free(std::uint32_t node) const { return pending_free_[node]; }
  double peak(std::uint32_t node) const { return peak_[node]; }
  bool host_valid(DataId data) const { return host_valid_[data] != 0; }
  std::uint32_t holders(DataId data) const { return holders_[data]; }
  std::uint32_t version(DataId data) const { return version_[data]; }
  // The node whose write-back will make the host's copy valid, or -1.
  std::int32_t writeback_from(DataId data) const { return writeback_from_[data]; }
  // Whether a node holds the data resident or loading, or is writing it back while evicting it.
  bool any_loading(std::uint32_t node) const;

  // A request takes room at once (a load, or a write-only output).
  void reserve(std::uint32_t node, DataId data);
  void begin_load(std::uint32_t node, DataId data) {
    copy_[slot(node, data)] = Copy::Loading;
    changed(data);
  }
  void finish_load(std::uint32_t node, DataId data) {
    copy_[slot(node, data)] = Copy::Resident;
    ++holders_[data];
    changed(data);
  }
  void allocate(std::uint32_t node, DataId data) {
    copy_[slot(node, data)] = Copy::Resident;
    changed(data);
  }
  // The last valid copy leaves only once written back: its room is freed when that ends.
  void begin_eviction(std::uint32_t node, DataId data) {
    copy_[slot(node, data)] = Copy::Evicting;
    pending_free_[node] += bytes_[data];
    changed(data);
  }
  // A resident copy is no longer valid (a write elsewhere) and keeps its room; written() then
  // counts the holders.
  void invalidate(std::uint32_t node, DataId data) {
    copy_[slot(node, data)] = Copy::Invalid;
    changed(data);
  }
  // The copy leaves and its room is free; returns whether it was being evicted.
  bool release(std::uint32_t node, DataId data);
  // An evicting copy whose version a write elsewhere overtook: it no longer counts as a holder.
  void mark_stale(std::uint32_t node, DataId data) {
    stale_[slot(node, data)] = 1;
    ++generation_;
  }

  // A write completed: its version is the only valid one, kept by `node` or the host (kNoId).
  void written(DataId data, std::uint32_t node);
  void writeback_started(DataId data, std::uint32_t node) {
    writeback_from_[data] = static_cast<std::int32_t>(node);
    changed(data);
  }
  // The host's copy is valid again; returns the nodes that waited for it, to load it now.
  std::vector<std::uint32_t> writeback_done(DataId data);
  void wait_for_host(DataId data, std::uint32_t node) {
    waiting_for_host_[data].push_back(node);
    ++generation_;
  }

  // From now on, every data whose copy on a node or on the host changes is appended to the log
  // (MemoryView::state_change_log): a scheduler that derives numbers from the states refreshes
  // only those. Off unless asked for, as it grows with the run.
  void start_change_log() { logging_ = true; }
  const std::vector<DataId>& change_log() const { return change_log_; }
  // Counts every change to the books: equal counts, equal books (a manager skips work that
  // could only repeat what it found before).
  std::uint64_t generation() const { return generation_; }

 private:
  std::size_t slot(std::uint32_t node, DataId data) const { return static_cast<std::size_t>(node) * data_count_ + data; }
  void changed(DataId data) {
    ++generation_;
    if (logging_) change_log_.push_back(data);
  }

  std::size_t data_count_ = 0;
  std::vector<double> bytes_;  // per data
  std::vector<Copy> copy_;     // per (node, data)
  std::vector<char> stale_;    // per (node, data): an evicting copy of an older version
  std::vector<double> used_, pending_free_, peak_;  // per node
  std::vector<char> host_valid_;
  std::vector<std::uint32_t> holders_;  // nodes holding a valid copy (resident or being evicted)
  std::vector<std::uint32_t> version_;
  std::vector<std::int32_t> writeback_from_;
  std::vector<std::vector<std::uint32_t>> waiting_for_host_;
  bool logging_ = false;
  std::vector<DataId> change_log_;
  std::uint64_t generation_ = 0;
};

}  // namespace tilelens
