// Hierarchical Fair Packing (fgcs section 4.4, Algorithm 5; REFERENCE.md "HFP packing"):
// the packing itself, exposed for the scheduler, the tests, the benchmark and the app.
//
// Packages start as single tasks. Each round, only the packages with the fewest tasks act:
// the round's maximum shared weight is taken over their pairs with any other package (in
// phase 1 only pairs whose union fits in M), and every smallest package whose best partner
// reaches that maximum merges with its first such partner (partner appended after it); a
// package merges at most once per round. Phase 1 ends when that maximum is 0; phase 2 goes
// on without the memory bound; packages that share nothing go to the non-connected list,
// appended at the very end. With K GPUs packing stops at K packages.
//
// Speed (issue 4, "HFP must be fast"): instead of the paper's all-pairs intersections, each
// data keeps the list of packages that read it, so a package's weights to every other package
// cost the sum over its data of those lists; each package caches its best partner, and a
// merge invalidates only the packages sharing data with the merged one. The union test uses
// weight(Pi) + weight(Pj) - shared(Pi, Pj), so no union is built to test it.
#pragma once

#include <cstdint>
#include <vector>

#include "model/model.hpp"

namespace tilelens {

struct HfpOptions {
  double memory_bytes = 0;  // M
  std::uint32_t packages = 1;  // K: stop at this many packages (one per GPU)
  bool flip = true;         // package flipping (fgcs Fig. 3)
  bool fast_start = false;  // first round: pair tasks sharing any data, no maximum search
  bool weighted = true;     // shared weight in bytes (heterogeneous sizes); false: data count
  // Phase 1's partner: false (the paper, Algorithm 5 lines 27-28) takes the partner sharing
  // the most among the packages not merged this round, and merges only if their union fits;
  // true only considers partners whose union fits (tilelens before issue 19).
  bool fitting_partner = false;
  // Flipping's sub-packages of a package whose inputs fit in M: false, the whole package (the
  // longest head and tail that fit); true, the two packages merged to build it (the 2021
  // report's rule (c)).
  bool flip_constituents = false;
};

struct HfpPacking {
  // The final packages in order, one per GPU (fewer when the tasks cannot fill K).
  std::vector<std::vector<TaskId>> packages;
  // The packages as they were when phase 1 ended (each fits in M unless a single task does
  // not), in package order; empty if packing stopped at K packages before phase 1 ended.
  std::vector<std::vector<TaskId>> phase1_packages;
  std::uint64_t rounds = 0, merges = 0, flips = 0;
  // Searches of a package's best partner (each sums its inputs' reader lists): what fast start
  // spares in the first round.
  std::uint64_t partner_searches = 0;
  std::size_t non_connected_tasks = 0;
};

HfpPacking hfp_pack(const Workload& workload, const HfpOptions& options);

}  // namespace tilelens
