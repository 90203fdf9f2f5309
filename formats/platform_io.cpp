// Platform files; see platform_io.hpp. nlohmann-json reads them (strict RFC 8259, UTF-8) and
// writes them; this file adds what a JSON parser does not know: that a key may appear once,
// the fields and their types, and the ranges a replay can run with.
#include "formats/platform_io.hpp"

#include <nlohmann/json.hpp>

#include "model/units.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

namespace tilelens {
namespace {

// Written with the fields in a fixed order. Read into nlohmann's sorted object: its ordered
// one finds each key by a linear search, so a hostile file of 100,000 keys took a minute.
using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// The ranges are model.hpp's; the texts below state them in the messages.
bool bandwidth_ok(double v) { return v >= kMinBandwidth && v <= kMaxBandwidth; }
bool link_ok(double v) { return v == 0 || bandwidth_ok(v); }
bool memory_ok(double v) { return v > 0 && v <= static_cast<double>(kMaxWorkloadBytes); }
bool latency_ok(double v) { return v >= 0 && v <= kMaxLatencyNs; }
bool rate_ok(double v) { return v == 0 || (v >= kMinGflops && v <= kMaxGflops); }
constexpr const char* kBandwidthRange = "a number of bytes per second from 1 to 1e15";
constexpr const char* kLinkRange = "0 (none) or a number of bytes per second from 1 to 1e15";
constexpr const char* kMemoryRange = "a number of bytes above 0 and at most 2^62 (4.6e18)";
constexpr const char* kLatencyRange = "a number of ns from 0 to 1e12 (1000 s)";
constexpr const char* kRateRange = "0 (no kernel there) or a number of GFlop/s from 1e-6 to 1e9";

// Whole numbers as integers ("memory_bytes": 314572800, not 314572800.0); both read back the
// same double, exactly, below 2^53.
OrderedJson number(double value) {
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) return static_cast<std::int64_t>(value);
  return value;
}

struct Position {
  std::size_t line = 1, column = 1;
};

// The line and column (in characters, as an editor counts them) of the byte at `index`.
Position position_of(const std::string& text, std::size_t index) {
  Position at;
  for (std::size_t i = 0; i < index && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {  // not a UTF-8 continuation byte
      ++at.column;
    }
  }
  return at;
}

// nlohmann's messages quote the bytes it last read, which may be the invalid UTF-8 it
// refused; its own writer replaces those with U+FFFD, so a message always prints cleanly.
std::string printable(const std::string& text) {
  return Json::parse(Json(text).dump(-1, ' ', false, Json::error_handler_t::replace)).get<std::string>();
}

// nlohmann gives a parser callback no position. This iterator counts the bytes the parser
// has taken: at a key event they end at the key's closing quote (the lexer reads no further
// before it reports the key).
class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator(const char* at, std::size_t* taken) : at_(at), taken_(taken) {}
  reference operator*() const { return *at_; }
  CountingIterator& operator++() {
    ++at_;
    ++*taken_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const CountingIterator& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  std::size_t* taken_;
};

// A parsed file: its value, and where each top-level key ends and each key one level down
// (the kinds of kind_gflops and cpu_kind_gflops): the order of the checks, and the line a
// message names (counted only then: counting per key made a file of many keys quadratic).
struct Parsed {
  Json value;
  std::map<std::vector<std::string>, std::size_t> offsets;  // of the key's closing quote
};

// nlohmann keeps the last of two equal keys without a word; a platform file with two "gpus"
// is a mistake to show, so the callback sees each key and refuses a second one.
Result<Parsed> parse(const std::string& text, const std::string& source) {
  struct Object {
    std::map<std::string, std::size_t> offsets;  // its keys so far
    std::string key;                             // the last one
  };
  std::vector<Object> open;
  Parsed parsed;
  std::optional<Error> duplicate;
  std::size_t taken = 0;
  const auto callback = [&](int /*depth*/, Json::parse_event_t event, Json& value) {
    if (event == Json::parse_event_t::object_start) {
      open.emplace_back();
    } else if (event == Json::parse_event_t::object_end) {
      open.pop_back();
    } else if (event == Json::parse_event_t::key) {
      const auto& key = value.get_ref<const std::string&>();
      const std::size_t offset = taken - 1;
      Object& object = open.back();
      const auto [first, fresh] = object.offsets.emplace(key, offset);
      if (!fresh && !duplicate) {
        const std::string where = open.size() > 1 ? " in \"" + open[open.size() - 2].key + "\"" : "";
        duplicate = make_error(source + ":" + std::to_string(position_of(text, offset).line) + ": key \"" + key +
                               "\" appears twice" + where + " (also on line " +
                               std::to_string(position_of(text, first->second).line) + ")");
      }
      object.key = key;
      if (open.size() == 1) parsed.offsets[{key}] = offset;
      if (open.size() == 2) parsed.offsets[{open[0].key, key}] = offset;
    }
    return true;
  };
  const auto at = [&](std::size_t index) {
    const Position p = position_of(text, index);
    return source + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": ";
  };
  // nlohmann's message without its "[json.exception.parse_error.101] parse error at line L,
  // column C: ": the position is ours, counted from its byte offset (its own column restarts
  // at 0 after a newline it read, so a raw newline in a string points past the string).
  const auto explanation = [](std::string what) {
    if (const auto bracket = what.find("] "); bracket != std::string::npos) what.erase(0, bracket + 2);
    if (what.rfind("parse error", 0) == 0) {
      if (const auto colon = what.find(": "); colon != std::string::npos) what.erase(0, colon + 2);
    }
    return printable(what);
  };
  try {
    parsed.value = Json::parse(CountingIterator(text.data(), &taken), CountingIterator(text.data() + text.size(), &taken), callback);
  } catch (const Json::parse_error& e) {
    // A duplicate comes before the syntax error: the parser stops at the first.
    if (duplicate) return *duplicate;
    return make_error(at(e.byte > 0 ? e.byte - 1 : 0) + explanation(e.what()));
  } catch (const Json::exception& e) {  // a number too large for a double ("1e999")
    if (duplicate) return *duplicate;
    return make_error(at(taken > 0 ? taken - 1 : 0) + explanation(e.what()));
  }
  if (duplicate) return *duplicate;
  if (!parsed.value.is_object()) {
    return make_error(at(text.find_first_not_of(" \t\r\n")) + "expected an object of the platform's fields, {\"format\": 1, ...}");
  }
  return parsed;
}

}  // namespace

void write_platform_json(const Platform& p, std::ostream& out, const std::string& comment) {
  const auto rates = [](const std::map<std::string, double>& map) {
    // Appended, not inserted: the kinds are already sorted and unique, and the ordered
    // object's insert searches every key.
    OrderedJson::object_t object;
    object.reserve(map.size());
    for (const auto& [kind, rate] : map) object.emplace_back(kind, number(rate));
    return object;
  };
  OrderedJson file;
  file["format"] = kPlatformFileFormat;
  if (!comment.empty()) file["comment"] = comment;
  file["name"] = p.name;
  file["gpus"] = p.gpus;
  file["memory_bytes"] = number(p.memory_bytes);
  file["bus_bandwidth"] = number(p.bus_bandwidth);
  file["gpu_link_bandwidth"] = number(p.gpu_link_bandwidth);
  file["gpu_bus_bandwidth"] = number(p.gpu_bus_bandwidth);
  file["gpus_per_switch"] = p.gpus_per_switch;
  file["switch_bandwidth"] = number(p.switch_bandwidth);
  file["latency_ns"] = p.latency_ns;
  file["copy_engines"] = p.copy_engines;
  file["half_duplex"] = p.half_duplex;
  file["default_gflops"] = number(p.default_gflops);
  file["kind_gflops"] = rates(p.kind_gflops);
  file["workers_per_memory"] = p.workers_per_memory;
  file["cpus"] = p.cpus;
  file["cpu_default_gflops"] = number(p.cpu_default_gflops);
  file["cpu_kind_gflops"] = rates(p.cpu_kind_gflops);
  if (!p.worker_speeds.empty()) {
    OrderedJson speeds = OrderedJson::array();
    for (const double speed : p.worker_speeds) speeds.push_back(number(speed));
    file["worker_speeds"] = speeds;
  }
  // A name or comment that is not UTF-8 (a Platform built in code) is written with U+FFFD
  // rather than thrown on: the reader would refuse its bytes anyway.
  out << file.dump(2, ' ', false, OrderedJson::error_handler_t::replace) << "\n";
}

Result<Platform> read_platform_json(std::istream& in, const std::string& source) {
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  auto parsed = parse(text, source);
  if (!parsed) return parsed.error();
  const Json& file = parsed->value;
  const auto line = [&](const std::vector<std::string>& path) { return std::to_string(position_of(text, parsed->offsets.at(path)).line); };
  // An object's members in the file's order, so that the first error reported is the first
  // in the file (nlohmann's object is sorted by key).
  const auto in_file_order = [&](const Json& object, const std::vector<std::string>& parent) {
    std::vector<std::pair<std::size_t, Json::const_iterator>> members;
    members.reserve(object.size());
    std::vector<std::string> path = parent;
    path.emplace_back();
    for (auto it = object.begin(); it != object.end(); ++it) {
      path.back() = it.key();
      members.emplace_back(parsed->offsets.at(path), it);
    }
    std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return members;
  };
  const auto format = file.find("format");
  if (format == file.end()) {
    return make_error(source + ": field \"format\" is missing; a tilelens platform file has \"format\": 1");
  }
  if (!format->is_number() || format->get<double>() != kPlatformFileFormat) {
    const std::string version = format->is_number() ? "version " + format_exact(format->get<double>()) : "a version that is not a number";
    return make_error(source + ":" + line({"format"}) + ": field \"format\": " + version + " is not one this tilelens reads (1)");
  }
  Platform p;
  for (const auto& member : in_file_order(file, {})) {
    // Not a structured binding: the lambdas below capture these, which clang before 16 refuses.
    const std::string& key = member.second.key();
    const Json& value = member.second.value();
    const auto fail = [&](const std::string& what) -> Status {
      return make_error(source + ":" + line({key}) + ": field \"" + key + "\": " + what);
    };
    const auto count = [&](std::uint32_t& target, double low) -> Status {
      const double v = value.is_number() ? value.get<double>() : -1;
      if (!(v >= low) || v > kMaxWorkers || v != std::floor(v)) {
        return fail("expected a whole number from " + format_exact(low) + " to " + std::to_string(kMaxWorkers));
      }
      target = static_cast<std::uint32_t>(v);
      return Status::success();
    };
    const auto real = [&](double& target, bool (*accept)(double), const char* range) -> Status {
      if (!value.is_number() || !accept(value.get<double>())) return fail(std::string("expected ") + range);
      target = value.get<double>();
      return Status::success();
    };
    const auto rates = [&](std::map<std::string, double>& target) -> Status {
      if (!value.is_object()) return fail("expected an object of kind: GFlop/s");
      std::map<std::string, double> read;
      for (const auto& entry : in_file_order(value, {key})) {
        const std::string& kind = entry.second.key();
        const Json& rate = entry.second.value();
        if (!rate.is_number() || !rate_ok(rate.get<double>())) {
          return make_error(source + ":" + line({key, kind}) + ": field \"" + key + "\": the rate of \"" + kind + "\": expected " + kRateRange);
        }
        read[kind] = rate.get<double>();
      }
      target = std::move(read);
      return Status::success();
    };
    const auto text_field = [&](std::string* target) -> Status {
      if (!value.is_string()) return fail("expected a string");
      if (target) *target = value.get<std::string>();
      return Status::success();
    };
    Status status = Status::success();
    if (key == "format") continue;
    if (key == "comment") status = text_field(nullptr);
    else if (key == "name") status = text_field(&p.name);
    else if (key == "gpus") status = count(p.gpus, 1);
    else if (key == "memory_bytes") status = real(p.memory_bytes, memory_ok, kMemoryRange);
    else if (key == "bus_bandwidth") status = real(p.bus_bandwidth, bandwidth_ok, kBandwidthRange);
    else if (key == "gpu_link_bandwidth") status = real(p.gpu_link_bandwidth, link_ok, kLinkRange);
    else if (key == "gpu_bus_bandwidth") status = real(p.gpu_bus_bandwidth, link_ok, kLinkRange);
    else if (key == "gpus_per_switch") status = count(p.gpus_per_switch, 0);
    else if (key == "switch_bandwidth") status = real(p.switch_bandwidth, link_ok, kLinkRange);
    else if (key == "latency_ns") {
      double latency = 0;
      status = real(latency, latency_ok, kLatencyRange);
      p.latency_ns = static_cast<std::int64_t>(latency);
    } else if (key == "copy_engines") {
      const double v = value.is_number() ? value.get<double>() : -1;
      if (!(v >= 0) || v > kMaxCopyEngines || v != std::floor(v)) {
        status = fail("expected a whole number from 0 to " + std::to_string(kMaxCopyEngines));
      } else {
        p.copy_engines = static_cast<std::uint32_t>(v);
      }
    } else if (key == "half_duplex") {
      if (!value.is_boolean()) status = fail("expected true or false");
      else p.half_duplex = value.get<bool>();
    } else if (key == "default_gflops") status = real(p.default_gflops, rate_ok, kRateRange);
    else if (key == "kind_gflops") status = rates(p.kind_gflops);
    else if (key == "workers_per_memory") status = count(p.workers_per_memory, 1);
    else if (key == "cpus") status = count(p.cpus, 0);
    else if (key == "cpu_default_gflops") status = real(p.cpu_default_gflops, rate_ok, kRateRange);
    else if (key == "cpu_kind_gflops") status = rates(p.cpu_kind_gflops);
    else if (key == "worker_speeds") {
      p.worker_speeds.clear();
      if (!value.is_array()) status = fail("expected an array of numbers, one per worker");
      for (std::size_t w = 0; status && w < value.size(); ++w) {
        const double v = value[w].is_number() ? value[w].get<double>() : 0;
        if (!(v >= kMinWorkerSpeed && v <= kMaxWorkerSpeed)) {
          status = fail("worker " + std::to_string(w) + "'s speed: expected a number from 0.001 to 1000");
        } else {
          p.worker_speeds.push_back(v);
        }
      }
    }
    else status = make_error(source + ":" + line({key}) + ": unknown field \"" + key + "\" (docs/platform-file.md lists the fields)");
    if (!status) return status.error();
  }
  return p;
}

Result<Platform> load_platform_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error(path + ": cannot open the platform file");
  return read_platform_json(in, path);
}

}  // namespace tilelens
