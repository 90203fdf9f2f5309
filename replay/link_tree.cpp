// Max-min fair sharing of a tree of links; see link_tree.hpp.
#include "replay/link_tree.hpp"

#include "replay/fluid_link.hpp"

#include <algorithm>
#include <cmath>

namespace tilelens {
namespace {
constexpr double kDoneBytes = 1e-3;  // as FluidLink
}

std::uint32_t LinkTree::add_link(double bytes_per_second) {
  capacity_.push_back(bytes_per_second * 1e-9);
  return static_cast<std::uint32_t>(capacity_.size() - 1);
}

void LinkTree::advance(std::int64_t now) {
  if (now > now_) {
    const auto elapsed = static_cast<double>(now - now_);
    for (auto& a : active_) a.remaining -= elapsed * a.rate;
  }
  now_ = std::max(now_, now);
}

void LinkTree::add(std::uint32_t transfer, double bytes, const Path& path, std::int64_t now) {
  advance(now);
  active_.push_back({transfer, bytes, path, 0});
  share();
}

void LinkTree::share() {
  std::vector<double> left = capacity_;
  std::vector<std::uint32_t> users(capacity_.size(), 0);
  std::vector<char> fixed(active_.size(), 0);
  for (const auto& a : active_) {
    for (std::uint32_t k = 0; k < a.path.length; ++k) ++users[a.path.links[k]];
  }
  std::size_t remaining = active_.size();
  while (remaining > 0) {
    // The bottleneck: the link whose leftover capacity per unfixed transfer is the smallest
    // (the lowest index on ties, so the result does not depend on the order of the search).
    std::uint32_t bottleneck = 0;
    double share = std::numeric_limits<double>::infinity();
    for (std::uint32_t l = 0; l < capacity_.size(); ++l) {
      if (users[l] == 0) continue;
      const double each = left[l] / users[l];
      if (each < share) {
        share = each;
        bottleneck = l;
      }
    }
    for (std::size_t i = 0; i < active_.size(); ++i) {
      if (fixed[i]) continue;
      auto& a = active_[i];
      const auto begin = a.path.links.begin();
      const auto end = begin + a.path.length;
      if (std::find(begin, end, bottleneck) == end) continue;
      a.rate = share;
      fixed[i] = 1;
      --remaining;
      for (std::uint32_t k = 0; k < a.path.length; ++k) {
        left[a.path.links[k]] = std::max(0.0, left[a.path.links[k]] - share);
        --users[a.path.links[k]];
      }
    }
  }
}

std::int64_t LinkTree::next_completion() const {
  std::int64_t next = kNever;
  for (const auto& a : active_) {
    if (a.remaining <= kDoneBytes) return now_;
    if (a.rate <= 0) continue;
    const double ns = a.remaining / a.rate;
    next = std::min(next, now_ + std::max<std::int64_t>(1, ceil_ns(ns - 1e-9)));
  }
  return next;
}

void LinkTree::take_completed(std::vector<std::uint32_t>& done) {
  const std::size_t before = active_.size();
  auto keep = active_.begin();
  for (auto it = active_.begin(); it != active_.end(); ++it) {
    if (it->remaining <= kDoneBytes) done.push_back(it->transfer);
    else *keep++ = *it;
  }
  active_.erase(keep, active_.end());
  if (active_.size() != before) share();
}

double LinkTree::rate_of(std::uint32_t transfer) const {
  for (const auto& a : active_) {
    if (a.transfer == transfer) return a.rate;
  }
  return 0;
}

}  // namespace tilelens
