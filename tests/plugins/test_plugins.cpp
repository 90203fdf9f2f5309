// Plugins (include/tilelens/plugin.h): the example EAGER and LRU plugins replay exactly as the
// built-in ones; a plugin's identity (name, version, file hash, parameters) is part of its
// spec and so of the run key; misbehaving plugins and bad files get clear errors, with
// nothing stored.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "eviction/policy.hpp"
#include "helpers.hpp"
#include "schedulers/scheduler.hpp"

using namespace tilelens;
using tilelens::test::cli;

namespace {

// The same workload, platform and depth under two scheduler/eviction pairs: their summaries'
// loads, evictions and makespan and their whole traces.
void check_identical(const std::string& workload, std::uint32_t gpus, const std::string& scheduler_a, const std::string& eviction_a,
                     const std::string& scheduler_b, const std::string& eviction_b) {
  const Workload w = test::generated(workload);
  const Platform platform = test::small_platform(static_cast<double>(w.working_set_bytes()) / 3, gpus);
  const test::Run first = test::run_replay(w, scheduler_a, eviction_a, platform, 2);
  const test::Run second = test::run_replay(w, scheduler_b, eviction_b, platform, 2);
  INFO(workload << " on " << gpus << " GPUs: " << scheduler_a << "/" << eviction_a << " against " << scheduler_b << "/" << eviction_b);
  CHECK(first.summary.loads == second.summary.loads);
  CHECK(first.summary.evictions == second.summary.evictions);
  CHECK(first.summary.makespan_ns == second.summary.makespan_ns);
  CHECK(test::trace_text(first.trace) == test::trace_text(second.trace));
  CHECK(first.trace.loads.size() > 0);
}

}  // namespace

TEST_CASE("the example EAGER and LRU plugins replay exactly as the built-in eager and lru", "[plugins]") {
  for (const std::string workload : {"matmul2d:N=6", "cholesky:N=8", "matmul3d:N=4"}) {
    for (std::uint32_t gpus : {1u, 2u}) {
      check_identical(workload, gpus, "eager", "lru", TILELENS_EAGER_PLUGIN, "lru");
      check_identical(workload, gpus, "eager", "lru", "eager", TILELENS_LRU_PLUGIN);
      check_identical(workload, gpus, "dmdar", "lru", "dmdar", TILELENS_LRU_PLUGIN);
    }
  }
}

TEST_CASE("a plugin's spec records its name, version, file hash and parameters, and a changed file is refused", "[plugins]") {
  auto made = make_scheduler(TILELENS_EAGER_PLUGIN);
  REQUIRE(made.ok());
  CHECK_THAT(made->spec, Catch::StartsWith(std::filesystem::absolute(TILELENS_EAGER_PLUGIN).lexically_normal().string() + ":"));
  CHECK_THAT(made->spec, Catch::Contains("plugin.name=eager-example") && Catch::Contains("plugin.version=1.0") && Catch::Contains("plugin.hash="));
  CHECK(short_scheduler_spec(made->spec) == "eager-example");
  // The canonical spec makes the same plugin again; with another hash it is refused.
  CHECK(make_scheduler(made->spec).ok());
  std::string changed = made->spec;
  const auto at = changed.find("plugin.hash=") + 12;
  changed.replace(at, 16, "0123456789abcdef");
  auto refused = make_scheduler(changed);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("changed since the run") && Catch::Contains("0123456789abcdef"));
  auto unknown = make_scheduler(std::string(TILELENS_EAGER_PLUGIN) + ":depth=3");
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.error().message, Catch::Contains("unknown parameter 'depth'") && Catch::Contains("takes no parameters"));
  auto eviction = make_eviction(TILELENS_LRU_PLUGIN);
  REQUIRE(eviction.ok());
  CHECK_THAT(eviction->spec, Catch::Contains("plugin.name=lru-example"));
  CHECK(short_eviction_spec(eviction->spec) == "lru-example");
  CHECK(short_eviction_spec("belady") == "belady");
}

TEST_CASE("bad plugin files and misbehaving plugins get clear errors", "[plugins][errors]") {
  auto missing = make_scheduler("./no-such-plugin.so");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("no-such-plugin.so") && Catch::Contains("no such file"));
  const test::TempFile text("not-a-library.so");
  std::ofstream(text.path) << "hello";
  auto not_library = make_scheduler(text.path);
  REQUIRE_FALSE(not_library.ok());
  CHECK_THAT(not_library.error().message, Catch::Contains("does not load as a shared library"));
  auto no_scheduler = make_scheduler(TILELENS_LRU_PLUGIN);
  REQUIRE_FALSE(no_scheduler.ok());
  CHECK_THAT(no_scheduler.error().message, Catch::Contains("exports no scheduler"));
  auto wrong_abi = make_scheduler(TILELENS_WRONG_ABI_PLUGIN);
  REQUIRE_FALSE(wrong_abi.ok());
  CHECK_THAT(wrong_abi.error().message, Catch::Contains("plugin ABI 99") && Catch::Contains("loads ABI 1"));

  const Workload w = test::generated("matmul2d:N=4");
  const Platform platform = test::small_platform(4 * static_cast<double>(w.data()[0].bytes));
  const auto replay_error = [&](const std::string& scheduler, const std::string& eviction) {
    auto made = make_scheduler(scheduler);
    REQUIRE(made.ok());
    auto policy = make_eviction(eviction);
    REQUIRE(policy.ok());
    ReplayOptions options;
    options.platform = platform;
    options.buffer_depth = 1;
    auto result = replay(w, *made->scheduler, *policy->policy, options);
    REQUIRE_FALSE(result.ok());
    return result.error().message;
  };
  CHECK_THAT(replay_error(TILELENS_REFUSING_PLUGIN, "lru"), Catch::Contains("refused the run") && Catch::Contains("only runs workloads of 7 tasks"));
  CHECK_THAT(replay_error(TILELENS_BAD_TASK_PLUGIN, "lru"), Catch::Contains("handed out task 21"));
  CHECK_THAT(replay_error("eager", TILELENS_BAD_VICTIM_PLUGIN), Catch::Contains("cannot be evicted now"));
}

TEST_CASE("replay and sweep take plugins, and a sweep reruns a plugin only when its file changed", "[plugins][cli]") {
  const test::TempFile database("plugins.db");
  const test::TempFile copy("libcopy_plugin.so");
  std::filesystem::copy_file(TILELENS_EAGER_PLUGIN, copy.path, std::filesystem::copy_options::overwrite_existing);
  const auto shown = cli({"replay", "--workload", "matmul2d:N=4", "--scheduler", copy.path, "--eviction", TILELENS_LRU_PLUGIN, "--memory", "4items",
                          "--db", database.path});
  REQUIRE(shown.code == 0);
  const auto listed = cli({"runs", "list", "--db", database.path});
  CHECK_THAT(listed.out, Catch::Contains("eager-example") && Catch::Contains("lru-example"));
  const std::vector<std::string> sweep = {"sweep", "--db", database.path, "--workload", "matmul2d:N=4", "--scheduler", copy.path, "--memory", "4items", "--quiet"};
  CHECK_THAT(cli(sweep).out, Catch::Contains("1 stored"));
  CHECK_THAT(cli(sweep).out, Catch::Contains("0 stored, 1 skipped"));
  std::ofstream(copy.path, std::ios::app | std::ios::binary) << '\0';  // another build: the same code, another hash
  CHECK_THAT(cli(sweep).out, Catch::Contains("1 stored"));
  // A plugin that fails leaves the database as it was: no failed run, nothing else.
  const auto runs_before = cli({"runs", "list", "--db", database.path}).out;
  const auto bad = cli({"replay", "--workload", "matmul2d:N=5", "--scheduler", TILELENS_BAD_TASK_PLUGIN, "--memory", "4items", "--db", database.path});
  CHECK(bad.code != 0);
  CHECK_THAT(bad.err, Catch::Contains("handed out task") && !Catch::Contains("stored"));
  CHECK(cli({"runs", "list", "--db", database.path}).out == runs_before);
  // A pair in a sweep: the first '/' after the plugin's file name splits it.
  CHECK_THAT(cli({"sweep", "--db", database.path, "--workload", "matmul2d:N=4", "--scheduler", copy.path + "/" + TILELENS_LRU_PLUGIN, "--memory",
                  "4items", "--quiet"}).out,
             Catch::Contains("1 stored"));
}

TEST_CASE("a sweep tries each plugin in a child process: a crash or a hang is reported and stores nothing", "[plugins][cli]") {
  const test::TempFile database("plugin-crash.db");
  const auto sweep = [&](const char* plugin, std::vector<std::string> extra) {
    std::vector<std::string> args = {"sweep", "--db", database.path, "--workload", "matmul2d:N=4", "--scheduler", std::string(plugin) + ",eager",
                                     "--memory", "4items", "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    return cli(args);
  };
  const auto crashed = sweep(TILELENS_CRASH_PLUGIN, {});
  CHECK_THAT(crashed.out, Catch::Contains("1 stored") && Catch::Contains("1 invalid"));
  CHECK_THAT(crashed.out + crashed.err, Catch::Contains("the plugin crashed (signal 11"));
  const auto hung = sweep(TILELENS_HANG_PLUGIN, {"--plugin-time-limit", "0.5"});
  CHECK_THAT(hung.out + hung.err, Catch::Contains("ran past the time limit of") && Catch::Contains("1 invalid"));
  // Only eager's runs are in the database (one per sweep): the misbehaving plugins left nothing.
  const auto listed = cli({"runs", "list", "--db", database.path});
  CHECK_THAT(listed.out, Catch::Contains("2 runs in") && !Catch::Contains("misbehaving") && !Catch::Contains("failed"));
  CHECK(cli({"sweep", "--db", database.path, "--workload", "matmul2d:N=4", "--plugin-time-limit", "0", "--quiet"}).code == 2);
  // A plain replay tries the plugin in a child too: the command says the plugin crashed, and
  // stores nothing.
  const auto replayed = cli({"replay", "--workload", "matmul2d:N=4", "--scheduler", TILELENS_CRASH_PLUGIN, "--memory", "4items", "--db", database.path});
  CHECK((replayed.code == 1 || replayed.code == 2));
  CHECK_THAT(replayed.err, Catch::Contains("the plugin crashed (signal 11"));
  CHECK(cli({"runs", "list", "--db", database.path}).out == listed.out);
}
