// Runs' names and keys; see run.hpp.
#include "trace/run.hpp"

#include "runtime/memory_model.hpp"
#include "model/units.hpp"

namespace tilelens {

const char* to_string(RunMode mode) {
  switch (mode) {
    case RunMode::Replay: return "replay";
    case RunMode::Cuda: return "cuda";
    case RunMode::StarPU: return "starpu";
  }
  return "?";
}

std::optional<RunStatus> run_status_from(std::string_view text) {
  for (RunStatus status : {RunStatus::Complete, RunStatus::Failed, RunStatus::Incomplete}) {
    if (text == to_string(status)) return status;
  }
  return std::nullopt;
}

const char* to_string(RunStatus status) {
  switch (status) {
    case RunStatus::Complete: return "complete";
    case RunStatus::Failed: return "failed";
    case RunStatus::Incomplete: return "incomplete";
  }
  return "?";
}

namespace {
constexpr const char* kChargedMark = "|charged";
}  // namespace

bool charged_scheduling(const RunInfo& info) { return info.key.find(kChargedMark) != std::string::npos; }

std::string run_key(const std::string& workload, const std::string& scheduler, const std::string& eviction,
                    const Platform& platform, std::uint32_t buffer_depth, RunMode mode, bool charged,
                    const std::string& memory_model, const std::string& scheduling_cost) {
  const bool fgcs_model = is_fgcs_memory_model(memory_model);
  return std::string(to_string(mode)) + "|" + workload + "|" + scheduler + "|" + eviction + "|" + platform.name + "|" +
         std::to_string(platform.gpus) + "|" + format_exact(platform.memory_bytes) + "|" + format_exact(platform.bus_bandwidth) + "|" +
         format_exact(platform.gpu_link_bandwidth) + "|" + std::to_string(platform.latency_ns) + "|" + format_exact(platform.default_gflops) +
         "|" + format_kind_rates(platform.kind_gflops) + "|" + std::to_string(buffer_depth) + (charged ? kChargedMark : "") +
         (platform.has_pcie_tree() ? "|pcie " + format_exact(platform.gpu_bus_bandwidth) + "/" + std::to_string(platform.gpus_per_switch) + "/" +
                                         format_exact(platform.switch_bandwidth)
                                   : "") +
         (platform.is_heterogeneous() ? "|workers " + std::to_string(platform.workers_per_memory) + "/" + std::to_string(platform.cpus) +
                                            "/" + format_exact(platform.cpu_default_gflops) + "/" + format_kind_rates(platform.cpu_kind_gflops)
                                      : "") +
         (platform.copy_engines > 0 || platform.half_duplex
              ? "|copy " + std::to_string(platform.copy_engines) + (platform.half_duplex ? " half" : "")
              : "") +
         (platform.worker_speeds.empty() ? "" : "|speeds " + format_worker_speeds(platform.worker_speeds)) +
         (fgcs_model ? "" : "|memory " + memory_model) + (scheduling_cost.empty() ? "" : "|decisions " + scheduling_cost);
}

std::string records_summary(const ImportReport& report) {
  if (report.records.empty()) return {};
  std::size_t kept = 0, skipped = 0, left_out = 0;
  for (const ImportReport::Record& r : report.records) {
    (r.fate == "kept" ? kept : r.fate == "skipped" ? skipped : left_out) += 1;
  }
  return std::to_string(report.records.size()) + " records: " + std::to_string(kept) + " kept as tasks, " + std::to_string(skipped) +
         " skipped, " + std::to_string(left_out) + " left out";
}

std::string record_line(const ImportReport::Record& record) {
  return record.where + "  " + (record.job.empty() ? std::string("(no JobId)") : "JobId " + record.job) + "  " + record.fate + ": " + record.reason;
}

}  // namespace tilelens
