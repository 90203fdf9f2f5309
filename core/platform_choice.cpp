// The platform options and their resolution; see platform_choice.hpp.
#include "core/platform_choice.hpp"

#include "util/quoted.hpp"

#include <filesystem>
#include <sstream>

#include "formats/platform_io.hpp"
#include "presets/platforms.hpp"
#include "util/quoted.hpp"

namespace tilelens::core {
namespace {

Status option_error(const char* name, const std::string& message) { return field_error(name, message); }

Result<std::uint32_t> whole_number(std::string_view text, std::int64_t lowest, std::int64_t highest) {
  auto value = parse_integer(text);
  if (!value || *value < lowest || *value > highest) return make_error("");
  return static_cast<std::uint32_t>(*value);
}

// "RATE" for every kind, "KIND=RATE" for one, comma-separated; "0" is no kernel.
Status set_rates(const char* option, std::string_view text, std::optional<RateChoice>& into) {
  RateChoice rates = into.value_or(RateChoice{});
  std::stringstream list{std::string(text)};
  std::string item;
  while (std::getline(list, item, ',')) {
    const auto equal = item.find('=');
    const std::string value = equal == std::string::npos ? item : item.substr(equal + 1);
    auto rate = value == "0" ? Result<double>(0.0) : parse_gflops(value);
    if (!rate) return option_error(option, rate.error().message);
    if (equal == std::string::npos) rates.all = *rate;
    else rates.per_kind[item.substr(0, equal)] = *rate;
  }
  into = std::move(rates);
  return Status::success();
}

Status set_gpus(std::string_view text, PlatformChoice& c) {
  auto gpus = whole_number(text, 1, kMaxWorkers);
  if (!gpus) return field_error("gpus", "must be a whole number from 1 to " + std::to_string(kMaxWorkers) + " (got " + quote_input(text) + ")");
  c.gpus = *gpus;
  return Status::success();
}

Status set_memory(std::string_view text, PlatformChoice& c) {
  auto memory = parse_memory(text);
  if (!memory) return option_error("memory", memory.error().message);
  c.memory = *memory;
  return Status::success();
}

Status set_bandwidth(std::string_view text, PlatformChoice& c) {
  auto bandwidth = parse_bandwidth(text);
  if (!bandwidth) return option_error("bandwidth", bandwidth.error().message);
  c.bandwidth = *bandwidth;
  return Status::success();
}

Status set_gpu_link(std::string_view text, PlatformChoice& c) {
  if (text == "0") {
    c.gpu_link = 0;
    return Status::success();
  }
  auto link = parse_bandwidth(text);
  if (!link) return option_error("gpu-link", link.error().message);
  c.gpu_link = *link;
  return Status::success();
}

Status set_latency(std::string_view text, PlatformChoice& c) {
  auto latency = parse_duration_ns(text);
  if (!latency) return option_error("latency", latency.error().message);
  c.latency_ns = *latency;
  return Status::success();
}

Status set_pcie(std::string_view view, PlatformChoice& c) {
  const std::string text(view);
  const auto first = text.find(':'), second = text.find(':', first == std::string::npos ? 0 : first + 1);
  if (first == std::string::npos || second == std::string::npos) {
    return field_error("pcie", "expected GPUS_PER_SWITCH:SWITCH_RATE:GPU_RATE, as 2:22GB/s:12GB/s (got '" + text + "')");
  }
  auto per_switch = parse_integer(text.substr(0, first));
  const std::string switch_text = text.substr(first + 1, second - first - 1), gpu_text = text.substr(second + 1);
  auto switch_rate = switch_text == "0" ? Result<double>(0.0) : parse_bandwidth(switch_text);
  auto gpu_rate = gpu_text == "0" ? Result<double>(0.0) : parse_bandwidth(gpu_text);
  if (!per_switch || *per_switch < 0 || *per_switch > kMaxWorkers) {
    return field_error("pcie", "GPUs per switch must be 0 to " + std::to_string(kMaxWorkers) + " (got " + quote_input(text) + ")");
  }
  if (!switch_rate) return field_error("pcie", "switch bandwidth: " + switch_rate.error().message);
  if (!gpu_rate) return field_error("pcie", "GPU link bandwidth: " + gpu_rate.error().message);
  if ((*per_switch > 0) != (*switch_rate > 0)) return field_error("pcie", "a switch needs both a GPU count and a bandwidth (got '" + text + "')");
  c.pcie = PcieChoice{static_cast<std::uint32_t>(*per_switch), *switch_rate, *gpu_rate};
  return Status::success();
}

Status set_rate(std::string_view text, PlatformChoice& c) { return set_rates("rate", text, c.rate); }
Status set_cpu_rate(std::string_view text, PlatformChoice& c) { return set_rates("cpu-rate", text, c.cpu_rate); }

Status set_cpus(std::string_view text, PlatformChoice& c) {
  auto cpus = whole_number(text, 0, kMaxWorkers);
  if (!cpus) return field_error("cpus", "must be a whole number from 0 to " + std::to_string(kMaxWorkers) + " (got " + quote_input(text) + ")");
  c.cpus = *cpus;
  return Status::success();
}

Status set_workers_per_memory(std::string_view text, PlatformChoice& c) {
  auto per = whole_number(text, 1, kMaxWorkers);
  if (!per) {
    return field_error("workers-per-memory", "must be a whole number from 1 to " + std::to_string(kMaxWorkers) + " (got " + quote_input(text) + ")");
  }
  c.workers_per_memory = *per;
  return Status::success();
}

Status set_copy_engines(std::string_view text, PlatformChoice& c) {
  auto engines = whole_number(text, 0, kMaxCopyEngines);
  if (!engines) {
    return field_error("copy-engines", "must be a whole number from 0 (a shared bus) to " + std::to_string(kMaxCopyEngines) + " (got '" +
                      std::string(text) + "')");
  }
  c.copy_engines = *engines;
  return Status::success();
}

Status set_half_duplex(std::string_view text, PlatformChoice& c) {
  if (text != "0" && text != "1") return field_error("half-duplex", "is 1 (one channel for both directions) or 0 (got '" + std::string(text) + "')");
  c.half_duplex = text == "1";
  return Status::success();
}

Status set_worker_speeds(std::string_view text, PlatformChoice& c) {
  auto speeds = parse_worker_speeds(text);
  if (!speeds) return field_error("worker-speeds", speeds.error().message);
  c.worker_speeds = std::move(*speeds);
  return Status::success();
}

void apply_rates(const RateChoice& rates, double& all, std::map<std::string, double>& per_kind) {
  if (rates.all) all = *rates.all;
  for (const auto& [kind, rate] : rates.per_kind) per_kind[kind] = rate;
}

}  // namespace

const std::vector<PlatformOption>& platform_options() {
  static const std::vector<PlatformOption> options = {
      {"gpus", "K", "number of GPUs", set_gpus},
      {"memory", "SIZE", "memory per GPU: 500MiB, 2GB, or a count of data items: 4items", set_memory},
      {"bandwidth", "RATE", "host bus bandwidth, each direction: 12GB/s", set_bandwidth},
      {"gpu-link", "RATE", "GPU-to-GPU link bandwidth (0 for none)", set_gpu_link},
      {"latency", "TIME", "latency added to each transfer: 10us", set_latency},
      {"pcie", "N:SWITCH:GPU",
       "PCIe tree: N GPUs per switch of SWITCH bandwidth, GPU's own link: 2:22GB/s:12GB/s (0:0:12GB/s: no switch)", set_pcie},
      {"rate", "[KIND=]RATE,...", "compute rate, for all kinds or per kind: 13393GFlop/s or POTRF=2TFlop/s; 0 = no GPU kernel", set_rate},
      {"cpus", "N", "CPU workers computing from host memory (Heteroprio, LAHeteroprio and DMDA* use them)", set_cpus},
      {"cpu-rate", "[KIND=]RATE,...", "compute rate of one CPU worker, as --rate; 0 = no CPU kernel", set_cpu_rate},
      {"workers-per-memory", "N", "GPU workers sharing one memory (the shared-memory multicore of darts 7.3)", set_workers_per_memory},
      {"copy-engines", "N", "host transfers of a direction a memory moves at once, in start order (a GPU's copy engines); 0 = all, sharing the bus", set_copy_engines},
      {"half-duplex", "0|1", "1: loads and write-backs share one channel (a disk)", set_half_duplex},
      {"worker-speeds", "S,S,...", "one factor per worker on its kernels' rates (a measured run's uneven workers; schedulers' estimates ignore it): 0.6,1", set_worker_speeds},
  };
  return options;
}

const PlatformOption* find_platform_option(std::string_view name) {
  for (const auto& option : platform_options()) {
    if (name == option.name) return &option;
  }
  return nullptr;
}

namespace {

bool names_a_file(const std::string& base) {
  std::error_code file_error;
  return std::filesystem::is_regular_file(base, file_error) || base.ends_with(".json");
}

}  // namespace

Result<Platform> base_platform(const std::string& base) {
  auto platform = names_a_file(base) ? load_platform_file(base) : find_platform_preset(base);
  if (!platform) return field_error("platform", platform.error().message);
  return platform;
}

// A platform file can be well formed and still describe no machine this workload runs on (3 GPUs
// in memories of 2, CPUs without a rate, a memory smaller than a task): the checks of the whole
// platform name the file, since the user will look there.
Result<Platform> resolve_platform(const PlatformChoice& choice, const Workload& workload) {
  auto platform = base_platform(choice.base);
  if (!platform) return platform;
  const bool from_file = names_a_file(choice.base);
  const auto named = [&](const Error& error) -> Error {
    if (!from_file) return error;
    return field_error("platform", choice.base + (choice.empty() ? "" : " (with the options given)") + ": " + error.message);
  };
  auto applied = apply_platform_choice(choice, std::move(*platform), workload);
  if (!applied) return named(applied.error());
  // A preset's platform is checked where it is used, whose messages name the options given.
  if (from_file) {
    if (auto checked = check_platform(*applied, workload); !checked) return named(checked.error());
  }
  return applied;
}

Result<Platform> apply_platform_choice(const PlatformChoice& choice, Platform platform, const Workload& workload) {
  Platform& p = platform;
  if (choice.gpus) p.gpus = *choice.gpus;
  if (choice.memory) {
    p.memory_bytes = choice.memory->items ? static_cast<double>(choice.memory->items) * static_cast<double>(workload.largest_data_bytes())
                                          : choice.memory->bytes;
  }
  if (choice.bandwidth) p.bus_bandwidth = *choice.bandwidth;
  if (choice.gpu_link) p.gpu_link_bandwidth = *choice.gpu_link;
  if (choice.pcie) {
    p.gpus_per_switch = choice.pcie->gpus_per_switch;
    p.switch_bandwidth = choice.pcie->switch_bandwidth;
    p.gpu_bus_bandwidth = choice.pcie->gpu_bandwidth;
  }
  if (choice.latency_ns) p.latency_ns = *choice.latency_ns;
  if (choice.rate) apply_rates(*choice.rate, p.default_gflops, p.kind_gflops);
  if (choice.cpus) p.cpus = *choice.cpus;
  if (choice.cpu_rate) apply_rates(*choice.cpu_rate, p.cpu_default_gflops, p.cpu_kind_gflops);
  if (choice.workers_per_memory) p.workers_per_memory = *choice.workers_per_memory;
  if (choice.copy_engines) p.copy_engines = *choice.copy_engines;
  if (choice.half_duplex) p.half_duplex = *choice.half_duplex;
  if (choice.worker_speeds) p.worker_speeds = *choice.worker_speeds;
  if (p.cpus > 0 && !(p.cpu_default_gflops > 0) && p.cpu_kind_gflops.empty()) {
    return field_error("cpus", "the CPU workers need a compute rate (cpu-rate, or a platform preset with CPUs)");
  }
  return platform;
}

}  // namespace tilelens::core
