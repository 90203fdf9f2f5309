// StarPU's memchunk tidy (memalloc.c:1096-1245; docs/starpu-memory-manager.md), the memory
// model's idle write-back: when fewer than min_clean percent of a node's replicas count as
// clean, StarPU walks its list of replicas from its "dirty head" until target_clean percent do,
// counting clean those whose home holds the value and queueing an idle write-back for the
// others, which count as clean at once; the node then moves those write-backs one at a time
// while it has no other transfer in flight. This keeps StarPU's own count and its own list
// (least recently allocated or used first), whatever the eviction policy is. StarPU's manager
// owns one when its model writes back when idle. Internal to replay/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "eviction/recency_list.hpp"
#include "util/function_ref.hpp"
#include "replay/node_flags.hpp"

namespace tilelens::replay_detail {

class IdleWriteback {
 public:
  // What the tidy walk makes of an untidy replica it visits.
  enum class Visit : std::uint8_t { Skip, CountClean, WriteBack };

  IdleWriteback(double min_clean, double target_clean) : min_clean_(min_clean), target_clean_(target_clean) {}
  void reset(std::uint32_t nodes, std::size_t data_count);

  // A new replica on node n. StarPU counts it clean only if that node's copy is already valid
  // when the chunk is made (memalloc.c:1317-1323), which a new allocation never is: it stays
  // untidy until the walk visits it.
  void reserved(std::uint32_t n, DataId d);
  void used(std::uint32_t n, DataId d);
  void released(std::uint32_t n, DataId d);
  // A task on node n wrote d; a replica of data with a home becomes untidy again
  // (_starpu_memchunk_dirty, called when the home's copy is invalidated).
  void written(std::uint32_t n, DataId d, bool has_home) {
    if (has_home) untidy_.set(n, d);
  }

  // StarPU's tidy on node n, which holds `replicas`: `visit` says what an untidy replica is.
  void tidy(std::uint32_t n, std::uint32_t replicas, FunctionRef<Visit(DataId)> visit);
  // The queued write-back to start now on node n, if any; those `needed` no longer wants (the
  // replica left, or the host got the value another way) are dropped.
  std::optional<DataId> next_writeback(std::uint32_t n, FunctionRef<bool(DataId)> needed);
  // Takes d's queued write-back off node n's queue: a task about to run needs d, and StarPU
  // promotes the pending request to a fetch (_starpu_update_prefetch_status, data_request.c:839).
  bool take_queued(std::uint32_t n, DataId d);
  // Queues an idle write-back of d on node n (asked for by n's walk or another node's).
  void queue(std::uint32_t n, DataId d) {
    queued_[n].push_back(d);
    ++queued_count_[n * data_count_ + d];
  }
  // The replica after d in node n's list, if any.
  std::optional<DataId> next_after(std::uint32_t n, DataId d) const { return recency_.next_after(n, d); }
  // Whether node n has an idle write-back of d queued.
  bool queued(std::uint32_t n, DataId d) const { return queued_count_[n * data_count_ + d] > 0; }
  // Whether any node has an idle write-back queued (most events find none).
  bool any_queued() const {
    return std::any_of(queued_.begin(), queued_.end(), [](const std::deque<DataId>& queue) { return !queue.empty(); });
  }

 private:
  void unlink(std::uint32_t n, DataId d);

  double min_clean_, target_clean_;
  RecencyList recency_;
  NodeFlags untidy_;
  // Per node: where the walk starts (StarPU's mc_dirty_head: every replica before it is
  // taken as clean), and the idle write-backs waiting for the node to be free.
  std::vector<std::optional<DataId>> dirty_head_;
  std::vector<std::deque<DataId>> queued_;
  // Per (node, data): its entries in the node's queue. take_queued is asked for every access of
  // every held task at every event while anything is queued, and almost always finds nothing:
  // the count answers that without a walk of the queue.
  std::vector<std::uint32_t> queued_count_;
  std::size_t data_count_ = 0;
};

}  // namespace tilelens::replay_detail
