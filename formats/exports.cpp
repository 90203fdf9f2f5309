// Exports of a run; see exports.hpp.
#include "formats/exports.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <tuple>

#include "model/units.hpp"

namespace tilelens {
namespace {

std::string milliseconds(std::int64_t ns) {
  char text[40];
  std::snprintf(text, sizeof text, "%.6f", static_cast<double>(ns) / 1e6);
  return text;
}

std::string microseconds(std::int64_t ns) {
  char text[40];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1e3);
  return text;
}

std::string quoted_json(const std::string& text) { return "\"" + json_escape(text) + "\""; }

// Paje strings are double-quoted when they hold a blank.
std::string paje_string(const std::string& text) {
  std::string clean;
  for (char c : text) clean += c == '"' ? '\'' : c;
  return "\"" + clean + "\"";
}

const char* load_link_value(LoadKind kind) {
  switch (kind) {
    case LoadKind::Fetch: return "F";
    case LoadKind::Prefetch: return "PF";
    case LoadKind::Unused: return "U";
  }
  return "U";
}

constexpr std::int64_t kLaneStride = 100000;

// The Paje export's transfer kinds: link type and state value aliases, names, and colours from
// the Okabe-Ito palette (colour-blind safe).
struct TransferKind {
  const char* alias;
  const char* name;
  const char* color;
};
constexpr TransferKind kTransferKinds[] = {{"F", "fetch", "0.84 0.37 0.0"},
                                           {"PF", "prefetch", "0.0 0.45 0.70"},
                                           {"U", "unused", "0.80 0.47 0.65"},
                                           {"WB", "write-back", "0.90 0.62 0.0"}};

std::string run_title(const RunInfo& run) {
  return "run " + std::to_string(run.id) + ": " + run.scheduler + "/" + run.eviction + " on " + run.workload_spec;
}

std::uint32_t gpu_count(const RunInfo& run, const Trace& trace) {
  std::uint32_t gpus = std::max<std::uint32_t>(1, run.platform.gpus);
  for (const auto& t : trace.tasks) gpus = std::max(gpus, t.gpu + 1);
  for (const auto& l : trace.loads) gpus = std::max(gpus, l.gpu + 1);
  return gpus;
}

}  // namespace

std::vector<MemoryStep> memory_in_use(const Workload& workload, const Trace& trace) {
  struct Change {
    std::int64_t time;
    GpuId gpu;
    std::int64_t delta;
  };
  std::vector<Change> changes;
  auto bytes_of = [&](DataId d) { return static_cast<std::int64_t>(d < workload.data_count() ? workload.data()[d].bytes : 0); };
  for (const auto& l : trace.loads) changes.push_back({l.issue_ns, l.gpu, bytes_of(l.data)});
  for (const auto& a : trace.allocations) changes.push_back({a.time_ns, a.gpu, bytes_of(a.data)});
  for (const auto& e : trace.evictions) changes.push_back({e.time_ns, e.gpu, -bytes_of(e.data)});
  // At one instant, room is given back before it is taken again (an eviction for a load).
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& a, const Change& b) { return std::tie(a.time, a.delta) < std::tie(b.time, b.delta); });
  std::vector<std::int64_t> in_use;
  std::vector<MemoryStep> steps;
  steps.reserve(changes.size());
  for (const Change& c : changes) {
    if (in_use.size() <= c.gpu) in_use.resize(c.gpu + 1, 0);
    in_use[c.gpu] += c.delta;
    steps.push_back({c.time, c.gpu, static_cast<std::uint64_t>(std::max<std::int64_t>(0, in_use[c.gpu]))});
  }
  return steps;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void write_loads_csv(const Workload& workload, const Trace& trace, std::ostream& out) {
  out << "seq,data,data_name,gpu,source,bytes,issue_ns,end_ns,kind,task,task_label\n";
  std::size_t seq = 0;
  for (const LoadRecord& l : trace.loads) {
    out << seq++ << ',' << l.data << ',' << csv_field(workload.data()[l.data].name) << ',' << l.gpu << ','
        << (l.source == kFromHost ? std::string("host") : "gpu" + std::to_string(l.source)) << ',' << l.bytes << ',' << l.issue_ns
        << ',' << l.end_ns << ',' << to_string(l.kind) << ',';
    if (l.task != kNoId) out << l.task << ',' << csv_field(workload.task_label(l.task));
    else out << ',';
    out << '\n';
  }
}

void write_paje(const Workload& workload, const RunInfo& run, const Trace& trace, std::ostream& out) {
  out << "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
         "%EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
         "%EventDef PajeDefineVariableType 2\n% Alias string\n% Type string\n% Name string\n% Color color\n%EndEventDef\n"
         "%EventDef PajeDefineLinkType 3\n% Alias string\n% Type string\n% StartContainerType string\n"
         "% EndContainerType string\n% Name string\n%EndEventDef\n"
         "%EventDef PajeDefineEntityValue 4\n% Alias string\n% Type string\n% Name string\n% Color color\n%EndEventDef\n"
         "%EventDef PajeCreateContainer 5\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n"
         "%EndEventDef\n"
         "%EventDef PajeDestroyContainer 6\n% Time date\n% Type string\n% Name string\n%EndEventDef\n"
         "%EventDef PajeSetState 7\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
         "%EventDef PajeSetVariable 8\n% Time date\n% Type string\n% Container string\n% Value double\n%EndEventDef\n"
         "%EventDef PajeStartLink 9\n% Time date\n% Type string\n% Container string\n% Value string\n"
         "% StartContainer string\n% Key string\n%EndEventDef\n"
         "%EventDef PajeEndLink 10\n% Time date\n% Type string\n% Container string\n% Value string\n"
         "% EndContainer string\n% Key string\n%EndEventDef\n";
  // Types: the run holds memory nodes (the host and each GPU); a GPU has a worker state, a
  // memory variable and lanes of transfers; transfers are also links between memory nodes,
  // one link type per kind. Viewers colour states by value, so the lanes are what tells the
  // kinds apart: ViTE draws every link white and refuses values defined on a link type.
  out << "0 CT_Run 0 Run\n0 CT_Node CT_Run \"Memory node\"\n0 CT_Lane CT_Node \"Transfer lane\"\n"
         "1 ST_Worker CT_Node \"Worker state\"\n1 ST_Transfer CT_Lane Transfer\n"
         "2 V_Mem CT_Node \"Memory used (MiB)\" \"0.2 0.4 0.8\"\n";
  for (const TransferKind& kind : kTransferKinds) out << "3 L_" << kind.alias << " CT_Run CT_Node CT_Node " << kind.name << "\n";
  out << "4 Idle ST_Worker Idle \"0.9 0.9 0.9\"\n4 None ST_Transfer none \"0.9 0.9 0.9\"\n";
  for (const TransferKind& kind : kTransferKinds) out << "4 " << kind.alias << " ST_Transfer " << kind.name << " \"" << kind.color << "\"\n";
  for (std::size_t k = 0; k < workload.kinds().size(); ++k) {
    // Distinct, stable colours per task kind.
    const double hue = static_cast<double>(k) / static_cast<double>(std::max<std::size_t>(1, workload.kinds().size()));
    char color[48];
    std::snprintf(color, sizeof color, "\"%.2f %.2f %.2f\"", 0.3 + 0.6 * hue, 0.8 - 0.5 * hue, 0.3);
    out << "4 K" << k << " ST_Worker " << paje_string(workload.kinds()[k]) << ' ' << color << "\n";
  }

  const std::uint32_t gpus = gpu_count(run, trace);
  std::int64_t end = 0;
  for (const auto& t : trace.tasks) end = std::max(end, t.end_ns);
  for (const auto& l : trace.loads) end = std::max(end, l.end_ns);
  for (const auto& w : trace.writebacks) end = std::max(end, w.end_ns);
  out << "5 0.000000 run CT_Run 0 " << paje_string(run_title(run)) << "\n";
  out << "5 0.000000 host CT_Node run Host\n";
  for (std::uint32_t g = 0; g < gpus; ++g) {
    out << "5 0.000000 gpu" << g << " CT_Node run \"GPU " << g << "\"\n";
    out << "7 0.000000 ST_Worker gpu" << g << " Idle\n";
    out << "8 0.000000 V_Mem gpu" << g << " 0\n";
  }
  // Events in time order; at one instant a state ends before the next begins and a link
  // starts before it ends.
  struct Event {
    std::int64_t time;
    int rank;
    std::string line;
  };
  std::vector<Event> events;
  events.reserve(trace.tasks.size() * 2 + trace.loads.size() * 2);
  for (const TaskRecord& t : trace.tasks) {
    events.push_back({t.start_ns, 1, "ST_Worker gpu" + std::to_string(t.gpu) + " K" + std::to_string(workload.tasks()[t.task].kind)});
    events.push_back({t.end_ns, 0, "ST_Worker gpu" + std::to_string(t.gpu) + " Idle"});
  }
  // Each GPU's transfers, in and out, in start order on the first of its lanes free by then.
  struct Transfer {
    std::int64_t start, end;
    std::uint32_t gpu;
    std::string kind, from, to;
  };
  std::vector<Transfer> transfers;
  transfers.reserve(trace.loads.size() + trace.writebacks.size());
  for (const LoadRecord& l : trace.loads) {
    transfers.push_back({l.issue_ns, l.end_ns, l.gpu, load_link_value(l.kind),
                         l.source == kFromHost ? "host" : "gpu" + std::to_string(l.source), "gpu" + std::to_string(l.gpu)});
  }
  for (const WritebackRecord& w : trace.writebacks) {
    transfers.push_back({w.start_ns, w.end_ns, w.gpu, "WB", "gpu" + std::to_string(w.gpu), "host"});
  }
  std::stable_sort(transfers.begin(), transfers.end(), [](const Transfer& a, const Transfer& b) { return a.start < b.start; });
  std::vector<std::vector<std::int64_t>> lanes_free(gpus);  // per GPU: when each lane is free
  const auto lane_name = [](std::uint32_t gpu, std::size_t lane) { return "lane" + std::to_string(gpu) + "_" + std::to_string(lane); };
  std::size_t key = 0;
  for (const Transfer& t : transfers) {
    auto& lanes = lanes_free[t.gpu];
    std::size_t lane = 0;
    while (lane < lanes.size() && lanes[lane] > t.start) ++lane;
    if (lane == lanes.size()) lanes.push_back(0);
    lanes[lane] = t.end;
    const std::string container = lane_name(t.gpu, lane);
    events.push_back({t.start, 1, "ST_Transfer " + container + " " + t.kind});
    events.push_back({t.end, 0, "ST_Transfer " + container + " None"});
    const std::string id = "L" + std::to_string(key++);
    events.push_back({t.start, 2, "L_" + t.kind + " run " + t.kind + " " + t.from + " " + id});
    events.push_back({t.end, 3, "L_" + t.kind + " run " + t.kind + " " + t.to + " " + id});
  }
  for (const MemoryStep& m : memory_in_use(workload, trace)) {
    char value[32];
    std::snprintf(value, sizeof value, "%.3f", static_cast<double>(m.bytes) / 1048576.0);
    events.push_back({m.time_ns, 4, "V_Mem gpu" + std::to_string(m.gpu) + " " + value});
  }
  for (std::uint32_t g = 0; g < gpus; ++g) {
    for (std::size_t lane = 0; lane < lanes_free[g].size(); ++lane) {
      const std::string container = lane_name(g, lane);
      out << "5 0.000000 " << container << " CT_Lane gpu" << g << " \"transfers " << lane + 1 << "\"\n";
      out << "7 0.000000 ST_Transfer " << container << " None\n";
    }
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return std::tie(a.time, a.rank) < std::tie(b.time, b.rank); });
  static constexpr int kEventId[] = {7, 7, 9, 10, 8};
  for (const Event& e : events) out << kEventId[e.rank] << ' ' << milliseconds(e.time) << ' ' << e.line << "\n";
  for (std::uint32_t g = 0; g < gpus; ++g) {
    for (std::size_t lane = 0; lane < lanes_free[g].size(); ++lane) {
      out << "6 " << milliseconds(end) << " CT_Lane " << lane_name(g, lane) << "\n";
    }
    out << "6 " << milliseconds(end) << " CT_Node gpu" << g << "\n";
  }
  out << "6 " << milliseconds(end) << " CT_Node host\n6 " << milliseconds(end) << " CT_Run run\n";
}

void write_chrome_trace(const Workload& workload, const RunInfo& run, const Trace& trace, std::ostream& out) {
  const std::uint32_t gpus = gpu_count(run, trace);
  // Lanes: per GPU, one for compute, then copies in and copies out, each split into as many
  // sub-lanes as transfers overlap (Perfetto drops overlapping slices on one lane).
  struct Lane {
    std::string name;
    std::int64_t free_at;
  };
  std::vector<std::vector<Lane>> copy_lanes(static_cast<std::size_t>(gpus) * 2);
  std::vector<std::string> lines;
  auto lane_of = [&](std::uint32_t gpu, int direction, std::int64_t start, std::int64_t end) {
    auto& lanes = copy_lanes[gpu * 2 + static_cast<std::uint32_t>(direction)];
    std::size_t index = 0;
    while (index < lanes.size() && lanes[index].free_at > start) ++index;
    if (index == lanes.size()) lanes.push_back({"GPU " + std::to_string(gpu) + (direction == 0 ? " copies in" : " copies out") +
                                                    (index ? " #" + std::to_string(index + 1) : ""),
                                                0});
    lanes[index].free_at = end;
    // Thread ids: GPU g computes on kLaneStride g; its copy lanes follow, in then out.
    return kLaneStride * static_cast<std::int64_t>(gpu) + 1 + direction * (kLaneStride / 2) + static_cast<std::int64_t>(index);
  };
  const std::string pid = "1";
  for (const TaskRecord& t : trace.tasks) {
    lines.push_back("{\"name\":" + quoted_json(workload.task_label(t.task)) + ",\"cat\":\"task\",\"ph\":\"X\",\"ts\":" +
                    microseconds(t.start_ns) + ",\"dur\":" + microseconds(t.end_ns - t.start_ns) + ",\"pid\":" + pid +
                    ",\"tid\":" + std::to_string(kLaneStride * static_cast<std::int64_t>(t.gpu)) + ",\"args\":{\"task\":" +
                    std::to_string(t.task) + ",\"order\":" + std::to_string(t.global_order) + ",\"gpu_order\":" +
                    std::to_string(t.gpu_order) + "}}");
  }
  std::vector<LoadRecord> loads = trace.loads;
  std::stable_sort(loads.begin(), loads.end(), [](const LoadRecord& a, const LoadRecord& b) { return a.issue_ns < b.issue_ns; });
  for (const LoadRecord& l : loads) {
    const auto tid = lane_of(l.gpu, 0, l.issue_ns, l.end_ns);
    lines.push_back("{\"name\":" + quoted_json("load " + workload.data()[l.data].name) + ",\"cat\":\"" + to_string(l.kind) +
                    "\",\"ph\":\"X\",\"ts\":" + microseconds(l.issue_ns) + ",\"dur\":" + microseconds(l.end_ns - l.issue_ns) +
                    ",\"pid\":" + pid + ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"bytes\":" + std::to_string(l.bytes) +
                    ",\"source\":" + quoted_json(l.source == kFromHost ? "host" : "GPU " + std::to_string(l.source)) +
                    (l.task != kNoId ? ",\"for_task\":" + quoted_json(workload.task_label(l.task)) : "") + "}}");
  }
  std::vector<WritebackRecord> writebacks = trace.writebacks;
  std::stable_sort(writebacks.begin(), writebacks.end(),
                   [](const WritebackRecord& a, const WritebackRecord& b) { return a.start_ns < b.start_ns; });
  for (const WritebackRecord& w : writebacks) {
    const auto tid = lane_of(w.gpu, 1, w.start_ns, w.end_ns);
    lines.push_back("{\"name\":" + quoted_json("write back " + workload.data()[w.data].name) +
                    ",\"cat\":\"writeback\",\"ph\":\"X\",\"ts\":" + microseconds(w.start_ns) + ",\"dur\":" +
                    microseconds(w.end_ns - w.start_ns) + ",\"pid\":" + pid + ",\"tid\":" + std::to_string(tid) +
                    ",\"args\":{\"bytes\":" + std::to_string(w.bytes) + ",\"cause\":\"" + to_string(w.cause) + "\"}}");
  }
  for (const EvictionRecord& e : trace.evictions) {
    lines.push_back("{\"name\":" + quoted_json("evict " + workload.data()[e.data].name) + ",\"cat\":\"" + to_string(e.cause) +
                    "\",\"ph\":\"i\",\"s\":\"t\",\"ts\":" + microseconds(e.time_ns) + ",\"pid\":" + pid +
                    ",\"tid\":" + std::to_string(kLaneStride * static_cast<std::int64_t>(e.gpu)) + "}");
  }
  for (const MemoryStep& m : memory_in_use(workload, trace)) {
    char value[32];
    std::snprintf(value, sizeof value, "%.3f", static_cast<double>(m.bytes) / 1048576.0);
    lines.push_back("{\"name\":\"GPU " + std::to_string(m.gpu) + " memory\",\"ph\":\"C\",\"ts\":" + microseconds(m.time_ns) +
                    ",\"pid\":" + pid + ",\"args\":{\"MiB\":" + value + "}}");
  }
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  out << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" << pid << ",\"args\":{\"name\":" << quoted_json(run_title(run)) << "}}";
  for (std::uint32_t g = 0; g < gpus; ++g) {
    out << ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << kLaneStride * static_cast<std::int64_t>(g)
        << ",\"args\":{\"name\":\"GPU " << g << " compute\"}}";
    for (int direction = 0; direction < 2; ++direction) {
      const auto& lanes = copy_lanes[g * 2 + static_cast<std::uint32_t>(direction)];
      for (std::size_t i = 0; i < lanes.size(); ++i) {
        out << ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":"
            << kLaneStride * static_cast<std::int64_t>(g) + 1 + direction * (kLaneStride / 2) + static_cast<std::int64_t>(i)
            << ",\"args\":{\"name\":" << quoted_json(lanes[i].name) << "}}";
      }
    }
  }
  for (const auto& line : lines) out << ",\n" << line;
  out << "\n]}\n";
}

void write_trace_text(const Trace& trace, std::ostream& out) {
  for (const auto& r : trace.tasks) {
    out << "task " << r.task << ' ' << r.gpu << ' ' << r.global_order << ' ' << r.gpu_order << ' ' << r.buffered_ns << ' '
        << r.start_ns << ' ' << r.end_ns << '\n';
  }
  for (const auto& r : trace.loads) {
    out << "load " << r.data << ' ' << r.gpu << ' ' << r.source << ' ' << r.bytes << ' ' << r.issue_ns << ' ' << r.end_ns
        << ' ' << to_string(r.kind) << ' ' << static_cast<std::int64_t>(r.task == kNoId ? -1 : r.task) << '\n';
  }
  for (const auto& r : trace.evictions) {
    out << "evict " << r.data << ' ' << r.gpu << ' ' << r.time_ns << ' ' << to_string(r.cause) << ' ' << r.for_task << ' '
        << r.wrote_back << '\n';
  }
  for (const auto& r : trace.writebacks) {
    out << "writeback " << r.data << ' ' << r.gpu << ' ' << r.bytes << ' ' << r.start_ns << ' ' << r.end_ns << ' '
        << to_string(r.cause) << '\n';
  }
  for (const auto& r : trace.allocations) {
    out << "alloc " << r.data << ' ' << r.gpu << ' ' << r.time_ns << ' ' << r.task << '\n';
  }
}

void write_order_csv(const Workload& workload, const Trace& trace, std::ostream& out) {
  std::vector<std::vector<const LoadRecord*>> by_task(workload.task_count());
  for (const auto& load : trace.loads) {
    if (load.task != kNoId) by_task[load.task].push_back(&load);
  }
  out << "order,gpu,gpu_order,task,kind,i,j,k,start_ns,end_ns,fetches,prefetches,loads\n";
  for (const auto& r : trace.tasks) {
    const Task& task = workload.tasks()[r.task];
    int fetches = 0, prefetches = 0;
    std::string loads;
    for (const LoadRecord* load : by_task[r.task]) {
      (load->kind == LoadKind::Fetch ? fetches : prefetches)++;
      if (!loads.empty()) loads += ' ';
      loads += workload.data()[load->data].name + ":" + to_string(load->kind);
      if (load->source != kFromHost) loads += "@gpu" + std::to_string(load->source);
    }
    out << r.global_order << ',' << r.gpu << ',' << r.gpu_order << ',' << r.task << ',' << csv_field(workload.kinds()[task.kind]) << ','
        << task.i << ',' << task.j << ',' << task.k << ',' << r.start_ns << ',' << r.end_ns << ',' << fetches << ','
        << prefetches << ',' << csv_field(loads) << "\n";
  }
}


namespace {

void export_order(const RunExport& run, std::ostream& out) { write_order_csv(run.workload, run.trace, out); }
void export_loads(const RunExport& run, std::ostream& out) { write_loads_csv(run.workload, run.trace, out); }
void export_paje(const RunExport& run, std::ostream& out) { write_paje(run.workload, run.info, run.trace, out); }
void export_chrome(const RunExport& run, std::ostream& out) { write_chrome_trace(run.workload, run.info, run.trace, out); }
void export_trace(const RunExport& run, std::ostream& out) { write_trace_text(run.trace, out); }

}  // namespace

const std::vector<RunExporter>& run_exporters() {
  static const std::vector<RunExporter> exporters = {
      {"order", "CSV", "the processing order, one row per task with its loads (the tile-order figure's input)", ".csv", export_order},
      {"loads", "CSV", "one row per load: data, GPU, source, bytes, times, fetch or prefetch, its task", ".csv", export_loads},
      {"paje", "Paje", "a Paje trace for ViTE: GPUs as containers, task states, transfers as links, memory in use", ".paje", export_paje},
      {"chrome", "Chrome trace", "Chrome trace-event JSON for Perfetto: a lane per GPU and transfer direction, memory as a counter",
       ".json", export_chrome},
      {"trace", "text", "tilelens' canonical text form of the trace (the golden tests compare it)", ".txt", export_trace},
  };
  return exporters;
}

const RunExporter* find_run_exporter(std::string_view name) {
  for (const auto& exporter : run_exporters()) {
    if (exporter.name == name) return &exporter;
  }
  return nullptr;
}

const RunExporter& run_exporter_for_path(std::string_view path, const RunExporter& chosen) {
  if (path.ends_with(chosen.extension)) return chosen;
  const RunExporter* only = nullptr;
  for (const auto& exporter : run_exporters()) {
    if (!path.ends_with(exporter.extension)) continue;
    if (only) return chosen;  // two formats share that extension (CSV): the filter says which
    only = &exporter;
  }
  return only ? *only : chosen;
}

}  // namespace tilelens
