// Importing StarPU's tasks.rec and data.rec; see starpu_import.hpp.
#include "formats/starpu_import.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <functional>
#include <istream>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "model/utf8.hpp"

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

std::string shown(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 40)) out += (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) ? '?' : c;
  return out + (text.size() > 40 ? "..." : "");
}

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

// Recutils text: "Field: value" lines, records separated by blank lines, '#' comments, and
// '+' continuation lines.
Result<std::vector<Record>> parse_records(std::istream& in, const std::string& source) {
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
  close();
  return records;
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
  std::string kind;
  std::string kind_field = "Name";  // or Model, where the kind came from
  std::size_t kind_line = 0, flops_line = 0, sizes_line = 0;  // 0: no such field
  std::optional<std::int64_t> submit_order;
  std::int64_t priority = 0;
  double flops = 0;
  std::vector<std::uint64_t> handles;
  std::vector<AccessMode> modes;
  std::vector<std::uint64_t> sizes;
  std::vector<std::string> depends_on;
  bool has_depends = false;
  std::optional<std::int64_t> worker;
  std::optional<double> start_ms, end_ms;
};

struct ParsedData {
  std::string name;
  std::uint64_t size = 0;
  std::size_t line = 0, size_line = 0;
  std::vector<std::int64_t> coordinates;
};

Result<ParsedTask> read_task(const Record& record, const std::string& source) {
  ParsedTask task;
  task.line = record.line;
  const Field* job = record.find("JobId");
  if (job == nullptr) return make_error(source + ":" + std::to_string(record.line) + ": the record has no JobId field");
  task.job = job->value;
  const Field* kind = record.find("Name");
  if (kind == nullptr) kind = record.find("Model");
  if (kind != nullptr && !kind->value.empty()) {
    task.kind = kind->value;
    task.kind_field = kind->name;
    task.kind_line = kind->line;
  } else {
    task.kind = "task";
  }
  if (const Field* f = record.find("SubmitOrder")) {
    auto value = whole<std::int64_t>(source, *f, f->value);
    if (!value) return value.error();
    task.submit_order = *value;
  }
  if (const Field* f = record.find("Priority")) {
    auto value = whole<std::int64_t>(source, *f, f->value);
    if (!value) return value.error();
    task.priority = *value;
  }
  if (const Field* f = record.find("GFlop")) {
    auto value = real(source, *f);
    if (!value) return value.error();
    if (*value < 0) return field_error(source, *f, "must not be negative");
    if (!(*value * 1e9 <= kMaxTaskFlops)) {
      return field_error(source, *f, "'" + shown(f->value) + "' GFlop is more than the 1e12 GFlop (1e21 flops) a task may have");
    }
    task.flops = *value * 1e9;
    task.flops_line = f->line;
  }
  if (const Field* f = record.find("WorkerId")) {
    auto value = whole<std::int64_t>(source, *f, f->value);
    if (!value) return value.error();
    task.worker = *value;
  }
  for (auto [name, target] : {std::pair{"StartTime", &task.start_ms}, std::pair{"EndTime", &task.end_ms}}) {
    if (const Field* f = record.find(name)) {
      auto value = real(source, *f);
      if (!value) return value.error();
      // Milliseconds; beyond a few years the nanosecond clock would overflow.
      if (std::fabs(*value) > 1e11) return field_error(source, *f, "'" + shown(f->value) + "' ms is out of range");
      *target = *value;
    }
  }
  if (task.start_ms && task.end_ms && *task.end_ms < *task.start_ms) {
    return field_error(source, *record.find("EndTime"), "ends before StartTime");
  }
  if (const Field* f = record.find("DependsOn")) {
    task.depends_on = words(f->value);
    task.has_depends = true;
  }
  const Field* handles = record.find("Handles");
  const Field* modes = record.find("Modes");
  const Field* sizes = record.find("Sizes");
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
    }
  }
  return task;
}

// Fills `data` rather than returning it: GCC 12 at -O3 reports a false -Wfree-nonheap-object
// on the destructor of a Result holding the map.
Status read_data(std::istream& in, const std::string& source, std::unordered_map<std::uint64_t, ParsedData>& data,
                 std::vector<std::string>& warnings) {
  auto records = parse_records(in, source);
  if (!records) return records.error();
  Tally twice;
  for (const Record& record : *records) {
    const Field* handle = record.find("Handle");
    if (handle == nullptr) return make_error(source + ":" + std::to_string(record.line) + ": the record has no Handle field");
    auto id = whole<std::uint64_t>(source, *handle, handle->value, 16);
    if (!id) return id.error();
    ParsedData item;
    item.line = record.line;
    if (const Field* f = record.find("Name")) item.name = f->value;
    if (const Field* f = record.find("Size")) {
      auto size = whole<std::uint64_t>(source, *f, f->value);
      if (!size) return size.error();
      if (*size > kMaxWorkloadBytes) return field_error(source, *f, shown(f->value) + " bytes is more than 2^62 (4 EiB)");
      item.size = *size;
      item.size_line = f->line;
    }
    if (const Field* f = record.find("Coordinates")) {
      for (const auto& word : words(f->value)) {
        auto value = whole<std::int64_t>(source, *f, word);
        if (!value) return value.error();
        item.coordinates.push_back(*value);
      }
    }
    // StarPU may reuse a freed handle's address for a new one: a real trace can list it twice,
    // and tasks.rec cannot tell the two apart. The first description stays.
    if (auto [it, added] = data.emplace(*id, std::move(item)); !added) {
      twice.add("handle " + shown(handle->value) + " at " + source + ":" + std::to_string(record.line) + " and line " +
                std::to_string(it->second.line));
    }
  }
  twice.report(warnings, "handles are described more than once in " + source + "; the first description was kept");
  return Status::success();
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

Result<StarpuExecution> import_starpu(std::istream& tasks_in, const std::string& tasks_name, std::istream* data_in,
                                      const std::string& data_name, const std::string& workload_name) {
  StarpuExecution result;
  std::unordered_map<std::uint64_t, ParsedData> data_info;
  if (data_in != nullptr) {
    if (auto read = read_data(*data_in, data_name, data_info, result.warnings); !read) return read.error();
  }
  auto records = parse_records(tasks_in, tasks_name);
  if (!records) return records.error();
  std::vector<ParsedTask> tasks;
  std::unordered_map<std::string, std::size_t> by_job;
  double total_flops = 0;
  for (const Record& record : *records) {
    if (const Field* control = record.find("Control"); control != nullptr && control->value == "WontUse") continue;
    auto task = read_task(record, tasks_name);
    if (!task) return task.error();
    if (!by_job.emplace(task->job, tasks.size()).second) {
      return make_error(tasks_name + ":" + std::to_string(record.line) + ": JobId " + shown(task->job) + " appears twice");
    }
    total_flops += task->flops;
    if (total_flops > kMaxTotalFlops) {
      return make_error(tasks_name + ":" + std::to_string(task->flops_line) +
                        ": field 'GFlop': the tasks up to this one add up to more than the 1e15 GFlop a trace may hold");
    }
    tasks.push_back(std::move(*task));
  }
  if (tasks.empty()) return make_error(tasks_name + ": no task records (expected 'JobId:' records as starpu_fxt_tool writes)");

  // Submission order: SubmitOrder where every task has one, else numeric JobIds, else the file's.
  std::vector<std::size_t> order(tasks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const bool all_ordered = std::all_of(tasks.begin(), tasks.end(), [](const ParsedTask& t) { return t.submit_order.has_value(); });
  auto numeric_job = [](const std::string& job) -> std::optional<std::int64_t> {
    std::int64_t value = 0;
    const auto r = std::from_chars(job.data(), job.data() + job.size(), value);
    if (r.ec != std::errc() || r.ptr != job.data() + job.size()) return std::nullopt;
    return value;
  };
  const bool numeric = std::all_of(tasks.begin(), tasks.end(), [&](const ParsedTask& t) { return numeric_job(t.job).has_value(); });
  if (all_ordered) {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return *tasks[a].submit_order < *tasks[b].submit_order; });
    Tally tied;
    for (std::size_t i = 1; i < order.size(); ++i) {
      const ParsedTask& t = tasks[order[i]];
      if (*t.submit_order == *tasks[order[i - 1]].submit_order) {
        tied.add("SubmitOrder " + std::to_string(*t.submit_order) + " at " + tasks_name + ":" + std::to_string(t.line));
      }
    }
    tied.report(result.warnings, "tasks share their SubmitOrder with another task; among those the file's order was kept");
  } else if (numeric) {
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return *numeric_job(tasks[a].job) < *numeric_job(tasks[b].job); });
  }

  // Kind names as single words. Two Names becoming one word would merge two kinds (and their
  // per-kind rates), so that is refused rather than chosen.
  {
    std::map<std::string, std::string> named;  // the word -> the Name it came from
    Tally renamed;
    for (ParsedTask& t : tasks) {
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
    renamed.report(result.warnings, "task kinds had spaces, control characters, '#' or bytes that are not UTF-8 turned into '_'");
  }

  // Each handle's size, before any access is kept or left out: data.rec's Size where it gives
  // one (what the application registered), else the largest of the tasks' Sizes.
  struct HandleSize {
    std::uint64_t bytes = 0;
    std::string where;  // "FILE:LINE" of the size kept, for errors
    const char* field = "Sizes";
    bool from_data = false, reported = false;
  };
  std::unordered_map<std::uint64_t, HandleSize> sizes;
  Tally files_disagree, tasks_disagree;
  for (std::size_t index : order) {
    const ParsedTask& t = tasks[index];
    for (std::size_t a = 0; a < t.handles.size(); ++a) {
      const std::uint64_t handle = t.handles[a];
      auto [it, added] = sizes.try_emplace(handle);
      HandleSize& s = it->second;
      const auto described = data_info.find(handle);
      if (added && described != data_info.end() && described->second.size > 0) {
        s = {described->second.size, data_name + ":" + std::to_string(described->second.size_line), "Size", true, false};
      }
      if (a >= t.sizes.size()) continue;
      const std::uint64_t bytes = t.sizes[a];
      const std::string here = tasks_name + ":" + std::to_string(t.sizes_line);
      const auto example = [&](std::uint64_t one, const std::string& one_at, std::uint64_t other, const std::string& other_at) {
        return "handle " + hex(handle) + ": " + std::to_string(one) + " bytes at " + one_at + ", " + std::to_string(other) + " at " + other_at;
      };
      if (s.from_data) {
        if (bytes != s.bytes && !s.reported) files_disagree.add(example(bytes, here, s.bytes, s.where));
        s.reported |= bytes != s.bytes;
      } else if (s.where.empty()) {
        s.bytes = bytes;
        s.where = here;
        if (described != data_info.end() && described->second.size_line != 0 && bytes != 0) {
          files_disagree.add(example(bytes, here, 0, data_name + ":" + std::to_string(described->second.size_line)));
          s.reported = true;
        }
      } else {
        if (bytes != s.bytes && !s.reported) tasks_disagree.add(example(s.bytes, s.where, bytes, here));
        s.reported |= bytes != s.bytes;
        if (bytes > s.bytes) {
          s.bytes = bytes;
          s.where = here;
        }
      }
    }
  }
  files_disagree.report(result.warnings, "handles have Sizes in " + tasks_name + " other than their Size in " + data_name + "; " +
                                            data_name + "'s was kept unless 0");
  tasks_disagree.report(result.warnings, "handles have different Sizes in different tasks; the largest was kept");

  std::string name = as_name(workload_name, false);  // the rest of a line, which loses its outer spaces
  name.erase(0, std::min(name.size(), name.find_first_not_of(' ')));
  while (!name.empty() && name.back() == ' ') name.pop_back();
  if (name != workload_name) result.warnings.push_back("the workload name '" + shown(workload_name) + "' became '" + shown(name) + "'");

  WorkloadBuilder builder(name);
  std::unordered_map<std::uint64_t, DataId> data_ids;
  std::vector<std::uint64_t> handles;  // by DataId
  std::uint64_t total_bytes = 0;
  std::vector<TaskId> task_id(tasks.size(), kNoId);
  std::size_t zero_sized = 0, dataless = 0;
  for (std::size_t index : order) {
    const ParsedTask& t = tasks[index];
    std::vector<Access> accesses;
    for (std::size_t a = 0; a < t.handles.size(); ++a) {
      const std::uint64_t handle = t.handles[a];
      const HandleSize& s = sizes.at(handle);
      if (s.bytes == 0) {
        ++zero_sized;
        continue;
      }
      auto found = data_ids.find(handle);
      if (found == data_ids.end()) {
        // Each size is at most 2^62, so the sum cannot wrap before it is checked.
        total_bytes += s.bytes;
        if (total_bytes > kMaxWorkloadBytes) {
          return make_error(s.where + ": field '" + s.field + "': the data up to handle " + hex(handle) +
                            " add up to more than 2^62 bytes (4 EiB)");
        }
        found = data_ids.emplace(handle, static_cast<DataId>(handles.size())).first;
        handles.push_back(handle);
      }
      // StarPU may list one handle twice in a task; tilelens wants it once with both accesses.
      auto same = std::find_if(accesses.begin(), accesses.end(), [&](const Access& x) { return x.data == found->second; });
      if (same == accesses.end()) accesses.push_back({found->second, t.modes[a]});
      else if (same->mode != t.modes[a]) same->mode = AccessMode::ReadWrite;
    }
    if (accesses.empty()) {
      ++dataless;
      continue;
    }
    task_id[index] = builder.add_task(builder.kind(t.kind), accesses, t.flops, 0, 0, 0, t.priority);
  }
  Tally renamed_data, far_coordinates;
  for (const std::uint64_t handle : handles) {
    Data d;
    d.bytes = sizes.at(handle).bytes;
    d.name = "h" + hex(handle);
    if (auto it = data_info.find(handle); it != data_info.end()) {
      const ParsedData& described = it->second;
      const std::string at = data_name + ":" + std::to_string(described.line);
      if (!described.name.empty()) {
        d.name = as_name(described.name, true);
        if (d.name != described.name) renamed_data.add("'" + shown(described.name) + "' became '" + shown(d.name) + "' at " + at);
      }
      if (described.coordinates.size() == 2) {
        const auto fits = [](std::int64_t v) {
          return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
        };
        if (fits(described.coordinates[0]) && fits(described.coordinates[1])) {
          d.row = static_cast<std::int32_t>(described.coordinates[0]);
          d.col = static_cast<std::int32_t>(described.coordinates[1]);
        } else {
          far_coordinates.add(at);
        }
      }
    }
    builder.add_data(std::move(d));
  }
  renamed_data.report(result.warnings, "data names had spaces, control characters, '#' or bytes that are not UTF-8 turned into '_'");
  far_coordinates.report(result.warnings, "data have Coordinates beyond 32 bits and were left without a tile position");
  if (zero_sized) result.warnings.push_back(std::to_string(zero_sized) + " accesses to handles of size 0 were left out (no data moves for them)");
  if (dataless) result.warnings.push_back(std::to_string(dataless) + " tasks access no data and were left out; dependencies through them are kept");

  // Dependencies from DependsOn; an edge through a left-out task links its neighbours.
  const bool any_depends = std::any_of(tasks.begin(), tasks.end(), [](const ParsedTask& t) { return t.has_depends; });
  std::size_t unknown = 0;
  if (any_depends) {
    std::vector<std::vector<TaskId>> resolved(tasks.size());
    std::vector<char> state(tasks.size(), 0);  // 0 new, 1 in progress, 2 done
    // The kept tasks a task stands for as a predecessor: itself, or (left out) its own kept predecessors.
    std::function<const std::vector<TaskId>&(std::size_t)> kept_ancestors = [&](std::size_t index) -> const std::vector<TaskId>& {
      if (state[index] == 2 || state[index] == 1) return resolved[index];
      state[index] = 1;
      std::set<TaskId> out;
      if (task_id[index] != kNoId) {
        out.insert(task_id[index]);
      } else {
        for (const auto& job : tasks[index].depends_on) {
          auto it = by_job.find(job);
          if (it == by_job.end()) continue;
          for (TaskId t : kept_ancestors(it->second)) out.insert(t);
        }
      }
      resolved[index].assign(out.begin(), out.end());
      state[index] = 2;
      return resolved[index];
    };
    for (std::size_t index = 0; index < tasks.size(); ++index) {
      if (task_id[index] == kNoId) continue;
      std::set<TaskId> before;
      for (const auto& job : tasks[index].depends_on) {
        auto it = by_job.find(job);
        if (it == by_job.end()) {
          ++unknown;
          continue;
        }
        for (TaskId t : kept_ancestors(it->second)) before.insert(t);
      }
      before.erase(task_id[index]);
      for (TaskId t : before) builder.add_dependency(t, task_id[index]);
    }
    if (unknown) result.warnings.push_back(std::to_string(unknown) + " DependsOn entries name jobs not in " + tasks_name + " and were left out");
  } else {
    builder.derive_data_dependencies();
    result.warnings.push_back(tasks_name + " has no DependsOn fields: dependencies derived from the data accesses in submission order");
  }
  auto workload = std::move(builder).finish();
  if (!workload) return make_error(tasks_name + ": " + workload.error().message);
  result.workload = std::move(*workload);

  // The measured run: one lane per worker, times from the first start.
  std::set<std::int64_t> workers;
  std::optional<double> first_start;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const ParsedTask& t = tasks[i];
    if (task_id[i] == kNoId) continue;
    if (!t.worker || !t.start_ms || !t.end_ms) {
      ++result.unexecuted_tasks;
      continue;
    }
    workers.insert(*t.worker);
    first_start = std::min(first_start.value_or(*t.start_ms), *t.start_ms);
  }
  result.workers.assign(workers.begin(), workers.end());
  std::map<std::int64_t, GpuId> lane;
  for (std::size_t i = 0; i < result.workers.size(); ++i) lane[result.workers[i]] = static_cast<GpuId>(i);
  std::vector<TaskRecord> executions;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const ParsedTask& t = tasks[i];
    if (task_id[i] == kNoId || !t.worker || !t.start_ms || !t.end_ms) continue;
    const auto start = static_cast<std::int64_t>(std::llround((*t.start_ms - *first_start) * 1e6));
    const auto end = static_cast<std::int64_t>(std::llround((*t.end_ms - *first_start) * 1e6));
    executions.push_back({task_id[i], lane[*t.worker], 0, 0, start, start, end});
  }
  std::sort(executions.begin(), executions.end(), [](const TaskRecord& a, const TaskRecord& b) {
    return std::tie(a.start_ns, a.end_ns, a.task) < std::tie(b.start_ns, b.end_ns, b.task);
  });
  ReplaySummary& s = result.summary;
  s.gpus.assign(result.workers.size(), GpuSummary{});
  for (std::size_t i = 0; i < executions.size(); ++i) {
    TaskRecord& r = executions[i];
    r.global_order = static_cast<std::uint32_t>(i);
    GpuSummary& gpu = s.gpus[r.gpu];
    r.gpu_order = static_cast<std::uint32_t>(gpu.tasks++);
    gpu.busy_ns += r.end_ns - r.start_ns;
    s.makespan_ns = std::max(s.makespan_ns, r.end_ns);
    s.total_flops += result.workload.tasks()[r.task].flops;
  }
  s.tasks = executions.size();
  s.flush_end_ns = s.makespan_ns;
  s.events = 2 * executions.size();
  s.gflops = s.makespan_ns > 0 ? s.total_flops / static_cast<double>(s.makespan_ns) : 0;
  for (const GpuSummary& gpu : s.gpus) s.idle_ns += s.makespan_ns - gpu.busy_ns;
  result.trace.tasks = std::move(executions);
  return result;
}

Result<StarpuExecution> import_starpu_files(const std::string& tasks_path, const std::string& data_path,
                                            const std::string& workload_name) {
  std::ifstream tasks(tasks_path);
  if (!tasks) return make_error(tasks_path + ": cannot open");
  std::ifstream data;
  if (!data_path.empty()) {
    data.open(data_path);
    if (!data) return make_error(data_path + ": cannot open");
  }
  return import_starpu(tasks, tasks_path, data_path.empty() ? nullptr : &data, data_path, workload_name);
}

}  // namespace tilelens
