// Parsing and printing the units people type: sizes (500MB, 1.5GiB, 4items), bandwidths
// (12GB/s), durations (10us, 2ms) and compute rates (13393GFlop/s). Decimal prefixes are
// powers of 1000 and binary ones (KiB, MiB, GiB) powers of 1024, as in SI and IEC.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace tilelens {

// A memory size: either bytes or a count of the workload's data items ("4items").
struct SizeSpec {
  double bytes = 0;        // valid when items == 0
  std::uint64_t items = 0;  // non-zero when given as a count of data items
};

Result<double> parse_bytes(std::string_view text);            // "500MB", "1GiB", "4096"
Result<SizeSpec> parse_memory(std::string_view text);          // bytes or "<n>items"
Result<double> parse_bandwidth(std::string_view text);        // bytes per second: "12GB/s"
Result<std::int64_t> parse_duration_ns(std::string_view text);  // "10us", "2ms", "0"
Result<double> parse_duration(std::string_view text);         // in ns, fractions kept: "4.5ns", "1.25us"
Result<double> parse_gflops(std::string_view text);           // "13393GFlop/s", "34TFlop/s"
Result<std::int64_t> parse_integer(std::string_view text);
Result<double> parse_real(std::string_view text);

std::string format_bytes(double bytes);       // "442.4 MB" (powers of 1000), compact
// In powers of 1024, as the papers' memories are given: "250 MiB", "14.1 MiB", "1.25 GiB". The
// app writes every size this way, so a title, an axis and a table never mix MB and MiB.
std::string format_binary_bytes(double bytes);
std::string format_duration(std::int64_t ns);  // "1.234 s", "12.5 ms"
std::string format_count(double value);       // "1,234,567"
std::string format_exact(double value);       // the shortest text that reads back as the same double
std::string format_fixed(double value, int digits = 2);  // "%.*f": "3.14"
// The text with JSON's escapes (quotes, backslashes, control characters), without the quotes;
// bytes that are not UTF-8 become U+FFFD, so the result is always valid JSON.
std::string json_escape(std::string_view text);

}  // namespace tilelens
