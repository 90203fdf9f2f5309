// libFuzzer target for the platform file reader (formats/platform_io.hpp), through its public
// interface only: whatever the bytes, read_platform_json returns a platform within the ranges
// docs/platform-file.md gives or an error naming the file, and a platform it accepts writes
// and reads back equal. Built by scripts/fuzz.sh with clang; CTest replays
// tests/fuzz/platform through it (corpus_main.cpp).
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>

#include "formats/platform_io.hpp"
#include "fuzz_check.hpp"

namespace {

using tilelens::Platform;
using tilelens::fuzz::fail;

bool rates_valid(const std::map<std::string, double>& rates) {
  for (const auto& [kind, rate] : rates) {
    if (!std::isfinite(rate) || rate < 0) return false;
  }
  return true;
}

// Every field of Platform: a field the file format drops shows up here.
bool same(const Platform& a, const Platform& b) {
  return a.name == b.name && a.gpus == b.gpus && a.memory_bytes == b.memory_bytes && a.bus_bandwidth == b.bus_bandwidth &&
         a.gpu_link_bandwidth == b.gpu_link_bandwidth && a.gpu_bus_bandwidth == b.gpu_bus_bandwidth &&
         a.gpus_per_switch == b.gpus_per_switch && a.switch_bandwidth == b.switch_bandwidth && a.latency_ns == b.latency_ns &&
         a.default_gflops == b.default_gflops && a.kind_gflops == b.kind_gflops && a.workers_per_memory == b.workers_per_memory &&
         a.cpus == b.cpus && a.cpu_default_gflops == b.cpu_default_gflops && a.cpu_kind_gflops == b.cpu_kind_gflops;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string source = "fuzz.json";
  std::istringstream in(std::string(reinterpret_cast<const char*>(bytes), size));
  auto read = tilelens::read_platform_json(in, source);
  if (!read) {
    tilelens::fuzz::check_error(read.error(), source);
    return 0;
  }
  const Platform& p = *read;
  // The ranges of docs/platform-file.md's error messages: counts are whole and bounded, sizes
  // and rates finite, M and B positive.
  if (p.gpus < 1 || p.gpus > 4096 || p.workers_per_memory < 1 || p.workers_per_memory > 4096 || p.cpus > 4096 ||
      p.gpus_per_switch > 4096) {
    fail("an accepted platform's counts are within 1..4096 (cpus, gpus_per_switch: 0..4096)");
  }
  for (const double v : {p.memory_bytes, p.bus_bandwidth}) {
    if (!std::isfinite(v) || !(v > 0)) fail("an accepted platform's memory and bus bandwidth are finite and positive");
  }
  for (const double v : {p.gpu_link_bandwidth, p.gpu_bus_bandwidth, p.switch_bandwidth, p.default_gflops, p.cpu_default_gflops}) {
    if (!std::isfinite(v) || v < 0) fail("an accepted platform's bandwidths and rates are finite and not negative");
  }
  if (p.latency_ns < 0) fail("an accepted platform's latency is not negative");
  if (!rates_valid(p.kind_gflops) || !rates_valid(p.cpu_kind_gflops)) {
    fail("an accepted platform's per-kind rates are finite and not negative");
  }

  // The name doubles as the comment so that both go through the writer's escaping.
  std::ostringstream first;
  tilelens::write_platform_json(p, first, p.name);
  std::istringstream first_in(first.str());
  auto back = tilelens::read_platform_json(first_in, "written.json");
  if (!back) fail("a platform written reads back", back.error().message + "\n--- written:\n" + first.str());
  if (!same(p, *back)) fail("a platform written reads back equal", "--- written:\n" + first.str());
  std::ostringstream second;
  tilelens::write_platform_json(*back, second, back->name);
  if (second.str() != first.str()) {
    fail("a platform written and read back writes the same text", "--- first:\n" + first.str() + "--- second:\n" + second.str());
  }
  return 0;
}
