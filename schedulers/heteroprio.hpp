// Heteroprio and locality-aware Heteroprio (lahp: Bramas, PeerJ CS 2019), the parts that are
// pure functions of their inputs, exposed for the scheduler (heteroprio.cpp) and for the
// table-driven tests of the paper's examples:
//   - the buckets and each architecture's priority order over them, with the speedup factors
//     that keep slow workers off a bucket (lahp "Multi-priorities", "Speedup factors");
//   - the data locality affinity formulas that pick the memory node of a newly ready task
//     (lahp Eqs. 6-9, Table 1), and AUTO's choice by best memory node difference;
//   - the distance between memory nodes (Eqs. 10-12, Table 2) and the order in which a
//     worker walks the grid of task lists (subgroups S and locality step l, Table 3).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace tilelens::heteroprio {

enum class Arch : std::uint8_t { Cpu = 0, Gpu = 1 };

// One bucket per task kind. order[arch] lists the buckets that architecture can run, first
// the one it takes first. Derived from the platform's rates: GPUs take first the kinds they
// accelerate most (speedup = GPU rate / CPU rate), CPUs the kinds GPUs accelerate least.
struct Buckets {
  std::array<std::vector<std::uint32_t>, 2> order;
  std::vector<Arch> fastest;       // per bucket
  std::vector<double> slow_factor;  // per bucket: how much faster the fastest architecture is
};
Buckets derive_buckets(const Workload& workload, const Platform& platform);

// lahp "Speedup factors": a worker not of the bucket's fastest architecture takes one of its
// tasks only when the bucket holds at least N_fast x slow_factor tasks (StarPU compares
// tasks / N_fast with the factor, the same rule).
bool slow_worker_may_take(std::size_t tasks_in_bucket, std::uint32_t fast_workers, double slow_factor);

// Data locality affinity formulas (lahp "Task insertion in the grid").
enum class Formula : std::uint8_t { LsSdh, LsSdh2, LsSdhb, LcSmwb };
inline constexpr std::array<Formula, 4> kAutoFormulas = {Formula::LsSdh, Formula::LsSdh2, Formula::LsSdhb, Formula::LcSmwb};
const char* to_string(Formula formula);

struct TaskDatum {
  double bytes = 0;
  bool write = false;          // accessed in W or RW mode (StarPU: anything but R)
  std::uint64_t on_nodes = 0;  // bit m: a valid copy is on memory node m
};
// The memory nodes (of `nodes`, at most 64) with the best score for the task: LS_SDH the most
// bytes hosted; LS_SDH2 the read bytes plus the squares of the written ones; LS_SDHB the read
// bytes plus theta x (written data count) x (written bytes), data present on every node left
// out; LC_SMWB the fewest bytes to move, written ones weighted by 2 - |W| / |data|.
std::vector<std::uint32_t> best_nodes(Formula formula, std::span<const TaskDatum> data, std::uint32_t nodes, double theta = 1000);

// AUTO (lahp "Automatic DLAF selection"): each formula's node is kept at push and compared
// with its node at pop; a difference counts against the formula (its BMD). Pushes use the
// formula with the fewest differences; ties keep the one in use, else the first. Starts
// with LS_SDHB, as StarPU does.
class AutoSelector {
 public:
  Formula current() const { return kAutoFormulas[current_]; }
  std::size_t current_index() const { return current_; }  // into kAutoFormulas
  void record(const std::array<std::uint32_t, 4>& at_push, const std::array<std::uint32_t, 4>& at_pop);
  const std::array<std::uint64_t, 4>& differences() const { return differences_; }

 private:
  std::array<std::uint64_t, 4> differences_{};
  std::size_t current_ = 2;
};

// Eq. 11's fraction for two priority arrays (bucket taken at each rank, first taken first):
// sum over ranks of |bucket_i - bucket_j|, a rank beyond an array counting 0, over
// (P + 1)(P + 2) / 2 with P the longer length. lahp's distance is 1 minus it.
double priority_difference(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b);

// Eq. 12: distance(i, j) = (1 - priority difference) x alpha + transfer distance x (1 - alpha),
// transfer distances normalized by the largest.
std::vector<std::vector<double>> node_distances(const std::vector<std::vector<double>>& transfer,
                                                const std::vector<std::vector<std::uint32_t>>& node_priorities, double alpha);

struct AccessItem {
  std::uint32_t rank;  // index into the worker's architecture priority order
  std::uint32_t node;
  bool operator==(const AccessItem&) const = default;
};
// The walk of a worker of memory node `node` over the grid (lahp "Memory node subgroups", as
// StarPU builds it): blocks of `step` ranks, each first on its own node then on its S closest
// nodes rank by rank; then the remaining nodes rank by rank. Closest by distance, ties to the
// lower node.
std::vector<AccessItem> access_order(std::uint32_t node, const std::vector<std::vector<double>>& distance, std::uint32_t ranks,
                                     std::uint32_t closest, std::uint32_t step);

}  // namespace tilelens::heteroprio
