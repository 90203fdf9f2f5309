// The tilelens command line: help everywhere, readable errors, and the outputs it writes.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

#include "app/cli/commands.hpp"
#include "db/store.hpp"
#include "helpers.hpp"

using tilelens::test::cli;
using tilelens::test::temp_path;
using tilelens::test::TempFile;

TEST_CASE("every command has --help", "[cli]") {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--help"},
                                                                {"replay", "--help"},
                                                                {"workload", "--help"},
                                                                {"workload", "generate", "--help"},
                                                                {"workload", "show", "--help"},
                                                                {"workload", "validate", "--help"},
                                                                {"workload", "list", "--help"},
                                                                {"bench", "replay", "--help"},
                                                                {"bench", "db", "--help"},
                                                                {"bench", "schedulers", "--help"},
                                                                {"results", "--help"},
                                                                {"sweep", "--help"},
                                                                {"runs", "--help"},
                                                                {"runs", "list", "--help"},
                                                                {"runs", "show", "--help"},
                                                                {"runs", "compare", "--help"},
                                                                {"runs", "delete", "--help"},
                                                                {"export", "csv", "--help"},
                                                                {"export", "paje", "--help"},
                                                                {"export", "chrome", "--help"},
                                                                {"import", "starpu", "--help"}}) {
    const auto r = cli(args);
    INFO(args[0] << " " << (args.size() > 1 ? args[1] : ""));
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("usage"));
  }
}

TEST_CASE("replay prints the summary with the lower bound and the ratio", "[cli]") {
  const auto r = cli({"replay", "--workload", "matmul2d:N=20", "--scheduler", "rcm", "--eviction", "lru", "--gpus", "1",
                      "--memory", "250MB", "--bandwidth", "12GB/s"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("loads") && Catch::Contains("lower bound") && Catch::Contains("x the lower bound") &&
                        Catch::Contains("GFlop/s") && Catch::Contains("sched. time"));
  const auto json = cli({"replay", "--workload", "matmul2d:N=4", "--memory", "4items", "--buffer", "1", "--json"});
  REQUIRE(json.code == 0);
  CHECK_THAT(json.out, Catch::StartsWith("{\"tilelens_version\"") && Catch::Contains("\"ratio_to_lower_bound\":") &&
                           Catch::Contains("\"memory_bytes\":58982400"));
}

TEST_CASE("the order CSV of --order-out lists each task with its loads", "[cli]") {
  const std::string path = temp_path("order.csv");
  const auto r = cli({"replay", "--workload", "matmul2d:N=3", "--memory", "100MB", "--order-out", path});
  REQUIRE(r.code == 0);
  std::ifstream in(path);
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  CHECK(header == "order,gpu,gpu_order,task,kind,i,j,k,start_ns,end_ns,fetches,prefetches,loads");
  CHECK_THAT(first, Catch::StartsWith("0,0,0,0,GEMM,0,0,0,") && Catch::Contains("A0:fetch B0:fetch"));
  std::size_t rows = 1;
  for (std::string line; std::getline(in, line);) ++rows;
  CHECK(rows == 9);
  std::remove(path.c_str());
}

TEST_CASE("workload generate, validate and show work on files", "[cli]") {
  const std::string path = temp_path("w.workload");
  REQUIRE(cli({"workload", "generate", "cholesky:N=5", "--output", path}).code == 0);
  const auto valid = cli({"workload", "validate", path});
  CHECK(valid.code == 0);
  CHECK_THAT(valid.out, Catch::Contains("valid") && Catch::Contains("35 tasks"));
  const auto shown = cli({"workload", "show", path});
  CHECK(shown.code == 0);
  CHECK_THAT(shown.out, Catch::Contains("POTRF") && Catch::Contains("working set"));
  CHECK_THAT(shown.out, !Catch::Contains("with a home"));  // a generator's data have none
  const auto replayed = cli({"replay", "--workload", path, "--gpus", "2", "--memory", "6items"});
  CHECK(replayed.code == 0);
  std::ofstream(path) << "tilelens-workload 1\nkind K\ndata 8 A 0 0 a home\ndata 8 A 1 0 b home\ntask K 1 0 0 0 0 W:0 R:1\n";
  CHECK_THAT(cli({"workload", "show", path}).out, Catch::Contains("with a home 1 first written"));  // b is read first
  std::ofstream(path) << "tilelens-workload 1\nkind GEMM\ndata 8 A 0 0 a\ntask GEMM x 0 0 0 0 R:0\n";
  const auto broken = cli({"workload", "validate", path});
  CHECK(broken.code == 1);
  CHECK_THAT(broken.err, Catch::Contains(path + ":4: field 'flops'"));
  std::remove(path.c_str());
}

TEST_CASE("bad arguments get a message that names them and the valid choices", "[cli][errors]") {
  const auto scheduler = cli({"replay", "--workload", "matmul2d:N=4", "--scheduler", "nope"});
  CHECK(scheduler.code == 2);
  CHECK_THAT(scheduler.err, Catch::Contains("--scheduler") && Catch::Contains("valid: eager, random, cm, rcm, mst"));
  const auto eviction = cli({"replay", "--workload", "matmul2d:N=4", "--eviction", "mru"});
  CHECK_THAT(eviction.err, Catch::Contains("--eviction") && Catch::Contains("valid: lru, fifo, belady"));
  const auto workload = cli({"replay", "--workload", "matmul9d:N=4"});
  CHECK_THAT(workload.err, Catch::Contains("--workload") && Catch::Contains("valid: matmul2d"));
  const auto range = cli({"replay", "--workload", "matmul2d:N=0"});
  CHECK_THAT(range.err, Catch::Contains("N must be between 1 and"));
  const auto zero = cli({"replay", "--workload", "matmul2d:N=4", "--memory", "0"});
  CHECK(zero.code == 2);
  CHECK_THAT(zero.err, Catch::Contains("--memory") && Catch::Contains("greater than zero"));
  const auto small = cli({"replay", "--workload", "matmul2d:N=4", "--memory", "1items"});
  CHECK_THAT(small.err, Catch::Contains("GEMM(0,0,0) #0") && Catch::Contains("give more memory"));
  const auto option = cli({"replay", "--workload", "matmul2d:N=4", "--memroy", "4items"});
  CHECK_THAT(option.err, Catch::Contains("unknown option '--memroy'") && Catch::Contains("--memory"));
  const auto gpus = cli({"replay", "--workload", "matmul2d:N=4", "--gpus", "0"});
  CHECK_THAT(gpus.err, Catch::Contains("--gpus"));
  const auto buffer = cli({"replay", "--workload", "matmul2d:N=4", "--buffer", "0"});
  CHECK_THAT(buffer.err, Catch::Contains("--buffer"));
  const auto missing = cli({"replay", "--workload", "no/such/file.workload"});
  CHECK_THAT(missing.err, Catch::Contains("does not exist"));
  CHECK(cli({"frobnicate"}).code == 2);
  // execute shares replay's platform options, but has no CPU workers and no shared memories:
  // a usage error (2) before any GPU is looked for, with or without one.
  const auto cpus = cli({"execute", "--workload", "matmul2d:N=4", "--cpus", "2"});
  CHECK(cpus.code == 2);
  CHECK_THAT(cpus.err, Catch::Contains("--cpus"));
  const auto shared = cli({"execute", "--workload", "matmul2d:N=4", "--workers-per-memory", "2"});
  CHECK(shared.code == 2);
  CHECK_THAT(shared.err, Catch::Contains("--workers-per-memory"));
  CHECK(cli({"execute", "--workload", "matmul2d:N=4", "--device", "4294967296"}).code == 2);
}

TEST_CASE("listing schedulers and evictions comes from the registries", "[cli]") {
  const auto list = cli({"replay", "--scheduler", "list"});
  CHECK(list.code == 0);
  CHECK_THAT(list.out, Catch::Contains("rcm") && Catch::Contains("mst") && Catch::Contains("seed=0"));
  CHECK_THAT(cli({"replay", "--eviction", "list"}).out, Catch::Contains("belady"));
  CHECK_THAT(cli({"replay", "--platform", "list"}).out, Catch::Contains("v100-fgcs"));
}

TEST_CASE("the memory model is chosen by name, recorded with the run and part of its key", "[cli][memory-model]") {
  const tilelens::test::TempFile file("memory-model.db");
  const std::string& db = file.path;
  const std::vector<std::string> base = {"replay", "--workload", "cholesky:N=6", "--gpus", "2", "--memory", "6items", "--db", db};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return cli(args);
  };
  const auto fgcs = with({"--memory-model", "fgcs", "--json"});
  REQUIRE(fgcs.code == 0);
  CHECK_THAT(fgcs.out, Catch::Contains("\"memory_model\":\"fgcs\","));
  const auto starpu = with({"--json"});
  REQUIRE(starpu.code == 0);
  CHECK_THAT(starpu.out, Catch::Contains("\"memory_model\":\"starpu:clean_first=1,"));
  const auto shown = cli({"runs", "show", "1", "--db", db});
  CHECK_THAT(shown.out, Catch::Contains("memory model fgcs"));
  const auto compared = cli({"runs", "compare", "1", "2", "--db", db});
  CHECK_THAT(compared.out, Catch::Contains("memory model") && Catch::Contains("fgcs") && Catch::Contains("starpu"));
  // A sweep of each model stores both, in two sweeps: the model is part of the grid and the key.
  for (const char* model : {"fgcs", "starpu:idle_writeback=0"}) {
    const auto sweep = cli({"sweep", "--db", db, "--workload", "matmul2d:N=4", "--memory", "4items", "--memory-model", model, "--quiet"});
    CHECK(sweep.code == 0);
    CHECK_THAT(sweep.out, Catch::Contains("1 stored"));
  }
  const auto bad = with({"--memory-model", "starpu:prefetch=1"});
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--memory-model") && Catch::Contains("prefetch_evicts"));
}

TEST_CASE("a scheduling cost is charged on request, recorded with the run, part of its key and fitted back by calibrate", "[cli][scheduling-cost]") {
  const tilelens::test::TempFile file("scheduling-cost.db");
  const std::string& db = file.path;
  const std::vector<std::string> base = {"replay", "--workload", "cholesky:N=6", "--scheduler", "dmdar", "--gpus", "2",
                                         "--memory", "6items", "--db", db, "--json"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return cli(args);
  };
  const auto free = with({});
  REQUIRE(free.code == 0);
  CHECK_THAT(free.out, Catch::Contains("\"scheduling_cost\":\"\"") && Catch::Contains("\"decisions_charged_ns\":0"));
  const auto charged = with({"--scheduling-cost", "pop=50us,push=20us"});
  REQUIRE(charged.code == 0);
  CHECK_THAT(charged.out, Catch::Contains("\"scheduling_cost\":\"pop=50000ns,pop_per_task=0ns,push=20000ns,push_per_task=0ns\""));
  CHECK_THAT(charged.out, Catch::Contains("\"pop_decisions\":56"));  // cholesky N=6 has 56 tasks
  const auto shown = cli({"runs", "show", "2", "--db", db});
  CHECK_THAT(shown.out, Catch::Contains("charged") && Catch::Contains("scheduling cost pop=50000ns"));
  CHECK_THAT(shown.out, Catch::Contains("decisions    56 pushes"));
  // The two runs have two keys: a sweep of each cost stores each.
  for (const char* cost : {"", "pop=1us"}) {
    std::vector<std::string> args = {"sweep", "--db", db, "--workload", "matmul2d:N=4", "--memory", "4items", "--quiet"};
    if (*cost) args.insert(args.end(), {"--scheduling-cost", cost});
    const auto sweep = cli(args);
    CHECK(sweep.code == 0);
    CHECK_THAT(sweep.out, Catch::Contains("1 stored"));
  }
  // calibrate prints the spec that charges what the run's decisions took.
  const auto calibrated = cli({"calibrate", "--run", "1", "--db", db});
  REQUIRE(calibrated.code == 0);
  CHECK_THAT(calibrated.err, Catch::Contains("replay with --scheduling-cost pop="));
  const auto bad = with({"--scheduling-cost", "pop=3"});
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--scheduling-cost") && Catch::Contains("unit"));
  const auto bad_sweep = cli({"sweep", "--db", db, "--workload", "matmul2d:N=4", "--scheduling-cost", "pull=1us", "--quiet"});
  CHECK(bad_sweep.code == 2);
  CHECK_THAT(bad_sweep.err, Catch::Contains("--scheduling-cost") && Catch::Contains("pull"));
}

// Issue 33: `replay --csv --json` printed JSON only, and `--scheduler eager,,rcm` skipped the
// empty entry where `--memory 250MiB,,500MiB` was refused. Conflicts and empty entries are refused.
TEST_CASE("conflicting output flags and empty list entries are refused", "[cli][errors]") {
  const auto both = cli({"replay", "--workload", "matmul2d:N=4", "--memory", "4items", "--csv", "--json"});
  CHECK(both.code == 2);
  CHECK_THAT(both.err, Catch::Contains("--json and --csv"));
  const auto header = cli({"replay", "--workload", "matmul2d:N=4", "--memory", "4items", "--csv-header"});
  CHECK(header.code == 2);
  const tilelens::test::TempFile file("empty-entries.db");
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--scheduler", "eager,,rcm"},
                                                std::vector<std::string>{"--eviction", "lru,"},
                                                std::vector<std::string>{"--memory", "4items,,6items"}}) {
    std::vector<std::string> args = {"sweep", "--db", file.path, "--workload", "matmul2d:N=4", "--memory", "4items", "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto swept = cli(args);
    INFO(extra[0] << " " << extra[1] << ": " << swept.err);
    CHECK(swept.code == 2);
    CHECK_THAT(swept.err, Catch::Contains("empty"));
  }
  const auto fine = cli({"sweep", "--db", file.path, "--workload", "matmul2d:N=4", "--memory", "4items", "--scheduler", "eager,rcm", "--quiet"});
  CHECK(fine.code == 0);
}

// Errors about a platform file's platform name the file, the GPU limit is the same on the
// command line as in a file, and a kind's name of any text is stored and read back as it was.
TEST_CASE("platform files: whole-platform errors name the file, one worker limit, kind names stored exactly", "[cli][platform]") {
  TempFile platform("platform-errors.json"), database("platform-kinds.db");
  const auto write = [&](const std::string& body) {
    std::ofstream file(platform.path);
    file << "{\"format\": 1, " << body << "}\n";
  };
  for (const std::string body : {"\"gpus\": 3, \"workers_per_memory\": 2", "\"memory_bytes\": 1", "\"default_gflops\": 0", "\"cpus\": 2"}) {
    INFO(body);
    write(body);
    const auto replayed = cli({"replay", "--workload", "matmul2d:N=4", "--platform", platform.path});
    CHECK(replayed.code == 2);
    CHECK_THAT(replayed.err, Catch::Contains(platform.path));
  }
  write("\"gpus\": " + std::to_string(tilelens::kMaxWorkers));
  CHECK(cli({"replay", "--workload", "matmul2d:N=4", "--gpus", std::to_string(tilelens::kMaxWorkers), "--memory", "4items", "--csv"}).code == 0);
  const auto too_many = cli({"replay", "--workload", "matmul2d:N=4", "--gpus", std::to_string(tilelens::kMaxWorkers + 1)});
  CHECK(too_many.code == 2);
  CHECK_THAT(too_many.err, Catch::Contains("from 1 to " + std::to_string(tilelens::kMaxWorkers)));
  write("\"kind_gflops\": {\"x;GEMM\": 7, \"GEMM\": 13393, \"a=b%c\": 2}");
  REQUIRE(cli({"replay", "--workload", "matmul2d:N=4", "--platform", platform.path, "--memory", "4items", "--db", database.path}).code == 0);
  auto store = tilelens::db::Store::open(database.path);
  REQUIRE(store.ok());
  auto run = store->load_run(1);
  REQUIRE(run.ok());
  const std::map<std::string, double> expected = {{"x;GEMM", 7}, {"GEMM", 13393}, {"a=b%c", 2}};
  CHECK(run->info.platform.kind_gflops == expected);
}

// A workload whose only access writes: the lower bound is 0 and the ratio has no value, which
// the text, JSON and CSV outputs all say the same way.
TEST_CASE("the text and the JSON and CSV outputs agree on a ratio without a value", "[cli]") {
  TempFile workload("no-inputs.workload");
  {
    std::ofstream file(workload.path);
    file << "tilelens-workload 1\nname w\nkind K\ndata 100 - 0 0 d0\ntask K 1000 0 0 0 0 W:0\n";
  }
  const auto text = cli({"replay", "--workload", workload.path});
  REQUIRE(text.code == 0);
  CHECK_THAT(text.out, Catch::Contains("ratio        - (the lower bound is 0"));
  const auto json = cli({"replay", "--workload", workload.path, "--json"});
  REQUIRE(json.code == 0);
  CHECK_THAT(json.out, Catch::Contains("\"ratio_to_lower_bound\":null"));
  const auto csv = cli({"replay", "--workload", workload.path, "--csv", "--csv-header"});
  REQUIRE(csv.code == 0);
  std::istringstream lines(csv.out);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  const auto field = [](const std::string& line, std::size_t index) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < index; ++i) start = line.find(',', start) + 1;
    return line.substr(start, line.find(',', start) - start);
  };
  std::size_t column = 0;
  while (column < 40 && field(header, column) != "ratio") ++column;
  REQUIRE(column < 40);
  CHECK(field(row, column).empty());
}

TEST_CASE("runs show says where each worker's time went, runs compare where two schedules part", "[cli][analysis]") {
  const tilelens::test::TempFile file("time-split.db");
  const std::string& db = file.path;
  for (const char* scheduler : {"eager", "hfp", "eager"}) {
    REQUIRE(cli({"replay", "--workload", "matmul2d:N=6", "--scheduler", scheduler, "--gpus", "2", "--memory", "8items", "--db", db}).code == 0);
  }
  const auto shown = cli({"runs", "show", "1", "--db", db});
  REQUIRE(shown.code == 0);
  CHECK_THAT(shown.out, Catch::Contains("where time went") && Catch::Contains("waiting for data") && Catch::Contains("no ready task") &&
                            Catch::Contains("scheduler cost"));
  // One row per GPU, each share of the span summing to 100% (rounded).
  for (const char* gpu : {"\nGPU 0 ", "\nGPU 1 "}) CHECK_THAT(shown.out, Catch::Contains(gpu));
  const auto compared = cli({"runs", "compare", "1", "2", "3", "--db", db});
  REQUIRE(compared.code == 0);
  CHECK_THAT(compared.out, Catch::Contains("run 2 parts from run 1 at task start ") && Catch::Contains("loads from there: "));
  CHECK_THAT(compared.out, Catch::Contains("run 3 starts the same tasks as run 1 on the same workers in the same order"));
  // Runs of another workload are compared in the table only.
  REQUIRE(cli({"replay", "--workload", "matmul2d:N=5", "--gpus", "2", "--memory", "8items", "--db", db}).code == 0);
  const auto other = cli({"runs", "compare", "1", "4", "--db", db});
  REQUIRE(other.code == 0);
  CHECK_THAT(other.out, !Catch::Contains("parts from") && !Catch::Contains("the same tasks"));
}
