// A sweep on a Slurm cluster; see cluster.hpp.
#include "core/cluster.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace tilelens::core {
namespace {

constexpr const char* kManifest = "manifest.json";
constexpr int kManifestVersion = 1;

std::string sweep_arguments(const SlurmJob& job) {
  std::string arguments;
  for (const auto& [name, value] : job.options) {
    arguments += " --" + name;
    if (!(value == "1" && (name == "charge-scheduling" || name == "metrics-only"))) arguments += " " + shell_quoted(value);
  }
  return arguments;
}

std::string header(const SlurmJob& job, const std::string& name) {
  std::ostringstream out;
  out << "#!/bin/bash\n";
  out << "# Written by tilelens sweep --slurm-script (docs/cluster.md). Submit with sbatch, or let --submit do it.\n";
  out << "#SBATCH --job-name=" << name << "\n";
  if (!job.partition.empty()) out << "#SBATCH --partition=" << job.partition << "\n";
  if (!job.time.empty()) out << "#SBATCH --time=" << job.time << "\n";
  return out.str();
}

}  // namespace

std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string slurm_array_script(const SlurmJob& job, const std::vector<std::uint32_t>& tasks) {
  std::string array = "1-" + std::to_string(job.shards);
  if (!tasks.empty()) {
    array.clear();
    for (std::uint32_t task : tasks) array += (array.empty() ? "" : ",") + std::to_string(task);
  }
  std::ostringstream out;
  out << header(job, "tilelens-sweep");
  out << "#SBATCH --array=" << array << "\n";
  out << "#SBATCH --cpus-per-task=" << job.cpus_per_task << "\n";
  out << "#SBATCH --output=" << job.folder << "/slurm-%A_%a.out\n";
  out << "set -euo pipefail\n";
  out << "# Shard K of " << job.shards << " into its own database; a rerun resumes it.\n";
  out << "exec " << shell_quoted(job.tilelens) << " sweep" << sweep_arguments(job) << " --shard \"${SLURM_ARRAY_TASK_ID}/" << job.shards
      << "\" --db " << shell_quoted(job.folder) << "/shard-\"${SLURM_ARRAY_TASK_ID}\".db --jobs \"${SLURM_CPUS_PER_TASK:-1}\" --quiet\n";
  return out.str();
}

std::string slurm_merge_script(const SlurmJob& job) {
  std::ostringstream out;
  out << header(job, "tilelens-merge");
  out << "#SBATCH --cpus-per-task=1\n";
  out << "#SBATCH --output=" << job.folder << "/slurm-%j-merge.out\n";
  out << "set -euo pipefail\n";
  out << "# After every shard: their databases into merged.db (each run once; a rerun adds nothing).\n";
  out << "cd " << shell_quoted(job.folder) << "\n";
  out << "exec " << shell_quoted(job.tilelens) << " db merge merged.db";
  for (std::uint32_t k = 1; k <= job.shards; ++k) out << " shard-" << k << ".db";
  out << "\n";
  return out.str();
}

Status write_slurm_job(const SlurmJob& job, const std::string& script) {
  std::error_code error;
  std::filesystem::create_directories(job.folder, error);
  if (error) return field_error("output", job.folder + ": " + error.message());
  nlohmann::ordered_json manifest;
  manifest["version"] = kManifestVersion;
  manifest["shards"] = job.shards;
  nlohmann::ordered_json options = nlohmann::ordered_json::array();
  for (const auto& [name, value] : job.options) options.push_back({name, value});
  manifest["options"] = options;
  const auto write = [](const std::string& path, const std::string& text) -> Status {
    std::ofstream out(path, std::ios::trunc);
    out << text;
    out.close();
    if (!out) return make_error("cannot write " + path);
    return Status::success();
  };
  if (auto status = write((std::filesystem::path(job.folder) / kManifest).string(), manifest.dump(2) + "\n"); !status) return status;
  if (auto status = write(script, slurm_array_script(job)); !status) return status;
  return write(script + ".merge.sh", slurm_merge_script(job));
}

Result<std::pair<SweepGrid, std::uint32_t>> read_manifest(const std::string& folder) {
  const std::string path = (std::filesystem::path(folder) / kManifest).string();
  std::ifstream in(path);
  if (!in) return make_error(path + ": no manifest (a folder written by tilelens sweep --slurm-script holds one)");
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return make_error(path + ": not a manifest: " + e.what());
  }
  if (!manifest.is_object() || manifest.value("version", 0) != kManifestVersion || !manifest.contains("shards") ||
      !manifest["shards"].is_number_unsigned() || !manifest.contains("options") || !manifest["options"].is_array()) {
    return make_error(path + ": not a version " + std::to_string(kManifestVersion) + " manifest (fields version, shards, options)");
  }
  SweepGrid grid;
  for (const auto& option : manifest["options"]) {
    if (!option.is_array() || option.size() != 2 || !option[0].is_string() || !option[1].is_string()) {
      return make_error(path + ": options: each is [name, value]");
    }
    const std::string name = option[0], value = option[1];
    const Status status = name == "preset" ? apply_sweep_preset(grid, value, {}) : set_sweep_option(grid, name, value);
    if (!status) return make_error(path + ": " + status.error().message);
  }
  const auto shards = manifest["shards"].get<std::uint64_t>();
  if (shards < 1 || shards > 100000) return make_error(path + ": shards must be from 1 to 100000");
  return std::pair{grid, static_cast<std::uint32_t>(shards)};
}

Result<std::vector<ShardStatus>> shard_status(const std::string& folder) {
  auto manifest = read_manifest(folder);
  if (!manifest) return manifest.error();
  auto& [grid, shards] = *manifest;
  // The grid expanded and split once: each shard's jobs, in grid order.
  grid.shard = grid.shards = 0;
  auto all = expand_grid(grid);
  if (!all) return all.error();
  const std::vector<std::uint32_t> part_of = shard_of(*all, shards);
  std::vector<std::vector<const SweepJob*>> parts(shards);
  for (std::size_t i = 0; i < all->size(); ++i) parts[part_of[i]].push_back(&(*all)[i]);
  std::vector<ShardStatus> statuses;
  for (std::uint32_t k = 1; k <= shards; ++k) {
    const auto& jobs = parts[k - 1];
    ShardStatus status;
    status.shard = k;
    status.total = jobs.size();
    std::map<std::string, std::string> label_of;  // run key -> label
    for (const SweepJob* job : jobs) {
      auto prepared = prepare_replay(job->request);
      label_of[prepared ? prepared->info.key : job->label] = job->label;
    }
    const std::string path = (std::filesystem::path(folder) / ("shard-" + std::to_string(k) + ".db")).string();
    std::set<std::string> complete;
    std::map<std::string, std::string> failed;  // key -> error
    if (std::filesystem::exists(path)) {
      status.database = true;
      auto store = db::Store::open(path, db::Store::OpenMode::ReadOnly);
      if (!store) return make_error(path + ": " + store.error().message);
      auto runs = store->list_runs();
      if (!runs) return runs.error();
      for (const RunInfo& run : *runs) {
        if (!label_of.count(run.key)) continue;
        if (run.status == RunStatus::Complete) complete.insert(run.key);
        else if (run.status == RunStatus::Failed) failed.emplace(run.key, run.error);
      }
    }
    for (const std::string& key : complete) failed.erase(key);  // a failed run retried since
    for (const auto& [key, error] : failed) status.errors.push_back(label_of[key] + ": " + error);
    status.done = complete.size();
    status.failed = failed.size();
    status.pending = status.total - status.done - status.failed;
    statuses.push_back(std::move(status));
  }
  return statuses;
}

}  // namespace tilelens::core
