// The starpu_replay export (formats/starpu_replay.hpp): tasks.rec holds the workload's graph,
// order, priorities and sizes as StarPU's replay tool reads them, each kind's performance model
// gives the platform's kernel times, a run's sched.rec imposes its mapping and per-worker order,
// and a run's tasks.rec reads back through tilelens's own StarPU import.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "formats/starpu_import.hpp"
#include "formats/starpu_replay.hpp"
#include "helpers.hpp"

using namespace tilelens;
using namespace tilelens::test;

namespace {

using Record = std::map<std::string, std::string>;

// Records separated by empty lines, "Field: value" per line.
std::vector<Record> records_of(const std::string& text) {
  std::vector<Record> records(1);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) {
      if (!records.back().empty()) records.emplace_back();
      continue;
    }
    const auto colon = line.find(": ");
    REQUIRE(colon != std::string::npos);
    records.back()[line.substr(0, colon)] = line.substr(colon + 2);
  }
  if (records.back().empty()) records.pop_back();
  return records;
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

// kind -> footprint -> mean (us), from a model file's entry lines, for its first combination.
std::map<std::string, double> model_means(const std::string& text, std::size_t& combinations) {
  std::map<std::string, double> means;
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> values;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    values.push_back(line);
  }
  // version, combinations, then per combination: 1 device, type, id, cores, 1 implementation,
  // the entry count, the two regression lines, 0 (no multiple regression), then the entries.
  REQUIRE(values.size() > 2);
  CHECK(values[0] == "45");
  combinations = std::stoul(values[1]);
  CHECK(values[2] == "1");
  CHECK(values[3] == "1");  // STARPU_CUDA_WORKER
  CHECK(values[4] == "0");  // device 0
  const std::size_t entries = std::stoul(values[7]);
  for (std::size_t e = 0; e < entries; ++e) {
    const auto fields = words(values[11 + e]);
    REQUIRE(fields.size() == 8);
    means[fields[0]] = std::stod(fields[3]);
    CHECK(fields[7] == "10");
  }
  return means;
}

}  // namespace

TEST_CASE("starpu_replay export: tasks.rec holds the graph, order, priorities and sizes, the models the kernel times",
          "[formats][starpu-replay]") {
  const Workload w = generated("cholesky:N=5,b=64");
  Platform p = small_platform(3.0 * 1024 * 1024, 2);
  p.kind_gflops["POTRF"] = 500;
  const TempFile folder("replay-export");
  REQUIRE(write_starpu_replay(w, p, 2, folder.path).ok());
  const std::filesystem::path root(folder.path);
  CHECK(std::filesystem::exists(root / ".starpu" / "sampling" / "bus" / "tilelens.platform.v4.xml"));
  CHECK_FALSE(std::filesystem::exists(root / "sched.rec"));

  const auto records = records_of(file_text((root / "tasks.rec").string()));
  REQUIRE(records.size() == w.task_count());
  std::map<std::string, std::vector<std::string>> footprints;  // kind -> footprint of each task
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    const TaskId t = w.submission_order()[i];
    INFO(w.task_label(t));
    CHECK(r.at("SubmitOrder") == std::to_string(i + 1));
    CHECK(r.at("JobId") == std::to_string(t + 1));
    CHECK(r.at("Name") == w.kinds()[w.tasks()[t].kind]);
    CHECK(r.at("Model") == r.at("Name"));
    CHECK(r.at("WorkerId") == "0");
    CHECK(r.count("StartTime") == 0);
    std::vector<std::string> predecessors;
    for (TaskId q : w.predecessors(t)) predecessors.push_back(std::to_string(q + 1));
    CHECK(words(r.count("DependsOn") ? r.at("DependsOn") : "") == predecessors);
    const auto accesses = w.accesses(t);
    const auto handles = words(r.at("Handles")), modes = words(r.at("Modes")), sizes = words(r.at("Sizes"));
    REQUIRE(handles.size() == accesses.size());
    CHECK(words(r.at("Parameters")).size() == accesses.size());  // starpu_replay counts parameters by their blanks
    for (std::size_t a = 0; a < accesses.size(); ++a) {
      CHECK(std::stoul(handles[a], nullptr, 16) == 0x100000 + accesses[a].data * 0x100u);
      CHECK(modes[a] == to_string(accesses[a].mode));
      CHECK(sizes[a] == std::to_string(w.data()[accesses[a].data].bytes));
    }
    CHECK(std::stod(r.at("GFlop")) * 1e9 == Approx(w.tasks()[t].flops).epsilon(1e-15));
    footprints[r.at("Name")].push_back(r.at("Footprint"));
  }
  // Priorities keep their order as ranks.
  for (std::size_t i = 0; i < records.size(); ++i) {
    for (std::size_t j = 0; j < records.size(); ++j) {
      const TaskId a = w.submission_order()[i], b = w.submission_order()[j];
      if (w.tasks()[a].priority < w.tasks()[b].priority) CHECK(std::stol(records[i].at("Priority")) < std::stol(records[j].at("Priority")));
    }
  }

  for (const std::string& kind : w.kinds()) {
    INFO(kind);
    std::size_t combinations = 0;
    const auto means = model_means(file_text((root / ".starpu" / "sampling" / "codelets" / "45" / (kind + ".tilelens")).string()), combinations);
    CHECK(combinations == 2);  // one per simulated GPU
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (records[i].at("Name") != kind) continue;
      const TaskId t = w.submission_order()[i];
      REQUIRE(means.count(records[i].at("Footprint")) == 1);
      CHECK(means.at(records[i].at("Footprint")) == Approx(w.tasks()[t].flops / (p.gflops_of(kind) * 1e9) * 1e6).epsilon(1e-15));
    }
  }
}

TEST_CASE("starpu_replay export of a run: sched.rec imposes its mapping and order, and its tasks.rec imports back",
          "[formats][starpu-replay]") {
  const Workload w = generated("cholesky:N=6,b=512");  // 1 MiB tiles: StarPU limits memory in whole MiB
  const Platform p = small_platform(6.0 * 1024 * 1024, 2);
  const Run run = run_replay(w, "dmda", "lru", p, 2);
  const TempFile folder("replay-export-run");
  const auto written = write_starpu_replay(w, p, 2, folder.path, run.trace.tasks);
  INFO((written.ok() ? "" : written.error().message));
  REQUIRE(written.ok());
  const std::filesystem::path root(folder.path);

  std::map<TaskId, const TaskRecord*> ran;
  for (const TaskRecord& record : run.trace.tasks) ran[record.task] = &record;
  const auto sched = records_of(file_text((root / "sched.rec").string()));
  REQUIRE(sched.size() == w.task_count());
  std::map<std::string, std::vector<std::pair<std::uint32_t, std::uint32_t>>> places;  // worker -> (gpu_order, Workerorder)
  for (std::size_t i = 0; i < sched.size(); ++i) {
    const TaskId t = w.submission_order()[i];
    CHECK(sched[i].at("SubmitOrder") == std::to_string(i + 1));
    CHECK(sched[i].at("SpecificWorker") == std::to_string(ran.at(t)->gpu));
    places[sched[i].at("SpecificWorker")].push_back({ran.at(t)->gpu_order, static_cast<std::uint32_t>(std::stoul(sched[i].at("Workerorder")))});
  }
  CHECK(places.size() == 2);
  for (auto& [worker, order] : places) {
    std::sort(order.begin(), order.end());
    for (std::size_t k = 0; k < order.size(); ++k) CHECK(order[k].second == k + 1);  // 1, 2, ... in the run's order
  }

  // The run's tasks.rec is a record of the run: StarPU's importer reads the same graph, each
  // task on its worker, in the run's order there.
  const auto imported = import_starpu_files((root / "tasks.rec").string(), "", "", {});
  REQUIRE(imported.ok());
  CHECK(imported->workload.task_count() == w.task_count());
  CHECK(imported->workload.dependency_count() == w.dependency_count());
  std::map<GpuId, std::vector<double>> replayed, read_back;  // per GPU, the flops of its tasks in order
  for (const TaskRecord& record : run.trace.tasks) replayed[record.gpu].push_back(w.tasks()[record.task].flops);
  std::vector<TaskRecord> imported_tasks = imported->trace.tasks;
  std::sort(imported_tasks.begin(), imported_tasks.end(), [](const TaskRecord& a, const TaskRecord& b) { return a.start_ns < b.start_ns; });
  for (const TaskRecord& record : imported_tasks) read_back[record.gpu].push_back(imported->workload.tasks()[record.task].flops);
  CHECK(read_back == replayed);
}

TEST_CASE("starpu_replay export refuses a run that did not run every task, and kinds StarPU cannot name", "[formats][starpu-replay]") {
  const Workload w = generated("cholesky:N=4,b=64");
  const Platform p = small_platform(1e9, 1);
  const Run run = run_replay(w, "eager", "lru", p, 2);
  const TempFile folder("replay-export-refused");
  std::vector<TaskRecord> partial(run.trace.tasks.begin(), run.trace.tasks.end() - 1);
  const auto missing = write_starpu_replay(w, p, 2, folder.path, partial);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("did not run task") != std::string::npos);
  std::vector<TaskRecord> twice = run.trace.tasks;
  twice.push_back(twice.front());
  const auto repeated = write_starpu_replay(w, p, 2, folder.path, twice);
  REQUIRE_FALSE(repeated.ok());
  CHECK(repeated.error().message.find("twice") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(std::filesystem::path(folder.path) / "tasks.rec"));  // refused before writing

  WorkloadBuilder b("slashed");
  const KindId kind = b.kind("my/kernel");
  const DataId d = b.add_data({"x", 1024});
  const Access access{d, AccessMode::ReadWrite};
  b.add_task(kind, std::span<const Access>(&access, 1), 1e6);
  const Workload slashed = *std::move(b).finish();
  const auto refused = write_starpu_replay(slashed, p, 2, folder.path);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("my/kernel") != std::string::npos);
}

TEST_CASE("starpu_replay export: a task of no flops lasts a nanosecond and a task without data names none, which starpu_replay can run", "[formats][starpu-replay]") {
  WorkloadBuilder b("empty-kernel");
  const KindId kind = b.kind("NOP");
  const DataId d = b.add_data({"x", 1024});
  const Access access{d, AccessMode::ReadWrite};
  b.add_task(kind, std::span<const Access>(&access, 1), 0);
  b.add_task(kind, std::span<const Access>(&access, 1), 2e9);
  b.add_task(kind, {}, 2e9);  // no data at all (an imported trace's marker task)
  const Workload w = *std::move(b).finish();
  const Platform p = small_platform(64.0 * 1024 * 1024, 1);
  const TempFile folder("replay-export-nop");
  REQUIRE(write_starpu_replay(w, p, 2, folder.path).ok());
  std::size_t combinations = 0;
  const auto means = model_means(file_text((std::filesystem::path(folder.path) / ".starpu" / "sampling" / "codelets" / "45" / "NOP.tilelens").string()),
                                 combinations);
  REQUIRE(means.size() == 2);  // one footprint per size
  CHECK(means.at("00000000") == 1e-3);
  CHECK(means.at("00000001") == Approx(2e9 / (p.gflops_of("NOP") * 1e9) * 1e6));
  // The task without data has no Parameters, Handles, Modes or Sizes: starpu_replay would read an
  // empty Parameters line as one parameter.
  const auto records = records_of(file_text((std::filesystem::path(folder.path) / "tasks.rec").string()));
  REQUIRE(records.size() == 3);
  CHECK(records[2].count("Parameters") == 0);
  CHECK(records[2].count("Handles") == 0);
  CHECK(records[1].at("Handles") == "0x100000");
}
