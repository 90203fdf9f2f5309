// FIXED: a schedule file replayed as given. A replay's own order (--order-out) fed back gives
// the very same run; StarPU's order files (rows as tasks ended) are read by start time; a bad
// file is refused naming the file, the line and the field; the run records the file's digest.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "helpers.hpp"

using namespace tilelens;
using namespace tilelens::test;

namespace {

std::vector<std::string> replay_args(const std::string& workload, const std::string& scheduler, int gpus) {
  return {"replay", "--workload", workload, "--scheduler", scheduler, "--gpus", std::to_string(gpus), "--memory", "60MiB", "--json"};
}

// The rows of an --order-out file after its header, each split at its commas.
std::vector<std::vector<std::string>> order_rows(const std::string& path) {
  std::istringstream rows(file_text(path));
  std::string line;
  std::getline(rows, line);
  std::vector<std::vector<std::string>> fields;
  while (std::getline(rows, line)) {
    std::istringstream row(line);
    fields.emplace_back();
    for (std::string field; std::getline(row, field, ',');) fields.back().push_back(field);
  }
  return fields;
}

// The run's summary without the scheduler's name and the wall time of its own decisions.
nlohmann::json measured(const std::string& json) {
  auto summary = nlohmann::json::parse(json);
  for (const char* key : {"scheduler", "scheduling_ns", "prepare_ns", "eviction_ns", "push_base_ns", "push_per_task_ns", "pop_base_ns",
                          "pop_per_task_ns", "push_scanned", "pop_scanned", "push_decisions", "pop_decisions"}) {
    summary.erase(key);
  }
  return summary;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

}  // namespace

TEST_CASE("a replay's own order replayed by fixed gives the same run, order and all", "[schedulers][fixed]") {
  TempFile order("fixed-order.csv"), again("fixed-again.csv");
  // dmda's family announces its choice at push (the memory model prefetches there): prefetch=1 does too.
  for (const auto& [scheduler, prefetch] : {std::pair{"eager", "0"}, std::pair{"lws:steal_head=1", "0"}, std::pair{"ws", "0"},
                                            std::pair{"dmdar", "1"}, std::pair{"dmda:estimate=starpu", "1"}}) {
    for (const int gpus : {1, 2}) {
      for (const std::string workload : {"cholesky:N=10", "lu:N=8"}) {
        INFO(scheduler << " on " << gpus << " GPUs, " << workload);
        auto args = replay_args(workload, scheduler, gpus);
        args.insert(args.end(), {"--order-out", order.path});
        const CliOutput original = cli(args);
        REQUIRE(original.code == 0);
        auto fixed_args = replay_args(workload, "fixed:file=" + order.path + ",prefetch=" + prefetch, gpus);
        fixed_args.insert(fixed_args.end(), {"--order-out", again.path});
        const CliOutput replayed = cli(fixed_args);
        REQUIRE(replayed.code == 0);
        CHECK(measured(replayed.out) == measured(original.out));
        CHECK(file_text(again.path) == file_text(order.path));
      }
    }
  }
}

TEST_CASE("fixed reads StarPU's order files: rows as tasks ended, each worker's tasks by start time", "[schedulers][fixed]") {
  TempFile order("fixed-order.csv"), starpu("fixed-starpu.csv");
  REQUIRE(cli({"replay", "--workload", "cholesky:N=8", "--scheduler", "lws", "--gpus", "2", "--memory", "40MiB", "--order-out", order.path})
              .code == 0);
  // The replay's rows (order,gpu,gpu_order,task,kind,i,j,k,start_ns,end_ns,...) as StarPU's
  // programs write them (task,worker,start_us,end_us), latest start first: fixed sorts them back.
  std::vector<std::string> lines;
  for (const auto& f : order_rows(order.path)) {
    REQUIRE(f.size() >= 10);
    lines.push_back(f[3] + "," + f[1] + "," + std::to_string(std::stod(f[8]) / 1e3) + "," + std::to_string(std::stod(f[9]) / 1e3));
  }
  std::string text = "task,worker,start_us,end_us\n";
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) text += *it + "\n";
  write(starpu.path, text);
  const CliOutput a = cli(replay_args("cholesky:N=8", "lws", 2));
  const CliOutput b = cli(replay_args("cholesky:N=8", "fixed:file=" + starpu.path, 2));
  REQUIRE(b.code == 0);
  CHECK(measured(b.out) == measured(a.out));
}

TEST_CASE("fixed refuses a bad schedule file, naming the file, the line and the field", "[schedulers][fixed][errors]") {
  TempFile file("fixed-bad.csv");
  const auto refused = [&](const std::string& text, int gpus = 1) {
    write(file.path, text);
    const CliOutput out = cli(replay_args("matmul2d:N=2", "fixed:file=" + file.path, gpus));
    CHECK((out.code == 1 || out.code == 2));
    return out.err;
  };
  CHECK_THAT(cli(replay_args("matmul2d:N=2", "fixed", 1)).err, Catch::Contains("fixed:file=PATH"));
  CHECK_THAT(cli(replay_args("matmul2d:N=2", "fixed:file=/nonexistent/schedule.csv", 1)).err,
             Catch::Contains("schedule file '/nonexistent/schedule.csv': cannot open it"));
  const CliOutput directory = cli(replay_args("matmul2d:N=2", "fixed:file=/tmp", 1));  // a directory opens, and its read throws
  CHECK((directory.code == 1 || directory.code == 2));
  CHECK_THAT(directory.err, Catch::Contains("schedule file '/tmp': cannot open it"));
  CHECK_THAT(refused("order,start\n1,2\n"), Catch::Contains("line 1: the header needs a 'task' column"));
  CHECK_THAT(refused("task,worker\n0,0\nx,0\n"), Catch::Contains("line 3: task 'x' is not a task id"));
  CHECK_THAT(refused("task,worker\n0,-1\n"), Catch::Contains("line 2: worker '-1' is not a worker id"));
  CHECK_THAT(refused("task,worker,start_us\n0,0,soon\n"), Catch::Contains("line 2: start_us 'soon' is not a number"));
  CHECK_THAT(refused("task,worker\n0,0\n1,0\n2,0\n3,0\n0,0\n"), Catch::Contains("line 6: task 0 is listed twice (first at line 2)"));
  CHECK_THAT(refused("task,worker\n0,0\n1,0\n2,0\n3,1\n"), Catch::Contains("line 5: worker 1, and the platform has 1 workers"));
  CHECK_THAT(refused("task,worker\n0,0\n1,0\n2,0\n9,0\n"), Catch::Contains("line 5: task 9 is not in the workload (4 tasks)"));
  CHECK_THAT(refused("task,worker\n0,0\n1,0\n3,0\n"), Catch::Contains("gives task"));
  CHECK_THAT(refused("task,worker\n0,0\n1,0\n3,0\n"), Catch::Contains("(2) to no worker"));
}

TEST_CASE("fixed records its file's digest: a changed file is refused by the recorded spec and is another run", "[schedulers][fixed]") {
  TempFile order("fixed-digest.csv"), db("fixed-digest.db");
  auto args = replay_args("cholesky:N=6", "eager", 1);
  args.insert(args.end(), {"--order-out", order.path});
  REQUIRE(cli(args).code == 0);
  const CliOutput first = cli(replay_args("cholesky:N=6", "fixed:file=" + order.path, 1));
  REQUIRE(first.code == 0);
  const std::string recorded = nlohmann::json::parse(first.out).at("scheduler");
  CHECK_THAT(recorded, Catch::Contains("digest="));
  CHECK(cli(replay_args("cholesky:N=6", recorded, 1)).code == 0);  // the recorded spec replays while the file is unchanged

  const auto sweep = [&] {
    return cli({"sweep", "--db", db.path, "--workload", "cholesky:N=6", "--memory", "60MiB", "--scheduler", "fixed:file=" + order.path + "/belady",
                "--quiet"});
  };
  CHECK_THAT(sweep().out, Catch::Contains("1 stored, 0 skipped"));
  CHECK_THAT(sweep().out, Catch::Contains("0 stored, 1 skipped"));
  // One blank line more: the same schedule, but no longer the file the runs recorded.
  write(order.path, file_text(order.path) + "\n");
  const CliOutput changed = cli(replay_args("cholesky:N=6", recorded, 1));
  CHECK(changed.code != 0);
  CHECK_THAT(changed.err, Catch::Contains("changed since the run that named it"));
  CHECK_THAT(sweep().out, Catch::Contains("1 stored, 0 skipped"));
}

TEST_CASE("fixed:workerorder=1 prefetches each pushed task at its place in its worker's order, as StarPU under a sched.rec",
          "[schedulers][fixed]") {
  // Cholesky N = 4 on one GPU: POTRF(0) releases TRSM(1,0), TRSM(2,0) and TRSM(3,0) at once, pushed
  // in that order, all of one priority. The schedule runs them the other way round. StarPU asks a
  // task given a Workerorder at INT_MAX - Workerorder (coherency.c:973-978), so their tiles come in
  // the order they run; at the tasks' own priority, in the order they were pushed.
  TempFile order("fixed-workerorder.csv"), schedule("fixed-workerorder-sched.csv"), trace("fixed-workerorder.trace");
  REQUIRE(cli({"replay", "--workload", "cholesky:N=4", "--scheduler", "eager", "--memory", "500MiB", "--buffer", "1", "--order-out", order.path})
              .code == 0);
  std::vector<std::string> tasks;
  for (const auto& f : order_rows(order.path)) {
    REQUIRE(f.size() >= 4);
    tasks.push_back(f[3]);
  }
  REQUIRE(tasks.size() == 20);
  REQUIRE(std::vector<std::string>(tasks.begin(), tasks.begin() + 4) == std::vector<std::string>{"0", "1", "2", "3"});
  std::reverse(tasks.begin() + 1, tasks.begin() + 4);
  std::string text = "task,worker\n";
  for (const std::string& task : tasks) text += task + ",0\n";
  write(schedule.path, text);

  // The tasks the first loads after POTRF(0)'s tile served, in the order they arrived (one copy engine: one at a time).
  const auto served = [&](const std::string& params) {
    const CliOutput run = cli({"replay", "--workload", "cholesky:N=4", "--scheduler", "fixed:file=" + schedule.path + params, "--memory",
                               "500MiB", "--buffer", "1", "--copy-engines", "1", "--trace-out", trace.path});
    REQUIRE(run.code == 0);
    std::vector<std::pair<long long, std::string>> loads;  // (end, task)
    std::istringstream records(file_text(trace.path));
    for (std::string line; std::getline(records, line);) {
      std::istringstream fields(line);
      std::vector<std::string> f;
      for (std::string field; fields >> field;) f.push_back(field);
      if (f.size() == 9 && f[0] == "load") loads.emplace_back(std::stoll(f[6]), f[8]);
    }
    std::sort(loads.begin(), loads.end());
    REQUIRE(loads.size() >= 4);
    return std::vector<std::string>{loads[1].second, loads[2].second, loads[3].second};
  };
  CHECK(served(",workerorder=1") == std::vector<std::string>{"3", "2", "1"});
  CHECK(served(",prefetch=1") == std::vector<std::string>{"1", "2", "3"});
}

TEST_CASE("fixed:workerorder=1 announces every push as prefetch=1 does: on two GPUs the two give one run", "[schedulers][fixed]") {
  TempFile order("fixed-announce.csv");
  auto args = replay_args("cholesky:N=8", "dmdar", 2);
  args.insert(args.end(), {"--order-out", order.path});
  REQUIRE(cli(args).code == 0);
  const CliOutput implied = cli(replay_args("cholesky:N=8", "fixed:file=" + order.path + ",workerorder=1", 2));
  const CliOutput both = cli(replay_args("cholesky:N=8", "fixed:file=" + order.path + ",prefetch=1,workerorder=1", 2));
  const CliOutput neither = cli(replay_args("cholesky:N=8", "fixed:file=" + order.path, 2));
  REQUIRE(implied.code == 0);
  REQUIRE(both.code == 0);
  REQUIRE(neither.code == 0);
  CHECK(measured(implied.out) == measured(both.out));
  CHECK(measured(implied.out) != measured(neither.out));
}
