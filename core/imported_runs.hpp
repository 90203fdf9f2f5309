// An execution imported from a real runtime (StarPU's tasks.rec and data.rec) as a workload
// to replay and a measured run to compare against, as both front ends import it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/platform_choice.hpp"
#include "formats/starpu_import.hpp"

namespace tilelens::core {

struct StarpuImportRequest {
  std::string tasks_file;  // tasks.rec
  std::string data_file;   // data.rec, optional
  std::string paje_file;   // paje.trace, optional: registrations' times and the transfers
  std::string name = "starpu";
  std::optional<std::int64_t> rank;  // one MPI rank only
  bool lenient = false;              // leave out what cannot be read, saying so, instead of refusing
  std::string scheduler;             // StarPU's STARPU_SCHED, recorded as tilelens' policy of that name
  // A preset or a platform file, what the run is recorded against (its bounds); empty: the
  // run's own layout with the rates and bandwidth it measured.
  std::string platform;
  std::optional<SizeSpec> memory;      // as StarPU was limited (STARPU_LIMIT_CUDA_MEM)
  std::string workload_out;             // write the workload in tilelens' format, before storing
  std::string database;                // store the workload and the measured run here
};

// tilelens' policy for a StarPU scheduler name (STARPU_SCHED): the same algorithm where
// tilelens has it, its nearest otherwise (`exact` false, with why in `note`). tilelens' own
// names are taken as they are. Errors list the names known.
struct StarpuPolicy {
  std::string scheduler;
  bool exact = true;
  std::string note;
};
Result<StarpuPolicy> policy_of_starpu_scheduler(const std::string& name);

struct StarpuImport {
  StarpuExecution execution;
  Platform platform;  // named "starpu": the workers and memories as measured, the base's transfer rates
  std::optional<StarpuPolicy> policy;
  std::int64_t workload_id = 0, run_id = 0;  // once stored
  std::string database;
};
Result<StarpuImport> import_starpu_run(const StarpuImportRequest& request);

// A request for the files `paths`, each recognised by its content (formats/importers.hpp):
// StarPU's tasks.rec, data.rec and paje.trace in any order. Errors name the file.
Result<StarpuImportRequest> starpu_request_from_files(const std::vector<std::string>& paths);

}  // namespace tilelens::core
