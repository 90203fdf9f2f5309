// A policy plugin's shared library; see plugin_library.hpp.
#include "schedulers/plugin_library.hpp"

#include <dlfcn.h>

#include <filesystem>

#include "util/content_hash.hpp"

namespace tilelens {

bool is_plugin_path(std::string_view name) {
  return name.find('/') != std::string_view::npos || (name.size() > 3 && name.substr(name.size() - 3) == ".so");
}

PluginLibrary::~PluginLibrary() {
  if (handle_) dlclose(handle_);
}

Result<std::shared_ptr<PluginLibrary>> PluginLibrary::open(const std::string& path) {
  std::error_code error;
  const auto absolute = std::filesystem::absolute(path, error);
  if (error || !std::filesystem::is_regular_file(absolute, error)) return make_error("plugin " + quote_input(path) + ": no such file");
  const auto bytes = read_file_bytes(absolute.string());
  if (!bytes) return make_error("plugin " + quote_input(path) + ": cannot be read");
  std::shared_ptr<PluginLibrary> library(new PluginLibrary);
  library->path_ = absolute.lexically_normal().string();
  library->hash_ = content_hash(*bytes);
  // RTLD_LOCAL: two plugins may define the same symbols; RTLD_NOW: a missing symbol is an error
  // here, not a crash in the middle of a run.
  library->handle_ = dlopen(library->path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library->handle_) {
    const char* why = dlerror();
    return make_error("plugin " + quote_input(path) + " does not load as a shared library: " + (why ? why : "unknown error"));
  }
  return library;
}

void* PluginLibrary::symbol(const char* name) const { return dlsym(handle_, name); }

Result<PluginSpec> bind_plugin_spec(const Spec& spec, const PluginLibrary& library, const char* name, const char* version,
                                    const tl_param* declared, std::string_view component) {
  PluginSpec bound;
  std::string valid;
  for (const tl_param* p = declared; p && p->key; ++p) {
    bound.values[p->key] = p->value ? p->value : "";
    valid += (valid.empty() ? "" : ", ") + std::string(p->key);
  }
  const std::string who = std::string(component) + " plugin '" + (name ? name : "?") + "' (" + library.path() + ")";
  for (const auto& [key, value] : spec.values) {
    if (key.rfind("plugin.", 0) == 0 || key.rfind(kEmbeddedPrefix, 0) == 0) continue;  // identity, not parameters  // the identity a stored run recorded, checked below
    if (!bound.values.count(key)) {
      return make_error("unknown parameter '" + key + "' for " + who + (valid.empty() ? " (it takes no parameters)" : " (valid: " + valid + ")"));
    }
    bound.values[key] = value;
  }
  if (const auto recorded = spec.values.find("plugin.hash"); recorded != spec.values.end() && recorded->second != library.hash()) {
    return make_error(who + " changed since the run that named it: the run's build had hash " + recorded->second + ", the file now " +
                      library.hash());
  }
  std::map<std::string, std::string> all = bound.values;
  all["plugin.hash"] = library.hash();
  all["plugin.name"] = name ? name : "";
  all["plugin.version"] = version ? version : "";
  bound.canonical = library.path();
  char separator = ':';
  for (const auto& [key, value] : all) {
    bound.canonical += separator + key + "=" + value;
    separator = ',';
  }
  return bound;
}

std::string plugin_label(const Spec& spec) {
  const auto name = spec.values.find("plugin.name");
  std::string out = name != spec.values.end() && !name->second.empty() ? name->second : spec.name;
  char separator = ':';
  for (const auto& [key, value] : spec.values) {
    if (key.rfind("plugin.", 0) == 0 || key.rfind(kEmbeddedPrefix, 0) == 0) continue;  // identity, not parameters
    out += separator + key + "=" + value;
    separator = ',';
  }
  return out;
}

PluginWorkload::PluginWorkload(const Workload& w) {
  for (const auto& kind : w.kinds()) kind_names_.push_back(kind);
  for (const auto& kind : kind_names_) kind_pointers_.push_back(kind.c_str());
  for (TaskId t = 0; t < w.task_count(); ++t) {
    const Task& task = w.tasks()[t];
    kind_.push_back(task.kind);
    flops_.push_back(task.flops);
    priority_.push_back(task.priority);
    access_begin_.push_back(static_cast<std::uint32_t>(access_data_.size()));
    for (const Access& access : w.accesses(t)) {
      access_data_.push_back(access.data);
      access_mode_.push_back(access.mode == AccessMode::Read ? TL_READ : access.mode == AccessMode::Write ? TL_WRITE : TL_READ_WRITE);
    }
    successor_begin_.push_back(static_cast<std::uint32_t>(successors_.size()));
    for (TaskId successor : w.successors(t)) successors_.push_back(successor);
  }
  access_begin_.push_back(static_cast<std::uint32_t>(access_data_.size()));
  successor_begin_.push_back(static_cast<std::uint32_t>(successors_.size()));
  for (const Data& data : w.data()) bytes_.push_back(data.bytes);
  view_ = tl_workload{static_cast<std::uint32_t>(w.task_count()), static_cast<std::uint32_t>(w.data_count()),
                      static_cast<std::uint32_t>(kind_pointers_.size()), kind_pointers_.data(), kind_.data(), flops_.data(),
                      priority_.data(), access_begin_.data(), access_data_.data(), access_mode_.data(), bytes_.data(),
                      successor_begin_.data(), successors_.data()};
}

tl_platform plugin_platform(const Platform& platform) {
  return tl_platform{platform.gpus, platform.cpus, platform.memory_nodes(), platform.memory_bytes, platform.bus_bandwidth};
}

void PluginHost::reset(const MemoryView* memory, const TaskFuture* future, bool offers_future) {
  memory_ = memory;
  future_ = future;
  host_ = tl_host{this, &replica_state, &free_bytes, offers_future ? &next_use : nullptr};
}

int PluginHost::replica_state(void* context, std::uint32_t worker, std::uint32_t data) {
  const auto* self = static_cast<const PluginHost*>(context);
  if (!self->memory_) return TL_ABSENT;
  switch (self->memory_->state(worker, data)) {
    case ReplicaState::Resident: return TL_RESIDENT;
    case ReplicaState::Loading: return TL_LOADING;
    default: return TL_ABSENT;
  }
}

double PluginHost::free_bytes(void* context, std::uint32_t worker) {
  const auto* self = static_cast<const PluginHost*>(context);
  return self->memory_ ? self->memory_->free_bytes(worker) : 0;
}

std::uint64_t PluginHost::next_use(void* context, std::uint32_t gpu, std::uint32_t data) {
  const auto* self = static_cast<const PluginHost*>(context);
  return self->future_ ? self->future_->next_use(gpu, data) : TL_NEVER;
}

PluginValues::PluginValues(const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values) strings_.emplace_back(key, value);
  for (const auto& [key, value] : strings_) params_.push_back(tl_param{key.c_str(), value.c_str()});
  params_.push_back(tl_param{nullptr, nullptr});
}

}  // namespace tilelens
