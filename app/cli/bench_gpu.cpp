// `tilelens bench gpu`: the CUDA executor's figures (issue "Instrumented CUDA executor"),
// each measured in one run of this command and printed with its ratio:
//   compute    executor GFlop/s with M above the working set, against a bare loop of the same
//              cuBLAS/cuSOLVER calls on tiles already on the device, with 0, 1 and 2 kernels
//              launched ahead (target >= 95%);
//   bandwidth  host-to-device bandwidth of a transfer-bound run (small M, TF32 kernels),
//              against bare pinned cudaMemcpyAsync calls of the same size (target >= 90%);
//   cupti      the same run without CUPTI and with each way of linking records to tasks (tracing
//              all API calls, only the launches, none through CUPTI's callbacks), 9 rotated
//              rounds: the median overheads, their spread, and the tasks and transfers no record
//              is linked to (target: 3% at most, none unlinked);
//   fidelity   loads measured against replayed for a static order with Belady and LRU, and
//              the makespan replayed on the run's calibrated platform (target within 10%);
//   fgcs       HFP, DMDAR and EAGER on matmul2d across the memory line: loads and GFlop/s.
#include <algorithm>
#include <array>
#include <iterator>
#include <set>
#include <string_view>
#include <climits>
#include <cstdio>
#include <optional>
#include <ostream>

#include "app/cli/commands.hpp"
#include "core/policies.hpp"
#include "core/exports.hpp"
#include "core/executor.hpp"
#include "core/analysis.hpp"
#include "core/presets.hpp"
#include "core/units.hpp"

namespace tilelens::cli {
namespace {

struct Measured {
  ReplaySummary summary;
  Trace trace;
  std::size_t cupti_records = 0, unlinked = 0;  // CUPTI's records; tasks and transfers no record is linked to
  std::size_t unlinked_records = 0;              // kernel and load records linked to nothing (unlinked_work_records)
};

Result<Measured> run_executor(const Workload& w, const std::string& scheduler_spec, const std::string& eviction_spec, double memory,
                              std::uint32_t depth, bool tf32, bool cupti, std::uint32_t launch_ahead = 1, std::uint32_t logical_gpus = 0,
                              instrument::CuptiApis apis = instrument::CuptiApis::Callbacks) {
  auto scheduler = make_scheduler(scheduler_spec);
  if (!scheduler) return scheduler.error();
  auto eviction = make_eviction(eviction_spec);
  if (!eviction) return eviction.error();
  instrument::ExecuteOptions options;
  options.platform.gpus = std::max(1u, logical_gpus);
  options.logical_gpus = logical_gpus > 0;
  options.platform.memory_bytes = memory;
  options.buffer_depth = depth;
  options.tf32 = tf32;
  options.cupti = cupti;
  options.cupti_apis = apis;
  options.launch_ahead = launch_ahead;
  options.verify_samples = 4;
  options.verify_rows = 8;
  auto result = instrument::execute(w, *scheduler->scheduler, *eviction->policy, options);
  if (!result) {
    return make_error((w.generator().spec.empty() ? w.name() : w.generator().spec) + " under " + scheduler_spec + "/" + eviction_spec + ": " +
                      describe(result.error()));
  }
  // Tasks, loads and write-backs that no kernel or copy record is linked to: what a cheaper
  // way of linking must not leave.
  std::set<std::uint64_t> linked;
  for (const CuptiRecord& r : result->cupti_records) {
    if ((r.kind == CuptiRecord::Kind::Kernel || r.kind == CuptiRecord::Kind::Memcpy) && r.external != 0) linked.insert(r.external);
  }
  std::size_t with[4] = {0, 0, 0, 0};
  for (std::uint64_t id : linked) ++with[static_cast<std::size_t>(external_kind(id)) & 3];
  const auto missing = [](std::size_t expected, std::size_t found) { return expected > found ? expected - found : 0; };
  const std::size_t unlinked = !cupti ? 0
                                      : missing(w.task_count(), with[static_cast<std::size_t>(ExternalKind::Task)]) +
                                            missing(result->trace.loads.size(), with[static_cast<std::size_t>(ExternalKind::Load)]) +
                                            missing(result->trace.writebacks.size(), with[static_cast<std::size_t>(ExternalKind::Writeback)]);
  return Measured{result->summary, std::move(result->trace), result->cupti_records.size(), unlinked,
                  unlinked_work_records(result->cupti_records)};
}

// The time the host-to-device stream was busy: the union of the load intervals.
double load_busy_ns(const Trace& trace) {
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  for (const LoadRecord& l : trace.loads) {
    if (l.source == kFromHost) spans.emplace_back(l.issue_ns, l.end_ns);
  }
  std::sort(spans.begin(), spans.end());
  double busy = 0;
  std::int64_t open = INT64_MIN, close = INT64_MIN;
  for (const auto& [a, b] : spans) {
    if (a > close) {
      if (close > open) busy += static_cast<double>(close - open);
      open = a;
      close = b;
    } else {
      close = std::max(close, b);
    }
  }
  if (close > open) busy += static_cast<double>(close - open);
  return busy;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

}  // namespace

const CommandSpec kBenchGpu{
    "tilelens bench gpu [--quick] [--section NAME]",
    "Measure the CUDA executor on the first GPU: GFlop/s against a bare loop of the same cuBLAS calls,\n"
    "host-to-device bandwidth against bare pinned copies, CUPTI's overhead, the fidelity of the\n"
    "calibrated replay (loads and makespan), HFP/DMDAR/EAGER on matmul2d across the memory line, DMDAS and\n"
    "DARTS over two logical GPUs, and an imported trace (--workload) re-executed under two policies.\n"
    "Exits with status 1 without a GPU.",
    {{"quick", "", "small sizes (a check that it runs, not figures)", ""},
     {"section", "NAME", "only one section: compute, bandwidth, cupti, fidelity, fgcs, logical or imported", ""},
     {"workload", "FILE", "the imported section's workload (tilelens import starpu --workload-out FILE)", ""}},
    ""};

int cmd_bench_gpu(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  const bool quick = args.has("quick");
  const std::string only = args.get("section");
  const auto wanted = [&](const char* section) { return only.empty() || only == section; };
  constexpr std::array<std::string_view, 7> kSections = {"compute", "bandwidth", "cupti", "fidelity", "fgcs", "logical", "imported"};
  if (!only.empty() && std::find(kSections.begin(), kSections.end(), only) == kSections.end()) {
    return fail(err, "--section: unknown section '" + only + "' (valid: compute, bandwidth, cupti, fidelity, fgcs, logical, imported)");
  }
  std::optional<Workload> imported;
  if (args.has("workload")) {
    auto read = resolve_workload(args.get("workload"));
    if (!read) return fail(err, "--workload: " + describe(read.error()));
    imported = std::move(*read);
  }
  if (auto available = instrument::cuda_available(); !available) {
    err << "tilelens: bench gpu needs a CUDA GPU: " << describe(available.error()) << "\n";
    return 1;
  }
  char line[256];  // each flushed once written: the whole bench takes minutes, and a pipe would hold it back
  int failures = 0;
  const auto report_error = [&](const Error& e) {
    ++failures;
    err << "tilelens: " << e.message << "\n";
  };

  if (wanted("compute")) {
    out << "== compute: executor against a bare loop of the same calls (M above the working set, fp32, CUPTI off)\n";
    for (const std::string& spec : quick ? std::vector<std::string>{"matmul2d:N=8", "cholesky:N=8"}
                                         : std::vector<std::string>{"matmul2d:N=20", "matmul2d:N=40", "cholesky:N=20", "lu:N=20"}) {
      auto w = generate_workload(spec);
      if (!w) return fail(err, describe(w.error()));
      auto bare = instrument::measure_bare(*w, false, 20);
      if (!bare) {
        report_error(bare.error());
        continue;
      }
      const bool dag = w->dependency_count() > 0;
      const double memory = static_cast<double>(w->working_set_bytes()) * 1.5;
      std::snprintf(line, sizeof line, "%-16s bare %6.0f GFlop/s; executor by kernels launched ahead:", spec.c_str(), bare->gflops);
      out << line;
      for (std::uint32_t ahead = 0; ahead <= instrument::kLaunchAheadMax; ++ahead) {
        auto run = run_executor(*w, dag ? "dmdas" : "eager", "lru", memory, 4, false, false, ahead);
        if (!run) {
          out << "\n";
          report_error(run.error());
          break;
        }
        // Over the makespan (from the start, loads included) and over the kernels' span alone
        // (first kernel's start to last one's end): the launch gaps without the first loads.
        std::int64_t first = INT64_MAX, last = INT64_MIN;
        for (const TaskRecord& t : run->trace.tasks) {
          first = std::min(first, t.start_ns);
          last = std::max(last, t.end_ns);
        }
        const double span_gflops = last > first ? w->total_flops() / static_cast<double>(last - first) : 0;
        std::snprintf(line, sizeof line, "   %u: %6.0f %5.1f%% (kernels' span %5.1f%%)", ahead, run->summary.gflops,
                      run->summary.gflops / bare->gflops * 100, span_gflops / bare->gflops * 100);
        out << line << std::flush;
      }
      out << "\n" << std::flush;
    }
  }
  if (wanted("bandwidth")) {
    out << "\n== bandwidth: a transfer-bound run (TF32, small M) against bare pinned copies\n";
    {
      const std::string spec = quick ? "matmul2d:N=10" : "matmul2d:N=30";
      auto w = generate_workload(spec);
      if (!w) return fail(err, describe(w.error()));
      auto bare = instrument::measure_bare(*w, true, 40);
      auto run = run_executor(*w, "random", "lru", static_cast<double>(w->largest_data_bytes()) * 4, 4, true, false);
      if (!bare || !run) {
        report_error(!bare ? bare.error() : run.error());
      } else {
        const double busy = load_busy_ns(run->trace);
        const double achieved = run->summary.bytes_from_host / (busy * 1e-9);
        const double overall = run->summary.bytes_from_host / (static_cast<double>(run->summary.makespan_ns) * 1e-9);
        std::snprintf(line, sizeof line,
                      "%-16s bare H2D %6.2f GB/s (D2H %6.2f)   executor %6.2f GB/s while loading (%5.1f%%), %6.2f GB/s over the "
                      "makespan (%5.1f%%); loads busy %4.1f%% of the run\n",
                      spec.c_str(), bare->h2d_bytes_per_s / 1e9, bare->d2h_bytes_per_s / 1e9, achieved / 1e9,
                      achieved / bare->h2d_bytes_per_s * 100, overall / 1e9, overall / bare->h2d_bytes_per_s * 100,
                      busy / static_cast<double>(run->summary.makespan_ns) * 100);
        out << line << std::flush;
      }
    }
  }
  if (wanted("cupti")) {
    // The overhead is small against the run-to-run noise: it is measured round by round (one
    // run without CUPTI, then one per way of linking records to tasks; the order rotates every
    // round so drift cancels), and the median of the rounds' overheads is printed with their
    // spread, and how many tasks and transfers no kernel or copy record is linked to.
    const int rounds = quick ? 4 : 9;
    constexpr instrument::CuptiApis kWays[] = {instrument::CuptiApis::All, instrument::CuptiApis::Launches, instrument::CuptiApis::Callbacks};
    constexpr int kModes = 1 + static_cast<int>(std::size(kWays));  // off, then each way
    out << "\n== cupti: the same run without CUPTI and linking records to tasks by tracing every API call (all), only the launches "
           "(launches) or none, through CUPTI's callbacks (callbacks); "
        << rounds << " rounds (target: median overhead 3% at most, every record linked)\n";
    for (const std::string& spec :
         quick ? std::vector<std::string>{"cholesky:N=8"}
               : std::vector<std::string>{"matmul2d:N=20", "matmul2d:N=40", "cholesky:N=20", "lu:N=20"}) {
      auto w = generate_workload(spec);
      if (!w) return fail(err, describe(w.error()));
      const bool dag = w->dependency_count() > 0;
      std::vector<double> off;
      std::vector<double> overhead[kModes - 1];
      std::size_t records[kModes - 1] = {}, unlinked[kModes - 1] = {}, stray[kModes - 1] = {};
      for (int round = 0; round < rounds; ++round) {
        double times[kModes] = {};
        bool ok = true;
        for (int i = 0; i < kModes; ++i) {
          const int mode = (i + round) % kModes;
          auto run = run_executor(*w, dag ? "dmdas" : "eager", "lru", static_cast<double>(w->working_set_bytes()) * 0.5, 4, false, mode > 0,
                                  1, 0, mode > 0 ? kWays[mode - 1] : instrument::CuptiApis::All);
          if (!run) {
            report_error(run.error());
            ok = false;
            continue;
          }
          times[mode] = static_cast<double>(run->summary.makespan_ns);
          if (mode > 0) {
            records[mode - 1] = std::max(records[mode - 1], run->cupti_records);
            unlinked[mode - 1] = std::max(unlinked[mode - 1], run->unlinked);
            stray[mode - 1] = std::max(stray[mode - 1], run->unlinked_records);
          }
        }
        if (!ok || times[0] <= 0) continue;
        off.push_back(times[0]);
        for (int m = 0; m + 1 < kModes; ++m) overhead[m].push_back((times[m + 1] - times[0]) / times[0] * 100);
      }
      if (off.empty()) continue;
      std::snprintf(line, sizeof line, "%-16s off %s\n", spec.c_str(), format_duration(static_cast<std::int64_t>(median(off))).c_str());
      out << line;
      for (int m = 0; m + 1 < kModes; ++m) {
        std::vector<double> sorted = overhead[m];
        std::sort(sorted.begin(), sorted.end());
        const auto quartile = [&](double q) { return sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5)]; };
        std::snprintf(line, sizeof line,
                      "  %-9s overhead median %+5.1f%% (rounds from %+.1f%% to %+.1f%%, middle half %+.1f%% to %+.1f%%), %zu records; "
                      "unlinked: %zu tasks and transfers, %zu kernel and load records\n",
                      to_string(kWays[m]), median(overhead[m]), sorted.front(), sorted.back(), quartile(0.25), quartile(0.75), records[m],
                      unlinked[m], stray[m]);
        out << line;
      }
      out << std::flush;
    }
  }
  if (wanted("fidelity")) {
    out << "\n== fidelity: static order (eager), measured against replayed on the calibrated platform\n";
    std::snprintf(line, sizeof line, "%-16s %-7s %9s %6s %10s %10s %7s %12s %12s %7s\n", "workload", "policy", "M", "depth", "loads",
                  "replayed", "equal", "makespan", "replayed", "diff");
    out << line << std::flush;
    std::size_t equal = 0, within = 0, total = 0;
    for (const std::string& spec :
         quick ? std::vector<std::string>{"matmul2d:N=10"}
               : std::vector<std::string>{"matmul2d:N=20", "matmul2d:N=40", "matmul2d:N=60", "cholesky-tasks:N=20"}) {
      auto w = generate_workload(spec);
      if (!w) return fail(err, describe(w.error()));
      for (double fraction : {0.25, 0.5, 1.0}) {
        const double memory =
            std::max(static_cast<double>(w->working_set_bytes()) * fraction, static_cast<double>(w->largest_data_bytes()) * 4);
        for (const std::string policy : {"belady", "lru"}) {
          for (std::uint32_t depth : {4u}) {
            auto run = run_executor(*w, "eager", policy, memory, depth, false, true);
            if (!run) {
              report_error(run.error());
              continue;
            }
            Platform base;
            base.gpus = 1;
            base.memory_bytes = memory;
            base.copy_engines = 1;  // the executor's copy streams, as calibrate_run() says
            auto calibration = calibrate(*w, run->trace, base);
            auto s = make_scheduler("eager");
            auto e = make_eviction(policy);
            ReplayOptions options;
            options.platform = calibration ? calibration->platform : base;
            options.buffer_depth = depth;
            auto replayed = replay(*w, *s->scheduler, *e->policy, options);
            if (!calibration || !replayed) {
              report_error(!calibration ? calibration.error() : replayed.error());
              continue;
            }
            const double diff = (static_cast<double>(replayed->makespan_ns) - static_cast<double>(run->summary.makespan_ns)) /
                                static_cast<double>(run->summary.makespan_ns) * 100;
            ++total;
            equal += replayed->loads == run->summary.loads;
            within += std::abs(diff) <= 10;
            std::snprintf(line, sizeof line, "%-16s %-7s %9s %6u %10llu %10llu %7s %12s %12s %+6.1f%%\n", spec.c_str(), policy.c_str(),
                          format_bytes(memory).substr(0, format_bytes(memory).find(' ') + 3).c_str(), depth,
                          static_cast<unsigned long long>(run->summary.loads), static_cast<unsigned long long>(replayed->loads),
                          replayed->loads == run->summary.loads ? "yes" : "NO", format_duration(run->summary.makespan_ns).c_str(),
                          format_duration(replayed->makespan_ns).c_str(), diff);
            out << line << std::flush;
          }
        }
      }
    }
    out << "loads equal in " << equal << " of " << total << " runs; makespan within 10% in " << within << " of " << total << "\n";
  }
  if (wanted("fgcs")) {
    out << "\n== fgcs on the GPU: matmul2d across the memory line (M = 500 MiB, fp32, depth 4)\n";
    std::snprintf(line, sizeof line, "%-16s %10s %-14s %8s %12s %10s\n", "workload", "WS/M", "policy", "loads", "GB loaded", "GFlop/s");
    out << line << std::flush;
    for (int N : quick ? std::vector<int>{6, 12} : std::vector<int>{10, 20, 30, 40, 50}) {
      auto w = generate_workload("matmul2d:N=" + std::to_string(N));
      if (!w) return fail(err, describe(w.error()));
      const double memory = 500.0 * 1024 * 1024;
      for (const auto& [scheduler, policy] :
           std::vector<std::pair<std::string, std::string>>{{"hfp", "belady"}, {"dmdar", "lru"}, {"eager", "lru"}}) {
        auto run = run_executor(*w, scheduler, policy, memory, 4, false, false);
        if (!run) {
          report_error(run.error());
          continue;
        }
        std::snprintf(line, sizeof line, "matmul2d:N=%-5d %10.2f %-14s %8llu %12.2f %10.0f\n", N,
                      static_cast<double>(w->working_set_bytes()) / memory, (scheduler + "/" + policy).c_str(),
                      static_cast<unsigned long long>(run->summary.loads), run->summary.bytes_loaded / 1e9, run->summary.gflops);
        out << line << std::flush;
      }
    }
  }
  if (wanted("logical")) {
    out << "\n== logical: cholesky on two logical GPUs of one device (M = a quarter of the working set each, depth 4)\n";
    auto w = generate_workload(quick ? "cholesky:N=10" : "cholesky:N=30");
    if (!w) return fail(err, describe(w.error()));
    for (const auto& [scheduler, policy] : std::vector<std::pair<std::string, std::string>>{{"dmdas", "lru"}, {"darts", "luf"}}) {
      auto run = run_executor(*w, scheduler, policy, static_cast<double>(w->working_set_bytes()) * 0.25, 4, false, false, 1, 2);
      if (!run) {
        report_error(run.error());
        continue;
      }
      const ReplaySummary& r = run->summary;
      std::snprintf(line, sizeof line, "%-16s %-12s %8.0f GFlop/s  loads %llu (%llu from the other GPU)  invalidations %llu  tasks %llu + %llu\n",
                    w->generator().spec.substr(0, w->generator().spec.find(',')).c_str(), (scheduler + "/" + policy).c_str(), r.gflops,
                    static_cast<unsigned long long>(r.loads), static_cast<unsigned long long>(r.loads_from_gpu),
                    static_cast<unsigned long long>(r.invalidations), static_cast<unsigned long long>(r.gpus.size() > 0 ? r.gpus[0].tasks : 0),
                    static_cast<unsigned long long>(r.gpus.size() > 1 ? r.gpus[1].tasks : 0));
      out << line << std::flush;
    }
  }
  if (wanted("imported")) {
    out << "\n== imported: a workload file (an imported trace) re-executed under two policies, verified\n";
    if (!imported) {
      out << "skipped: give --workload FILE (tilelens import starpu tasks.rec ... --workload-out FILE)\n";
    } else {
      const double memory = std::max(static_cast<double>(imported->working_set_bytes()) * 0.5, static_cast<double>(imported->largest_data_bytes()) * 4);
      for (const auto& [scheduler, policy] : std::vector<std::pair<std::string, std::string>>{{"dmdas", "lru"}, {"darts", "luf"}}) {
        auto run = run_executor(*imported, scheduler, policy, memory, 4, false, true);
        if (!run) {
          report_error(run.error());
          continue;
        }
        std::snprintf(line, sizeof line, "%-16s %-12s %8.0f GFlop/s  loads %llu  makespan %s  verified\n", imported->name().c_str(),
                      (scheduler + "/" + policy).c_str(), run->summary.gflops, static_cast<unsigned long long>(run->summary.loads),
                      format_duration(run->summary.makespan_ns).c_str());
        out << line << std::flush;
      }
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace tilelens::cli
