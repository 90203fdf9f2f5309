// How a run's platform is chosen: a preset or a platform file, then the options a user gives
// on top of it (more GPUs, another memory, a slower bus...). One table of these options,
// platform_options(), serves every request that names a platform (replay, sweep, execute):
// each front end reads its values there (the CLI's flags, the GUI's fields) and never
// keeps its own list.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"
#include "model/units.hpp"

namespace tilelens::core {

// A compute rate for every kind without its own, and per-kind rates ("13393GFlop/s" or
// "POTRF=2TFlop/s,GEMM=20TFlop/s"); 0 means no kernel for that kind there.
struct RateChoice {
  std::optional<double> all;
  std::map<std::string, double> per_kind;
};

struct PcieChoice {
  std::uint32_t gpus_per_switch = 0;  // 0: no switch level
  double switch_bandwidth = 0;
  double gpu_bandwidth = 0;           // each GPU's own link; 0: none
};

struct PlatformChoice {
  std::string base = "v100-fgcs";  // a preset's name, or a platform file (tilelens calibrate writes one)
  std::optional<std::uint32_t> gpus;
  std::optional<SizeSpec> memory;  // bytes, or a count of the workload's largest data
  std::optional<double> bandwidth;  // host bus, bytes/s each direction
  std::optional<double> gpu_link;   // bytes/s; 0 for none
  std::optional<std::int64_t> latency_ns;
  std::optional<PcieChoice> pcie;
  std::optional<RateChoice> rate;
  std::optional<std::uint32_t> cpus;
  std::optional<RateChoice> cpu_rate;
  std::optional<std::uint32_t> workers_per_memory;
  std::optional<std::uint32_t> copy_engines;
  std::optional<bool> half_duplex;
  std::optional<std::vector<double>> worker_speeds;  // Platform::worker_speeds
  // Whether no option changes the base.
  bool empty() const {
    return !gpus && !memory && !bandwidth && !gpu_link && !latency_ns && !pcie && !rate && !cpus && !cpu_rate && !workers_per_memory &&
           !copy_engines && !half_duplex && !worker_speeds;
  }
};

// One option of the table: its name (the CLI's flag without dashes), the value it takes, what
// it does, and how its text sets a PlatformChoice. Errors name the option ("--memory: ...").
struct PlatformOption {
  const char* name;
  const char* value_name;
  const char* help;
  Status (*set)(std::string_view text, PlatformChoice& choice);
};
const std::vector<PlatformOption>& platform_options();
const PlatformOption* find_platform_option(std::string_view name);

// The base platform with every choice applied; memory given in items counts the workload's
// largest data. Checks the combination (CPU workers need a rate) and the whole platform against
// the workload (check_platform); errors about a platform file's platform name the file.
Result<Platform> resolve_platform(const PlatformChoice& choice, const Workload& workload);
// The same on top of a platform already known (a stored run's); choice.base is not read.
Result<Platform> apply_platform_choice(const PlatformChoice& choice, Platform platform, const Workload& workload);
// The base alone: a preset by name, or a platform file.
Result<Platform> base_platform(const std::string& base);

}  // namespace tilelens::core
