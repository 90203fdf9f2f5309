// The command table: every tilelens command once, with its spec and handler. It drives the
// dispatch, the top-level help and each group's usage; nothing else lists the commands.
#include "app/cli/commands.hpp"

#include "core/exports.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <string_view>

#include "core/runs.hpp"
#include "core/policies.hpp"
#include "core/presets.hpp"

namespace tilelens::cli {
namespace {

// One listing for both registries: name, summary, then the parameters with defaults.
template <class Registry>
std::string list_registry(const std::string& title, const Registry& registry) {
  std::string out = title + ":\n";
  std::size_t width = 10;  // the names' column: the longest name and two spaces (starpu-random)
  for (const auto& info : registry) width = std::max(width, info.name.size() + 2);
  for (const auto& info : registry) {
    out += "  " + info.name + std::string(width - info.name.size(), ' ') + info.summary + "\n";
    out += describe_params(info.params);
  }
  return out;
}

const CommandSpec kSchedulers{"tilelens schedulers", "List the schedulers and their parameters.", {}, ""};
const CommandSpec kEvictions{"tilelens evictions", "List the eviction policies.", {}, ""};
const CommandSpec kPlatforms{"tilelens platforms", "List the platform presets.", {}, ""};
const CommandSpec kVersionSpec{"tilelens version", "Print the version.", {}, ""};

int cmd_schedulers(const ParsedArgs&, std::ostream& out, std::ostream&) {
  out << list_schedulers();
  return 0;
}
int cmd_evictions(const ParsedArgs&, std::ostream& out, std::ostream&) {
  out << list_evictions();
  return 0;
}
int cmd_platforms(const ParsedArgs&, std::ostream& out, std::ostream&) {
  out << list_platforms();
  return 0;
}
int cmd_version(const ParsedArgs&, std::ostream& out, std::ostream&) {
  out << "tilelens " << core::kVersion << "\n";
  return 0;
}

// A command is a group (its first word) and, within a group of several, a verb. The first
// command of a group carries the group's line of the top-level help.
struct Command {
  std::string_view group;
  std::string_view verb;  // "" for a command without verbs
  std::string_view summary;
  const CommandSpec& spec;
  Handler run;
};

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"workload", "generate", "seed workloads and workload files", kWorkloadGenerate, cmd_workload_generate},
      {"workload", "show", "", kWorkloadShow, cmd_workload_show},
      {"workload", "validate", "", kWorkloadValidate, cmd_workload_validate},
      {"workload", "list", "", kWorkloadList, cmd_workload_list},
      {"replay", "", "replay a workload under a scheduler and an eviction policy", kReplay, cmd_replay},
      {"sweep", "", "replay a grid of workloads x policies x platforms into a database", kSweep, cmd_sweep},
      {"optimum", "", "the order of fewest loads on a small instance, by exact search", kOptimum, cmd_optimum},
      {"runs", "list", "the runs stored in a database", kRunsList, cmd_runs_list},
      {"runs", "show", "", kRunsShow, cmd_runs_show},
      {"runs", "compare", "", kRunsCompare, cmd_runs_compare},
      {"runs", "delete", "", kRunsDelete, cmd_runs_delete},
      {"export", "csv", "a run (or a sweep's metrics) for other tools; export FORMAT: paje, chrome, ...", kExportCsv, cmd_export_csv},
      {"export", "starpu-simgrid", "", kExportStarpuSimgrid, cmd_export_starpu_simgrid},
      {"export", "starpu-replay", "", kExportStarpuReplay, cmd_export_starpu_replay},
      // After csv: `tilelens export FORMAT`, any exporter of the registry (paje, chrome, order, ...).
      {"export", "", "", export_run_spec(), cmd_export_run},
      {"import", "starpu", "a StarPU execution as a workload and a run; import FILE... recognises its files", kImportStarpu, cmd_import_starpu},
      // After the verbs: `tilelens import FILE...`, each file recognised by its content.
      {"import", "", "", kImportFiles, cmd_import_files},
      {"db", "schema", "the database itself: its schema, merging databases", kDbSchema, cmd_db_schema},
      {"db", "merge", "", kDbMerge, cmd_db_merge},
      {"execute", "", "run a workload on real GPUs (CUDA) under a scheduler, measured", kExecute, cmd_execute},
      {"calibrate", "", "a replay platform file from a measured run", kCalibrate, cmd_calibrate},
      {"fidelity", "", "replay a measured run on its calibrated platform, and compare", kFidelity, cmd_fidelity},
      {"results", "", "the papers' tables from preset sweeps (docs/results.md)", kResults, cmd_results},
      {"bench", "replay", "measure the replay engine, the trace store, the schedulers, the executor", kBenchReplay, cmd_bench_replay},
      {"bench", "db", "", kBenchDb, cmd_bench_db},
      {"bench", "schedulers", "", kBenchSchedulers, cmd_bench_schedulers},
      {"bench", "gpu", "", kBenchGpu, cmd_bench_gpu},
      {"bench", "cluster", "", kBenchCluster, cmd_bench_cluster},
      {"bench", "optimum", "", kBenchOptimum, cmd_bench_optimum},
      {"schedulers", "", "list the schedulers", kSchedulers, cmd_schedulers},
      {"evictions", "", "list the eviction policies", kEvictions, cmd_evictions},
      {"platforms", "", "list the platform presets", kPlatforms, cmd_platforms},
      {"version", "", "print the version", kVersionSpec, cmd_version},
  };
  return table;
}

// "list|show|compare|delete" for a group, "" for a command without verbs.
std::string verbs_of(std::string_view group) {
  std::string verbs;
  for (const Command& command : commands()) {
    if (command.group == group && !command.verb.empty()) verbs += (verbs.empty() ? "" : "|") + std::string(command.verb);
  }
  return verbs;
}

std::string group_names() {
  std::string names;
  std::string_view last;
  for (const Command& command : commands()) {
    if (command.group == last) continue;
    last = command.group;
    names += (names.empty() ? "" : ", ") + std::string(command.group);
  }
  return names;
}

std::string top_help() {
  std::string text = std::string("tilelens ") + core::kVersion +
                     ": replay task schedulers on GPUs with limited memory and see what they load.\n\n"
                     "usage: tilelens COMMAND [options]   (every command takes --help)\n\n"
                     "commands:\n";
  for (const Command& command : commands()) {
    if (command.summary.empty()) continue;
    const std::string verbs = verbs_of(command.group);
    std::string left = "  " + std::string(command.group) + (verbs.empty() ? "" : " " + verbs);
    left.resize(std::max<std::size_t>(left.size() + 1, 41), ' ');
    text += left + std::string(command.summary) + "\n";
  }
  return text;
}

std::string group_usage(std::string_view group) {
  std::string text = "usage: tilelens " + std::string(group) + " " + verbs_of(group) + " ... (each takes --help)\n";
  for (const Command& command : commands()) {
    if (command.group == group) text += "  " + command.spec.usage + "\n";
  }
  return text;
}

int run_command(const Command& command, const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  auto parsed = parse_args(command.spec, args);
  if (!parsed) return fail(err, describe(parsed.error()));
  if (parsed->has("help")) {
    out << help_text(command.spec);
    return 0;
  }
  return command.run(*parsed, out, err);
}

}  // namespace

std::string describe(const Error& error) { return error.field.empty() ? error.message : "--" + error.field + ": " + error.message; }

int fail(std::ostream& err, const std::string& message) {
  err << "tilelens: " << message << "\n";
  return 2;
}

std::string list_schedulers() { return list_registry("schedulers", scheduler_registry()); }
std::string list_evictions() { return list_registry("eviction policies", eviction_registry()); }

std::string list_generators() {
  std::string out = "workload generators (use NAME:key=value,...):\n";
  for (const auto& g : workload_generators()) {
    out += "  " + g.name + "\n      " + g.summary + "\n";
    out += describe_params(g.params);
  }
  return out;
}

std::string list_platforms() {
  std::string out = "platform presets:\n";
  for (const auto& preset : platform_presets()) out += "  " + preset.name + "  " + preset.summary + "\n";
  return out;
}

Result<db::Store> open_store(const ParsedArgs& args, db::Store::OpenMode mode) {
  if (!args.has("db")) return make_error("--db FILE is required");
  return db::Store::open(args.get("db"), mode);
}

Result<std::int64_t> parse_run_id(const std::string& text, const std::string& what) {
  auto id = parse_integer(text);
  if (!id || *id < 1) return make_error(what + " must be a run id (a whole number from 'tilelens runs list'), got '" + text + "'");
  return *id;
}

std::vector<OptionSpec> platform_option_specs() {
  std::vector<OptionSpec> specs;
  for (const auto& option : core::platform_options()) specs.push_back({option.name, option.value_name, option.help, ""});
  return specs;
}

Status read_platform_options(const ParsedArgs& args, core::PlatformChoice& choice) {
  for (const auto& option : core::platform_options()) {
    if (!args.has(option.name)) continue;
    if (auto status = option.set(args.get(option.name), choice); !status) return status;
  }
  return Status::success();
}

int with_output(const ParsedArgs& args, std::ostream& out, std::ostream& err, const std::function<Status(std::ostream&)>& write) {
  if (!args.has("output")) {
    auto status = write(out);
    return status ? 0 : fail(err, describe(status.error()));
  }
  const std::string path = args.get("output");
  if (auto status = write_output_file(path, write); !status) return fail(err, "--output: " + describe(status.error()));
  err << "wrote " << path << "\n";
  return 0;
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << top_help();
    return 2;
  }
  const std::string& first = args[0];
  if (first == "--help" || first == "-h" || first == "help") {
    out << top_help();
    return 0;
  }
  if (first == "--version") return cmd_version({}, out, err);
  const std::string verbs = verbs_of(first);
  bool known = false;
  for (const Command& command : commands()) {
    if (command.group != first) continue;
    known = true;
    if (command.verb.empty()) return run_command(command, {args.begin() + 1, args.end()}, out, err);
    if (args.size() > 1 && command.verb == args[1]) return run_command(command, {args.begin() + 2, args.end()}, out, err);
  }
  if (!known) return fail(err, "unknown command '" + first + "' (valid: " + group_names() + ")");
  if (args.size() == 1) {
    err << group_usage(first);
    return 2;
  }
  if (args[1] == "--help" || args[1] == "-h") {
    out << group_usage(first);
    return 0;
  }
  return fail(err, "unknown " + first + " command '" + args[1] + "' (valid: " + verbs + ")");
}

}  // namespace tilelens::cli
