// The platform presets: the machines of the papers and the lent H100, by name.
#include "presets/platforms.hpp"

#include <algorithm>

namespace tilelens {

const std::vector<PlatformPreset>& platform_presets() {
  static const std::vector<PlatformPreset> presets = [] {
    std::vector<PlatformPreset> list;
    Platform v100;
    v100.name = "v100-fgcs";
    v100.gpus = 1;
    v100.memory_bytes = 500.0 * 1024 * 1024;  // fgcs 5.1: "M = 500 MB" (StarPU limits memory in MiB)
    v100.bus_bandwidth = 12e9;
    v100.default_gflops = 13393;
    list.push_back({"v100-fgcs", "fgcs section 5.1: one V100 capped at 500 MiB, 12 GB/s bus, 13,393 GFlop/s GEMM", v100});
    Platform h100;
    h100.name = "h100";
    h100.gpus = 1;
    h100.memory_bytes = 500.0 * 1024 * 1024;
    h100.bus_bandwidth = 55e9;
    h100.default_gflops = 34000;
    list.push_back({"h100", "the lent H100 as measured (REFERENCE.md): 34 TFLOP/s SGEMM on 960 tiles, 55 GB/s pinned bus, capped at 500 MiB", h100});
    // darts Table 1 (measured values).
    const auto node = [&](const char* name, const char* summary, std::uint32_t gpus, double memory, double host, double link,
                          double gflops, double gpu_bus, std::uint32_t per_switch, double switch_bus) {
      Platform p;
      p.name = name;
      p.gpus = gpus;
      p.memory_bytes = memory;
      p.bus_bandwidth = host;
      p.gpu_link_bandwidth = gpus > 1 ? link : 0;
      p.default_gflops = gflops;
      p.gpu_bus_bandwidth = gpu_bus;
      p.gpus_per_switch = per_switch;
      p.switch_bandwidth = switch_bus;
      list.push_back({name, summary, p});
    };
    // One GPU: its PCIe link is the bus. Nodes: the measured PCIe tree (darts Fig. 5 for the
    // V100 node: 12 GB/s per GPU, two GPUs per switch, 22 GB/s from each switch to the host,
    // whose own link to RAM is "much higher": 100 GB/s here).
    node("v100-darts", "darts Table 1: one V100, 32 GB, 12 GB/s PCIe, 14,000 GFlop/s GEMM (2880 tiles)", 1, 32e9, 12e9, 24e9, 14000, 0, 0, 0);
    node("v100x4-darts", "darts Table 1 and Fig. 5: four V100 of 32 GB, 24 GB/s NVLinks, 12 GB/s PCIe each, 2 per 22 GB/s switch",
         4, 32e9, 100e9, 24e9, 14000, 12e9, 2, 22e9);
    node("a100-darts", "darts Table 1: one A100, 40 GB, 12 GB/s PCIe, 18,000 GFlop/s GEMM (2880 tiles)", 1, 40e9, 12e9, 24e9, 18000, 0, 0, 0);
    node("a100x4-darts", "darts Table 1: four A100 of 40 GB, 24 GB/s NVLinks, one 12 GB/s PCIe bus each", 4, 40e9, 100e9, 24e9, 18000, 12e9,
         0, 0);
    node("p100-darts", "darts Table 1: one P100, 16 GB, 13 GB/s PCIe, 6,700 GFlop/s GEMM (1920 tiles)", 1, 16e9, 13e9, 10e9, 6700, 0, 0, 0);
    node("p100x2-darts", "darts Table 1: two P100 of 16 GB, 10 GB/s NVLink, one 13 GB/s PCIe bus each", 2, 16e9, 100e9, 10e9, 6700, 13e9, 0, 0);
    // darts section 7.3 (Fig. 16): two 6-core Xeon E5-2620 sharing 32 GB, the data on disks
    // at about 94 MB/s. The paper gives no per-core rate: 25 GFlop/s is what a 2 GHz Sandy
    // Bridge core sustains in single-precision GEMM (16 flops per cycle, about 80%).
    {
      Platform p;
      p.name = "xeon-ooc-darts";
      p.gpus = 12;
      p.workers_per_memory = 12;
      p.memory_bytes = 32e9;
      p.bus_bandwidth = 94e6;
      p.default_gflops = 25;
      list.push_back({"xeon-ooc-darts",
                      "darts 7.3: 12 cores sharing 32 GB, data on disk at 94 MB/s, 25 GFlop/s per core (assumed)", p});
    }
    // CPU+GPU nodes for the lahp comparisons: a GPU node with CPU cores beside its GPUs (use
    // --gpus 1..4), and rates per kind on each architecture.
    const auto hetero = [&](Platform p, const char* name, const char* summary, std::map<std::string, double> gpu_kinds,
                            std::uint32_t cpus, double cpu_gflops, std::map<std::string, double> cpu_kinds) {
      p.name = name;
      p.kind_gflops = std::move(gpu_kinds);
      p.cpus = cpus;
      p.cpu_default_gflops = cpu_gflops;
      p.cpu_kind_gflops = std::move(cpu_kinds);
      list.push_back({name, summary, p});
    };
    // The V100 node above with 24 cores: the GPU's rate from darts Table 1 for GEMM (2880
    // tiles), the factorizations far slower on a GPU; a Skylake core about 60 GFlop/s in GEMM.
    // The speedups (GEMM 230x, POTRF 25x) rank the buckets as Heteroprio expects.
    const auto v100_node = std::find_if(list.begin(), list.end(), [](const PlatformPreset& p) { return p.name == "v100x4-darts"; });
    hetero(v100_node->platform, "v100x4-24c",
           "the v100x4-darts node with 24 CPU cores (60 GFlop/s GEMM each); GPU factorizations slow",
           {{"POTRF", 1000}, {"GETRF", 1200}, {"TRSM", 8000}, {"SYRK", 10000}}, 24, 60,
           {{"POTRF", 40}, {"GETRF", 40}, {"TRSM", 50}, {"SYRK", 50}});
    // lahp's K40 machine: 2 x 12 Haswell cores at 2.5 GHz and 4 K40 (12 GB, PCIe 3, no GPU
    // links). Single-precision rates on 960 tiles, estimated from the peaks (lahp gives none):
    // SGEMM 3 TFlop/s on a K40 and 70 GFlop/s on a core (32 flops per cycle, 85%); the GPU's
    // factorization kernels about ten times slower than its GEMM.
    Platform k40;
    k40.gpus = 4;
    k40.memory_bytes = 12e9;
    k40.bus_bandwidth = 10e9;
    k40.default_gflops = 3000;
    hetero(k40, "k40x4-24c", "lahp's K40 node: 4 K40 of 12 GB on 10 GB/s PCIe and 24 cores; rates estimated from peaks",
           {{"POTRF", 300}, {"GETRF", 300}, {"TRSM", 2000}, {"SYRK", 2500}}, 24, 70,
           {{"POTRF", 40}, {"GETRF", 40}, {"TRSM", 60}, {"SYRK", 60}});
    // lahp's P100 machine: 2 x 12 Broadwell cores at 2.1 GHz and 2 P100 (16 GB). lahp names no
    // link, so PCIe 3 only (12 GB/s each, no GPU link: an assumption). Single-precision rates
    // on 960 tiles estimated from the peaks as for the K40: SGEMM 8 TFlop/s on a P100 (85% of
    // 9.3), 57 GFlop/s on a core; the factorization kernels about ten times slower on the GPU.
    Platform p100;
    p100.gpus = 2;
    p100.memory_bytes = 16e9;
    p100.bus_bandwidth = 12e9;
    p100.default_gflops = 8000;
    hetero(p100, "p100x2-24c", "lahp's P100 node: 2 P100 of 16 GB on 12 GB/s PCIe and 24 cores; rates estimated from peaks",
           {{"POTRF", 800}, {"GETRF", 800}, {"TRSM", 5500}, {"SYRK", 6500}}, 24, 57,
           {{"POTRF", 35}, {"GETRF", 35}, {"TRSM", 50}, {"SYRK", 50}});
    return list;
  }();
  return presets;
}

Result<Platform> find_platform_preset(std::string_view name) {
  std::string valid;
  for (const auto& preset : platform_presets()) {
    if (preset.name == name) return preset.platform;
    valid += (valid.empty() ? "" : ", ") + preset.name;
  }
  return make_error("unknown platform '" + std::string(name) + "' (valid: " + valid + ")");
}

}  // namespace tilelens
