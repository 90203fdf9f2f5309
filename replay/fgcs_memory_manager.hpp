// The fgcs paper's memory model (FGCS 2023, section 3; docs/replay.md): each worker requests
// its buffered tasks' data in buffer order, worker after worker; any request may evict, just
// the room it needs, as the eviction policy says; a node has no limit on transfers in flight;
// every datum goes home at the end. Internal to replay/.
#pragma once

#include "replay/node_memory.hpp"

namespace tilelens::replay_detail {

class FgcsMemoryManager final : public NodeMemory {
 public:
  explicit FgcsMemoryManager(ReplayState& state) : NodeMemory(state) {}

  void serve(FunctionRef<void(GpuId)> try_start) override { serve_workers_in_turn(try_start); }
  void flush() override { write_home(true); }

 private:
  std::uint32_t transfer_limit(bool) const override { return 0; }
  bool prefetch_may_evict() const override { return true; }
  bool clean_first() const override { return false; }
  double reclaim_factor() const override { return 1; }
};

}  // namespace tilelens::replay_detail
