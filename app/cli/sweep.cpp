// `tilelens sweep`: a grid of replays into a database (core/sweep.hpp), with a progress bar on
// a terminal and a line per run otherwise.
#include <unistd.h>

#include <iostream>

#include "app/cli/commands.hpp"
#include "core/sweep.hpp"
#include "presets/experiments.hpp"

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
                  {"memory-model", "SPEC", "one memory model for every run: starpu or fgcs, with key=value overrides (docs/replay.md)", "starpu"},
                  {"charge-scheduling", "", "charge every run's prepare() time to its makespan (as +time does for one entry)", ""},
                  {"scheduling-cost", "SPEC", "one scheduling cost for every run: push=2us,pop=1us,pop_per_task=5ns (docs/replay.md)", ""},
                  {"seeds", "LIST", "seeds, as 1..5 or 1,7,9: given to every scheduler and seeded generator whose spec sets none", ""},
                  {"jobs", "N", "replays run in parallel (default: the number of cores)", ""},
                  {"metrics-only", "", "store each run's metrics but not its trace (for very large sweeps)", ""},
                  {"shard", "K/N", "run only part K of N of the grid, balanced by estimated cost; the parts' databases merge into the whole sweep (tilelens db merge)", ""},
                  {"dry-run", "", "print the runs of the grid and exit", ""},
                  {"quiet", "", "no progress output", ""}});
  return options;
}

// The options that describe the grid (all but db, preset, jobs, dry-run and quiet).
bool shapes_grid(const std::string& name) {
  return name != "db" && name != "preset" && name != "jobs" && name != "dry-run" && name != "quiet" && name != "help";
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

int cmd_sweep(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.positional.empty()) return fail(err, "unexpected argument '" + args.positional[0] + "'; see tilelens sweep --help");
  if (args.get("preset") == "list") {
    for (const auto& preset : sweep_presets()) out << preset.name << "  " << preset.figure << ": " << preset.title << "\n";
    out << "fgcs-fig7  the runs of fgcs-fig5 (Fig. 7 shows their transfers)\n";
    return 0;
  }
  core::SweepGrid grid;
  if (args.has("preset")) {
    std::vector<std::string> given;
    for (const auto& option : kSweep.options) {
      if (args.has(option.name)) given.push_back(option.name);
    }
    if (auto status = core::apply_sweep_preset(grid, args.get("preset"), given); !status) return fail(err, status.error().message);
  }
  for (const auto& option : kSweep.options) {
    if (!shapes_grid(option.name) || !args.has(option.name)) continue;
    if (auto status = core::set_sweep_option(grid, option.name, args.get(option.name)); !status) return fail(err, status.error().message);
  }
  if (grid.workloads.empty()) return fail(err, "--workload is required; see tilelens sweep --help");
  if (!args.has("db") && !args.has("dry-run")) return fail(err, "--db FILE is required");
  if (args.has("dry-run")) {
    auto jobs = core::expand_grid(grid);
    if (!jobs) return fail(err, jobs.error().message);
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
  if (!report) return fail(err, report.error().message);
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
