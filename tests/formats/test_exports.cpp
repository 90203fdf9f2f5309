// The exports parse back: the Paje trace is well formed against its own event definitions,
// the Chrome trace is valid JSON whose lanes never overlap, and both show every task and load.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "formats/exports.hpp"
#include "helpers.hpp"

using namespace tilelens;
using namespace tilelens::test;

namespace {

// A small strict JSON reader, enough to check what a JSON consumer would see.
struct Json {
  enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::map<std::string, Json> fields;
  const Json& operator[](const std::string& key) const {
    static const Json none;
    auto it = fields.find(key);
    return it == fields.end() ? none : it->second;
  }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : text_(text) {}
  Json document() {
    Json value = read();
    skip();
    if (pos_ != text_.size()) fail("trailing characters");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) { throw std::runtime_error("JSON at byte " + std::to_string(pos_) + ": " + what); }
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char peek() {
    skip();
    if (pos_ >= text_.size()) fail("unexpected end");
    return text_[pos_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = text_[pos_++];
      if (e == 'u') {
        if (pos_ + 4 > text_.size()) fail("bad \\u escape");
        out += static_cast<char>(std::stoi(text_.substr(pos_, 4), nullptr, 16));
        pos_ += 4;
      } else if (std::string("\"\\/bfnrt").find(e) != std::string::npos) {
        out += e;
      } else {
        fail("bad escape");
      }
    }
  }
  Json read() {
    Json value;
    const char c = peek();
    if (c == '{') {
      value.type = Json::Type::Object;
      ++pos_;
      if (peek() == '}') {
        ++pos_;
        return value;
      }
      while (true) {
        std::string key = string();
        expect(':');
        value.fields[key] = read();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        expect('}');
        return value;
      }
    }
    if (c == '[') {
      value.type = Json::Type::Array;
      ++pos_;
      if (peek() == ']') {
        ++pos_;
        return value;
      }
      while (true) {
        value.items.push_back(read());
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        expect(']');
        return value;
      }
    }
    if (c == '"') {
      value.type = Json::Type::String;
      value.text = string();
      return value;
    }
    for (const char* word : {"true", "false", "null"}) {
      if (text_.compare(pos_, std::strlen(word), word) == 0) {
        pos_ += std::strlen(word);
        value.type = word[0] == 'n' ? Json::Type::Null : Json::Type::Bool;
        return value;
      }
    }
    std::size_t used = 0;
    try {
      value.number = std::stod(text_.substr(pos_, 40), &used);
    } catch (...) {
      fail("not a value");
    }
    pos_ += used;
    value.type = Json::Type::Number;
    return value;
  }
  const std::string& text_;
  std::size_t pos_ = 0;
};

std::vector<std::string> paje_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    if (i >= line.size()) break;
    if (line[i] == '"') {
      const auto close = line.find('"', i + 1);
      if (close == std::string::npos) return {};
      fields.push_back(line.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {
      const auto space = line.find(' ', i);
      fields.push_back(line.substr(i, space == std::string::npos ? std::string::npos : space - i));
      i = space == std::string::npos ? line.size() : space;
    }
  }
  return fields;
}

struct PajeCounts {
  std::size_t task_states = 0, links = 0, variables = 0;
};

// Reads a Paje trace as a viewer would: event definitions first, then events with the right
// number of fields, in time order, on containers that exist, each link started and ended once.
PajeCounts check_paje(const std::string& text, std::set<std::string> state_values_for_tasks) {
  std::istringstream in(text);
  std::string line;
  std::map<std::string, std::pair<std::string, std::size_t>> events;  // id -> (name, field count)
  std::string defining;
  std::set<std::string> containers = {"0"};
  std::map<std::string, int> link_keys;
  double last_time = 0;
  PajeCounts counts;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    INFO("line " << number << ": " << line);
    if (line.rfind("%EventDef", 0) == 0) {
      const auto fields = paje_fields(line);
      REQUIRE(fields.size() == 3);
      defining = fields[2];
      events[defining] = {fields[1], 0};
      continue;
    }
    if (line.rfind("%EndEventDef", 0) == 0) {
      defining.clear();
      continue;
    }
    if (line.rfind("%", 0) == 0) {
      REQUIRE_FALSE(defining.empty());
      ++events[defining].second;
      continue;
    }
    const auto fields = paje_fields(line);
    REQUIRE_FALSE(fields.empty());
    REQUIRE(events.count(fields[0]));
    const auto& [name, count] = events[fields[0]];
    REQUIRE(fields.size() == count + 1);
    if (name.rfind("PajeDefine", 0) == 0) continue;
    const double time = std::stod(fields[1]);
    REQUIRE(time >= last_time);
    last_time = time;
    if (name == "PajeCreateContainer") {
      REQUIRE(containers.count(fields[4]));
      containers.insert(fields[2]);
    } else if (name == "PajeDestroyContainer") {
      REQUIRE(containers.count(fields[3]));
    } else if (name == "PajeSetState") {
      REQUIRE(containers.count(fields[3]));
      if (state_values_for_tasks.count(fields[4])) ++counts.task_states;
    } else if (name == "PajeSetVariable") {
      REQUIRE(containers.count(fields[3]));
      REQUIRE(std::stod(fields[4]) >= 0);
      ++counts.variables;
    } else if (name == "PajeStartLink" || name == "PajeEndLink") {
      REQUIRE(containers.count(fields[3]));
      REQUIRE(containers.count(fields[5]));
      link_keys[fields[6]] += name == "PajeStartLink" ? 1 : 100;
      if (name == "PajeEndLink") ++counts.links;
    } else {
      FAIL("unexpected event " << name);
    }
  }
  for (const auto& [key, seen] : link_keys) {
    INFO("link " << key);
    CHECK(seen == 101);  // started once, then ended once
  }
  return counts;
}

struct Fixture {
  Workload workload = generated("cholesky:N=6");
  Platform platform = small_platform(5.0 * 960 * 960 * 4, 2);
  Run run = run_replay(workload, "eager", "lru", platform);
  RunInfo info;
  Fixture() {
    info.id = 7;
    info.scheduler = "eager";
    info.eviction = "lru";
    info.workload_spec = workload.generator().spec;
    info.platform = platform;
  }
};

}  // namespace

TEST_CASE("a Paje export is well formed and holds every task, transfer and memory change", "[exports]") {
  Fixture f;
  REQUIRE(f.run.summary.writebacks > 0);
  std::ostringstream out;
  write_paje(f.workload, f.info, f.run.trace, out);
  std::set<std::string> kinds;
  for (std::size_t k = 0; k < f.workload.kinds().size(); ++k) kinds.insert("K" + std::to_string(k));
  const PajeCounts counts = check_paje(out.str(), kinds);
  CHECK(counts.task_states == f.workload.task_count());
  CHECK(counts.links == f.run.trace.loads.size() + f.run.trace.writebacks.size());
  // One initial zero per GPU, then one per change.
  CHECK(counts.variables == f.platform.gpus + f.run.trace.loads.size() + f.run.trace.allocations.size() + f.run.trace.evictions.size());
}

TEST_CASE("a Chrome trace export is JSON with non-overlapping lanes and memory within M", "[exports]") {
  Fixture f;
  std::ostringstream out;
  write_chrome_trace(f.workload, f.info, f.run.trace, out);
  const std::string text = out.str();
  Json document;
  REQUIRE_NOTHROW(document = JsonReader(text).document());
  const Json& events = document["traceEvents"];
  REQUIRE(events.type == Json::Type::Array);
  std::map<long long, std::vector<std::pair<long long, long long>>> lanes;  // tid -> [start, end) in ns
  std::size_t tasks = 0, loads = 0, names = 0;
  double peak_mib = 0;
  for (const Json& e : events.items) {
    const std::string phase = e["ph"].text;
    if (phase == "M") {
      ++names;
      continue;
    }
    if (phase == "C") {
      peak_mib = std::max(peak_mib, e["args"]["MiB"].number);
      continue;
    }
    if (phase != "X") continue;
    const auto start = std::llround(e["ts"].number * 1000);
    const auto end = start + std::llround(e["dur"].number * 1000);
    lanes[std::llround(e["tid"].number)].emplace_back(start, end);
    if (e["cat"].text == "task") ++tasks;
    if (e["cat"].text == "fetch" || e["cat"].text == "prefetch" || e["cat"].text == "unused") ++loads;
  }
  CHECK(tasks == f.workload.task_count());
  CHECK(loads == f.run.trace.loads.size());
  CHECK(names >= 1 + 2 * f.platform.gpus);
  CHECK(peak_mib * 1048576.0 <= f.platform.memory_bytes + 1);
  for (auto& [tid, slices] : lanes) {
    std::sort(slices.begin(), slices.end());
    for (std::size_t i = 1; i < slices.size(); ++i) {
      INFO("lane " << tid);
      CHECK(slices[i - 1].second <= slices[i].first);
    }
  }
}

TEST_CASE("memory in use never exceeds M and ends at what stays resident", "[exports]") {
  Fixture f;
  const auto steps = memory_in_use(f.workload, f.run.trace);
  std::vector<std::uint64_t> last(f.platform.gpus, 0);
  for (const auto& s : steps) {
    CHECK(static_cast<double>(s.bytes) <= f.platform.memory_bytes);
    last[s.gpu] = s.bytes;
  }
  for (GpuId g = 0; g < f.platform.gpus; ++g) {
    CHECK(last[g] == f.run.summary.gpus[g].resident_at_end * 960ull * 960 * 4);
  }
}

TEST_CASE("a file dialog's name picks the exporter its extension names, when only one writes it", "[exports]") {
  const RunExporter& paje = *find_run_exporter("paje");
  const RunExporter& order = *find_run_exporter("order");
  const RunExporter& loads = *find_run_exporter("loads");
  CHECK(run_exporter_for_path("run-4.paje", paje).name == "paje");
  CHECK(run_exporter_for_path("run-4.json", paje).name == "chrome");      // one exporter writes .json
  CHECK(run_exporter_for_path("run-4.txt", order).name == "trace");
  CHECK(run_exporter_for_path("run-4.csv", loads).name == "loads");       // the filter's own extension
  CHECK(run_exporter_for_path("run-4.csv", paje).name == "paje");         // two write .csv: the filter decides
  CHECK(run_exporter_for_path("run-4", order).name == "order");           // no extension: the filter
  CHECK(run_exporter_for_path("run-4.unknown", loads).name == "loads");
}
