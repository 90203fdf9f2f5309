// Golden outputs: one replay per scheduler x eviction policy x seed workload (small N), on one
// GPU without a prefetch window and on two GPUs with one, plus the engine's other paths (PCIe
// tree, GPU links, latency, CPU workers, shared memories) and scheduler variants. Each run is
// driven through the command line in-process (`tilelens replay ... --json --trace-out`), and
// its JSON summary (wall-clock fields removed) and a hash of its text trace must equal
// tests/golden/replay.txt byte for byte. Refactorings keep behaviour: a change to these
// outputs is a change of behaviour, made on purpose and said in the commit.
//
// To rewrite the file after an intended change: TILELENS_GOLDEN_UPDATE=1 tilelens_tests "[golden]".
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "helpers.hpp"

namespace {

using tilelens::test::cli;
using tilelens::test::file_text;
using tilelens::test::TempFile;

const char* const kGoldenFile = TILELENS_SOURCE_DIR "/tests/golden/replay.txt";

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

// The fields that measure the host's wall clock, not the simulation.
std::string without_wall_clock(const std::string& json) {
  static const std::regex wall(",\"(scheduling_ns|prepare_ns|charged_ns|eviction_ns|(push|pop)_(base|per_task)_ns)\":[0-9.]+");
  return std::regex_replace(json, wall, "");
}

std::vector<std::vector<std::string>> golden_runs() {
  const std::vector<std::string> workloads = {"matmul2d:N=4",          "matmul3d:N=3",
                                              "cholesky-tasks:N=4",    "matmul2d-random-order:N=4",
                                              "matmul2d-random-pairs:N=4", "matmul2d-sparse:N=6,density=0.5",
                                              "cholesky:N=4",          "lu:N=4"};
  const std::vector<std::string> schedulers = {"eager", "random", "cm",  "rcm",  "mst",       "dmda",       "dmdar",      "dmdas",
                                               "lws",   "ap",     "darts", "partition", "hfp", "heteroprio", "laheteroprio"};
  const std::vector<std::string> evictions = {"lru", "fifo", "belady", "luf"};
  const std::vector<std::vector<std::string>> platforms = {{"--gpus", "1", "--memory", "4items", "--buffer", "1"},
                                                           {"--gpus", "2", "--memory", "6items", "--buffer", "4"}};
  std::vector<std::vector<std::string>> runs;
  for (const auto& platform : platforms) {
    for (const auto& workload : workloads) {
      for (const auto& scheduler : schedulers) {
        for (const auto& eviction : evictions) {
          std::vector<std::string> args = {"--workload", workload, "--scheduler", scheduler, "--eviction", eviction};
          args.insert(args.end(), platform.begin(), platform.end());
          runs.push_back(std::move(args));
        }
      }
    }
  }
  // The engine's other paths, and scheduler variants.
  const std::vector<std::vector<std::string>> extra = {
      {"--workload", "cholesky:N=5", "--scheduler", "dmdas", "--platform", "v100x4-darts", "--gpus", "4", "--memory", "8items"},
      {"--workload", "cholesky:N=5", "--scheduler", "darts", "--eviction", "luf", "--platform", "v100x4-darts", "--gpus", "4", "--memory", "8items"},
      {"--workload", "lu:N=5", "--scheduler", "eager", "--platform", "v100x4-darts", "--gpus", "4", "--memory", "8items", "--gpu-link", "0"},
      {"--workload", "matmul2d:N=6", "--scheduler", "darts", "--eviction", "luf", "--gpus", "4", "--memory", "6items", "--bandwidth", "100GB/s", "--pcie", "2:22GB/s:12GB/s"},
      {"--workload", "cholesky:N=5", "--scheduler", "eager", "--latency", "10us", "--gpus", "2", "--memory", "6items"},
      {"--workload", "lu:N=5", "--scheduler", "dmdar", "--gpus", "3", "--gpu-link", "24GB/s", "--memory", "5items"},
      {"--workload", "cholesky:N=6", "--scheduler", "heteroprio", "--platform", "k40x4-24c", "--gpus", "2", "--cpus", "4", "--memory", "6items"},
      {"--workload", "cholesky:N=6", "--scheduler", "laheteroprio", "--platform", "k40x4-24c", "--gpus", "2", "--cpus", "4", "--memory", "6items"},
      {"--workload", "lu:N=5", "--scheduler", "laheteroprio:push=sdh2", "--platform", "k40x4-24c", "--gpus", "2", "--cpus", "3", "--memory", "6items"},
      {"--workload", "lu:N=5", "--scheduler", "dmdas", "--platform", "v100x4-24c", "--gpus", "2", "--cpus", "4", "--memory", "6items"},
      {"--workload", "cholesky:N=5", "--scheduler", "dmdar", "--platform", "xeon-ooc-darts", "--gpus", "4", "--workers-per-memory", "2", "--memory", "6items", "--buffer", "2"},
      {"--workload", "cholesky:N=5", "--scheduler", "darts", "--eviction", "luf", "--platform", "xeon-ooc-darts", "--gpus", "3", "--workers-per-memory", "3", "--memory", "5items"},
      {"--workload", "matmul2d:N=8", "--scheduler", "hfp:flip=0,ready=0", "--eviction", "belady", "--gpus", "2", "--memory", "5items"},
      {"--workload", "matmul2d:N=8", "--scheduler", "hfp:fast_start=1,weighted=0", "--eviction", "belady", "--memory", "4items", "--buffer", "1"},
      {"--workload", "matmul3d:N=4", "--scheduler", "hfp:steal=0", "--eviction", "lru", "--gpus", "3", "--memory", "8items"},
      {"--workload", "matmul2d:N=8", "--scheduler", "darts:first_free=1,scan_limit=4", "--eviction", "luf", "--gpus", "2", "--memory", "5items"},
      {"--workload", "matmul2d:N=8", "--scheduler", "darts:one_from_free=0,bypass=0", "--eviction", "lru", "--gpus", "2", "--memory", "5items"},
      {"--workload", "matmul2d:N=8", "--scheduler", "random:seed=7", "--eviction", "belady", "--memory", "4items", "--buffer", "1"},
      {"--workload", "matmul2d:N=8", "--scheduler", "partition:seed=3,ready=0", "--gpus", "2", "--memory", "5items"},
      {"--workload", "matmul2d-random-pairs:N=6,seed=5", "--scheduler", "dmdar", "--gpus", "2", "--memory", "5items"},
      {"--workload", "cholesky:N=6", "--scheduler", "lws", "--gpus", "3", "--memory", "6items", "--rate", "POTRF=2TFlop/s,GEMM=20TFlop/s"},
      {"--workload", "cholesky:N=6", "--scheduler", "ap", "--gpus", "2", "--memory", "6items", "--bandwidth", "1GB/s"},
      {"--workload", "matmul2d:N=20", "--scheduler", "rcm", "--eviction", "lru", "--memory", "250MiB"},
      // The papers' memory model (each gives what the default gave before StarPU's became the
      // default), StarPU's with overrides, and the bus's copy engines.
      {"--workload", "cholesky:N=5", "--scheduler", "dmdar", "--platform", "xeon-ooc-darts", "--gpus", "4", "--workers-per-memory", "2", "--memory", "6items", "--buffer", "2", "--memory-model", "fgcs"},
      {"--workload", "lu:N=5", "--scheduler", "dmdar", "--gpus", "3", "--gpu-link", "24GB/s", "--memory", "5items", "--memory-model", "fgcs"},
      {"--workload", "matmul2d:N=8", "--scheduler", "hfp", "--eviction", "belady", "--memory", "4items", "--buffer", "1", "--memory-model", "fgcs"},
      {"--workload", "cholesky:N=6", "--scheduler", "lws", "--gpus", "2", "--memory", "6items", "--memory-model", "fgcs"},
      {"--workload", "cholesky:N=8", "--scheduler", "dmda", "--gpus", "2", "--memory", "8items", "--memory-model", "starpu:idle_writeback=0,reclaim=1"},
      {"--workload", "cholesky:N=8", "--scheduler", "eager", "--gpus", "2", "--workers-per-memory", "2", "--memory", "24items", "--buffer", "1", "--copy-engines", "1", "--half-duplex", "1"},
      {"--workload", "lu:N=6", "--scheduler", "lws:steal_head=1", "--gpus", "2", "--memory", "6items", "--copy-engines", "1"},
      {"--workload", "matmul2d:N=20", "--scheduler", "dmdar", "--eviction", "lru", "--memory", "250MiB"},
      {"--workload", "matmul2d:N=20", "--scheduler", "hfp", "--eviction", "belady", "--memory", "250MiB"},
      {"--workload", "cholesky:N=8", "--scheduler", "darts", "--eviction", "luf", "--gpus", "2", "--memory", "120MiB"},
  };
  runs.insert(runs.end(), extra.begin(), extra.end());
  return runs;
}

// One run's golden entry: its command, then its JSON summary, its trace's hash and what
// `runs show` prints of it once stored (per-GPU figures included), or its error.
std::string golden_entry(const std::vector<std::string>& args, const std::string& database) {
  std::string command = "replay";
  for (const auto& arg : args) command += " " + arg;
  TempFile trace_file("golden.trace");
  std::vector<std::string> full = {"replay"};
  full.insert(full.end(), args.begin(), args.end());
  full.insert(full.end(), {"--json", "--trace-out", trace_file.path, "--db", database});
  const auto result = cli(full);
  std::string entry = "# " + command + "\n";
  if (result.code != 0) {
    std::string error = result.err;  // the database's temporary name changes from run to run
    for (auto at = error.find(database); at != std::string::npos; at = error.find(database)) error.replace(at, database.size(), "DB");
    return entry + "exit " + std::to_string(result.code) + ": " + error;
  }
  const std::string text = file_text(trace_file.path);
  const auto lines = std::count(text.begin(), text.end(), '\n');
  char hash[32];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(text)));
  entry += without_wall_clock(result.out) + "trace " + std::to_string(lines) + " lines, fnv1a " + hash + "\n";
  static const std::regex stored("stored run ([0-9]+) in");
  std::smatch id;
  if (!std::regex_search(result.err, id, stored)) return entry + "not stored: " + result.err;
  const auto shown = cli({"runs", "show", id[1].str(), "--db", database});
  std::istringstream lines_shown(shown.out);
  for (std::string line; std::getline(lines_shown, line);) {
    // The run's id, its wall-clock times, the scheduler's measured time and the fit of its
    // decisions' times change from run to run.
    if (line.rfind("run ", 0) == 0 || line.rfind("time ", 0) == 0 || line.rfind("sched. time", 0) == 0 ||
        line.rfind("decisions ", 0) == 0) {
      continue;
    }
    entry += "| " + line + "\n";
  }
  return entry;
}

}  // namespace

TEST_CASE("golden replays: every scheduler x eviction x seed workload gives the stored summary and trace", "[golden]") {
  TempFile database("golden.db");
  std::string actual;
  for (const auto& args : golden_runs()) actual += golden_entry(args, database.path);
  if (const char* update = std::getenv("TILELENS_GOLDEN_UPDATE"); update && std::string(update) == "1") {
    std::ofstream out(kGoldenFile, std::ios::binary);
    out << actual;
    REQUIRE(out.good());
    WARN("rewrote " << kGoldenFile);
    return;
  }
  std::ifstream in(kGoldenFile, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream expected;
  expected << in.rdbuf();
  // Compare entry by entry, so a failure names the run that changed.
  std::istringstream want(expected.str()), got(actual);
  std::string want_line, got_line, command;
  std::size_t line = 0, differences = 0;
  while (true) {
    const bool more_want = static_cast<bool>(std::getline(want, want_line));
    const bool more_got = static_cast<bool>(std::getline(got, got_line));
    if (!more_want && !more_got) break;
    ++line;
    if (more_got && got_line.rfind("# ", 0) == 0) command = got_line;
    if (want_line != got_line || more_want != more_got) {
      ++differences;
      if (differences <= 10) {
        UNSCOPED_INFO("line " << line << " (" << command << ")\n  expected: " << (more_want ? want_line : "<end>")
                              << "\n  actual:   " << (more_got ? got_line : "<end>"));
      }
    }
  }
  CHECK(differences == 0);
}
