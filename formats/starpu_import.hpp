// Importing a real StarPU execution: tasks.rec (and optionally data.rec) as written by
// starpu_fxt_tool become a tilelens workload (tasks, handles and sizes, dependencies, submit
// order) and a measured run (which worker ran each task, when), so the same task set can be
// replayed under every other scheduler and compared with what StarPU did (docs/database.md).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "trace/summary.hpp"
#include "trace/trace.hpp"

namespace tilelens {

struct StarpuExecution {
  Workload workload;
  // The measured run: one lane per StarPU worker that ran tasks (lane i is workers[i]); times
  // in ns from the first task start. Only task executions: tasks.rec holds no transfers.
  Trace trace;
  ReplaySummary summary;
  std::vector<std::int64_t> workers;
  std::size_t unexecuted_tasks = 0;  // without WorkerId, StartTime or EndTime
  // What was dropped, renamed or decided between disagreeing records: once per kind of
  // problem, with how often and the first case's line.
  std::vector<std::string> warnings;
};

// Parses the records. `tasks_name` and `data_name` name the inputs in errors ("FILE:LINE:
// field 'Sizes': ..."). Unknown fields are ignored; records with "Control: WontUse" are not
// tasks. Dependencies come from DependsOn; a file with none gets them derived from the data
// accesses in submission order, as StarPU's implicit dependencies would. Hostile input is
// refused or warned about, never guessed at silently (docs/database.md, "StarPU import"): the
// workload returned is always one that write_workload and read_workload take back unchanged.
Result<StarpuExecution> import_starpu(std::istream& tasks, const std::string& tasks_name, std::istream* data,
                                      const std::string& data_name, const std::string& workload_name);
Result<StarpuExecution> import_starpu_files(const std::string& tasks_path, const std::string& data_path,
                                            const std::string& workload_name);

}  // namespace tilelens
