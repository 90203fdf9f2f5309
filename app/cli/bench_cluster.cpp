// `tilelens bench cluster`: issue 21's targets measured in one run. A sweep of over 1,000
// runs is split into 8 shards by estimated cost; each shard is swept on its own into its own
// database, one after the other on one thread (as 8 machines would, each with one core), and
// timed; the shards are then merged. Printed: the slowest shard against the mean (target
// 1.3x at most) and the merge's time against the sweep's own (target under 10% with metrics
// only, 15% with traces).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <numeric>

#include "app/cli/commands.hpp"
#include "core/sweep.hpp"
#include "core/units.hpp"
#include "core/store.hpp"

namespace tilelens::cli {

const CommandSpec kBenchCluster{
    "tilelens bench cluster [--quick] [--traces]",
    "Measure sharding and merging (docs/cluster.md): a sweep of about 1,050 runs (matmul2d, cholesky, matmul3d at\n"
    "several sizes, 7 policies, 3 memories) in 8 shards, each swept alone on one thread into its own database, then\n"
    "merged with tilelens db merge. Prints each shard's time, the slowest against the mean (target: 1.3x at most)\n"
    "and the merge against the sweep's own time (target: under 10% with metrics only, 15% with traces). The runs\n"
    "keep their metrics only, as large sweeps do (--metrics-only); --traces keeps every trace, which the merge then\n"
    "copies row by row.",
    {{"quick", "", "a smaller grid (a smoke test); the figures are then not comparable to the targets", ""},
     {"traces", "", "store and merge every run's trace", ""}},
    ""};

int cmd_bench_cluster(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  const bool quick = args.has("quick");
  core::SweepGrid grid;
  grid.workloads = quick ? "matmul2d:N=4..10:2;cholesky:N=4|6" : "matmul2d:N=4..40:2;cholesky:N=4..20:2;matmul3d:N=2..8";
  grid.schedulers = "eager,rcm,mst,dmdar,hfp/belady,darts/luf";
  grid.evictions = "lru,fifo";
  grid.memories = quick ? "4items" : "4items,8items,16items";
  grid.metrics_only = !args.has("traces");
  constexpr std::uint32_t kShards = 8;
  const auto folder = std::filesystem::temp_directory_path() / ("tilelens-bench-cluster-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  struct Cleanup {
    std::filesystem::path folder;
    ~Cleanup() {
      std::error_code ignored;
      std::filesystem::remove_all(folder, ignored);
    }
  } cleanup{folder};
  auto all = core::expand_grid(grid);
  if (!all) return fail(err, describe(all.error()));
  out << "bench cluster: " << all->size() << " runs in " << kShards << " shards, each swept on one thread, "
      << (grid.metrics_only ? "metrics only" : "with their traces") << (quick ? " (quick)" : "") << "\n";
  std::vector<double> seconds;
  std::vector<std::string> parts;
  for (std::uint32_t k = 1; k <= kShards; ++k) {
    core::SweepGrid part = grid;
    if (auto status = core::set_sweep_option(part, "shard", std::to_string(k) + "/" + std::to_string(kShards)); !status) {
      return fail(err, describe(status.error()));
    }
    core::SweepOptions options;
    options.database = (folder / ("shard-" + std::to_string(k) + ".db")).string();
    options.threads = 1;
    const auto begin = std::chrono::steady_clock::now();
    auto report = core::run_sweep(part, options);
    if (!report) return fail(err, describe(report.error()));
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
    parts.push_back(options.database);
    out << "  shard " << k << ": " << report->total << " runs in " << format_fixed(seconds.back(), 2) << " s\n";
  }
  const double total = std::accumulate(seconds.begin(), seconds.end(), 0.0);
  const double slowest = *std::max_element(seconds.begin(), seconds.end()), mean = total / kShards;
  const auto begin = std::chrono::steady_clock::now();
  // As `tilelens db merge merged.db shard-*.db` does: a new file, closed when the clock stops.
  auto report = db::Store::merge_into_new((folder / "merged.db").string(), parts);
  if (!report) return fail(err, describe(report.error()));
  const std::size_t runs = report->runs_added;
  const double merge_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  out << "  balance: slowest shard " << format_fixed(slowest, 2) << " s against a mean of " << format_fixed(mean, 2) << " s: "
      << format_fixed(slowest / mean, 2) << "x (target: 1.30x at most)\n";
  out << "  merge: " << runs << " runs from " << kShards << " files in " << format_fixed(merge_s, 2) << " s, "
      << format_fixed(100 * merge_s / total, 1) << "% of the sweep's " << format_fixed(total, 2) << " s (target: under "
      << (grid.metrics_only ? "10" : "15") << "%, issue 33)\n";
  return runs == all->size() ? 0 : fail(err, "the merged database holds " + std::to_string(runs) + " runs, not " + std::to_string(all->size()));
}

}  // namespace tilelens::cli
