// Importing a StarPU execution; see imported_runs.hpp.
#include "core/imported_runs.hpp"

#include <algorithm>
#include <map>

#include "analysis/calibration.hpp"
#include "core/runs.hpp"
#include "formats/importers.hpp"
#include "formats/workload_io.hpp"
#include "schedulers/scheduler.hpp"

namespace tilelens::core {

Result<StarpuPolicy> policy_of_starpu_scheduler(const std::string& name) {
  // StarPU 1.3's policies (src/sched_policies) by STARPU_SCHED name.
  static const std::map<std::string, StarpuPolicy> known = {
      {"eager", {"eager", true, ""}},
      {"random", {"random", true, ""}},
      {"lws", {"lws:steal_head=1", true, ""}},  // 1.3.10 steals the oldest task (lws.cpp)
      {"ws", {"lws", false, "StarPU's ws steals from the most loaded worker; tilelens' lws from neighbours"}},
      {"prio", {"ap", false, "StarPU's prio is one priority queue; tilelens' ap adds data reuse among equal priorities"}},
      {"dm", {"dmda", false, "StarPU's dm ignores transfer times; tilelens' dmda counts them"}},
      {"dmda", {"dmda", true, ""}},
      {"dmdar", {"dmdar", true, ""}},
      {"dmdas", {"dmdas", true, ""}},
      {"dmdasd", {"dmdas", false, "StarPU's dmdasd also sorts by data already present; tilelens' dmdas does not"}},
      {"dmdap", {"dmdas", false, "StarPU's dmdap is dmdas with a priority queue per worker"}},
      {"heteroprio", {"heteroprio", true, ""}},
  };
  if (auto it = known.find(name); it != known.end()) return it->second;
  if (make_scheduler(name)) return StarpuPolicy{name, true, ""};  // a tilelens name (darts, hfp, laheteroprio, ...)
  std::string names;
  for (const auto& [starpu, policy] : known) names += (names.empty() ? "" : ", ") + starpu;
  return field_error("scheduler", "'" + name + "' is neither a StarPU scheduler tilelens replays (" + names +
                    ") nor a tilelens scheduler (tilelens schedulers)");
}

Result<StarpuImport> import_starpu_run(const StarpuImportRequest& request) {
  std::optional<StarpuPolicy> policy;
  if (!request.scheduler.empty()) {
    auto found = policy_of_starpu_scheduler(request.scheduler);
    if (!found) return found.error();
    policy = *found;
  }
  StarpuImportOptions options;
  options.workload_name = request.name;
  options.rank = request.rank;
  options.lenient = request.lenient;
  auto imported = import_starpu_files(request.tasks_file, request.data_file, request.paje_file, options);
  if (!imported) return imported.error();
  StarpuImport result{std::move(*imported), {}, policy, 0, 0, ""};
  const Workload& w = result.execution.workload;
  PlatformChoice choice;  // the platform as replay resolves it: a preset or a file, memory in bytes or items
  // Without a platform of the user's, the run's own: its layout, memory as given, and the rates
  // and transfer bandwidth it measured (calibrate), in place of a preset's.
  choice.base = request.platform.empty() ? "v100-fgcs" : request.platform;
  choice.memory = request.memory;
  auto platform = resolve_platform(choice, w);
  if (!platform) return platform.error();
  result.platform = std::move(*platform);
  const StarpuExecution& e = result.execution;
  Platform& p = result.platform;
  p.name = "starpu";
  p.gpus = std::max<std::uint32_t>(1, e.gpus);
  p.workers_per_memory = e.gpus > 0 ? e.workers_per_memory : 1;
  p.cpus = e.cpus;
  if (p.cpus > 0 && !(p.cpu_default_gflops > 0)) {
    // The base has no CPU rate: the rate the CPU workers measured.
    double flops = 0, busy = 0;
    for (const TaskRecord& r : e.trace.tasks) {
      if (!p.is_cpu_worker(r.gpu)) continue;
      flops += w.tasks()[r.task].flops;
      busy += static_cast<double>(r.end_ns - r.start_ns);
    }
    p.cpu_default_gflops = busy > 0 && flops > 0 ? flops / busy : p.default_gflops;
  }
  if (request.platform.empty()) {
    auto measured = calibrate(w, e.trace, p);
    if (!measured) return make_error(request.tasks_file + ": " + measured.error().message);
    p = std::move(measured->platform);
    p.name = "starpu";
    // One copy at a time per direction (StarPU's transfer streams), and out of core one for
    // both: a disk serves reads and writes alike.
    p.copy_engines = 1;
    p.half_duplex = e.out_of_core;
  }
  if (auto checked = check_platform(p, w); !checked) return make_error(request.tasks_file + ": the platform of the run: " + checked.error().message);
  // The file first: a run stored has no key to recognize it by, so a failure after storing
  // would have the user import (and store) it twice.
  if (!request.workload_out.empty()) {
    if (auto saved = save_workload(w, request.workload_out); !saved) return saved.error();
  }
  if (request.database.empty()) return result;
  auto store = db::Store::open(request.database);
  if (!store) return field_error("db", store.error().message);
  auto workload_id = store->put_workload(w, "starpu " + request.tasks_file);
  if (!workload_id) return workload_id.error();
  RunInfo info;
  info.workload_id = *workload_id;
  info.workload_spec = w.name();
  // StarPU's memory manager evicts the least recently used data first (memalloc.c).
  info.scheduler = policy ? policy->scheduler : "starpu";
  info.eviction = "lru";
  info.platform = result.platform;
  // What a StarPU worker holds: a CPU worker pops one task when it has none (driver_cpu.c), a
  // CUDA worker keeps STARPU_CUDA_PIPELINE tasks, 2 by default (driver_cuda.c); dmda*'s
  // push-time prefetches are the memory model's. A replay of the run (fidelity) uses it.
  info.buffer_depth = e.out_of_core ? 1 : 2;
  info.mode = RunMode::StarPU;
  info.tilelens_version = kVersion;
  info.transfers_recorded = result.execution.transfers_recorded;
  auto writer = store->begin_run(info);
  if (!writer) return writer.error();
  writer->write(result.execution.trace);
  writer->write_import_report(result.execution.report);
  auto id = writer->finish(metrics_of(result.execution.summary, reference_curves(w, result.platform)));
  if (!id) return id.error();
  result.workload_id = *workload_id;
  result.run_id = *id;
  result.database = store->path();
  return result;
}

Result<StarpuImportRequest> starpu_request_from_files(const std::vector<std::string>& paths) {
  auto recognised = recognise_import_files(paths);
  if (!recognised) return recognised.error();
  if (recognised->importer != "starpu") return make_error("no importer named " + recognised->importer);
  StarpuImportRequest request;
  request.tasks_file = recognised->files.at("tasks");
  if (auto it = recognised->files.find("data"); it != recognised->files.end()) request.data_file = it->second;
  if (auto it = recognised->files.find("paje"); it != recognised->files.end()) request.paje_file = it->second;
  return request;
}

}  // namespace tilelens::core
