// A policy plugin's shared library (include/tilelens/plugin.h): opened once per policy made
// from it, kept open while the policy lives, and known by its file's content hash, so that a
// run records which build of the plugin made it. Shared by the scheduler and eviction
// adapters (schedulers/plugin_scheduler.cpp, eviction/plugin_eviction.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "include/tilelens/plugin.h"
#include "model/model.hpp"
#include "model/params.hpp"
#include "util/quoted.hpp"

namespace tilelens {

// Whether a policy spec's name is a plugin's path rather than a built-in's name: it holds a
// '/' or ends in ".so" (`./libmine.so`, `/opt/lib/libvictim.so`).
bool is_plugin_path(std::string_view name);

class PluginLibrary {
 public:
  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;
  // Opens `path`; the error names the file and what went wrong (missing, not a library).
  static Result<std::shared_ptr<PluginLibrary>> open(const std::string& path);
  // The exported symbol, or null.
  void* symbol(const char* name) const;
  const std::string& path() const { return path_; }  // absolute
  const std::string& hash() const { return hash_; }  // FNV-1a of the file, 16 hex digits

 private:
  PluginLibrary() = default;
  void* handle_ = nullptr;
  std::string path_, hash_;
};

// The identity and values of a plugin policy, as its canonical spec records them:
// "PATH:key=value,...,plugin.hash=H,plugin.name=N,plugin.version=V". A spec that carries a
// plugin.hash (a stored run's) must match the file now there, else the error says it changed.
struct PluginSpec {
  std::string canonical;
  std::map<std::string, std::string> values;  // the declared parameters, defaults filled in
};
Result<PluginSpec> bind_plugin_spec(const Spec& spec, const PluginLibrary& library, const char* name, const char* version,
                                    const tl_param* declared, std::string_view component);

// A plugin policy's label: its own name (plugin.name) and the parameters given, without its
// path and identity: "highest:depth=2".
std::string plugin_label(const Spec& spec);

// The workload as plugin.h lays it out: flat arrays the views point into.
class PluginWorkload {
 public:
  explicit PluginWorkload(const Workload& workload);
  const tl_workload& view() const { return view_; }

 private:
  std::vector<std::string> kind_names_;
  std::vector<const char*> kind_pointers_;
  std::vector<std::uint16_t> kind_;
  std::vector<double> flops_;
  std::vector<std::int64_t> priority_;
  std::vector<std::uint32_t> access_begin_, access_data_, successor_begin_, successors_;
  std::vector<std::uint8_t> access_mode_;
  std::vector<std::uint64_t> bytes_;
  tl_workload view_{};
};

tl_platform plugin_platform(const Platform& platform);

// The declared parameters' values as plugin.h passes them to create(), ended by {NULL, NULL}.
class PluginValues {
 public:
  explicit PluginValues(const std::map<std::string, std::string>& values);
  const tl_param* data() const { return params_.data(); }

 private:
  std::vector<std::pair<std::string, std::string>> strings_;
  std::vector<tl_param> params_;
};

}  // namespace tilelens
