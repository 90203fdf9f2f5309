// The papers' experiments as named sweeps (`tilelens sweep --preset fgcs-fig5`), and what the
// papers report for them, so that `tilelens results` can print the replay next to the paper.
// Each policy is a sweep entry "SCHEDULER/EVICTION[+time]" (core/sweep.hpp reads them).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tilelens {

struct PresetPolicy {
  std::string label;  // as the paper's legend names it: "EAGER", "HFP", "HFP only flip", ...
  std::string entry;  // the sweep entry: "eager/lru", "hfp/belady", "hfp:fast_start=1/belady+time"
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
};

const std::vector<SweepPreset>& sweep_presets();
const SweepPreset* find_sweep_preset(const std::string& name);
// "eager/lru,hfp/belady,..." as `sweep --scheduler` takes it.
std::string scheduler_option(const SweepPreset& preset);

}  // namespace tilelens
