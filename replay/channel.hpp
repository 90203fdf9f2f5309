// A link whose bandwidth is shared fluidly (equally) between the transfers on it at each
// instant: the host bus and the GPU-to-GPU links of the replay (DESIGN section 1). Time is
// integer nanoseconds; completions are rounded up to the next nanosecond.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace tilelens {

class FluidChannel {
 public:
  static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

  explicit FluidChannel(double bytes_per_second = 1) : bytes_per_ns_(bytes_per_second * 1e-9) {}

  // Moves every transfer forward to `now`; call before any change at that instant.
  void advance(std::int64_t now);
  void add(std::uint32_t transfer, double bytes, std::int64_t now);
  std::int64_t next_completion() const;
  // Appends the transfers that are done at the current instant and removes them.
  void take_completed(std::vector<std::uint32_t>& done);
  bool empty() const { return active_.empty(); }
  std::size_t size() const { return active_.size(); }

 private:
  struct Active {
    std::uint32_t transfer;
    double remaining;
  };
  double bytes_per_ns_;
  std::int64_t now_ = 0;
  std::vector<Active> active_;
};

}  // namespace tilelens
