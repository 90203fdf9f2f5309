// The FGCS schedulers: HFP's packing (phase-1 packages fit, every task once, fgcs Fig. 4),
// Ready, DMDA/DMDAR/DMDAS, and the paper's qualitative results in replay.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "helpers.hpp"
#include "analysis/bounds.hpp"
#include "schedulers/hfp.hpp"
#include "schedulers/ready.hpp"
#include "presets/platforms.hpp"

using namespace tilelens;
using test::check_invariants;
using test::generated;
using test::run_replay;
using test::small_platform;

namespace {

double input_bytes(const Workload& w, const std::vector<TaskId>& tasks) {
  std::set<DataId> data;
  for (TaskId t : tasks) {
    for (const Access& a : w.accesses(t)) {
      if (reads(a.mode)) data.insert(a.data);
    }
  }
  double bytes = 0;
  for (DataId d : data) bytes += static_cast<double>(w.data()[d].bytes);
  return bytes;
}

std::vector<TaskId> concatenated(const std::vector<std::vector<TaskId>>& packages) {
  std::vector<TaskId> all;
  for (const auto& p : packages) all.insert(all.end(), p.begin(), p.end());
  return all;
}

bool each_task_once(const Workload& w, std::vector<TaskId> tasks) {
  std::sort(tasks.begin(), tasks.end());
  if (tasks.size() != w.task_count()) return false;
  for (TaskId t = 0; t < tasks.size(); ++t) {
    if (tasks[t] != t) return false;
  }
  return true;
}

Platform fgcs_platform(double memory_bytes) {
  Platform p = *find_platform_preset("v100-fgcs");
  p.memory_bytes = memory_bytes;
  return p;
}

constexpr double kMiB = 1048576.0;

}  // namespace

TEST_CASE("HFP's phase-1 packages fit in M and the packing holds every task once", "[hfp]") {
  for (const std::string spec : {"matmul2d:N=20", "matmul3d:N=6", "cholesky-tasks:N=10", "matmul2d-random-pairs:N=16,seed=3",
                                 "matmul2d-sparse:N=30,density=0.1,seed=2"}) {
    for (const double memory : {60 * kMiB, 250 * kMiB}) {
      for (const std::uint32_t k : {1u, 3u}) {
        INFO(spec << " M=" << memory << " K=" << k);
        const Workload w = generated(spec);
        HfpOptions options;
        options.memory_bytes = memory;
        options.packages = k;
        const HfpPacking packing = hfp_pack(w, options);
        CHECK(each_task_once(w, concatenated(packing.packages)));
        CHECK(packing.packages.size() <= k);
        CHECK(packing.packages.size() >= 1);
        if (!packing.phase1_packages.empty()) {
          CHECK(each_task_once(w, concatenated(packing.phase1_packages)));
          for (const auto& package : packing.phase1_packages) {
            if (package.size() > 1) CHECK(input_bytes(w, package) <= memory);
          }
        }
      }
    }
  }
}

TEST_CASE("HFP on fgcs Fig. 4: flipping gives the paper's 10 loads, 12 without", "[hfp][fgcs]") {
  // matmul2d N=4, memory for 4 rows or columns, one task at a time, Belady on HFP's order.
  const Workload w = generated("matmul2d:N=4");
  const Platform p = small_platform(4.0 * static_cast<double>(w.largest_data_bytes()));
  const auto flipped = run_replay(w, "hfp:ready=0", "belady", p, 1, "fgcs");
  const auto straight = run_replay(w, "hfp:ready=0,flip=0", "belady", p, 1, "fgcs");
  CHECK(flipped.summary.loads == 10);
  CHECK(straight.summary.loads == 12);
  CHECK(check_invariants(w, p, flipped).empty());
  // Flipping never costs loads here, whatever the memory and the other options.
  for (const int items : {2, 3, 4, 5, 6}) {
    const Platform q = small_platform(items * static_cast<double>(w.largest_data_bytes()));
    for (const std::string ready : {"0", "1"}) {
      INFO("items=" << items << " ready=" << ready);
      const auto a = run_replay(w, "hfp:ready=" + ready, "belady", q, 1, "fgcs");
      const auto b = run_replay(w, "hfp:flip=0,ready=" + ready, "belady", q, 1, "fgcs");
      CHECK(a.summary.loads <= b.summary.loads);
    }
  }
}

TEST_CASE("HFP counted in data equals HFP weighted in bytes when data sizes are equal", "[hfp]") {
  const Workload w = generated("matmul2d:N=24");
  const double item = static_cast<double>(w.largest_data_bytes());
  HfpOptions bytes;
  bytes.memory_bytes = 9 * item;
  HfpOptions count = bytes;
  count.weighted = false;
  CHECK(hfp_pack(w, bytes).packages == hfp_pack(w, count).packages);
  HfpOptions fast = bytes;
  fast.fast_start = true;
  CHECK(each_task_once(w, concatenated(hfp_pack(w, fast).packages)));
}

TEST_CASE("HFP with Belady stays near the matmul2d lower bound at M = 500 MiB up to N = 90", "[hfp][fgcs]") {
  // The issue asks for 2x; the floor in fgcs's bound drops almost a whole phase at N = 70
  // (I^2/M^2 = 3.87) and N = 85, where HFP reaches 2.10x and 2.03x. Without the floor HFP
  // stays under 1.8x everywhere; see docs/results.md.
  const Platform p = fgcs_platform(500 * kMiB);
  double worst = 0;
  for (int N = 5; N <= 90; N += 5) {
    const Workload w = generated("matmul2d:N=" + std::to_string(N));
    const auto run = run_replay(w, "hfp", "belady", p, 4, "fgcs");
    const ReferenceCurves curves = reference_curves(w, p);
    const double ratio = run.summary.bytes_loaded / curves.lower_bound_bytes;
    INFO("N=" << N << " ratio=" << ratio);
    CHECK(ratio >= 1.0);
    CHECK(ratio <= 2.2);
    worst = std::max(worst, ratio);
    // The bound without the floor on the number of full phases.
    const double I = static_cast<double>(w.working_set_bytes()) / 2.0;
    const double smooth = std::max(2 * I, I * I / (p.memory_bytes * p.memory_bytes) * p.memory_bytes + std::min(p.memory_bytes, 2 * I));
    CHECK(run.summary.bytes_loaded / smooth <= 2.0);
  }
  CHECK(worst > 1.5);  // memory is tight at the large sizes: the check above is not vacuous
}

TEST_CASE("Past the red line HFP loads less than DMDAR, and DMDAR less than EAGER", "[hfp][dmda][fgcs]") {
  // The paper's model (fgcs Fig. 5): under StarPU's, DMDA's push-time prefetches fill the
  // memory in allocation order, and DMDAR's Ready then finds EAGER's order.
  const Platform p = fgcs_platform(500 * kMiB);
  for (const int N : {40, 55, 70}) {
    const Workload w = generated("matmul2d:N=" + std::to_string(N));
    REQUIRE(static_cast<double>(w.working_set_bytes()) > p.memory_bytes);
    const auto hfp = run_replay(w, "hfp", "belady", p, 4, "fgcs");
    const auto dmdar = run_replay(w, "dmdar", "lru", p, 4, "fgcs");
    const auto eager = run_replay(w, "eager", "lru", p, 4, "fgcs");
    INFO("N=" << N << " hfp " << hfp.summary.loads << " dmdar " << dmdar.summary.loads << " eager " << eager.summary.loads);
    CHECK(hfp.summary.loads < dmdar.summary.loads);
    CHECK(dmdar.summary.loads < eager.summary.loads);
    CHECK(check_invariants(w, p, dmdar).empty());
  }
}

namespace {
class FakeMemory final : public MemoryView {
 public:
  std::map<DataId, ReplicaState> states;
  ReplicaState state(GpuId, DataId data) const override {
    auto it = states.find(data);
    return it == states.end() ? ReplicaState::Absent : it->second;
  }
  double free_bytes(GpuId) const override { return 0; }
};
}  // namespace

TEST_CASE("Ready takes the fewest bytes missing, then the fewest absent, and stops at a task needing nothing", "[ready]") {
  // Tasks of matmul2d N=3: T(i,j) reads A_i and B_j.
  const Workload w = generated("matmul2d:N=3");
  const auto task = [&](int i, int j) { return static_cast<TaskId>(i * 3 + j); };
  const auto data = [&](char matrix, int index) {
    for (DataId d = 0; d < w.data_count(); ++d) {
      const Data& x = w.data()[d];
      if (x.matrix == matrix && (matrix == 'A' ? x.row : x.col) == index) return d;
    }
    FAIL("no such data");
    return DataId{0};
  };
  TaskQueue queue;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) queue.push_back(task(i, j), w.tasks()[task(i, j)].priority);
  }
  FakeMemory memory;
  const auto all = [](TaskId) { return true; };
  std::uint64_t scanned = 0;
  // Nothing resident: every task misses two data, none loading: the head, after a scan of all 9.
  CHECK(queue.at(*ready_select(queue, w, memory, 0, ReadyPriority::Ignored, all, scanned)) == task(0, 0));
  CHECK(scanned == 9);
  // A1 resident, B2 loading: T(1,2) misses B2 only, but it is loading; T(1,0) misses B0,
  // absent. Same missing bytes, fewer absent: T(1,2).
  memory.states[data('A', 1)] = ReplicaState::Resident;
  memory.states[data('B', 2)] = ReplicaState::Loading;
  CHECK(queue.at(*ready_select(queue, w, memory, 0, ReadyPriority::Ignored, all, scanned)) == task(1, 2));
  // B0 resident too: T(1,0) needs nothing and is the first such: the scan stops at the 4th task.
  memory.states[data('B', 0)] = ReplicaState::Resident;
  scanned = 0;
  CHECK(queue.at(*ready_select(queue, w, memory, 0, ReadyPriority::Ignored, all, scanned)) == task(1, 0));
  CHECK(scanned == 4);
  queue.take(*ready_select(queue, w, memory, 0, ReadyPriority::Ignored, all, scanned));
  CHECK(queue.size() == 8);
  // Only eligible tasks count, and only they are scanned.
  scanned = 0;
  CHECK(queue.at(*ready_select(queue, w, memory, 0, ReadyPriority::Ignored, [&](TaskId t) { return t == task(2, 2); }, scanned)) == task(2, 2));
  CHECK(scanned == 1);
}

TEST_CASE("DMDA family: every task once, spread over GPUs, DMDAS keeps priorities on a DAG", "[dmda]") {
  const Workload w = generated("cholesky:N=8");
  const Platform p = small_platform(30.0 * static_cast<double>(w.largest_data_bytes()), 3);
  for (const std::string scheduler : {"dmda", "dmdar", "dmdas"}) {
    INFO(scheduler);
    const auto run = run_replay(w, scheduler, "lru", p, 4);
    CHECK(check_invariants(w, p, run).empty());
    CHECK(run.summary.tasks == w.task_count());
    for (const auto& gpu : run.summary.gpus) CHECK(gpu.tasks > 0);
  }
  // One GPU, buffer 1: DMDAS starts the highest-priority ready task each time.
  const Platform one = small_platform(1e12, 1);
  const auto run = run_replay(w, "dmdas", "lru", one, 1);
  CHECK(test::check_priority_order(w, run).empty());
}

TEST_CASE("HFP on several GPUs: one package each, all GPUs work, stealing balances the end", "[hfp]") {
  const Workload w = generated("matmul2d:N=24");
  const Platform p = small_platform(10.0 * static_cast<double>(w.largest_data_bytes()), 4);
  const auto run = run_replay(w, "hfp", "belady", p, 4);
  CHECK(check_invariants(w, p, run).empty());
  std::uint64_t most = 0, least = UINT64_MAX;
  for (const auto& gpu : run.summary.gpus) {
    most = std::max(most, gpu.tasks);
    least = std::min(least, gpu.tasks);
  }
  CHECK(least > 0);
  // Equal tasks and equal GPUs: stealing keeps the counts within a buffer's worth.
  CHECK(most - least <= 8);
  const auto lazy = run_replay(w, "hfp:steal=0", "belady", p, 4);
  CHECK(check_invariants(w, p, lazy).empty());
  CHECK(lazy.summary.makespan_ns >= run.summary.makespan_ns);
}

TEST_CASE("HFP options are checked", "[hfp][errors]") {
  auto bad = make_scheduler("hfp:flip=2");
  REQUIRE(!bad);
  CHECK(bad.error().message.find("flip") != std::string::npos);
  auto good = make_scheduler("hfp:flip=no,ready=yes");
  REQUIRE(good);
  CHECK(good->spec == "hfp:fast_start=0,fitting_partner=0,flip=no,flip_constituents=0,ready=yes,ready_scan=0,steal=1,weighted=1");
}

TEST_CASE("Ready's incremental index picks exactly what the scan picks", "[ready][hfp][partition]") {
  // Same trace, record for record, on independent tasks and DAGs, one and several GPUs.
  for (const std::string spec : {"matmul2d:N=20", "cholesky-tasks:N=12", "matmul2d-random-pairs:N=16,seed=2", "cholesky:N=10", "lu:N=8"}) {
    for (const std::uint32_t gpus : {1u, 3u}) {
      for (const std::string scheduler : {"hfp", "partition"}) {
        INFO(spec << " " << scheduler << " on " << gpus << " GPUs");
        const Workload w = generated(spec);
        const Platform p = small_platform(7.0 * static_cast<double>(w.largest_data_bytes()), gpus);
        const auto indexed = run_replay(w, scheduler, "lru", p, 4);
        const auto scanned = run_replay(w, scheduler + ":ready_scan=1", "lru", p, 4);
        CHECK(check_invariants(w, p, indexed).empty());
        CHECK(test::trace_text(indexed.trace) == test::trace_text(scanned.trace));
      }
    }
  }
}

namespace {

// Equal-size data named by letters; each task reads the data of its string.
Workload lettered(const std::vector<std::string>& tasks) {
  WorkloadBuilder builder("lettered");
  const KindId k = builder.kind("K");
  std::map<char, DataId> data;
  for (const std::string& reads : tasks) {
    std::vector<Access> accesses;
    for (char c : reads) {
      if (!data.count(c)) data[c] = builder.add_data({std::string(1, c), 1000, 'A', static_cast<std::int32_t>(data.size()), 0});
      accesses.push_back({data[c], AccessMode::Read});
    }
    builder.add_task(k, accesses, 1000);
  }
  auto w = std::move(builder).finish();
  REQUIRE(w.ok());
  return std::move(*w);
}

}  // namespace

TEST_CASE("HFP's fast start skips the first round's partner searches and packs every task", "[hfp][fgcs]") {
  const Workload w = generated("matmul2d:N=20");
  HfpOptions plain;
  plain.memory_bytes = 12 * static_cast<double>(w.largest_data_bytes());
  HfpOptions fast = plain;
  fast.fast_start = true;
  const HfpPacking a = hfp_pack(w, plain);
  const HfpPacking b = hfp_pack(w, fast);
  CHECK(each_task_once(w, concatenated(b.packages)));
  // Without fast start the first round searches a partner for each of the 400 tasks.
  CHECK(a.partner_searches >= w.task_count());
  CHECK(b.partner_searches + w.task_count() / 2 <= a.partner_searches);
}

TEST_CASE("HFP's phase-1 partner: the paper's lines 27-28, or only partners that fit", "[hfp]") {
  // M = 5 data. T0 shares 2 with T1 and T2 shares 2 with T3, but neither pair fits; T0 and T2
  // share 1 and fit. The round's maximum (line 11) is 1. The paper takes each package's best
  // partner first (line 27): every one shares 2 and does not fit, so nothing merges within M
  // and phase 1 ends (Algorithm 5 would repeat that round forever). Looking only at partners
  // that fit, T0 and T2 merge in phase 1.
  const Workload w = lettered({"abx", "abcde", "xmn", "mnopq"});
  HfpOptions paper;
  paper.memory_bytes = 5 * 1000;
  paper.flip = false;
  const HfpPacking by_paper = hfp_pack(w, paper);
  REQUIRE(by_paper.phase1_packages.size() == 4);
  HfpOptions fitting = paper;
  fitting.fitting_partner = true;
  const HfpPacking by_fit = hfp_pack(w, fitting);
  const std::vector<std::vector<TaskId>> merged = {{0, 2}, {1}, {3}};
  CHECK(by_fit.phase1_packages == merged);
  CHECK(each_task_once(w, concatenated(by_paper.packages)));
  CHECK(each_task_once(w, concatenated(by_fit.packages)));
  // M = 6: T0+T2 fits, the others still do not; with a third package sharing 1 with T0 and
  // fitting, the paper merges the package whose best partner is the round's maximum.
  const Workload v = lettered({"abx", "abcdef", "xy"});
  HfpOptions m4;
  m4.memory_bytes = 4 * 1000;
  m4.flip = false;
  const std::vector<std::vector<TaskId>> paper_pairs = {{1}, {2, 0}};
  CHECK(hfp_pack(v, m4).phase1_packages == paper_pairs);  // T2's best partner is T0: [T2, T0]
  m4.fitting_partner = true;
  const std::vector<std::vector<TaskId>> fit_pairs = {{0, 2}, {1}};
  CHECK(hfp_pack(v, m4).phase1_packages == fit_pairs);  // T0 looks past T1 to T2: [T0, T2]
}

TEST_CASE("HFP's flipping with the report's rule (c) uses the packages that built a package that fits", "[hfp]") {
  for (const std::string spec : {"matmul2d:N=12", "matmul3d:N=5", "cholesky-tasks:N=8"}) {
    INFO(spec);
    const Workload w = generated(spec);
    HfpOptions options;
    options.memory_bytes = 10 * static_cast<double>(w.largest_data_bytes());
    options.flip_constituents = true;
    const HfpPacking packing = hfp_pack(w, options);
    CHECK(each_task_once(w, concatenated(packing.packages)));
    CHECK(packing.flips > 0);
  }
}
