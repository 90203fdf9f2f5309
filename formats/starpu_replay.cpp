// A workload and a run's schedule for starpu_replay; see starpu_replay.hpp. The records follow
// StarPU 1.3.10's readers: tools/starpu_replay.c:760-960 (tasks.rec), tools/starpu_replay_sched.c:
// 120-300 (sched.rec) and src/core/perfmodel/perfmodel_history.c:515-745 (the models).
#include "formats/starpu_replay.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <sstream>

#include "formats/output_file.hpp"
#include "formats/starpu_simgrid.hpp"

namespace tilelens {
namespace {

constexpr int kPerfmodelVersion = 45;  // _STARPU_PERFMODEL_VERSION of StarPU 1.3
constexpr int kStarpuCudaWorker = 1;   // STARPU_CUDA_WORKER, the device type of a model's combination
// Samples per history entry: StarPU-SimGrid warns about an entry of fewer than
// STARPU_CALIBRATE_MINIMUM (10) samples.
constexpr unsigned kSamples = 10;
constexpr double kShortestUs = 1e-3;

std::string hex(std::uint64_t value, int width) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%0*" PRIx64, width, value);
  return buffer;
}

// Full precision: StarPU reads these with %le (its own files print six digits).
std::string real(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17e", value);
  return buffer;
}

// A handle's value in tasks.rec: any distinct non-zero number, read with strtol(16).
std::string handle(DataId d) { return "0x" + hex(0x100000 + std::uint64_t{d} * 0x100, 1); }

// Each task's priority as its rank among the workload's distinct priorities: StarPU's are ints,
// and only their order matters to its schedulers (the native program, simgrid_dag.c, does the same).
std::vector<std::int64_t> priority_ranks(const Workload& w) {
  std::vector<std::int64_t> distinct;
  for (const Task& task : w.tasks()) distinct.push_back(task.priority);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<std::int64_t> ranks;
  for (const Task& task : w.tasks()) ranks.push_back(std::lower_bound(distinct.begin(), distinct.end(), task.priority) - distinct.begin());
  return ranks;
}

// Per kind, a footprint per distinct task size (flops): the key of the kind's history entries,
// with the data of the first task of that size (the entry's size).
struct Size {
  std::uint32_t footprint;
  std::uint64_t bytes;
};
struct Footprints {
  std::vector<std::map<double, Size>> of_kind;
  std::uint32_t of(const Workload& w, TaskId t) const { return of_kind[w.tasks()[t].kind].at(w.tasks()[t].flops).footprint; }
};

Footprints footprints(const Workload& w) {
  Footprints f;
  f.of_kind.resize(w.kinds().size());
  for (TaskId t = 0; t < w.task_count(); ++t) {
    auto& sizes = f.of_kind[w.tasks()[t].kind];
    if (!sizes.count(w.tasks()[t].flops)) sizes.emplace(w.tasks()[t].flops, Size{static_cast<std::uint32_t>(sizes.size()), w.footprint_bytes(t)});
  }
  return f;
}

Status check_kinds(const Workload& w) {
  for (const std::string& kind : w.kinds()) {
    const bool plain = !kind.empty() && kind[0] != '.' && std::none_of(kind.begin(), kind.end(), [](char c) {
      return c == '/' || c == ' ' || c == '\t' || c == '\n';
    });
    if (!plain) return make_error("task kind '" + kind + "': a StarPU performance model's symbol names a file, without '/', blanks or a leading '.' (starpu_replay export)");
  }
  return Status::success();
}

// Per task of a complete run: its record, and its 1-based place among its worker's tasks.
struct Placed {
  TaskRecord record{};
  std::uint32_t place = 0;  // 0: not run
};

Result<std::vector<Placed>> schedule_of(const Workload& w, const Platform& platform, std::span<const TaskRecord> run) {
  std::vector<Placed> placed(w.task_count());
  std::vector<std::vector<std::pair<std::uint32_t, TaskId>>> by_worker(platform.gpus);
  for (const TaskRecord& record : run) {
    if (record.task >= w.task_count()) return make_error("the run's task " + std::to_string(record.task) + " is not in its workload");
    if (record.gpu >= platform.gpus) return make_error("the run put task " + w.task_label(record.task) + " on worker " + std::to_string(record.gpu) + ", which is no GPU of the platform");
    if (placed[record.task].place != 0) return make_error("the run ran task " + w.task_label(record.task) + " twice");
    placed[record.task] = {record, 1};
    by_worker[record.gpu].push_back({record.gpu_order, record.task});
  }
  for (TaskId t = 0; t < w.task_count(); ++t) {
    if (placed[t].place == 0) return make_error("the run did not run task " + w.task_label(t) + ": a sched.rec needs a complete run");
  }
  for (auto& tasks : by_worker) {
    std::sort(tasks.begin(), tasks.end());
    for (std::size_t i = 0; i < tasks.size(); ++i) placed[tasks[i].second].place = static_cast<std::uint32_t>(i + 1);
  }
  return placed;
}

std::string milliseconds(std::int64_t ns) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6f", static_cast<double>(ns) / 1e6);
  return buffer;
}

// Streamed: a million tasks' records need not be held as one text.
Status write_tasks_rec(const Workload& w, const Footprints& prints, const std::vector<Placed>& placed, std::ostream& out) {
  const std::vector<std::int64_t> ranks = priority_ranks(w);
  for (std::size_t i = 0; i < w.submission_order().size(); ++i) {
    const TaskId t = w.submission_order()[i];
    const Task& task = w.tasks()[t];
    const std::string& kind = w.kinds()[task.kind];
    out << "Name: " << kind << "\nModel: " << kind << "\nJobId: " << t + 1 << "\nSubmitOrder: " << i + 1 << "\n";
    if (!w.predecessors(t).empty()) {
      out << "DependsOn:";
      for (TaskId p : w.predecessors(t)) out << " " << p + 1;
      out << "\n";
    }
    out << "Tag: " << hex(t + 1, 1) << "\nPriority: " << ranks[t] << "\nWorkerId: " << (placed.empty() ? 0 : placed[t].record.gpu) << "\n";
    // A run's times too (milliseconds, as starpu_fxt_tool writes them): the file then records the
    // run, and reads back with `tilelens import` (StarPU's GPU g is memory node g + 1 without CPUs).
    if (!placed.empty()) {
      out << "MemoryNode: " << placed[t].record.gpu + 1 << "\nStartTime: " << milliseconds(placed[t].record.start_ns)
          << "\nEndTime: " << milliseconds(placed[t].record.end_ns) << "\n";
    }
    out << "Footprint: " << hex(prints.of(w, t), 8) << "\nGFlop: " << real(task.flops / 1e9) << "\n";
    std::string parameters, handles, modes, sizes;
    for (const Access& access : w.accesses(t)) {
      const std::string space = parameters.empty() ? "" : " ";
      parameters += space + "v";
      handles += space + handle(access.data);
      modes += space + to_string(access.mode);
      sizes += space + std::to_string(w.data()[access.data].bytes);
    }
    // A task without data has none of these lines: starpu_replay counts a parameter more than the
    // blanks of Parameters, and would read an empty one as a handle of unknown size.
    if (!parameters.empty()) out << "Parameters: " << parameters << "\nHandles: " << handles << "\nModes: " << modes << "\nSizes: " << sizes << "\n";
    out << "\n";
  }
  return Status::success();
}

Status write_sched_rec(const Workload& w, const std::vector<Placed>& placed, std::ostream& out) {
  for (std::size_t i = 0; i < w.submission_order().size(); ++i) {
    const TaskId t = w.submission_order()[i];
    out << "SubmitOrder: " << i + 1 << "\nSpecificWorker: " << placed[t].record.gpu << "\nWorkerorder: " << placed[t].place << "\n\n";
  }
  return Status::success();
}

// The history-based model of one kind: for each simulated GPU (a combination of one CUDA device),
// one implementation whose entries give each footprint's time.
std::string perfmodel(const Workload& w, KindId kind, const std::map<double, Size>& sizes, const Platform& platform) {
  const double rate = platform.gflops_of(w.kinds()[kind]);
  std::ostringstream out;
  out << "##################\n# Performance Model Version\n" << kPerfmodelVersion << "\n\n####################\n# COMBs\n# number of combinations\n"
      << platform.gpus << "\n";
  for (std::uint32_t g = 0; g < platform.gpus; ++g) {
    out << "####################\n# COMB_" << g << "\n# number of types devices\n1\n####################\n# DEV_0\n# device type\n"
        << kStarpuCudaWorker << "\n####################\n# DEV_0\n# device id\n" << g << "\n####################\n# DEV_0\n# number of cores\n1\n"
        << "##########\n# number of implementations\n1\n#####\n# Model for cuda" << g << "_impl0\n# number of entries\n" << sizes.size() << "\n"
        << "# sumlnx\tsumlnx2\t\tsumlny\t\tsumlnxlny\talpha\t\tbeta\t\tn\tminx\t\tmaxx\n"
        << "0.000000e+00\t0.000000e+00\t0.000000e+00\t0.000000e+00\tnan\tnan\t0\t0\t0\n# a\t\tb\t\tc\nnan\tnan\tnan\n"
        << "# not multiple-regression-base\n0\n# hash\t\tsize\t\tflops\t\tmean (us)\tdev (us)\tsum\t\tsum2\t\tn\n";
    for (const auto& [flops, size] : sizes) {
      // starpu_replay runs a task nowhere whose expected time is 0 (its can_execute): a task of no
      // flops lasts a nanosecond there.
      const double mean_us = std::max(flops / (rate * 1e9) * 1e6, kShortestUs);
      out << hex(size.footprint, 8) << "\t" << size.bytes << "\t" << real(flops) << "\t" << real(mean_us) << "\t" << real(0) << "\t"
          << real(mean_us * kSamples) << "\t" << real(mean_us * mean_us * kSamples) << "\t" << kSamples << "\n";
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace

Status write_starpu_replay(const Workload& workload, const Platform& platform, std::uint32_t buffer_depth,
                           const std::filesystem::path& folder, std::span<const TaskRecord> run_tasks) {
  if (auto status = check_kinds(workload); !status) return status;
  std::vector<Placed> placed;
  if (!run_tasks.empty()) {
    auto schedule = schedule_of(workload, platform, run_tasks);
    if (!schedule) return schedule.error();
    placed = std::move(*schedule);
  }
  if (auto status = write_starpu_simgrid(workload, platform, buffer_depth, folder); !status) return status;
  const std::filesystem::path models = folder / ".starpu" / "sampling" / "codelets" / std::to_string(kPerfmodelVersion);
  std::error_code error;
  std::filesystem::create_directories(models, error);
  if (error) return make_error("cannot create " + models.string() + ": " + error.message());

  const Footprints prints = footprints(workload);
  for (KindId k = 0; k < workload.kinds().size(); ++k) {
    if (prints.of_kind[k].empty()) continue;
    const std::string& kind = workload.kinds()[k];
    // A symbol with a dot names its file as it is; without, StarPU appends the host's name.
    const std::string file = kind.find('.') == std::string::npos ? kind + "." + kStarpuSimgridHost : kind;
    if (auto status = write_output_file((models / file).string(), perfmodel(workload, k, prints.of_kind[k], platform)); !status) return status;
  }
  if (auto status = write_output_file((folder / "tasks.rec").string(), [&](std::ostream& out) { return write_tasks_rec(workload, prints, placed, out); });
      !status) {
    return status;
  }
  if (!placed.empty()) {
    if (auto status = write_output_file((folder / "sched.rec").string(), [&](std::ostream& out) { return write_sched_rec(workload, placed, out); });
        !status) {
      return status;
    }
  }
  return Status::success();
}

}  // namespace tilelens
