// Which data sit in each GPU's memory over time (StarVZ's memory panel, Nsight's memory rows):
// one interval per stay of a datum on a GPU, from the room taken (a load issued, an output
// allocated) through its arrival to the room given back (its eviction), with the records that
// opened and closed it, so a view can say why it came and why it left.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/trace.hpp"

namespace tilelens {

inline constexpr std::uint32_t kNoRecord = kNoId;

struct Residency {
  DataId data;
  GpuId gpu;
  std::int64_t from_ns;      // room taken: the load's issue, the allocation, or 0 when the trace begins with it there
  std::int64_t resident_ns;  // the data there: the load's arrival (from_ns for an allocation)
  std::int64_t until_ns;     // room given back: its eviction, or `end_ns` when it stayed to the end
  std::uint32_t load;        // index in trace.loads; kNoRecord for an allocation or a stay the trace began with
  std::uint32_t allocation;  // index in trace.allocations; kNoRecord otherwise
  std::uint32_t eviction;    // index in trace.evictions; kNoRecord when it stayed
};

// Every stay, by GPU then by the time its room was taken. An eviction closes the open stay of
// its datum on its GPU; at one instant evictions come first (room given back for a load).
std::vector<Residency> residencies(const Trace& trace, std::int64_t end_ns);

}  // namespace tilelens
