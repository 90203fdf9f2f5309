// `tilelens sweep`: a grid of replays into a database (core/sweep.hpp), with a progress bar on
// a terminal and a line per run otherwise; or, for a cluster, the Slurm scripts that sweep it
// shard by shard and the progress of their databases (core/cluster.hpp).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <tuple>

#include "app/cli/commands.hpp"
#include "core/cluster.hpp"
#include "core/sweep.hpp"
#include "core/presets.hpp"

namespace tilelens::cli {
namespace {

// The sweep's options: its own, then the platform table's, where memory and GPU counts are lists.
std::vector<OptionSpec> sweep_options() {
  std::vector<OptionSpec> options = {
      {"db", "FILE", "the database (created if absent)", ""},
      {"preset", "NAME", "a paper's experiment (its workloads, policies, memory and platform); 'list' prints them; options given override it", ""},
      {"workload", "SPEC[;SPEC]", "workload specs or files; a parameter value may be a range A..B, A..B:STEP, or a list a|b|c", ""},
      {"scheduler", "LIST", "schedulers, comma-separated (random:seed=1..3 expands too); NAME/EVICTION pins the eviction of one entry, a trailing +time charges its prepare() time", "eager"},
      {"eviction", "LIST", "eviction policies, comma-separated", "lru"},
      {"platform", "PRESET|FILE", "platform preset or platform file (docs/platform-file.md) the options below override", "v100-fgcs"}};
  for (auto option : platform_option_specs()) {
    if (option.name == "memory") option = {"memory", "LIST", "memory sizes per GPU, comma-separated: 250MiB,500MiB or 4items,8items", ""};
    if (option.name == "gpus") option = {"gpus", "LIST", "GPU counts: 1,2,4 or 1..4", ""};
    options.push_back(std::move(option));
  }
  options.insert(options.end(),
                 {{"buffer", "LIST", "task buffer depths: 1,4", "4"},
                  {"memory-model", "SPEC", "one memory model for every run: starpu (with key=value overrides) or fgcs (docs/replay.md)", "starpu"},
                  {"charge-scheduling", "", "charge every run's prepare() time to its makespan (as +time does for one entry)", ""},
                  {"scheduling-cost", "SPEC", "one scheduling cost for every run: push=2us,pop=1us,pop_per_task=5ns (docs/replay.md)", ""},
                  {"seeds", "LIST", "seeds, as 1..5 or 1,7,9: given to every scheduler and seeded generator whose spec sets none", ""},
                  {"jobs", "N", "replays run in parallel (default: the number of cores)", ""},
                  {"plugin-time-limit", "S", "seconds a plugin's trial replay may take (each plugin replay first runs in a child process: one that crashes or runs past this stores nothing)", "300"},
                  {"metrics-only", "", "store each run's metrics but not its trace (for very large sweeps)", ""},
                  {"shard", "K/N", "run only part K of N of the grid, balanced by estimated cost; the parts' databases merge into the whole sweep (tilelens db merge)", ""},
                  {"dry-run", "", "print the runs of the grid and exit", ""},
                  {"slurm-script", "FILE", "write a Slurm job-array script (one shard per array task) and its merge job (FILE.merge.sh) instead of sweeping (docs/cluster.md)", ""},
                  {"shards", "N", "with --slurm-script: the number of shards, one array task each", "8"},
                  {"output", "FOLDER", "with --slurm-script: the folder shared by the nodes (shard-K.db, logs, merged.db, manifest.json)", ""},
                  {"partition", "NAME", "with --slurm-script: sbatch's --partition", ""},
                  {"time", "LIMIT", "with --slurm-script: sbatch's --time, per array task (e.g. 2:00:00)", ""},
                  {"cpus-per-task", "N", "with --slurm-script: sbatch's --cpus-per-task, the replays each shard runs at once", "1"},
                  {"submit", "", "with --slurm-script: submit the array (only its shards not complete yet) and the merge job with sbatch, printing the job ids", ""},
                  {"status", "FOLDER", "print done, failed and pending runs per shard of a --slurm-script folder, with the failures' errors, and exit", ""},
                  {"quiet", "", "no progress output", ""}});
  return options;
}

// The options that describe the grid (all but db, preset, jobs, dry-run, quiet and the cluster's).
bool shapes_grid(const std::string& name) {
  static const std::set<std::string> others = {"db", "preset", "jobs", "plugin-time-limit", "dry-run", "quiet", "help", "slurm-script", "shards",
                                               "output", "partition", "time", "cpus-per-task", "submit", "status"};
  return !others.count(name);
}

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  char text[32];
  if (s >= 3600) std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(text, sizeof text, "%lld:%02lld", s / 60, s % 60);
  return text;
}

}  // namespace

const CommandSpec kSweep{
    "tilelens sweep --db FILE --workload SPEC [options]",
    "Replay every combination of the values given and store each run in the database as it finishes, on\n"
    "--jobs threads, with a progress bar. Rerunning the same sweep skips the runs already stored, so an\n"
    "interrupted sweep resumes where it stopped.",
    sweep_options(),
    "examples:\n"
    "  tilelens sweep --db fgcs.db --preset fgcs-fig5\n"
    "  tilelens sweep --db fgcs.db --workload 'matmul2d:N=5..60:5' --scheduler eager,rcm,mst,random --eviction lru\n"
    "  tilelens sweep --db hfp.db --workload 'matmul2d:N=10..40:10' --scheduler dmdar/lru,hfp/belady,hfp:fast_start=1/belady+time\n"
    "  tilelens sweep --db mem.db --workload matmul3d:N=10 --memory 100MiB,200MiB,400MiB --scheduler eager,rcm\n"
    "  tilelens sweep --db part-2.db --preset fgcs-fig5 --shard 2/8       # then: tilelens db merge all.db part-*.db\n"
    "  tilelens runs compare --sweep 1 --db fgcs.db"};

namespace {

int sweep_status(const std::string& folder, std::ostream& out, std::ostream& err) {
  auto statuses = core::shard_status(folder);
  if (!statuses) return fail(err, "--status: " + describe(statuses.error()));
  std::size_t total = 0, done = 0, failed = 0, pending = 0;
  out << "shard   runs   done  failed  pending\n";
  for (const auto& s : *statuses) {
    char line[96];
    std::snprintf(line, sizeof line, "%5u  %5zu  %5zu  %6zu  %7zu%s\n", s.shard, s.total, s.done, s.failed, s.pending,
                  s.database ? "" : "  (no database yet)");
    out << line;
    total += s.total, done += s.done, failed += s.failed, pending += s.pending;
  }
  out << "all    " << total << " runs: " << done << " done, " << failed << " failed, " << pending << " pending\n";
  for (const auto& s : *statuses) {
    for (const auto& error : s.errors) out << "shard " << s.shard << ": " << error << "\n";
  }
  return 0;
}

// Runs a command, returning its first line of output (sbatch --parsable: the job id).
Result<std::string> run_command(const std::string& command) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return make_error("cannot run " + command);
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  const int status = ::pclose(pipe);
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  if (status != 0) return make_error(command + " failed: " + output);
  return output.substr(0, output.find('\n'));
}

int slurm_script(const ParsedArgs& args, const core::SweepGrid& grid, std::ostream& out, std::ostream& err) {
  if (!args.has("output")) return fail(err, "--slurm-script needs --output FOLDER, a folder every node can write");
  core::SlurmJob job;
  if (args.has("preset")) job.options.emplace_back("preset", args.get("preset"));
  for (const auto& option : kSweep.options) {
    if (shapes_grid(option.name) && option.name != "shard" && args.has(option.name)) job.options.emplace_back(option.name, args.get(option.name));
  }
  for (const auto& [name, target, low, high] :
       {std::tuple{"shards", &job.shards, 1, 100000}, std::tuple{"cpus-per-task", &job.cpus_per_task, 1, 1024}}) {
    if (!args.has(name)) continue;
    auto value = parse_integer(args.get(name));
    if (!value || *value < low || *value > high) {
      return fail(err, "--" + std::string(name) + " takes a whole number from " + std::to_string(low) + " to " + std::to_string(high));
    }
    *target = static_cast<std::uint32_t>(*value);
  }
  job.folder = std::filesystem::absolute(args.get("output")).lexically_normal().string();
  job.partition = args.get("partition");
  job.time = args.get("time");
  std::error_code error;
  job.tilelens = std::filesystem::read_symlink("/proc/self/exe", error).string();
  if (error) job.tilelens = "tilelens";
  // A first check of the grid here, not on the cluster.
  if (auto jobs = core::expand_grid(grid); !jobs) return fail(err, describe(jobs.error()));
  const std::string script = args.get("slurm-script");
  if (auto status = core::write_slurm_job(job, script); !status) return fail(err, describe(status.error()));
  out << "wrote " << script << " (" << job.shards << " array tasks) and " << script << ".merge.sh; the shards go to " << job.folder << "\n";
  if (!args.has("submit")) {
    out << "submit: sbatch " << script << ", then sbatch --dependency=afterok:ARRAY_ID " << script << ".merge.sh (or use --submit)\n";
    return 0;
  }
  // Only the shards not complete yet: a re-submission skips the finished ones.
  std::vector<std::uint32_t> tasks;
  auto statuses = core::shard_status(job.folder);
  if (!statuses) return fail(err, describe(statuses.error()));
  for (const auto& s : *statuses) {
    if (s.done < s.total) tasks.push_back(s.shard);
  }
  std::string dependency;
  if (!tasks.empty()) {
    if (tasks.size() < job.shards) {
      std::ofstream rewrite(script, std::ios::trunc);
      rewrite << core::slurm_array_script(job, tasks);
    }
    auto array = run_command("sbatch --parsable " + core::shell_quoted(script));
    if (!array) return fail(err, "--submit: " + describe(array.error()) + " (is Slurm's sbatch installed and the cluster up?)");
    const std::string array_id = array->substr(0, array->find(';'));
    out << "submitted the array: job " << array_id << " (" << tasks.size() << " of " << job.shards << " shards)\n";
    dependency = " --dependency=afterok:" + array_id;
  } else {
    out << "every shard is complete: only the merge is submitted\n";
  }
  auto merge = run_command("sbatch --parsable" + dependency + " " + core::shell_quoted(script + ".merge.sh"));
  if (!merge) return fail(err, "--submit: " + describe(merge.error()));
  out << "submitted the merge: job " << merge->substr(0, merge->find(';')) << " (into " << job.folder << "/merged.db)\n";
  out << "progress: tilelens sweep --status " << job.folder << "\n";
  return 0;
}

}  // namespace

int cmd_sweep(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.positional.empty()) return fail(err, "unexpected argument '" + args.positional[0] + "'; see tilelens sweep --help");
  if (args.get("preset") == "list") {
    for (const auto& preset : sweep_presets()) out << preset.name << "  " << preset.figure << ": " << preset.title << "\n";
    out << "fgcs-fig7  the runs of fgcs-fig5 (Fig. 7 shows their transfers)\n";
    return 0;
  }
  if (args.has("status")) return sweep_status(args.get("status"), out, err);
  core::SweepGrid grid;
  if (args.has("preset")) {
    std::vector<std::string> given;
    for (const auto& option : kSweep.options) {
      if (args.has(option.name)) given.push_back(option.name);
    }
    if (auto status = core::apply_sweep_preset(grid, args.get("preset"), given); !status) return fail(err, describe(status.error()));
  }
  for (const auto& option : kSweep.options) {
    if (!shapes_grid(option.name) || !args.has(option.name)) continue;
    if (auto status = core::set_sweep_option(grid, option.name, args.get(option.name)); !status) return fail(err, describe(status.error()));
  }
  if (grid.workloads.empty()) return fail(err, "--workload is required; see tilelens sweep --help");
  if (args.has("slurm-script")) return slurm_script(args, grid, out, err);
  if (!args.has("db") && !args.has("dry-run")) return fail(err, "--db FILE is required");
  if (args.has("dry-run")) {
    auto jobs = core::expand_grid(grid);
    if (!jobs) return fail(err, describe(jobs.error()));
    for (const auto& job : *jobs) out << job.label << "\n";
    out << jobs->size() << " runs\n";
    return 0;
  }
  core::SweepOptions options;
  options.database = args.get("db");
  if (args.has("jobs")) {
    auto count = parse_integer(args.get("jobs"));
    if (!count || *count < 1 || *count > 1024) return fail(err, "--jobs must be a whole number from 1 to 1024");
    options.threads = static_cast<std::size_t>(*count);
  }
  if (args.has("plugin-time-limit")) {
    auto seconds = parse_real(args.get("plugin-time-limit"));
    if (!seconds || !(*seconds > 0) || *seconds > 1e6) return fail(err, "--plugin-time-limit must be a number of seconds above 0");
    options.plugin_time_limit_s = *seconds;
  }
  const bool progress_bar = !args.has("quiet") && &err == &std::cerr && isatty(STDERR_FILENO);
  const bool log_lines = !args.has("quiet") && !progress_bar;
  options.on_progress = [&](const core::SweepProgress& p) {
    if (log_lines) err << "[" << p.done << "/" << p.total << "] " << p.label << ": " << p.line << "\n";
    if (progress_bar) {
      constexpr std::size_t kWidth = 30;
      const std::size_t filled = p.done * kWidth / p.total;
      err << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] " << p.done << "/" << p.total
          << "  elapsed " << clock_text(p.elapsed_seconds) << "  left ~" << clock_text(p.left_seconds) << "   " << std::flush;
    }
  };
  auto report = core::run_sweep(grid, options);
  if (progress_bar) err << "\n";
  if (!report) return fail(err, describe(report.error()));
  out << "sweep " << report->sweep_id << ": " << report->total << " runs: " << report->stored << " stored, " << report->skipped
      << " skipped (already stored), "
      << (report->running_elsewhere ? std::to_string(report->running_elsewhere) + " left to another sweep running them, " : "")
      << report->failed << " failed, " << report->invalid << " invalid, in "
      << format_fixed(report->seconds, 1) << " s on " << report->threads << " thread" << (report->threads == 1 ? "" : "s") << "\n";
  if (!report->first_problem.empty()) out << "first problem: " << report->first_problem << "\n";
  out << "see: tilelens runs compare --sweep " << report->sweep_id << " --db " << report->database << "\n";
  return report->failed + report->invalid > 0 ? 1 : 0;
}

}  // namespace tilelens::cli
