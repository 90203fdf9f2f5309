// The StarPU-SimGrid export (formats/starpu_simgrid.hpp): the machine StarPU reads says what the
// tilelens platform says, in StarPU's layouts, and what StarPU cannot be told is refused.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "formats/starpu_simgrid.hpp"
#include "helpers.hpp"
#include "model/units.hpp"

using namespace tilelens;
using namespace tilelens::test;

namespace {

std::vector<std::vector<std::string>> rows_of(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> row;
    std::istringstream fields(line);
    std::string field;
    while (std::getline(fields, field, '\t')) row.push_back(field);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

TEST_CASE("StarPU-SimGrid export: full matrices, the platform's rates, memory and links", "[formats][simgrid]") {
  const Workload w = generated("cholesky:N=4,b=64");
  Platform p = small_platform(3.0 * 1024 * 1024, 2);
  p.bus_bandwidth = 12e9;
  p.latency_ns = 2000;
  p.kind_gflops["POTRF"] = 500;
  const TempFile folder("simgrid-export");
  REQUIRE(write_starpu_simgrid(w, p, 2, folder.path).ok());
  const std::filesystem::path bus = std::filesystem::path(folder.path) / ".starpu" / "sampling" / "bus";

  const auto bandwidth = rows_of(file_text(bus / "tilelens.bandwidth"));
  REQUIRE(bandwidth.size() == 32);
  for (const auto& row : bandwidth) CHECK(row.size() == 32);  // StarPU's reader drops each row's last value
  CHECK(std::stod(bandwidth[0][1]) == 12000);                 // MB/s, main memory to GPU 0
  CHECK(std::stod(bandwidth[2][0]) == 12000);
  CHECK(std::stod(bandwidth[1][2]) == 6000);                  // GPU to GPU through main memory: two hops
  CHECK(bandwidth[0][3] == "nan");
  const auto latency = rows_of(file_text(bus / "tilelens.latency"));
  CHECK(std::stod(latency[0][1]) == 2);  // microseconds

  const std::string xml = file_text(bus / "tilelens.platform.v4.xml");
  CHECK(xml.find("<host id=\"CUDA1\"") != std::string::npos);
  CHECK(xml.find("<host id=\"CUDA2\"") == std::string::npos);
  CHECK(xml.find("value=\"3145728\"") != std::string::npos);  // memsize
  CHECK(xml.find("<link id=\"HostDown\" bandwidth=\"12000000000.000000Bps\"") != std::string::npos);
  CHECK(xml.find("latency=\"0.000002000s\"") != std::string::npos);

  const std::string rates = file_text(std::filesystem::path(folder.path) / "rates");
  CHECK(rates.find("POTRF 500\n") != std::string::npos);
  CHECK(rates.find("GEMM " + format_exact(p.default_gflops) + "\n") != std::string::npos);
  const std::string env = file_text(std::filesystem::path(folder.path) / "env");
  CHECK(env.find("STARPU_NCUDA=2\n") != std::string::npos);
  CHECK(env.find("STARPU_LIMIT_CUDA_MEM=3\n") != std::string::npos);
  CHECK(env.find("STARPU_NCPU=0\n") != std::string::npos);
  CHECK(env.find("STARPU_CUDA_PIPELINE=2\n") != std::string::npos);
  std::filesystem::remove_all(folder.path);
}

TEST_CASE("StarPU-SimGrid export refuses what StarPU cannot be told, naming the field", "[formats][simgrid]") {
  const Workload w = generated("cholesky:N=4,b=64");
  const TempFile folder("simgrid-refused");
  const auto refused = [&](Platform p, const std::string& field) {
    const auto status = write_starpu_simgrid(w, p, 2, folder.path);
    INFO(field);
    REQUIRE_FALSE(status.ok());
    CHECK_THAT(status.error().message, Catch::Contains("'" + field + "'"));
  };
  const Platform base = small_platform(4.0 * 1024 * 1024, 1);
  Platform five = base;
  five.gpus = 5;
  refused(five, "gpus");
  Platform odd = base;
  odd.memory_bytes = 4.5 * 1024 * 1024;
  refused(odd, "memory_bytes");
  Platform cpus = base;
  cpus.cpus = 2;
  cpus.cpu_default_gflops = 10;
  refused(cpus, "cpus");
  Platform engines = base;
  engines.copy_engines = 2;
  refused(engines, "copy_engines");
  Platform no_potrf = base;
  no_potrf.kind_gflops["POTRF"] = 0;
  refused(no_potrf, "kind_gflops");
  CHECK_FALSE(write_starpu_simgrid(w, base, 5, folder.path).ok());  // StarPU's pipeline holds at most 4
  std::filesystem::remove_all(folder.path);
}
