// libFuzzer target for the StarPU importer: the input is a tasks.rec, optionally followed by
// a line "%%" and a data.rec. Whatever the bytes, the importer must return a workload or an
// error, never crash, and what it returns must hold together. Built by scripts/fuzz.sh with
// clang; CTest runs the checked-in corpus through the same function (corpus_main.cpp).
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "formats/starpu_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(bytes), size);
  const auto split = input.find("\n%%\n");
  std::istringstream tasks(input.substr(0, split));
  std::istringstream data(split == std::string::npos ? std::string() : input.substr(split + 4));
  auto imported = tilelens::import_starpu(tasks, "tasks.rec", split == std::string::npos ? nullptr : &data, "data.rec", "fuzz");
  if (!imported) {
    if (imported.error().message.empty()) std::abort();  // every error says what is wrong
    return 0;
  }
  const auto& w = imported->workload;
  if (imported->trace.tasks.size() + imported->unexecuted_tasks != w.task_count()) std::abort();
  for (const auto& r : imported->trace.tasks) {
    if (r.task >= w.task_count() || r.gpu >= imported->workers.size() || r.end_ns < r.start_ns) std::abort();
  }
  return 0;
}
