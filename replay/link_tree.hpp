// Links shared by transfers that cross several of them (the PCIe tree of a multi-GPU node:
// a GPU's own link, then its switch's upstream link, then the host). Each transfer gets its
// max-min fair rate (progressive filling): the most contended link is filled first, equally
// among its transfers, and their rates are then fixed on every other link they cross. On a
// path of one link this is FluidLink's equal sharing. Time is integer nanoseconds;
// completions are rounded up to the next nanosecond.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace tilelens {

class LinkTree {
 public:
  static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  static constexpr std::size_t kMaxPath = 4;
  struct Path {
    std::array<std::uint32_t, kMaxPath> links{};
    std::uint32_t length = 0;
  };

  std::uint32_t add_link(double bytes_per_second);
  // Moves every transfer forward to `now`; call before any change at that instant.
  void advance(std::int64_t now);
  void add(std::uint32_t transfer, double bytes, const Path& path, std::int64_t now);
  std::int64_t next_completion() const;
  // Appends the transfers that are done at the current instant, removes them, re-shares.
  void take_completed(std::vector<std::uint32_t>& done);
  bool empty() const { return active_.empty(); }
  double rate_of(std::uint32_t transfer) const;  // bytes per ns, for tests

 private:
  struct Active {
    std::uint32_t transfer;
    double remaining;
    Path path;
    double rate = 0;  // bytes per ns
  };
  void share();
  std::vector<double> capacity_;  // bytes per ns, per link
  std::vector<Active> active_;
  std::int64_t now_ = 0;
};

}  // namespace tilelens
