// Which data sit in each GPU's memory over time; see residency.hpp.
#include "analysis/residency.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace tilelens {

std::vector<Residency> residencies(const Trace& trace, std::int64_t end_ns) {
  enum Kind : std::uint8_t { Evict, Load, Allocate };  // evictions first at one instant
  struct Event {
    std::int64_t time;
    Kind kind;
    std::uint32_t index;
  };
  std::vector<Event> events;
  events.reserve(trace.loads.size() + trace.allocations.size() + trace.evictions.size());
  for (std::uint32_t i = 0; i < trace.loads.size(); ++i) events.push_back({trace.loads[i].issue_ns, Load, i});
  for (std::uint32_t i = 0; i < trace.allocations.size(); ++i) events.push_back({trace.allocations[i].time_ns, Allocate, i});
  for (std::uint32_t i = 0; i < trace.evictions.size(); ++i) events.push_back({trace.evictions[i].time_ns, Evict, i});
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return std::tie(a.time, a.kind) < std::tie(b.time, b.kind); });

  std::vector<Residency> stays;
  std::map<std::pair<GpuId, DataId>, std::size_t> open;  // (gpu, data) -> its stay in `stays`
  for (const Event& event : events) {
    if (event.kind == Evict) {
      const EvictionRecord& eviction = trace.evictions[event.index];
      const auto key = std::pair{eviction.gpu, eviction.data};
      auto it = open.find(key);
      if (it == open.end()) {
        // The trace began with the datum there (an import cut at its start): a stay from 0.
        stays.push_back({eviction.data, eviction.gpu, 0, 0, end_ns, kNoRecord, kNoRecord, kNoRecord});
        it = open.emplace(key, stays.size() - 1).first;
      }
      Residency& stay = stays[it->second];
      stay.until_ns = std::max(eviction.time_ns, stay.resident_ns);
      stay.eviction = event.index;
      open.erase(it);
      continue;
    }
    Residency stay{};
    if (event.kind == Load) {
      const LoadRecord& load = trace.loads[event.index];
      stay = {load.data, load.gpu, load.issue_ns, std::max(load.issue_ns, load.end_ns), end_ns, event.index, kNoRecord, kNoRecord};
    } else {
      const AllocationRecord& allocation = trace.allocations[event.index];
      stay = {allocation.data, allocation.gpu, allocation.time_ns, allocation.time_ns, end_ns, kNoRecord, event.index, kNoRecord};
    }
    stay.until_ns = std::max(stay.until_ns, stay.resident_ns);
    // A second arrival without an eviction between (a record lost in an import) ends the first.
    const auto key = std::pair{stay.gpu, stay.data};
    if (const auto it = open.find(key); it != open.end()) stays[it->second].until_ns = std::max(stays[it->second].resident_ns, stay.from_ns);
    stays.push_back(stay);
    open[key] = stays.size() - 1;
  }
  std::stable_sort(stays.begin(), stays.end(), [](const Residency& a, const Residency& b) { return std::tie(a.gpu, a.from_ns) < std::tie(b.gpu, b.from_ns); });
  return stays;
}

}  // namespace tilelens
