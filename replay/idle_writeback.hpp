// StarPU's memchunk tidy (memalloc.c; docs/starpu-memory-manager.md), the memory model's
// idle write-back: when fewer than min_clean percent of a node's replicas count as clean, the
// node writes its oldest untidy replicas back, one at a time while it has no other transfer in
// flight, until target_clean percent do. This keeps StarPU's own count of untidy replicas and
// the order its mc_list walks (least recently allocated or used first), whatever the eviction
// policy is. The memory manager owns one when its model writes back when idle. Internal to replay/.
#pragma once

#include <cstdint>
#include <optional>

#include "eviction/recency_list.hpp"
#include "util/function_ref.hpp"
#include "replay/node_flags.hpp"

namespace tilelens::replay_detail {

class IdleWriteback {
 public:
  // What the tidy pass makes of an untidy replica it visits.
  enum class Visit : std::uint8_t { Skip, CountClean, WriteBack };

  IdleWriteback(double min_clean, double target_clean) : min_clean_(min_clean), target_clean_(target_clean) {}
  void reset(std::uint32_t nodes, std::size_t data_count);

  // A new replica on node n; `clean`: StarPU counts it clean (its data has a home holding a
  // valid copy).
  void reserved(std::uint32_t n, DataId d, bool clean);
  void used(std::uint32_t n, DataId d) { recency_.move_to_back(n, d); }
  void released(std::uint32_t n, DataId d);
  // A task on node n wrote d; a replica of data with a home becomes untidy again.
  void written(std::uint32_t n, DataId d, bool has_home) {
    if (has_home) untidy_.set(n, d);
  }

  // One pass on node n, which holds `replicas`: the replica to write back now, if any.
  // `visit` says what an untidy resident replica is; a write-back starts only when
  // `transfer_free` (the node has nothing else in flight).
  std::optional<DataId> pass(std::uint32_t n, std::uint32_t replicas, bool transfer_free, FunctionRef<Visit(DataId)> visit);

 private:
  double min_clean_, target_clean_;
  RecencyList recency_;
  NodeFlags untidy_;
  std::vector<char> tidying_;
};

}  // namespace tilelens::replay_detail
