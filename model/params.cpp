// Parameter specs; see params.hpp.
#include "model/params.hpp"
#include "util/quoted.hpp"

#include "model/units.hpp"

namespace tilelens {

Result<Spec> parse_spec(std::string_view text) {
  Spec spec;
  const auto colon = text.find(':');
  spec.name = std::string(text.substr(0, colon));
  if (spec.name.empty()) return make_error("empty name in " + quote_input(text));
  if (colon == std::string_view::npos) return spec;
  std::string_view rest = text.substr(colon + 1);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const auto equal = item.find('=');
    if (equal == std::string_view::npos || equal == 0) {
      return make_error(quote_input(item) + " in " + quote_input(text) + " is not key=value");
    }
    const std::string key(item.substr(0, equal));
    if (spec.values.count(key)) return make_error("parameter " + quote_input(key) + " given twice in " + quote_input(text));
    spec.values[key] = std::string(item.substr(equal + 1));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return spec;
}

Result<Params> Params::bind(const Spec& spec, const std::vector<ParamSpec>& declared, std::string_view component) {
  Params params;
  params.component_ = std::string(component) + " '" + spec.name + "'";
  params.name_ = spec.name;
  for (const auto& param : declared) params.values_[param.key] = param.default_value;
  for (const auto& [key, value] : spec.values) {
    if (!params.values_.count(key)) {
      std::string valid;
      for (const auto& param : declared) valid += (valid.empty() ? "" : ", ") + param.key;
      return make_error("unknown parameter '" + key + "' for " + params.component_ +
                        (valid.empty() ? " (it takes no parameters)" : " (valid: " + valid + ")"));
    }
    params.values_[key] = value;
  }
  return params;
}

Result<std::int64_t> Params::integer(const std::string& key) const {
  auto value = parse_integer(values_.at(key));
  if (!value) return make_error("parameter " + key + " of " + component_ + ": " + value.error().message);
  return value;
}

Result<double> Params::real(const std::string& key) const {
  auto value = parse_real(values_.at(key));
  if (!value) return make_error("parameter " + key + " of " + component_ + ": " + value.error().message);
  return value;
}

Result<bool> Params::flag(const std::string& key) const {
  const std::string& value = values_.at(key);
  if (value == "1" || value == "true" || value == "yes" || value == "on") return true;
  if (value == "0" || value == "false" || value == "no" || value == "off") return false;
  return make_error("parameter " + key + " of " + component_ + ": '" + value + "' is not 0 or 1");
}

Status Params::flags(std::initializer_list<std::pair<const char*, bool*>> targets) const {
  for (const auto& [key, target] : targets) {
    auto value = flag(key);
    if (!value) return value.error();
    *target = *value;
  }
  return Status::success();
}

std::string Params::canonical() const {
  std::string out = name_;
  char separator = ':';
  for (const auto& [key, value] : values_) {
    out += separator + key + "=" + value;
    separator = ',';
  }
  return out;
}

std::string describe_params(const std::vector<ParamSpec>& declared) {
  std::string out;
  for (const auto& param : declared) {
    out += "    " + param.key + "=" + param.default_value + "  " + param.help + "\n";
  }
  return out;
}

}  // namespace tilelens
