// Importing a StarPU execution (tasks.rec, data.rec): the example imports and replays, and
// malformed records are reported with their line and field.
#include <catch2/catch.hpp>
#include <sstream>

#include "formats/starpu_import.hpp"
#include "helpers.hpp"

using namespace tilelens;
using namespace tilelens::test;

namespace {

const std::string kExample = std::string(TILELENS_RESOURCES) + "/starpu/";

Result<StarpuExecution> import_text(const std::string& tasks, const std::string& data = "") {
  std::istringstream tasks_in(tasks), data_in(data);
  return import_starpu(tasks_in, "tasks.rec", data.empty() ? nullptr : &data_in, "data.rec", "test");
}

}  // namespace

TEST_CASE("the StarPU example imports as a workload and a measured run", "[starpu]") {
  auto imported = import_starpu_files(kExample + "tasks.rec", kExample + "data.rec", "cholesky-starpu");
  REQUIRE(imported.ok());
  const Workload& w = imported->workload;
  // Tiled Cholesky with N = 4: 4 POTRF, 6 TRSM, 6 SYRK, 4 GEMM; the WontUse record is not a task.
  CHECK(w.task_count() == 20);
  CHECK(w.data_count() == 10);
  CHECK(w.has_dependencies());
  CHECK(w.data()[0].name == "A_0_0");
  CHECK(w.data()[0].bytes == 960u * 960 * 4);
  CHECK(imported->workers == std::vector<std::int64_t>{4, 5});
  CHECK(imported->unexecuted_tasks == 0);
  CHECK(imported->trace.tasks.size() == 20);
  CHECK(imported->summary.makespan_ns > 0);
  CHECK(imported->summary.gpus.size() == 2);

  // The measured order respects the imported dependencies.
  std::vector<std::int64_t> start(w.task_count()), end(w.task_count());
  for (const auto& r : imported->trace.tasks) {
    start[r.task] = r.start_ns;
    end[r.task] = r.end_ns;
  }
  for (TaskId t = 0; t < w.task_count(); ++t) {
    for (TaskId p : w.predecessors(t)) CHECK(end[p] <= start[t]);
  }
  // And the task set replays under other schedulers.
  for (const char* scheduler : {"eager", "rcm", "mst"}) {
    const Platform platform = small_platform(4.0 * 960 * 960 * 4, 2);
    const Run run = run_replay(w, scheduler, "lru", platform);
    CHECK(check_invariants(w, platform, run).empty());
  }
}

TEST_CASE("import starpu stores the measured run and the workload file replays in a sweep", "[starpu][cli]") {
  TempFile database("starpu.db");
  TempFile workload("starpu.workload");
  const auto imported = cli({"import", "starpu", kExample + "tasks.rec", "--data", kExample + "data.rec", "--db", database.path,
                             "--workload-out", workload.path});
  INFO(imported.err);
  REQUIRE(imported.code == 0);
  CHECK_THAT(imported.out, Catch::Contains("20 tasks") && Catch::Contains("2 workers"));
  const auto sweep = cli({"sweep", "--db", database.path, "--workload", workload.path, "--scheduler", "eager,rcm", "--eviction",
                          "lru,belady", "--memory", "3items", "--quiet"});
  INFO(sweep.err);
  REQUIRE(sweep.code == 0);
  CHECK_THAT(sweep.out, Catch::Contains("4 stored"));
  const auto list = cli({"runs", "list", "--db", database.path});
  CHECK_THAT(list.out, Catch::Contains("starpu") && Catch::Contains("5 runs"));
  const auto show = cli({"runs", "show", "1", "--db", database.path});
  CHECK_THAT(show.out, Catch::Contains("not recorded"));
}

TEST_CASE("without DependsOn the dependencies come from the data accesses", "[starpu]") {
  auto imported = import_text(
      "JobId: 1\nName: w\nHandles: a0\nModes: W\nSizes: 64\n\n"
      "JobId: 2\nName: r\nHandles: a0 b0\nModes: R RW\nSizes: 64 64\nWibble: ignored\n");
  REQUIRE(imported.ok());
  REQUIRE(imported->workload.task_count() == 2);
  CHECK(imported->workload.predecessors(1).size() == 1);
  CHECK(imported->unexecuted_tasks == 2);
  CHECK_FALSE(imported->warnings.empty());
}

TEST_CASE("a dependency through a task without data links its neighbours", "[starpu]") {
  auto imported = import_text(
      "JobId: 1\nHandles: a0\nModes: W\nSizes: 64\n\n"
      "JobId: 2\nDependsOn: 1\n\n"
      "JobId: 3\nDependsOn: 2 77\nHandles: b0\nModes: W\nSizes: 64\n");
  REQUIRE(imported.ok());
  REQUIRE(imported->workload.task_count() == 2);
  REQUIRE(imported->workload.predecessors(1).size() == 1);
  CHECK(imported->workload.predecessors(1)[0] == 0);
  CHECK(imported->warnings.size() == 2);  // the task without data, the unknown job 77
}

TEST_CASE("malformed StarPU records are reported with the line and the field", "[starpu]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"JobId: 1\nHandles: zz\nModes: R\nSizes: 4\n", "tasks.rec:2: field 'Handles': 'zz' is not a hexadecimal number"},
      {"JobId: 1\nHandles: 1 2\nModes: R\nSizes: 4 4\n", "tasks.rec:3: field 'Modes': 1 modes for 2 handles"},
      {"JobId: 1\nHandles: 1\nModes: R\nSizes: 4 4\n", "tasks.rec:4: field 'Sizes': 2 sizes for 1 handles"},
      {"JobId: 1\nHandles: 1\nModes: Q\n", "tasks.rec:3: field 'Modes': 'Q' is not a StarPU access mode"},
      {"JobId: 1\nStartTime: soon\n", "tasks.rec:2: field 'StartTime': 'soon' is not a number"},
      {"JobId: 1\nStartTime: 5\nEndTime: 4\n", "tasks.rec:3: field 'EndTime': ends before StartTime"},
      {"JobId: 1\nGFlop: -2\n", "tasks.rec:2: field 'GFlop': must not be negative"},
      {"JobId: 1\nWorkerId: two\n", "tasks.rec:2: field 'WorkerId': 'two' is not a whole number"},
      {"\n\nthis line is wrong\n", "tasks.rec:3: expected 'Field: value'"},
      {"+ continued\n", "tasks.rec:1: a '+' continuation line"},
      {"Name: dgemm\nModel: m\n", "tasks.rec:1: the record has no JobId field"},
      {"JobId: 1\nHandles: 1\nModes: R\nSizes: 4\n\nJobId: 1\n", "tasks.rec:6: JobId 1 appears twice"},
      {"# only a comment\n", "tasks.rec: no task records"},
      {"JobId: 1\nHandles: 1\nModes: R\nSizes: 0\n", "tasks.rec: workload 'test' has no task"},
  };
  for (const auto& [text, expected] : cases) {
    INFO(text);
    auto imported = import_text(text);
    REQUIRE_FALSE(imported.ok());
    CHECK_THAT(imported.error().message, Catch::Contains(expected));
  }
  auto bad_data = import_text("JobId: 1\nHandles: 1\nModes: R\nSizes: 4\n", "Handle: 1\nSize: big\n");
  REQUIRE_FALSE(bad_data.ok());
  CHECK_THAT(bad_data.error().message, Catch::Contains("data.rec:2: field 'Size'"));
  auto no_handle = import_text("JobId: 1\nHandles: 1\nModes: R\nSizes: 4\n", "Name: x\n");
  REQUIRE_FALSE(no_handle.ok());
  CHECK_THAT(no_handle.error().message, Catch::Contains("data.rec:1: the record has no Handle field"));
}
