// Importing a real StarPU execution: tasks.rec, data.rec and paje.trace as written by
// starpu_fxt_tool become a tilelens workload (tasks, registrations and sizes, dependencies,
// submit order) and a measured run (which worker ran each task, when, and the transfers StarPU
// made), so the same task set can be replayed under every other scheduler and compared with
// what StarPU did. What is kept, what is skipped and why: docs/starpu-import.md.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "trace/run.hpp"
#include "trace/summary.hpp"
#include "trace/trace.hpp"

namespace tilelens {

// Where a lane of the measured run came from: StarPU worker `worker` of MPI rank `rank`
// (0 without MPI), computing out of memory node `memory_node` of that rank.
struct StarpuLane {
  std::int64_t rank = 0;
  std::int64_t worker = 0;
  std::int64_t memory_node = 0;
  bool operator==(const StarpuLane&) const = default;
};

struct StarpuExecution {
  Workload workload;
  // The measured run, on lanes[i] as worker i of `platform_layout`; times in ns from the first
  // task start. Loads and write-backs come from paje.trace when it was given.
  Trace trace;
  ReplaySummary summary;
  std::vector<StarpuLane> lanes;
  // The worker and memory layout as measured (Platform's gpus, workers_per_memory, cpus): the
  // workers computing out of a bounded memory first, then CPU workers on the host memory.
  std::uint32_t gpus = 0, workers_per_memory = 1, cpus = 0;
  // The bounded workers are CPU workers sharing RAM, out of core: the host is a disk.
  bool out_of_core = false;
  std::size_t unexecuted_tasks = 0;  // application tasks without WorkerId, StartTime or EndTime
  bool transfers_recorded = false;   // paje.trace gave the transfers with their handles
  // Notes: what was left out and why, with counts ("skipped 36 'Control: WontUse' records
  // ..."). Warnings: what was dropped, renamed or decided between disagreeing records, once
  // per kind of problem, with how often and the first case's line.
  ImportReport report;
};

struct StarpuSources {
  std::istream* tasks = nullptr;  // required
  std::string tasks_name = "tasks.rec";
  std::istream* data = nullptr;  // optional: names, coordinates, registered sizes
  std::string data_name = "data.rec";
  std::istream* paje = nullptr;  // optional: registrations' times and the transfers
  std::string paje_name = "paje.trace";
};

struct StarpuImportOptions {
  std::string workload_name = "starpu";
  std::optional<std::int64_t> rank;  // import this MPI rank only; default: every rank, on lanes of its own
  // Import what can be read: a cut last record and records that cannot be read are left out,
  // each named in a warning, instead of refusing the file.
  bool lenient = false;
};

// Parses the records. Errors name the input, line and field ("FILE:LINE: field 'Sizes': ...").
// Unknown fields are ignored. Dependencies come from DependsOn; a file with none gets them
// derived from the data accesses in submission order, as StarPU's implicit dependencies would.
// Hostile input is refused or warned about, never guessed at silently: the workload returned
// is always one that write_workload and read_workload take back unchanged.
Result<StarpuExecution> import_starpu(const StarpuSources& sources, const StarpuImportOptions& options);
// The same from files; an empty data or paje path leaves that input out.
Result<StarpuExecution> import_starpu_files(const std::string& tasks_path, const std::string& data_path, const std::string& paje_path,
                                            const StarpuImportOptions& options);

}  // namespace tilelens
