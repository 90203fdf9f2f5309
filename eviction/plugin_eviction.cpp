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
    workload_ = std::make_unique<PluginWorkload>(*context.workload);
    platform_ = plugin_platform(*context.platform);
    host_.reset(context.memory, context.future, plugin_->needs_future != 0);
    const PluginValues values(values_);
    char error[512] = "";
    self_ = plugin_->create(&workload_->view(), &platform_, host_.view(), values.data(), error, sizeof error);
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

  std::shared_ptr<PluginLibrary> library_;
  const tl_eviction_plugin* plugin_;
  std::map<std::string, std::string> values_;
  std::unique_ptr<PluginWorkload> workload_;
  tl_platform platform_{};
  PluginHost host_;
  void* self_ = nullptr;
};

}  // namespace

Result<MadeEviction> make_plugin_eviction(const Spec& spec) {
  const auto complete = [](const tl_eviction_plugin& p) { return p.create && p.destroy && p.choose_victim; };
  auto loaded = load_plugin<tl_eviction_plugin>(spec, "tilelens_eviction_plugin_v1", "eviction policy", "eviction", complete,
                                                "create, destroy or choose_victim");
  if (!loaded) return loaded.error();
  return MadeEviction{std::make_unique<PluginEviction>(std::move(loaded->library), loaded->plugin, std::move(loaded->bound.values)),
                      loaded->bound.canonical};
}

}  // namespace tilelens
