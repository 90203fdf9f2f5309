// The workload file format: round trips, and malformed files reported with file:line:field.
#include <catch2/catch.hpp>
#include <sstream>

#include "helpers.hpp"
#include "formats/workload_io.hpp"

using namespace tilelens;

namespace {
Result<Workload> parse(const std::string& text) {
  std::istringstream in(text);
  return read_workload(in, "bad.workload");
}
const std::string kHeader = "tilelens-workload 1\nname t\nkind GEMM\ndata 100 A 0 -1 A0\ndata 100 B -1 0 B0\n";
}  // namespace

TEST_CASE("every seed workload survives a write and a read unchanged", "[io]") {
  for (const std::string spec : {"matmul2d:N=5", "matmul3d:N=3", "cholesky-tasks:N=4", "matmul2d-random-order:N=4,seed=9",
                                 "matmul2d-random-pairs:N=4", "matmul2d-sparse:N=6,density=0.3", "cholesky:N=4", "lu:N=4"}) {
    INFO(spec);
    const Workload w = test::generated(spec);
    std::ostringstream first;
    REQUIRE(write_workload(w, first).ok());
    auto back = parse(first.str());
    REQUIRE(back.ok());
    std::ostringstream second;
    REQUIRE(write_workload(*back, second).ok());
    CHECK(first.str() == second.str());
    CHECK(back->task_count() == w.task_count());
    CHECK(back->dependency_count() == w.dependency_count());
    CHECK(back->submission_order() == w.submission_order());
    CHECK(back->generator().name == w.generator().name);
    CHECK(back->generator().N == w.generator().N);
    CHECK(back->working_set_bytes() == w.working_set_bytes());
  }
}

TEST_CASE("malformed workload files name the line and the field", "[io][errors]") {
  auto header = parse("tilelens-workload 7\n");
  REQUIRE_FALSE(header.ok());
  CHECK_THAT(header.error().message, Catch::StartsWith("bad.workload:1:") && Catch::Contains("version 7"));

  auto flops = parse(kHeader + "task GEMM lots 0 0 0 0 R:0 R:1\n");
  REQUIRE_FALSE(flops.ok());
  CHECK_THAT(flops.error().message, Catch::StartsWith("bad.workload:6: field 'flops'"));

  auto data = parse(kHeader + "task GEMM 10 0 0 0 0 R:0 R:7\n");
  REQUIRE_FALSE(data.ok());
  CHECK_THAT(data.error().message, Catch::StartsWith("bad.workload:6: field 'access'") && Catch::Contains("data 7"));

  auto mode = parse(kHeader + "task GEMM 10 0 0 0 0 X:0\n");
  REQUIRE_FALSE(mode.ok());
  CHECK_THAT(mode.error().message, Catch::Contains(":6:") && Catch::Contains("not R, W or RW"));

  auto size = parse("tilelens-workload 1\ndata 0 A 0 0 A0\n");
  REQUIRE_FALSE(size.ok());
  CHECK_THAT(size.error().message, Catch::StartsWith("bad.workload:2: field 'bytes'"));

  auto kind = parse(kHeader + "task TRSM 10 0 0 0 0 R:0\n");
  REQUIRE_FALSE(kind.ok());
  CHECK_THAT(kind.error().message, Catch::Contains(":6: field 'kind'"));

  auto record = parse(kHeader + "tsk GEMM\n");
  REQUIRE_FALSE(record.ok());
  CHECK_THAT(record.error().message, Catch::Contains(":6:") && Catch::Contains("unknown record 'tsk'"));

  auto cycle = parse(kHeader + "task GEMM 1 0 0 0 0 R:0\ntask GEMM 1 0 0 0 0 R:1\ndep 0 1\ndep 1 0\n");
  REQUIRE_FALSE(cycle.ok());
  CHECK_THAT(cycle.error().message, Catch::StartsWith("bad.workload:") && Catch::Contains("cycle"));

  CHECK_FALSE(parse("").ok());
  CHECK_FALSE(parse("hello\n").ok());
}

TEST_CASE("a datum first written keeps its home through the file, and `home` on any other datum means nothing and is dropped", "[io]") {
  auto w = parse("tilelens-workload 1\nname homes\nkind K\ndata 10 A 0 0 fresh\ndata 10 A 1 0 disk home\ndata 10 A 2 0 read home\n"
                 "data 10 A 3 0 unused home\ntask K 1 0 0 0 0 W:0 W:1 R:2\n");
  REQUIRE(w.ok());
  CHECK_FALSE(w->data()[0].home);
  CHECK(w->data()[1].home);
  CHECK_FALSE(w->data()[2].home);  // first read: it starts on the host anyway
  CHECK_FALSE(w->data()[3].home);  // never accessed
  std::ostringstream out;
  REQUIRE(write_workload(*w, out).ok());
  CHECK_THAT(out.str(), Catch::Contains("data 10 A 1 0 disk home\n") && Catch::Contains("data 10 A 2 0 read\n") &&
                            Catch::Contains("data 10 A 0 0 fresh\n"));
  auto back = parse(out.str());
  REQUIRE(back.ok());
  CHECK(back->data()[1].home);
  std::ostringstream again;
  REQUIRE(write_workload(*back, again).ok());
  CHECK(again.str() == out.str());

  auto other = parse(kHeader + "data 10 A 1 0 C0 homely\n");
  REQUIRE_FALSE(other.ok());
  CHECK_THAT(other.error().message, Catch::StartsWith("bad.workload:6: field 'data'") && Catch::Contains("only 'home'"));
  auto more = parse(kHeader + "data 10 A 1 0 C0 home home\n");
  REQUIRE_FALSE(more.ok());
  CHECK_THAT(more.error().message, Catch::StartsWith("bad.workload:6: field 'data'"));
}

TEST_CASE("the example workload shipped in resources/ replays as its comment says", "[io]") {
  auto w = load_workload(std::string(TILELENS_RESOURCES) + "/workloads/belady-example.workload");
  INFO((w.ok() ? "" : w.error().message));
  REQUIRE(w.ok());
  CHECK(w->task_count() == 5);
  CHECK(w->data_count() == 6);
  const Platform p = test::small_platform(3 * 1000);
  CHECK(test::run_replay(*w, "eager", "lru", p, 1).summary.loads == 7);
  CHECK(test::run_replay(*w, "eager", "belady", p, 1).summary.loads == 6);
}

// Issue 33: a 100 MB bad line produced 104 MB on stderr. Every quoted input stops at 200
// characters and says how long it was (util/quoted.hpp).
TEST_CASE("a huge bad line or number is quoted up to 200 characters, with its length", "[io][errors]") {
  const std::string line(2000000, 'A');
  for (const std::string& text : {"tilelens-workload 1\nname x\nbogus" + line + "\n",
                                  "tilelens-workload 1\nname x\nkind K\ndata 1" + std::string(50000, '0') + "x A 0 0 d\n",
                                  "tilelens-workload 1\nname x\nkind K\ndata 8 A 0 0 d\ntask K 1 0 0 0 0 " + line + "\n"}) {
    const auto read = parse(text);
    REQUIRE_FALSE(read.ok());
    INFO(read.error().message.substr(0, 300));
    CHECK(read.error().message.size() < 400);
    CHECK_THAT(read.error().message, Catch::StartsWith("bad.workload:") && Catch::Contains(" bytes)"));
  }
}

TEST_CASE("integers at the edges of their types: the extremes read exactly, one past them refused with the field", "[io][errors]") {
  const auto task_line = [](const std::string& priority, const std::string& i, const std::string& data) {
    return parse(kHeader + "task GEMM 10 " + priority + " " + i + " 0 0 R:" + data + "\n");
  };
  auto extremes = task_line("-9223372036854775808", "-2147483648", "1");
  REQUIRE(extremes.ok());
  CHECK(extremes->tasks()[0].priority == std::numeric_limits<std::int64_t>::min());
  CHECK(extremes->tasks()[0].i == std::numeric_limits<std::int32_t>::min());
  auto largest = task_line("9223372036854775807", "2147483647", "0001");  // leading zeros are digits too
  REQUIRE(largest.ok());
  CHECK(largest->tasks()[0].priority == std::numeric_limits<std::int64_t>::max());
  CHECK(largest->tasks()[0].i == std::numeric_limits<std::int32_t>::max());
  CHECK(largest->accesses(0)[0].data == 1);
  auto nine_digits = task_line("-999999999", "999999999", "0");
  REQUIRE(nine_digits.ok());
  CHECK(nine_digits->tasks()[0].priority == -999999999);
  CHECK(nine_digits->tasks()[0].i == 999999999);

  for (const auto& [line, field] : std::vector<std::pair<Result<Workload>, std::string>>{
           {task_line("9223372036854775808", "0", "0"), "priority"},
           {task_line("0", "2147483648", "0"), "i"},
           {task_line("0", "-2147483649", "0"), "i"},
           {task_line("0", "0", "4294967296"), "access"},
           {task_line("0", "0", "-1"), "access"},
           {task_line("0", "1x", "0"), "i"},
           {task_line("-", "0", "0"), "priority"},
           {task_line("+5", "0", "0"), "priority"}}) {
    REQUIRE_FALSE(line.ok());
    CHECK_THAT(line.error().message, Catch::StartsWith("bad.workload:6: field '" + field + "'"));
  }
  // The dep lines' short way refuses what the general one refuses, with the line.
  auto dep = parse(kHeader + "task GEMM 1 0 0 0 0 R:0\ntask GEMM 1 0 0 0 0 R:1\ndep 0 99999999999\n");
  REQUIRE_FALSE(dep.ok());
  CHECK_THAT(dep.error().message, Catch::StartsWith("bad.workload:8:"));
}
