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
#include "schedulers/scheduler.hpp"
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
// path and identity: "highest:depth=2". An embedded policy ("python.Mine", identity keys
// python.*) is labelled the same way, by its registered name.
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

// What a plugin asks of the executor (tl_host): the memory states, and, when `offers_future`
// (an eviction policy that declared needs_future), the scheduler's known future (TL_NEVER
// everywhere when the scheduler keeps none). Either view may be absent.
class PluginHost {
 public:
  void reset(const MemoryView* memory, const TaskFuture* future, bool offers_future);
  const tl_host* view() const { return &host_; }

 private:
  static int replica_state(void* context, std::uint32_t worker, std::uint32_t data);
  static double free_bytes(void* context, std::uint32_t worker);
  static std::uint64_t next_use(void* context, std::uint32_t gpu, std::uint32_t data);
  const MemoryView* memory_ = nullptr;
  const TaskFuture* future_ = nullptr;
  tl_host host_{};
};

// A plugin's description, loaded from the file a spec names: the library opened, its entry
// point (`entry`, returning a tl_scheduler_plugin or tl_eviction_plugin) called, its ABI and
// the functions it must have checked (`complete`; `required` names them in the error), and its
// parameters bound. `kind` is "scheduler" or "eviction policy", `component` the short word
// of the errors ("scheduler", "eviction").
template <class Plugin>
struct LoadedPlugin {
  std::shared_ptr<PluginLibrary> library;
  const Plugin* plugin = nullptr;
  PluginSpec bound;
};
template <class Plugin>
Result<LoadedPlugin<Plugin>> load_plugin(const Spec& spec, const char* entry_name, const char* kind, const char* component,
                                         bool (*complete)(const Plugin&), const char* required) {
  auto library = PluginLibrary::open(spec.name);
  if (!library) return library.error();
  using Entry = const Plugin* (*)();
  const auto entry = reinterpret_cast<Entry>((*library)->symbol(entry_name));
  if (!entry) {
    return make_error("plugin " + quote_input(spec.name) + " exports no " + kind + " (" + entry_name + "; include/tilelens/plugin.h)");
  }
  const Plugin* plugin = entry();
  if (!plugin || plugin->abi != TILELENS_PLUGIN_ABI) {
    return make_error(std::string(component) + " plugin " + quote_input(spec.name) + " is built for plugin ABI " +
                      (plugin ? std::to_string(plugin->abi) : "?") + ", this tilelens loads ABI " + std::to_string(TILELENS_PLUGIN_ABI));
  }
  if (!plugin->name || !complete(*plugin)) {
    return make_error(std::string(component) + " plugin " + quote_input(spec.name) + " lacks its name, " + required);
  }
  auto bound = bind_plugin_spec(spec, **library, plugin->name, plugin->version, plugin->params, component);
  if (!bound) return bound.error();
  return LoadedPlugin<Plugin>{std::move(*library), plugin, std::move(*bound)};
}

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
