// The papers' experiments as named sweeps (`tilelens sweep --preset fgcs-fig5`), and what the
// papers report for them, so that `tilelens results` can print the replay next to the paper.
// Each policy is a sweep entry "SCHEDULER/EVICTION[+time]" (core/sweep.hpp reads them).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilelens {

struct PresetPolicy {
  std::string label;  // as the paper's legend names it: "EAGER", "HFP", "HFP only flip", ...
  std::string entry;  // the sweep entry: "eager/lru", "hfp/belady", "hfp:fast_start=1/belady+time"
};

// How an order-visualisation preset draws its runs (fgcs Figs. 8-10, 12, 13; darts Figs. 8, 9,
// 13): side by side, one per policy, as tile-order panels (app/gui/tile_figure.hpp).
struct OrderFigure {
  bool chunks = false;          // darts: colours per `chunk` tasks; fgcs: one fade per GPU
  std::uint32_t chunk = 1000;
  std::uint32_t first_panels = 0;  // only the first K outer iterations (darts Figs. 8, 9: 1 to 4); 0 for all
  bool per_gpu = false;            // one panel set per GPU (darts Fig. 13)
  bool loads = true;               // the load lines (fgcs); darts's figures show the order only
  std::vector<std::string> captions;  // per policy, the paper's sub-caption ("(a) DMDAR"); empty: the label
};

struct SweepPreset {
  std::string name;     // "fgcs-fig5"
  std::string figure;   // "fgcs Figs. 5 and 7"
  std::string title;    // what is measured
  std::string x_param;  // the varied parameter: "N" (of the workload) or "memory"
  std::vector<std::pair<std::string, std::string>> options;  // sweep options: workload, memory, platform, ...
  std::vector<PresetPolicy> policies;
  // fgcs Tables 1-6: HFP's average GFlop/s improvement over each reference, in percent, as
  // printed in the paper (empty where the paper gives no table).
  std::map<std::string, double> paper_improvement;
  std::string paper_claims;  // the paper's qualitative findings for this figure
  // The policy whose average improvement the results print, and over which references.
  std::string highlight = "HFP";
  std::vector<std::string> references = {"EAGER", "MST", "RCM", "DMDAR"};
  // Set for the order visualisations: the runs are drawn as the paper's tile-order figure.
  std::optional<OrderFigure> order_figure{};
  // lahp's speedups: each policy's mean time ratio against this one (SFA), where set.
  std::string speedup_over{};
  // lahp Figs. 6-8 E/F: print each run's BMD and AUTO's choices (scheduler counters).
  bool counters = false;
  // The optimum against the heuristics and the bound (preset optimum-gap): the results print
  // one row per workload and memory, in loads, with each one's gap to the optimum.
  bool optimum_gaps = false;
};

const std::vector<SweepPreset>& sweep_presets();
const SweepPreset* find_sweep_preset(const std::string& name);
// "eager/lru,hfp/belady,..." as `sweep --scheduler` takes it.
std::string scheduler_option(const SweepPreset& preset);

}  // namespace tilelens
