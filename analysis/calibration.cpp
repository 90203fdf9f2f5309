// Calibration from a trace; see calibration.hpp.
#include "analysis/calibration.hpp"

#include <algorithm>
#include <set>

namespace tilelens {

Result<Calibration> calibrate(const Workload& workload, const Trace& trace, const Platform& base) {
  if (trace.tasks.empty()) return make_error("the run has no task executions to calibrate from");
  Calibration out;
  out.platform = base;
  // When each task's last attributed load arrived.
  std::vector<std::int64_t> inputs_at(workload.task_count(), 0);
  for (const LoadRecord& load : trace.loads) {
    if (load.task != kNoId && load.task < workload.task_count()) inputs_at[load.task] = std::max(inputs_at[load.task], load.end_ns);
  }
  std::vector<const TaskRecord*> order;
  for (const TaskRecord& t : trace.tasks) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->gpu != b->gpu ? a->gpu < b->gpu : a->gpu_order < b->gpu_order; });
  // Per kind and architecture: workers computing out of a bounded memory, and CPU workers on
  // the host (a platform's cpus), which have rates of their own.
  const std::size_t kinds = workload.kinds().size();
  struct Sums {
    std::vector<double> flops, busy, kernel;
    std::vector<std::uint64_t> count;
    double all_flops = 0, all_busy = 0;
  };
  Sums device{std::vector<double>(kinds, 0), std::vector<double>(kinds, 0), std::vector<double>(kinds, 0), std::vector<std::uint64_t>(kinds, 0)};
  Sums host = device;
  GpuId gpu = kNoId;
  std::int64_t previous_end = 0;
  for (const TaskRecord* t : order) {
    if (t->gpu != gpu) {
      gpu = t->gpu;
      previous_end = 0;
    }
    const Task& task = workload.tasks()[t->task];
    const std::int64_t ready = std::max({previous_end, inputs_at[t->task], t->buffered_ns});
    const std::int64_t effective = std::max(t->end_ns - ready, t->end_ns - t->start_ns);
    previous_end = t->end_ns;
    Sums& sums = base.is_cpu_worker(t->gpu) ? host : device;
    sums.flops[task.kind] += task.flops;
    sums.busy[task.kind] += static_cast<double>(effective);
    sums.kernel[task.kind] += static_cast<double>(t->end_ns - t->start_ns);
    ++sums.count[task.kind];
    sums.all_flops += task.flops;
    sums.all_busy += static_cast<double>(effective);
  }
  const auto rates = [&](const Sums& sums, std::map<std::string, double>& into, bool main) -> Status {
    into.clear();
    for (std::size_t k = 0; k < kinds; ++k) {
      if (sums.count[k] == 0) continue;
      const std::string& name = workload.kinds()[k];
      if (!(sums.busy[k] > 0)) return make_error("the " + name + " tasks took no time: nothing to calibrate the rate from");
      // A kind without flops takes no time at any rate: it keeps the default rate rather than 0,
      // which would mean it cannot run there.
      if (!(sums.flops[k] > 0)) continue;
      into[name] = sums.flops[k] / sums.busy[k];  // flops per ns = GFlop/s
      if (main) {
        out.kernel_gflops[name] = sums.kernel[k] > 0 ? sums.flops[k] / sums.kernel[k] : 0;
        out.tasks_per_kind[name] = sums.count[k];
      }
    }
    return Status::success();
  };
  if (auto r = rates(device, out.platform.kind_gflops, true); !r) return r.error();
  if (auto r = rates(host, out.platform.cpu_kind_gflops, false); !r) return r.error();
  if (device.all_busy > 0 && device.all_flops > 0) out.platform.default_gflops = device.all_flops / device.all_busy;
  if (host.all_busy > 0 && host.all_flops > 0) out.platform.cpu_default_gflops = host.all_flops / host.all_busy;

  // Loads from the host: bandwidth and latency.
  double bytes = 0, seconds = 0;
  std::set<std::uint64_t> sizes;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const LoadRecord& load : trace.loads) {
    if (load.source != kFromHost || load.end_ns <= load.issue_ns) continue;
    const double x = static_cast<double>(load.bytes), y = static_cast<double>(load.end_ns - load.issue_ns);
    ++out.host_loads;
    bytes += x;
    seconds += y * 1e-9;
    sizes.insert(load.bytes);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  if (out.host_loads > 0 && seconds > 0) {
    out.load_bytes_per_s = bytes / seconds;
    out.platform.bus_bandwidth = out.load_bytes_per_s;
    out.platform.latency_ns = 0;
    if (sizes.size() > 1) {
      const double n = static_cast<double>(out.host_loads);
      const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);  // ns per byte
      const double intercept = (sy - slope * sx) / n;
      if (slope > 0 && intercept > 0) {
        out.platform.bus_bandwidth = 1e9 / slope;
        out.platform.latency_ns = static_cast<std::int64_t>(intercept);
      }
    }
    out.latency_ns = out.platform.latency_ns;
  }
  double wb_bytes = 0, wb_seconds = 0;
  for (const WritebackRecord& w : trace.writebacks) {
    if (w.end_ns <= w.start_ns) continue;
    wb_bytes += static_cast<double>(w.bytes);
    wb_seconds += static_cast<double>(w.end_ns - w.start_ns) * 1e-9;
  }
  if (wb_seconds > 0) out.writeback_bytes_per_s = wb_bytes / wb_seconds;
  return out;
}

}  // namespace tilelens
