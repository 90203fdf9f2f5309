// Importing a StarPU execution; see imported_runs.hpp.
#include "core/imported_runs.hpp"

#include <algorithm>

#include "core/runs.hpp"
#include "formats/workload_io.hpp"

namespace tilelens::core {

Result<StarpuImport> import_starpu_run(const StarpuImportRequest& request) {
  auto imported = import_starpu_files(request.tasks_file, request.data_file, request.name);
  if (!imported) return imported.error();
  StarpuImport result{std::move(*imported), {}, 0, 0, ""};
  const Workload& w = result.execution.workload;
  PlatformChoice choice;  // the platform as replay resolves it: a preset or a file, memory in bytes or items
  choice.base = request.platform;
  choice.memory = request.memory;
  auto platform = resolve_platform(choice, w);
  if (!platform) return platform.error();
  result.platform = std::move(*platform);
  result.platform.name = "starpu";
  result.platform.gpus = static_cast<std::uint32_t>(std::max<std::size_t>(1, result.execution.workers.size()));
  // The file first: a run stored has no key to recognize it by, so a failure after storing
  // would have the user import (and store) it twice.
  if (!request.workload_out.empty()) {
    if (auto saved = save_workload(w, request.workload_out); !saved) return saved.error();
  }
  if (request.database.empty()) return result;
  auto store = db::Store::open(request.database);
  if (!store) return make_error("--db: " + store.error().message);
  auto workload_id = store->put_workload(w, "starpu " + request.tasks_file);
  if (!workload_id) return workload_id.error();
  RunInfo info;
  info.workload_id = *workload_id;
  info.workload_spec = w.name();
  info.scheduler = "starpu";
  info.eviction = "starpu";
  info.platform = result.platform;
  info.buffer_depth = 0;
  info.mode = RunMode::StarPU;
  info.tilelens_version = kVersion;
  info.transfers_recorded = false;
  auto writer = store->begin_run(info);
  if (!writer) return writer.error();
  writer->write(result.execution.trace);
  auto id = writer->finish(metrics_of(result.execution.summary, reference_curves(w, result.platform)));
  if (!id) return id.error();
  result.workload_id = *workload_id;
  result.run_id = *id;
  result.database = store->path();
  return result;
}

}  // namespace tilelens::core
