// A run for other tools: CSV tables, a Paje trace for ViTE, Chrome trace-event JSON for
// Perfetto, and tilelens' own text form (docs/database.md, "Exports"). Each writer takes the
// run's workload (for names and sizes) and its trace. run_exporters() lists them by name, once,
// for `tilelens export` and the app's File > Export run.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "trace/run.hpp"
#include "trace/trace.hpp"

namespace tilelens {

// A CSV field (RFC 4180): as is, or double-quoted with its quotes doubled when it holds a
// comma, a quote or a line break. Every CSV writer of tilelens writes text through it.
std::string csv_field(std::string_view text);

// One row per load: data, GPU, source, bytes, issue and end times, fetch or prefetch, and
// the task it was attributed to.
void write_loads_csv(const Workload& workload, const Trace& trace, std::ostream& out);

// Paje: one container per GPU under the run, its states (executing a task, with the task's
// kind as the value), links from the host (or another GPU) typed F (fetch), PF (prefetch) or
// U (unused), and the bytes in use on each GPU as a variable. Times in milliseconds, as
// StarPU's own traces.
void write_paje(const Workload& workload, const RunInfo& run, const Trace& trace, std::ostream& out);

// Chrome trace events: process = the run, one thread lane per GPU compute and per transfer
// direction of each GPU (copies overlap compute, so they must not share its lane), memory in
// use as a counter. Times in microseconds.
void write_chrome_trace(const Workload& workload, const RunInfo& run, const Trace& trace, std::ostream& out);

// One canonical text form of a trace, for bit-identity checks and debugging.
void write_trace_text(const Trace& trace, std::ostream& out);

// The processing order with each task's attributed loads, one row per task (--order-out).
void write_order_csv(const Workload& workload, const Trace& trace, std::ostream& out);

// The exporters of one run, by name ("order", "loads", "paje", "chrome", "trace").
struct RunExport {
  const Workload& workload;
  const RunInfo& info;
  const Trace& trace;
};
struct RunExporter {
  std::string name;
  std::string format;     // "CSV", "Paje", ... (file dialogs' filters)
  std::string summary;
  std::string extension;  // ".csv"
  void (*write)(const RunExport& run, std::ostream& out);
};
const std::vector<RunExporter>& run_exporters();
const RunExporter* find_run_exporter(std::string_view name);
// For a file dialog: the exporter `chosen` in its filter, unless `path` ends in another
// format's extension that only one exporter writes (run-4.json: the Chrome trace).
const RunExporter& run_exporter_for_path(std::string_view path, const RunExporter& chosen);

// Bytes in use on each GPU after every change, in time order: (time_ns, gpu, bytes). Room is
// taken when a load is issued or an output allocated, and given back at an eviction.
struct MemoryStep {
  std::int64_t time_ns;
  GpuId gpu;
  std::uint64_t bytes;
};
std::vector<MemoryStep> memory_in_use(const Workload& workload, const Trace& trace);

}  // namespace tilelens
