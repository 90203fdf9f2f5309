// The tilelens commands. Each is a spec (its options and help, args.hpp) and a handler that
// turns the parsed options into a core request, calls the core and prints the result; the
// one command table (commands.cpp) lists them for dispatch and for the top-level help.
// run_cli() is the whole tool minus main(), so tests can drive it and read what it prints.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "core/platform_choice.hpp"
#include "core/store.hpp"

namespace tilelens::cli {

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Prints "tilelens: MESSAGE" and returns the usage-error status, 2.
int fail(std::ostream& err, const std::string& message);
// An error as the CLI words it: a core error about a request field names its option
// ("--memory-model: unknown model 'x'"); any other error is its message.
std::string describe(const Error& error);

// Writes through `write` to the file named by --output (atomically: a temporary file renamed
// at the end, so a failure leaves the old file intact) or to `out` without --output.
int with_output(const ParsedArgs& args, std::ostream& out, std::ostream& err, const std::function<Status(std::ostream&)>& write);

// The platform options table (core/platform_choice.hpp) as command-line options, and the
// given ones read into a choice.
std::vector<OptionSpec> platform_option_specs();
Status read_platform_options(const ParsedArgs& args, core::PlatformChoice& choice);


// The --db option of the commands that read a database, opening it, and run ids as given.
// Inline, so that it is initialized before the specs of any file that copies it (an extern
// defined in commands.cpp would depend on the order of static initialization across files).
inline const OptionSpec kDbOption{"db", "FILE", "the database", ""};
Result<db::Store> open_store(const ParsedArgs& args, db::Store::OpenMode mode);
Result<std::int64_t> parse_run_id(const std::string& text, const std::string& what);

using Handler = int (*)(const ParsedArgs& args, std::ostream& out, std::ostream& err);

// Every command: its spec and its handler, one pair per file that implements it.
extern const CommandSpec kWorkloadGenerate, kWorkloadShow, kWorkloadValidate, kWorkloadList;
int cmd_workload_generate(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_workload_show(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_workload_validate(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_workload_list(const ParsedArgs&, std::ostream&, std::ostream&);

extern const CommandSpec kReplay;  // replay.cpp
int cmd_replay(const ParsedArgs&, std::ostream&, std::ostream&);

extern const CommandSpec kSweep;  // sweep.cpp
int cmd_sweep(const ParsedArgs&, std::ostream&, std::ostream&);

extern const CommandSpec kResults;  // results.cpp
int cmd_results(const ParsedArgs&, std::ostream&, std::ostream&);

extern const CommandSpec kOptimum, kBenchOptimum;  // optimum.cpp
int cmd_optimum(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_bench_optimum(const ParsedArgs&, std::ostream&, std::ostream&);

extern const CommandSpec kRunsList, kRunsShow, kRunsCompare, kRunsDelete;  // runs.cpp
int cmd_runs_list(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_runs_show(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_runs_compare(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_runs_delete(const ParsedArgs&, std::ostream&, std::ostream&);

extern const CommandSpec kExportCsv;  // exports.cpp
const CommandSpec& export_run_spec();  // exports.cpp: `tilelens export FORMAT`, its formats from the registry
int cmd_export_csv(const ParsedArgs&, std::ostream&, std::ostream&);
extern const CommandSpec kExportStarpuSimgrid;  // exports.cpp
extern const CommandSpec kExportStarpuReplay;  // exports.cpp
int cmd_export_starpu_simgrid(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_export_starpu_replay(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_export_run(const ParsedArgs&, std::ostream&, std::ostream&);

extern const CommandSpec kImportStarpu;  // import.cpp
int cmd_import_starpu(const ParsedArgs&, std::ostream&, std::ostream&);
extern const CommandSpec kImportFiles;  // import.cpp
int cmd_import_files(const ParsedArgs&, std::ostream&, std::ostream&);

extern const CommandSpec kExecute, kCalibrate, kFidelity;  // execute.cpp
int cmd_execute(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_calibrate(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_fidelity(const ParsedArgs&, std::ostream&, std::ostream&);

extern const CommandSpec kDbSchema;  // db.cpp
int cmd_db_schema(const ParsedArgs&, std::ostream&, std::ostream&);
extern const CommandSpec kBenchCluster;  // bench_cluster.cpp
int cmd_bench_cluster(const ParsedArgs&, std::ostream&, std::ostream&);
extern const CommandSpec kDbMerge;  // db.cpp
int cmd_db_merge(const ParsedArgs&, std::ostream&, std::ostream&);

extern const CommandSpec kBenchReplay, kBenchDb, kBenchSchedulers, kBenchGpu;  // bench.cpp, bench_gpu.cpp
int cmd_bench_replay(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_bench_db(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_bench_schedulers(const ParsedArgs&, std::ostream&, std::ostream&);
int cmd_bench_gpu(const ParsedArgs&, std::ostream&, std::ostream&);

// The registries as lists (`tilelens schedulers`, `replay --scheduler list`, ...).
std::string list_schedulers();
std::string list_evictions();
std::string list_platforms();
std::string list_generators();

}  // namespace tilelens::cli
