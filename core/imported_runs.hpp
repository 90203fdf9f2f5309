// An execution imported from a real runtime (StarPU's tasks.rec and data.rec) as a workload
// to replay and a measured run to compare against, as both front ends import it.
#pragma once

#include <cstdint>
#include <string>

#include "core/platform_choice.hpp"
#include "formats/starpu_import.hpp"

namespace tilelens::core {

struct StarpuImportRequest {
  std::string tasks_file;  // tasks.rec
  std::string data_file;   // data.rec, optional
  std::string name = "starpu";
  std::string platform = "v100-fgcs";  // a preset or a platform file: what the run is recorded against (its bounds)
  std::optional<SizeSpec> memory;      // as StarPU was limited (STARPU_LIMIT_CUDA_MEM)
  std::string workload_out;             // write the workload in tilelens' format, before storing
  std::string database;                // store the workload and the measured run here
};

struct StarpuImport {
  StarpuExecution execution;
  Platform platform;  // named "starpu", one GPU per StarPU worker
  std::int64_t workload_id = 0, run_id = 0;  // once stored
  std::string database;
};
Result<StarpuImport> import_starpu_run(const StarpuImportRequest& request);

}  // namespace tilelens::core
