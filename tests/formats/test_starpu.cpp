// Importing a StarPU execution (tasks.rec, data.rec): the example imports and replays,
// malformed records are reported with their line and field, and hostile ones (sizes or flops
// out of range, names a workload file cannot hold, files that disagree) are refused or warned
// about, never turned into a workload tilelens would not read back.
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <tuple>

#include "formats/starpu_import.hpp"
#include "model/kernels.hpp"
#include "formats/workload_io.hpp"
#include "helpers.hpp"

using namespace tilelens;
using namespace tilelens::test;

namespace {

const std::string kExample = std::string(TILELENS_RESOURCES) + "/starpu/";

Result<StarpuExecution> import_text(const std::string& tasks, const std::string& data = "", const std::string& name = "test",
                                    const std::string& paje = "", std::optional<std::int64_t> rank = std::nullopt) {
  std::istringstream tasks_in(tasks), data_in(data), paje_in(paje);
  StarpuSources sources;
  sources.tasks = &tasks_in;
  if (!data.empty()) sources.data = &data_in;
  if (!paje.empty()) sources.paje = &paje_in;
  StarpuImportOptions options;
  options.workload_name = name;
  options.rank = rank;
  return import_starpu(sources, options);
}

std::string joined_notes(const StarpuExecution& e) {
  std::string out;
  for (const auto& n : e.report.notes) out += n + "\n";
  return out;
}
bool noted(const StarpuExecution& e, const std::string& text) {
  return joined_notes(e).find(text) != std::string::npos;
}


// What `tilelens workload validate` does to a file written from the import: it must read
// back, and as the same text (the store keys a workload by that text's hash).
void check_revalidates(const Workload& w) {
  std::ostringstream written;
  REQUIRE(write_workload(w, written).ok());
  std::istringstream in(written.str());
  auto back = read_workload(in, "imported.workload");
  INFO(written.str());
  REQUIRE(back.ok());
  std::ostringstream again;
  REQUIRE(write_workload(*back, again).ok());
  CHECK(again.str() == written.str());
}

bool warned(const StarpuExecution& imported, const std::string& text) {
  for (const auto& warning : imported.report.warnings) {
    if (warning.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string warnings_of(const StarpuExecution& imported) {
  std::string out;
  for (const auto& warning : imported.report.warnings) out += warning + "\n";
  return out;
}

}  // namespace

TEST_CASE("the StarPU example imports as a workload and a measured run", "[starpu]") {
  auto imported = import_starpu_files(kExample + "tasks.rec", kExample + "data.rec", "", {"cholesky-starpu", std::nullopt});
  REQUIRE(imported.ok());
  const Workload& w = imported->workload;
  // Tiled Cholesky with N = 4: 4 POTRF, 6 TRSM, 6 SYRK, 4 GEMM; the WontUse record is not a task.
  CHECK(w.task_count() == 20);
  CHECK(w.data_count() == 10);
  CHECK(w.has_dependencies());
  CHECK(w.data()[0].name == "A_0_0");
  CHECK(w.data()[0].bytes == 960u * 960 * 4);
  // Two CUDA workers, each on its memory node.
  CHECK(imported->lanes == std::vector<StarpuLane>{{0, 4, 1}, {0, 5, 2}});
  CHECK(imported->gpus == 2);
  CHECK(imported->workers_per_memory == 1);
  CHECK(imported->cpus == 0);
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
  CHECK_FALSE(imported->report.warnings.empty());
}

TEST_CASE("a task without data is kept compute-only, and a dependency through a sync record links its neighbours", "[starpu]") {
  auto imported = import_text(
      "JobId: 1\nName: a\nHandles: a0\nModes: W\nSizes: 64\nWorkerId: 0\nStartTime: 1\nEndTime: 2\n\n"
      "JobId: 2\nName: progress\nDependsOn: 1\nWorkerId: 0\nStartTime: 2\nEndTime: 3\n\n"
      "JobId: 3\nName: _starpu_sync_task\nDependsOn: 2\n\n"
      "JobId: 4\nName: b\nDependsOn: 3 77\nHandles: b0\nModes: W\nSizes: 64\nWorkerId: 1\nStartTime: 3\nEndTime: 4\n\n"
      "Control: WontUse\nJobId: 5\nHandles: a0\n");
  REQUIRE(imported.ok());
  const Workload& w = imported->workload;
  REQUIRE(w.task_count() == 3);  // a, progress, b: the sync record and the control record are not tasks
  CHECK(w.accesses(1).empty());
  CHECK(w.tasks()[1].flops > 0);  // its measured millisecond, as flops
  REQUIRE(w.predecessors(2).size() == 1);
  CHECK(w.predecessors(2)[0] == 1);
  CHECK(imported->trace.tasks.size() == 3);
  CHECK(imported->report.warnings.size() == 1);  // the unknown job 77
  INFO(joined_notes(*imported));
  CHECK(noted(*imported, "skipped 1 'Control: WontUse' records"));
  CHECK(noted(*imported, "skipped 1 records of StarPU's own synchronisation"));
  CHECK(noted(*imported, "1 tasks access no data of non-zero size: kept as compute-only tasks"));
  check_revalidates(w);
}

// StarVZ's LU example holds 123 records with no name, codelet, worker or data: the internal
// predecessors of _starpu_data_acquire_cb_post. Imported as tasks they got invented flops (46%
// more work than ran, issue 33); they are no tasks, and the dependencies through them stay.
TEST_CASE("a ghost record (no name, worker or data) is no task and gets no flops, and dependencies through it stay", "[starpu]") {
  const std::string a = "JobId: 1\nName: a\nGFlop: 2\nHandles: a0\nModes: RW\nSizes: 64\nWorkerId: 0\nStartTime: 1\nEndTime: 2\n\n";
  const std::string ghost = "JobId: 2\nDependsOn: 1\nSubmitOrder: 2\n\n";
  const std::string b = "JobId: 3\nName: b\nGFlop: 2\nDependsOn: 2\nHandles: b0\nModes: RW\nSizes: 64\nWorkerId: 0\nStartTime: 3\nEndTime: 4\n";
  auto imported = import_text(a + ghost + b);
  REQUIRE(imported.ok());
  const Workload& w = imported->workload;
  REQUIRE(w.task_count() == 2);
  CHECK(w.total_flops() == 4e9);  // what ran, nothing invented
  REQUIRE(w.predecessors(1).size() == 1);
  CHECK(w.predecessors(1)[0] == 0);
  INFO(joined_notes(*imported));
  CHECK(noted(*imported, "skipped 1 records with no name, worker or data"));
  // The check can fail: the same record with a name is a task of its own (not run, kept).
  auto named = import_text(a + "JobId: 2\nName: g\nDependsOn: 1\nSubmitOrder: 2\n\n" + b);
  REQUIRE(named.ok());
  CHECK(named->workload.task_count() == 3);
  check_revalidates(w);
}

TEST_CASE("malformed StarPU records are reported with the line and the field", "[starpu]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"JobId: 1\nHandles: zz\nModes: R\nSizes: 4\n", "tasks.rec:2: field 'Handles': 'zz' is not a hexadecimal number"},
      {"JobId: 1\nHandles: 1 2\nModes: R\nSizes: 4 4\n", "tasks.rec:3: field 'Modes': 1 modes for 2 handles"},
      {"JobId: 1\nHandles: 1\nModes: R\nSizes: 4 4\n", "tasks.rec:4: field 'Sizes': 2 sizes for 1 handles"},
      {"JobId: 1\nHandles: 1\nModes: Q\n", "tasks.rec:3: field 'Modes': 'Q' is not a StarPU access mode"},
      {"JobId: 1\nModes: R\nSizes: 4\n", "tasks.rec:2: field 'Modes': Modes without a Handles field"},
      {"JobId: 1\nSizes: 4\n", "tasks.rec:2: field 'Sizes': Sizes without a Handles field"},
      {"JobId: 1\nHandles: a a\nModes: R R\nSizes: 4 8\n", "tasks.rec:4: field 'Sizes': handle a is listed twice with sizes 4 and 8"},
      {"JobId: 1\nDependsOn: 3 1\n", "tasks.rec:2: field 'DependsOn': JobId 1 depends on itself"},
      {"JobId: 1\nName: a\nJobId: 2\nName: b\n", "tasks.rec:3: field 'JobId': a second JobId in one record"},
      {"JobId: 1\nStartTime: soon\n", "tasks.rec:2: field 'StartTime': 'soon' is not a number"},
      {"JobId: 1\nStartTime: 5\nEndTime: 4\n", "tasks.rec:3: field 'EndTime': ends before StartTime"},
      {"JobId: 1\nStartTime: -5\nEndTime: 4\n\n", "tasks.rec:2: field 'StartTime': '-5' ms is negative"},
      {"JobId: 1\nGFlop: -2\n", "tasks.rec:2: field 'GFlop': must not be negative"},
      {"JobId: 1\nWorkerId: two\n", "tasks.rec:2: field 'WorkerId': 'two' is not a whole number"},
      {"\n\nthis line is wrong\n", "tasks.rec:3: expected 'Field: value'"},
      {"+ continued\n", "tasks.rec:1: a '+' continuation line"},
      {"Name: dgemm\nModel: m\n", "tasks.rec:1: the record has no JobId field"},
      {"JobId: 1\nHandles: 1\nModes: R\nSizes: 4\n\nJobId: 1\n\n", "tasks.rec:6: JobId 1 appears twice"},
      {"# only a comment\n", "tasks.rec: no task records"},
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


TEST_CASE("the StarPU example's workload passes the workload validator", "[starpu]") {
  auto imported = import_starpu_files(kExample + "tasks.rec", kExample + "data.rec", "", {"cholesky-starpu", std::nullopt});
  REQUIRE(imported.ok());
  check_revalidates(imported->workload);
}

TEST_CASE("a registration's size is the tasks' Sizes, and data.rec disagreeing is counted and reported", "[starpu][hostile]") {
  auto imported = import_text("JobId: 1\nHandles: a0 b0\nModes: R RW\nSizes: 64 32\n\nJobId: 2\nHandles: a0\nModes: R\nSizes: 64\n",
                              "Handle: a0\nName: A\nSize: 128\n\nHandle: b0\nName: B\nSize: 32\n");
  REQUIRE(imported.ok());
  INFO(warnings_of(*imported));
  CHECK(imported->workload.data()[0].bytes == 64);
  CHECK(imported->workload.data()[1].bytes == 32);
  // Once per registration, with the lines of both sides.
  CHECK(warned(*imported, "1 registrations have Sizes in tasks.rec other than their Size in data.rec; tasks.rec's was kept"));
  CHECK(warned(*imported, "handle a0: 64 bytes at tasks.rec:4, 128 at data.rec:3"));
  check_revalidates(imported->workload);
}

TEST_CASE("a reused handle address is a new data: by paje.trace's registrations, else by a change of size", "[starpu][hostile]") {
  // Without paje.trace: the second size is a second registration, each described by its own data.rec record.
  const std::string tasks = "JobId: 1\nHandles: a0\nModes: W\nSizes: 64\nSubmitTime: 1\n\n"
                            "JobId: 2\nHandles: a0\nModes: R\nSizes: 64\nSubmitTime: 2\n\n"
                            "JobId: 3\nHandles: a0\nModes: W\nSizes: 96\nSubmitTime: 4\n\n"
                            "JobId: 4\nHandles: a0\nModes: W\nSizes: 96\nSubmitTime: 6\n";
  const std::string data = "Handle: a0\nName: first\nSize: 64\n\nHandle: a0\nName: second\nSize: 96\n";
  auto by_size = import_text(tasks, data);
  REQUIRE(by_size.ok());
  INFO(warnings_of(*by_size));
  REQUIRE(by_size->workload.data_count() == 2);
  CHECK(by_size->workload.data()[0].name == "first");
  CHECK(by_size->workload.data()[0].bytes == 64);
  CHECK(by_size->workload.data()[1].name == "second");
  CHECK(by_size->workload.data()[1].bytes == 96);
  // Both of data.rec's registrations are told apart (by size): nothing to warn about.
  CHECK_FALSE(warned(*by_size, "registered more times"));
  check_revalidates(by_size->workload);
  // data.rec registers a0 a third time, which nothing in tasks.rec tells apart: said.
  auto undercounted = import_text(tasks, data + "\nHandle: a0\nName: third\nSize: 96\n");
  REQUIRE(undercounted.ok());
  CHECK(warned(*undercounted, "1 handle addresses were registered more times"));

  // With paje.trace: registered again at 5 ms, so job 4 (submitted at 6) has a third data.
  const std::string paje = "9\t0.5\tregister\tp\ta0\n9\t3.0\tregister\tp\ta0\n9\t5.0\tregister\tp\ta0\n";
  auto by_time = import_text(tasks, data + "\nHandle: a0\nName: third\nSize: 96\n", "test", paje);
  REQUIRE(by_time.ok());
  REQUIRE(by_time->workload.data_count() == 3);
  CHECK(by_time->workload.data()[2].name == "third");
  CHECK(by_time->workload.accesses(3)[0].data == 2);
}

TEST_CASE("names with spaces, '#', control characters or bad UTF-8 become single words", "[starpu][hostile]") {
  auto imported = import_text(
      "JobId: 1\nName: my  kernel\nHandles: a0\nModes: R\nSizes: 64\n\n"
      "JobId: 2\nName: k#2\nHandles: b0\nModes: R\nSizes: 64\n\n"
      "JobId: 3\nName: caf\xc3\xa9 \xff\n+ more\nHandles: b0\nModes: R\nSizes: 64\n",
      "Handle: a0\nName: tile 0 0\nSize: 64\n", "a name # with\ta tab");
  REQUIRE(imported.ok());
  INFO(warnings_of(*imported));
  const Workload& w = imported->workload;
  CHECK(w.kinds() == std::vector<std::string>{"my_kernel", "k_2", "caf\xc3\xa9_more"});
  CHECK(w.data()[0].name == "tile_0_0");
  CHECK(w.data()[1].name == "hb0");
  CHECK(w.name() == "a name _ with_a tab");
  CHECK(warned(*imported, "3 task kinds had spaces, control characters, '#' or bytes that are not UTF-8 turned into '_' (first: "
                          "'my  kernel' became 'my_kernel' at tasks.rec:2)"));
  CHECK(warned(*imported, "1 data names had spaces"));
  CHECK(warned(*imported, "the workload name"));
  check_revalidates(w);

  // Two Names that would become one kind would merge two kinds: refused, with the line.
  auto merged = import_text("JobId: 1\nName: a b\nHandles: a0\nModes: R\nSizes: 64\n\n"
                            "JobId: 2\nName: a_b\nHandles: a0\nModes: R\nSizes: 64\n");
  REQUIRE_FALSE(merged.ok());
  CHECK_THAT(merged.error().message, Catch::Contains("tasks.rec:8: field 'Name': 'a_b' and 'a b' would both be the kind 'a_b'"));
}

TEST_CASE("GFlop values that make the flops too large are refused with the line", "[starpu][hostile]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"JobId: 1\nGFlop: 1e300\nHandles: a0\nModes: R\nSizes: 64\n", "tasks.rec:2: field 'GFlop': '1e300' GFlop is more than"},
      {"JobId: 1\nGFlop: 1e13\nHandles: a0\nModes: R\nSizes: 64\n", "tasks.rec:2: field 'GFlop': '1e13' GFlop is more than"},
      {"JobId: 1\nGFlop: inf\n", "tasks.rec:2: field 'GFlop': 'inf' is not a number"},
      {"JobId: 1\nGFlop: nan\n", "tasks.rec:2: field 'GFlop': 'nan' is not a number"},
  };
  for (const auto& [text, expected] : cases) {
    INFO(text);
    auto imported = import_text(text);
    REQUIRE_FALSE(imported.ok());
    CHECK_THAT(imported.error().message, Catch::Contains(expected));
  }
  // Each task at the limit, their total beyond 1e24 flops: the line of the task that crosses it
  // (the 1000th or the 1001st, as the sum in doubles rounds).
  int crossing = 0;
  for (double sum = 0; !(sum > 1e24); sum += 1e21) ++crossing;
  std::string many;
  for (int i = 0; i < crossing + 5; ++i) many += "JobId: " + std::to_string(i) + "\nGFlop: 1e12\nHandles: a0\nModes: R\nSizes: 64\n\n";
  auto total = import_text(many);
  REQUIRE_FALSE(total.ok());
  CHECK_THAT(total.error().message, Catch::Contains("tasks.rec:" + std::to_string(6 * (crossing - 1) + 2) +
                                                    ": field 'GFlop': the tasks up to this one add up to more than"));
  // At the limit the workload is still one tilelens reads back.
  auto largest = import_text("JobId: 1\nGFlop: 1e12\nHandles: a0\nModes: R\nSizes: 64\n");
  REQUIRE(largest.ok());
  CHECK(std::isfinite(largest->workload.total_flops()));
  check_revalidates(largest->workload);
}

TEST_CASE("sizes beyond 2^62 bytes, one or added up, are refused with the line", "[starpu][hostile]") {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"JobId: 1\nHandles: a0\nModes: R\nSizes: 18446744073709551615\n", "",
       "tasks.rec:4: field 'Sizes': 18446744073709551615 bytes is more than 2^62"},
      {"JobId: 1\nHandles: a0\nModes: R\nSizes: 18446744073709551616\n", "",
       "tasks.rec:4: field 'Sizes': '18446744073709551616' is not a whole number"},
      {"JobId: 1\nHandles: a0\nModes: R\nSizes: -1\n", "", "tasks.rec:4: field 'Sizes': '-1' is not a whole number"},
      {"JobId: 1\nHandles: a0\nModes: R\n", "Handle: a0\n\nHandle: b0\nSize: 4611686018427387905\n",
       "data.rec:4: field 'Size': 4611686018427387905 bytes is more than 2^62"},
      // 2^61 + 2^61 is 2^62, allowed; one byte more is not. The line is the one of the size that crossed.
      {"JobId: 1\nHandles: a0 b0 c0\nModes: R R R\nSizes: 2305843009213693952 2305843009213693952 1\n", "",
       "tasks.rec:4: field 'Sizes': the data up to handle c0 add up to more than 2^62 bytes"},
      // Without Sizes in tasks.rec, data.rec's Size counts.
      {"JobId: 1\nHandles: a0 b0\nModes: R R\n", "Handle: a0\nSize: 4611686018427387904\n\nHandle: b0\nSize: 1\n",
       "data.rec:5: field 'Size': the data up to handle b0 add up to more than 2^62 bytes"},
  };
  for (const auto& [tasks, data, expected] : cases) {
    INFO(tasks << data);
    auto imported = import_text(tasks, data);
    REQUIRE_FALSE(imported.ok());
    CHECK_THAT(imported.error().message, Catch::Contains(expected));
  }
  auto at_limit = import_text("JobId: 1\nHandles: a0 b0\nModes: R R\nSizes: 2305843009213693952 2305843009213693952\n");
  REQUIRE(at_limit.ok());
  CHECK(at_limit->workload.working_set_bytes() == std::uint64_t{1} << 62);
  check_revalidates(at_limit->workload);
}

TEST_CASE("more task kinds than a KindId counts are refused with the line", "[starpu][hostile]") {
  std::string records;
  for (int i = 0; i <= 65535; ++i) records += "JobId: " + std::to_string(i) + "\nName: k" + std::to_string(i) + "\n\n";
  auto imported = import_text(records);
  REQUIRE_FALSE(imported.ok());
  CHECK_THAT(imported.error().message, Catch::Contains("tasks.rec:" + std::to_string(3 * 65535 + 2) + ": field 'Name': more than 65535 task kinds"));
}

TEST_CASE("coordinates beyond 32 bits and tied SubmitOrders are warned about", "[starpu][hostile]") {
  auto imported = import_text("JobId: 1\nSubmitOrder: 1\nHandles: a0\nModes: R\nSizes: 64\n\n"
                              "JobId: 2\nSubmitOrder: 1\nHandles: a0\nModes: R\nSizes: 64\n",
                              "Handle: a0\nSize: 64\nCoordinates: 4294967296 0\n");
  REQUIRE(imported.ok());
  INFO(warnings_of(*imported));
  CHECK(imported->workload.data()[0].row == -1);
  CHECK(warned(*imported, "1 data have Coordinates beyond 32 bits and were left without a tile position (first: data.rec:1)"));
  CHECK(warned(*imported, "1 tasks share their SubmitOrder with another task; among those the file's order was kept"));
  check_revalidates(imported->workload);
}

TEST_CASE("a run with GPUs: CUDA workers bounded, RAM workers CPU workers, transfers between them", "[starpu]") {
  // Worker 0 is a CPU on RAM (node 0); workers 1 and 2 are CUDA workers on nodes 1 and 2.
  const std::string tasks =
      "JobId: 1\nName: dgemm\nSubmitTime: 0.1\nWorkerId: 1\nMemoryNode: 1\nStartTime: 1\nEndTime: 2\nHandles: a0 b0\nModes: R RW\nSizes: 8 8\n\n"
      "JobId: 2\nName: dgemm\nDependsOn: 1\nSubmitTime: 0.2\nWorkerId: 2\nMemoryNode: 2\nStartTime: 3\nEndTime: 4\nHandles: b0\nModes: R\nSizes: 8\n\n"
      "JobId: 3\nName: dgemm\nDependsOn: 2\nSubmitTime: 0.3\nWorkerId: 0\nMemoryNode: 0\nStartTime: 5\nEndTime: 6\nHandles: b0\nModes: R\nSizes: 8\n";
  const std::string paje =
      "9\t0.0\tregister\tp\ta0\n9\t0.0\tregister\tp\tb0\n"
      "18\t0.5\tF\tp\t8\tmm0\tcom_1\n22 0.5 DCo mm1 0 a0 1 8 mm0\n19\t0.9\tF\tp\t8\tmm1\tcom_1\n"      // RAM -> GPU 1: a load from the host
      "18\t2.1\tF\tp\t8\tmm1\tcom_2\n22 2.1 DCo mm2 0 b0 2 8 mm1\n19\t2.5\tF\tp\t8\tmm2\tcom_2\n"      // GPU 1 -> GPU 2
      "18\t4.1\tF\tp\t8\tmm1\tcom_3\n22 4.1 DCo mm0 0 b0 3 8 mm1\n19\t4.5\tF\tp\t8\tmm0\tcom_3\n";     // GPU 1 -> RAM: a write-back
  auto imported = import_text(tasks, "", "gpus", paje);
  REQUIRE(imported.ok());
  const StarpuExecution& e = *imported;
  CHECK(e.gpus == 2);
  CHECK(e.cpus == 1);
  CHECK(e.workers_per_memory == 1);
  REQUIRE(e.lanes == std::vector<StarpuLane>{{0, 1, 1}, {0, 2, 2}, {0, 0, 0}});
  REQUIRE(e.trace.loads.size() == 2);
  CHECK(e.trace.loads[0].gpu == 0);
  CHECK(e.trace.loads[0].source == kFromHost);
  CHECK(e.trace.loads[0].task == 0);
  CHECK(e.trace.loads[1].gpu == 1);
  CHECK(e.trace.loads[1].source == 0);  // from the first GPU
  CHECK(e.trace.loads[1].task == 1);
  REQUIRE(e.trace.writebacks.size() == 1);
  CHECK(e.trace.writebacks[0].gpu == 0);
  CHECK(e.summary.loads_from_gpu == 1);
  CHECK(e.transfers_recorded);
}

TEST_CASE("flops from the kernel name where GFlop is absent or rounded", "[starpu]") {
  CHECK(kernel_flops("dgemm", 100).value() == Approx(2e6));
  CHECK(kernel_flops("zgemm", 100).value() == Approx(8e6));  // 6 per multiplication, 2 per addition
  CHECK(kernel_flops("cl_dpotrf", 3).value() == Approx(3.0 * 3 * 3 / 3 + 3.0 * 3 / 2 + 3.0 / 6));
  CHECK(kernel_flops("dgetrf_nopiv", 128).value() == Approx(2.0 / 3 * 128 * 128 * 128 - 128.0 * 128 / 2 + 5.0 * 128 / 6));
  CHECK_FALSE(kernel_flops("dplgsy", 128).has_value());
  CHECK_FALSE(kernel_flops("gemm", 128).has_value());  // no precision letter
  // A small gemm whose GFlop rounded to 0.000000: the exact count, not 0.
  auto imported = import_text("JobId: 1\nName: sgemm\nGFlop: 0.000000\nParameters: M4x4x4\nHandles: a0\nModes: RW\nSizes: 64\n");
  REQUIRE(imported.ok());
  CHECK(imported->workload.tasks()[0].flops == Approx(128));
  // Without Parameters, the side from the size and the precision: 64 bytes of float is 4 x 4.
  auto from_size = import_text("JobId: 1\nName: sgemm\nHandles: a0\nModes: RW\nSizes: 64\n");
  REQUIRE(from_size.ok());
  CHECK(from_size->workload.tasks()[0].flops == Approx(128));
}

// StarPU reuses a handle's address once it is unregistered; a registration of the same size
// there is told apart by the dependencies: a task that writes the address without depending,
// even transitively, on its previous access starts a new registration (issue 33, QR's 1,041).
TEST_CASE("a same-size registration at a reused address is told apart by the dependencies", "[starpu]") {
  const auto record = [](int job, const char* name, const char* mode, const std::string& depends) {
    return "JobId: " + std::to_string(job) + "\nName: " + name + "\nHandles: a0\nModes: " + mode + "\nSizes: 64\nWorkerId: 0\nStartTime: " +
           std::to_string(job) + "\nEndTime: " + std::to_string(job) + ".5\n" + (depends.empty() ? "" : "DependsOn: " + depends + "\n") + "\n";
  };
  // 1 writes, 2 reads after it; 3 writes without depending on 2: a new registration, read by 4.
  const std::string reused = record(1, "w", "W", "") + record(2, "r", "R", "1") + record(3, "w", "W", "") + record(4, "r", "R", "3");
  auto split = import_text(reused);
  REQUIRE(split.ok());
  CHECK(split->workload.data_count() == 2);
  // 3 depends on 2 through a task on other data: the same registration, written again.
  const std::string other = "JobId: 9\nName: x\nHandles: b0\nModes: W\nSizes: 64\nWorkerId: 0\nStartTime: 2.6\nEndTime: 2.7\nDependsOn: 2\n\n";
  const std::string ordered = record(1, "w", "W", "") + record(2, "r", "R", "1") + other + record(3, "w", "W", "9") + record(4, "r", "R", "3");
  auto kept = import_text(ordered);
  REQUIRE(kept.ok());
  CHECK(kept->workload.data_count() == 2);  // a0 once, b0
  std::size_t a0 = 0;
  for (const Data& d : kept->workload.data()) a0 += d.bytes == 64 && d.name.find("b0") == std::string::npos;
  CHECK(a0 == 1);
}

// Coordinates name a tile only when there are two: other arities give no position, with a
// warning, and are not appended to the name (no A_0_0_0_0_0).
TEST_CASE("data.rec Coordinates of another arity give no tile position and are said", "[starpu]") {
  const std::string tasks = "JobId: 1\nHandles: a0 b0 c0\nModes: R R W\nSizes: 64 64 64\n\n";
  const std::string data = "Handle: a0\nName: A\nSize: 64\nCoordinates: 0 1\n\nHandle: b0\nName: B\nSize: 64\nCoordinates: 0 0 0 0 0\n\n"
                           "Handle: c0\nName: C\nSize: 64\nCoordinates: 3\n\n";
  auto imported = import_text(tasks, data);
  REQUIRE(imported.ok());
  const auto& d = imported->workload.data();
  REQUIRE(d.size() == 3);
  CHECK(d[0].name == "A_0_1");
  CHECK(d[0].row == 0);
  CHECK(d[0].col == 1);
  CHECK(d[1].name == "B");
  CHECK(d[1].row == -1);
  CHECK(d[2].name == "C");
  CHECK(warned(*imported, "2 data have Coordinates of other than 2 values"));
}

TEST_CASE("data.rec HomeNode: a handle with a home that a task writes first keeps its home, and a bad node is refused with the line", "[starpu]") {
  const std::string tasks = "JobId: 1\nHandles: a0 b0 c0\nModes: W W R\nSizes: 64 64 64\n\n";
  const std::string data = "Handle: a0\nName: A\nSize: 64\nHomeNode: 1\n\nHandle: b0\nName: B\nSize: 64\nHomeNode: -1\n\n"
                           "Handle: c0\nName: C\nSize: 64\nHomeNode: 0\n\n";
  auto imported = import_text(tasks, data);
  REQUIRE(imported.ok());
  const auto& d = imported->workload.data();
  REQUIRE(d.size() == 3);
  CHECK(d[0].home);        // a disk node: StarPU keeps the value there
  CHECK_FALSE(d[1].home);  // registered without a home: it exists once written
  CHECK_FALSE(d[2].home);  // read first: on the host from the start anyway
  check_revalidates(imported->workload);

  auto bad = import_text(tasks, "Handle: a0\nName: A\nSize: 64\nHomeNode: disk\n\n");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains(":4") && Catch::Contains("HomeNode") && Catch::Contains("'disk'"));
}
