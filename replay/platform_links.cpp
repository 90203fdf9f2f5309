// The simulated platform's links; see platform_links.hpp.
#include "replay/platform_links.hpp"

#include <algorithm>

namespace tilelens {

PlatformLinks::PlatformLinks(const Platform& platform)
    : latency_ns_(platform.latency_ns), nodes_(platform.memory_nodes()), tree_used_(platform.has_pcie_tree()),
      gpus_per_switch_(platform.gpus_per_switch) {
  half_duplex_ = platform.half_duplex;
  engines_ = platform.copy_engines;
  engine_busy_.assign(engines_ > 0 ? 2 * nodes_ : 0, 0);
  engine_waiting_.assign(engines_ > 0 ? 2 * nodes_ : 0, {});
  links_.emplace_back(platform.bus_bandwidth);  // 0: host to GPUs (both ways when half duplex)
  links_.emplace_back(platform.bus_bandwidth);  // 1: GPUs to host
  if (platform.gpu_link_bandwidth > 0) {
    for (std::uint32_t i = 0; i < nodes_ * nodes_; ++i) links_.emplace_back(platform.gpu_link_bandwidth);
  }
  if (!tree_used_) return;
  // Link indices break ties in the max-min sharing: they are added in this fixed order.
  host_down_ = tree_.add_link(platform.bus_bandwidth);
  host_up_ = tree_.add_link(platform.bus_bandwidth);
  if (platform.gpus_per_switch > 0 && platform.switch_bandwidth > 0) {
    for (std::uint32_t s = 0; s < (nodes_ + platform.gpus_per_switch - 1) / platform.gpus_per_switch; ++s) {
      switch_down_.push_back(tree_.add_link(platform.switch_bandwidth));
      switch_up_.push_back(tree_.add_link(platform.switch_bandwidth));
    }
  }
  if (platform.gpu_bus_bandwidth > 0) {
    for (std::uint32_t n = 0; n < nodes_; ++n) {
      gpu_down_.push_back(tree_.add_link(platform.gpu_bus_bandwidth));
      gpu_up_.push_back(tree_.add_link(platform.gpu_bus_bandwidth));
    }
  }
}

PlatformLinks::Route PlatformLinks::host_route(std::uint32_t node, bool to_gpu) const {
  Route route;
  route.link = to_gpu || half_duplex_ ? 0 : 1;
  if (!tree_used_) return route;
  route.on_tree = true;
  LinkTree::Path& path = route.path;
  path.links[path.length++] = to_gpu || half_duplex_ ? host_down_ : host_up_;
  if (!switch_down_.empty()) path.links[path.length++] = to_gpu ? switch_down_[node / gpus_per_switch_] : switch_up_[node / gpus_per_switch_];
  if (!gpu_down_.empty()) path.links[path.length++] = to_gpu ? gpu_down_[node] : gpu_up_[node];
  return route;
}

double PlatformLinks::extra_bytes(std::int64_t now) {
  if (!ordered_) return 0;
  if (now != order_instant_) {
    order_instant_ = now;
    order_ = 0;
  } else {
    ++order_;
  }
  return static_cast<double>(order_) * links_[0].bytes_per_ns();  // k ns of the bus alone
}

void PlatformLinks::start_load(std::uint32_t transfer, double bytes, std::uint32_t node, std::int32_t source, std::int64_t now) {
  const double extra = extra_bytes(now);
  if (latency_ns_ == 0 && !tree_used_ && engines_ == 0 && source == kFromHost) {  // the common case: straight onto the bus
    links_[0].add(transfer, bytes + extra, now);
    return;
  }
  Route route;
  if (source == kFromHost) {
    route = host_route(node, true);
    if (engines_ > 0) {
      start_on_engine(transfer, bytes, node, 0, route, now, extra);
      return;
    }
  } else {
    route.link = 2 + static_cast<std::uint32_t>(source) * nodes_ + node;
  }
  begin(transfer, bytes + extra, route, now);
}

void PlatformLinks::start_writeback(std::uint32_t transfer, double bytes, std::uint32_t node, std::int64_t now) {
  const double extra = extra_bytes(now);
  const Route route = host_route(node, false);
  if (engines_ > 0) {
    start_on_engine(transfer, bytes, node, half_duplex_ ? 0 : 1, route, now, extra);
    return;
  }
  begin(transfer, bytes + extra, route, now);
}

void PlatformLinks::begin(std::uint32_t transfer, double bytes, const Route& route, std::int64_t now) {
  if (latency_ns_ > 0) latency_.push_back({now + latency_ns_, transfer, bytes, route});
  else join(transfer, bytes, route, now);
}

void PlatformLinks::start_on_engine(std::uint32_t transfer, double bytes, std::uint32_t node, std::uint32_t queue, const Route& route,
                                   std::int64_t now, double extra) {
  const std::uint32_t engine = 2 * node + queue;
  if (engine_of_.size() <= transfer) engine_of_.resize(transfer + 1, kNoQueue);
  engine_of_[transfer] = engine;
  if (engine_busy_[engine] < engines_) {
    ++engine_busy_[engine];
    begin(transfer, bytes + extra, route, now);
  } else {
    engine_waiting_[engine].push_back({now, transfer, bytes, route});
  }
}

void PlatformLinks::join(std::uint32_t transfer, double bytes, const Route& route, std::int64_t now) {
  if (route.on_tree) tree_.add(transfer, bytes, route.path, now);
  else links_[route.link].add(transfer, bytes, now);
}

std::int64_t PlatformLinks::next_event() const {
  std::int64_t next = kNever;
  for (const auto& link : links_) {
    if (!link.empty()) next = std::min(next, link.next_completion());
  }
  if (!tree_.empty()) next = std::min(next, tree_.next_completion());
  if (!latency_.empty()) next = std::min(next, latency_.front().joins_at);
  return next;
}

void PlatformLinks::advance(std::int64_t now, std::vector<std::uint32_t>& ended) {
  for (auto& link : links_) {
    if (link.empty()) continue;
    link.advance(now, ended);
  }
  if (!tree_.empty()) {
    tree_.advance(now);
    tree_.take_completed(ended);
  }
  if (engines_ > 0) {
    // An engine freed now takes its node's next transfer, which starts its latency now.
    for (const std::uint32_t transfer : ended) {
      if (transfer >= engine_of_.size() || engine_of_[transfer] == kNoQueue) continue;
      const std::uint32_t engine = engine_of_[transfer];
      engine_of_[transfer] = kNoQueue;
      auto& waiting = engine_waiting_[engine];
      if (waiting.empty()) {
        --engine_busy_[engine];
        continue;
      }
      const Waiting next = waiting.front();
      waiting.pop_front();
      begin(next.transfer, next.bytes, next.route, now);
    }
  }
  while (!latency_.empty() && latency_.front().joins_at <= now) {
    const Waiting waiting = latency_.front();
    latency_.pop_front();
    join(waiting.transfer, waiting.bytes, waiting.route, now);
  }
}

}  // namespace tilelens
