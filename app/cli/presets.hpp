// Named sweeps that reproduce the papers' experiments in replay (`tilelens sweep --preset
// fgcs-fig5`), and what the papers report for them, so that `tilelens results` can print the
// replay next to the paper. Each policy is a sweep entry "SCHEDULER/EVICTION[+time]".
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilelens::cli {

// One entry of `sweep --scheduler`: "SPEC[/EVICTION][+time]", the eviction pinned for this
// entry (else the --eviction list applies) and its prepare() time charged. Not checked here.
struct PolicyEntry {
  std::string scheduler;
  std::optional<std::string> eviction;
  bool charged = false;
};
PolicyEntry parse_policy_entry(std::string text);

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

}  // namespace tilelens::cli
