// The executor's side that needs no GPU: the replay engine driven by an execution device (a
// host device here, with the real reference kernels on copies of the tiles it holds), the
// calibration of a platform from a trace, platform files, measured runs in the database,
// and the execute / calibrate / fidelity commands.
#include <catch2/catch.hpp>

#include <deque>
#include <fstream>
#include <sstream>

#include "db/store.hpp"
#include "helpers.hpp"
#include "instrument/executor.hpp"
#include "instrument/numeric.hpp"
#include "analysis/calibration.hpp"
#include "formats/platform_io.hpp"
#include "formats/starpu_import.hpp"

using namespace tilelens;
using namespace tilelens::instrument;
using test::generated;
using test::small_platform;
using test::TempFile;

namespace {

// An execution device on the host: each memory node holds copies of the tiles it was sent,
// kernels run on those copies (numeric.hpp's reference), write-backs copy them home.
// Operations end one at a time in the order they were issued. It checks what the engine
// asks: room within M, loads into empty places, releases and write-backs of held copies.
// Each node is one logical GPU; a Fill remakes its tile with `seed`, the tiles' seed.
template <class T>
class HostDevice final : public ExecutionDevice {
 public:
  HostDevice(const Workload& w, const KernelPlan& plan, Tiles<T>& host, std::uint32_t nodes, double memory, std::uint64_t seed)
      : w_(w), plan_(plan), host_(host), memory_(memory), seed_(seed), used_(nodes, 0) {
    for (std::uint32_t n = 0; n < nodes; ++n) {
      node_.push_back(Tiles<T>{std::vector<std::vector<T>>(w.data_count()), host.outputs});
      for (auto& o : node_.back().outputs) std::fill(o.begin(), o.end(), T(0));
      held_.emplace_back(w.data_count(), 0);
    }
  }
  void start_load(std::uint32_t transfer, std::uint32_t n, DataId d, std::int32_t source) override {
    take(n, d);
    node_[n].data[d] = source == kFromHost ? host_.data[d] : node_[static_cast<std::size_t>(source)].data[d];
    queue_.push_back({true, transfer});
  }
  void start_writeback(std::uint32_t transfer, std::uint32_t n, DataId d) override {
    if (!held_[n][d]) problems.push_back("write-back of a copy not held");
    host_.data[d] = node_[n].data[d];
    queue_.push_back({true, transfer});
  }
  void allocate(std::uint32_t n, DataId d) override {
    take(n, d);
    node_[n].data[d].assign(w_.data()[d].bytes / element_size(plan_.precision), T(0));
  }
  void release(std::uint32_t n, DataId d) override {
    if (!held_[n][d]) problems.push_back("release of a copy not held");
    held_[n][d] = 0;
    used_[n] -= static_cast<double>(w_.data()[d].bytes);
    node_[n].data[d].clear();
  }
  std::int64_t start_task(GpuId worker, TaskId task) override {
    for (const Access& a : w_.accesses(task)) {
      if (node_[worker].data[a.data].empty()) problems.push_back("a kernel on a tile not resident");
    }
    run_on_host(w_, plan_, task, node_[worker], seed_);
    queue_.push_back({false, worker});
    return kUnknownEnd;
  }
  std::int64_t wait(std::vector<std::uint32_t>& transfers, std::vector<GpuId>& workers) override {
    if (queue_.empty()) return kNothingInFlight;
    const auto [is_transfer, id] = queue_.front();
    queue_.pop_front();
    (is_transfer ? transfers : workers).push_back(id);
    return ++now_;
  }
  std::int64_t now() const override { return now_; }

  // The products' result: every node's outputs summed (each output is computed on one node).
  void gather_outputs() {
    for (auto& o : host_.outputs) std::fill(o.begin(), o.end(), T(0));
    for (const Tiles<T>& n : node_) {
      for (std::size_t o = 0; o < host_.outputs.size(); ++o) {
        for (std::size_t i = 0; i < host_.outputs[o].size(); ++i) host_.outputs[o][i] += n.outputs[o][i];
      }
    }
  }
  std::vector<std::string> problems;

 private:
  void take(std::uint32_t n, DataId d) {
    if (held_[n][d]) problems.push_back("a second copy in one memory");
    held_[n][d] = 1;
    used_[n] += static_cast<double>(w_.data()[d].bytes);
    if (used_[n] > memory_) problems.push_back("more than M bytes held");
  }
  const Workload& w_;
  const KernelPlan& plan_;
  Tiles<T>& host_;
  double memory_;
  std::uint64_t seed_;
  std::vector<double> used_;
  std::vector<Tiles<T>> node_;
  std::vector<std::vector<char>> held_;
  std::deque<std::pair<bool, std::uint32_t>> queue_;
  std::int64_t now_ = 0;
};

struct HostRun {
  ReplaySummary summary;
  Verdict verdict;
  std::vector<std::string> problems;
};

HostRun run_on_host_device(const std::string& spec, const std::string& scheduler_name, const std::string& eviction_name,
                           std::uint32_t gpus, double memory_items, std::uint32_t depth, const std::string& memory_model = "starpu") {
  const Workload w = generated(spec);
  auto plan = plan_kernels(w);
  REQUIRE(plan.ok());
  const HostTiles input = make_tiles(w, *plan, 4);
  HostTiles host = input;
  Platform p = small_platform(static_cast<double>(w.largest_data_bytes()) * memory_items, gpus);
  HostDevice<float> device(w, *plan, host, gpus, p.memory_bytes, 4);
  auto scheduler = make_scheduler(scheduler_name);
  auto eviction = make_eviction(eviction_name);
  REQUIRE(scheduler.ok());
  REQUIRE(eviction.ok());
  ReplayOptions options;
  options.platform = p;
  options.buffer_depth = depth;
  options.device = &device;
  auto model = parse_memory_model(memory_model);
  REQUIRE(model.ok());
  options.memory_model = *model;
  auto summary = replay(w, *scheduler->scheduler, *eviction->policy, options);
  INFO((summary.ok() ? "" : summary.error().message));
  REQUIRE(summary.ok());
  device.gather_outputs();
  return {*summary, verify(w, *plan, input, host, 1000, 2), device.problems};
}

}  // namespace

TEST_CASE("the engine driven by a device computes the right result under eviction pressure", "[executor]") {
  // Factorizations write their tiles: the result is right only if every dirty copy is written
  // back before it leaves, and stale copies on other GPUs are never read.
  for (const auto& [spec, scheduler, eviction, gpus] : std::vector<std::tuple<std::string, std::string, std::string, std::uint32_t>>{
           {"cholesky:N=6,b=8", "eager", "lru", 1},     {"cholesky:N=6,b=8", "dmdas", "lru", 2},  {"cholesky:N=6,b=8", "darts", "luf", 3},
           {"lu:N=5,b=8", "eager", "belady", 1},        {"lu:N=5,b=8", "lws", "lru", 2},          {"matmul2d:N=5,b=8", "hfp", "belady", 2},
           {"matmul3d:N=3,b=8", "dmdar", "lru", 2},     {"cholesky:N=6,b=8", "heteroprio", "lru", 2}}) {
    DYNAMIC_SECTION(spec << " under " << scheduler << "/" << eviction << " on " << gpus << " GPUs") {
      const HostRun run = run_on_host_device(spec, scheduler, eviction, gpus, 5, 3);
      CHECK(run.problems.empty());
      if (!run.problems.empty()) FAIL(run.problems.front());
      CHECK(run.summary.evictions > 0);
      INFO(run.verdict.detail);
      CHECK(run.verdict.ok);
      CHECK(run.verdict.checked > 0);
    }
  }
}

TEST_CASE("real StarPU traces re-execute in fp64 on logical GPUs of the host device under two policies, verified", "[executor][starpu]") {
  // The fixtures were recorded from a real StarPU (tests/starpu): Chameleon-named double
  // kernels (dplgsy, dpotrf, dgetrf_nopiv, dtrsm, dsyrk, dgemm) and a panel_done task with no
  // kernel. Their plans map each name to its call, run every tile's kernels in fp64 on two
  // logical GPUs of the host device, under two policies, and must verify to fp64's tolerance.
  const std::string fixtures = std::string(TILELENS_SOURCE_DIR) + "/tests/starpu/fixtures/";
  for (const std::string app : {"cholesky", "lu"}) {
    const std::string dir = fixtures + app + "/";
    auto imported = import_starpu_files(dir + "tasks.rec", dir + "data.rec", dir + "paje.trace", {app, std::nullopt});
    REQUIRE(imported.ok());
    const Workload& w = imported->workload;
    auto plan = plan_kernels(w);
    REQUIRE(plan.ok());
    INFO(app);
    CHECK(plan->precision == Precision::Double);
    CHECK(plan->b == 128);
    CHECK(plan->checkable);
    CHECK(plan->what == app);
    std::map<Op, std::size_t> ops;
    for (const TaskKernel& k : plan->tasks) ++ops[k.op];
    CHECK(ops[Op::Fill] > 0);  // dplgsy
    if (app == "lu") {
      // Both LU panels: the row panel (unit lower, from the left) and the column panel.
      CHECK(ops[Op::TrsmLeftUnitLower] > 0);
      CHECK(ops[Op::TrsmRightUpper] == ops[Op::TrsmLeftUnitLower]);
      CHECK(ops[Op::GemmNN] > 0);
    } else {
      CHECK(ops[Op::TrsmRightLowerT] > 0);
      CHECK(ops[Op::GemmNT] > 0);
    }
    for (const std::string scheduler_name : {"dmdas", "darts"}) {
      DYNAMIC_SECTION(app << " under " << scheduler_name) {
        const HostTilesD input = make_tiles_as<double>(w, *plan, 7);
        HostTilesD host = input;
        Platform p = small_platform(static_cast<double>(w.largest_data_bytes()) * 6, 2);
        HostDevice<double> device(w, *plan, host, 2, p.memory_bytes, 7);
        auto scheduler = make_scheduler(scheduler_name);
        auto eviction = make_eviction("lru");
        REQUIRE(scheduler.ok());
        ReplayOptions options;
        options.platform = p;
        options.buffer_depth = 2;
        options.device = &device;
        // Every tile is made on a GPU (dplgsy writes it first): StarPU drops such data at the
        // end, and the result stays on the GPUs unless the flush writes them home too.
        options.memory_model = *parse_memory_model("starpu:flush_homeless=1");
        auto summary = replay(w, *scheduler->scheduler, *eviction->policy, options);
        REQUIRE(summary.ok());
        CHECK(device.problems.empty());
        CHECK(summary->evictions > 0);
        CHECK(summary->gpus.size() == 2);
        CHECK(summary->gpus[0].tasks > 0);
        CHECK(summary->gpus[1].tasks > 0);
        const Verdict verdict = verify(w, *plan, input, host, 1000, 3, default_tolerance(plan->precision), 16);
        INFO(verdict.detail);
        CHECK(verdict.ok);
        CHECK(verdict.checked > 10);
        CHECK(verdict.worst < 1e-12);
      }
    }
  }
}

TEST_CASE("execute --dry-run prints an imported trace's kernel plan and arena without a GPU", "[executor][cli]") {
  const std::string dir = std::string(TILELENS_SOURCE_DIR) + "/tests/starpu/fixtures/lu/";
  TempFile db("dry-run.db"), workload_file("dry-run.workload");
  const auto imported = test::cli({"import", "starpu", dir + "tasks.rec", "--data", dir + "data.rec", "--paje", dir + "paje.trace",
                                       "--db", db.path, "--workload-out", workload_file.path, "--memory", "1MiB"});
  REQUIRE(imported.code == 0);
  const auto from_file = test::cli({"execute", "--workload", workload_file.path, "--dry-run", "--memory", "1MiB", "--gpus", "2"});
  INFO(from_file.err);
  REQUIRE(from_file.code == 0);
  CHECK_THAT(from_file.out, Catch::Contains("fp64 tiles of 128 x 128") && Catch::Contains("checked as lu") &&
                                Catch::Contains("dgetrf_nopiv (6 tasks): getrf-nopiv") && Catch::Contains("dtrsm (15 tasks): trsm-left-unit-lower") && Catch::Contains("dtrsm (15 tasks): trsm-right-upper") &&
                                Catch::Contains("2 GPUs, each an arena of 1048576 bytes") &&
                                Catch::Contains("data of 131072 bytes: slots of 131072 bytes, 8 fit in M (evictions needed)") &&
                                Catch::Contains("in all: 91 cuBLAS/cuSOLVER calls") && Catch::Contains("36 fills, 6 waits"));
  // Logical GPUs: K on one device, said by the plan; --gpus must agree.
  const auto logical = test::cli({"execute", "--workload", "cholesky:N=4,b=64", "--logical-gpus", "3", "--memory", "4items", "--dry-run"});
  INFO(logical.err);
  REQUIRE(logical.code == 0);
  CHECK_THAT(logical.out, Catch::Contains("3 GPUs, each an arena") && Catch::Contains("logical GPUs: all 3 on CUDA device 0") &&
                              Catch::Contains("fp32 tiles of 64 x 64") && Catch::Contains("in all: 20 cuBLAS/cuSOLVER calls"));
  CHECK_THAT(logical.out, Catch::Contains("launch-ahead 1 kernel queued") && Catch::Contains("CUPTI on, records linked to tasks by callbacks"));
  // Logical GPUs share one memory: without a --gpu-link the engine is given the device's own, so
  // loads from the other GPU happen (on no link, every such tile went through the host).
  CHECK_THAT(logical.out, Catch::Contains("GPU link 1000 GB/s"));
  const auto linked = test::cli({"execute", "--workload", "cholesky:N=4,b=64", "--logical-gpus", "2", "--gpu-link", "50GB/s", "--memory", "4items", "--dry-run"});
  INFO(linked.err);
  CHECK_THAT(linked.out, Catch::Contains("GPU link 50 GB/s"));
  // The ways of linking CUPTI's records and the launch-ahead depths, named in the plan; others refused.
  const auto callbacks = test::cli({"execute", "--workload", "cholesky:N=4,b=64", "--cupti-apis", "callbacks", "--launch-ahead", "2", "--dry-run"});
  INFO(callbacks.err);
  REQUIRE(callbacks.code == 0);
  CHECK_THAT(callbacks.out, Catch::Contains("launch-ahead 2 kernels queued") && Catch::Contains("linked to tasks by callbacks"));
  const auto no_api = test::cli({"execute", "--workload", "cholesky:N=4,b=64", "--cupti-apis", "none", "--dry-run"});
  CHECK(no_api.code == 2);
  CHECK_THAT(no_api.err, Catch::Contains("--cupti-apis") && Catch::Contains("all, launches or callbacks") && Catch::Contains("'none'"));
  for (const char* depth : {"3", "-1", "x"}) {
    const auto deep = test::cli({"execute", "--workload", "cholesky:N=4,b=64", "--launch-ahead", depth, "--dry-run"});
    CHECK(deep.code == 2);
    CHECK_THAT(deep.err, Catch::Contains("--launch-ahead must be 0, 1 or 2"));
  }
  const auto disagree = test::cli({"execute", "--workload", "cholesky:N=4,b=64", "--logical-gpus", "3", "--gpus", "2", "--dry-run"});
  CHECK(disagree.code == 2);
  CHECK_THAT(disagree.err, Catch::Contains("disagree"));
  // From the imported run: the waits last what StarPU measured.
  const auto unnamed = test::cli({"execute", "--from-run", "1", "--db", db.path, "--dry-run"});
  CHECK(unnamed.code == 2);
  CHECK_THAT(unnamed.err, Catch::Contains("--scheduler: run 1 was scheduled by") && Catch::Contains("not a tilelens scheduler"));
  const auto from_run = test::cli({"execute", "--from-run", "1", "--db", db.path, "--scheduler", "dmdas", "--dry-run"});
  INFO(from_run.err);
  REQUIRE(from_run.code == 0);
  CHECK_THAT(from_run.out, Catch::Contains("panel_done") && Catch::Contains("a wait of its measured duration"));
}

TEST_CASE("with a device, the engine takes the replay's decisions", "[executor]") {
  // One GPU, no prefetch window, a static order: every decision follows from the order of
  // events alone, so the loads, evictions and write-backs are the replay's. StarPU's model
  // without the two rules that decide by the clock: idle write-back (when the bus is idle)
  // and push-time prefetch (into the room free at that moment).
  const std::string model = "starpu:idle_writeback=0,prefetch_at_push=0";
  for (const std::string spec : {"cholesky:N=6,b=8", "matmul2d:N=6,b=8"}) {
    for (const std::string policy : {"belady", "lru", "fifo"}) {
      const HostRun run = run_on_host_device(spec, "rcm", policy, 1, 5, 1, model);
      const Workload w = generated(spec);
      auto scheduler = make_scheduler("rcm");
      auto eviction = make_eviction(policy);
      ReplayOptions options;
      options.platform = small_platform(static_cast<double>(w.largest_data_bytes()) * 5, 1);
      options.buffer_depth = 1;
      options.memory_model = *parse_memory_model(model);
      auto replayed = replay(w, *scheduler->scheduler, *eviction->policy, options);
      REQUIRE(replayed.ok());
      INFO(spec << " " << policy);
      CHECK(run.summary.loads == replayed->loads);
      CHECK(run.summary.evictions == replayed->evictions);
      CHECK(run.summary.writebacks == replayed->writebacks);
      CHECK(run.verdict.ok);
    }
  }
}

TEST_CASE("calibration recovers the rates a replay ran at", "[executor]") {
  // Depth 1: a task starts when its loads arrived, so its busy time is its kernel time.
  const Workload w = generated("cholesky:N=8");
  Platform p = small_platform(static_cast<double>(w.largest_data_bytes()) * 6, 1);
  p.default_gflops = 5000;
  p.kind_gflops = {{"POTRF", 800}, {"TRSM", 3000}, {"SYRK", 4000}, {"GEMM", 6000}};
  p.bus_bandwidth = 20e9;
  auto scheduler = make_scheduler("eager");
  auto eviction = make_eviction("lru");
  ReplayOptions options;
  options.platform = p;
  options.buffer_depth = 1;
  TraceRecorder recorder;
  auto summary = replay(w, *scheduler->scheduler, *eviction->policy, options, &recorder);
  REQUIRE(summary.ok());
  auto calibration = calibrate(w, recorder.trace, p);
  REQUIRE(calibration.ok());
  for (const auto& [kind, rate] : p.kind_gflops) {
    INFO(kind);
    CHECK(calibration->platform.kind_gflops.at(kind) == Approx(rate).epsilon(1e-3));  // durations are whole ns
  }
  // Loads overlap (a task's inputs share the bus), so each looks slower than the bus: the
  // calibrated bandwidth is at most the real one and the replay on it no faster.
  CHECK(calibration->platform.bus_bandwidth <= p.bus_bandwidth * 1.0001);
  CHECK(calibration->platform.bus_bandwidth > p.bus_bandwidth / 3);
  CHECK(calibration->host_loads == summary->loads_from_host);

  Trace empty;
  CHECK_FALSE(calibrate(w, empty, p).ok());
}

TEST_CASE("a platform file round-trips, and a bad one is refused with its field", "[executor]") {
  Platform p = small_platform(3e9, 2);
  p.name = "calibrated \"H100\"\tx\n";
  p.kind_gflops = {{"GEMM", 37132.5}, {"POTRF", 812.25}};
  p.latency_ns = 1234;
  p.bus_bandwidth = 53.5e9;
  std::stringstream text;
  write_platform_json(p, text, "a comment");
  auto back = read_platform_json(text, "p.json");
  INFO((back.ok() ? "" : back.error().message));
  REQUIRE(back.ok());
  CHECK(back->name == p.name);
  CHECK(back->gpus == 2);
  CHECK(back->memory_bytes == p.memory_bytes);
  CHECK(back->bus_bandwidth == p.bus_bandwidth);
  CHECK(back->latency_ns == 1234);
  CHECK(back->kind_gflops == p.kind_gflops);
  std::stringstream accented(R"({"format": 1, "name": "caf\u00e9 \/ \u0001"})");
  auto named = read_platform_json(accented, "a.json");
  REQUIRE(named.ok());
  CHECK(named->name == "caf\xc3\xa9 / \x01");

  const auto error_of = [](const std::string& json) {
    std::stringstream in(json);
    auto read = read_platform_json(in, "bad.json");
    return read.ok() ? std::string("accepted") : read.error().message;
  };
  CHECK_THAT(error_of("{\"format\": 1, \"gpus\": 0}"), Catch::Contains("bad.json") && Catch::Contains("\"gpus\""));
  CHECK_THAT(error_of("{\"format\": 1, \"bus_bandwidth\": -3}"), Catch::Contains("\"bus_bandwidth\""));
  CHECK_THAT(error_of("{\"format\": 1, \"kind_gflops\": {\"GEMM\": \"fast\"}}"), Catch::Contains("\"kind_gflops\""));
  CHECK_THAT(error_of("{\"format\": 1, \"gpu\": 2}"), Catch::Contains("unknown field \"gpu\""));
  CHECK_THAT(error_of("{\"gpus\": 2}"), Catch::Contains("\"format\" is missing"));
  CHECK_THAT(error_of("{\"format\": 2}"), Catch::Contains("version 2"));
  CHECK_THAT(error_of("{\"format\": 1,\n \"gpus\" 2}"), Catch::Contains("bad.json:2:") && Catch::Contains("expected ':'"));
}

TEST_CASE("a measured run's measurement and CUPTI records are stored, read back and deleted with it", "[executor][db]") {
  TempFile file("measured.db");
  auto store = db::Store::open(file.path);
  REQUIRE(store.ok());
  const Workload w = generated("matmul2d:N=4,b=16");
  auto workload_id = store->put_workload(w, "generated");
  REQUIRE(workload_id.ok());
  RunInfo info;
  info.workload_id = *workload_id;
  info.workload_spec = w.generator().spec;
  info.scheduler = "eager";
  info.eviction = "lru";
  info.platform = small_platform(1e6);
  info.mode = RunMode::Cuda;
  info.gpu_name = "NVIDIA H100 80GB HBM3";
  info.key = "k";
  auto writer = store->begin_run(info);
  REQUIRE(writer.ok());
  Measurement m;
  m.device = info.gpu_name;
  m.cupti = true;
  m.cupti_records = 2;
  m.cupti_dropped = 3;
  m.verification = "passed";
  m.worst_error = 2.5e-7;
  m.tiles_checked = 8;
  m.seed = 7;
  m.arena_bytes = 1e6;
  m.wall_ns = 123456;
  m.cupti_apis = "callbacks";
  m.launch_ahead = 2;
  m.kernels = "fp64 tiles of 128 x 128; result checked as lu\npanel_done (6 tasks): a wait of its measured duration";
  std::vector<CuptiRecord> records(2);
  records[0].kind = CuptiRecord::Kind::Kernel;
  records[0].external = external_id(ExternalKind::Task, 5);
  records[0].name = "sgemm";
  records[1].kind = CuptiRecord::Kind::Memcpy;
  records[1].external = external_id(ExternalKind::Load, 9);
  records[1].bytes = 1024;
  writer->write_measurement(m, records);
  RunMetrics metrics;
  metrics.summary.tasks = w.task_count();
  auto id = writer->finish(metrics);
  REQUIRE(id.ok());

  auto back = store->load_measurement(*id);
  REQUIRE(back.ok());
  REQUIRE(back->has_value());
  CHECK((*back)->device == m.device);
  CHECK((*back)->cupti_dropped == 3);
  CHECK((*back)->verification == "passed");
  CHECK((*back)->worst_error == m.worst_error);
  CHECK((*back)->wall_ns == 123456);
  CHECK((*back)->cupti_apis == "callbacks");
  CHECK((*back)->launch_ahead == 2);
  CHECK((*back)->kernels == m.kernels);
  auto connection = db::Connection::open(file.path, db::Connection::Access::ReadOnly);
  REQUIRE(connection.ok());
  CHECK(*connection->query_integer("SELECT count(*) FROM cupti_records WHERE external_kind = 'task' AND external_index = 5") == 1);
  CHECK(*connection->query_integer("SELECT count(*) FROM cupti_records WHERE external_kind = 'load' AND bytes = 1024") == 1);
  REQUIRE(store->delete_runs({*id}).ok());
  CHECK(*connection->query_integer("SELECT count(*) FROM cupti_records") == 0);
  CHECK(*connection->query_integer("SELECT count(*) FROM measurements") == 0);
}

TEST_CASE("execute says why it cannot run without a GPU, calibrate and fidelity work on stored runs", "[executor][cli]") {
  if (!cuda_available().ok()) {
    const auto run = test::cli({"execute", "--workload", "matmul2d:N=4,b=16", "--memory", "4items"});
    CHECK(run.code == 1);
    CHECK_THAT(run.err, Catch::Contains("needs a CUDA GPU"));
    CHECK(test::cli({"bench", "gpu", "--quick"}).code == 1);
  }
  CHECK(test::cli({"execute"}).code == 2);
  CHECK_THAT(test::cli({"execute", "--from-run", "1"}).err, Catch::Contains("--from-run: needs the database holding the run (db)"));
  for (const char* command : {"execute", "calibrate", "fidelity"}) {
    const auto help = test::cli({command, "--help"});
    CHECK(help.code == 0);
    CHECK_THAT(help.out, Catch::Contains(std::string("tilelens ") + command));
  }

  // On a stored run (replayed here, measured on a GPU), calibrate writes a platform file that
  // replay reads, and fidelity replays the run on it.
  TempFile db("fidelity.db"), platform("calibrated.json");
  REQUIRE(test::cli({"replay", "--workload", "cholesky:N=6", "--scheduler", "rcm", "--eviction", "belady", "--memory", "6items",
                     "--buffer", "1", "--db", db.path})
              .code == 0);
  const auto calibrated = test::cli({"calibrate", "--run", "1", "--db", db.path, "--output", platform.path});
  INFO(calibrated.err);
  REQUIRE(calibrated.code == 0);
  CHECK_THAT(calibrated.out, Catch::Contains("GEMM:") && Catch::Contains("GFlop/s"));
  const auto replayed = test::cli({"replay", "--workload", "cholesky:N=6", "--platform", platform.path, "--json"});
  INFO(replayed.err);
  CHECK(replayed.code == 0);
  CHECK_THAT(replayed.out, Catch::Contains("\"memory_bytes\":22118400"));  // the run's M, from the file (the default preset has 500 MiB)
  const auto fidelity = test::cli({"fidelity", "--run", "1", "--db", db.path});
  INFO(fidelity.err);
  CHECK(fidelity.code == 0);
  CHECK_THAT(fidelity.out, Catch::Contains("the loads match exactly"));
  const auto json = test::cli({"fidelity", "--run", "1", "--db", db.path, "--json"});
  CHECK(json.code == 0);
  CHECK_THAT(json.out, Catch::StartsWith("{\"run\":1,\"platform\":") && Catch::Contains("\"loads\":{\"measured\":") &&
                           Catch::Contains("\"difference_percent\":0"));
  CHECK_THAT(test::cli({"calibrate", "--run", "9", "--db", db.path}).err, Catch::Contains("no run 9"));
  CHECK_THAT(test::cli({"replay", "--workload", "cholesky:N=6", "--platform", "missing.json"}).err,
             Catch::Contains("missing.json") && Catch::Contains("cannot open"));
}

TEST_CASE("CUPTI records linked to nothing: kernels and copies into a GPU count, copies out and memsets do not", "[executor]") {
  const auto record = [](CuptiRecord::Kind kind, const char* name, std::uint64_t external) {
    CuptiRecord r;
    r.kind = kind;
    r.name = name;
    r.external = external;
    return r;
  };
  std::vector<CuptiRecord> records = {
      record(CuptiRecord::Kind::Kernel, "sgemm", external_id(ExternalKind::Task, 0)),
      record(CuptiRecord::Kind::Memcpy, "HtoD", external_id(ExternalKind::Load, 0)),
      record(CuptiRecord::Kind::Memcpy, "DtoH", 0),  // the outputs brought home after the run
      record(CuptiRecord::Kind::Memset, "memset", 0),
      record(CuptiRecord::Kind::Runtime, "runtime cbid 211", 0),
  };
  CHECK(unlinked_work_records(records) == 0);
  records.push_back(record(CuptiRecord::Kind::Kernel, "potrf_panel", 0));  // one of a task's kernels missed
  records.push_back(record(CuptiRecord::Kind::Memcpy, "PtoP", 0));
  records.push_back(record(CuptiRecord::Kind::Memcpy, "DtoD", 0));
  records.push_back(record(CuptiRecord::Kind::Memcpy, "HtoD", 0));
  CHECK(unlinked_work_records(records) == 4);
}
