// Policies an embedding program registers while it runs, made by name like the built-in ones:
// the Python module's classes (app/python), named "python.CLASS". A factory binds the spec's
// values itself and returns the canonical spec the run records. The registry lives as long as
// the process; registering a name again replaces its factory for the runs made after.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "model/params.hpp"

namespace tilelens {

template <class Made>
class EmbeddedPolicies {
 public:
  using Factory = std::function<Result<Made>(const Spec&)>;
  void add(const std::string& name, Factory make) {
    const std::lock_guard lock(mutex_);
    factories_[name] = std::move(make);
  }
  // Made by the factory registered under the spec's name; `kind` words the error ("scheduler").
  Result<Made> make(const Spec& spec, std::string_view kind) const {
    Factory factory;
    {
      // A copy, so that a registration meanwhile does not pull the factory from under its caller.
      const std::lock_guard lock(mutex_);
      const auto found = factories_.find(spec.name);
      if (found == factories_.end()) {
        return make_error("unknown " + std::string(kind) + " '" + spec.name + "': no class of that name is registered in this process");
      }
      factory = found->second;
    }
    return factory(spec);
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Factory> factories_;
};

// The prefix of an embedded policy's name, and of the identity keys its canonical spec carries
// (python.hash, python.version), which labels leave out.
inline constexpr const char* kEmbeddedPrefix = "python.";
inline bool is_embedded_name(std::string_view name) { return name.rfind(kEmbeddedPrefix, 0) == 0; }

}  // namespace tilelens
