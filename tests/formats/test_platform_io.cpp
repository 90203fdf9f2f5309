// Platform files as hostile input (issue 16): strict JSON, duplicate and unknown keys, the
// ranges a replay can run with, each error naming the file, the line and the field; every
// preset written and read back identically; and the JSON the CLI and the exporters write
// staying valid whatever the bytes and doubles they are given.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli/run_report.hpp"
#include "formats/platform_io.hpp"
#include "model/units.hpp"
#include "presets/platforms.hpp"

using namespace tilelens;

namespace {

std::string error_of(const std::string& json, const std::string& source = "p.json") {
  std::stringstream in(json);
  auto read = read_platform_json(in, source);
  return read.ok() ? std::string("accepted") : read.error().message;
}

Result<Platform> read_text(const std::string& json) {
  std::stringstream in(json);
  return read_platform_json(in, "p.json");
}

// A file whose third line is `field`.
std::string with_field(const std::string& field) { return "{\n  \"format\": 1,\n  " + field + "\n}\n"; }

std::string written(const Platform& platform, const std::string& comment = "") {
  std::stringstream out;
  write_platform_json(platform, out, comment);
  return out.str();
}

// Whether the text is valid UTF-8: nlohmann's strict writer throws on anything else.
bool valid_utf8(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

}  // namespace

TEST_CASE("a platform file is strict JSON: a syntax error names the file, line and column", "[platform-io]") {
  // Each is something a lenient reader (strtod, a hand-written lexer) would take.
  for (const std::string bad : {"\"gpus\": 0x10", "\"gpus\": +1", "\"gpus\": 01", "\"gpus\": .5", "\"gpus\": 1.",
                                "\"gpus\": NaN", "\"gpus\": Infinity", "\"name\": \"a\\qb\"", "\"name\": \"a\nb\"",
                                "\"name\": 'a'", "\"gpus\": 1,", "// a comment", "\"name\": \"\\ud800\"",
                                "\"name\": \"\\u12\"", "\"name\": \"a\tb\""}) {
    INFO(bad);
    const std::string message = error_of(with_field(bad));
    CHECK_THAT(message, Catch::Matches("p\\.json:[34]:[0-9]+: .+"));
    CHECK(valid_utf8(message));
  }
  // The raw newline is refused on the line of its string (nlohmann's own count moves on).
  CHECK_THAT(error_of(with_field("\"name\": \"a\nb\"")), Catch::StartsWith("p.json:3:13: "));
  CHECK_THAT(error_of(with_field("\"gpus\": 0x10")), Catch::StartsWith("p.json:3:12: "));
  CHECK_THAT(error_of("{\"format\": 1,\n \"gpus\" 2}", "bad.json"), Catch::StartsWith("bad.json:2:9: ") && Catch::Contains("expected ':'"));
  // Columns count characters, as an editor shows them, not bytes.
  CHECK_THAT(error_of("{\n\"name\": \"caf\xC3\xA9\" x}"), Catch::StartsWith("p.json:2:16: "));
  CHECK_THAT(error_of("{\"format\": 1} x"), Catch::StartsWith("p.json:1:15: "));
  CHECK_THAT(error_of(""), Catch::StartsWith("p.json:1:1: "));
  CHECK_THAT(error_of("\n\n  [1, 2]"), Catch::StartsWith("p.json:3:3: ") && Catch::Contains("expected an object"));
  CHECK_THAT(error_of("{\"format\": 1, \"bus_bandwidth\": 1e999}"), Catch::Matches("p\\.json:1:[0-9]+: number overflow parsing '1e999'"));
  CHECK_THAT(error_of(with_field("\"bus_bandwidth\": -1e999")), Catch::StartsWith("p.json:3:") && Catch::Contains("1e999"));
  // Deep nesting is parsed without recursion, then refused as the wrong type.
  const std::string deep = "\"gpus\": " + std::string(100000, '[') + std::string(100000, ']');
  CHECK_THAT(error_of(with_field(deep)), Catch::StartsWith("p.json:3: field \"gpus\": "));
}

TEST_CASE("names, comments and kinds must be UTF-8, the error names the file and line", "[platform-io]") {
  for (const std::string bad : {"\"name\": \"caf\xE9\"", "\"comment\": \"\xC0\xAF\"", "\"name\": \"\xED\xA0\x80\"",
                                "\"name\": \"\xF4\x90\x80\x80\"", "\"name\": \"\xE2\x82\""}) {
    const std::string message = error_of(with_field(bad));
    CHECK_THAT(message, Catch::StartsWith("p.json:3:") && Catch::Contains("UTF-8"));
    CHECK(valid_utf8(message));  // the bytes nlohmann quotes are replaced, not printed
  }
  CHECK_THAT(error_of(with_field("\"kind_gflops\": {\n    \"GE\xFFMM\": 1}")), Catch::StartsWith("p.json:4:") && Catch::Contains("UTF-8"));
  auto accented = read_text(with_field("\"name\": \"caf\xC3\xA9 \\u00e9 \\ud83d\\ude00 \xF0\x9F\x98\x80\""));
  REQUIRE(accented.ok());
  CHECK(accented->name == "caf\xC3\xA9 \xC3\xA9 \xF0\x9F\x98\x80 \xF0\x9F\x98\x80");
}

TEST_CASE("a key given twice is refused at its second line, at any level", "[platform-io]") {
  CHECK(error_of("{\n  \"format\": 1,\n  \"gpus\": 2,\n  \"gpus\": 3\n}") == "p.json:4: key \"gpus\" appears twice (also on line 3)");
  CHECK(error_of("{\"format\": 1, \"format\": 1}") == "p.json:1: key \"format\" appears twice (also on line 1)");
  CHECK(error_of("{\n  \"format\": 1,\n  \"kind_gflops\": {\n    \"GEMM\": 1,\n    \"GEMM\": 2\n  }\n}") ==
        "p.json:5: key \"GEMM\" appears twice in \"kind_gflops\" (also on line 4)");
  CHECK(error_of(with_field("\"cpu_kind_gflops\": {\"POTRF\": 1, \"TRSM\": 2, \"POTRF\": 1}")) ==
        "p.json:3: key \"POTRF\" appears twice in \"cpu_kind_gflops\" (also on line 3)");
  // Escapes do not hide a duplicate: both spell the same key.
  CHECK_THAT(error_of(with_field("\"gpus\": 1, \"gp\\u0075s\": 1")), Catch::StartsWith("p.json:3: key \"gpus\" appears twice"));
  // The duplicate comes first in the file, so it is the error reported, not the syntax error after it.
  CHECK_THAT(error_of(with_field("\"cpus\": 1, \"cpus\": 2, oops")), Catch::StartsWith("p.json:3: key \"cpus\""));
  // Same-named kinds in two different objects are not duplicates.
  CHECK(read_text(with_field("\"kind_gflops\": {\"GEMM\": 1}, \"cpu_kind_gflops\": {\"GEMM\": 1}")).ok());
}

TEST_CASE("an unknown key is refused with its file and line", "[platform-io]") {
  CHECK(error_of(with_field("\"gpu\": 2")) == "p.json:3: unknown field \"gpu\" (docs/platform-file.md lists the fields)");
  CHECK_THAT(error_of(with_field("\"Gpus\": 2")), Catch::StartsWith("p.json:3: unknown field \"Gpus\""));
  CHECK_THAT(error_of("{\"gpus\": 2}"), Catch::Contains("p.json: field \"format\" is missing"));
  CHECK_THAT(error_of("{\n\"format\": 2}"), Catch::StartsWith("p.json:2: field \"format\": version 2 is not"));
  CHECK_THAT(error_of("{\"format\": \"1\"}"), Catch::StartsWith("p.json:1: field \"format\""));
}

TEST_CASE("values a replay cannot run with are refused, naming the file, line, field and range", "[platform-io]") {
  struct Case {
    std::string field;  // the third line of the file
    std::string key;    // what the message names
    std::string range;  // part of the accepted range it states
  };
  const std::vector<Case> cases = {
      {"\"bus_bandwidth\": 0", "bus_bandwidth", "from 1 to 1e15"},
      {"\"bus_bandwidth\": 0.5", "bus_bandwidth", "from 1 to 1e15"},
      {"\"bus_bandwidth\": 1.5e15", "bus_bandwidth", "from 1 to 1e15"},
      {"\"bus_bandwidth\": -12e9", "bus_bandwidth", "from 1 to 1e15"},
      {"\"bus_bandwidth\": \"12GB/s\"", "bus_bandwidth", "from 1 to 1e15"},
      {"\"gpu_link_bandwidth\": 0.5", "gpu_link_bandwidth", "0 (none) or"},
      {"\"gpu_link_bandwidth\": 2e15", "gpu_link_bandwidth", "from 1 to 1e15"},
      {"\"gpu_link_bandwidth\": -1", "gpu_link_bandwidth", "from 1 to 1e15"},
      {"\"gpu_bus_bandwidth\": 0.25", "gpu_bus_bandwidth", "from 1 to 1e15"},
      {"\"gpu_bus_bandwidth\": 1e16", "gpu_bus_bandwidth", "from 1 to 1e15"},
      {"\"switch_bandwidth\": 0.5", "switch_bandwidth", "from 1 to 1e15"},
      {"\"switch_bandwidth\": 1e300", "switch_bandwidth", "from 1 to 1e15"},
      {"\"memory_bytes\": 0", "memory_bytes", "2^62"},
      {"\"memory_bytes\": -1", "memory_bytes", "2^62"},
      {"\"memory_bytes\": 4611686018427387905000", "memory_bytes", "2^62"},
      {"\"memory_bytes\": 9.3e18", "memory_bytes", "2^62"},
      {"\"latency_ns\": -1", "latency_ns", "from 0 to 1e12"},
      {"\"latency_ns\": 1.5e12", "latency_ns", "from 0 to 1e12"},
      {"\"latency_ns\": 9223372036854775807", "latency_ns", "from 0 to 1e12"},
      {"\"default_gflops\": -1", "default_gflops", "from 1e-6 to 1e9"},
      {"\"default_gflops\": 1e-7", "default_gflops", "from 1e-6 to 1e9"},
      {"\"default_gflops\": 2e9", "default_gflops", "from 1e-6 to 1e9"},
      {"\"cpu_default_gflops\": 5e-324", "cpu_default_gflops", "from 1e-6 to 1e9"},
      {"\"cpu_default_gflops\": 1e10", "cpu_default_gflops", "from 1e-6 to 1e9"},
      {"\"kind_gflops\": [1]", "kind_gflops", "kind: GFlop/s"},
      {"\"kind_gflops\": {\"GEMM\": 1e-9}", "kind_gflops", "from 1e-6 to 1e9"},
      {"\"kind_gflops\": {\"GEMM\": \"fast\"}", "kind_gflops", "from 1e-6 to 1e9"},
      {"\"cpu_kind_gflops\": {\"POTRF\": 1e12}", "cpu_kind_gflops", "from 1e-6 to 1e9"},
      {"\"cpu_kind_gflops\": {\"POTRF\": -3}", "cpu_kind_gflops", "from 1e-6 to 1e9"},
      {"\"gpus\": 0", "gpus", "from 1 to 4096"},
      {"\"gpus\": 4097", "gpus", "from 1 to 4096"},
      {"\"gpus\": 1.5", "gpus", "from 1 to 4096"},
      {"\"gpus\": \"2\"", "gpus", "from 1 to 4096"},
      {"\"gpus\": true", "gpus", "from 1 to 4096"},
      {"\"gpus\": null", "gpus", "from 1 to 4096"},
      {"\"gpus\": 18446744073709551615", "gpus", "from 1 to 4096"},
      {"\"cpus\": -1", "cpus", "from 0 to 4096"},
      {"\"workers_per_memory\": 0", "workers_per_memory", "from 1 to 4096"},
      {"\"gpus_per_switch\": 5000", "gpus_per_switch", "from 0 to 4096"},
      {"\"name\": 3", "name", "a string"},
      {"\"comment\": [\"a\"]", "comment", "a string"},
  };
  for (const auto& c : cases) {
    INFO(c.field);
    CHECK_THAT(error_of(with_field(c.field)),
               Catch::StartsWith("p.json:3: field \"" + c.key + "\": ") && Catch::Contains(c.range));
  }
  // The first error in the file is the one reported, whatever the keys' alphabetical order.
  CHECK_THAT(error_of("{\"format\": 1, \"name\": 3, \"bus_bandwidth\": 0}"), Catch::StartsWith("p.json:1: field \"name\""));
  CHECK_THAT(error_of(with_field("\"kind_gflops\": {\"Z\": -1, \"A\": -1}")), Catch::Contains("the rate of \"Z\""));
  // A bad rate inside the object is refused on its own line, with its kind.
  CHECK(error_of(with_field("\"kind_gflops\": {\n    \"GEMM\": 100,\n    \"POTRF\": 1e-7\n  }")) ==
        "p.json:5: field \"kind_gflops\": the rate of \"POTRF\": expected 0 (no kernel there) or a number of GFlop/s from 1e-6 to 1e9");

  // The ends of each range are accepted.
  auto edges = read_text(
      "{\"format\": 1, \"bus_bandwidth\": 1, \"gpu_link_bandwidth\": 1e15, \"gpu_bus_bandwidth\": 0, \"switch_bandwidth\": 1,"
      " \"memory_bytes\": 4611686018427387904, \"latency_ns\": 1e12, \"default_gflops\": 1e-6, \"cpu_default_gflops\": 1e9,"
      " \"kind_gflops\": {\"GEMM\": 0, \"POTRF\": 1e9}, \"gpus\": 4096, \"cpus\": 0, \"gpus_per_switch\": 0, \"workers_per_memory\": 4096}");
  INFO((edges.ok() ? "" : edges.error().message));
  REQUIRE(edges.ok());
  CHECK(edges->bus_bandwidth == 1);
  CHECK(edges->gpu_link_bandwidth == 1e15);
  CHECK(edges->memory_bytes == std::ldexp(1.0, 62));
  CHECK(edges->latency_ns == 1000000000000);
  CHECK(edges->default_gflops == 1e-6);
  CHECK(edges->kind_gflops.at("GEMM") == 0);
  CHECK(edges->gpus == 4096);
}

TEST_CASE("every preset is written and read back identically", "[platform-io]") {
  const auto same = [](const Platform& a, const Platform& b) {
    return a.name == b.name && a.gpus == b.gpus && a.memory_bytes == b.memory_bytes && a.bus_bandwidth == b.bus_bandwidth &&
           a.gpu_link_bandwidth == b.gpu_link_bandwidth && a.gpu_bus_bandwidth == b.gpu_bus_bandwidth &&
           a.gpus_per_switch == b.gpus_per_switch && a.switch_bandwidth == b.switch_bandwidth && a.latency_ns == b.latency_ns &&
           a.default_gflops == b.default_gflops && a.kind_gflops == b.kind_gflops &&
           a.workers_per_memory == b.workers_per_memory && a.cpus == b.cpus && a.cpu_default_gflops == b.cpu_default_gflops &&
           a.cpu_kind_gflops == b.cpu_kind_gflops;
  };
  std::vector<Platform> platforms;
  for (const auto& preset : platform_presets()) platforms.push_back(preset.platform);
  Platform odd = platforms.front();  // doubles without a short decimal form, and a name to escape
  odd.name = "caf\xC3\xA9 \"H100\"\t\\ \x01";
  odd.memory_bytes = 1.0 / 3 * 1e9;
  odd.bus_bandwidth = 53.5e9 + 1.0 / 7;
  odd.default_gflops = 0.1 + 0.2;
  odd.kind_gflops = {{"GEMM", 37132.5}, {"POTRF", 1e-6}, {"SYRK", 0}, {"TRSM", 1e9}};
  odd.cpu_kind_gflops = {{"GEMM", 1.0 / 3}};
  odd.latency_ns = 999999999999;
  platforms.push_back(odd);
  for (const auto& platform : platforms) {
    INFO(platform.name);
    const std::string text = written(platform, "from preset \xE2\x80\x9C" + platform.name + "\xE2\x80\x9D");
    auto back = read_text(text);
    INFO(text);
    INFO((back.ok() ? "" : back.error().message));
    REQUIRE(back.ok());
    CHECK(same(*back, platform));
    CHECK(written(*back, "from preset \xE2\x80\x9C" + platform.name + "\xE2\x80\x9D") == text);
  }
  // The fields in the documented order, two spaces of indent, whole numbers without ".0".
  const std::string text = written(platforms.front(), "c");
  CHECK_THAT(text, Catch::StartsWith("{\n  \"format\": 1,\n  \"comment\": \"c\",\n  \"name\": "));
  std::size_t at = 0;
  for (const char* key : {"format", "comment", "name", "gpus", "memory_bytes", "bus_bandwidth", "gpu_link_bandwidth",
                          "gpu_bus_bandwidth", "gpus_per_switch", "switch_bandwidth", "latency_ns", "default_gflops",
                          "kind_gflops", "workers_per_memory", "cpus", "cpu_default_gflops", "cpu_kind_gflops"}) {
    const auto found = text.find("\n  \"" + std::string(key) + "\": ", at);
    INFO(key);
    REQUIRE(found != std::string::npos);
    at = found;
  }
  CHECK(text.find(".0,") == std::string::npos);
  CHECK(written(platforms.front()).find("\"comment\"") == std::string::npos);

  // Many kinds read and write back in linear time (an ordered object's insert searched every
  // key: 100,000 kinds took a minute).
  Platform many = platforms.front();
  for (int k = 0; k < 50000; ++k) many.kind_gflops["kind" + std::to_string(k)] = 1 + k;
  const std::string many_text = written(many);
  auto many_back = read_text(many_text);
  REQUIRE(many_back.ok());
  CHECK(many_back->kind_gflops == many.kind_gflops);
}

TEST_CASE("json_escape gives valid JSON in UTF-8 for any bytes, U+FFFD for what is not UTF-8", "[platform-io][units]") {
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(json_escape("a\"b\\c\n\x01\x7F") == "a\\\"b\\\\c\\u000a\\u0001\x7F");
  CHECK(json_escape("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  CHECK(json_escape("caf\xE9!") == "caf" + fffd + "!");                          // Latin-1
  CHECK(json_escape("\xC0\xAF") == fffd + fffd);                                 // overlong '/'
  CHECK(json_escape("\xE0\x80\xAF") == fffd + fffd + fffd);                      // overlong, three bytes
  CHECK(json_escape("\xED\xA0\x80") == fffd + fffd + fffd);                      // a surrogate
  CHECK(json_escape("\xF4\x90\x80\x80") == fffd + fffd + fffd + fffd);           // past U+10FFFF
  CHECK(json_escape("\xF5\xFF") == fffd + fffd);
  CHECK(json_escape("\xE2\x82") == fffd);                                        // cut at the end
  CHECK(json_escape("\xE2\x82" "A") == fffd + "A");                              // cut before a character
  CHECK(json_escape("\xF0\x9F\x98") == fffd);
  CHECK(json_escape("\x80\x80") == fffd + fffd);                                 // lone continuation bytes
  std::mt19937 random(16);
  for (int round = 0; round < 2000; ++round) {
    std::string bytes(random() % 24, '\0');
    for (auto& b : bytes) b = static_cast<char>(round % 2 ? random() % 256 : 0x80 + random() % 128);
    const std::string escaped = json_escape(bytes);
    INFO(round);
    REQUIRE_NOTHROW(nlohmann::json::parse("\"" + escaped + "\""));
    // Valid UTF-8 without anything to escape goes through unchanged (nlohmann refuses raw
    // control characters, and the quote and backslash are left out).
    if (bytes.find_first_of("\"\\") == std::string::npos && nlohmann::json::accept("\"" + bytes + "\"")) CHECK(escaped == bytes);
  }
}

TEST_CASE("the CLI's JSON summary stays valid: non-finite numbers are null, bad bytes U+FFFD", "[platform-io][cli]") {
  RunInfo run;
  run.tilelens_version = "0.1.0";
  run.workload_spec = "matmul2d:N=4 \"quoted\" caf\xE9";
  run.scheduler = "eager";
  run.eviction = "lru";
  run.platform.memory_bytes = std::numeric_limits<double>::infinity();
  RunMetrics metrics;
  metrics.summary.gflops = std::numeric_limits<double>::quiet_NaN();
  metrics.summary.bytes_loaded = 3;
  metrics.lower_bound_bytes = 2;
  metrics.bus_limit_bytes = -std::numeric_limits<double>::infinity();
  std::ostringstream out;
  cli::print_json(run, metrics, out);
  INFO(out.str());
  const auto json = nlohmann::ordered_json::parse(out.str());
  CHECK(json["memory_bytes"].is_null());
  CHECK(json["gflops"].is_null());
  CHECK(json["bus_limit_bytes"].is_null());
  CHECK(json["workload"] == "matmul2d:N=4 \"quoted\" caf\xEF\xBF\xBD");
  CHECK_THAT(out.str(), Catch::Contains(",\"ratio_to_lower_bound\":1.500000,") && Catch::EndsWith("\"worker_tasks\":[]}\n"));
  CHECK(json.begin().key() == "tilelens_version");
}
