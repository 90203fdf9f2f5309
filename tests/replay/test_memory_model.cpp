// The memory models (runtime/memory_model.hpp, docs/replay.md "Memory models"): StarPU's rules
// checked from the trace a replay leaves, the fgcs model kept as it was, the specs, and the
// host bus's copy engines.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <variant>

#include "helpers.hpp"
#include "presets/platforms.hpp"
#include "runtime/memory_model.hpp"
#include "replay/platform_links.hpp"

using namespace tilelens;
using test::check_invariants;
using test::generated;
using test::run_replay;
using test::small_platform;

namespace {

// The machine fidelity.py exports for StarPU-SimGrid (v100-fgcs, one copy engine a direction),
// with `fraction` of the workload's working set as GPU memory.
Platform fidelity_platform(const Workload& w, double fraction) {
  Platform p = *find_platform_preset("v100-fgcs");
  p.memory_bytes = fraction * static_cast<double>(w.data_count() * w.largest_data_bytes());
  p.copy_engines = 1;
  return p;
}

// The fidelity matrix's machine with two GPUs and no link between them: data valid only on one
// GPU reach the other through the host.
Platform two_gpus_without_link(const Workload& w, double fraction) {
  Platform p = fidelity_platform(w, fraction);
  p.gpus = 2;
  p.gpu_link_bandwidth = 0;
  return p;
}

// EAGER and LRU on two-deep buffers under StarPU's model as it is and with `rule` off, each run
// checked against the replay's invariants.
std::pair<test::Run, test::Run> with_and_without(const Workload& w, const Platform& p, const std::string& rule) {
  auto with = run_replay(w, "eager", "lru", p, 2);
  auto without = run_replay(w, "eager", "lru", p, 2, "starpu:" + rule + "=0");
  REQUIRE(check_invariants(w, p, with).empty());
  REQUIRE(check_invariants(w, p, without).empty());
  return {std::move(with), std::move(without)};
}

// The issue's worst case, scaled down: a Cholesky on 2 workers sharing a small memory.
Platform shared_small_memory(const Workload& w, double items) {
  Platform p = small_platform(items * static_cast<double>(w.largest_data_bytes()), 2);
  p.workers_per_memory = 2;
  p.bus_bandwidth = 1.5e9;
  p.default_gflops = 2;
  return p;
}

// The capacity evictions whose task was not yet the next one to run on its worker when the
// eviction was decided (for a dirty victim, when its write-back began): evictions that only a
// prefetch could have made.
std::size_t evictions_by_prefetches(const test::Run& run) {
  std::map<TaskId, const TaskRecord*> task_of;
  std::map<std::pair<GpuId, std::uint32_t>, const TaskRecord*> by_order;
  for (const auto& t : run.trace.tasks) {
    task_of[t.task] = &t;
    by_order[{t.gpu, t.gpu_order}] = &t;
  }
  std::size_t found = 0;
  for (const auto& e : run.trace.evictions) {
    if (e.cause != EvictionCause::Capacity) continue;
    std::int64_t decided = e.time_ns;
    if (e.wrote_back) {
      for (const auto& wb : run.trace.writebacks) {
        if (wb.cause == WritebackCause::Eviction && wb.data == e.data && wb.gpu == e.gpu && wb.end_ns == e.time_ns) decided = wb.start_ns;
      }
    }
    const TaskRecord* task = task_of.at(e.for_task);
    if (task->gpu_order == 0) continue;
    const TaskRecord* before = by_order.at({task->gpu, task->gpu_order - 1});
    if (decided < before->start_ns) ++found;
  }
  return found;
}

}  // namespace

TEST_CASE("memory model specs: two models, each with its own parameters, canonical and short forms", "[memory-model]") {
  auto starpu = parse_memory_model("starpu");
  REQUIRE(starpu.ok());
  REQUIRE(std::holds_alternative<StarpuMemoryRules>(starpu->rules));
  CHECK(!std::get<StarpuMemoryRules>(starpu->rules).prefetch_evicts);
  CHECK(std::get<StarpuMemoryRules>(starpu->rules).idle_writeback);
  auto again = parse_memory_model(starpu->canonical());
  REQUIRE(again.ok());
  CHECK(again->canonical() == starpu->canonical());
  auto fgcs = parse_memory_model("fgcs");
  REQUIRE(fgcs.ok());
  CHECK(std::holds_alternative<FgcsMemoryRules>(fgcs->rules));
  CHECK(fgcs->canonical() == "fgcs");
  CHECK(memory_model_params("fgcs").empty());
  CHECK(short_memory_model_spec(starpu->canonical()) == "starpu");
  CHECK(short_memory_model_spec("starpu:idle_writeback=off") == "starpu:idle_writeback=0");
  CHECK(short_memory_model_spec("") == "");
  // The long spec runs stored while fgcs borrowed StarPU's parameters is still the fgcs model.
  const std::string stored =
      "fgcs:clean_first=0,fetches_first=0,flush_homeless=1,idle_writeback=0,max_fetches=0,max_prefetches=0,min_clean=5,"
      "prefetch_at_push=0,prefetch_evicts=1,reclaim=1,target_clean=10,touch_on_request=0";
  REQUIRE(parse_memory_model(stored).ok());
  CHECK(parse_memory_model(stored)->canonical() == "fgcs");
  CHECK(short_memory_model_spec(stored) == "fgcs");
  CHECK(is_fgcs_memory_model(stored));
  CHECK(is_fgcs_memory_model(""));
  CHECK_FALSE(is_fgcs_memory_model("starpu"));
  for (const char* bad : {"belady", "starpu:prefetch=1", "starpu:min_clean=120", "starpu:target_clean=2", "starpu:reclaim=0.5",
                          "starpu:max_fetches=-1", "starpu:idle_writeback=maybe", "fgcs:idle_writeback=1", "fgcs:x=1"}) {
    INFO(bad);
    CHECK_FALSE(parse_memory_model(bad).ok());
  }
  CHECK_THAT(parse_memory_model("starpu:prefetch=1").error().message, Catch::Contains("prefetch_evicts"));
  CHECK_THAT(parse_memory_model("fgcs:idle_writeback=1").error().message,
             Catch::Contains("takes no parameter") && Catch::Contains("starpu:idle_writeback"));
}

// The two managers share their mechanics and differ in rules only: StarPU's manager with every
// rule set as the fgcs model has it must replay exactly as the fgcs manager does.
TEST_CASE("the fgcs manager replays as StarPU's with every StarPU rule turned to the fgcs model's", "[memory-model][engine]") {
  const std::string as_fgcs =
      "starpu:clean_first=0,fetches_first=0,flush_homeless=1,idle_writeback=0,max_fetches=0,max_prefetches=0,"
      "prefetch_at_push=0,prefetch_evicts=1,recency_at_request=0,reclaim=1,suballocate=0,sync_reclaim=0,touch_on_request=0,"
      "wait_for_writebacks=0,relay_requests=0,pop_when_fetched=0,write_at_load=0,write_at_hit=0,progress_before_pop=0,handle_order=0,"
      "tidy_skips_busy=0,invalid_keeps_room=0,referenced_stay=0,sequential_reclaim=0,insert_at_allocation=0,requests_at_push=0,"
      "fetch_list_order=0,ordered_starts=0,list_at_second_hop=0,tidy_fetches_home=0,same_pass_pop=0,shared_push_requests=0";
  for (const std::string spec : {"cholesky:N=8,b=32", "lu:N=6,b=32"}) {
    const Workload w = generated(spec);
    for (const std::string scheduler : {"eager", "dmdar", "lws"}) {
      for (const bool shared : {false, true}) {
        const Platform p = shared ? shared_small_memory(w, 8) : small_platform(5.0 * static_cast<double>(w.largest_data_bytes()), 2);
        INFO(spec << " " << scheduler << (shared ? " shared" : " 2 GPUs"));
        const auto fgcs = run_replay(w, scheduler, "lru", p, 3, "fgcs");
        const auto starpu = run_replay(w, scheduler, "lru", p, 3, as_fgcs);
        const auto plain = run_replay(w, scheduler, "lru", p, 3);
        CHECK(fgcs.summary.loads == starpu.summary.loads);
        CHECK(fgcs.summary.writebacks == starpu.summary.writebacks);
        CHECK(fgcs.summary.makespan_ns == starpu.summary.makespan_ns);
        CHECK(fgcs.trace.evictions.size() == starpu.trace.evictions.size());
        // ... and the check can fail: StarPU's own rules replay differently.
        CHECK((plain.summary.loads != fgcs.summary.loads || plain.summary.makespan_ns != fgcs.summary.makespan_ns ||
               plain.summary.writebacks != fgcs.summary.writebacks));
      }
    }
  }
}

TEST_CASE("StarPU's model: a prefetch never evicts, only the next task's fetch does", "[memory-model][engine]") {
  for (const std::string spec : {"cholesky:N=10,b=32", "lu:N=8,b=32", "matmul2d:N=10,b=32"}) {
    const Workload w = generated(spec);
    for (const std::string scheduler : {"eager", "dmdar", "lws", "darts"}) {
      for (const bool shared : {false, true}) {
        Platform p = shared ? shared_small_memory(w, 10) : small_platform(6.0 * static_cast<double>(w.largest_data_bytes()), 2);
        INFO(spec << " " << scheduler << (shared ? " shared" : " 2 GPUs"));
        const auto run = run_replay(w, scheduler, scheduler == "darts" ? "luf" : "lru", p, 4);
        CHECK(check_invariants(w, p, run).empty());
        CHECK(evictions_by_prefetches(run) == 0);
      }
    }
  }
  // The check can fail: the fgcs model lets prefetches evict, and on this case they do.
  const Workload w = generated("cholesky:N=10,b=32");
  const Platform p = shared_small_memory(w, 10);
  const auto fgcs = run_replay(w, "eager", "lru", p, 4, "fgcs");
  CHECK(evictions_by_prefetches(fgcs) > 0);
  const auto starpu = run_replay(w, "eager", "lru", p, 4);
  CHECK(starpu.summary.unused_loads * 5 < fgcs.summary.unused_loads);
}

TEST_CASE("StarPU's model: DMDA prefetches a task's inputs when it allocates the task", "[memory-model][dmda]") {
  const Workload w = generated("cholesky:N=8,b=32");
  const Platform p = small_platform(12.0 * static_cast<double>(w.largest_data_bytes()), 2);
  const auto before_buffered = [&](const test::Run& run) {
    std::map<TaskId, std::int64_t> buffered;
    for (const auto& t : run.trace.tasks) buffered[t.task] = t.buffered_ns;
    std::size_t early = 0;
    for (const auto& load : run.trace.loads) early += load.task != kNoId && load.issue_ns < buffered.at(load.task) ? 1 : 0;
    return early;
  };
  CHECK(before_buffered(run_replay(w, "dmda", "lru", p, 2)) > 0);
  CHECK(before_buffered(run_replay(w, "dmda", "lru", p, 2, "starpu:prefetch_at_push=0")) == 0);
  // EAGER allocates nothing at push; on two memories nothing is prefetched then.
  CHECK(before_buffered(run_replay(w, "eager", "lru", p, 2)) == 0);
  // With one memory, StarPU prefetches every pushed task there, whatever the scheduler.
  Platform one = p;
  one.gpus = 1;
  CHECK(before_buffered(run_replay(w, "eager", "lru", one, 2)) > 0);
}

TEST_CASE("StarPU's model: idle write-backs, one at a time, only while the node moves nothing else", "[memory-model][engine]") {
  // StarPU counts whole replicas: below 20 of them, 5% is none and idle write-back never starts.
  const Workload w = generated("cholesky:N=16,b=32");
  const Platform p = shared_small_memory(w, 48);
  const auto run = run_replay(w, "eager", "lru", p, 1);
  CHECK(check_invariants(w, p, run).empty());
  std::size_t idle = 0;
  for (const auto& wb : run.trace.writebacks) {
    if (wb.cause != WritebackCause::Idle) continue;
    ++idle;
    for (const auto& load : run.trace.loads) {
      if (load.gpu != wb.gpu) continue;
      INFO("idle write-back of data " << wb.data << " at " << wb.start_ns << " while data " << load.data << " loads");
      CHECK_FALSE((load.issue_ns < wb.start_ns && wb.start_ns < load.end_ns));
    }
    for (const auto& other : run.trace.writebacks) {
      if (&other == &wb || other.gpu != wb.gpu) continue;
      CHECK_FALSE((other.start_ns < wb.start_ns && wb.start_ns < other.end_ns));
    }
  }
  CHECK(idle > 0);
  // A queued idle write-back that the node's next task needs is promoted to a fetch (a request,
  // whatever else moves) and the task waits for it.
  std::size_t promoted = 0;
  for (const auto& wb : run.trace.writebacks) {
    if (wb.cause != WritebackCause::Request) continue;
    ++promoted;
    for (const auto& t : run.trace.tasks) {
      if (t.gpu / p.workers_per_memory != wb.gpu / p.workers_per_memory) continue;
      bool uses = false;
      for (const Access& access : w.accesses(t.task)) uses = uses || access.data == wb.data;
      INFO("task " << t.task << " started at " << t.start_ns << " while data " << wb.data << " went home");
      if (uses) CHECK_FALSE((wb.start_ns <= t.start_ns && t.start_ns < wb.end_ns));
    }
  }
  CHECK(promoted > 0);
  const auto off = run_replay(w, "eager", "lru", p, 1, "starpu:idle_writeback=0");
  CHECK(std::none_of(off.trace.writebacks.begin(), off.trace.writebacks.end(), [](const auto& wb) { return wb.cause == WritebackCause::Idle; }));
  // Cleaned ahead of time, evicted replicas need no write-back of their own.
  std::size_t dirty_evictions = 0, dirty_evictions_off = 0;
  for (const auto& e : run.trace.evictions) dirty_evictions += e.wrote_back ? 1 : 0;
  for (const auto& e : off.trace.evictions) dirty_evictions_off += e.wrote_back ? 1 : 0;
  CHECK(dirty_evictions < dirty_evictions_off);
}

TEST_CASE("StarPU's model: data without a home are dropped at the end, not written back", "[memory-model][engine]") {
  // `fresh` is first written (no initial value: StarPU's handle without a home node); `kept`
  // is first read (it starts on the host, its home).
  WorkloadBuilder builder("homes");
  const KindId k = builder.kind("K");
  const DataId fresh = builder.add_data({"fresh", 1000, 'A', 0, 0});
  const DataId kept = builder.add_data({"kept", 1000, 'A', 1, 0});
  const Access init[] = {{fresh, AccessMode::Write}};
  const Access update[] = {{fresh, AccessMode::ReadWrite}, {kept, AccessMode::ReadWrite}};
  builder.add_task(k, init, 100);
  builder.add_task(k, update, 100);
  builder.derive_data_dependencies();
  auto w = std::move(builder).finish();
  REQUIRE(w.ok());
  const Platform p = small_platform(1e6, 1);
  const auto flushed = [](const test::Run& run) {
    std::vector<DataId> data;
    for (const auto& wb : run.trace.writebacks) {
      if (wb.cause == WritebackCause::Flush) data.push_back(wb.data);
    }
    std::sort(data.begin(), data.end());
    return data;
  };
  CHECK(flushed(run_replay(*w, "eager", "lru", p, 1)) == std::vector<DataId>{kept});
  CHECK(flushed(run_replay(*w, "eager", "lru", p, 1, "starpu:flush_homeless=1")) == std::vector<DataId>{fresh, kept});
  CHECK(flushed(run_replay(*w, "eager", "lru", p, 1, "fgcs")) == std::vector<DataId>{fresh, kept});
}

// Data registered with a home (StarPU's disk node out of core) exist there from the start: each
// write makes them untidy again, so StarPU's tidy sends them home while the node is idle, and the
// end writes back the rest; data without one are not flushed (docs/workload-format.md, `home`).
TEST_CASE("StarPU's model: data first written that have a home are written home when idle and at the end", "[memory-model][engine]") {
  const auto first_written = [](bool home) {
    WorkloadBuilder builder("first written");
    const KindId k = builder.kind("K");
    constexpr DataId kData = 100;
    for (DataId d = 0; d < kData; ++d) builder.add_data({"t" + std::to_string(d), 1000, 'A', static_cast<std::int32_t>(d), 0, home});
    for (DataId d = 0; d < kData; ++d) {
      const Access init[] = {{d, AccessMode::Write}};
      builder.add_task(k, init, 100);
    }
    for (int round = 0; round < 3; ++round) {
      for (DataId d = 0; d < kData; ++d) {
        const Access update[] = {{d, AccessMode::ReadWrite}};
        builder.add_task(k, update, 100);
      }
    }
    builder.derive_data_dependencies();
    auto w = std::move(builder).finish();
    REQUIRE(w.ok());
    return std::move(*w);
  };
  const auto count = [](const test::Run& run, WritebackCause cause) {
    return std::count_if(run.trace.writebacks.begin(), run.trace.writebacks.end(), [&](const auto& wb) { return wb.cause == cause; });
  };
  const Platform p = small_platform(200'000, 1);  // room for every datum: what goes home goes by the tidy, or at the end
  const auto homed = run_replay(first_written(true), "eager", "lru", p, 2);
  const auto homeless = run_replay(first_written(false), "eager", "lru", p, 2);
  // A write makes a replica with a home untidy again (StarPU's _starpu_memchunk_dirty); one without
  // a home is tidied only as a new replica.
  INFO("idle write-backs " << count(homed, WritebackCause::Idle) << " with a home, " << count(homeless, WritebackCause::Idle) << " without");
  CHECK(count(homed, WritebackCause::Idle) > count(homeless, WritebackCause::Idle));
  CHECK(count(homed, WritebackCause::Flush) > 0);
  CHECK(count(homeless, WritebackCause::Flush) == 0);
  CHECK(homed.summary.writebacks > homeless.summary.writebacks);
  // The fgcs model has no idle write-back: the home shows only in the end's flush, which the fgcs
  // model does for every datum anyway.
  CHECK(run_replay(first_written(true), "eager", "lru", p, 2, "fgcs").summary.writebacks ==
        run_replay(first_written(false), "eager", "lru", p, 2, "fgcs").summary.writebacks);
}

// StarPU's CPU drivers run each task in their own thread and progress only between tasks: a
// transfer that ends while both workers of the shared memory compute is noticed when the first
// of them ends its task, so no load is seen to arrive strictly inside both workers' tasks.
TEST_CASE("StarPU's model: with progress_between_tasks a transfer's end is noticed only when a worker of its node is between tasks", "[memory-model][engine]") {
  const Workload w = generated("cholesky:N=10,b=32");
  const Platform p = shared_small_memory(w, 8);
  const auto arrivals_inside_both_tasks = [&](const test::Run& run) {
    std::size_t inside = 0;
    for (const auto& load : run.trace.loads) {
      std::size_t computing = 0;
      for (GpuId g = 0; g < 2; ++g) {
        for (const auto& t : run.trace.tasks) {
          if (t.gpu == g && t.start_ns < load.end_ns && load.end_ns < t.end_ns) ++computing;
        }
      }
      inside += computing == 2 ? 1 : 0;
    }
    return inside;
  };
  const auto between = run_replay(w, "eager", "lru", p, 1, "starpu:progress_between_tasks=1");
  const auto at_once = run_replay(w, "eager", "lru", p, 1);
  REQUIRE(check_invariants(w, p, between).empty());
  REQUIRE(check_invariants(w, p, at_once).empty());
  CHECK(arrivals_inside_both_tasks(between) == 0);
  CHECK(arrivals_inside_both_tasks(at_once) > 0);  // the rule has something to hold
  // The fgcs model has no such rule, and the StarPU model's default (CUDA drivers) is off.
  CHECK(parse_memory_model("starpu")->canonical().find("progress_between_tasks=0") != std::string::npos);
}

// A worker whose task has ended computes no more, though its end waits to be noticed while its
// driver is inside a synchronous reclaim: the victim's write-back it waits for must reach it.
// One worker per memory node, tight memory, depth 2: the rule stalled the run there.
TEST_CASE("StarPU's model: progress_between_tasks lets a reclaim waiting on its victim's write-back see it end", "[memory-model][engine]") {
  const Workload w = generated("cholesky:N=6,b=32");
  const Platform p = small_platform(6.0 * 32 * 32 * 4, 1);
  const auto run = run_replay(w, "eager", "lru", p, 2, "starpu:progress_between_tasks=1");
  REQUIRE(run.summary.tasks == w.task_count());
  CHECK(check_invariants(w, p, run).empty());
  CHECK(run.summary.writebacks > 0);  // the reclaims did write victims back
}

// StarPU's real drivers poll: a worker with no task takes the first successor a task's end
// releases while the ending worker is still releasing the others. Task 0 runs alone on worker 0,
// worker 1 idles; its end releases tasks 1 and 2, in that order.
TEST_CASE("StarPU's model: with polling_drivers an idle worker takes a released task before the worker that released it", "[memory-model][engine]") {
  WorkloadBuilder builder = test::one_datum_tasks("fork", 3, 1000, 1000);
  builder.add_dependency(0, 1);
  builder.add_dependency(0, 2);
  auto w = std::move(builder).finish();
  REQUIRE(w.ok());
  Platform p = small_platform(1e6, 2);
  p.default_gflops = 1;
  const auto worker_of = [](const test::Run& run, TaskId task) {
    for (const auto& record : run.trace.tasks) {
      if (record.task == task) return record.gpu;
    }
    return GpuId{kNoId};
  };
  for (const std::string scheduler : {"eager", "lws:steal_head=1"}) {
    INFO(scheduler);
    const auto blocking = run_replay(*w, scheduler, "lru", p, 1);
    const auto polling = run_replay(*w, scheduler, "lru", p, 1, "starpu:polling_drivers=1");
    REQUIRE(check_invariants(*w, p, blocking).empty());
    REQUIRE(check_invariants(*w, p, polling).empty());
    REQUIRE(worker_of(blocking, 0) == 0);
    REQUIRE(worker_of(polling, 0) == 0);
    // Blocking drivers (StarPU-SimGrid's, the default): the releasing worker, awake, pops first.
    CHECK(worker_of(blocking, 1) == 0);
    CHECK(worker_of(blocking, 2) == 1);
    // Polling drivers: the idle worker has taken task 1 by the time worker 0 pops.
    CHECK(worker_of(polling, 1) == 1);
    CHECK(worker_of(polling, 2) == 0);
  }
  CHECK(parse_memory_model("starpu")->canonical().find("polling_drivers=0") != std::string::npos);
}

TEST_CASE("StarPU's model: at most max_fetches transfers in flight on a node", "[memory-model][engine]") {
  const Workload w = generated("matmul2d:N=8,b=32");
  const Platform p = small_platform(1e9, 1);
  const auto most_at_once = [](const test::Run& run) {
    std::vector<std::pair<std::int64_t, int>> edges;
    for (const auto& load : run.trace.loads) {
      edges.push_back({load.issue_ns, 1});
      edges.push_back({load.end_ns, -1});
    }
    std::sort(edges.begin(), edges.end());  // an end before a start at the same instant
    int now = 0, most = 0;
    for (const auto& [time, step] : edges) most = std::max(most, now += step);
    return most;
  };
  CHECK(most_at_once(run_replay(w, "eager", "lru", p, 4, "starpu:max_fetches=2,max_prefetches=1")) <= 2);
  CHECK(most_at_once(run_replay(w, "eager", "lru", p, 4, "starpu:max_fetches=0,max_prefetches=0")) > 2);
}

TEST_CASE("copy engines: a memory moves its transfers in start order, k at a time", "[engine]") {
  // One task reading two 1000-byte data, 1 GB/s: on a shared bus both loads end at 2000 ns;
  // one copy engine moves them one after the other. Engines belong to a memory: two GPUs,
  // one load each, still share the bus. (Transfers started together end together here:
  // ordered_starts is off, the bus test shows it.)
  WorkloadBuilder builder("two");
  const KindId k = builder.kind("K");
  const DataId a = builder.add_data({"a", 1000, 'A', 0, 0});
  const DataId b = builder.add_data({"b", 1000, 'A', 1, 0});
  const Access both[] = {{a, AccessMode::Read}, {b, AccessMode::Read}};
  const Access ra[] = {{a, AccessMode::Read}};
  const Access rb[] = {{b, AccessMode::Read}};
  builder.add_task(k, both, 500);
  auto w = std::move(builder).finish();
  REQUIRE(w.ok());
  WorkloadBuilder split("split");
  const KindId ks = split.kind("K");
  split.add_data({"a", 1000, 'A', 0, 0});
  split.add_data({"b", 1000, 'A', 1, 0});
  split.add_task(ks, ra, 500);
  split.add_task(ks, rb, 500);
  auto w2 = std::move(split).finish();
  REQUIRE(w2.ok());
  const auto ends = [&](const Workload& workload, const Platform& platform) {
    const auto run = run_replay(workload, "eager", "lru", platform, 1, "starpu:ordered_starts=0");
    CHECK(check_invariants(workload, platform, run).empty());
    std::vector<std::int64_t> out;
    for (const auto& load : run.trace.loads) out.push_back(load.end_ns);
    std::sort(out.begin(), out.end());
    return out;
  };
  Platform p = small_platform(1e6, 1);
  p.default_gflops = 1;
  CHECK(ends(*w, p) == std::vector<std::int64_t>{2000, 2000});
  p.copy_engines = 1;
  CHECK(ends(*w, p) == std::vector<std::int64_t>{1000, 2000});
  p.copy_engines = 2;
  CHECK(ends(*w, p) == std::vector<std::int64_t>{2000, 2000});
  p.copy_engines = 1;
  p.gpus = 2;
  CHECK(ends(*w2, p) == std::vector<std::int64_t>{2000, 2000});
}

TEST_CASE("a half-duplex bus carries loads and write-backs on one channel", "[engine]") {
  const auto ends = [](bool half_duplex, std::uint32_t engines) {
    Platform p = small_platform(1e6, 1);
    p.half_duplex = half_duplex;
    p.copy_engines = engines;
    PlatformLinks links(p);
    links.start_load(0, 1000, 0, kFromHost, 0);
    links.start_writeback(1, 1000, 0, 0);
    std::vector<std::int64_t> out(2, -1);
    for (int step = 0; step < 4 && (out[0] < 0 || out[1] < 0); ++step) {
      const std::int64_t next = links.next_event();
      std::vector<std::uint32_t> ended;
      links.advance(next, ended);
      for (std::uint32_t transfer : ended) out[transfer] = next;
    }
    return out;
  };
  CHECK(ends(false, 0) == std::vector<std::int64_t>{1000, 1000});  // PCIe: one channel each way
  CHECK(ends(true, 0) == std::vector<std::int64_t>{2000, 2000});   // a disk: shared
  CHECK(ends(true, 1) == std::vector<std::int64_t>{1000, 2000});   // and one request at a time
  CHECK(ends(false, 1) == std::vector<std::int64_t>{1000, 1000});
}

TEST_CASE("copy engines: refused out of range, and combined with a PCIe tree", "[engine]") {
  const Workload w = generated("cholesky:N=6,b=32");
  Platform p = small_platform(6.0 * static_cast<double>(w.largest_data_bytes()), 4);
  p.copy_engines = kMaxCopyEngines + 1;
  CHECK_THAT(check_platform(p, w).error().message, Catch::Contains("copy engines"));
  p.copy_engines = 1;
  p.gpu_bus_bandwidth = 12e9;
  p.gpus_per_switch = 2;
  p.switch_bandwidth = 22e9;
  REQUIRE(check_platform(p, w).ok());
  const auto run = run_replay(w, "dmdas", "lru", p, 4);
  CHECK(check_invariants(w, p, run).empty());
  // Per GPU and direction, one transfer at a time.
  for (GpuId g = 0; g < 4; ++g) {
    std::vector<std::pair<std::int64_t, std::int64_t>> spans;
    for (const auto& load : run.trace.loads) {
      if (load.gpu == g && load.source == kFromHost) spans.push_back({load.end_ns, 0});
    }
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) CHECK(spans[i].first > spans[i - 1].first);
  }
}

// StarPU writes an evicted dirty replica back inside the fetch's allocation (memalloc.c:324-345):
// while that write-back runs its node starts no task and allocates nothing else.
TEST_CASE("StarPU's model: no task starts and no load begins on a node while a fetch's eviction write-back runs",
          "[memory-model][engine]") {
  // Records name a memory by its first worker; a task record names its worker.
  const auto overlaps = [](const test::Run& run, const Platform& p) {
    std::size_t found = 0;
    for (const WritebackRecord& wb : run.trace.writebacks) {
      if (wb.cause != WritebackCause::Eviction) continue;
      const std::uint32_t node = p.memory_node_of(wb.gpu);
      for (const TaskRecord& t : run.trace.tasks) found += p.memory_node_of(t.gpu) == node && t.start_ns > wb.start_ns && t.start_ns < wb.end_ns;
      for (const LoadRecord& l : run.trace.loads) found += p.memory_node_of(l.gpu) == node && l.issue_ns > wb.start_ns && l.issue_ns < wb.end_ns;
    }
    return found;
  };
  std::size_t evicting_writebacks = 0, without_rule = 0;
  for (const std::string spec : {"cholesky:N=10,b=32", "lu:N=8,b=32"}) {
    const Workload w = generated(spec);
    const Platform p = shared_small_memory(w, 10);  // two workers on one memory: one may start while the other's fetch evicts
    INFO(spec);
    // No tidy and no clean replica first: evictions must write back.
    const auto run = run_replay(w, "eager", "lru", p, 4, "starpu:idle_writeback=0,clean_first=0");
    REQUIRE(check_invariants(w, p, run).empty());
    for (const WritebackRecord& wb : run.trace.writebacks) evicting_writebacks += wb.cause == WritebackCause::Eviction;
    CHECK(overlaps(run, p) == 0);
    without_rule += overlaps(run_replay(w, "eager", "lru", p, 4, "starpu:idle_writeback=0,clean_first=0,sync_reclaim=0"), p);
  }
  CHECK(evicting_writebacks > 0);
  CHECK(without_rule > 0);  // the check can fail: without the rule the node goes on meanwhile
}

// StarPU's tidy skips a chunk that a popped task writes: the task's fetch made it the only valid
// copy and holds it (coherency.c:185-200, memalloc.c:1151-1168).
TEST_CASE("StarPU's model: no idle write-back of a datum that a task held by its node writes", "[memory-model][engine]") {
  const auto conflicts = [](const Workload& w, const test::Run& run, const Platform& p) {
    std::size_t found = 0;
    for (const WritebackRecord& wb : run.trace.writebacks) {
      if (wb.cause != WritebackCause::Idle) continue;
      for (const TaskRecord& t : run.trace.tasks) {
        // Strictly after the task entered its buffer: at that very instant the node may start it
        // before the pop, as StarPU's driver makes progress before it pops.
        if (p.memory_node_of(t.gpu) != p.memory_node_of(wb.gpu) || !(t.buffered_ns < wb.start_ns && wb.start_ns < t.end_ns)) continue;
        for (const Access& a : w.accesses(t.task)) found += a.data == wb.data && writes(a.mode);
      }
    }
    return found;
  };
  std::size_t idle = 0;
  for (const std::string spec : {"cholesky:N=12", "lu:N=10"}) {
    const Workload w = generated(spec);
    const Platform p = small_platform(64.0 * static_cast<double>(w.largest_data_bytes()));
    INFO(spec);
    const auto run = run_replay(w, "eager", "lru", p, 2);
    REQUIRE(check_invariants(w, p, run).empty());
    for (const WritebackRecord& wb : run.trace.writebacks) idle += wb.cause == WritebackCause::Idle;
    CHECK(conflicts(w, run, p) == 0);
  }
  CHECK(idle > 0);
}

namespace {

// For each task a GPU ran after another: when it entered the buffer, and when the data loaded
// for the task before it were all there (loads are attributed to the task that used them).
struct PopAfterFetch {
  std::size_t pairs = 0, early = 0;  // consecutive tasks; those taken before the previous one's data arrived
};
PopAfterFetch pops_after_fetch(const test::Run& run) {
  std::map<TaskId, std::int64_t> data_there;
  for (const auto& load : run.trace.loads) {
    if (load.task != kNoId) data_there[load.task] = std::max(data_there[load.task], load.end_ns);
  }
  std::map<std::pair<GpuId, std::uint32_t>, const TaskRecord*> by_order;
  for (const auto& t : run.trace.tasks) by_order[{t.gpu, t.gpu_order}] = &t;
  PopAfterFetch found;
  for (const auto& [key, task] : by_order) {
    const auto before = by_order.find({key.first, key.second - 1});
    if (key.second == 0 || before == by_order.end()) continue;
    ++found.pairs;
    const auto there = data_there.find(before->second->task);
    if (there != data_there.end() && task->buffered_ns < there->second) ++found.early;
  }
  return found;
}

}  // namespace

// StarPU's CUDA driver pops no task while the one it popped last transfers its inputs
// (task_transferring, driver_common.c:521-531): whatever the buffer's depth, one fetch at a time.
TEST_CASE("StarPU's model: a GPU takes no task while one it holds waits for its data", "[memory-model][engine]") {
  const Workload w = generated("matmul2d:N=6");
  const Platform p = small_platform(8.0 * static_cast<double>(w.largest_data_bytes()), 1);
  const auto starpu = run_replay(w, "eager", "lru", p, 4);
  const auto eager_pops = run_replay(w, "eager", "lru", p, 4, "starpu:pop_when_fetched=0");
  CHECK(check_invariants(w, p, starpu).empty());
  const PopAfterFetch held = pops_after_fetch(starpu), free = pops_after_fetch(eager_pops);
  REQUIRE(held.pairs == w.task_count() - 1);
  CHECK(held.early == 0);
  // ... and the check can fail: a buffer of 4 filled at once takes tasks before their elders' data.
  CHECK(free.early > 0);
}

// The first hop of a load through the host is a request of the source GPU (StarPU's handling
// node for a GPU-to-RAM copy): a prefetch's waits behind the source's own transfers, where
// relay_requests=0 starts it when the load is requested.
TEST_CASE("StarPU's model: a GPU-to-GPU load through the host waits among the source's requests", "[memory-model][engine]") {
  const Workload w = generated("cholesky:N=8,b=32");
  Platform p = small_platform(40.0 * static_cast<double>(w.largest_data_bytes()), 2);
  p.copy_engines = 1;
  const auto waited = [](const test::Run& run) {
    // Request write-backs that started after the load that asked for them (the one into
    // another GPU requested when the source still held the only copy).
    std::size_t later = 0;
    for (const auto& wb : run.trace.writebacks) {
      if (wb.cause != WritebackCause::Request) continue;
      for (const auto& load : run.trace.loads) {
        if (load.data == wb.data && load.gpu != wb.gpu && load.issue_ns <= wb.start_ns && load.end_ns >= wb.end_ns &&
            load.issue_ns < wb.start_ns) {
          ++later;
          break;
        }
      }
    }
    return later;
  };
  for (const std::string scheduler : {"dmdar", "dmdas"}) {
    INFO(scheduler);
    const auto queued = run_replay(w, scheduler, "lru", p, 2, "starpu:max_prefetches=1");
    const auto at_once = run_replay(w, scheduler, "lru", p, 2, "starpu:max_prefetches=1,relay_requests=0");
    CHECK(check_invariants(w, p, queued).empty());
    CHECK(waited(at_once) == 0);
    CHECK(waited(queued) > 0);
  }
}

// StarPU's request carries its task's mode: a read-write tile that arrives is the only valid
// copy at once (_starpu_update_data_state), so StarPU's idle write-back may send it home before
// its writer even runs. With write_at_load=0 the home copy stays valid until the writer ends.
TEST_CASE("StarPU's model: a read-write load leaves the loaded copy the only valid one", "[memory-model][engine]") {
  const Workload w = generated("lu:N=12,b=32");
  const Platform p = small_platform(4.0 * static_cast<double>(w.data_count() * w.largest_data_bytes()), 1);
  const auto early_writebacks = [&](const test::Run& run) {
    std::map<DataId, std::int64_t> first_write_end;
    for (const auto& t : run.trace.tasks) {
      for (const Access& a : w.accesses(t.task)) {
        if (!writes(a.mode)) continue;
        auto [it, fresh] = first_write_end.emplace(a.data, t.end_ns);
        if (!fresh) it->second = std::min(it->second, t.end_ns);
      }
    }
    std::size_t early = 0;
    for (const auto& wb : run.trace.writebacks) {
      if (wb.start_ns < first_write_end.at(wb.data)) ++early;
    }
    return early;
  };
  const auto at_load = run_replay(w, "ws", "lru", p, 2);
  const auto at_end = run_replay(w, "ws", "lru", p, 2, "starpu:write_at_load=0");
  CHECK(check_invariants(w, p, at_load).empty());
  CHECK(early_writebacks(at_end) == 0);
  CHECK(early_writebacks(at_load) > 0);
  CHECK(at_load.summary.writebacks > at_end.summary.writebacks);
}

// Three rules read in StarPU's source (docs/starpu-memory-manager.md): a request that finds a
// datum in place for a writer updates the states at once (write_at_hit), a node's requests go
// before its workers pop (progress_before_pop), and a task's fetches go in handle order
// (handle_order), and the tidy passes over a datum a task is writing somewhere (tidy_skips_busy);
// and three of the reclaim's: victims one at a time (sequential_reclaim), the policy told at
// allocation (insert_at_allocation), push-time requests made at the push (requests_at_push).
// On LU N = 12 with half its working set (a quarter for handle order; tidy_skips_busy on Cholesky
// N = 16 at half), each one changes the replay;
// with room for everything, write_at_hit alone dirties replicas that the idle write-back then
// sends home again (the fidelity CTest checks those counts against StarPU-SimGrid itself).
TEST_CASE("StarPU's model: a hit for a writer, progress before the pop, handle order, a busy writer's data and the reclaim's rules each change the replay",
          "[memory-model][engine]") {
  const Workload w = generated("lu:N=12");
  const Workload cholesky = generated("cholesky:N=16");
  const auto platform = [&](double fraction) { return fidelity_platform(w, fraction); };
  const auto same = [](const test::Run& a, const test::Run& b) {
    return a.summary.loads == b.summary.loads && a.summary.writebacks == b.summary.writebacks && a.summary.makespan_ns == b.summary.makespan_ns &&
           a.trace.evictions.size() == b.trace.evictions.size();
  };
  struct Case {
    const char* rule;
    const Workload* workload;
    double fraction;
  };
  for (const Case& c : {Case{"write_at_hit", &w, 0.5}, Case{"progress_before_pop", &w, 0.5}, Case{"handle_order", &w, 0.25},
                        Case{"tidy_skips_busy", &cholesky, 0.5}, Case{"sequential_reclaim", &w, 0.5},
                        Case{"insert_at_allocation", &w, 0.5}, Case{"requests_at_push", &w, 0.5}}) {
    INFO(c.rule << " on " << c.workload->name() << " with " << c.fraction << " of the working set");
    const Platform tight = fidelity_platform(*c.workload, c.fraction);
    const auto all = run_replay(*c.workload, "eager", "lru", tight, 2);
    CHECK(check_invariants(*c.workload, tight, all).empty());
    const auto without = run_replay(*c.workload, "eager", "lru", tight, 2, "starpu:" + std::string(c.rule) + "=0");
    CHECK(check_invariants(*c.workload, tight, without).empty());
    CHECK_FALSE(same(all, without));
  }
  const Platform ample = platform(2);
  const auto at_hit = run_replay(w, "eager", "lru", ample, 2);
  const auto at_end = run_replay(w, "eager", "lru", ample, 2, "starpu:write_at_hit=0");
  CHECK(at_hit.summary.loads == at_end.summary.loads);  // everything fits: each tile loads once either way
  CHECK(at_hit.summary.writebacks > at_end.summary.writebacks);
}

// StarPU marks a replica invalid when another node writes the datum and frees nothing
// (coherency.c:185-196): its room stays taken until a fetch reclaims it or the datum comes back
// into it. With room for everything nothing is ever evicted, so a GPU's peak is then the bytes
// of every datum it ever held; freeing invalidated copies at once makes it lower.
TEST_CASE("StarPU's model: a copy that another GPU's write invalidates keeps its room", "[memory-model][engine]") {
  const Workload w = generated("cholesky:N=12");
  Platform p = small_platform(4.0 * static_cast<double>(w.data_count() * w.largest_data_bytes()), 2);
  const auto held_bytes = [&](const test::Run& run, GpuId g) {
    std::vector<char> held(w.data_count(), 0);
    for (const LoadRecord& load : run.trace.loads) held[load.data] |= load.gpu == g;
    for (const AllocationRecord& allocation : run.trace.allocations) held[allocation.data] |= allocation.gpu == g;
    double bytes = 0;
    for (DataId d = 0; d < w.data_count(); ++d) bytes += held[d] ? static_cast<double>(w.data()[d].bytes) : 0.0;
    return bytes;
  };
  const auto [kept, freed] = with_and_without(w, p, "invalid_keeps_room");
  REQUIRE(kept.summary.invalidations > 0);
  CHECK(kept.summary.evictions == 0);
  double kept_peaks = 0, freed_peaks = 0, kept_held = 0, freed_held = 0;
  for (GpuId g = 0; g < 2; ++g) {
    INFO("GPU " << g);
    CHECK(kept.summary.gpus[g].peak_bytes == held_bytes(kept, g));
    CHECK(freed.summary.gpus[g].peak_bytes <= held_bytes(freed, g));
    kept_peaks += kept.summary.gpus[g].peak_bytes;
    kept_held += held_bytes(kept, g);
    freed_peaks += freed.summary.gpus[g].peak_bytes;
    freed_held += held_bytes(freed, g);
  }
  CHECK(kept_peaks == kept_held);
  CHECK(freed_peaks < freed_held);
}

// StarPU frees only replicas no request references (may_free_subtree, memalloc.c:275-295), and a
// write-back references its source until it ends (data_request.c:165-181): a fetch that needs
// room does not take a replica on its way home. Found on LU N = 12, one GPU, a quarter of its
// working set, where the replay evicted a tile whose idle write-back had just started.
TEST_CASE("StarPU's model: no replica is evicted while its write-back is under way", "[memory-model][engine]") {
  const Workload w = generated("lu:N=12");
  const Platform p = fidelity_platform(w, 0.25);
  // An eviction that took a replica on its way home waits for that write-back, counts it as its
  // own (wrote_back), and frees the room when it ends.
  const auto evicted_while_leaving = [](const test::Run& run) {
    std::size_t found = 0;
    for (const EvictionRecord& e : run.trace.evictions) {
      if (e.cause != EvictionCause::Capacity || !e.wrote_back) continue;
      for (const WritebackRecord& wb : run.trace.writebacks) {
        found += wb.cause == WritebackCause::Idle && wb.data == e.data && wb.gpu == e.gpu && wb.end_ns == e.time_ns;
      }
    }
    return found;
  };
  const auto [stay, taken] = with_and_without(w, p, "referenced_stay");
  CHECK(evicted_while_leaving(stay) == 0);
  CHECK(evicted_while_leaving(taken) > 0);
}

// StarPU's reclaim frees its victims one at a time: at a dirty one it waits for the write-back
// before it looks for the next (transfer_subtree_to_node, memalloc.c:312-345), so a node never has
// two eviction write-backs asked for at once, and an idle write-back may start between two of
// them (the driver makes progress while it waits, data_request.c:225-256). Choosing every victim
// at once puts several eviction write-backs on the link together.
TEST_CASE("StarPU's model: a reclaim writes its victims back one at a time", "[memory-model][engine]") {
  const Workload w = generated("lu:N=12");
  const Platform p = fidelity_platform(w, 0.25);
  // Eviction write-backs from one GPU asked for while another was still under way, and idle
  // write-backs that start between a reclaim's two.
  const auto overlapping = [](const test::Run& run) {
    std::size_t found = 0;
    std::vector<const WritebackRecord*> evictions;
    for (const WritebackRecord& wb : run.trace.writebacks) {
      if (wb.cause == WritebackCause::Eviction) evictions.push_back(&wb);
    }
    for (const WritebackRecord* a : evictions) {
      for (const WritebackRecord* b : evictions) {
        found += a != b && a->gpu == b->gpu && a->start_ns <= b->start_ns && b->start_ns < a->end_ns;
      }
    }
    return found;
  };
  const auto idle_between = [](const test::Run& run) {
    std::size_t found = 0;
    for (const WritebackRecord& idle : run.trace.writebacks) {
      if (idle.cause != WritebackCause::Idle) continue;
      for (const WritebackRecord& wb : run.trace.writebacks) {
        found += wb.cause == WritebackCause::Eviction && wb.gpu == idle.gpu && wb.end_ns == idle.start_ns;
      }
    }
    return found;
  };
  const auto [in_turn, at_once] = with_and_without(w, p, "sequential_reclaim");
  REQUIRE(at_once.summary.writebacks > 0);
  CHECK(overlapping(in_turn) == 0);
  CHECK(overlapping(at_once) > 0);
  CHECK(idle_between(in_turn) > 0);
}

// A fetch that promotes a queued idle write-back puts it at the back of its node's fetch list
// (fetch_list_order): while the node's synchronous reclaim writes its victims back, that list
// does not move, so no promoted write-back starts while an eviction write-back of its node
// moves, nor as one starts.
// Without the rule the promotion starts at once, in the middle of the reclaim.
TEST_CASE("StarPU's model: a promoted idle write-back waits behind the node's reclaim in the fetch list", "[memory-model][engine]") {
  const Workload w = generated("lu:N=12");
  const Platform p = fidelity_platform(w, 0.25);
  const auto [with, without] = with_and_without(w, p, "fetch_list_order");
  const auto promoted_during_reclaim = [](const test::Run& run) {
    std::size_t count = 0;
    for (const auto& promoted : run.trace.writebacks) {
      if (promoted.cause != WritebackCause::Request) continue;
      for (const auto& victim : run.trace.writebacks) {
        if (victim.cause == WritebackCause::Eviction && victim.gpu == promoted.gpu && victim.start_ns <= promoted.start_ns &&
            promoted.start_ns < victim.end_ns) {
          ++count;
        }
      }
    }
    return count;
  };
  CHECK(std::count_if(with.trace.writebacks.begin(), with.trace.writebacks.end(), [](const auto& wb) { return wb.cause == WritebackCause::Request; }) > 0);
  CHECK(promoted_during_reclaim(with) == 0);
  CHECK(promoted_during_reclaim(without) > 0);
}

// A load through the host joins its node's list of replicas when its second hop starts
// (list_at_second_hop): on two GPUs without a link between them, Cholesky's panels reach the
// other GPU that way, and the order of the list changes what the tidy and the reclaims take.
TEST_CASE("StarPU's model: a load through the host is listed when its second hop starts", "[memory-model][engine]") {
  const Workload w = generated("cholesky:N=16");
  const Platform p = two_gpus_without_link(w, 0.5);
  const auto [with, without] = with_and_without(w, p, "list_at_second_hop");
  std::size_t relayed = 0;
  for (const auto& wb : with.trace.writebacks) relayed += wb.cause == WritebackCause::Request ? 1 : 0;
  CHECK(relayed > 0);
  CHECK((with.summary.loads != without.summary.loads || with.summary.writebacks != without.summary.writebacks ||
         with.summary.makespan_ns != without.summary.makespan_ns));
}

// A worker whose next task has its data pops in the pass that noticed its task's end, before the
// tidy that sees that pass's requests (same_pass_pop): the popped task's fetch hits move its data
// to the back of the tidy's list, so the walk does not ask home for a datum the task is about to
// overwrite. LU N = 16 with GPU memory for its working set, as the fidelity matrix's held-out cell
// (docs/fidelity.md, twelfth pass): without the rule the walk queues such data, the popped task's
// fetch promotes their write-back, and the task waits for its own output to go home.
TEST_CASE("StarPU's model: a worker whose next task has its data pops before the tidy sees the pass's requests", "[memory-model][engine]") {
  const Workload w = generated("lu:N=16");
  const Platform p = fidelity_platform(w, 1.0);
  const auto [with, without] = with_and_without(w, p, "same_pass_pop");
  const auto waits_for_own_output = [&](const test::Run& run) {
    std::size_t found = 0;
    for (const TaskRecord& task : run.trace.tasks) {
      for (const WritebackRecord& wb : run.trace.writebacks) {
        if (wb.cause != WritebackCause::Request || wb.gpu != task.gpu || wb.end_ns != task.start_ns) continue;
        for (const Access& access : w.accesses(task.task)) found += access.data == wb.data && writes(access.mode) ? 1 : 0;
      }
    }
    return found;
  };
  CHECK(waits_for_own_output(without) > waits_for_own_output(with));
  CHECK(with.summary.writebacks < without.summary.writebacks);
  CHECK(with.summary.makespan_ns < without.summary.makespan_ns);
}

// StarPU keeps one request per datum and node (shared_push_requests): the push of a task whose
// datum an earlier push already asked for reuses that request, and once any load of the datum is
// asked for, the request is done; without the rule each task's push-time request outlives the
// load that served it and asks again after an eviction. Cholesky N = 16 with a quarter of its
// working set under ws, whose pushes wait long in the prefetch list (against StarPU-SimGrid, in
// StarPU's order, the rule takes the loads from 0.97x to 1.00x, docs/fidelity.md).
TEST_CASE("StarPU's model: push-time prefetches of one datum share one request", "[memory-model][engine]") {
  const Workload w = generated("cholesky:N=16");
  const Platform p = fidelity_platform(w, 0.25);
  const auto with = run_replay(w, "ws", "lru", p, 2);
  const auto without = run_replay(w, "ws", "lru", p, 2, "starpu:shared_push_requests=0");
  REQUIRE(check_invariants(w, p, with).empty());
  REQUIRE(check_invariants(w, p, without).empty());
  CHECK((with.summary.loads != without.summary.loads || with.summary.writebacks != without.summary.writebacks));
}

// StarPU's tidy judges a replica by its home only (tidy_fetches_home): a replica that a write on
// the other GPU invalidated, and kept its room, asks for the datum home from that GPU, in its idle
// list. On two GPUs, Cholesky's panels are written on one and read on both: the walks send more
// idle write-backs home than they could before.
TEST_CASE("StarPU's model: the tidy asks for an invalidated replica's datum home from the GPU that holds it", "[memory-model][engine]") {
  const Workload w = generated("cholesky:N=16");
  const Platform p = two_gpus_without_link(w, 0.5);
  const auto [with, without] = with_and_without(w, p, "tidy_fetches_home");
  const auto idle = [](const test::Run& run) {
    return std::count_if(run.trace.writebacks.begin(), run.trace.writebacks.end(), [](const auto& wb) { return wb.cause == WritebackCause::Idle; });
  };
  CHECK(idle(with) > idle(without));
  CHECK(with.summary.writebacks != without.summary.writebacks);
}
