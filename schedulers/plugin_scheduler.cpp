// A scheduler from a plugin (include/tilelens/plugin.h): the adapter between the Scheduler
// interface and the plugin's C functions. The plugin's state is made in prepare(), when the
// workload and platform are known; a plugin that refuses them stops the run with its message
// (Scheduler::failure).
#include "schedulers/plugin_scheduler.hpp"

#include "schedulers/plugin_library.hpp"

namespace tilelens {
namespace {

class PluginScheduler final : public Scheduler {
 public:
  PluginScheduler(std::shared_ptr<PluginLibrary> library, const tl_scheduler_plugin* plugin, std::map<std::string, std::string> values)
      : library_(std::move(library)), plugin_(plugin), values_(std::move(values)) {}
  ~PluginScheduler() override { release(); }

  void prepare(const Workload& workload, const Platform& platform, const SchedulerContext& context) override {
    release();
    failure_.clear();
    memory_ = context.memory;
    workload_ = std::make_unique<PluginWorkload>(workload);
    platform_ = plugin_platform(platform);
    host_ = tl_host{this, &replica_state, &free_bytes, nullptr};
    const PluginValues values(values_);
    char error[512] = "";
    self_ = plugin_->create(&workload_->view(), &platform_, &host_, values.data(), error, sizeof error);
    if (!self_) failure_ = "scheduler plugin '" + std::string(plugin_->name) + "' refused the run: " + (error[0] ? error : "no reason given");
  }
  std::string failure() const override { return failure_; }
  void push(TaskId task) override {
    if (self_) plugin_->push(self_, task);
  }
  std::optional<TaskId> pop(GpuId worker) override {
    std::uint32_t task = 0;
    if (!self_ || !plugin_->pop(self_, worker, &task)) return std::nullopt;
    return task;
  }
  void on_task_started(GpuId worker, TaskId task) override {
    if (self_ && plugin_->task_started) plugin_->task_started(self_, worker, task);
  }
  void on_task_done(GpuId worker, TaskId task) override {
    if (self_ && plugin_->task_done) plugin_->task_done(self_, worker, task);
  }
  void on_data_loaded(GpuId worker, DataId data) override {
    if (self_ && plugin_->data_loaded) plugin_->data_loaded(self_, worker, data);
  }
  void on_data_evicted(GpuId worker, DataId data) override {
    if (self_ && plugin_->data_evicted) plugin_->data_evicted(self_, worker, data);
  }
  bool follows_replicas() const override { return plugin_->data_loaded || plugin_->data_evicted; }

 private:
  void release() {
    if (self_) plugin_->destroy(self_);
    self_ = nullptr;
  }
  static int replica_state(void* context, std::uint32_t worker, std::uint32_t data) {
    const auto* self = static_cast<const PluginScheduler*>(context);
    if (!self->memory_) return TL_ABSENT;
    switch (self->memory_->state(worker, data)) {
      case ReplicaState::Resident: return TL_RESIDENT;
      case ReplicaState::Loading: return TL_LOADING;
      default: return TL_ABSENT;
    }
  }
  static double free_bytes(void* context, std::uint32_t worker) {
    const auto* self = static_cast<const PluginScheduler*>(context);
    return self->memory_ ? self->memory_->free_bytes(worker) : 0;
  }

  std::shared_ptr<PluginLibrary> library_;  // open while the plugin's code may run
  const tl_scheduler_plugin* plugin_;
  std::map<std::string, std::string> values_;
  std::unique_ptr<PluginWorkload> workload_;
  tl_platform platform_{};
  tl_host host_{};
  const MemoryView* memory_ = nullptr;
  void* self_ = nullptr;
  std::string failure_;
};

}  // namespace

Result<MadeScheduler> make_plugin_scheduler(const Spec& spec) {
  auto library = PluginLibrary::open(spec.name);
  if (!library) return library.error();
  using Entry = const tl_scheduler_plugin* (*)();
  const auto entry = reinterpret_cast<Entry>((*library)->symbol("tilelens_scheduler_plugin_v1"));
  if (!entry) return make_error("plugin " + quote_input(spec.name) + " exports no scheduler (tilelens_scheduler_plugin_v1; include/tilelens/plugin.h)");
  const tl_scheduler_plugin* plugin = entry();
  if (!plugin || plugin->abi != TILELENS_PLUGIN_ABI) {
    return make_error("scheduler plugin " + quote_input(spec.name) + " is built for plugin ABI " + (plugin ? std::to_string(plugin->abi) : "?") +
                      ", this tilelens loads ABI " + std::to_string(TILELENS_PLUGIN_ABI));
  }
  if (!plugin->name || !plugin->create || !plugin->destroy || !plugin->push || !plugin->pop) {
    return make_error("scheduler plugin " + quote_input(spec.name) + " lacks its name, create, destroy, push or pop");
  }
  auto bound = bind_plugin_spec(spec, **library, plugin->name, plugin->version, plugin->params, "scheduler");
  if (!bound) return bound.error();
  return MadeScheduler{std::make_unique<PluginScheduler>(std::move(*library), plugin, std::move(bound->values)), bound->canonical};
}

}  // namespace tilelens
