// Fluid sharing of a link; see channel.hpp.
#include "replay/channel.hpp"

#include <algorithm>
#include <cmath>

namespace tilelens {

namespace {
constexpr double kDoneBytes = 1e-3;  // below a thousandth of a byte a transfer is complete
}

void FluidChannel::advance(std::int64_t now) {
  if (now > now_ && !active_.empty()) {
    const double moved = static_cast<double>(now - now_) * bytes_per_ns_ / static_cast<double>(active_.size());
    for (auto& a : active_) a.remaining -= moved;
  }
  now_ = std::max(now_, now);
}

void FluidChannel::add(std::uint32_t transfer, double bytes, std::int64_t now) {
  advance(now);
  active_.push_back({transfer, bytes});
}

std::int64_t FluidChannel::next_completion() const {
  if (active_.empty()) return kNever;
  double least = active_.front().remaining;
  for (const auto& a : active_) least = std::min(least, a.remaining);
  if (least <= kDoneBytes) return now_;
  const double ns = least * static_cast<double>(active_.size()) / bytes_per_ns_;
  return now_ + std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(ns - 1e-9)));
}

void FluidChannel::take_completed(std::vector<std::uint32_t>& done) {
  auto keep = active_.begin();
  for (auto it = active_.begin(); it != active_.end(); ++it) {
    if (it->remaining <= kDoneBytes) done.push_back(it->transfer);
    else *keep++ = *it;
  }
  active_.erase(keep, active_.end());
}

}  // namespace tilelens
