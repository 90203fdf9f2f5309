// What every fuzz target checks beyond "does not crash": a broken property is reported by name
// with the evidence, then the process aborts, so libFuzzer keeps the input as a crash and the
// corpus replay (corpus_main.cpp) fails naming the file.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>

#include "formats/workload_io.hpp"

namespace tilelens::fuzz {

[[noreturn]] inline void fail(const char* property, const std::string& evidence = "") {
  std::fprintf(stderr, "fuzz: property broken: %s\n%s\n", property, evidence.c_str());
  std::abort();
}

// An error is something a user can act on: it says what is wrong and in which input.
inline void check_error(const Error& error, const std::string& source) {
  if (error.message.empty()) fail("an error has a message");
  if (error.message.find(source) == std::string::npos) fail("an error names its source", "source " + source + ": " + error.message);
}

// A workload tilelens holds must be one it writes and reads back unchanged (the store keys
// workloads by the hash of that text), with totals that are true sums, not wrapped ones.
inline void check_workload(const Workload& w) {
  std::ostringstream first;
  if (!write_workload(w, first).ok()) fail("a workload is written");
  std::istringstream first_in(first.str());
  auto back = read_workload(first_in, "written.workload");
  if (!back) fail("a workload written reads back", back.error().message + "\n--- written:\n" + first.str());
  std::ostringstream second;
  if (!write_workload(*back, second).ok()) fail("a workload read back is written");
  if (second.str() != first.str()) {
    fail("a workload written and read back writes the same text", "--- first:\n" + first.str() + "--- second:\n" + second.str());
  }

  if (!std::isfinite(w.total_flops())) fail("the total flops are finite");
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t working_set = 0;
  for (DataId d = 0; d < w.data_count(); ++d) {
    if (w.readers(d).empty()) continue;
    const std::uint64_t bytes = w.data()[d].bytes;
    if (bytes > kMax - working_set) {
      fail("the working set fits in 64 bits (else the reader refuses the file)", "data " + std::to_string(d));
    }
    working_set += bytes;
  }
  if (working_set != w.working_set_bytes()) fail("working_set_bytes() is the sum of the data read");
  for (TaskId t = 0; t < w.task_count(); ++t) {
    std::uint64_t footprint = 0;
    for (const Access& a : w.accesses(t)) {
      const std::uint64_t bytes = w.data()[a.data].bytes;
      if (bytes > kMax - footprint) {
        fail("a task's footprint fits in 64 bits (else the reader refuses the file)", "task " + std::to_string(t));
      }
      footprint += bytes;
    }
    if (footprint != w.footprint_bytes(t)) fail("footprint_bytes() is the sum of the task's data");
  }
}

}  // namespace tilelens::fuzz
