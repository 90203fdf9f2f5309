// The one random number generator of tilelens. Every random choice (workload generators,
// RANDOM order, tie-breaks) draws from an Rng built from an explicit seed, so a run is
// reproducible bit for bit on any platform: the algorithms below are fixed here instead of
// relying on the standard library's implementation-defined distributions and shuffles.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace tilelens {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    // splitmix64 spreads any seed (0 included) over the xoshiro256** state.
    for (auto& word : state_) {
      seed += 0x9E3779B97F4A7C15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      word = z ^ (z >> 31);
    }
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform integer in [0, bound), bound > 0, without modulo bias (rejection sampling).
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    std::uint64_t draw = next();
    while (draw >= limit) draw = next();
    return draw % bound;
  }

  // Uniform double in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  template <class T>
  void shuffle(std::vector<T>& items) {
    for (std::size_t i = items.size(); i > 1; --i) {
      std::swap(items[i - 1], items[below(i)]);
    }
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4]{};
};

}  // namespace tilelens
