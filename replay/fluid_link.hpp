// A link whose bandwidth is shared fluidly (equally) between the transfers on it at each
// instant: the host bus and the GPU-to-GPU links of the replay (DESIGN section 1). Time is
// integer nanoseconds; completions are rounded up to the next nanosecond.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace tilelens {

// The smallest whole number of nanoseconds not below `ns` (std::ceil's result, inline: it is
// a library call on x86-64 without SSE4.1, and this is the hot path). A duration too long for
// int64 nanoseconds becomes a quarter of their range, so that adding it to a time cannot wrap.
inline std::int64_t ceil_ns(double ns) {
  if (!(ns < 2.3e18)) return std::numeric_limits<std::int64_t>::max() / 4;
  const auto whole = static_cast<std::int64_t>(ns);  // truncates toward zero
  return static_cast<double>(whole) < ns ? whole + 1 : whole;
}

class FluidLink {
 public:
  static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  static constexpr double kDoneBytes = 1e-3;  // below a thousandth of a byte a transfer is complete

  explicit FluidLink(double bytes_per_second = 1) : bytes_per_ns_(bytes_per_second * 1e-9) {}

  // Moves every transfer forward to `now` (no earlier than the last time), then appends the
  // transfers done at that instant and removes them.
  void advance(std::int64_t now, std::vector<std::uint32_t>& done) {
    const bool moves = now > now_ && !active_.empty();
    const double moved = moves ? static_cast<double>(now - now_) * bytes_per_ns_ / static_cast<double>(active_.size()) : 0;
    now_ = std::max(now_, now);
    double least = std::numeric_limits<double>::infinity();  // a local: the stores below may alias a member
    auto keep = active_.begin();
    for (auto it = active_.begin(); it != active_.end(); ++it) {
      // Field by field through locals: a whole-struct copy right after storing one field
      // defeats store forwarding, and this loop runs at every event.
      const std::uint32_t transfer = it->transfer;
      const double remaining = moves ? it->remaining - moved : it->remaining;
      if (remaining <= kDoneBytes) {
        done.push_back(transfer);
      } else {
        least = std::min(least, remaining);
        keep->transfer = transfer;
        keep->remaining = remaining;
        ++keep;
      }
    }
    active_.erase(keep, active_.end());
    least_ = least;
  }
  void add(std::uint32_t transfer, double bytes, std::int64_t now) {
    if (now > now_ && !active_.empty()) {  // the others move first (the smallest stays the smallest)
      const double moved = static_cast<double>(now - now_) * bytes_per_ns_ / static_cast<double>(active_.size());
      for (auto& a : active_) a.remaining -= moved;
      least_ -= moved;
    }
    now_ = std::max(now_, now);
    active_.push_back({transfer, bytes});
    least_ = std::min(least_, bytes);
  }
  std::int64_t next_completion() const {
    if (active_.empty()) return kNever;
    if (least_ <= kDoneBytes) return now_;
    const double ns = least_ * static_cast<double>(active_.size()) / bytes_per_ns_;
    return now_ + std::max<std::int64_t>(1, ceil_ns(ns - 1e-9));
  }
  bool empty() const { return active_.empty(); }
  double bytes_per_ns() const { return bytes_per_ns_; }
  std::size_t size() const { return active_.size(); }

 private:
  struct Active {
    std::uint32_t transfer;
    double remaining;
  };
  double bytes_per_ns_;
  std::int64_t now_ = 0;
  double least_ = std::numeric_limits<double>::infinity();  // the smallest remaining, kept as transfers change
  std::vector<Active> active_;
};

}  // namespace tilelens
