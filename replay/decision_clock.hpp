// The wall clocks of the replay's accounting of its own decisions: a cheap tick counter (the
// TSC on x86-64, steady_clock elsewhere) and DecisionClock, which charges the wall time of one
// kind of decision to a total, sampling the calls while they prove fast. Internal to replay/.
#pragma once

#include <chrono>
#include <cstdint>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace tilelens::replay_detail {

// A cheap wall clock for the scheduling-time accounting: the TSC on x86-64 (a few ns per
// read, calibrated once per process against steady_clock over 200 us: two clock reads of some
// tens of ns each leave the ratio within 0.05%, and a process that replays a Cholesky of N = 40
// in 40 ms no longer spends 2 ms calibrating), steady_clock elsewhere.
#if defined(__x86_64__)
inline std::uint64_t wall_ticks() { return __rdtsc(); }
inline double ns_per_tick() {
  static const double ratio = [] {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t c0 = __rdtsc();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::microseconds(200)) {
    }
    const auto t1 = std::chrono::steady_clock::now();
    const std::uint64_t c1 = __rdtsc();
    return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) /
           static_cast<double>(c1 - c0);
  }();
  return ratio;
}
#else
inline std::uint64_t wall_ticks() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}
inline double ns_per_tick() { return 1.0; }
#endif

// Charges the wall time of one kind of decision (the scheduler's pops, the policy's victim
// searches, ...) to a total, in TSC ticks. Reading the clock twice costs about as much as a
// fast decision (a pop of EAGER), and more than the rest of the engine's work for a task, so
// while the calls prove fast, one call in kSample is timed and counts kSample times; a slow
// sampled call, or a slow average, brings back timing every call. Slow schedulers (HFP's Ready,
// DARTS) are thus timed call by call, and fast ones estimated within a few percent.
class DecisionClock {
 public:
  template <class F>
  auto operator()(F&& call) {
    if (skip_ > 0) {
      --skip_;
      last_ = -1;
      return call();
    }
    struct Charge {
      DecisionClock& clock;
      std::uint64_t begin;
      ~Charge() {
        clock.last_ = static_cast<std::int64_t>(wall_ticks() - begin);
        clock.charge(clock.last_);
      }
    } charge{*this, wall_ticks()};
    return call();
  }
  std::int64_t ticks() const { return total_; }
  // The ticks the last call took, or -1 when it was not timed (sampling).
  std::int64_t last_ticks() const { return last_; }

 private:
  static constexpr std::int64_t kSample = 16;
  static constexpr std::int64_t kFastTicks = 400;  // about 150 ns
  static constexpr std::int64_t kWindow = 64;       // calls timed before deciding to sample

  void charge(std::int64_t ticks) {
    if (sampling_) {
      total_ += ticks * kSample;
      if (ticks > 4 * kFastTicks) {
        sampling_ = false;  // a slow call: time every call again
        window_calls_ = window_ticks_ = 0;
      } else {
        skip_ = kSample - 1;
      }
      return;
    }
    total_ += ticks;
    window_ticks_ += ticks;
    if (++window_calls_ < kWindow) return;
    sampling_ = window_ticks_ < kFastTicks * kWindow;
    if (sampling_) skip_ = kSample - 1;
    window_calls_ = window_ticks_ = 0;
  }

  std::int64_t total_ = 0;
  std::int64_t last_ = -1;
  std::int64_t skip_ = 0;
  bool sampling_ = false;
  std::int64_t window_calls_ = 0, window_ticks_ = 0;
};

}  // namespace tilelens::replay_detail
