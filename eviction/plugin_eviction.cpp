// An eviction policy from a plugin (include/tilelens/plugin.h): the adapter between the
// EvictionPolicy interface and the plugin's C functions. A policy that declares needs_future
// reads the scheduler's known future through tl_host.next_use, as Belady does.
#include "eviction/plugin_eviction.hpp"

#include "schedulers/plugin_library.hpp"

namespace tilelens {
namespace {

class PluginEviction final : public EvictionPolicy {
 public:
  PluginEviction(std::shared_ptr<PluginLibrary> library, const tl_eviction_plugin* plugin, std::map<std::string, std::string> values)
      : library_(std::move(library)), plugin_(plugin), values_(std::move(values)) {}
  ~PluginEviction() override { release(); }

  Status attach(const EvictionContext& context) override {
    release();
    context_ = context;
    workload_ = std::make_unique<PluginWorkload>(*context.workload);
    platform_ = plugin_platform(*context.platform);
    host_ = tl_host{this, &replica_state, &free_bytes, plugin_->needs_future ? &next_use : nullptr};
    const PluginValues values(values_);
    char error[512] = "";
    self_ = plugin_->create(&workload_->view(), &platform_, &host_, values.data(), error, sizeof error);
    if (!self_) return make_error("eviction plugin '" + std::string(plugin_->name) + "' refused the run: " + (error[0] ? error : "no reason given"));
    return Status::success();
  }
  void on_inserted(GpuId memory, DataId data) override {
    if (plugin_->inserted) plugin_->inserted(self_, memory, data);
  }
  void on_used(GpuId memory, DataId data) override {
    if (plugin_->used) plugin_->used(self_, memory, data);
  }
  void on_removed(GpuId memory, DataId data) override {
    if (plugin_->removed) plugin_->removed(self_, memory, data);
  }
  bool follows_future() const override { return plugin_->needs_future != 0; }
  std::optional<DataId> choose_victim(GpuId memory, const VictimRequest& request) override {
    std::uint32_t victim = 0;
    const auto evictable = [](void* context, std::uint32_t data) -> int {
      return (*static_cast<const FunctionRef<bool(DataId)>*>(context))(data) ? 1 : 0;
    };
    FunctionRef<bool(DataId)> test = request.evictable;
    if (!plugin_->choose_victim(self_, memory, request.for_task, request.prefetch ? 1 : 0, evictable, &test, &victim)) return std::nullopt;
    return victim;
  }

 private:
  void release() {
    if (self_) plugin_->destroy(self_);
    self_ = nullptr;
  }
  // The memory view answers per worker: a node's first worker stands for it.
  static int replica_state(void* context, std::uint32_t worker, std::uint32_t data) {
    const auto* self = static_cast<const PluginEviction*>(context);
    const MemoryView* memory = self->context_.buffers ? dynamic_cast<const MemoryView*>(self->context_.buffers) : nullptr;
    if (!memory) return TL_ABSENT;
    switch (memory->state(worker, data)) {
      case ReplicaState::Resident: return TL_RESIDENT;
      case ReplicaState::Loading: return TL_LOADING;
      default: return TL_ABSENT;
    }
  }
  static double free_bytes(void* context, std::uint32_t worker) {
    const auto* self = static_cast<const PluginEviction*>(context);
    const MemoryView* memory = self->context_.buffers ? dynamic_cast<const MemoryView*>(self->context_.buffers) : nullptr;
    return memory ? memory->free_bytes(worker) : 0;
  }
  static std::uint64_t next_use(void* context, std::uint32_t gpu, std::uint32_t data) {
    const auto* self = static_cast<const PluginEviction*>(context);
    return self->context_.future ? self->context_.future->next_use(gpu, data) : TL_NEVER;
  }

  std::shared_ptr<PluginLibrary> library_;
  const tl_eviction_plugin* plugin_;
  std::map<std::string, std::string> values_;
  EvictionContext context_;
  std::unique_ptr<PluginWorkload> workload_;
  tl_platform platform_{};
  tl_host host_{};
  void* self_ = nullptr;
};

}  // namespace

Result<MadeEviction> make_plugin_eviction(const Spec& spec) {
  auto library = PluginLibrary::open(spec.name);
  if (!library) return library.error();
  using Entry = const tl_eviction_plugin* (*)();
  const auto entry = reinterpret_cast<Entry>((*library)->symbol("tilelens_eviction_plugin_v1"));
  if (!entry) return make_error("plugin " + quote_input(spec.name) + " exports no eviction policy (tilelens_eviction_plugin_v1; include/tilelens/plugin.h)");
  const tl_eviction_plugin* plugin = entry();
  if (!plugin || plugin->abi != TILELENS_PLUGIN_ABI) {
    return make_error("eviction plugin " + quote_input(spec.name) + " is built for plugin ABI " + (plugin ? std::to_string(plugin->abi) : "?") +
                      ", this tilelens loads ABI " + std::to_string(TILELENS_PLUGIN_ABI));
  }
  if (!plugin->name || !plugin->create || !plugin->destroy || !plugin->choose_victim) {
    return make_error("eviction plugin " + quote_input(spec.name) + " lacks its name, create, destroy or choose_victim");
  }
  auto bound = bind_plugin_spec(spec, **library, plugin->name, plugin->version, plugin->params, "eviction");
  if (!bound) return bound.error();
  return MadeEviction{std::make_unique<PluginEviction>(std::move(*library), plugin, std::move(bound->values)), bound->canonical};
}

}  // namespace tilelens
