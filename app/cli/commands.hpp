// The tilelens subcommands. run_cli() is the whole tool minus main(), so tests can drive it
// with arguments and read what it prints.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "replay/engine.hpp"
#include "schedulers/bounds.hpp"

namespace tilelens::cli {

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// What a replay command needs, resolved from its options.
struct ReplaySetup {
  Workload workload;
  std::string workload_spec;
  std::string scheduler_spec;
  std::string eviction_spec;
  ReplayOptions options;
};

int run_bench(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tilelens::cli
