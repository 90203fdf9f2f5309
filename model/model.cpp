// The problem model; see model.hpp.
#include "model/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <numeric>
#include <utility>

#include "model/units.hpp"
#include "util/quoted.hpp"
#include "util/utf8.hpp"

namespace tilelens {

const char* to_string(AccessMode mode) {
  switch (mode) {
    case AccessMode::Read: return "R";
    case AccessMode::Write: return "W";
    case AccessMode::ReadWrite: return "RW";
  }
  return "?";
}

std::optional<AccessMode> access_mode_from(std::string_view text) {
  if (text == "R") return AccessMode::Read;
  if (text == "W") return AccessMode::Write;
  if (text == "RW") return AccessMode::ReadWrite;
  return std::nullopt;
}

std::uint64_t Workload::footprint_bytes(TaskId task) const {
  std::uint64_t bytes = 0;
  auto list = accesses(task);
  for (std::size_t a = 0; a < list.size(); ++a) {
    bool repeated = false;
    for (std::size_t b = 0; b < a; ++b) repeated |= list[b].data == list[a].data;
    if (!repeated) bytes += data_[list[a].data].bytes;
  }
  return bytes;
}

std::string Workload::task_label(TaskId task) const {
  const Task& t = tasks_[task];
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%s(%d,%d,%d) #%u", kinds_[t.kind].c_str(), t.i, t.j, t.k, task);
  return buffer;
}

WorkloadBuilder::WorkloadBuilder(std::string name) : name_(std::move(name)) {}

KindId WorkloadBuilder::kind(const std::string& name) {
  auto it = kind_ids_.find(name);
  if (it != kind_ids_.end()) return it->second;
  const auto id = static_cast<KindId>(kinds_.size());
  kinds_.push_back(name);
  kind_ids_[name] = id;
  return id;
}

DataId WorkloadBuilder::add_data(Data data) {
  data_.push_back(std::move(data));
  return static_cast<DataId>(data_.size() - 1);
}

TaskId WorkloadBuilder::add_task(KindId kind, std::span<const Access> accesses, double flops, std::int32_t i,
                                 std::int32_t j, std::int32_t k, std::int64_t priority) {
  Task task;
  task.kind = kind;
  task.first_access = static_cast<std::uint32_t>(accesses_.size());
  task.access_count = static_cast<std::uint32_t>(accesses.size());
  task.flops = flops;
  task.priority = priority;
  task.i = i;
  task.j = j;
  task.k = k;
  accesses_.insert(accesses_.end(), accesses.begin(), accesses.end());
  tasks_.push_back(task);
  return static_cast<TaskId>(tasks_.size() - 1);
}

void WorkloadBuilder::add_dependency(TaskId before, TaskId after) { edges_.emplace_back(before, after); }

void WorkloadBuilder::derive_data_dependencies() {
  std::vector<TaskId> last_writer(data_.size(), kNoId);
  std::vector<std::vector<TaskId>> readers_since(data_.size());
  std::vector<TaskId> order = order_;
  if (order.empty()) {
    order.resize(tasks_.size());
    std::iota(order.begin(), order.end(), 0);
  }
  for (TaskId task : order) {
    const Task& t = tasks_[task];
    for (std::uint32_t a = 0; a < t.access_count; ++a) {
      const Access access = accesses_[t.first_access + a];
      if (access.data >= data_.size()) continue;  // reported by finish()
      if (reads(access.mode) && last_writer[access.data] != kNoId && last_writer[access.data] != task) {
        add_dependency(last_writer[access.data], task);
      }
      if (writes(access.mode)) {
        for (TaskId reader : readers_since[access.data]) {
          if (reader != task) add_dependency(reader, task);
        }
        if (readers_since[access.data].empty() && last_writer[access.data] != kNoId &&
            last_writer[access.data] != task) {
          add_dependency(last_writer[access.data], task);
        }
        readers_since[access.data].clear();
        last_writer[access.data] = task;
      } else {
        readers_since[access.data].push_back(task);
      }
    }
  }
}

namespace {

// Edges in (before, after) order, as std::sort would put them, by two counting passes (after,
// then stably before): linear in edges and tasks, where sorting was a tenth of reading a
// workload file back.
void sort_edges(std::vector<std::pair<TaskId, TaskId>>& edges, std::size_t count) {
  std::vector<std::pair<TaskId, TaskId>> other(edges.size());
  std::vector<std::uint32_t> start(count + 1);
  const auto pass = [&](const std::vector<std::pair<TaskId, TaskId>>& from, std::vector<std::pair<TaskId, TaskId>>& to, bool by_first) {
    std::fill(start.begin(), start.end(), 0);
    for (const auto& edge : from) ++start[(by_first ? edge.first : edge.second) + 1];
    for (std::size_t i = 0; i < count; ++i) start[i + 1] += start[i];
    for (const auto& edge : from) to[start[by_first ? edge.first : edge.second]++] = edge;
  };
  pass(edges, other, false);
  pass(other, edges, true);
}

void build_csr(std::size_t count, const std::vector<std::pair<TaskId, TaskId>>& edges, bool by_first,
               std::vector<std::uint32_t>& offsets, std::vector<TaskId>& items) {
  offsets.assign(count + 1, 0);
  for (const auto& edge : edges) ++offsets[(by_first ? edge.first : edge.second) + 1];
  for (std::size_t i = 0; i < count; ++i) offsets[i + 1] += offsets[i];
  items.assign(edges.size(), 0);
  std::vector<std::uint32_t> cursor(offsets.begin(), offsets.end() - 1);
  for (const auto& edge : edges) {
    const TaskId key = by_first ? edge.first : edge.second;
    items[cursor[key]++] = by_first ? edge.second : edge.first;
  }
}

}  // namespace

Result<Workload> WorkloadBuilder::finish() && {
  const auto ntasks = tasks_.size();
  const auto ndata = data_.size();
  if (ntasks == 0) return make_error("workload '" + name_ + "' has no task");
  if (ntasks >= kNoId || ndata >= kNoId) return make_error("workload '" + name_ + "' is too large");
  // Kind ids are 16 bits (KindId): past 65535 kinds, kind() hands out ids that wrapped.
  if (kinds_.size() > std::numeric_limits<KindId>::max()) {
    return make_error("workload '" + name_ + "' has " + std::to_string(kinds_.size()) + " task kinds; at most " +
                      std::to_string(std::numeric_limits<KindId>::max()) + " are allowed");
  }

  // Names are written into workload files (docs/workload-format.md): kind and data names as
  // one word, the workload's as the rest of its line, '#' starting a comment there.
  const auto name_problem = [](std::string_view name, bool one_word) -> std::string {
    if (auto at = invalid_utf8_at(name); at != std::string::npos) return "is not valid UTF-8 (byte " + std::to_string(at + 1) + ")";
    for (const char c : name) {
      if (c == '#' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f || (one_word && c == ' ')) {
        return "holds " + std::string(c == '#' ? "'#'" : c == ' ' ? "a space" : "a control character") +
               (one_word ? " (a name is one word of printable text without '#')" : " (a name is printable text without '#')");
      }
    }
    if (one_word && name.empty()) return "is empty";
    return "";
  };
  if (auto problem = name_problem(name_, false); !problem.empty()) return make_error("the workload's name " + problem);
  for (std::size_t k = 0; k < kinds_.size(); ++k) {
    if (auto problem = name_problem(kinds_[k], true); !problem.empty()) {
      return make_error("kind " + std::to_string(k) + " ('" + kinds_[k] + "') " + problem);
    }
  }
  std::uint64_t total_bytes = 0;
  for (DataId d = 0; d < ndata; ++d) {
    if (data_[d].bytes == 0) {
      return make_error("data " + std::to_string(d) + " ('" + data_[d].name + "') has a size of zero bytes");
    }
    if (auto problem = name_problem(data_[d].name, true); !problem.empty()) {
      return make_error("data " + std::to_string(d) + " ('" + data_[d].name + "') " + problem);
    }
    if (data_[d].bytes > kMaxWorkloadBytes - total_bytes) {
      return make_error("data " + std::to_string(d) + " ('" + data_[d].name + "') of " + std::to_string(data_[d].bytes) +
                        " bytes takes the workload's data past 2^62 bytes (4 EiB), more than tilelens can count");
    }
    total_bytes += data_[d].bytes;
  }
  for (TaskId t = 0; t < ntasks; ++t) {
    const Task& task = tasks_[t];
    if (!(task.flops >= 0)) return make_error("task " + std::to_string(t) + " has negative flops");
    if (!(task.flops <= kMaxTaskFlops)) {
      char flops[32];
      std::snprintf(flops, sizeof flops, "%g", task.flops);
      return make_error("task " + std::to_string(t) + " has " + flops + " flops, more than the 1e21 a task may have");
    }
    for (std::uint32_t a = 0; a < task.access_count; ++a) {
      const Access access = accesses_[task.first_access + a];
      if (access.data >= ndata) {
        return make_error("task " + std::to_string(t) + " accesses data " + std::to_string(access.data) +
                          ", which does not exist (the workload has " + std::to_string(ndata) + " data)");
      }
      for (std::uint32_t b = 0; b < a; ++b) {
        if (accesses_[task.first_access + b].data == access.data) {
          return make_error("task " + std::to_string(t) + " accesses data " + std::to_string(access.data) +
                            " twice; give it once with mode RW");
        }
      }
    }
  }
  for (const auto& [before, after] : edges_) {
    if (before >= ntasks || after >= ntasks) {
      return make_error("dependency " + std::to_string(before) + " -> " + std::to_string(after) +
                        " names a task that does not exist (the workload has " + std::to_string(ntasks) + " tasks)");
    }
    if (before == after) return make_error("task " + std::to_string(before) + " depends on itself");
  }
  sort_edges(edges_, ntasks);
  edges_.erase(std::unique(edges_.begin(), edges_.end()), edges_.end());

  if (order_.empty()) {
    order_.resize(ntasks);
    std::iota(order_.begin(), order_.end(), 0);
  }
  if (order_.size() != ntasks) {
    return make_error("the submission order lists " + std::to_string(order_.size()) + " tasks but the workload has " +
                      std::to_string(ntasks));
  }
  {
    std::vector<char> seen(ntasks, 0);
    for (TaskId task : order_) {
      if (task >= ntasks) return make_error("the submission order names task " + std::to_string(task) + ", which does not exist");
      if (seen[task]) return make_error("the submission order lists task " + std::to_string(task) + " twice");
      seen[task] = 1;
    }
  }

  // `home` tells only of data whose first access writes them (docs/workload-format.md): one first
  // read, or never accessed, keeps no flag, so that a workload has one file form.
  if (std::any_of(data_.begin(), data_.end(), [](const Data& d) { return d.home; })) {
    std::vector<char> first_writes(ndata, 0), seen(ndata, 0);
    for (TaskId task : order_) {
      for (std::uint32_t a = 0; a < tasks_[task].access_count; ++a) {
        const Access access = accesses_[tasks_[task].first_access + a];
        if (!std::exchange(seen[access.data], 1)) first_writes[access.data] = reads(access.mode) ? 0 : 1;
      }
    }
    for (DataId d = 0; d < ndata; ++d) data_[d].home = data_[d].home && first_writes[d];
  }

  Workload w;
  w.name_ = std::move(name_);
  w.generator_ = std::move(generator_);
  w.kinds_ = std::move(kinds_);
  w.data_ = std::move(data_);
  w.tasks_ = std::move(tasks_);
  w.accesses_ = std::move(accesses_);
  w.order_ = std::move(order_);
  build_csr(ntasks, edges_, false, w.pred_offsets_, w.preds_);
  build_csr(ntasks, edges_, true, w.succ_offsets_, w.succs_);

  // Cycle check (Kahn); on failure walk predecessors among the leftovers to land on a cycle.
  {
    std::vector<std::uint32_t> missing(ntasks);
    std::vector<TaskId> queue;
    for (TaskId t = 0; t < ntasks; ++t) {
      missing[t] = static_cast<std::uint32_t>(w.predecessors(t).size());
      if (missing[t] == 0) queue.push_back(t);
    }
    std::size_t done = 0;
    std::vector<TaskId> topo;
    topo.reserve(ntasks);
    while (done < queue.size()) {
      const TaskId t = queue[done++];
      topo.push_back(t);
      for (TaskId s : w.successors(t)) {
        if (--missing[s] == 0) queue.push_back(s);
      }
    }
    if (topo.size() != ntasks) {
      TaskId at = 0;
      while (missing[at] == 0) ++at;
      std::vector<char> visited(ntasks, 0);
      while (!visited[at]) {
        visited[at] = 1;
        for (TaskId p : w.predecessors(at)) {
          if (missing[p] != 0) {
            at = p;
            break;
          }
        }
      }
      return make_error("the dependencies contain a cycle through task " + std::to_string(at) + " (" +
                        w.task_label(at) + ")");
    }
    if (bottom_level_priorities_) {
      std::vector<double> level(ntasks, 0);
      for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
        double best = 0;
        for (TaskId s : w.successors(*it)) best = std::max(best, level[s]);
        level[*it] = best + w.tasks_[*it].flops;
        w.tasks_[*it].priority = static_cast<std::int64_t>(level[*it]);
      }
    }
  }

  // Readers of each data, in submission order; working set; totals.
  {
    std::vector<std::pair<TaskId, TaskId>> reads_list;  // (data, task) reusing the CSR helper
    std::vector<char> read(ndata, 0);
    for (TaskId task : w.order_) {
      for (const Access& access : w.accesses(task)) {
        if (reads(access.mode)) {
          reads_list.emplace_back(access.data, task);
          read[access.data] = 1;
        }
      }
    }
    build_csr(ndata, reads_list, true, w.reader_offsets_, w.readers_);
    for (DataId d = 0; d < ndata; ++d) {
      if (read[d]) w.working_set_ += w.data_[d].bytes;
      w.largest_data_ = std::max<std::uint64_t>(w.largest_data_, w.data_[d].bytes);
    }
  }
  for (const Task& task : w.tasks_) w.total_flops_ += task.flops;
  const auto by_data = [](const Access& a, const Access& b) { return a.data < b.data; };
  for (TaskId t = 0; t < w.tasks_.size() && w.by_data_.empty(); ++t) {
    const auto accesses = w.accesses(t);
    if (!std::is_sorted(accesses.begin(), accesses.end(), by_data)) w.by_data_ = w.accesses_;
  }
  for (TaskId t = 0; t < w.tasks_.size() && !w.by_data_.empty(); ++t) {
    const auto first = w.by_data_.begin() + w.tasks_[t].first_access;
    std::sort(first, first + w.tasks_[t].access_count, by_data);
  }
  w.largest_footprint_.assign(w.kinds_.size(), 0);
  for (TaskId t = 0; t < w.tasks_.size(); ++t) {
    auto& largest = w.largest_footprint_[w.tasks_[t].kind];
    largest = std::max(largest, w.footprint_bytes(t));
  }
  return w;
}

std::string Platform::worker_name(GpuId worker) const {
  if (worker >= gpus && cpus > 0) return "CPU " + std::to_string(worker - gpus);
  return "GPU " + std::to_string(worker);
}

double Platform::transfer_seconds(double bytes, bool from_gpu) const {
  const double bandwidth = from_gpu && gpu_link_bandwidth > 0 ? gpu_link_bandwidth : bus_bandwidth;
  return static_cast<double>(latency_ns) * 1e-9 + bytes / bandwidth;
}

double Platform::gflops_of(const std::string& kind) const {
  auto it = kind_gflops.find(kind);
  return it == kind_gflops.end() ? default_gflops : it->second;
}

double Platform::cpu_gflops_of(const std::string& kind) const {
  auto it = cpu_kind_gflops.find(kind);
  return it == cpu_kind_gflops.end() ? cpu_default_gflops : it->second;
}

double Platform::total_peak_gflops() const {
  double cpu_peak = cpu_default_gflops;
  for (const auto& [kind, rate] : cpu_kind_gflops) cpu_peak = std::max(cpu_peak, rate);
  return gpus * peak_gflops() + cpus * cpu_peak;
}

double Platform::peak_gflops() const {
  double peak = default_gflops;
  for (const auto& [kind, rate] : kind_gflops) peak = std::max(peak, rate);
  return peak;
}

std::string Platform::describe() const {
  std::string out = std::to_string(gpus) + " GPU" + (gpus > 1 ? "s" : "") + " x " + format_bytes(memory_bytes) +
                    ", bus " + format_bytes(bus_bandwidth) + "/s";
  if (gpu_link_bandwidth > 0) out += ", GPU links " + format_bytes(gpu_link_bandwidth) + "/s";
  if (gpus_per_switch > 0 && switch_bandwidth > 0) {
    out += ", " + std::to_string(gpus_per_switch) + " GPUs per " + format_bytes(switch_bandwidth) + "/s switch";
  }
  if (gpu_bus_bandwidth > 0) out += ", " + format_bytes(gpu_bus_bandwidth) + "/s per GPU link";
  if (workers_per_memory > 1) out += ", " + std::to_string(workers_per_memory) + " workers per memory";
  if (copy_engines > 0) out += ", " + std::to_string(copy_engines) + " copy engine" + (copy_engines > 1 ? "s" : "") + (half_duplex ? "" : " per direction");
  if (half_duplex) out += ", half duplex";
  if (latency_ns > 0) out += ", latency " + format_duration(latency_ns);
  char rate[64];
  std::snprintf(rate, sizeof rate, ", %.0f GFlop/s", default_gflops);
  out += rate;
  for (const auto& [kind, gflops] : kind_gflops) {
    std::snprintf(rate, sizeof rate, " %s=%.0f", kind.c_str(), gflops);
    out += rate;
  }
  if (cpus > 0) {
    std::snprintf(rate, sizeof rate, "; %u CPU core%s at %.0f GFlop/s", cpus, cpus > 1 ? "s" : "", cpu_default_gflops);
    out += rate;
    for (const auto& [kind, gflops] : cpu_kind_gflops) {
      std::snprintf(rate, sizeof rate, " %s=%.0f", kind.c_str(), gflops);
      out += rate;
    }
  }
  if (!worker_speeds.empty()) out += "; worker speeds " + format_worker_speeds(worker_speeds);
  return out;
}

std::string format_worker_speeds(const std::vector<double>& speeds) {
  std::string out;
  for (const double speed : speeds) out += (out.empty() ? "" : ",") + format_exact(speed);
  return out;
}

Result<std::vector<double>> parse_worker_speeds(std::string_view text) {
  std::vector<double> speeds;
  if (text.empty()) return speeds;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    char* end = nullptr;
    const double value = item.empty() ? 0 : std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !(value >= kMinWorkerSpeed && value <= kMaxWorkerSpeed)) {
      return make_error("worker " + std::to_string(speeds.size()) + "'s speed " + quote_input(item) + " is not a number from 0.001 to 1000");
    }
    speeds.push_back(value);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return speeds;
}

double Platform::host_throughput() const {
  if (!has_pcie_tree()) return bus_bandwidth;
  const std::uint32_t nodes = memory_nodes();
  double tree = 0;
  if (gpus_per_switch > 0 && switch_bandwidth > 0) {
    for (std::uint32_t first = 0; first < nodes; first += gpus_per_switch) {
      const auto behind = static_cast<double>(std::min(gpus_per_switch, nodes - first));
      tree += gpu_bus_bandwidth > 0 ? std::min(switch_bandwidth, behind * gpu_bus_bandwidth) : switch_bandwidth;
    }
  } else {
    tree = static_cast<double>(nodes) * gpu_bus_bandwidth;
  }
  return std::min(bus_bandwidth, tree);
}

namespace {

// A kind name in KIND=RATE;KIND=RATE text: '%', ';' and '=' percent-encoded, so that any name
// reads back as it was ("x;GEMM" is one kind, not two).
std::string encode_kind(const std::string& kind) {
  std::string out;
  for (const char c : kind) {
    if (c == '%') out += "%25";
    else if (c == ';') out += "%3B";
    else if (c == '=') out += "%3D";
    else out += c;
  }
  return out;
}

std::optional<std::string> decode_kind(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    const std::string_view code = text.substr(i + 1, 2);
    if (code == "25") out += '%';
    else if (code == "3B") out += ';';
    else if (code == "3D") out += '=';
    else return std::nullopt;
    i += 2;
  }
  return out;
}

}  // namespace

std::string format_kind_rates(const std::map<std::string, double>& rates) {
  std::string out;
  for (const auto& [kind, rate] : rates) out += (out.empty() ? "" : ";") + encode_kind(kind) + "=" + format_exact(rate);
  return out;
}

bool parse_kind_rates(const std::string& text, std::map<std::string, double>& into) {
  std::size_t start = 0;
  bool whole = true;
  while (start < text.size()) {
    std::size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    const auto equal = item.find('=');
    const auto kind = equal == std::string::npos ? std::nullopt : decode_kind(std::string_view(item).substr(0, equal));
    char* parsed_to = nullptr;
    const double rate = kind ? std::strtod(item.c_str() + equal + 1, &parsed_to) : 0;
    if (!kind || parsed_to != item.c_str() + item.size() || equal + 1 == item.size() || !(rate >= 0) || !std::isfinite(rate)) {
      whole = false;
      continue;
    }
    into[*kind] = rate;
  }
  return whole;
}

namespace {

// Refuses a run that cannot end within the clock's horizon whatever the schedule: one task
// slower than the horizon on its fastest worker, one data slower to load than the horizon, or
// all the work at every worker's peak at once. A run that passes may still be slowed past it
// (by contention, reloads): the engine stops it then, naming the event.
Status check_clock_horizon(const Platform& platform, const Workload& workload) {
  const double horizon = static_cast<double>(kMaxClockNs);
  const auto years = [](double ns) { return format_fixed(ns / 3.15576e16, 0) + " years"; };
  double fastest_total = 0;  // flop per ns of every worker together
  for (std::size_t k = 0; k < workload.kinds().size(); ++k) {
    fastest_total = std::max(fastest_total, platform.gflops_of(workload.kinds()[k]) * platform.gpus +
                                                platform.cpu_gflops_of(workload.kinds()[k]) * platform.cpus);
  }
  for (TaskId t = 0; t < workload.task_count(); ++t) {
    const std::string& kind = workload.kinds()[workload.tasks()[t].kind];
    const double best = std::max(platform.gflops_of(kind), platform.cpus > 0 ? platform.cpu_gflops_of(kind) : 0.0);
    if (best > 0 && workload.tasks()[t].flops / best > horizon) {
      return make_error("task " + workload.task_label(t) + " alone would run for " + years(workload.tasks()[t].flops / best) +
                        ", past the replay clock's 146 years; give it fewer flops or the platform a faster rate");
    }
  }
  const double bytes_per_ns = platform.bus_bandwidth * 1e-9;
  for (DataId d = 0; d < workload.data_count(); ++d) {
    const double ns = static_cast<double>(workload.data()[d].bytes) / bytes_per_ns + static_cast<double>(platform.latency_ns);
    if (ns > horizon) {
      return make_error("loading data " + workload.data()[d].name + " (" + format_bytes(static_cast<double>(workload.data()[d].bytes)) +
                        ") over the bus would take " + years(ns) + ", past the replay clock's 146 years; raise the bandwidth");
    }
  }
  if (fastest_total > 0 && workload.total_flops() / fastest_total > horizon) {
    return make_error("the workload's " + format_fixed(workload.total_flops() / 1e9, 0) + " GFlop take at least " +
                      years(workload.total_flops() / fastest_total) + " on this platform, past the replay clock's 146 years");
  }
  if (static_cast<double>(workload.working_set_bytes()) / bytes_per_ns > horizon) {
    return make_error("loading the workload's " + format_bytes(static_cast<double>(workload.working_set_bytes())) + " once takes " +
                      years(static_cast<double>(workload.working_set_bytes()) / bytes_per_ns) +
                      " over the bus, past the replay clock's 146 years; raise the bandwidth");
  }
  return Status::success();
}

}  // namespace

Status check_platform(const Platform& platform, const Workload& workload) {
  if (platform.gpus == 0) return make_error("the platform needs at least one GPU");
  if (platform.workers_per_memory == 0 || platform.gpus % platform.workers_per_memory != 0) {
    return make_error("the " + std::to_string(platform.gpus) + " GPU workers do not split into memories of " +
                      std::to_string(platform.workers_per_memory) + " workers each");
  }
  if (platform.workers() > kMaxWorkers) return make_error("the platform has more than " + std::to_string(kMaxWorkers) + " workers");
  if (!(platform.memory_bytes > 0)) return make_error("the GPU memory must be greater than zero");
  if (!(platform.memory_bytes <= static_cast<double>(kMaxWorkloadBytes))) return make_error("the GPU memory must be at most 2^62 bytes (4 EiB)");
  // The ranges of model.hpp: a bandwidth below a byte per second or a rate below a kiloflop
  // per second only ever describes a typo, and it pushes the clock past its range; above
  // them a nanosecond is too coarse to time a transfer or a task at all.
  const auto bandwidth = [](double value, const char* what, bool may_be_zero) -> Status {
    if (may_be_zero && value == 0) return Status::success();
    if (!(value >= kMinBandwidth && value <= kMaxBandwidth)) {
      char given[32];
      std::snprintf(given, sizeof given, "%g B/s", value);
      return make_error(std::string(what) + " must be " + (may_be_zero ? "0 or " : "") + "from 1 B/s to 1 PB/s, not " + given);
    }
    return Status::success();
  };
  if (auto status = bandwidth(platform.bus_bandwidth, "the bus bandwidth", false); !status) return status;
  if (auto status = bandwidth(platform.gpu_link_bandwidth, "the GPU link bandwidth", true); !status) return status;
  if (auto status = bandwidth(platform.gpu_bus_bandwidth, "a GPU's PCIe bandwidth", true); !status) return status;
  if (auto status = bandwidth(platform.switch_bandwidth, "a PCIe switch's bandwidth", true); !status) return status;
  if (platform.gpus_per_switch > 0 && !(platform.switch_bandwidth > 0)) return make_error("a PCIe switch needs a bandwidth");
  if (platform.copy_engines > kMaxCopyEngines) return make_error("the copy engines must be 0 (shared bus) to " + std::to_string(kMaxCopyEngines));
  if (platform.latency_ns < 0 || static_cast<double>(platform.latency_ns) > kMaxLatencyNs) {
    return make_error("the transfer latency must be from 0 to 1000 s");
  }
  const auto rate = [](double value, const std::string& what) -> Status {
    if (value == 0) return Status::success();
    if (!(value >= kMinGflops && value <= kMaxGflops)) return make_error(what + " must be 0 (no kernel) or from 1 kFlop/s to 1 EFlop/s");
    return Status::success();
  };
  if (!platform.worker_speeds.empty() && platform.worker_speeds.size() != platform.workers()) {
    return make_error("the platform gives " + std::to_string(platform.worker_speeds.size()) + " worker speeds for its " +
                      std::to_string(platform.workers()) + " workers");
  }
  for (std::size_t w = 0; w < platform.worker_speeds.size(); ++w) {
    if (!(platform.worker_speeds[w] >= kMinWorkerSpeed && platform.worker_speeds[w] <= kMaxWorkerSpeed)) {
      return make_error("worker " + std::to_string(w) + "'s speed must be from 0.001 to 1000");
    }
  }
  if (auto status = rate(platform.default_gflops, "the compute rate"); !status) return status;
  if (auto status = rate(platform.cpu_default_gflops, "the CPU compute rate"); !status) return status;
  for (const auto& [kind, value] : platform.kind_gflops) {
    if (auto status = rate(value, "the compute rate of " + kind); !status) return status;
  }
  for (const auto& [kind, value] : platform.cpu_kind_gflops) {
    if (auto status = rate(value, "the CPU compute rate of " + kind); !status) return status;
  }
  for (const auto& kind : workload.kinds()) {
    if (!(platform.gflops_of(kind) > 0) && !(platform.cpus > 0 && platform.cpu_gflops_of(kind) > 0)) {
      return make_error("no worker of the platform can run " + kind + " tasks (its compute rate is 0 everywhere)");
    }
  }
  if (auto status = check_clock_horizon(platform, workload); !status) return status;
  bool too_large = false;  // some GPU-runnable kind has a task larger than M: name the first one
  for (std::size_t k = 0; k < workload.kinds().size(); ++k) {
    too_large |= static_cast<double>(workload.largest_footprint_by_kind()[k]) > platform.memory_bytes &&
                 platform.gflops_of(workload.kinds()[k]) > 0;
  }
  for (TaskId t = 0; too_large && t < workload.task_count(); ++t) {
    const auto footprint = workload.footprint_bytes(t);
    if (static_cast<double>(footprint) > platform.memory_bytes &&
        platform.gflops_of(workload.kinds()[workload.tasks()[t].kind]) > 0) {
      return make_error("task " + workload.task_label(t) + " needs " + format_bytes(static_cast<double>(footprint)) +
                        " of data at once but a GPU holds only " + format_bytes(platform.memory_bytes) +
                        "; give more memory");
    }
  }
  return Status::success();
}

}  // namespace tilelens
