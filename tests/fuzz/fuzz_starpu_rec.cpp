// libFuzzer target for the StarPU importer: the input is a tasks.rec, optionally followed by
// a line "%%" and a data.rec, and another "%%" and a paje.trace. Whatever the bytes, the importer must return a workload or an
// error naming the file at fault, never crash, and what it returns must hold together: a
// workload tilelens itself writes and reads back (fuzz_check.hpp), a run on its tasks and
// workers. Built by scripts/fuzz.sh with clang; CTest replays tests/fuzz/starpu through the
// same function (corpus_main.cpp).
#include <cstdint>
#include <sstream>
#include <string>

#include "formats/starpu_import.hpp"
#include "fuzz_check.hpp"

using tilelens::fuzz::fail;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(bytes), size);
  const auto split = input.find("\n%%\n");
  const std::string rest = split == std::string::npos ? std::string() : input.substr(split + 4);
  const auto second = rest.find("\n%%\n");
  std::istringstream tasks(input.substr(0, split));
  std::istringstream data(rest.substr(0, second));
  std::istringstream paje(second == std::string::npos ? std::string() : rest.substr(second + 4));
  tilelens::StarpuSources sources;
  sources.tasks = &tasks;
  if (split != std::string::npos) sources.data = &data;
  if (second != std::string::npos) sources.paje = &paje;
  auto imported = tilelens::import_starpu(sources, {"fuzz", std::nullopt});
  if (!imported) {
    const auto& message = imported.error().message;
    if (message.empty()) fail("an error has a message");
    if (message.find("tasks.rec") == std::string::npos && message.find("data.rec") == std::string::npos &&
        message.find("paje.trace") == std::string::npos) {
      fail("an error names tasks.rec, data.rec or paje.trace", message);
    }
    return 0;
  }
  const auto& w = imported->workload;
  if (imported->trace.tasks.size() + imported->unexecuted_tasks != w.task_count()) fail("every task ran once or is counted as unexecuted");
  for (const auto& r : imported->trace.tasks) {
    if (r.task >= w.task_count() || r.gpu >= imported->lanes.size() || r.end_ns < r.start_ns) {
      fail("each execution names a task and a worker, and ends after it starts");
    }
  }
  for (const auto& l : imported->trace.loads) {
    if (l.data >= w.data_count() || l.gpu >= imported->lanes.size() || l.end_ns < l.issue_ns) fail("each load names a data and a lane, and ends after it starts");
  }
  if (imported->gpus + imported->cpus != imported->lanes.size()) fail("the layout covers every lane");
  for (const auto& warning : imported->report.warnings) {
    if (warning.empty()) fail("a warning has a message");
  }
  tilelens::fuzz::check_workload(w);
  return 0;
}
