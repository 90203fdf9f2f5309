// Loading a run for the app and indexing its trace by task.
#include "app/gui/run_data.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/policies.hpp"
#include "core/units.hpp"

namespace tilelens::gui {
namespace {

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

}  // namespace

std::string RunData::worker_name(GpuId worker) const { return run.info.platform.worker_name(worker); }

RunData make_run_data(core::LoadedRun loaded) {
  RunData data{std::move(loaded.run), std::move(loaded.workload), std::move(loaded.trace), {}, {}, {}, {}, {}, {}, {}, 1, {}};
  const std::size_t tasks = data.workload.task_count();
  data.order_of.assign(tasks, kNoId);
  data.gpu_order_of.assign(tasks, kNoId);
  data.gpu_of.assign(tasks, 0);
  data.start_of.assign(tasks, 0);
  data.end_of.assign(tasks, 0);
  data.loads_of.assign(tasks, {});
  data.gpus = std::max<std::uint32_t>(1, data.run.info.platform.workers());
  data.gpu_tasks.assign(data.gpus, 0);
  for (const TaskRecord& record : data.trace.tasks) {
    if (record.task >= tasks) continue;
    data.order_of[record.task] = static_cast<std::uint32_t>(record.global_order);
    data.gpu_order_of[record.task] = static_cast<std::uint32_t>(record.gpu_order);
    data.gpu_of[record.task] = record.gpu;
    data.start_of[record.task] = record.start_ns;
    data.end_of[record.task] = record.end_ns;
    if (record.gpu >= data.gpus) {
      data.gpus = record.gpu + 1;
      data.gpu_tasks.resize(data.gpus, 0);
    }
    ++data.gpu_tasks[record.gpu];
  }
  for (std::uint32_t index = 0; index < data.trace.loads.size(); ++index) {
    const TaskId task = data.trace.loads[index].task;
    if (task < tasks) data.loads_of[task].push_back(index);
  }
  const std::int64_t charged = data.run.metrics ? data.run.metrics->summary.charged_ns : 0;
  data.time_split = split_worker_time(data.trace.tasks, data.gpus, charged);
  return data;
}

Result<RunData> load_run_data(db::Store& store, std::int64_t run_id) {
  auto loaded = core::load_run(store, run_id);
  if (!loaded) return loaded.error();
  return make_run_data(std::move(*loaded));
}

Result<RunData> replay_with_memory(const RunData& base, double memory_bytes) {
  Platform platform = base.run.info.platform;
  platform.memory_bytes = memory_bytes;
  auto again = core::replay_again(base.run, base.workload, platform);
  if (!again) return again.error();
  return make_run_data(std::move(*again));
}

std::string RunData::policy_title() const {
  return upper(short_scheduler_spec(run.info.scheduler)) + " + " + upper(short_eviction_spec(run.info.eviction));
}

std::string RunData::title() const {
  const RunInfo& info = run.info;
  std::string text = policy_title() + ", ";
  const GeneratorInfo& generator = workload.generator();
  text += generator.name.empty() ? workload.name() : generator.name + " N=" + std::to_string(generator.N);
  text += ", M = " + format_binary_bytes(info.platform.memory_bytes);
  if (info.platform.gpus > 1) text += ", " + std::to_string(info.platform.gpus) + " GPUs";
  // The default model goes unsaid; another one (the papers' fgcs) is named.
  if (const std::string model = short_memory_model_spec(info.memory_model); !model.empty() && model != "starpu") {
    text += ", " + model + " model";
  }
  if (!info.scheduling_cost.empty()) text += ", decisions charged";
  // Side by side, a measured run and its replay share everything else.
  if (info.mode == RunMode::StarPU) text += " (measured by StarPU)";
  else if (info.mode == RunMode::Cuda) text += " (measured)";
  return text;
}

std::string RunData::task_tooltip(TaskId task) const {
  std::string text = workload.task_label(task);
  if (order_of[task] == kNoId) return text + "\nnot run";
  // Counted from 1, as the tile numbers, the legend and the slider count.
  text += "\norder " + std::to_string(order_of[task] + 1) + " (" + worker_name(gpu_of[task]) + ", #" +
          std::to_string(gpu_order_of[task] + 1) + " there)";
  text += "\nstart " + format_duration(start_of[task]) + ", end " + format_duration(end_of[task]);
  if (loads_of[task].empty()) {
    text += "\nno load";
  } else {
    for (std::uint32_t index : loads_of[task]) {
      const LoadRecord& load = trace.loads[index];
      text += "\nloads " + workload.data()[load.data].name + " (" + to_string(load.kind) + ", " + format_binary_bytes(static_cast<double>(load.bytes)) + ")";
    }
  }
  return text;
}

}  // namespace tilelens::gui
