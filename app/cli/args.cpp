// Option parsing for the tilelens CLI; see args.hpp.
#include "app/cli/args.hpp"

namespace tilelens::cli {

std::string ParsedArgs::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it != values_.end()) return it->second;
  auto d = defaults_.find(name);
  return d == defaults_.end() ? std::string() : d->second;
}

Result<ParsedArgs> parse_args(const CommandSpec& spec, const std::vector<std::string>& args) {
  ParsedArgs parsed;
  for (const auto& option : spec.options) parsed.defaults_[option.name] = option.default_value;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      parsed.values_["help"] = "1";
      continue;
    }
    if (arg.size() < 3 || arg.rfind("--", 0) != 0) {
      parsed.positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> inline_value;
    if (const auto equal = name.find('='); equal != std::string::npos) {
      inline_value = name.substr(equal + 1);
      name.resize(equal);
    }
    const OptionSpec* option = nullptr;
    for (const auto& candidate : spec.options) {
      if (candidate.name == name) option = &candidate;
    }
    if (option == nullptr) {
      std::string valid;
      for (const auto& candidate : spec.options) valid += (valid.empty() ? "--" : ", --") + candidate.name;
      return make_error("unknown option '--" + name + "' (valid: " + valid + ", --help)");
    }
    if (option->value_name.empty()) {
      if (inline_value) return make_error("option --" + name + " takes no value");
      parsed.values_[name] = "1";
      continue;
    }
    if (inline_value) {
      parsed.values_[name] = *inline_value;
    } else {
      if (i + 1 >= args.size()) return make_error("option --" + name + " needs a value: " + option->value_name);
      parsed.values_[name] = args[++i];
    }
  }
  return parsed;
}

std::string help_text(const CommandSpec& spec) {
  std::string out = "usage: " + spec.usage + "\n\n" + spec.summary + "\n";
  if (!spec.options.empty()) out += "\noptions:\n";
  for (const auto& option : spec.options) {
    std::string left = "  --" + option.name + (option.value_name.empty() ? "" : " " + option.value_name);
    if (left.size() < 28) left.resize(28, ' ');
    else left += "\n" + std::string(28, ' ');
    out += left + option.help;
    if (!option.default_value.empty()) out += " (default: " + option.default_value + ")";
    out += "\n";
  }
  out += "  --help                    this text\n";
  if (!spec.epilog.empty()) out += "\n" + spec.epilog + "\n";
  return out;
}

}  // namespace tilelens::cli
