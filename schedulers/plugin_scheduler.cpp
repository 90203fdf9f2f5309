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
    workload_ = std::make_unique<PluginWorkload>(workload);
    platform_ = plugin_platform(platform);
    host_.reset(context.memory, nullptr, false);
    const PluginValues values(values_);
    char error[512] = "";
    self_ = plugin_->create(&workload_->view(), &platform_, host_.view(), values.data(), error, sizeof error);
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

  std::shared_ptr<PluginLibrary> library_;  // open while the plugin's code may run
  const tl_scheduler_plugin* plugin_;
  std::map<std::string, std::string> values_;
  std::unique_ptr<PluginWorkload> workload_;
  tl_platform platform_{};
  PluginHost host_;
  void* self_ = nullptr;
  std::string failure_;
};

}  // namespace

Result<MadeScheduler> make_plugin_scheduler(const Spec& spec) {
  const auto complete = [](const tl_scheduler_plugin& p) { return p.create && p.destroy && p.push && p.pop; };
  auto loaded = load_plugin<tl_scheduler_plugin>(spec, "tilelens_scheduler_plugin_v1", "scheduler", "scheduler", complete,
                                                 "create, destroy, push or pop");
  if (!loaded) return loaded.error();
  return MadeScheduler{std::make_unique<PluginScheduler>(std::move(loaded->library), loaded->plugin, std::move(loaded->bound.values)),
                       loaded->bound.canonical};
}

}  // namespace tilelens
