// Platform files; see platform_io.hpp.
#include "formats/platform_io.hpp"

#include "model/units.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>
#include <variant>

namespace tilelens {
namespace {

std::string quote(const std::string& text) { return "\"" + json_escape(text) + "\""; }

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// A small reader for the one shape the file has: an object of numbers, strings, and objects
// of numbers (the per-kind rates).
class Reader {
 public:
  Reader(const std::string& text, const std::string& source) : text_(text), source_(source) {}
  using Rates = std::map<std::string, double>;
  using Value = std::variant<double, std::string, Rates>;

  Result<std::map<std::string, Value>> object() {
    std::map<std::string, Value> fields;
    skip();
    if (!eat('{')) return error("expected '{'");
    skip();
    if (eat('}')) return fields;
    while (true) {
      skip();
      auto key = string();
      if (!key) return key.error();
      skip();
      if (!eat(':')) return error("expected ':' after \"" + *key + "\"");
      skip();
      if (peek() == '{') {
        ++pos_;
        Rates rates;
        skip();
        if (!eat('}')) {
          while (true) {
            skip();
            auto kind = string();
            if (!kind) return kind.error();
            skip();
            if (!eat(':')) return error("expected ':'");
            skip();
            auto value = real();
            if (!value) return error("\"" + *key + "\": \"" + *kind + "\" needs a number");
            rates[*kind] = *value;
            skip();
            if (eat('}')) break;
            if (!eat(',')) return error("expected ',' or '}'");
          }
        }
        fields[*key] = std::move(rates);
      } else if (peek() == '"') {
        auto value = string();
        if (!value) return value.error();
        fields[*key] = *value;
      } else {
        auto value = real();
        if (!value) return error("\"" + *key + "\" needs a number, a string or an object");
        fields[*key] = *value;
      }
      skip();
      if (eat('}')) break;
      if (!eat(',')) return error("expected ',' or '}'");
    }
    skip();
    if (pos_ != text_.size()) return error("unexpected text after the object");
    return fields;
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void skip() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) ++pos_;
  }
  Error error(const std::string& what) const {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return make_error(source_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
  }
  Result<std::string> string() {
    if (!eat('"')) return error("expected a quoted name");
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] != '\\' || pos_ + 1 >= text_.size()) {
        out += text_[pos_++];
        continue;
      }
      const char escape = text_[pos_ + 1];
      pos_ += 2;
      switch (escape) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {  // json_escape writes control characters this way; others as UTF-8
          unsigned code = 0;
          if (pos_ + 4 > text_.size() || std::sscanf(text_.c_str() + pos_, "%4x", &code) != 1) return error("bad \\u escape");
          pos_ += 4;
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
          }
          break;
        }
        default: out += escape;  // \" \\ \/
      }
    }
    if (!eat('"')) return error("unterminated string");
    return out;
  }
  Result<double> real() {
    const char* begin = text_.c_str() + pos_;
    char* end = nullptr;
    const double value = std::strtod(begin, &end);
    if (end == begin) return error("expected a number");
    pos_ += static_cast<std::size_t>(end - begin);
    return value;
  }

  const std::string& text_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

}  // namespace

void write_platform_json(const Platform& p, std::ostream& out, const std::string& comment) {
  const auto rates = [](const std::map<std::string, double>& map) {
    std::string text = "{";
    bool first = true;
    for (const auto& [kind, rate] : map) {
      text += (first ? "" : ", ") + quote(kind) + ": " + number(rate);
      first = false;
    }
    return text + "}";
  };
  out << "{\n";
  out << "  \"format\": " << kPlatformFileFormat << ",\n";
  if (!comment.empty()) out << "  \"comment\": " << quote(comment) << ",\n";
  out << "  \"name\": " << quote(p.name) << ",\n";
  out << "  \"gpus\": " << p.gpus << ",\n";
  out << "  \"memory_bytes\": " << number(p.memory_bytes) << ",\n";
  out << "  \"bus_bandwidth\": " << number(p.bus_bandwidth) << ",\n";
  out << "  \"gpu_link_bandwidth\": " << number(p.gpu_link_bandwidth) << ",\n";
  out << "  \"gpu_bus_bandwidth\": " << number(p.gpu_bus_bandwidth) << ",\n";
  out << "  \"gpus_per_switch\": " << p.gpus_per_switch << ",\n";
  out << "  \"switch_bandwidth\": " << number(p.switch_bandwidth) << ",\n";
  out << "  \"latency_ns\": " << p.latency_ns << ",\n";
  out << "  \"default_gflops\": " << number(p.default_gflops) << ",\n";
  out << "  \"kind_gflops\": " << rates(p.kind_gflops) << ",\n";
  out << "  \"workers_per_memory\": " << p.workers_per_memory << ",\n";
  out << "  \"cpus\": " << p.cpus << ",\n";
  out << "  \"cpu_default_gflops\": " << number(p.cpu_default_gflops) << ",\n";
  out << "  \"cpu_kind_gflops\": " << rates(p.cpu_kind_gflops) << "\n";
  out << "}\n";
}

Result<Platform> read_platform_json(std::istream& in, const std::string& source) {
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  Reader reader(text, source);
  auto fields = reader.object();
  if (!fields) return fields.error();
  Platform p;
  const auto field_error = [&](const std::string& key, const std::string& what) {
    return make_error(source + ": field \"" + key + "\": " + what);
  };
  const auto format = fields->find("format");
  if (format == fields->end() || !std::holds_alternative<double>(format->second)) {
    return make_error(source + ": field \"format\" is missing; a tilelens platform file has \"format\": 1");
  }
  if (std::get<double>(format->second) != kPlatformFileFormat) {
    return field_error("format", "version " + number(std::get<double>(format->second)) + " is not one this tilelens reads (1)");
  }
  for (const auto& [key, value] : *fields) {
    const auto count = [&](std::uint32_t& target, double low) -> Status {
      if (!std::holds_alternative<double>(value)) return field_error(key, "expected a number");
      const double v = std::get<double>(value);
      if (!(v >= low) || v > 4096 || v != std::floor(v)) return field_error(key, "expected a whole number from " + number(low) + " to 4096");
      target = static_cast<std::uint32_t>(v);
      return Status::success();
    };
    const auto real = [&](double& target, bool positive) -> Status {
      if (!std::holds_alternative<double>(value)) return field_error(key, "expected a number");
      const double v = std::get<double>(value);
      if (!std::isfinite(v) || v < 0 || (positive && v == 0)) return field_error(key, positive ? "expected a positive number" : "expected a number of 0 or more");
      target = v;
      return Status::success();
    };
    const auto rates = [&](std::map<std::string, double>& target) -> Status {
      if (!std::holds_alternative<Reader::Rates>(value)) return field_error(key, "expected an object of kind: GFlop/s");
      for (const auto& [kind, rate] : std::get<Reader::Rates>(value)) {
        if (!std::isfinite(rate) || rate < 0) return field_error(key, "the rate of " + kind + " must be 0 or more");
      }
      target = std::get<Reader::Rates>(value);
      return Status::success();
    };
    Status status = Status::success();
    if (key == "format") continue;
    if (key == "comment") {
      if (!std::holds_alternative<std::string>(value)) status = field_error(key, "expected a string");
    } else if (key == "name") {
      if (!std::holds_alternative<std::string>(value)) status = field_error(key, "expected a string");
      else p.name = std::get<std::string>(value);
    } else if (key == "gpus") status = count(p.gpus, 1);
    else if (key == "memory_bytes") status = real(p.memory_bytes, true);
    else if (key == "bus_bandwidth") status = real(p.bus_bandwidth, true);
    else if (key == "gpu_link_bandwidth") status = real(p.gpu_link_bandwidth, false);
    else if (key == "gpu_bus_bandwidth") status = real(p.gpu_bus_bandwidth, false);
    else if (key == "gpus_per_switch") status = count(p.gpus_per_switch, 0);
    else if (key == "switch_bandwidth") status = real(p.switch_bandwidth, false);
    else if (key == "latency_ns") {
      double latency = 0;
      status = real(latency, false);
      p.latency_ns = static_cast<std::int64_t>(latency);
    } else if (key == "default_gflops") status = real(p.default_gflops, false);
    else if (key == "kind_gflops") status = rates(p.kind_gflops);
    else if (key == "workers_per_memory") status = count(p.workers_per_memory, 1);
    else if (key == "cpus") status = count(p.cpus, 0);
    else if (key == "cpu_default_gflops") status = real(p.cpu_default_gflops, false);
    else if (key == "cpu_kind_gflops") status = rates(p.cpu_kind_gflops);
    else status = make_error(source + ": unknown field \"" + key + "\" (docs/platform-file.md lists the fields)");
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
