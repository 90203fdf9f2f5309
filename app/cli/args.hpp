// A small command-line option parser for the tilelens subcommands: each command declares its
// options (with help), "--key value" and "--key=value" both work, unknown options are errors
// that list the valid ones, and --help prints the declaration.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/units.hpp"

namespace tilelens::cli {

struct OptionSpec {
  std::string name;         // without the leading dashes
  std::string value_name;   // empty for a flag
  std::string help;
  std::string default_value;
};

struct CommandSpec {
  std::string usage;        // "tilelens replay [options]"
  std::string summary;
  std::vector<OptionSpec> options;
  std::string epilog;
};

class ParsedArgs {
 public:
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name) const;  // value or the declared default
  std::vector<std::string> positional;

 private:
  friend Result<ParsedArgs> parse_args(const CommandSpec&, const std::vector<std::string>&);
  std::map<std::string, std::string> values_;
  std::map<std::string, std::string> defaults_;
};

// --help is handled by the caller (has("help")); it is always accepted.
Result<ParsedArgs> parse_args(const CommandSpec& spec, const std::vector<std::string>& args);
std::string help_text(const CommandSpec& spec);

}  // namespace tilelens::cli
