// Named parameters as "name:key=value,key=value" specs, the one syntax tilelens uses for
// workloads ("matmul2d:N=20,n=4"), schedulers ("random:seed=3") and eviction policies.
// Each component declares its parameters with defaults and help; unknown keys are errors
// that list the valid ones.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace tilelens {

struct ParamSpec {
  std::string key;
  std::string default_value;
  std::string help;
};

struct Spec {
  std::string name;
  std::map<std::string, std::string> values;  // as typed, before checking
};

// Splits "name:key=value,key=value" (a bare "name" has no values).
Result<Spec> parse_spec(std::string_view text);

// Checked parameters of one component: every key is declared, defaults fill the rest.
class Params {
 public:
  static Result<Params> bind(const Spec& spec, const std::vector<ParamSpec>& declared, std::string_view component);

  const std::string& text(const std::string& key) const { return values_.at(key); }
  Result<std::int64_t> integer(const std::string& key) const;
  Result<double> real(const std::string& key) const;
  // 1/0, true/false, yes/no, on/off.
  Result<bool> flag(const std::string& key) const;
  // Reads several flags into their targets; the first bad value is the error.
  Status flags(std::initializer_list<std::pair<const char*, bool*>> targets) const;
  // The canonical spec with every parameter, e.g. "matmul2d:N=20,b=960,n=4": what a run records.
  std::string canonical() const;
  // Sets a declared parameter to what the component found out itself (a file's digest), so
  // that the canonical spec records it.
  void record(const std::string& key, std::string value) { values_[key] = std::move(value); }

 private:
  std::string component_;
  std::string name_;
  std::map<std::string, std::string> values_;
};

std::string describe_params(const std::vector<ParamSpec>& declared);

}  // namespace tilelens
