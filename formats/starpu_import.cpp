// Importing StarPU's tasks.rec and data.rec; see starpu_import.hpp.
#include "formats/starpu_import.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <fstream>
#include <functional>
#include <istream>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "model/kernels.hpp"
#include "model/units.hpp"
#include "trace/totals.hpp"
#include "util/quoted.hpp"
#include "util/utf8.hpp"

namespace tilelens {
namespace {

struct Field {
  std::string name;
  std::string value;
  std::size_t line = 0;
};

struct Record {
  std::size_t line = 0;  // where it starts
  std::vector<Field> fields;
  const Field* find(std::string_view name) const {
    for (const auto& f : fields) {
      if (f.name == name) return &f;
    }
    return nullptr;
  }
};

// Beyond a trace's total a trace is hostile or broken rather than large: 1e24 flops keep an
// exaflop machine busy for a fortnight. Sizes and one task's flops have the workload's limits
// (model.hpp), checked here to name the line.
constexpr double kMaxTotalFlops = 1e24;

// Names as a workload file holds them (docs/workload-format.md): UTF-8 text without control
// characters or '#' (which starts a comment), and for kind and data names one word. Each run
// of anything else turns into one '_'.
std::string as_name(std::string_view text, bool one_word) {
  std::string out;
  bool replacing = false;
  const auto replace = [&] {
    if (!replacing) out += '_';
    replacing = true;
  };
  while (!text.empty()) {
    // Within valid UTF-8 every byte below 0x80 is a character of its own.
    const std::size_t bad = invalid_utf8_at(text);
    const std::string_view valid = text.substr(0, bad);
    for (const char c : valid) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f || c == '#' || (one_word && c == ' ')) {
        replace();
      } else {
        out += c;
        replacing = false;
      }
    }
    if (bad == std::string_view::npos) break;
    replace();
    text.remove_prefix(bad + 1);
  }
  return out;
}

// Counts one kind of problem and keeps its first instance, so a warning says how often and
// shows one case to look at.
struct Tally {
  std::size_t count = 0;
  std::string first;
  void add(const std::string& example) {
    if (count++ == 0) first = example;
  }
  void report(std::vector<std::string>& warnings, const std::string& what) const {
    if (count) warnings.push_back(std::to_string(count) + " " + what + " (first: " + first + ")");
  }
};

// How a records file ended: starpu_fxt_tool ends every record with a blank line, so a file
// that ends otherwise may have been cut inside its last record.
struct RecordsEnd {
  bool blank_line = true;  // the last record was followed by a blank line (or there is none)
  bool newline = true;     // the last line ended with a newline
};

// Recutils text: "Field: value" lines, records separated by blank lines, '#' comments, and
// '+' continuation lines.
Result<std::vector<Record>> parse_records(std::istream& in, const std::string& source, RecordsEnd* end = nullptr) {
  std::vector<Record> records;
  Record current;
  std::string line;
  std::size_t number = 0;
  auto close = [&] {
    if (!current.fields.empty()) records.push_back(std::move(current));
    current = Record{};
  };
  while (std::getline(in, line)) {
    ++number;
    if (end != nullptr) end->newline = !in.eof();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) {
      close();
      continue;
    }
    if (line[0] == '#') continue;
    if (line[0] == '+') {
      if (current.fields.empty()) return make_error(source + ":" + std::to_string(number) + ": a '+' continuation line with no field before it");
      current.fields.back().value += "\n" + line.substr(line.size() > 1 && line[1] == ' ' ? 2 : 1);
      continue;
    }
    const auto colon = line.find(':');
    bool valid_name = colon != std::string::npos && colon > 0;
    for (std::size_t i = 0; valid_name && i < colon; ++i) {
      const char c = line[i];
      valid_name = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '%';
    }
    if (!valid_name) return make_error(source + ":" + std::to_string(number) + ": expected 'Field: value', got '" + shown(line) + "'");
    if (current.fields.empty()) current.line = number;
    std::string value = line.substr(colon + 1);
    const auto start = value.find_first_not_of(" \t");
    value = start == std::string::npos ? "" : value.substr(start);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
    current.fields.push_back({line.substr(0, colon), std::move(value), number});
  }
  if (end != nullptr) end->blank_line = current.fields.empty();
  close();
  return records;
}

// The fields a record lacks that every other record (controls aside) carries: what a record cut
// short at a line's end is missing.
std::vector<std::string> fields_missing_from_last(const std::vector<Record>& records) {
  std::vector<const Record*> tasks;
  for (const Record& record : records) {
    if (record.find("Control") == nullptr) tasks.push_back(&record);
  }
  if (tasks.size() < 2) return {};
  std::set<std::string> common;
  for (const Field& f : tasks.front()->fields) common.insert(f.name);
  for (std::size_t i = 1; i + 1 < tasks.size(); ++i) {
    std::set<std::string> here;
    for (const Field& f : tasks[i]->fields) {
      if (common.count(f.name)) here.insert(f.name);
    }
    common = std::move(here);
  }
  std::vector<std::string> missing;
  for (const std::string& name : common) {
    if (tasks.back()->find(name) == nullptr) missing.push_back(name);
  }
  return missing;
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    const std::size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

// A Paje state value naming StarPU's Scheduling state, quoted or not.
bool is_scheduling_state(const std::string& word) { return word == "Sc" || word == "\"Sc\""; }

Error field_error(const std::string& source, const Field& field, const std::string& what) {
  return make_error(source + ":" + std::to_string(field.line) + ": field '" + field.name + "': " + what);
}

template <class T>
Result<T> whole(const std::string& source, const Field& field, std::string_view word, int base = 10) {
  if (base == 16 && word.size() > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X')) word.remove_prefix(2);
  T value{};
  const auto result = std::from_chars(word.data(), word.data() + word.size(), value, base);
  if (result.ec != std::errc() || result.ptr != word.data() + word.size() || word.empty()) {
    return field_error(source, field, "'" + shown(word) + "' is not a " + (base == 16 ? "hexadecimal" : "whole") + " number");
  }
  return value;
}

Result<double> real(const std::string& source, const Field& field) {
  const std::string& text = field.value;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    return field_error(source, field, "'" + shown(text) + "' is not a number");
  }
  return value;
}

// StarPU modes print as the letters of the access: R, W, RW, with S (scratch), X (reduction)
// and C (commute) flags.
Result<AccessMode> access_mode(const std::string& source, const Field& field, const std::string& word) {
  if (word.empty() || word.find_first_not_of("RWSXC") != std::string::npos) {
    return field_error(source, field, "'" + shown(word) + "' is not a StarPU access mode (letters R, W, S, X, C)");
  }
  const bool r = word.find('R') != std::string::npos;
  const bool w = word.find('W') != std::string::npos;
  if (word.find('X') != std::string::npos || (r && w)) return AccessMode::ReadWrite;
  if (r) return AccessMode::Read;
  if (w || word.find('S') != std::string::npos) return AccessMode::Write;  // scratch: room, no transfer in
  return field_error(source, field, "'" + word + "' reads nothing and writes nothing");
}

struct ParsedTask {
  std::string job;
  std::size_t line = 0;
  std::string name;                   // the record's Name (or Model), as written
  std::string kind;
  std::string kind_field = "Name";    // or Model, where the kind came from
  std::size_t kind_line = 0, flops_line = 0, sizes_line = 0;  // 0: no such field
  std::optional<std::int64_t> submit_order;
  std::int64_t priority = 0;
  std::optional<double> gflop;
  std::vector<std::uint64_t> handles;
  std::vector<AccessMode> modes;
  std::vector<std::uint64_t> sizes;
  std::vector<std::string> parameters;  // interface descriptions, "M128x128x8" for a matrix tile
  std::vector<std::string> depends_on;
  bool has_depends = false;
  std::int64_t rank = 0;
  std::optional<std::int64_t> worker, memory_node, iteration;
  std::optional<double> submit_ms, start_ms, end_ms;
  bool executed() const { return worker && start_ms && end_ms; }
};

struct ParsedData {
  std::string name;
  std::uint64_t size = 0;
  std::size_t line = 0, size_line = 0;
  std::vector<std::int64_t> coordinates;
  bool home = false;  // HomeNode >= 0: registered with a home (RAM, a disk), which StarPU keeps up to date
};

// StarPU's times are in ms; beyond a few years the nanosecond clock would overflow.
constexpr double kMaxMilliseconds = 1e11;

Result<double> milliseconds(const std::string& source, const Field& field) {
  auto value = real(source, field);
  if (!value) return value.error();
  if (std::fabs(*value) > kMaxMilliseconds) return field_error(source, field, "'" + shown(field.value) + "' ms is out of range");
  // StarPU's clock starts with the run: a negative time is a damaged record, not an overlap to
  // be found later between two workers' tasks.
  if (*value < 0) return field_error(source, field, "'" + shown(field.value) + "' ms is negative, before the run started");
  return *value;
}

// StarPU writes -1 without MPI: rank 0.
Result<std::int64_t> mpi_rank(const std::string& source, const Field& field) {
  auto value = whole<std::int64_t>(source, field, field.value);
  if (!value) return value.error();
  if (*value < -1 || *value > std::numeric_limits<std::int32_t>::max()) return field_error(source, field, "out of range");
  return std::max<std::int64_t>(0, *value);
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
  return text;
}

Result<ParsedTask> read_task(const Record& record, const std::string& source) {
  ParsedTask task;
  task.line = record.line;
  const Field* job = record.find("JobId");
  if (job == nullptr) return make_error(source + ":" + std::to_string(record.line) + ": the record has no JobId field");
  task.job = job->value;
  // Two records whose blank line was lost read as one: its second JobId says so.
  for (const Field& f : record.fields) {
    if (&f != job && f.name == "JobId") {
      return field_error(source, f, "a second JobId in one record: the blank line that ends the record before it is missing");
    }
  }
  const Field* kind = record.find("Name");
  if (kind == nullptr) kind = record.find("Model");
  if (kind != nullptr && !kind->value.empty()) {
    task.name = task.kind = kind->value;
    task.kind_field = kind->name;
    task.kind_line = kind->line;
  } else {
    task.kind = "task";
  }
  const auto integer = [&](const char* name, auto& target) -> Status {
    if (const Field* f = record.find(name)) {
      auto value = whole<std::int64_t>(source, *f, f->value);
      if (!value) return value.error();
      target = *value;
    }
    return Status::success();
  };
  std::optional<std::int64_t> priority;
  for (auto [name, target] : {std::pair{"SubmitOrder", &task.submit_order}, std::pair{"Priority", &priority},
                              std::pair{"WorkerId", &task.worker}, std::pair{"MemoryNode", &task.memory_node}}) {
    if (auto read = integer(name, *target); !read) return read.error();
  }
  task.priority = priority.value_or(0);
  if (const Field* f = record.find("MPIRank")) {
    auto rank = mpi_rank(source, *f);
    if (!rank) return rank.error();
    task.rank = *rank;
  }
  if (task.worker && (*task.worker < 0 || *task.worker > std::numeric_limits<std::int32_t>::max())) task.worker.reset();  // -1: not run
  if (const Field* f = record.find("Iteration")) {
    const auto first = words(f->value);
    if (!first.empty()) {
      auto value = whole<std::int64_t>(source, *f, first[0]);
      if (!value) return value.error();
      if (*value >= 0 && *value <= std::numeric_limits<std::int32_t>::max()) task.iteration = *value;
    }
  }
  if (const Field* f = record.find("GFlop")) {
    auto value = real(source, *f);
    if (!value) return value.error();
    if (*value < 0) return field_error(source, *f, "must not be negative");
    if (!(*value * 1e9 <= kMaxTaskFlops)) {
      return field_error(source, *f, "'" + shown(f->value) + "' GFlop is more than the 1e12 GFlop (1e21 flops) a task may have");
    }
    task.gflop = *value;
    task.flops_line = f->line;
  }
  for (auto [name, target] : {std::pair{"SubmitTime", &task.submit_ms}, std::pair{"StartTime", &task.start_ms},
                              std::pair{"EndTime", &task.end_ms}}) {
    if (const Field* f = record.find(name)) {
      auto value = milliseconds(source, *f);
      if (!value) return value.error();
      *target = *value;
    }
  }
  if (task.start_ms && task.end_ms && *task.end_ms < *task.start_ms) {
    return field_error(source, *record.find("EndTime"), "ends before StartTime");
  }
  if (const Field* f = record.find("DependsOn")) {
    task.depends_on = words(f->value);
    task.has_depends = true;
    if (std::find(task.depends_on.begin(), task.depends_on.end(), task.job) != task.depends_on.end()) {
      return field_error(source, *f, "JobId " + shown(task.job) + " depends on itself");
    }
  }
  if (const Field* f = record.find("Parameters")) task.parameters = words(f->value);
  const Field* handles = record.find("Handles");
  const Field* modes = record.find("Modes");
  const Field* sizes = record.find("Sizes");
  if (handles == nullptr && (modes != nullptr || sizes != nullptr)) {
    return field_error(source, modes != nullptr ? *modes : *sizes, std::string(modes != nullptr ? "Modes" : "Sizes") + " without a Handles field");
  }
  if (handles != nullptr) {
    for (const auto& word : words(handles->value)) {
      auto value = whole<std::uint64_t>(source, *handles, word, 16);
      if (!value) return value.error();
      task.handles.push_back(*value);
    }
    if (modes == nullptr) return field_error(source, *handles, "Handles without a Modes field");
    for (const auto& word : words(modes->value)) {
      auto mode = access_mode(source, *modes, word);
      if (!mode) return mode.error();
      task.modes.push_back(*mode);
    }
    if (task.modes.size() != task.handles.size()) {
      return field_error(source, *modes, std::to_string(task.modes.size()) + " modes for " + std::to_string(task.handles.size()) + " handles");
    }
    if (sizes != nullptr) {
      for (const auto& word : words(sizes->value)) {
        auto value = whole<std::uint64_t>(source, *sizes, word);
        if (!value) return value.error();
        if (*value > kMaxWorkloadBytes) return field_error(source, *sizes, shown(word) + " bytes is more than 2^62 (4 EiB)");
        task.sizes.push_back(*value);
      }
      task.sizes_line = sizes->line;
      if (task.sizes.size() != task.handles.size()) {
        return field_error(source, *sizes, std::to_string(task.sizes.size()) + " sizes for " + std::to_string(task.handles.size()) + " handles");
      }
      for (std::size_t i = 0; i < task.handles.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
          if (task.handles[j] == task.handles[i] && task.sizes[j] != task.sizes[i]) {
            return field_error(source, *sizes, "handle " + hex(task.handles[i]) + " is listed twice with sizes " +
                                                   std::to_string(task.sizes[j]) + " and " + std::to_string(task.sizes[i]));
          }
        }
      }
    }
  }
  return task;
}

// A registration's key: StarPU reuses a handle's address once it is unregistered, and each MPI
// rank has its own addresses.
struct HandleKey {
  std::int64_t rank;
  std::uint64_t handle;
  auto operator<=>(const HandleKey&) const = default;
};

// data.rec holds one record per unregistration, in that order: the k-th record of an address
// describes its k-th registration.
Status read_data(std::istream& in, const std::string& source, std::map<HandleKey, std::vector<ParsedData>>& data) {
  auto records = parse_records(in, source);
  if (!records) return records.error();
  for (const Record& record : *records) {
    const Field* handle = record.find("Handle");
    if (handle == nullptr) return make_error(source + ":" + std::to_string(record.line) + ": the record has no Handle field");
    auto id = whole<std::uint64_t>(source, *handle, handle->value, 16);
    if (!id) return id.error();
    ParsedData item;
    item.line = record.line;
    std::int64_t rank = 0;
    if (const Field* f = record.find("MPIRank")) {
      auto value = mpi_rank(source, *f);
      if (!value) return value.error();
      rank = *value;
    }
    if (const Field* f = record.find("Name")) item.name = f->value;
    if (const Field* f = record.find("Size")) {
      auto size = whole<std::uint64_t>(source, *f, f->value);
      if (!size) return size.error();
      if (*size > kMaxWorkloadBytes) return field_error(source, *f, shown(f->value) + " bytes is more than 2^62 (4 EiB)");
      item.size = *size;
      item.size_line = f->line;
    }
    if (const Field* f = record.find("HomeNode")) {
      auto node = whole<std::int64_t>(source, *f, f->value);
      if (!node) return node.error();
      item.home = *node >= 0;
    }
    if (const Field* f = record.find("Coordinates")) {
      for (const auto& word : words(f->value)) {
        auto value = whole<std::int64_t>(source, *f, word);
        if (!value) return value.error();
        item.coordinates.push_back(*value);
      }
    }
    data[{rank, *id}].push_back(std::move(item));
  }
  return Status::success();
}

// What paje.trace adds: when each handle was registered (to tell apart the registrations of a
// reused address) and the transfers between memory nodes, with their handles when
// starpu_fxt_tool ran with -memory-states.
struct PajeTransfer {
  std::int64_t rank = 0;
  std::int64_t source = -1, destination = -1;  // memory nodes
  std::uint64_t bytes = 0;
  std::string type;  // F fetch, TF task prefetch, PF prefetch, IF idle fetch
  double start_ms = 0, end_ms = -1;
  std::optional<std::uint64_t> handle;
  std::uint64_t comid = 0;  // N of the link's key com_N
};

struct PajeTrace {
  std::map<HandleKey, std::vector<double>> registered_ms;  // in time order
  std::vector<PajeTransfer> transfers;
  // The scheduler's decisions, from its threads' Scheduling states (docs/starpu-import.md).
  DecisionFitter pushes, pops;
};


// Containers are named by starpu_fxt.c's aliases, prefixed "R_" with MPI: "3_mm1" is rank 3's
// mm1, "mm1" rank 0's. nullopt for a prefix that is not a number.
std::optional<std::pair<std::int64_t, std::string_view>> split_rank(std::string_view alias) {
  std::int64_t rank = 0;
  if (const auto underscore = alias.find('_'); underscore != std::string_view::npos) {
    const auto r = std::from_chars(alias.data(), alias.data() + underscore, rank);
    if (r.ec != std::errc() || r.ptr != alias.data() + underscore) return std::nullopt;
    alias.remove_prefix(underscore + 1);
  }
  return std::pair{rank, alias};
}

// "3_mm1" -> rank 3, node 1.
std::optional<std::pair<std::int64_t, std::int64_t>> container_node(std::string_view container, std::string_view type) {
  const auto split = split_rank(container);
  if (!split) return std::nullopt;
  auto [rank, alias] = *split;
  if (alias.substr(0, type.size()) != type) return std::nullopt;
  alias.remove_prefix(type.size());
  std::int64_t node = 0;
  const auto r = std::from_chars(alias.data(), alias.data() + alias.size(), node);
  if (r.ec != std::errc() || r.ptr != alias.data() + alias.size() || alias.empty()) return std::nullopt;
  return std::pair{rank, node};
}

std::int64_t prefix_rank(std::string_view container) {
  const auto split = split_rank(container);
  return split ? split->first : 0;
}

// StarPU's trace has no per-decision record; it has each thread's Scheduling ("Sc") states,
// the events "pu" and "po" (a task pushed, a task popped) on the program's container, and the
// number of ready tasks ("nready" of the scheduler's container). A thread's Sc state that ends
// after a push (pop) event not yet taken by another state is that push (pop); its time is the
// state's length, and the tasks it scanned are taken to be the ready tasks when it began:
// what a scan of the ready list visits at most. Pushes are the pushed Sc states (PushState);
// pops the set ones (SetState: the worker's get-task state, until its next state).
class DecisionStates {
 public:
  explicit DecisionStates(PajeTrace& out) : out_(out) {}
  void ready_count(std::int64_t rank, double value) { nready_[rank] = value; }
  void event(std::int64_t rank, bool push, double ms) { (push ? pushes_ : pops_)[rank].push_back(ms); }
  void push_state(const std::string& container, double ms, bool scheduling) {
    Open state = start(container, ms);
    state.scheduling = scheduling;
    open_pushes_[container].push_back(state);
  }
  void pop_state(const std::string& container, double ms) {
    auto& open = open_pushes_[container];
    if (open.empty()) return;
    const Open state = open.back();
    open.pop_back();
    if (state.scheduling) close(state, ms, pushes_[state.rank], out_.pushes);
  }
  // A set state on a container: ends its get-task state, and begins one when it is "Sc".
  void set_state(const std::string& container, double ms, bool scheduling) {
    if (auto it = getting_.find(container); it != getting_.end()) {
      close(it->second, ms, pops_[it->second.rank], out_.pops);
      getting_.erase(it);
    }
    if (scheduling) getting_[container] = start(container, ms);
  }

 private:
  struct Open {
    std::int64_t rank = 0;
    double start_ms = 0, ready = 0;
    bool scheduling = true;
  };
  Open start(const std::string& container, double ms) {
    const std::int64_t rank = prefix_rank(container);
    return {rank, ms, nready_[rank], true};
  }
  // The state took the oldest decision event of its kind that happened before it ended.
  static void close(const Open& state, double end_ms, std::deque<double>& events, DecisionFitter& fitter) {
    if (events.empty() || events.front() > end_ms || end_ms < state.start_ms) return;
    events.pop_front();
    fitter.add(static_cast<std::uint64_t>(std::max(0.0, state.ready)), (end_ms - state.start_ms) * 1e6);
  }

  PajeTrace& out_;
  std::map<std::int64_t, double> nready_;
  std::map<std::int64_t, std::deque<double>> pushes_, pops_;
  std::map<std::string, std::vector<Open>> open_pushes_;
  std::map<std::string, Open> getting_;
};

Status read_paje(std::istream& in, const std::string& source, PajeTrace& out) {
  std::string line;
  std::size_t number = 0;
  std::map<std::pair<std::int64_t, std::string>, std::size_t> by_key;  // (rank, com_N) -> transfer
  std::map<std::pair<std::int64_t, std::uint64_t>, std::uint64_t> handle_of;  // (rank, comid) -> handle
  DecisionStates decisions(out);
  const auto bad = [&](const std::string& what) {
    return make_error(source + ":" + std::to_string(number) + ": " + what + " in '" + shown(line) + "'");
  };
  const auto time_of = [&](const std::string& word) -> std::optional<double> {
    char* end = nullptr;
    const double value = std::strtod(word.c_str(), &end);
    if (word.empty() || end != word.c_str() + word.size() || !std::isfinite(value) || std::fabs(value) > kMaxMilliseconds) return std::nullopt;
    return value;
  };
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '%' || line[0] == '#') continue;
    const auto w = words(line);
    if (w.size() < 2) continue;
    const std::string& event = w[0];
    if (event == "9" && w.size() >= 5 && (w[2] == "register" || w[2] == "unregister")) {
      if (w[2] != "register") continue;
      const auto time = time_of(w[1]);
      std::uint64_t handle = 0;
      const auto r = std::from_chars(w[4].data(), w[4].data() + w[4].size(), handle, 16);
      if (!time || r.ec != std::errc() || r.ptr != w[4].data() + w[4].size()) return bad("expected 'TIME register CONTAINER HANDLE'");
      out.registered_ms[{prefix_rank(w[3]), handle}].push_back(*time);
    } else if ((event == "18" || event == "19") && w.size() >= 7 && w[6].rfind("com_", 0) == 0) {
      const auto time = time_of(w[1]);
      const auto node = container_node(w[5], "mm");
      std::uint64_t bytes = 0;
      const auto r = std::from_chars(w[4].data(), w[4].data() + w[4].size(), bytes);
      if (!time || !node || r.ec != std::errc() || r.ptr != w[4].data() + w[4].size() || bytes > kMaxWorkloadBytes) {
        return bad("expected 'TIME TYPE CONTAINER SIZE MEMNODE com_N'");
      }
      const auto [it, added] = by_key.try_emplace({node->first, w[6]}, out.transfers.size());
      if (added) {
        std::uint64_t comid = 0;
        std::from_chars(w[6].data() + 4, w[6].data() + w[6].size(), comid);
        out.transfers.push_back({node->first, -1, -1, bytes, w[2], 0, -1, std::nullopt, comid});
      }
      PajeTransfer& t = out.transfers[it->second];
      if (event == "18") {
        t.source = node->second;
        t.start_ms = *time;
        t.type = w[2];
      } else {
        t.destination = node->second;
        t.end_ms = *time;
      }
    } else if (event == "13" && w.size() >= 5 && w[3] == "nready") {
      const auto time = time_of(w[1]);
      const auto value = time_of(w[4]);
      const auto container = split_rank(w[2]);
      if (time && value && container && container->second == "sched") decisions.ready_count(container->first, *value);
    } else if (event == "9" && w.size() >= 4 && (w[2] == "pu" || w[2] == "po")) {
      if (const auto time = time_of(w[1])) decisions.event(prefix_rank(w[3]), w[2] == "pu", *time);
    } else if (event == "10" && w.size() >= 5) {
      if (const auto time = time_of(w[1])) decisions.set_state(w[2], *time, is_scheduling_state(w[4]));
    } else if (event == "11" && w.size() >= 5) {
      if (const auto time = time_of(w[1])) decisions.push_state(w[2], *time, is_scheduling_state(w[4]));
    } else if (event == "12" && w.size() >= 4) {
      if (const auto time = time_of(w[1])) decisions.pop_state(w[2], *time);
    } else if (event == "22" && w.size() >= 9 && w[2] == "DCo") {  // DriverCopy: the handle of com_N
      std::uint64_t handle = 0, comid = 0;
      const auto h = std::from_chars(w[5].data(), w[5].data() + w[5].size(), handle, 16);
      const auto c = std::from_chars(w[6].data(), w[6].data() + w[6].size(), comid);
      if (h.ec != std::errc() || c.ec != std::errc()) return bad("expected 'TIME DCo MEMNODE 0 HANDLE COMID SIZE MEMNODE'");
      handle_of[{prefix_rank(w[3]), comid}] = handle;
    }
  }
  for (PajeTransfer& t : out.transfers) {
    if (auto it = handle_of.find({t.rank, t.comid}); it != handle_of.end()) t.handle = it->second;
  }
  for (auto& [key, times] : out.registered_ms) std::sort(times.begin(), times.end());
  return Status::success();
}

// Internal records starpu_fxt_tool writes for StarPU's own synchronisation (data acquisitions,
// task waits, unregistrations): no codelet ran for them.
bool is_sync_record(const ParsedTask& t) {
  return !t.executed() && t.handles.empty() && (t.name.rfind("_starpu_", 0) == 0 || t.name.rfind("starpu_", 0) == 0);
}

// A record with no name (nor model), no worker and no data: nothing ran, no codelet exists to
// price; StarPU writes such records for the internal predecessors of its callbacks
// (_starpu_data_acquire_cb_post's, in StarVZ's LU example). Like a sync record it is no task.
bool is_ghost_record(const ParsedTask& t) { return !t.worker && t.handles.empty() && t.name.empty(); }

// "M128x128x8" (a matrix tile, StarPU's describe of the matrix interface) -> 128 x 128, 8 bytes.
struct TileShape {
  double rows = 0, cols = 0, element = 0;
};
std::optional<TileShape> matrix_shape(const std::string& text) {
  if (text.size() < 2 || text[0] != 'M') return std::nullopt;
  double parts[3];
  const char* at = text.data() + 1;
  const char* end = text.data() + text.size();
  for (int p = 0; p < 3; ++p) {
    std::uint64_t value = 0;
    const auto r = std::from_chars(at, end, value);
    if (r.ec != std::errc() || value == 0 || value > (1u << 30)) return std::nullopt;
    parts[p] = static_cast<double>(value);
    at = r.ptr;
    if (p < 2) {
      if (at == end || *at != 'x') return std::nullopt;
      ++at;
    }
  }
  if (at != end) return std::nullopt;
  return TileShape{parts[0], parts[1], parts[2]};
}

}  // namespace

namespace {

struct RegistrationKey {
  std::int64_t rank;
  std::uint64_t handle;
  std::size_t epoch;  // the how-many-th registration of that address
  auto operator<=>(const RegistrationKey&) const = default;
};

struct Registration {
  std::uint64_t bytes = 0;
  bool sized = false;  // some task gave its size
  bool from_data = false;  // data.rec's Size, no task giving one
  std::string where;   // "FILE:LINE" of the size kept, for errors
  const ParsedData* described = nullptr;
  DataId id = kNoId;
};

// Each access's registration: with paje.trace, the last registration of the address before the
// task was submitted; without it, a change of size in submission order starts a new one.
class Registrations {
 public:
  Registrations(const PajeTrace& paje, bool have_paje) : paje_(paje), have_paje_(have_paje) {}
  // `size` 0: not known. `fresh`: the access cannot be to the registration before it (a write
  // that does not depend on the address's previous access), so it starts a new one.
  std::size_t epoch(std::int64_t rank, std::uint64_t handle, std::optional<double> at, std::uint64_t size, bool fresh = false) {
    const HandleKey key{rank, handle};
    if (have_paje_) {
      const auto it = paje_.registered_ms.find(key);
      if (it != paje_.registered_ms.end()) {
        if (!at) return 0;
        const auto after = std::upper_bound(it->second.begin(), it->second.end(), *at);
        return after == it->second.begin() ? 0 : static_cast<std::size_t>(after - it->second.begin() - 1);
      }
    }
    auto& [epoch, last_size] = by_size_[key];
    if (fresh) {
      ++epoch;
      last_size = size;
    } else if (size != 0) {
      if (last_size != 0 && size != last_size) ++epoch;
      last_size = size;
    }
    return epoch;
  }

 private:
  const PajeTrace& paje_;
  bool have_paje_;
  std::map<HandleKey, std::pair<std::size_t, std::uint64_t>> by_size_;
};

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

namespace {

// The import, phase by phase: each phase reads what the phases before it kept and adds its own
// notes (what it left out and why) and warnings (what it dropped, renamed or decided) to the
// execution's report, in the order the phases run.
class StarpuImporter {
 public:
  StarpuImporter(const StarpuSources& sources, const StarpuImportOptions& options) : sources_(sources), options_(options) {}
  Result<StarpuExecution> run();

 private:
  Status drop_cut_record(std::vector<Record>& records, const RecordsEnd& end);
  Status keep_task_records(const std::vector<Record>& records);
  void order_submissions();
  Status name_kinds();
  void match_registrations();
  void count_flops();
  // Tasks without flops get the flops their kind's mean measured time is worth.
  void fill_missing_flops();
  void name_workload();
  Status add_tasks(WorkloadBuilder& builder);
  void add_data(WorkloadBuilder& builder);
  void add_dependencies(WorkloadBuilder& builder);
  Status lay_out_workers();
  void time_executions();
  Status check_lanes_and_number();
  void match_transfers();
  void summarize();
  std::int64_t ns_of(double ms) const { return static_cast<std::int64_t>(std::llround((ms - *origin_) * 1e6)); }

  const StarpuSources& sources_;
  const StarpuImportOptions& options_;
  StarpuExecution result_;
  std::map<HandleKey, std::vector<ParsedData>> data_info_;
  PajeTrace paje_;
  std::vector<ParsedTask> tasks_;  // every record but StarPU's controls, in the file's order
  std::unordered_map<std::string, std::size_t> by_job_;
  std::set<std::int64_t> ranks_;
  std::vector<char> kept_;          // per record: an application task imported
  std::vector<std::size_t> order_;  // the kept records in submission order
  std::optional<Registrations> epochs_;
  std::map<RegistrationKey, Registration> registrations_;
  std::vector<std::vector<RegistrationKey>> access_keys_;  // per record, per access
  std::vector<double> flops_;                              // per record
  std::string name_;
  std::vector<TaskId> task_id_;                   // per record
  std::vector<const RegistrationKey*> data_keys_;  // by DataId
  std::size_t zero_sized_ = 0, compute_only_ = 0;
  std::optional<ImportReport::Record> cut_record_;  // --lenient: the cut last record, accounted after the others
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> node_of_worker_;  // (rank, worker) -> memory node
  std::map<std::pair<std::int64_t, std::int64_t>, GpuId> lane_of_;
  std::optional<double> origin_;
  std::vector<const PajeTransfer*> transfers_;
  std::size_t incomplete_transfers_ = 0;
  std::vector<TaskRecord> executions_;
  // depends_on's search: each record's rank in submission order, and visit stamps.
  bool depends_on(std::size_t later, std::size_t earlier);
  std::optional<std::vector<std::size_t>> rank_in_order_;
  std::vector<std::uint32_t> visited_;
  std::uint32_t visit_stamp_ = 0;
};

Result<StarpuExecution> StarpuImporter::run() {
  if (sources_.data != nullptr) {
    if (auto read = read_data(*sources_.data, sources_.data_name, data_info_); !read) return read.error();
  }
  if (sources_.paje != nullptr) {
    if (auto read = read_paje(*sources_.paje, sources_.paje_name, paje_); !read) return read.error();
  }
  if (sources_.tasks == nullptr) return make_error(sources_.tasks_name + ": no input");
  RecordsEnd end;
  auto records = parse_records(*sources_.tasks, sources_.tasks_name, &end);
  if (!records) return records.error();
  if (auto status = drop_cut_record(*records, end); !status) return status.error();
  if (auto status = keep_task_records(*records); !status) return status.error();
  order_submissions();
  if (auto status = name_kinds(); !status) return status.error();
  epochs_.emplace(paje_, sources_.paje != nullptr);
  match_registrations();
  count_flops();
  fill_missing_flops();
  name_workload();
  WorkloadBuilder builder(name_);
  if (auto status = add_tasks(builder); !status) return status.error();
  add_data(builder);
  add_dependencies(builder);
  auto workload = std::move(builder).finish();
  if (!workload) return make_error(sources_.tasks_name + ": " + workload.error().message);
  result_.workload = std::move(*workload);
  if (auto status = lay_out_workers(); !status) return status.error();
  time_executions();
  if (auto status = check_lanes_and_number(); !status) return status.error();
  match_transfers();
  summarize();
  return std::move(result_);
}

// A file cut inside its last record (copied while written, a full disk): the last line ends
// without a newline, or the file ends without the blank line starpu_fxt_tool writes after each
// record and its last record lacks fields every other record has. Refused, or with --lenient
// left out, saying so.
Status StarpuImporter::drop_cut_record(std::vector<Record>& records, const RecordsEnd& end) {
  if (end.blank_line || records.empty()) return Status::success();
  std::string why;
  if (!end.newline) {
    why = "its last line has no newline";
  } else if (const auto missing = fields_missing_from_last(records); !missing.empty()) {
    why = "it lacks " + joined(missing) + ", which every other record has";
  } else {
    return Status::success();  // complete, only without the blank line a hand-written file may omit
  }
  const std::string where = sources_.tasks_name + ":" + std::to_string(records.back().line);
  if (!options_.lenient) {
    return make_error(where + ": the last record is cut: the file ends inside it (" + why +
                      "); copy the whole file again, or give --lenient to import the records before it");
  }
  result_.report.warnings.push_back("left out the last record (" + where + "): the file ends inside it (" + why + "; --lenient)");
  const Field* job = records.back().find("JobId");
  cut_record_ = ImportReport::Record{where, job ? job->value : "", "left out", "the file ends inside it (" + why + "; --lenient)"};
  records.pop_back();
  return Status::success();
}

// Every record: application tasks are kept; StarPU's control and synchronisation records,
// and with --rank the other ranks' tasks, are skipped and counted. With --lenient, a record
// that cannot be read is left out and counted instead of refusing the file.
Status StarpuImporter::keep_task_records(const std::vector<Record>& records) {
  const std::string& tasks_name = sources_.tasks_name;
  std::map<std::string, std::size_t> control_records;
  std::size_t sync_records = 0, ghost_records = 0, other_ranks = 0;
  Tally unreadable;  // --lenient: records left out, with the first one's error
  double total_flops = 0;
  auto& fates = result_.report.records;
  fates.reserve(records.size() + (cut_record_ ? 1 : 0));
  const auto account = [&](const Record& record, std::string job, const char* fate, std::string reason) {
    fates.push_back({tasks_name + ":" + std::to_string(record.line), std::move(job), fate, std::move(reason)});
  };
  for (const Record& record : records) {
    if (const Field* control = record.find("Control")) {
      ++control_records[control->value];
      const Field* job = record.find("JobId");
      account(record, job ? job->value : "", "skipped", "'Control: " + shown(control->value) + "': StarPU's hint, not a task");
      continue;
    }
    auto task = read_task(record, tasks_name);
    if (task && by_job_.count(task->job)) {
      task = make_error(tasks_name + ":" + std::to_string(record.line) + ": JobId " + shown(task->job) + " appears twice");
    }
    if (!task) {
      if (!options_.lenient) return task.error();
      unreadable.add(task.error().message);
      const Field* job = record.find("JobId");
      account(record, job ? job->value : "", "left out", "cannot be read (--lenient): " + task.error().message);
      continue;
    }
    by_job_.emplace(task->job, tasks_.size());
    total_flops += task->gflop.value_or(0) * 1e9;
    if (total_flops > kMaxTotalFlops) {
      return make_error(tasks_name + ":" + std::to_string(task->flops_line) +
                        ": field 'GFlop': the tasks up to this one add up to more than the 1e15 GFlop a trace may hold");
    }
    bool keep = true;
    if (is_sync_record(*task)) {
      ++sync_records;
      keep = false;
      account(record, task->job, "skipped", "StarPU's own synchronisation ('" + shown(task->name) + "'): no codelet ran; its dependencies are kept");
    } else if (is_ghost_record(*task)) {
      ++ghost_records;
      keep = false;
      account(record, task->job, "skipped", "no name, worker or data (StarPU's internal predecessor): no codelet ran, no flops; its dependencies are kept");
    } else {
      ranks_.insert(task->rank);
      if (options_.rank && task->rank != *options_.rank) {
        ++other_ranks;
        keep = false;
        account(record, task->job, "skipped", "MPI rank " + std::to_string(task->rank) + " (--rank " + std::to_string(*options_.rank) + ")");
      } else {
        account(record, task->job, "kept", "a task of kind '" + shown(task->name) + "'");
      }
    }
    kept_.push_back(keep);
    tasks_.push_back(std::move(*task));
  }
  if (cut_record_) fates.push_back(std::move(*cut_record_));
  unreadable.report(result_.report.warnings, "records could not be read and were left out (--lenient; dependencies on them are dropped)");
  for (const auto& [value, count] : control_records) {
    result_.report.notes.push_back("skipped " + std::to_string(count) + " 'Control: " + shown(value) + "' records: StarPU's hints, not tasks");
  }
  if (sync_records) {
    result_.report.notes.push_back("skipped " + std::to_string(sync_records) +
                           " records of StarPU's own synchronisation (_starpu_*, starpu_data_unregister): no codelet ran; "
                           "dependencies through them are kept");
  }
  if (ghost_records) {
    result_.report.notes.push_back("skipped " + std::to_string(ghost_records) +
                           " records with no name, worker or data (StarPU's internal predecessors): no codelet ran, so no flops; "
                           "dependencies through them are kept");
  }
  if (options_.rank && !ranks_.count(*options_.rank)) {
    std::vector<std::string> listed;
    for (auto r : ranks_) listed.push_back(std::to_string(r));
    return make_error(tasks_name + ": no task of MPI rank " + std::to_string(*options_.rank) + " (the file has rank" +
                      (listed.size() == 1 ? " " : "s ") + joined(listed) + ")");
  }
  if (other_ranks) result_.report.notes.push_back("skipped " + std::to_string(other_ranks) + " tasks of other MPI ranks (--rank)");
  if (std::count(kept_.begin(), kept_.end(), 1) == 0) {
    return make_error(tasks_name + ": no task records (expected 'JobId:' records as starpu_fxt_tool writes)");
  }
  return Status::success();
}

// Submission order: by rank, then SubmitOrder where every task has one, else numeric JobIds,
// else the file's.
void StarpuImporter::order_submissions() {
  const std::string& tasks_name = sources_.tasks_name;
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    if (kept_[i]) order_.push_back(i);
  }
  const bool all_ordered = std::all_of(order_.begin(), order_.end(), [&](std::size_t i) { return tasks_[i].submit_order.has_value(); });
  auto numeric_job = [](const std::string& job) -> std::optional<std::int64_t> {
    std::int64_t value = 0;
    const auto r = std::from_chars(job.data(), job.data() + job.size(), value);
    if (r.ec != std::errc() || r.ptr != job.data() + job.size()) return std::nullopt;
    return value;
  };
  const bool numeric = std::all_of(order_.begin(), order_.end(), [&](std::size_t i) { return numeric_job(tasks_[i].job).has_value(); });
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
    if (tasks_[a].rank != tasks_[b].rank) return tasks_[a].rank < tasks_[b].rank;
    if (all_ordered) return *tasks_[a].submit_order < *tasks_[b].submit_order;
    if (numeric) return *numeric_job(tasks_[a].job) < *numeric_job(tasks_[b].job);
    return false;
  });
  if (all_ordered) {
    Tally tied;
    for (std::size_t i = 1; i < order_.size(); ++i) {
      const ParsedTask& t = tasks_[order_[i]];
      const ParsedTask& before = tasks_[order_[i - 1]];
      if (t.rank == before.rank && *t.submit_order == *before.submit_order) {
        tied.add("SubmitOrder " + std::to_string(*t.submit_order) + " at " + tasks_name + ":" + std::to_string(t.line));
      }
    }
    tied.report(result_.report.warnings, "tasks share their SubmitOrder with another task; among those the file's order was kept");
  }
}

// Kind names as single words. Two Names becoming one word would merge two kinds (and their
// per-kind rates), so that is refused rather than chosen.
Status StarpuImporter::name_kinds() {
  const std::string& tasks_name = sources_.tasks_name;
  {
    std::map<std::string, std::string> named;  // the word -> the Name it came from
    Tally renamed;
    for (std::size_t index : order_) {
      ParsedTask& t = tasks_[index];
      std::string word = as_name(t.kind, true);
      const auto [it, added] = named.emplace(word, t.kind);
      const std::string at = tasks_name + ":" + std::to_string(t.kind_line ? t.kind_line : t.line);
      if (!added && it->second != t.kind) {
        return make_error(at + ": field '" + t.kind_field + "': '" + shown(t.kind) + "' and '" + shown(it->second) + "' would both be the kind '" +
                          shown(word) + "' (a kind is one word: spaces, control characters, '#' and bytes that are not UTF-8 become '_')");
      }
      // At most the largest KindId, not one more: the model's loops over kinds count in a KindId.
      if (added && named.size() > std::numeric_limits<KindId>::max()) {
        return make_error(at + ": field '" + t.kind_field + "': more than " + std::to_string(std::numeric_limits<KindId>::max()) +
                          " task kinds");
      }
      if (added && word != t.kind) renamed.add("'" + shown(t.kind) + "' became '" + shown(word) + "' at " + at);
      t.kind = std::move(word);
    }
    renamed.report(result_.report.warnings, "task kinds had spaces, control characters, '#' or bytes that are not UTF-8 turned into '_'");
  }
  return Status::success();
}

// Registrations: each access's, and each registration's size from the tasks' Sizes (what the
// task really moved), checked against data.rec's Size.
// Whether record `later` depends on record `earlier`, directly or through other records
// (DependsOn, ghost and synchronisation records included). Submission order is topological,
// so the search never goes below `earlier`'s rank in it.
bool StarpuImporter::depends_on(std::size_t later, std::size_t earlier) {
  if (!rank_in_order_) {
    rank_in_order_.emplace(tasks_.size(), 0);
    for (std::size_t i = 0; i < tasks_.size(); ++i) (*rank_in_order_)[i] = i;  // the file's order for records outside order_
    for (std::size_t r = 0; r < order_.size(); ++r) (*rank_in_order_)[order_[r]] = r;
    visited_.assign(tasks_.size(), 0);
  }
  const auto predecessors = [&](std::size_t index, auto&& visit) {
    for (const std::string& job : tasks_[index].depends_on) {
      if (const auto it = by_job_.find(job); it != by_job_.end()) visit(it->second);
    }
  };
  bool direct = false;
  predecessors(later, [&](std::size_t p) { direct = direct || p == earlier; });
  if (direct) return true;
  ++visit_stamp_;
  std::vector<std::size_t> pending{later};
  visited_[later] = visit_stamp_;
  const std::size_t floor = (*rank_in_order_)[earlier];
  while (!pending.empty()) {
    const std::size_t at = pending.back();
    pending.pop_back();
    bool found = false;
    predecessors(at, [&](std::size_t p) {
      if (p == earlier) found = true;
      if (found || visited_[p] == visit_stamp_ || (*rank_in_order_)[p] < floor) return;
      visited_[p] = visit_stamp_;
      pending.push_back(p);
    });
    if (found) return true;
  }
  return false;
}

// Registrations: by paje.trace's registration times when given; otherwise StarPU reuses a
// handle's address after an unregistration, and two accesses are to different registrations
// when their sizes differ, or when a task writes the address without depending, even
// transitively, on the previous access to it (StarPU orders every access to one registration:
// a write waits for the accesses before it). The dependency rule needs DependsOn fields.
void StarpuImporter::match_registrations() {
  const std::string& tasks_name = sources_.tasks_name;
  const std::string& data_name = sources_.data_name;
  access_keys_.assign(tasks_.size(), {});
  Tally tasks_disagree;
  // paje.trace's registration times decide alone where it is given: no search then.
  const bool by_dependencies =
      sources_.paje == nullptr && std::any_of(order_.begin(), order_.end(), [&](std::size_t i) { return tasks_[i].has_depends; });
  std::map<HandleKey, std::size_t> last_access;  // per address: the record that accessed it last
  std::size_t split_by_dependencies = 0;
  for (std::size_t index : order_) {
    const ParsedTask& t = tasks_[index];
    for (std::size_t a = 0; a < t.handles.size(); ++a) {
      const std::uint64_t size = a < t.sizes.size() ? t.sizes[a] : 0;
      bool fresh = false;
      const HandleKey address{t.rank, t.handles[a]};
      if (by_dependencies && a < t.modes.size() && writes(t.modes[a])) {
        const auto last = last_access.find(address);
        fresh = last != last_access.end() && last->second != index && !depends_on(index, last->second);
        split_by_dependencies += fresh;
      }
      last_access[address] = index;
      const RegistrationKey key{t.rank, t.handles[a], epochs_->epoch(t.rank, t.handles[a], t.submit_ms ? t.submit_ms : t.start_ms, size, fresh)};
      access_keys_[index].push_back(key);
      Registration& r = registrations_[key];
      if (a >= t.sizes.size()) continue;
      const std::uint64_t bytes = t.sizes[a];
      const std::string here = tasks_name + ":" + std::to_string(t.sizes_line);
      if (!r.sized) {
        r = {bytes, true, false, here, nullptr, kNoId};
      } else if (bytes != r.bytes) {
        tasks_disagree.add("handle " + hex(key.handle) + ": " + std::to_string(r.bytes) + " bytes at " + r.where + ", " + std::to_string(bytes) +
                           " at " + here);
        if (bytes > r.bytes) r = {bytes, true, false, here, nullptr, kNoId};
      }
    }
  }
  tasks_disagree.report(result_.report.warnings, "registrations have different Sizes in different tasks; the largest was kept");
  if (split_by_dependencies) {
    result_.report.notes.push_back("told apart " + std::to_string(split_by_dependencies) +
                                   " registrations at reused handle addresses by their dependencies: a task writes the address without "
                                   "depending on its previous access");
  }
  Tally files_disagree, undescribed;
  std::size_t several_registrations = 0;
  for (auto& [key, r] : registrations_) {
    const auto described = data_info_.find({key.rank, key.handle});
    if (described == data_info_.end() || key.epoch >= described->second.size()) {
      if (sources_.data != nullptr) undescribed.add("handle " + hex(key.handle) + " (" + r.where + ")");
      continue;
    }
    const ParsedData& d = described->second[key.epoch];
    r.described = &d;
    const std::string there = data_name + ":" + std::to_string(d.size_line ? d.size_line : d.line);
    if (!r.sized) {
      r.bytes = d.size;
      r.where = there;
      r.from_data = true;
    } else if (d.size_line != 0 && d.size != r.bytes) {
      files_disagree.add("handle " + hex(key.handle) + ": " + std::to_string(r.bytes) + " bytes at " + r.where + ", " + std::to_string(d.size) +
                         " at " + there);
    }
  }
  if (sources_.paje == nullptr) {
    // Addresses data.rec says were registered more times than the tasks' sizes and
    // dependencies tell apart.
    std::map<HandleKey, std::size_t> found;
    for (const auto& [key, r] : registrations_) {
      std::size_t& count = found[{key.rank, key.handle}];
      count = std::max(count, key.epoch + 1);
    }
    for (const auto& [key, described] : data_info_) {
      const auto it = found.find(key);
      several_registrations += described.size() > 1 && (it == found.end() || it->second < described.size());
    }
  }
  files_disagree.report(result_.report.warnings, "registrations have Sizes in " + tasks_name + " other than their Size in " + data_name + "; " +
                                            tasks_name + "'s was kept");
  undescribed.report(result_.report.warnings, "registrations have no record in " + data_name + " (no name, no coordinates)");
  if (several_registrations) {
    result_.report.warnings.push_back(std::to_string(several_registrations) + " handle addresses were registered more times (" + data_name +
                                      ") than their sizes and dependencies tell apart; paje.trace gives each registration's time");
  }
}

// Flops: the application's GFlop, or the kernel's count from its name and tile shape (exact,
// where GFlop's %f rounded it).
void StarpuImporter::count_flops() {
  flops_.assign(tasks_.size(), 0);
  std::map<std::string, std::size_t> from_names;
  for (std::size_t index : order_) {
    const ParsedTask& t = tasks_[index];
    std::optional<double> counted;
    std::size_t written = t.handles.size();
    for (std::size_t a = 0; a < t.modes.size(); ++a) {
      if (t.modes[a] != AccessMode::Read) written = a;
    }
    if (written < t.handles.size()) {
      double side = 0;
      if (written < t.parameters.size()) {
        if (auto shape = matrix_shape(t.parameters[written])) side = std::sqrt(shape->rows * shape->cols);
      }
      if (side == 0 && written < t.sizes.size()) {
        const auto kernel = parse_kernel_name(t.name);
        const double element = kernel ? element_bytes(kernel->precision) : 0;
        if (element > 0) {
          const double n = std::round(std::sqrt(static_cast<double>(t.sizes[written]) / element));
          if (n > 0 && n * n * element == static_cast<double>(t.sizes[written])) side = n;
        }
      }
      if (side > 0) counted = kernel_flops(t.name, side);
    }
    if (t.gflop && !(counted && std::fabs(*t.gflop * 1e9 - *counted) <= 501)) {
      flops_[index] = *t.gflop * 1e9;
    } else if (counted) {
      flops_[index] = *counted;
      if (!t.gflop) ++from_names[t.kind];
    }
  }
  if (!from_names.empty()) {
    std::vector<std::string> listed;
    for (const auto& [kind, count] : from_names) listed.push_back(kind + " " + std::to_string(count));
    result_.report.notes.push_back("flops from the kernel name and tile shape, for tasks without GFlop: " + joined(listed));
  }
}

void StarpuImporter::fill_missing_flops() {
  // Tasks without flops get the flops their kind's mean measured time is worth at the rate
  // of the kind (or of the run, or 1 GFlop/s when nothing has flops): a replay never
  // computes them in zero time, and a platform's per-kind rate rescales them like any other.
  std::map<std::string, std::pair<double, double>> kind_rate;  // flops, ns of tasks with flops
  std::map<std::string, std::pair<double, std::size_t>> kind_time;  // ns, count of tasks without
  double all_flops = 0, all_ns = 0, every_ns = 0;
  std::size_t every = 0;
  for (std::size_t index : order_) {
    const ParsedTask& t = tasks_[index];
    if (!t.executed()) continue;
    const double ns = (*t.end_ms - *t.start_ms) * 1e6;
    every_ns += ns;
    ++every;
    if (flops_[index] > 0) {
      kind_rate[t.kind].first += flops_[index];
      kind_rate[t.kind].second += ns;
      all_flops += flops_[index];
      all_ns += ns;
    } else {
      kind_time[t.kind].first += ns;
      ++kind_time[t.kind].second;
    }
  }
  const double run_rate = all_ns > 0 && all_flops > 0 ? all_flops / all_ns : 1.0;
  const double mean_ns = every ? every_ns / static_cast<double>(every) : 0;
  std::map<std::string, double> equivalent;
  for (std::size_t index : order_) {
    const ParsedTask& t = tasks_[index];
    if (flops_[index] > 0) continue;
    auto it = equivalent.find(t.kind);
    if (it == equivalent.end()) {
      const auto time = kind_time.find(t.kind);
      double ns = time != kind_time.end() && time->second.second ? time->second.first / static_cast<double>(time->second.second) : mean_ns;
      ns = std::max(ns, 1.0);
      const auto rate = kind_rate.find(t.kind);
      const double per_ns = rate != kind_rate.end() && rate->second.second > 0 ? rate->second.first / rate->second.second : run_rate;
      it = equivalent.emplace(t.kind, std::min(ns * per_ns, kMaxTaskFlops)).first;
    }
    flops_[index] = it->second;
  }
  if (!equivalent.empty()) {
    std::vector<std::string> listed;
    for (const auto& [kind, f] : equivalent) listed.push_back(kind + " " + format_fixed(f / 1e9, 6) + " GFlop");
    result_.report.notes.push_back("no flop count (no GFlop, kernel not known): each task given the flops its kind's mean measured time is "
                           "worth at the run's rate: " + joined(listed));
  }
}

// The workload's name: the rest of a line, which loses its outer spaces.
void StarpuImporter::name_workload() {
  name_ = as_name(options_.workload_name, false);  // the rest of a line, which loses its outer spaces
  name_.erase(0, std::min(name_.size(), name_.find_first_not_of(' ')));
  while (!name_.empty() && name_.back() == ' ') name_.pop_back();
  if (name_ != options_.workload_name) {
    result_.report.warnings.push_back("the workload name '" + shown(options_.workload_name) + "' became '" + shown(name_) + "'");
  }
}

// The workload: data in order of first access, every kept task (compute-only when it has no
// data of non-zero size).
Status StarpuImporter::add_tasks(WorkloadBuilder& builder) {
  task_id_.assign(tasks_.size(), kNoId);
  std::uint64_t total_bytes = 0;
  for (std::size_t index : order_) {
    const ParsedTask& t = tasks_[index];
    std::vector<Access> accesses;
    std::optional<std::pair<std::int32_t, std::int32_t>> output, first_input;
    for (std::size_t a = 0; a < t.handles.size(); ++a) {
      const RegistrationKey& key = access_keys_[index][a];
      auto found = registrations_.find(key);
      Registration& r = found->second;
      if (r.bytes == 0) {
        ++zero_sized_;
        continue;
      }
      if (r.id == kNoId) {
        // Each size is at most 2^62, so the sum cannot wrap before it is checked.
        total_bytes += r.bytes;
        if (total_bytes > kMaxWorkloadBytes) {
          return make_error(r.where + ": field '" + (r.from_data ? "Size" : "Sizes") + "': the data up to handle " + hex(key.handle) +
                            " add up to more than 2^62 bytes (4 EiB)");
        }
        r.id = static_cast<DataId>(data_keys_.size());
        data_keys_.push_back(&found->first);
      }
      // StarPU may list one handle twice in a task; tilelens wants it once with both accesses.
      auto same = std::find_if(accesses.begin(), accesses.end(), [&](const Access& x) { return x.data == r.id; });
      if (same == accesses.end()) accesses.push_back({r.id, t.modes[a]});
      else if (same->mode != t.modes[a]) same->mode = AccessMode::ReadWrite;
      if (r.described && r.described->coordinates.size() == 2) {
        const auto& c = r.described->coordinates;
        if (c[0] >= 0 && c[1] >= 0 && c[0] <= std::numeric_limits<std::int32_t>::max() && c[1] <= std::numeric_limits<std::int32_t>::max()) {
          const std::pair<std::int32_t, std::int32_t> at{static_cast<std::int32_t>(c[0]), static_cast<std::int32_t>(c[1])};
          if (t.modes[a] != AccessMode::Read) output = at;
          else if (!first_input) first_input = at;
        }
      }
    }
    if (accesses.empty()) ++compute_only_;
    // The task's place: its output tile (i, j), and k from StarPU's Iteration, else from its first
    // input sharing the output's row (k is that input's column) or column (its row).
    std::int32_t i = 0, j = 0, k = 0;
    if (output) {
      std::tie(i, j) = *output;
      k = std::min(i, j);
      if (first_input) k = first_input->first == i ? first_input->second : first_input->first;
    }
    if (t.iteration) k = static_cast<std::int32_t>(*t.iteration);
    task_id_[index] = builder.add_task(builder.kind(t.kind), accesses, flops_[index], i, j, k, t.priority);
  }
  return Status::success();
}

// The data, named from data.rec (with their coordinates) or by handle.
void StarpuImporter::add_data(WorkloadBuilder& builder) {
  const std::string& data_name = sources_.data_name;
  Tally renamed_data, far_coordinates, other_arity;
  for (const RegistrationKey* key : data_keys_) {
    const Registration& r = registrations_.at(*key);
    Data d;
    d.bytes = r.bytes;
    std::string base = "h" + hex(key->handle);
    if (r.described) {
      const ParsedData& described = *r.described;
      d.home = described.home;
      if (!described.name.empty()) {
        base = as_name(described.name, true);
        if (base != described.name) {
          renamed_data.add("'" + shown(described.name) + "' became '" + shown(base) + "' at " + data_name + ":" + std::to_string(described.line));
        }
        const auto letter = static_cast<unsigned char>(described.name[0]);
        if (std::isalpha(letter)) d.matrix = static_cast<char>(std::toupper(letter));
      }
      // A tile's two coordinates name it: "A" at (0, 1) is A_0_1, and a name that says it
      // already stays. Other arities (a vector's one, a tensor's three) give no tile position
      // and are not appended.
      if (described.coordinates.size() == 2) {
        const std::string coordinates = "_" + std::to_string(described.coordinates[0]) + "_" + std::to_string(described.coordinates[1]);
        if (base.size() < coordinates.size() || base.compare(base.size() - coordinates.size(), coordinates.size(), coordinates) != 0) {
          base += coordinates;
        }
      } else if (!described.coordinates.empty()) {
        other_arity.add(std::to_string(described.coordinates.size()) + " values at " + data_name + ":" + std::to_string(described.line));
      }
      if (described.coordinates.size() == 2 && described.coordinates[0] >= 0 && described.coordinates[1] >= 0 &&
          described.coordinates[0] <= std::numeric_limits<std::int32_t>::max() &&
          described.coordinates[1] <= std::numeric_limits<std::int32_t>::max()) {
        d.row = static_cast<std::int32_t>(described.coordinates[0]);
        d.col = static_cast<std::int32_t>(described.coordinates[1]);
      } else if (described.coordinates.size() == 2) {
        far_coordinates.add(data_name + ":" + std::to_string(described.line));
      }
    }
    d.name = ranks_.size() > 1 && !options_.rank ? "r" + std::to_string(key->rank) + "." + base : base;
    builder.add_data(std::move(d));
  }
  renamed_data.report(result_.report.warnings, "data names had spaces, control characters, '#' or bytes that are not UTF-8 turned into '_'");
  far_coordinates.report(result_.report.warnings, "data have Coordinates beyond 32 bits and were left without a tile position");
  other_arity.report(result_.report.warnings, "data have Coordinates of other than 2 values (a tile's row and column) and were left without a tile position");
  if (zero_sized_) result_.report.notes.push_back("left out " + std::to_string(zero_sized_) + " accesses to registrations of size 0: no data moves for them");
  if (compute_only_) result_.report.notes.push_back(std::to_string(compute_only_) + " tasks access no data of non-zero size: kept as compute-only tasks");
}

// Dependencies from DependsOn; an edge through a skipped record links its neighbours.
void StarpuImporter::add_dependencies(WorkloadBuilder& builder) {
  const std::string& tasks_name = sources_.tasks_name;
  const bool any_depends = std::any_of(order_.begin(), order_.end(), [&](std::size_t i) { return tasks_[i].has_depends; });
  if (any_depends) {
    std::size_t unknown = 0;
    std::vector<std::vector<TaskId>> resolved(tasks_.size());
    std::vector<char> state(tasks_.size(), 0);  // 0 new, 1 in progress, 2 done
    // The kept tasks a task stands for as a predecessor: itself, or (skipped) its own kept predecessors.
    std::function<const std::vector<TaskId>&(std::size_t)> kept_ancestors = [&](std::size_t index) -> const std::vector<TaskId>& {
      if (state[index] == 2 || state[index] == 1) return resolved[index];
      state[index] = 1;
      std::set<TaskId> out;
      if (task_id_[index] != kNoId) {
        out.insert(task_id_[index]);
      } else {
        for (const auto& job : tasks_[index].depends_on) {
          auto it = by_job_.find(job);
          if (it == by_job_.end()) continue;
          for (TaskId t : kept_ancestors(it->second)) out.insert(t);
        }
      }
      resolved[index].assign(out.begin(), out.end());
      state[index] = 2;
      return resolved[index];
    };
    for (std::size_t index : order_) {
      std::set<TaskId> before;
      for (const auto& job : tasks_[index].depends_on) {
        auto it = by_job_.find(job);
        if (it == by_job_.end()) {
          ++unknown;
          continue;
        }
        for (TaskId t : kept_ancestors(it->second)) before.insert(t);
      }
      before.erase(task_id_[index]);
      for (TaskId t : before) builder.add_dependency(t, task_id_[index]);
    }
    if (unknown) result_.report.warnings.push_back(std::to_string(unknown) + " DependsOn entries name jobs not in " + tasks_name + " and were left out");
  } else {
    builder.derive_data_dependencies();
    result_.report.warnings.push_back(tasks_name + " has no DependsOn fields: dependencies derived from the data accesses in submission order");
  }
}

// The layout: workers computing out of a memory other than main RAM (CUDA) are the bounded
// ones and those on RAM CPU workers; in a run with only RAM workers, each rank's workers share
// its RAM as one bounded memory (its host being the disk, darts section 7.3).
Status StarpuImporter::lay_out_workers() {
  const std::string& tasks_name = sources_.tasks_name;
  for (std::size_t index : order_) {
    const ParsedTask& t = tasks_[index];
    if (t.executed()) node_of_worker_.emplace(std::pair{t.rank, *t.worker}, t.memory_node.value_or(0));
  }

  const bool has_device_nodes = std::any_of(node_of_worker_.begin(), node_of_worker_.end(), [](const auto& w) { return w.second != 0; });
  std::vector<std::pair<std::int64_t, std::int64_t>> bounded, on_host;  // (rank, worker)
  for (const auto& [worker, node] : node_of_worker_) (has_device_nodes && node == 0 ? on_host : bounded).push_back(worker);
  std::stable_sort(bounded.begin(), bounded.end(), [&](const auto& a, const auto& b) {
    return std::tuple(a.first, node_of_worker_[a], a.second) < std::tuple(b.first, node_of_worker_[b], b.second);
  });
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> per_node;  // (rank, node) -> workers
  for (const auto& w : bounded) ++per_node[{w.first, node_of_worker_[w]}];
  std::set<std::uint32_t> sizes_of_nodes;
  for (const auto& [node, count] : per_node) sizes_of_nodes.insert(count);
  result_.gpus = static_cast<std::uint32_t>(bounded.size());
  result_.cpus = static_cast<std::uint32_t>(on_host.size());
  result_.out_of_core = !has_device_nodes && !bounded.empty();
  result_.workers_per_memory = 1;
  if (sizes_of_nodes.size() == 1) {
    result_.workers_per_memory = *sizes_of_nodes.begin();
  } else if (sizes_of_nodes.size() > 1) {
    result_.report.warnings.push_back("memory nodes have different numbers of workers, which a platform cannot describe: each worker is given "
                              "a memory of its own");
  }
  if (result_.gpus + result_.cpus > kMaxWorkers) {
    return make_error(tasks_name + ": " + std::to_string(result_.gpus + result_.cpus) + " workers, more than the " + std::to_string(kMaxWorkers) +
                      " a platform holds");
  }
  for (const auto& list : {bounded, on_host}) {
    for (const auto& w : list) {
      lane_of_[w] = static_cast<GpuId>(result_.lanes.size());
      result_.lanes.push_back({w.first, w.second, node_of_worker_[w]});
    }
  }
  return Status::success();
}

// Times: from the first task start or transfer, whichever came first.
void StarpuImporter::time_executions() {
  for (std::size_t index : order_) {
    if (tasks_[index].executed()) origin_ = std::min(origin_.value_or(*tasks_[index].start_ms), *tasks_[index].start_ms);
  }
  if (origin_) {
    for (const PajeTransfer& t : paje_.transfers) {
      if (options_.rank && t.rank != *options_.rank) continue;
      if (t.source < 0 || t.destination < 0 || t.end_ms < t.start_ms) {
        ++incomplete_transfers_;
        continue;
      }
      origin_ = std::min(*origin_, t.start_ms);
      transfers_.push_back(&t);
    }
  }
  for (std::size_t index : order_) {
    const ParsedTask& t = tasks_[index];
    if (!t.executed()) {
      ++result_.unexecuted_tasks;
      continue;
    }
    const std::int64_t start = ns_of(*t.start_ms), end = ns_of(*t.end_ms);
    executions_.push_back({task_id_[index], lane_of_.at({t.rank, *t.worker}), 0, 0, start, start, end});
  }
}

// One worker runs one task at a time: an overlap means two workers' tasks were merged.
Status StarpuImporter::check_lanes_and_number() {
  const std::string& tasks_name = sources_.tasks_name;
  {
    std::vector<std::size_t> by_lane(executions_.size());
    for (std::size_t i = 0; i < by_lane.size(); ++i) by_lane[i] = i;
    std::sort(by_lane.begin(), by_lane.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(executions_[a].gpu, executions_[a].start_ns, executions_[a].end_ns) <
             std::tie(executions_[b].gpu, executions_[b].start_ns, executions_[b].end_ns);
    });
    std::vector<std::size_t> index_of(result_.workload.task_count());
    for (std::size_t index : order_) index_of[task_id_[index]] = index;
    for (std::size_t i = 1; i < by_lane.size(); ++i) {
      const TaskRecord& a = executions_[by_lane[i - 1]];
      const TaskRecord& b = executions_[by_lane[i]];
      if (a.gpu != b.gpu || b.start_ns >= a.end_ns) continue;
      const ParsedTask& first = tasks_[index_of[a.task]];
      const ParsedTask& second = tasks_[index_of[b.task]];
      const StarpuLane& lane = result_.lanes[a.gpu];
      return make_error(tasks_name + ":" + std::to_string(second.line) + ": JobId " + shown(second.job) + " starts on worker " +
                        std::to_string(lane.worker) + " of MPI rank " + std::to_string(lane.rank) + " before JobId " + shown(first.job) +
                        " (line " + std::to_string(first.line) + ") ends there: a worker runs one task at a time, so the trace merges "
                        "two workers (ranks without MPIRank, or files concatenated)");
    }
  }
  std::sort(executions_.begin(), executions_.end(), [](const TaskRecord& a, const TaskRecord& b) {
    return std::tie(a.start_ns, a.end_ns, a.task) < std::tie(b.start_ns, b.end_ns, b.task);
  });
  std::vector<std::uint32_t> per_lane(result_.lanes.size(), 0);
  for (std::size_t i = 0; i < executions_.size(); ++i) {
    executions_[i].global_order = static_cast<std::uint32_t>(i);
    executions_[i].gpu_order = per_lane[executions_[i].gpu]++;
  }
  return Status::success();
}

// The transfers: into a bounded memory they are loads, out of one to the host side
// write-backs; a load serves the first task of that memory that reads the data after it
// arrived.
void StarpuImporter::match_transfers() {
  std::map<std::pair<std::int64_t, std::int64_t>, GpuId> first_lane_of_node;  // (rank, node)
  for (std::size_t l = 0; l < result_.lanes.size(); ++l) {
    const StarpuLane& lane = result_.lanes[l];
    if (l < result_.gpus) first_lane_of_node.emplace(std::pair{lane.rank, lane.memory_node}, static_cast<GpuId>(l));
  }
  std::size_t without_handle = 0, unmatched = 0, between_host_nodes = 0;
  std::map<std::string, std::size_t> transfer_types;
  std::map<std::pair<GpuId, DataId>, std::vector<std::pair<std::int64_t, TaskId>>> uses;  // (first lane of node, data) -> starts
  for (const TaskRecord& e : executions_) {
    if (e.gpu >= result_.gpus) continue;
    const GpuId node_lane = first_lane_of_node.at({result_.lanes[e.gpu].rank, result_.lanes[e.gpu].memory_node});
    for (const Access& a : result_.workload.accesses(e.task)) {
      if (a.mode != AccessMode::Write) uses[{node_lane, a.data}].push_back({e.start_ns, e.task});
    }
  }
  for (auto& [key, list] : uses) std::sort(list.begin(), list.end());
  for (const PajeTransfer* t : transfers_) {
    ++transfer_types[t->type];
    if (!t->handle) {
      ++without_handle;
      continue;
    }
    // Without paje.trace's registrations there is no transfer either: the epoch is by time.
    const auto reg = registrations_.find({t->rank, *t->handle, epochs_->epoch(t->rank, *t->handle, t->start_ms, 0)});
    if (reg == registrations_.end() || reg->second.id == kNoId) {
      ++unmatched;
      continue;
    }
    const DataId data = reg->second.id;
    const auto into = first_lane_of_node.find({t->rank, t->destination});
    const auto out_of = first_lane_of_node.find({t->rank, t->source});
    const std::int64_t start = ns_of(t->start_ms), end = ns_of(t->end_ms);
    if (into != first_lane_of_node.end()) {
      LoadRecord load{data, into->second, kNoId, static_cast<std::int16_t>(out_of == first_lane_of_node.end() ? kFromHost : out_of->second),
                      LoadKind::Unused, t->bytes, start, end};
      if (auto it = uses.find({into->second, data}); it != uses.end()) {
        const auto next = std::lower_bound(it->second.begin(), it->second.end(), std::pair{end, TaskId{0}});
        if (next != it->second.end()) {
          load.task = next->second;
          load.kind = LoadKind::Fetch;  // classified on the measured times below
        }
      }
      result_.trace.loads.push_back(load);
    } else if (out_of != first_lane_of_node.end()) {
      result_.trace.writebacks.push_back({data, out_of->second, t->bytes, start, end, WritebackCause::Eviction});
    } else {
      ++between_host_nodes;
    }
  }
  if (!transfer_types.empty()) {
    std::vector<std::string> listed;
    for (const auto& [type, count] : transfer_types) listed.push_back(std::to_string(count) + " " + type);
    result_.report.notes.push_back("transfers in " + sources_.paje_name + " by StarPU's request type: " + joined(listed) +
                           " (F fetch, TF task prefetch, PF prefetch, IF idle fetch); loads are classified on the measured times");
  }
  if (without_handle) {
    result_.report.warnings.push_back(std::to_string(without_handle) + " transfers in " + sources_.paje_name +
                              " carry no handle and were left out: run starpu_fxt_tool with -memory-states");
  }
  if (unmatched) result_.report.warnings.push_back(std::to_string(unmatched) + " transfers are of data no imported task accesses and were left out");
  if (between_host_nodes) result_.report.notes.push_back("left out " + std::to_string(between_host_nodes) + " transfers between RAM and disk of a run with GPUs");
  if (incomplete_transfers_) result_.report.warnings.push_back(std::to_string(incomplete_transfers_) + " transfers in " + sources_.paje_name + " have no start or no end and were left out");
  result_.transfers_recorded = sources_.paje != nullptr && without_handle == 0;
  std::sort(result_.trace.loads.begin(), result_.trace.loads.end(),
            [](const LoadRecord& a, const LoadRecord& b) { return std::tie(a.end_ns, a.gpu, a.data) < std::tie(b.end_ns, b.gpu, b.data); });
  std::sort(result_.trace.writebacks.begin(), result_.trace.writebacks.end(),
            [](const WritebackRecord& a, const WritebackRecord& b) { return std::tie(a.start_ns, a.gpu, a.data) < std::tie(b.start_ns, b.gpu, b.data); });
  result_.trace.tasks = std::move(executions_);
  classify_loads(result_.trace);
}

void StarpuImporter::summarize() {
  ReplaySummary& s = result_.summary;
  s.gpus.assign(result_.lanes.size(), GpuSummary{});
  for (const TaskRecord& r : result_.trace.tasks) s.total_flops += result_.workload.tasks()[r.task].flops;
  sum_trace(result_.trace, s);
  s.events = 2 * result_.trace.tasks.size() + result_.trace.loads.size() + result_.trace.writebacks.size();
  s.push_decisions = paje_.pushes.fit();
  s.pop_decisions = paje_.pops.fit();
}

}  // namespace

Result<StarpuExecution> import_starpu(const StarpuSources& sources, const StarpuImportOptions& options) {
  return StarpuImporter(sources, options).run();
}

Result<StarpuExecution> import_starpu_files(const std::string& tasks_path, const std::string& data_path, const std::string& paje_path,
                                            const StarpuImportOptions& options) {
  std::ifstream tasks(tasks_path), data, paje;
  if (!tasks) return make_error(tasks_path + ": cannot open");
  if (!data_path.empty()) {
    data.open(data_path);
    if (!data) return make_error(data_path + ": cannot open");
  }
  if (!paje_path.empty()) {
    paje.open(paje_path);
    if (!paje) return make_error(paje_path + ": cannot open");
  }
  StarpuSources sources{&tasks, tasks_path, data_path.empty() ? nullptr : &data, data_path, paje_path.empty() ? nullptr : &paje, paje_path};
  return import_starpu(sources, options);
}

}  // namespace tilelens
