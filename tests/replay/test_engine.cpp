// The replay engine against DESIGN section 4: memory never exceeded, every task starts with
// its data, loads = evictions + resident, dependencies respected, bit-identical traces, and
// the fetch/prefetch and write-back semantics of section 3.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "helpers.hpp"
#include "replay/link_tree.hpp"

using namespace tilelens;
using test::check_invariants;
using test::generated;
using test::run_replay;
using test::small_platform;

TEST_CASE("invariants hold for every scheduler and eviction policy on every seed workload", "[engine]") {
  const std::vector<std::string> workloads = {"matmul2d:N=8,b=16", "matmul3d:N=4,b=16", "cholesky-tasks:N=6,b=16",
                                              "matmul2d-random-order:N=7,b=16", "matmul2d-random-pairs:N=7,b=16",
                                              "matmul2d-sparse:N=10,density=0.3,b=16", "cholesky:N=6,b=16", "lu:N=5,b=16"};
  for (const auto& spec : workloads) {
    const Workload w = generated(spec);
    for (const std::string scheduler : {"eager", "random:seed=2", "cm", "rcm", "mst"}) {
      for (const std::string eviction : {"lru", "fifo", "belady"}) {
        for (std::uint32_t gpus : {1u, 3u}) {
          for (std::uint32_t depth : {1u, 4u}) {
            // Room for a few tasks' data: evictions are frequent.
            const Platform p = small_platform(static_cast<double>(w.largest_data_bytes()) * 5, gpus);
            INFO(spec << " " << scheduler << " " << eviction << " gpus=" << gpus << " depth=" << depth);
            const auto run = run_replay(w, scheduler, eviction, p, depth);
            CHECK(check_invariants(w, p, run).empty());
            CHECK(check_invariants(w, p, run) == "");
            CHECK(run.summary.tasks == w.task_count());
            CHECK(run.summary.fetches + run.summary.prefetches + run.summary.unused_loads == run.summary.loads);
          }
        }
      }
    }
  }
}

TEST_CASE("the same inputs give the same trace, bit for bit", "[engine]") {
  const Workload w = generated("cholesky:N=8,b=32");
  Platform p = small_platform(static_cast<double>(w.largest_data_bytes()) * 7, 2);
  p.latency_ns = 250;
  const auto a = run_replay(w, "eager", "lru", p, 4);
  const auto b = run_replay(w, "eager", "lru", p, 4);
  CHECK(test::trace_text(a.trace) == test::trace_text(b.trace));
  CHECK(!test::trace_text(a.trace).empty());
  const auto c = run_replay(w, "random:seed=1", "lru", p, 4);
  const auto d = run_replay(w, "random:seed=1", "lru", p, 4);
  CHECK(test::trace_text(c.trace) == test::trace_text(d.trace));
  CHECK(test::trace_text(c.trace) != test::trace_text(a.trace));
}

TEST_CASE("without a prefetch window every load is a fetch, with one loads overlap compute", "[engine]") {
  // The fgcs model: StarPU's prefetches each task at push on a one-GPU platform, window or not.
  const Workload w = generated("matmul2d:N=6,b=64");
  const Platform p = small_platform(1e12);
  const auto serial = run_replay(w, "eager", "lru", p, 1, "fgcs");
  CHECK(serial.summary.prefetches == 0);
  CHECK(serial.summary.fetches == serial.summary.loads);
  const auto pipelined = run_replay(w, "eager", "lru", p, 4, "fgcs");
  CHECK(pipelined.summary.loads == serial.summary.loads);  // 2N compulsory loads either way
  CHECK(pipelined.summary.loads == 12);
  CHECK(pipelined.summary.prefetches > 0);
  CHECK(pipelined.summary.makespan_ns < serial.summary.makespan_ns);
  // Each load is attributed to the first task that used it: A_i to T(i,0), B_j to T(0,j).
  for (const auto& load : pipelined.trace.loads) {
    const Task& task = w.tasks()[load.task];
    const Data& data = w.data()[load.data];
    if (data.matrix == 'A') CHECK(task.j == 0);
    else CHECK(task.i == 0);
  }
}

TEST_CASE("the bus is shared fluidly and the clock is integer nanoseconds", "[engine]") {
  // Two tasks with one 1000-byte input each, 1 GB/s: alone a load takes 1000 ns; two loads
  // issued together share the bus and both end at 2000 ns. StarPU's model orders transfers
  // started at one instant (ordered_starts): the second carries 1 ns more and ends after.
  WorkloadBuilder builder("two");
  const KindId k = builder.kind("K");
  const DataId a = builder.add_data({"a", 1000, 'A', 0, 0});
  const DataId b = builder.add_data({"b", 1000, 'A', 1, 0});
  const Access ra{a, AccessMode::Read}, rb{b, AccessMode::Read};
  builder.add_task(k, std::span<const Access>(&ra, 1), 500);
  builder.add_task(k, std::span<const Access>(&rb, 1), 500);
  auto w = std::move(builder).finish();
  REQUIRE(w.ok());
  Platform p = small_platform(1e6, 2);
  p.default_gflops = 1;  // 500 flops = 500 ns
  const std::string together = "starpu:ordered_starts=0";
  const auto run = run_replay(*w, "eager", "lru", p, 1, together);
  REQUIRE(run.trace.loads.size() == 2);
  for (const auto& load : run.trace.loads) {
    CHECK(load.issue_ns == 0);
    CHECK(load.end_ns == 2000);
  }
  CHECK(run.summary.makespan_ns == 2500);
  const auto ordered = run_replay(*w, "eager", "lru", p, 1);
  REQUIRE(ordered.trace.loads.size() == 2);
  std::vector<std::int64_t> ends;
  for (const auto& load : ordered.trace.loads) ends.push_back(load.end_ns);
  std::sort(ends.begin(), ends.end());
  CHECK(ends == std::vector<std::int64_t>{2000, 2001});
  CHECK(ordered.summary.makespan_ns == 2501);
  CHECK(run_replay(*w, "eager", "lru", p, 1, "fgcs").summary.makespan_ns == 2500);
  p.latency_ns = 100;
  const auto late = run_replay(*w, "eager", "lru", p, 1, together);
  CHECK(late.summary.makespan_ns == 2600);
}

TEST_CASE("written data: write-backs, invalidations and GPU-to-GPU copies", "[engine]") {
  const Workload w = generated("cholesky:N=6,b=32");
  const double tile = static_cast<double>(w.largest_data_bytes());
  Platform p = small_platform(tile * 6, 2);
  const auto pcie = run_replay(w, "eager", "lru", p, 4);
  CHECK(check_invariants(w, p, pcie).empty());
  CHECK(pcie.summary.writebacks > 0);
  CHECK(pcie.summary.loads_from_gpu == 0);
  // Every written tile ends valid on the host: the final flush writes back what remains dirty.
  std::size_t flushed = 0;
  for (const auto& wb : pcie.trace.writebacks) flushed += wb.cause == WritebackCause::Flush ? 1 : 0;
  CHECK(flushed > 0);
  CHECK(pcie.summary.flush_end_ns >= pcie.summary.makespan_ns);

  p.gpu_link_bandwidth = 50e9;
  const auto nvlink = run_replay(w, "eager", "lru", p, 4);
  CHECK(check_invariants(w, p, nvlink) == "");
  CHECK(nvlink.summary.loads_from_gpu > 0);
  CHECK(nvlink.summary.bytes_gpu_to_gpu > 0);
  CHECK(nvlink.summary.invalidations + pcie.summary.invalidations > 0);
}

TEST_CASE("EAGER+LRU on matmul2d turns pathological once M cannot hold one input matrix (fgcs 5.2)", "[engine][fgcs]") {
  // M = 20 block-rows/columns; one input matrix of N blocks fits while N <= 20.
  const auto ratio = [](int N) {
    const Workload w = generated("matmul2d:N=" + std::to_string(N) + ",b=32");
    const Platform p = small_platform(20.0 * static_cast<double>(w.largest_data_bytes()));
    const auto run = run_replay(w, "eager", "lru", p, 4);
    return static_cast<double>(run.summary.loads) / (2.0 * N);
  };
  CHECK(ratio(8) == 1.0);
  CHECK(ratio(14) == 1.0);
  CHECK(ratio(24) > 10);  // every column of B reloaded for every row of C
  CHECK(ratio(30) > ratio(24));
}

TEST_CASE("a task whose data exceed M is refused before the run, naming it", "[engine][errors]") {
  const Workload w = generated("matmul3d:N=3,b=16");
  const Platform p = small_platform(2.5 * static_cast<double>(w.largest_data_bytes()));
  auto scheduler = make_scheduler("eager");
  auto eviction = make_eviction("lru");
  ReplayOptions options;
  options.platform = p;
  auto result = replay(w, *scheduler->scheduler, *eviction->policy, options);
  REQUIRE_FALSE(result.ok());
  CHECK_THAT(result.error().message, Catch::Contains("GEMM(0,0,1)") && Catch::Contains("give more memory"));
  options.platform.memory_bytes = 0;
  CHECK_FALSE(replay(w, *scheduler->scheduler, *eviction->policy, options).ok());
}

TEST_CASE("the PCIe tree shares links max-min fairly", "[engine][pcie]") {
  // Two switches of 22 GB/s with two GPUs each, 12 GB/s per GPU, a 100 GB/s host link.
  LinkTree tree;
  const auto host = tree.add_link(100e9);
  const auto switch0 = tree.add_link(22e9), switch1 = tree.add_link(22e9);
  std::vector<std::uint32_t> gpu;
  for (int g = 0; g < 4; ++g) gpu.push_back(tree.add_link(12e9));
  const auto path = [&](int g) {
    LinkTree::Path p;
    p.links = {host, g < 2 ? switch0 : switch1, gpu[static_cast<std::size_t>(g)], 0};
    p.length = 3;
    return p;
  };
  tree.add(0, 1e9, path(0), 0);
  CHECK(tree.rate_of(0) == Approx(12.0));  // alone: its own link is the bottleneck (bytes per ns)
  tree.add(1, 1e9, path(1), 0);
  CHECK(tree.rate_of(0) == Approx(11.0));  // two GPUs behind one switch share its 22 GB/s
  CHECK(tree.rate_of(1) == Approx(11.0));
  tree.add(2, 1e9, path(2), 0);
  CHECK(tree.rate_of(2) == Approx(12.0));  // the other switch is free
  tree.add(3, 1e9, path(0), 0);            // a second transfer to GPU 0 halves its link
  CHECK(tree.rate_of(0) == Approx(6.0));
  CHECK(tree.rate_of(3) == Approx(6.0));
  CHECK(tree.rate_of(1) == Approx(10.0));  // and GPU 1 takes what the switch has left
  const std::int64_t next = tree.next_completion();
  CHECK(next == static_cast<std::int64_t>(std::ceil(1e9 / 12.0)));  // transfer 2 first
  tree.advance(next);
  std::vector<std::uint32_t> done;
  tree.take_completed(done);
  CHECK(done == std::vector<std::uint32_t>{2});
}

TEST_CASE("a replay on a PCIe tree loads at the GPU link's rate and keeps the invariants", "[engine][pcie]") {
  const Workload w = generated("matmul2d:N=8");
  Platform p = small_platform(6.0 * static_cast<double>(w.largest_data_bytes()), 4);
  p.bus_bandwidth = 100e9;
  p.gpu_bus_bandwidth = 12e9;
  p.gpus_per_switch = 2;
  p.switch_bandwidth = 22e9;
  const auto run = run_replay(w, "darts", "luf", p, 4);
  CHECK(check_invariants(w, p, run).empty());
  // The very first load is alone on its GPU's link: 12 GB/s, not the host's 100.
  const LoadRecord& first = run.trace.loads.front();
  const double seconds = static_cast<double>(first.end_ns - first.issue_ns) * 1e-9;
  CHECK(static_cast<double>(first.bytes) / seconds <= 12e9 * 1.0001);
  // Without the tree the same replay moves data through the shared 100 GB/s bus: faster.
  Platform flat = p;
  flat.gpu_bus_bandwidth = 0;
  flat.gpus_per_switch = 0;
  flat.switch_bandwidth = 0;
  const auto fast = run_replay(w, "darts", "luf", flat, 4);
  CHECK(fast.summary.makespan_ns < run.summary.makespan_ns);
}

TEST_CASE("a write may overtake the eviction write-back of the version it replaces", "[engine]") {
  // LU on 4 GPUs with GPU links and a tight memory: a GPU evicts the last valid copy of a
  // tile with a write-back while another GPU, which copied the tile over a link just before,
  // rewrites it. That write-back is stale: it must neither fail the run (it once did, saying
  // the workload lacked a dependency) nor validate the host's copy.
  const Workload w = generated("lu:N=10");
  Platform p = small_platform(10.0 * static_cast<double>(w.largest_data_bytes()), 4);
  p.gpu_link_bandwidth = 24e9;
  p.bus_bandwidth = 12e9;
  p.default_gflops = 13393;
  // The fgcs model's timing gives the case (StarPU's, with its idle write-backs, avoids it here).
  const auto run = run_replay(w, "eager", "lru", p, 4, "fgcs");
  CHECK(run.summary.tasks == w.task_count());
  CHECK(check_invariants(w, p, run).empty());
  CHECK(run.summary.stale_writebacks > 0);  // the case above did happen
}

TEST_CASE("workers sharing one memory: the invariants hold per memory, and every worker computes", "[engine][shared]") {
  for (const std::string spec : {"lu:N=7,b=16", "cholesky:N=7,b=16", "matmul2d:N=8,b=16"}) {
    const Workload w = generated(spec);
    for (const std::string scheduler : {"eager", "dmdas", "lws", "ap", "darts", "hfp", "partition", "laheteroprio"}) {
      for (const std::string eviction : {"lru", "luf"}) {
        for (std::uint32_t per_memory : {2u, 4u}) {
          Platform p = small_platform(static_cast<double>(w.largest_data_bytes()) * 12, 4);
          p.workers_per_memory = per_memory;
          INFO(spec << " " << scheduler << "/" << eviction << " workers per memory " << per_memory);
          const auto run = run_replay(w, scheduler, eviction, p, 3);
          CHECK(check_invariants(w, p, run) == "");
          REQUIRE(run.summary.tasks == w.task_count());
          REQUIRE(run.summary.gpus.size() == 4);
          for (const auto& worker : run.summary.gpus) CHECK(worker.tasks > 0);
          // Memory counters sit on each memory's first worker only.
          for (GpuId g = 0; g < 4; ++g) {
            if (g % per_memory != 0) CHECK(run.summary.gpus[g].loads == 0);
          }
        }
      }
    }
  }
}

TEST_CASE("a memory shared by K workers loads each data once where K separate memories load it K times", "[engine][shared]") {
  // Every worker needs every input of a matmul2d with room for all of it: separate memories
  // replicate the inputs, one shared memory holds one copy (darts 7.3's multicore).
  const Workload w = generated("matmul2d:N=6,b=16");
  Platform separate = small_platform(static_cast<double>(w.working_set_bytes()) * 2, 3);
  Platform shared = separate;
  shared.workers_per_memory = 3;
  const auto apart = run_replay(w, "eager", "lru", separate, 2);
  const auto together = run_replay(w, "eager", "lru", shared, 2);
  CHECK(together.summary.loads == w.data_count());
  CHECK(apart.summary.loads > together.summary.loads);
  CHECK(check_invariants(w, shared, together) == "");
}

TEST_CASE("a platform whose workers do not split evenly into memories is refused", "[engine][shared][errors]") {
  const Workload w = generated("matmul2d:N=4,b=16");
  Platform p = small_platform(1e9, 3);
  p.workers_per_memory = 2;
  auto scheduler = make_scheduler("eager");
  auto eviction = make_eviction("lru");
  const auto result = replay(w, *scheduler->scheduler, *eviction->policy, ReplayOptions{p, 4});
  REQUIRE(!result);
  CHECK_THAT(result.error().message, Catch::Contains("do not split into memories of 2"));
}

TEST_CASE("a worker's speed stretches its tasks, and dmda hands the slower worker fewer", "[engine]") {
  // A real StarPU's CPU worker whose core another thread shares runs at half speed for a whole
  // run (docs/replay.md, "Against a real StarPU"): Platform::worker_speeds replays that.
  const Workload w = generated("cholesky:N=8,b=64");
  Platform p = small_platform(1e12, 2);
  const auto even = run_replay(w, "dmda", "lru", p, 1, "fgcs");
  p.worker_speeds = {0.25, 1.0};
  const auto uneven = run_replay(w, "dmda", "lru", p, 1, "fgcs");
  std::uint32_t tasks_even[2] = {0, 0}, tasks_uneven[2] = {0, 0};
  for (const auto& t : even.trace.tasks) ++tasks_even[t.gpu];
  for (const auto& t : uneven.trace.tasks) {
    ++tasks_uneven[t.gpu];
    const Task& task = w.tasks()[t.task];
    const double rate = p.gflops_of(w.kinds()[task.kind]) * p.speed_of(t.gpu);
    CHECK(t.end_ns - t.start_ns == static_cast<std::int64_t>(std::ceil(task.flops / rate)));
  }
  CHECK(tasks_uneven[0] < tasks_even[0]);
  CHECK(tasks_uneven[0] < tasks_uneven[1]);

  p.worker_speeds = {1.0};  // one speed for two workers
  CHECK_FALSE(check_platform(p, w).ok());
  p.worker_speeds = {1.0, 0.0};
  CHECK_FALSE(check_platform(p, w).ok());
  CHECK(format_worker_speeds({0.6, 1.0}) == "0.6,1");
  const auto parsed = parse_worker_speeds("0.6,1");
  REQUIRE(parsed.ok());
  CHECK(*parsed == std::vector<double>{0.6, 1.0});
  for (const char* bad : {"0.6,", ",1", "x", "0", "1e9", "0.5,nan"}) {
    const auto refused = parse_worker_speeds(bad);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("speed") != std::string::npos);
  }
}
