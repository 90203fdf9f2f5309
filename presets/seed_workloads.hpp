// The eight seed workloads of DESIGN.md section 2, as parameterised generators. A spec names
// the generator and its parameters: "matmul2d:N=20", "matmul3d:N=8,b=960",
// "matmul2d-sparse:N=40,density=0.1,seed=7". Tiles are b x b elements of elem bytes (fp32).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"
#include "model/params.hpp"

namespace tilelens {

struct WorkloadGenerator {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  bool randomized = false;  // its seed parameter changes the workload (sweeps vary it)
};

const std::vector<WorkloadGenerator>& workload_generators();

// Bumped whenever a generator's output for some spec changes. A workload file records a digest
// of its body keyed by it (docs/workload-format.md, `body=`): a file written before the bump no
// longer matches, and is checked the slow way, by generating its spec again.
inline constexpr int kGeneratorOutputVersion = 1;

// Builds the workload a spec describes; errors name the parameter and its valid range.
Result<Workload> generate_workload(std::string_view spec);

}  // namespace tilelens
