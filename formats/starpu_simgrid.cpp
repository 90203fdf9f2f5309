// A workload and a platform for StarPU in SimGrid mode; see starpu_simgrid.hpp. The file
// layouts follow StarPU 1.3.10's reader (src/core/perfmodel/perfmodel_bus.c) and SimGrid
// 3.32's platform format; docs/fidelity.md cites the lines.
#include "formats/starpu_simgrid.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "formats/output_file.hpp"
#include "formats/workload_io.hpp"
#include "model/units.hpp"

namespace tilelens {
namespace {

constexpr std::uint32_t kStarpuMaxNodes = 32;  // STARPU_MAXNODES: the matrices' side
constexpr double kMiB = 1024.0 * 1024.0;

Status refuse(const char* field, const std::string& why) {
  return make_error(std::string("platform field '") + field + "': " + why + " (StarPU-SimGrid export)");
}

Status check(const Workload& workload, const Platform& platform, std::uint32_t buffer_depth) {
  if (buffer_depth == 0 || buffer_depth > kStarpuMaxPipeline) {
    return make_error("buffer depth " + std::to_string(buffer_depth) + ": StarPU's CUDA pipeline holds 1 to " +
                      std::to_string(kStarpuMaxPipeline) + " tasks (StarPU-SimGrid export)");
  }
  if (platform.gpus == 0 || platform.gpus > kStarpuMaxCudaDevices) {
    return refuse("gpus", "StarPU 1.3.10 simulates 1 to " + std::to_string(kStarpuMaxCudaDevices) + " GPUs, not " + std::to_string(platform.gpus));
  }
  if (platform.cpus > 0) return refuse("cpus", "CPU workers are not exported yet");
  if (platform.workers_per_memory != 1) return refuse("workers_per_memory", "StarPU gives each simulated GPU one worker");
  if (platform.copy_engines > 1) return refuse("copy_engines", "StarPU-SimGrid moves one transfer at a time per pair of memory nodes");
  if (platform.gpus_per_switch > 0) return refuse("gpus_per_switch", "switch levels are not exported yet");
  const double mib = platform.memory_bytes / kMiB;
  if (mib != std::floor(mib) || mib < 1) {
    return refuse("memory_bytes", "StarPU limits a GPU's memory in whole MiB (STARPU_LIMIT_CUDA_MEM); " + format_bytes(platform.memory_bytes) +
                                      " is not a whole number of MiB");
  }
  for (const std::string& kind : workload.kinds()) {
    if (!(platform.gflops_of(kind) > 0)) return refuse("kind_gflops", kind + " tasks have no GPU kernel; StarPU would run them nowhere");
  }
  return Status::success();
}

std::string number(double value) {
  if (std::isnan(value)) return "nan";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%e", value);
  return buffer;
}

// A full 32 x 32 matrix, as StarPU writes it: its reader drops the last value of each row, so
// a shorter row would lose a real one. Node 0 is main memory, 1..K the GPUs; unused nodes nan.
std::string matrix(std::uint32_t nodes, double (*value)(const Platform&, std::uint32_t, std::uint32_t), const Platform& platform) {
  std::string out = "# ";
  for (std::uint32_t to = 0; to < kStarpuMaxNodes; ++to) out += "to " + std::to_string(to) + "\t\t";
  out += "\n";
  for (std::uint32_t from = 0; from < kStarpuMaxNodes; ++from) {
    for (std::uint32_t to = 0; to < kStarpuMaxNodes; ++to) {
      double v = std::nan("");
      if (from < nodes && to < nodes) v = from == to ? 0.0 : value(platform, from, to);
      out += (to ? "\t" : "") + number(v);
    }
    out += "\n";
  }
  return out;
}

// What StarPU's schedulers predict a transfer with, as tilelens's estimate
// (Platform::transfer_seconds): MB/s (1e6 B/s) and microseconds. Between two GPUs without a
// link the data go through main memory: two hops.
double bandwidth_mbs(const Platform& p, std::uint32_t from, std::uint32_t to) {
  if (from == 0 || to == 0) return p.bus_bandwidth / 1e6;
  if (p.gpu_link_bandwidth > 0) return p.gpu_link_bandwidth / 1e6;
  return p.bus_bandwidth / 2e6;
}
double latency_us(const Platform& p, std::uint32_t from, std::uint32_t to) {
  const double one = static_cast<double>(p.latency_ns) / 1e3;
  return (from == 0 || to == 0 || p.gpu_link_bandwidth > 0) ? one : 2 * one;
}

std::string bps(double bytes_per_s) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6fBps", bytes_per_s);
  return buffer;
}
std::string seconds(std::int64_t ns) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.9fs", static_cast<double>(ns) / 1e9);
  return buffer;
}

// SimGrid's platform: hosts MAIN, RAM, CPU0 (StarPU needs one even without CPU workers) and
// CUDA0..; links shared fairly (the network settings make each a plain fair-share pipe, as
// tilelens's links are).
std::string platform_xml(const Platform& p) {
  std::ostringstream x;
  x << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM 'https://simgrid.org/simgrid.dtd'>\n<platform version=\"4.1\">\n"
    << " <config id=\"General\">\n"
    << "   <prop id=\"network/TCP-gamma\" value=\"-1\"></prop>\n"
    << "   <prop id=\"network/latency-factor\" value=\"1\"></prop>\n"
    << "   <prop id=\"network/bandwidth-factor\" value=\"1\"></prop>\n"
    << "   <prop id=\"network/crosstraffic\" value=\"0\"></prop>\n"
    << "   <prop id=\"network/weight-S\" value=\"0.0\"></prop>\n"
    << " </config>\n <zone id=\"AS0\" routing=\"Full\">\n"
    << "   <host id=\"MAIN\" speed=\"1f\"/>\n   <host id=\"CPU0\" speed=\"2000000000f\"/>\n";
  const bool peer = p.gpu_link_bandwidth > 0;
  for (std::uint32_t g = 0; g < p.gpus; ++g) {
    x << "   <host id=\"CUDA" << g << "\" speed=\"2000000000f\">\n     <prop id=\"memsize\" value=\""
      << static_cast<std::uint64_t>(p.memory_bytes) << "\"/>\n";
    if (peer) x << "     <prop id=\"memcpy_peer\" value=\"1\"/>\n";
    x << "   </host>\n";
  }
  x << "   <host id=\"RAM\" speed=\"1f\"/>\n";
  // The host bus, per direction (one link for both when half-duplex); the latency is paid once,
  // on the GPU's own link.
  std::vector<std::string> down, up;
  if (p.half_duplex) {
    x << "   <link id=\"Host\" bandwidth=\"" << bps(p.bus_bandwidth) << "\" latency=\"0s\"/>\n";
    down = up = {"Host"};
  } else {
    x << "   <link id=\"HostDown\" bandwidth=\"" << bps(p.bus_bandwidth) << "\" latency=\"0s\"/>\n"
      << "   <link id=\"HostUp\" bandwidth=\"" << bps(p.bus_bandwidth) << "\" latency=\"0s\"/>\n";
    down = {"HostDown"};
    up = {"HostUp"};
  }
  const double own = p.gpu_bus_bandwidth > 0 ? p.gpu_bus_bandwidth : p.bus_bandwidth;
  for (std::uint32_t g = 0; g < p.gpus; ++g) {
    x << "   <link id=\"RAM-CUDA" << g << "\" bandwidth=\"" << bps(own) << "\" latency=\"" << seconds(p.latency_ns) << "\"/>\n"
      << "   <link id=\"CUDA" << g << "-RAM\" bandwidth=\"" << bps(own) << "\" latency=\"" << seconds(p.latency_ns) << "\"/>\n";
    for (std::uint32_t h = 0; peer && h < p.gpus; ++h) {
      if (h != g) {
        x << "   <link id=\"CUDA" << g << "-CUDA" << h << "\" bandwidth=\"" << bps(p.gpu_link_bandwidth) << "\" latency=\""
          << seconds(p.latency_ns) << "\"/>\n";
      }
    }
  }
  const auto route = [&](const std::string& from, const std::string& to, std::vector<std::string> links) {
    x << "   <route src=\"" << from << "\" dst=\"" << to << "\" symmetrical=\"NO\">";
    for (const std::string& link : links) x << "<link_ctn id=\"" << link << "\"/>";
    x << "</route>\n";
  };
  for (std::uint32_t g = 0; g < p.gpus; ++g) {
    const std::string gpu = "CUDA" + std::to_string(g);
    std::vector<std::string> in = {"RAM-" + gpu}, out = {gpu + "-RAM"};
    in.insert(in.end(), down.begin(), down.end());
    out.insert(out.end(), up.begin(), up.end());
    route("RAM", gpu, in);
    route(gpu, "RAM", out);
    for (std::uint32_t h = 0; peer && h < p.gpus; ++h) {
      if (h != g) route(gpu, "CUDA" + std::to_string(h), {gpu + "-CUDA" + std::to_string(h)});
    }
  }
  x << " </zone>\n</platform>\n";
  return x.str();
}

}  // namespace

Status write_starpu_simgrid(const Workload& workload, const Platform& platform, std::uint32_t buffer_depth,
                            const std::filesystem::path& folder) {
  if (auto status = check(workload, platform, buffer_depth); !status) return status;
  const std::filesystem::path bus = folder / ".starpu" / "sampling" / "bus";
  std::error_code error;
  std::filesystem::create_directories(bus, error);
  if (error) return make_error("cannot create " + bus.string() + ": " + error.message());

  if (auto status = write_output_file((folder / "workload").string(), [&](std::ostream& out) { return write_workload(workload, out); }); !status) {
    return status;
  }
  std::string rates;
  for (const std::string& kind : workload.kinds()) rates += kind + " " + format_exact(platform.gflops_of(kind)) + "\n";
  const std::uint32_t nodes = platform.gpus + 1;
  const std::string host = kStarpuSimgridHost;
  std::string env = "STARPU_HOSTNAME=" + host + "\nSTARPU_NCPU=0\nSTARPU_NCUDA=" + std::to_string(platform.gpus) +
                    "\nSTARPU_LIMIT_CUDA_MEM=" + format_exact(platform.memory_bytes / kMiB) +
                    "\nSTARPU_CUDA_PIPELINE=" + std::to_string(buffer_depth) +
                    // StarPU-SimGrid's fixed costs of its own, none on tilelens's side.
                    "\nSTARPU_SIMGRID_CUDA_MALLOC_COST=0\nSTARPU_SIMGRID_CUDA_QUEUE_COST=0\nSTARPU_SIMGRID_TASK_SUBMIT_COST=0"
                    "\nSTARPU_SIMGRID_FETCHING_INPUT_COST=0\nSTARPU_SIMGRID_SCHED_COST=0\n";
  const std::string config = "# Current configuration\n1 # Number of CPUs\n1 # Number of NUMA nodes\n" + std::to_string(platform.gpus) +
                             " # Number of CUDA devices\n0 # Number of OpenCL devices\n0 # Number of MIC devices\n0 # Number of MPI devices\n";
  std::string affinity = "# GPU\tNUMA0\t\n";
  for (std::uint32_t g = 0; g < platform.gpus; ++g) affinity += std::to_string(g) + "\t0\t\n";
  const std::string xml = platform_xml(platform);
  for (const auto& [path, text] : std::vector<std::pair<std::filesystem::path, std::string>>{
           {folder / "rates", rates},
           {folder / "env", env},
           {bus / (host + ".bandwidth"), matrix(nodes, bandwidth_mbs, platform)},
           {bus / (host + ".latency"), matrix(nodes, latency_us, platform)},
           {bus / (host + ".platform.v4.xml"), xml},
           {bus / (host + ".platform.xml"), xml},
           {bus / (host + ".config"), config},
           {bus / (host + ".affinity"), affinity}}) {
    if (auto status = write_output_file(path.string(), text); !status) return status;
  }
  return Status::success();
}

}  // namespace tilelens
