// The links of a simulated platform (DESIGN section 1): the host bus, one link per
// direction (one for both when half duplex) shared fluidly by its transfers; GPU-to-GPU
// links, one per ordered pair; or a node's PCIe tree (host link, switch uplinks, each
// GPU's own link) shared max-min fairly. Every transfer first waits out the platform's
// latency. With copy engines, a memory node moves at most that many host transfers of a
// direction at once, the others waiting in the order they started (a GPU's copy engines,
// a stream's FIFO; a disk's one request at a time).
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "model/model.hpp"
#include "replay/fluid_link.hpp"
#include "replay/link_tree.hpp"
#include "trace/trace.hpp"

namespace tilelens {

class PlatformLinks {
 public:
  static constexpr std::int64_t kNever = FluidLink::kNever;
  explicit PlatformLinks(const Platform& platform);

  // A transfer of `bytes` into memory node `node` from the host (source kFromHost) or from
  // node `source`, or out of `node` to the host.
  void start_load(std::uint32_t transfer, double bytes, std::uint32_t node, std::int32_t source, std::int64_t now);
  void start_writeback(std::uint32_t transfer, double bytes, std::uint32_t node, std::int64_t now);
  std::int64_t next_event() const;
  // With `on`, the k-th transfer started at one instant (k from 0) carries k ns more of its
  // link's bandwidth: transfers started together end in the order they started, never at once,
  // as a runtime that takes its decisions one after another would see them (StarPU's
  // ordered_starts rule). A transfer that waited for a copy engine carries nothing more.
  void order_starts(bool on) { ordered_ = on; }
  // Moves every transfer to `now` (a time next_event() gave): appends those that ended, then
  // puts on their links the transfers whose latency ran out.
  void advance(std::int64_t now, std::vector<std::uint32_t>& ended);

 private:
  struct Route {
    bool on_tree = false;
    std::uint32_t link = 0;
    LinkTree::Path path;
  };
  Route host_route(std::uint32_t node, bool to_gpu) const;
  void join(std::uint32_t transfer, double bytes, const Route& route, std::int64_t now);
  // A host transfer of node `node`, direction `queue` (0 in, 1 out; 0 for both when half
  // duplex): starts now, with `extra` bytes (order_starts), if one of the node's engines is
  // free, else waits for one.
  void start_on_engine(std::uint32_t transfer, double bytes, std::uint32_t node, std::uint32_t queue, const Route& route, std::int64_t now, double extra);
  void begin(std::uint32_t transfer, double bytes, const Route& route, std::int64_t now);

  std::int64_t latency_ns_ = 0;
  std::uint32_t nodes_ = 0;
  bool tree_used_ = false;
  bool half_duplex_ = false;
  std::uint32_t gpus_per_switch_ = 0;
  std::vector<FluidLink> links_;  // 0: host to GPUs, 1: GPUs to host, 2 + s * nodes + n: GPU s to GPU n
  LinkTree tree_;
  std::uint32_t host_down_ = 0, host_up_ = 0;
  std::vector<std::uint32_t> switch_down_, switch_up_, gpu_down_, gpu_up_;
  struct Waiting {
    std::int64_t joins_at;
    std::uint32_t transfer;
    double bytes;
    Route route;
  };
  std::deque<Waiting> latency_;  // transfers waiting out their latency, in start order
  // Copy engines (Platform::copy_engines, 0: none): per node and direction, the transfers
  // moving and those waiting; per transfer, the engine queue it holds, or kNoQueue.
  static constexpr std::uint32_t kNoQueue = UINT32_MAX;
  std::uint32_t engines_ = 0;
  std::vector<std::uint32_t> engine_busy_;
  std::vector<std::deque<Waiting>> engine_waiting_;
  std::vector<std::uint32_t> engine_of_;  // per transfer id
  bool ordered_ = false;
  std::int64_t order_instant_ = -1;  // the instant of the last start, and how many started then before it
  std::uint32_t order_ = 0;
  // The bytes a transfer starting now carries beyond its own (order_starts).
  double extra_bytes(std::int64_t now);
};

}  // namespace tilelens
