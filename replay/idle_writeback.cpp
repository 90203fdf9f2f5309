// StarPU's idle write-back; see idle_writeback.hpp.
#include "replay/idle_writeback.hpp"

namespace tilelens::replay_detail {

void IdleWriteback::reset(std::uint32_t nodes, std::size_t data_count) {
  recency_.reset(nodes, data_count);
  untidy_.reset(nodes, data_count);
  tidying_.assign(nodes, 0);
}

void IdleWriteback::reserved(std::uint32_t n, DataId d, bool clean) {
  recency_.push_back(n, d);
  if (!clean) untidy_.set(n, d);
}

void IdleWriteback::released(std::uint32_t n, DataId d) {
  untidy_.clear(n, d);
  recency_.unlink(n, d);
}

// When fewer than min_clean percent of a node's replicas count as clean, StarPU visits the
// untidy ones, oldest first, until target_clean percent do: one whose host copy is valid is
// just counted clean; one that a running task writes is skipped; the others are written back
// (an idle request: one at a time, while the node has no other transfer in flight) and count
// as clean from then on. StarPU's count is its own: a replica of data with a home becomes
// untidy again when a task writes it, but one of data without a home (whose first access
// writes it) stays counted clean once visited, whatever writes it later. The replica stays
// resident, and clean once its write-back ends.
std::optional<DataId> IdleWriteback::pass(std::uint32_t n, std::uint32_t replicas, bool transfer_free, FunctionRef<Visit(DataId)> visit) {
  // Whole numbers of replicas, rounded down, as StarPU counts them: with 32 replicas it
  // starts when none is clean and stops at 3.
  const auto clean = [&] { return replicas - untidy_.count(n); };
  const auto share = [&](double percent) { return static_cast<std::uint32_t>(replicas * percent / 100); };
  if (!tidying_[n]) {
    if (!(clean() < share(min_clean_))) return std::nullopt;
    tidying_[n] = 1;
  }
  std::optional<DataId> to_write;
  recency_.for_each_oldest_first(n, [&](DataId d) {
    if (!(clean() < share(target_clean_))) return false;
    if (!untidy_.test(n, d)) return true;
    switch (visit(d)) {
      case Visit::Skip: return true;
      case Visit::CountClean: untidy_.clear(n, d); return true;
      case Visit::WriteBack: to_write = d; return false;
    }
    return true;
  });
  std::optional<DataId> written;
  if (to_write && transfer_free) {
    untidy_.clear(n, *to_write);
    written = to_write;
  }
  if (clean() >= share(target_clean_) || untidy_.count(n) == 0) tidying_[n] = 0;
  return written;
}

}  // namespace tilelens::replay_detail
