// libFuzzer target for the workload file reader (formats/workload_io.hpp): whatever the bytes,
// read_workload returns a workload or an error naming the file, and a workload it accepts
// writes and reads back to the same text with true totals (fuzz_check.hpp). Built by
// scripts/fuzz.sh with clang; CTest replays tests/fuzz/workload through it (corpus_main.cpp).
#include <cstdint>
#include <sstream>
#include <string>

#include "formats/workload_io.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string source = "fuzz.workload";
  std::istringstream in(std::string(reinterpret_cast<const char*>(bytes), size));
  auto read = tilelens::read_workload(in, source);
  if (!read) {
    tilelens::fuzz::check_error(read.error(), source);
    return 0;
  }
  tilelens::fuzz::check_workload(*read);
  return 0;
}
