// Printing runs; see run_report.hpp.
#include "app/cli/run_report.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/policies.hpp"
#include "core/units.hpp"

namespace tilelens::cli {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void print_summary(const RunInfo& run, const RunMetrics& metrics, std::ostream& out) {
  const ReplaySummary& s = metrics.summary;
  out << "workload     " << run.workload_spec << ": " << format_count(static_cast<double>(run.workload_tasks)) << " tasks, "
      << format_count(static_cast<double>(run.workload_data)) << " data, working set "
      << format_bytes(static_cast<double>(run.working_set_bytes)) << "\n";
  out << "platform     " << run.platform.describe() << "; task buffer " << run.buffer_depth
      << (run.memory_model.empty() ? "" : "; memory model " + short_memory_model_spec(run.memory_model)) << "\n";
  out << "policy       scheduler " << run.scheduler << ", eviction " << run.eviction << "\n";
  if (run.transfers_recorded) {
    out << "loads        " << format_count(static_cast<double>(s.loads)) << " = " << format_bytes(s.bytes_loaded) << "  (fetch "
        << s.fetches << ", prefetch " << s.prefetches << ", unused " << s.unused_loads << ")\n";
    if (s.loads_from_gpu) out << "             from GPUs " << s.loads_from_gpu << " = " << format_bytes(s.bytes_gpu_to_gpu) << "\n";
  } else {
    out << "loads        not recorded (the measurement holds task executions only)\n";
  }
  out << "lower bound  " << format_bytes(metrics.lower_bound_bytes) << "  " << metrics.lower_bound << "\n";
  if (run.transfers_recorded && metrics.lower_bound_bytes > 0) {
    out << "ratio        " << format_fixed(metrics.ratio_to_lower_bound(), 3) << " x the lower bound\n";
  } else if (run.transfers_recorded) {
    out << "ratio        - (the lower bound is 0: "
        << (run.platform.cpus > 0 ? "CPU workers can run every task without a load" : "every data is first written, so none must be loaded")
        << ")\n";
  }
  out << "bus limit    " << format_bytes(metrics.bus_limit_bytes) << " (more cannot be hidden behind compute)\n";
  if (run.transfers_recorded) {
    out << "evictions    " << s.evictions;
    if (s.invalidations) out << ", invalidations " << s.invalidations;
    if (s.writebacks) out << ", write-backs " << s.writebacks << " = " << format_bytes(s.bytes_written_back);
    if (s.stale_writebacks) out << " (" << s.stale_writebacks << " overtaken by a newer write)";
    out << "\n";
  }
  out << "makespan     " << format_duration(s.makespan_ns) << "  (" << format_fixed(s.gflops, 0) << " GFlop/s, ideal "
      << format_duration(static_cast<std::int64_t>(metrics.ideal_compute_ns)) << ")\n";
  const Platform& p = run.platform;
  if (p.cpus > 0 && s.gpus.size() == p.workers()) {
    std::uint64_t gpu_tasks = 0, cpu_tasks = 0;
    for (GpuId g = 0; g < s.gpus.size(); ++g) (p.is_cpu_worker(g) ? cpu_tasks : gpu_tasks) += s.gpus[g].tasks;
    out << "workers      " << gpu_tasks << " tasks on " << p.gpus << " GPU" << (p.gpus > 1 ? "s" : "") << ", " << cpu_tasks
        << " on " << p.cpus << " CPU core" << (p.cpus > 1 ? "s" : "") << "\n";
  }
  out << "idle         " << format_duration(s.idle_ns) << " summed over " << s.gpus.size() << " worker"
      << (s.gpus.size() > 1 ? "s" : "") << "\n";
  if (run.mode == RunMode::Replay) {
    out << "sched. time  " << format_duration(s.scheduling_ns) << " in the scheduler, " << format_duration(s.eviction_ns)
        << " in the eviction policy (wall clock, not simulated)";
    if (s.charged_ns > 0) out << "; " << format_duration(s.charged_ns) << " of prepare() charged to the makespan";
    out << "\n";
  }
  const auto decisions = [&](const char* what, const DecisionFit& fit) {
    out << format_count(static_cast<double>(fit.count)) << " " << what;
    if (fit.scanned) out << " scanning " << format_count(static_cast<double>(fit.scanned)) << " tasks";
    out << ", " << format_fixed(fit.base_ns, 0) << " ns each";
    if (fit.per_task_ns > 0) out << " + " << format_fixed(fit.per_task_ns, 2) << " ns per task scanned";
  };
  if (s.push_decisions.count + s.pop_decisions.count > 0) {
    out << "decisions    ";
    decisions("pushes", s.push_decisions);
    out << "; ";
    decisions("pops", s.pop_decisions);
    out << (run.mode == RunMode::StarPU ? " (StarPU's scheduling states)" : " (fitted on wall time)") << "\n";
  }
  if (s.future_rounds > 0) {
    out << "Belady       " << (s.future_converged ? "saw the order that ran" : "did not reach a fixed order; kept the future that loaded least")
        << ", after " << s.future_rounds << " replays of a scheduler that serves out of its future's order\n";
  }
  if (!s.scheduler_counters.empty()) {
    out << "scheduler   ";
    for (const auto& [name, value] : s.scheduler_counters) out << " " << name << " " << value;
    out << " (docs/schedulers.md, Counters)\n";
  }
  if (!run.scheduling_cost.empty()) {
    out << "charged      " << format_duration(s.decisions_charged_ns) << " of decisions on the clock (scheduling cost "
        << run.scheduling_cost << ")\n";
  }
}

namespace {

using Json = nlohmann::ordered_json;

// One JSON object on one line, its keys in the order they are added. nlohmann writes the keys,
// the strings (valid UTF-8 whatever the bytes: U+FFFD replaces an invalid sequence) and the
// integers. The doubles keep the fixed digits this output has always had, which scripts and
// tests/golden/replay.txt compare: nlohmann would print "ratio_to_lower_bound":2.5 for 2.500000
// and "memory_bytes":58982400.0. A double that is not finite prints as null, never as nan/inf.
class JsonLine {
 public:
  explicit JsonLine(std::ostream& out) : out_(out) {}
  JsonLine& add(const std::string& key, const Json& value) {
    return add_text(key, value.dump(-1, ' ', false, Json::error_handler_t::replace));
  }
  JsonLine& add_fixed(const std::string& key, double value, int digits) {
    return add_text(key, std::isfinite(value) ? format_fixed(value, digits) : "null");
  }
  void end() { out_ << (first_ ? "{" : "") << "}\n"; }

 private:
  JsonLine& add_text(const std::string& key, const std::string& text) {
    out_ << (first_ ? "{" : ",") << Json(key).dump() << ':' << text;
    first_ = false;
    return *this;
  }
  std::ostream& out_;
  bool first_ = true;
};

}  // namespace

void print_json(const RunInfo& run, const RunMetrics& metrics, std::ostream& out) {
  const ReplaySummary& s = metrics.summary;
  const Platform& p = run.platform;
  JsonLine json(out);
  json.add("tilelens_version", run.tilelens_version);
  if (run.id) json.add("run_id", run.id).add("status", to_string(run.status));
  json.add("mode", to_string(run.mode))
      .add("workload", run.workload_spec)
      .add("tasks", run.workload_tasks)
      .add("data", run.workload_data)
      .add("working_set_bytes", run.working_set_bytes)
      .add("scheduler", run.scheduler)
      .add("eviction", run.eviction)
      .add("gpus", p.gpus)
      .add("cpus", p.cpus)
      .add("workers_per_memory", p.workers_per_memory)
      .add_fixed("memory_bytes", p.memory_bytes, 0)
      .add_fixed("bus_bandwidth", p.bus_bandwidth, 0)
      .add("buffer_depth", run.buffer_depth)
      .add("memory_model", run.memory_model)
      .add("scheduling_cost", run.scheduling_cost)
      .add("loads", s.loads)
      .add("fetches", s.fetches)
      .add("prefetches", s.prefetches)
      .add("unused_loads", s.unused_loads)
      .add_fixed("bytes_loaded", s.bytes_loaded, 0)
      .add_fixed("bytes_from_host", s.bytes_from_host, 0)
      .add_fixed("bytes_gpu_to_gpu", s.bytes_gpu_to_gpu, 0)
      .add_fixed("bytes_fetched", s.bytes_fetched, 0)
      .add_fixed("bytes_prefetched", s.bytes_prefetched, 0)
      .add("evictions", s.evictions)
      .add("invalidations", s.invalidations)
      .add("writebacks", s.writebacks)
      .add_fixed("bytes_written_back", s.bytes_written_back, 0)
      .add("stale_writebacks", s.stale_writebacks)
      .add("makespan_ns", s.makespan_ns)
      .add_fixed("gflops", s.gflops, 3)
      .add("idle_ns", s.idle_ns)
      .add("scheduling_ns", s.scheduling_ns)
      .add("prepare_ns", s.prepare_ns)
      .add("charged_ns", s.charged_ns)
      .add("eviction_ns", s.eviction_ns)
      .add("push_decisions", s.push_decisions.count)
      .add("push_scanned", s.push_decisions.scanned)
      .add_fixed("push_base_ns", s.push_decisions.base_ns, 1)
      .add_fixed("push_per_task_ns", s.push_decisions.per_task_ns, 3)
      .add("pop_decisions", s.pop_decisions.count)
      .add("pop_scanned", s.pop_decisions.scanned)
      .add_fixed("pop_base_ns", s.pop_decisions.base_ns, 1)
      .add_fixed("pop_per_task_ns", s.pop_decisions.per_task_ns, 3)
      .add("decisions_charged_ns", s.decisions_charged_ns)
      .add("future_rounds", s.future_rounds)
      .add("future_converged", s.future_converged)
      .add_fixed("lower_bound_bytes", metrics.lower_bound_bytes, 0)
      .add("lower_bound", metrics.lower_bound)
      // No value where the bound is 0, as the text's "-" and the CSV's empty field.
      .add_fixed("ratio_to_lower_bound", metrics.lower_bound_bytes > 0 ? metrics.ratio_to_lower_bound() : std::nan(""), 6)
      .add_fixed("bus_limit_bytes", metrics.bus_limit_bytes, 0);
  Json worker_tasks = Json::array();
  for (const auto& worker : s.gpus) worker_tasks.push_back(worker.tasks);
  json.add("worker_tasks", worker_tasks);
  if (!s.scheduler_counters.empty()) {
    Json counters = Json::object();
    for (const auto& [name, value] : s.scheduler_counters) counters[name] = value;
    json.add("scheduler_counters", counters);
  }
  json.end();
}

void print_csv_header(std::ostream& out) {
  out << "workload,scheduler,eviction,gpus,memory_bytes,working_set_bytes,loads,fetches,prefetches,bytes_loaded,"
         "lower_bound_bytes,ratio,evictions,makespan_ns,gflops,scheduling_ns,buffer_depth,seed,mode,run_id,status\n";
}

void print_csv_row(const RunInfo& run, const RunMetrics& metrics, std::ostream& out) {
  const ReplaySummary& s = metrics.summary;
  // The workload is always quoted, so a script can strip it with one pattern.
  out << '"' << run.workload_spec << "\"," << csv_field(run.scheduler) << ',' << csv_field(run.eviction) << ','
      << run.platform.gpus << ',' << format_fixed(run.platform.memory_bytes, 0) << ',' << run.working_set_bytes << ',' << s.loads
      << ',' << s.fetches << ',' << s.prefetches << ',' << format_fixed(s.bytes_loaded, 0) << ',' << format_fixed(metrics.lower_bound_bytes, 0)
      << ',' << (metrics.lower_bound_bytes > 0 ? format_fixed(metrics.ratio_to_lower_bound(), 4) : "") << ',' << s.evictions << ',' << s.makespan_ns << ','
      << format_fixed(s.gflops, 1) << ',' << s.scheduling_ns << ',' << run.buffer_depth << ','
      << (run.seed ? std::to_string(*run.seed) : "") << ',' << to_string(run.mode) << ','
      << (run.id ? std::to_string(run.id) : "") << ',' << (run.id ? to_string(run.status) : "") << '\n';
}

std::string launch_ahead_words(std::uint32_t depth) {
  return std::to_string(depth) + (depth == 1 ? " kernel" : " kernels") + " queued behind the running one";
}

void print_measurement(const Measurement& m, std::ostream& out) {
  out << "device       " << m.device << (m.tf32 ? " (TF32 tensor cores for the products)" : "") << "\n";
  out << "arena        " << format_bytes(m.arena_bytes) << " per GPU";
  if (m.output_pool_bytes > 0) out << "; products' outputs " << format_bytes(m.output_pool_bytes) << " apart";
  out << "\n";
  out << "result       " << m.verification;
  if (m.tiles_checked > 0) out << " (" << m.tiles_checked << " tiles, worst relative error " << m.worst_error << ")";
  out << "\n";
  out << "CUPTI        ";
  if (m.cupti) {
    out << format_count(static_cast<double>(m.cupti_records)) << " records, " << m.cupti_dropped << " dropped"
        << (m.cupti_apis == "all"        ? ", linked by tracing every API call"
            : m.cupti_apis == "launches" ? ", linked by tracing the launches only"
            : m.cupti_apis == "callbacks" ? ", linked by CUPTI's callbacks on the launches (no API traced)"
                                          : "")
        << "\n";
  } else {
    out << "off\n";
  }
  out << "launch-ahead " << launch_ahead_words(m.launch_ahead) << "\n";
  std::istringstream kernels(m.kernels);
  bool first = true;
  for (std::string line; std::getline(kernels, line); first = false) out << (first ? "kernels      " : "             ") << line << "\n";
  out << "wall         " << format_duration(m.wall_ns) << " (setup " << format_duration(m.setup_ns) << " before it)\n";
}

}  // namespace tilelens::cli
