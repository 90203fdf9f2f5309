// The tilelens subcommands. run_cli() is the whole tool minus main(), so tests can drive it
// with arguments and read what it prints.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "replay/engine.hpp"
#include "analysis/bounds.hpp"

namespace tilelens::cli {

inline constexpr const char* kVersion = "0.1.0";

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// What a replay command needs, resolved from its options.
struct ReplaySetup {
  Workload workload;
  std::string workload_spec;
  std::string scheduler_spec;
  std::string eviction_spec;
  ReplayOptions options;
};

// Prints "tilelens: MESSAGE" and returns the usage-error status, 2.
int fail(std::ostream& err, const std::string& message);
// The replay command's options (as `tilelens replay` takes them) resolved into a setup.
Result<ReplaySetup> resolve_replay_args(const std::vector<std::string>& args);

// Writes through `write` to the file named by --output (atomically: a temporary file renamed
// at the end, so a failure leaves the old file intact) or to `out` without --output.
int with_output(const ParsedArgs& args, std::ostream& out, std::ostream& err, const std::function<Status(std::ostream&)>& write);

int cmd_results(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int run_bench(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int bench_gpu(bool quick, const std::string& section, std::ostream& out, std::ostream& err);  // bench_gpu.cpp
int cmd_runs(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_sweep(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_export(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_import(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_execute(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_calibrate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_fidelity(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tilelens::cli
