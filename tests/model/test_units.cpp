// Units people type: sizes, memory in data items, bandwidths, durations, rates; and the order
// of priority queues (PriorityFifo against a set of PriorityKeys).
#include <catch2/catch.hpp>
#include <set>

#include "model/params.hpp"
#include "model/priority_key.hpp"
#include "model/units.hpp"
#include "util/rng.hpp"

using namespace tilelens;

TEST_CASE("sizes use decimal and binary prefixes", "[units]") {
  CHECK(*parse_bytes("500MB") == Approx(500e6));
  CHECK(*parse_bytes("500MiB") == Approx(500.0 * 1048576));
  CHECK(*parse_bytes("1.5GiB") == Approx(1.5 * 1073741824.0));
  CHECK(*parse_bytes("4096") == Approx(4096));
  CHECK(*parse_bytes("2 GB") == Approx(2e9));
}

TEST_CASE("bad sizes are refused with a message naming the text", "[units]") {
  auto zero = parse_bytes("0MB");
  REQUIRE_FALSE(zero.ok());
  CHECK_THAT(zero.error().message, Catch::Contains("greater than zero"));
  auto unit = parse_bytes("12parsecs");
  REQUIRE_FALSE(unit.ok());
  CHECK_THAT(unit.error().message, Catch::Contains("parsecs"));
  CHECK_FALSE(parse_bytes("-5MB").ok());
  CHECK_FALSE(parse_bytes("MB").ok());
}

TEST_CASE("memory can be a count of data items", "[units]") {
  auto items = parse_memory("4items");
  REQUIRE(items.ok());
  CHECK(items->items == 4);
  CHECK(parse_memory("250MiB")->bytes == Approx(250.0 * 1048576));
  CHECK_FALSE(parse_memory("0items").ok());
  CHECK_FALSE(parse_memory("2.5items").ok());
  CHECK_FALSE(parse_memory("0").ok());
}

TEST_CASE("bandwidths, durations and rates", "[units]") {
  CHECK(*parse_bandwidth("12GB/s") == Approx(12e9));
  CHECK(*parse_bandwidth("900MiB/s") == Approx(900.0 * 1048576));
  CHECK_FALSE(parse_bandwidth("12GB").ok());
  CHECK_FALSE(parse_bandwidth("0GB/s").ok());
  CHECK(*parse_duration_ns("10us") == 10000);
  CHECK(*parse_duration_ns("2ms") == 2000000);
  CHECK(*parse_duration_ns("0") == 0);
  CHECK_FALSE(parse_duration_ns("10").ok());
  CHECK(*parse_gflops("13393GFlop/s") == Approx(13393));
  CHECK(*parse_gflops("34TFlop/s") == Approx(34000));
  CHECK_FALSE(parse_gflops("-1GFlop/s").ok());
}

TEST_CASE("specs parse and unknown parameters list the valid ones", "[units]") {
  auto spec = parse_spec("matmul2d:N=20,n=4");
  REQUIRE(spec.ok());
  CHECK(spec->name == "matmul2d");
  CHECK(spec->values.at("N") == "20");
  auto params = Params::bind(*spec, {{"N", "10", ""}, {"n", "4", ""}, {"b", "960", ""}}, "workload");
  REQUIRE(params.ok());
  CHECK(params->canonical() == "matmul2d:N=20,b=960,n=4");
  auto bad = Params::bind(*parse_spec("x:Q=1"), {{"N", "10", ""}}, "workload");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("unknown parameter 'Q'") && Catch::Contains("valid: N"));
  CHECK_FALSE(parse_spec("x:N").ok());
  CHECK_FALSE(parse_spec("x:N=1,N=2").ok());
}

// The app writes every size in powers of 1024, as the papers' memories are given: three
// significant digits, no trailing zeros, one unit whatever the size.
TEST_CASE("binary sizes read as the papers' memories", "[units]") {
  CHECK(format_binary_bytes(250.0 * 1048576) == "250 MiB");
  CHECK(format_binary_bytes(262144000) == "250 MiB");
  CHECK(format_binary_bytes(14.75 * 1048576) == "14.8 MiB");
  CHECK(format_binary_bytes(1.25 * 1073741824) == "1.25 GiB");
  CHECK(format_binary_bytes(2.0 * 1073741824) == "2 GiB");
  CHECK(format_binary_bytes(900 * 1024) == "900 KiB");
  CHECK(format_binary_bytes(512) == "512 B");
  CHECK(format_binary_bytes(0) == "0 B");
}

TEST_CASE("PriorityFifo serves what a set of PriorityKeys serves: the highest priority first, then the first arrived", "[model]") {
  Rng rng(5);
  for (int round = 0; round < 50; ++round) {
    PriorityFifo fifo;
    std::set<PriorityKey> reference;
    std::uint64_t arrivals = 0;
    // Some rounds draw from few priorities (runs in order), some from many (mostly out of order).
    const std::uint64_t spread = round % 2 == 0 ? 3 : 1000;
    for (int step = 0; step < 500; ++step) {
      if (reference.empty() || rng.below(3) != 0) {
        const auto priority = static_cast<std::int64_t>(rng.below(spread)) - 1;
        const auto task = static_cast<TaskId>(step);
        fifo.push(priority, task);
        reference.insert(PriorityKey{priority, arrivals++, task});
      } else {
        REQUIRE_FALSE(fifo.empty());
        REQUIRE(fifo.front() == reference.begin()->task);
        fifo.pop_front();
        reference.erase(reference.begin());
      }
    }
    while (!reference.empty()) {
      REQUIRE(fifo.front() == reference.begin()->task);
      fifo.pop_front();
      reference.erase(reference.begin());
    }
    CHECK(fifo.empty());
  }
}
