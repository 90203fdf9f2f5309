// Parsing and printing of units; see units.hpp.
#include "model/units.hpp"
#include "util/quoted.hpp"

#include "util/utf8.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <utility>
#include <vector>

namespace tilelens {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Splits "12.5GB/s" into 12.5 and "GB/s".
Result<std::pair<double, std::string>> split_number(std::string_view text, std::string_view what) {
  text = trim(text);
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.' ||
                               text[end] == 'e' || text[end] == 'E' || text[end] == '+' || text[end] == '-')) {
    // an 'e' only belongs to the number when followed by a digit or sign ("1e9"), not in "1exa"
    if ((text[end] == 'e' || text[end] == 'E') &&
        (end + 1 >= text.size() || !(std::isdigit(static_cast<unsigned char>(text[end + 1])) ||
                                     text[end + 1] == '+' || text[end + 1] == '-'))) {
      break;
    }
    ++end;
  }
  if (end == 0) return make_error("expected a number for " + std::string(what) + ", got " + quote_input(text));
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + end, value);
  if (ec != std::errc() || ptr != text.data() + end || !std::isfinite(value)) {
    return make_error(quote_input(text) + " is not a valid " + std::string(what));
  }
  return std::pair<double, std::string>{value, std::string(trim(text.substr(end)))};
}

struct Suffix {
  const char* name;
  double factor;
};

const std::vector<Suffix>& size_suffixes() {
  static const std::vector<Suffix> table = {
      {"", 1},          {"b", 1},          {"kb", 1e3},     {"mb", 1e6},
      {"gb", 1e9},      {"tb", 1e12},      {"kib", 1024.0}, {"mib", 1048576.0},
      {"gib", 1073741824.0}, {"tib", 1099511627776.0}};
  return table;
}

Result<double> scaled(std::string_view text, const std::vector<Suffix>& table, std::string_view what,
                      std::string_view examples) {
  auto split = split_number(text, what);
  if (!split) return split.error();
  const std::string unit = lower(split->second);
  for (const auto& suffix : table) {
    if (unit == suffix.name) return split->first * suffix.factor;
  }
  return make_error("unknown unit '" + split->second + "' in " + std::string(what) + " '" + std::string(trim(text)) +
                    "' (use " + std::string(examples) + ")");
}

}  // namespace

Result<double> parse_bytes(std::string_view text) {
  auto value = scaled(text, size_suffixes(), "size", "B, KB, MB, GB, TB, KiB, MiB, GiB or TiB");
  if (!value) return value;
  if (*value <= 0) return make_error("size '" + std::string(trim(text)) + "' must be greater than zero");
  return value;
}

Result<SizeSpec> parse_memory(std::string_view text) {
  auto split = split_number(text, "memory size");
  if (!split) return split.error();
  const std::string unit = lower(split->second);
  if (unit == "items" || unit == "item" || unit == "data") {
    const double count = split->first;
    if (count < 1 || std::floor(count) != count) {
      return make_error("memory '" + std::string(trim(text)) + "' must be a whole number of data items, at least 1");
    }
    return SizeSpec{0, static_cast<std::uint64_t>(count)};
  }
  auto bytes = parse_bytes(text);
  if (!bytes) return make_error(bytes.error().message + " (or a count of data items such as 4items)");
  return SizeSpec{*bytes, 0};
}

Result<double> parse_bandwidth(std::string_view text) {
  auto split = split_number(text, "bandwidth");
  if (!split) return split.error();
  std::string unit = lower(split->second);
  if (unit.size() > 2 && unit.substr(unit.size() - 2) == "/s") unit.resize(unit.size() - 2);
  else if (unit.size() > 2 && unit.substr(unit.size() - 2) == "ps") unit.resize(unit.size() - 2);
  else return make_error("bandwidth '" + std::string(trim(text)) + "' needs a unit per second such as 12GB/s or 900MiB/s");
  for (const auto& suffix : size_suffixes()) {
    if (suffix.name[0] != '\0' && unit == suffix.name) {
      const double value = split->first * suffix.factor;
      if (value <= 0) return make_error("bandwidth '" + std::string(trim(text)) + "' must be greater than zero");
      return value;
    }
  }
  return make_error("unknown unit in bandwidth '" + std::string(trim(text)) + "' (use B/s, KB/s, MB/s, GB/s, MiB/s, GiB/s)");
}

Result<double> parse_duration(std::string_view text) {
  static const std::vector<Suffix> table = {{"ns", 1}, {"us", 1e3}, {"\xC2\xB5s", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  auto split = split_number(text, "duration");
  if (!split) return split.error();
  const std::string unit = lower(split->second);
  if (unit.empty() && split->first == 0) return 0.0;
  for (const auto& suffix : table) {
    if (unit == suffix.name) {
      const double ns = split->first * suffix.factor;
      if (ns < 0) return make_error("duration '" + std::string(trim(text)) + "' must not be negative");
      return ns;
    }
  }
  return make_error("duration '" + std::string(trim(text)) + "' needs a unit: ns, us, ms or s");
}

Result<std::int64_t> parse_duration_ns(std::string_view text) {
  auto ns = parse_duration(text);
  if (!ns) return ns.error();
  return static_cast<std::int64_t>(std::llround(*ns));
}

Result<double> parse_gflops(std::string_view text) {
  static const std::vector<Suffix> table = {
      {"mflop/s", 1e-3}, {"gflop/s", 1}, {"tflop/s", 1e3}, {"mflops", 1e-3}, {"gflops", 1}, {"tflops", 1e3}};
  auto split = split_number(text, "compute rate");
  if (!split) return split.error();
  const std::string unit = lower(split->second);
  for (const auto& suffix : table) {
    if (unit == suffix.name) {
      const double value = split->first * suffix.factor;
      if (value <= 0) return make_error("compute rate '" + std::string(trim(text)) + "' must be greater than zero");
      return value;
    }
  }
  return make_error("compute rate '" + std::string(trim(text)) + "' needs a unit: GFlop/s or TFlop/s");
}

Result<std::int64_t> parse_integer(std::string_view text) {
  text = trim(text);
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    return make_error(quote_input(text) + " is not an integer");
  }
  return value;
}

Result<double> parse_real(std::string_view text) {
  auto split = split_number(text, "number");
  if (!split) return split.error();
  if (!split->second.empty()) return make_error(quote_input(trim(text)) + " is not a number");
  return split->first;
}

std::string format_bytes(double bytes) {
  char buffer[64];
  const double abs = std::fabs(bytes);
  if (abs >= 1e12) std::snprintf(buffer, sizeof buffer, "%.2f TB", bytes / 1e12);
  else if (abs >= 1e9) std::snprintf(buffer, sizeof buffer, "%.2f GB", bytes / 1e9);
  else if (abs >= 1e6) std::snprintf(buffer, sizeof buffer, "%.1f MB", bytes / 1e6);
  else if (abs >= 1e3) std::snprintf(buffer, sizeof buffer, "%.1f KB", bytes / 1e3);
  else std::snprintf(buffer, sizeof buffer, "%.0f B", bytes);
  return buffer;
}

std::string format_binary_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = bytes;
  std::size_t unit = 0;
  while (std::fabs(value) >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  // Three significant digits, no trailing zeros: 250, 14.1, 1.25.
  const double magnitude = std::fabs(value);
  const int digits = unit == 0 || magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
  std::string text = format_fixed(value, digits);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text + " " + kUnits[unit];
}

std::string format_duration(std::int64_t ns) {
  char buffer[64];
  const double value = static_cast<double>(ns);
  if (ns >= 1000000000) std::snprintf(buffer, sizeof buffer, "%.3f s", value / 1e9);
  else if (ns >= 1000000) std::snprintf(buffer, sizeof buffer, "%.3f ms", value / 1e6);
  else if (ns >= 1000) std::snprintf(buffer, sizeof buffer, "%.3f us", value / 1e3);
  else std::snprintf(buffer, sizeof buffer, "%lld ns", static_cast<long long>(ns));
  return buffer;
}

std::string format_count(double value) {
  char digits[64];
  std::snprintf(digits, sizeof digits, "%.0f", value);
  std::string text = digits;
  std::string out;
  const std::size_t start = (!text.empty() && text[0] == '-') ? 1 : 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i > start && (text.size() - i) % 3 == 0) out += ',';
    out += text[i];
  }
  return out;
}

std::string format_exact(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string format_fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string json_escape(std::string_view text) {
  // Bytes that are not UTF-8 (a name in another encoding, a string cut mid-character) become
  // U+FFFD, one per maximal ill-formed subpart (utf8.hpp), so the output is valid JSON in
  // UTF-8 whatever the input.
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c == '"' || c == '\\') out += '\\';
      if (c < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
        out += buffer;
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const Utf8Step step = utf8_step(text, i);
    if (step.valid) out.append(text.substr(i, step.length));
    else out.append(kReplacement);
    i += step.length;
  }
  return out;
}

}  // namespace tilelens
