// GPU test: the CUDA executor (instrument/executor.hpp) runs every seed workload under every
// scheduler, with each GPU's memory capped so that evictions happen, and
//   - the result verifies against the CPU reference (execute fails otherwise);
//   - loads + allocations = evictions + invalidations + copies resident at the end;
//   - for a static order with Belady or LRU and no prefetch window, the measured loads equal
//     the replay's exactly (the decisions are the engine's);
//   - CUPTI records every task's kernels, linked to the task, and reports what it dropped.
// Exits 77 (CTest's skip) when no CUDA device is present, saying why.
#include <cstdio>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "instrument/executor.hpp"
#include "eviction/policy.hpp"
#include "presets/seed_workloads.hpp"

using namespace tilelens;
using namespace tilelens::instrument;

namespace {

int failures = 0;
void check(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::printf("FAILED: %s\n", what.c_str());
  }
}

Platform capped(const Workload& w, double fraction) {
  Platform p;
  p.gpus = 1;
  p.memory_bytes = std::max(static_cast<double>(w.largest_data_bytes()) * 4, static_cast<double>(w.working_set_bytes()) * fraction);
  return p;
}

}  // namespace

int main() {
  if (auto available = cuda_available(); !available) {
    std::printf("skipped: %s\n", available.error().message.c_str());
    return 77;
  }
  const std::vector<std::string> workloads = {"matmul2d:N=6,b=256",        "matmul2d-random-pairs:N=6,b=256", "matmul2d-random-order:N=6,b=256",
                                              "matmul2d-sparse:N=8,b=256", "matmul3d:N=4,b=256",              "cholesky:N=6,b=256",
                                              "cholesky-tasks:N=6,b=256",  "lu:N=6,b=256"};
  std::vector<std::string> schedulers;
  for (const auto& info : scheduler_registry()) {
    // optimum: the papers' replay model only, not an executor's policy; fixed: replays a schedule file.
    if (info.name != "optimum" && info.name != "fixed") schedulers.push_back(info.name);
  }

  std::size_t runs = 0;
  for (const std::string& spec : workloads) {
    auto workload = generate_workload(spec);
    if (!workload) {
      check(false, spec + ": " + workload.error().message);
      continue;
    }
    for (const std::string& name : schedulers) {
      auto scheduler = make_scheduler(name);
      auto eviction = make_eviction(name == "darts" ? "luf" : name == "hfp" ? "belady" : "lru");
      if (!scheduler || !eviction) {
        check(false, name + ": cannot make it");
        continue;
      }
      ExecuteOptions options;
      options.platform = capped(*workload, 0.4);
      options.verify_rows = 0;
      auto result = execute(*workload, *scheduler->scheduler, *eviction->policy, options);
      ++runs;
      if (!result) {
        check(false, spec + " under " + name + ": " + result.error().message);
        continue;
      }
      const ReplaySummary& s = result->summary;
      std::uint64_t resident = 0;
      for (const auto& g : s.gpus) resident += g.resident_at_end;
      check(s.tasks == workload->task_count(), spec + " under " + name + ": every task ran once");
      check(s.loads + s.allocations == s.evictions + s.invalidations + resident,
            spec + " under " + name + ": loads + allocations = evictions + invalidations + resident at the end");
      check(s.fetches + s.prefetches + s.unused_loads == s.loads, spec + " under " + name + ": every load classified");
      check(s.makespan_ns > 0 && s.gflops > 0, spec + " under " + name + ": a measured makespan");
      check(result->measurement.cupti_records > 0, spec + " under " + name + ": CUPTI recorded");
      std::set<std::uint64_t> tasks_with_kernels;
      for (const CuptiRecord& r : result->cupti_records) {
        if (r.kind == CuptiRecord::Kind::Kernel && external_kind(r.external) == ExternalKind::Task) tasks_with_kernels.insert(external_index(r.external));
      }
      check(tasks_with_kernels.size() == workload->task_count(),
            spec + " under " + name + ": CUPTI kernel records for " + std::to_string(tasks_with_kernels.size()) + " of " +
                std::to_string(workload->task_count()) + " tasks");
      if (result->measurement.cupti_dropped > 0) std::printf("note: %s under %s: CUPTI dropped %llu records\n", spec.c_str(), name.c_str(),
                                                             static_cast<unsigned long long>(result->measurement.cupti_dropped));
    }
    std::printf("%-34s %zu schedulers ran and verified\n", spec.c_str(), schedulers.size());
  }

  // Static orders with no prefetch window: the measured loads are the replay's, under StarPU's
  // model without the two rules that decide by the clock (idle write-back, push-time prefetch).
  const MemoryModel timeless = *parse_memory_model("starpu:idle_writeback=0,prefetch_at_push=0");
  for (const std::string& spec : {std::string("matmul2d:N=8,b=256"), std::string("cholesky:N=7,b=256")}) {
    auto workload = generate_workload(spec);
    for (const std::string& order : {std::string("rcm"), std::string("eager")}) {
      for (const std::string& policy : {std::string("belady"), std::string("lru")}) {
        const Platform platform = capped(*workload, 0.3);
        auto s1 = make_scheduler(order);
        auto e1 = make_eviction(policy);
        auto s2 = make_scheduler(order);
        auto e2 = make_eviction(policy);
        ReplayOptions replay_options;
        replay_options.platform = platform;
        replay_options.buffer_depth = 1;
        replay_options.memory_model = timeless;
        auto replayed = replay(*workload, *s1->scheduler, *e1->policy, replay_options);
        ExecuteOptions options;
        options.platform = platform;
        options.buffer_depth = 1;
        options.memory_model = timeless;
        // Every launch-ahead depth: the decisions do not depend on it.
        options.launch_ahead = (policy == "lru" ? 1u : 0u) + (order == "rcm" ? 1u : 0u);
        auto measured = execute(*workload, *s2->scheduler, *e2->policy, options);
        if (!replayed || !measured) {
          check(false, spec + " " + order + "/" + policy + ": " + (!replayed ? replayed.error().message : measured.error().message));
          continue;
        }
        check(replayed->loads == measured->summary.loads && replayed->evictions == measured->summary.evictions &&
                  replayed->writebacks == measured->summary.writebacks,
              spec + " " + order + "/" + policy + ": measured loads " + std::to_string(measured->summary.loads) + " vs replayed " +
                  std::to_string(replayed->loads));
        std::printf("%-22s %-6s %-7s depth 1: loads measured %llu, replayed %llu\n", spec.c_str(), order.c_str(), policy.c_str(),
                    static_cast<unsigned long long>(measured->summary.loads), static_cast<unsigned long long>(replayed->loads));
      }
    }
  }
  // TF32 tensor cores, checked with a looser tolerance.
  {
    auto workload = generate_workload("matmul2d:N=6,b=256");
    auto scheduler = make_scheduler("hfp");
    auto eviction = make_eviction("belady");
    ExecuteOptions options;
    options.platform = capped(*workload, 0.5);
    options.tf32 = true;
    options.cupti = false;
    auto result = execute(*workload, *scheduler->scheduler, *eviction->policy, options);
    check(static_cast<bool>(result), std::string("TF32: ") + (result ? "" : result.error().message));
    if (result) check(!result->measurement.cupti && result->cupti_records.empty(), "TF32 without CUPTI: no records");
  }
  // CUPTI tracing only the launches and copies, or no API call (callbacks), still links every
  // task's kernels and every load's copy.
  for (const auto& [apis, spec] : std::vector<std::pair<CuptiApis, std::string>>{{CuptiApis::Launches, "cholesky:N=6,b=256"},
                                                                                  {CuptiApis::Launches, "matmul2d:N=6,b=256"},
                                                                                  {CuptiApis::Callbacks, "cholesky:N=6,b=256"},
                                                                                  {CuptiApis::Callbacks, "matmul2d:N=6,b=256"}}) {
    auto workload = generate_workload(spec);
    auto scheduler = make_scheduler("dmdas");
    auto eviction = make_eviction("lru");
    ExecuteOptions options;
    options.platform = capped(*workload, 0.4);
    options.cupti_apis = apis;
    options.launch_ahead = apis == CuptiApis::Callbacks ? 2 : 1;
    auto result = execute(*workload, *scheduler->scheduler, *eviction->policy, options);
    ++runs;
    const std::string mode = std::string(" with CUPTI linking by ") + to_string(apis);
    if (!result) {
      check(false, spec + mode + ": " + result.error().message);
      continue;
    }
    check(result->measurement.cupti_apis == to_string(apis), spec + mode + ": the run says it traced " + result->measurement.cupti_apis);
    std::set<std::uint64_t> tasks, loads;
    for (const CuptiRecord& r : result->cupti_records) {
      if (r.kind == CuptiRecord::Kind::Kernel && external_kind(r.external) == ExternalKind::Task) tasks.insert(external_index(r.external));
      if (r.kind == CuptiRecord::Kind::Memcpy && external_kind(r.external) == ExternalKind::Load) loads.insert(external_index(r.external));
    }
    check(unlinked_work_records(result->cupti_records) == 0,
          spec + mode + ": " + std::to_string(unlinked_work_records(result->cupti_records)) + " kernel or load records linked to nothing");
    check(tasks.size() == workload->task_count(), spec + mode + ": kernel records for " + std::to_string(tasks.size()) + " of " +
                                                      std::to_string(workload->task_count()) + " tasks");
    check(loads.size() == result->trace.loads.size(), spec + mode + ": copy records for " + std::to_string(loads.size()) + " of " +
                                                          std::to_string(result->trace.loads.size()) + " loads");
    std::printf("%-22s CUPTI linking by %-9s: %zu records, every task and load linked\n", spec.c_str(), to_string(apis),
                result->cupti_records.size());
  }
  // Two logical GPUs on one device: the multi-GPU paths (GPU-to-GPU loads, invalidations of
  // stale copies) run on real hardware and the result still verifies.
  for (const std::string& name : {std::string("dmdas"), std::string("darts")}) {
    auto workload = generate_workload("cholesky:N=12,b=256");
    auto scheduler = make_scheduler(name);
    auto eviction = make_eviction(name == "darts" ? "luf" : "lru");
    ExecuteOptions options;
    options.platform = capped(*workload, 0.3);
    options.platform.gpus = 2;
    options.logical_gpus = true;
    options.verify_rows = 0;
    options.launch_ahead = name == "darts" ? 2 : 1;  // the copies' waits on kernels two deep too
    auto result = execute(*workload, *scheduler->scheduler, *eviction->policy, options);
    ++runs;
    if (!result) {
      check(false, "two logical GPUs under " + name + ": " + result.error().message);
      continue;
    }
    const ReplaySummary& s = result->summary;
    check(s.gpus.size() == 2 && s.gpus[0].tasks > 0 && s.gpus[1].tasks > 0, "two logical GPUs under " + name + ": both ran tasks");
    check(s.loads_from_gpu > 0, "two logical GPUs under " + name + ": some loads came from the other GPU");
    check(s.invalidations > 0, "two logical GPUs under " + name + ": stale copies were invalidated");
    std::printf("cholesky:N=12 on 2 logical GPUs under %-6s loads %llu (%llu from the other GPU), %.0f GFlop/s, verified\n", name.c_str(),
                static_cast<unsigned long long>(s.loads), static_cast<unsigned long long>(s.loads_from_gpu), s.gflops);
  }
  std::printf("%zu executions, %d failures\n", runs, failures);
  return failures == 0 ? 0 : 1;
}
