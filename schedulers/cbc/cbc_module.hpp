// The CBC module's interface: libtilelens_cbc.so holds the optimum's integer program and links
// CBC (coinor-libcbc-dev) with its six libraries; solve_optimum_ilp (optimum_ilp.cpp) loads it
// on first use, so that only `tilelens bench optimum --cbc` and the tests that compare CBC with
// the search load CBC. It exports one C function, kCbcModuleEntry, returning this table.
#pragma once

#include <cstddef>
#include <cstdint>

#include "schedulers/optimum_ilp.hpp"
#include "util/loadable_module.hpp"

namespace tilelens {

// Bumped whenever this table or the types it passes change meaning.
inline constexpr std::uint32_t kCbcModuleVersion = 1;
inline constexpr const char* kCbcModuleEntry = "tilelens_cbc_module";
inline constexpr const char* kCbcModuleFile = "libtilelens_cbc.so";
inline constexpr std::uint64_t kCbcModuleLayout = layout_fingerprint({
    sizeof(OptimumProblem), offsetof(OptimumProblem, gpus), offsetof(OptimumProblem, tasks), offsetof(OptimumProblem, data),
    offsetof(OptimumProblem, memory), offsetof(OptimumProblem, needs), offsetof(OptimumProblem, reads), offsetof(OptimumProblem, preds),
    sizeof(OptimumIlpResult), offsetof(OptimumIlpResult, error), offsetof(OptimumIlpResult, loads), offsetof(OptimumIlpResult, lower_bound),
    offsetof(OptimumIlpResult, proven), offsetof(OptimumIlpResult, seconds), offsetof(OptimumIlpResult, columns),
    offsetof(OptimumIlpResult, rows)});

struct CbcModule {
  std::uint32_t version;
  std::uint64_t layout;  // kCbcModuleLayout in the module's build
  OptimumIlpResult (*solve)(const OptimumProblem&, double seconds);
};

}  // namespace tilelens

extern "C" {
using TilelensCbcModuleEntry = const tilelens::CbcModule* (*)();
}
