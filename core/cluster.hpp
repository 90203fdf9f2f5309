// A sweep on a Slurm cluster (docs/cluster.md): the job-array script that sweeps one shard per
// array task into its own database in a shared folder, the merge job that runs after them,
// the manifest that says what the folder holds, and the progress of every shard read back
// from the folder. The scheduler is Slurm's: tilelens writes what sbatch takes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/sweep.hpp"

namespace tilelens::core {

struct SlurmJob {
  // The sweep's grid options as the command line names them, without db, shard and jobs:
  // {"preset", "fgcs-fig5"}, {"workload", "matmul2d:N=5..90:5"}, ...
  std::vector<std::pair<std::string, std::string>> options;
  std::uint32_t shards = 8;
  std::string folder;        // shared by the nodes: shard-K.db, the logs, merged.db, manifest.json
  std::string tilelens;      // the tilelens binary the nodes run (an absolute path)
  // Slurm's own names (sbatch --partition, --time, --cpus-per-task); empty: the cluster's default.
  std::string partition, time;
  std::uint32_t cpus_per_task = 1;
};

// One shell word holding `text`, whatever it holds: 'it'\''s'.
std::string shell_quoted(const std::string& text);

// The array script: #SBATCH --array=1-N (or the listed tasks), one shard per array task.
std::string slurm_array_script(const SlurmJob& job, const std::vector<std::uint32_t>& tasks = {});
// The merge script, run after the array (sbatch --dependency=afterok:ARRAY).
std::string slurm_merge_script(const SlurmJob& job);
// Writes FOLDER/manifest.json (the grid, the shard count), the array script to `script` and
// the merge script beside it (SCRIPT.merge.sh); errors name the file.
Status write_slurm_job(const SlurmJob& job, const std::string& script);

struct ShardStatus {
  std::uint32_t shard = 0;
  std::size_t total = 0, done = 0, failed = 0, pending = 0;
  std::vector<std::string> errors;  // "label: error" of the failed runs
  bool database = false;            // its shard-K.db exists
};
// Every shard of the folder's manifest, read from its database: complete, failed, not yet run.
Result<std::vector<ShardStatus>> shard_status(const std::string& folder);
// The grid a manifest describes, and its shard count.
Result<std::pair<SweepGrid, std::uint32_t>> read_manifest(const std::string& folder);

}  // namespace tilelens::core
