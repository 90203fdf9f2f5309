// Lower bounds and reference curves; see bounds.hpp and docs/bounds.md.
#include "analysis/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace tilelens {

double matmul2d_lower_bound(double I, double M) {
  return std::max(2 * I, std::floor(I * I / (M * M)) * M + std::min(M, 2 * I));
}

double matmul3d_lower_bound(double products, double S, double M) {
  return 2 * M * std::floor(products * S / (M * std::sqrt(M / S)));
}

double cholesky_lower_bound_tiles(double N, double m) { return N * N * N / (3 * std::sqrt(2.0) * std::sqrt(m)); }

double lu_lower_bound_tiles(double N, double m) { return 2 * N * N * N / (3 * std::sqrt(m)); }

namespace {

// Whether some task of the workload may run on a CPU worker, from the host memory, without loads.
bool cpus_compute(const Workload& workload, const Platform& platform) {
  for (const auto& kind : workload.kinds()) {
    if (platform.cpus > 0 && platform.cpu_gflops_of(kind) > 0) return true;
  }
  return false;
}

}  // namespace

double compulsory_load_bytes(const Workload& workload, const Platform& platform) {
  const auto nd = workload.data_count();
  const bool cpu_computes = cpus_compute(workload, platform);
  // A write-only access may come first, making the data on a GPU without a load, unless some
  // task reading the data precedes it in every schedule: a predecessor of the writer that
  // reads it, or one that writes it and is itself so preceded. Tasks are visited in a
  // topological order, so a writer's predecessors are settled before it.
  std::vector<TaskId> order;
  order.reserve(workload.task_count());
  std::vector<std::uint32_t> missing(workload.task_count());
  for (TaskId t = 0; t < workload.task_count(); ++t) {
    missing[t] = static_cast<std::uint32_t>(workload.predecessors(t).size());
    if (missing[t] == 0) order.push_back(t);
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (TaskId next : workload.successors(order[i])) {
      if (--missing[next] == 0) order.push_back(next);
    }
  }
  // Per access (Task::first_access + its index): for a write-only one, whether a read precedes it.
  std::vector<char> write_preceded_by_read(workload.access_count(), 0);
  std::vector<char> gpu_only_kind(workload.kinds().size());
  for (std::size_t k = 0; k < gpu_only_kind.size(); ++k) gpu_only_kind[k] = platform.cpus == 0 || !(platform.cpu_gflops_of(workload.kinds()[k]) > 0);
  std::vector<char> read_on_gpu(nd, 0), unpreceded_write(nd, 0);
  for (const TaskId t : order) {
    const bool gpu_only = gpu_only_kind[workload.tasks()[t].kind] != 0;
    const auto accesses = workload.accesses(t);
    for (std::size_t a = 0; a < accesses.size(); ++a) {
      const Access& access = accesses[a];
      if (access.mode != AccessMode::Write) {
        if (gpu_only) read_on_gpu[access.data] = 1;
        continue;
      }
      bool preceded = false;
      for (const TaskId before : workload.predecessors(t)) {
        const auto earlier = workload.accesses(before);
        for (std::size_t b = 0; b < earlier.size(); ++b) {
          if (earlier[b].data != access.data) continue;
          preceded |= earlier[b].mode != AccessMode::Write || write_preceded_by_read[workload.tasks()[before].first_access + b] != 0;
        }
      }
      write_preceded_by_read[workload.tasks()[t].first_access + a] = preceded ? 1 : 0;
      // With CPU workers the preceding read may run on a CPU, without a load: any write counts.
      if (!preceded || cpu_computes) unpreceded_write[access.data] = 1;
    }
  }
  double bytes = 0;
  for (DataId d = 0; d < nd; ++d) {
    if (read_on_gpu[d] && !unpreceded_write[d]) bytes += static_cast<double>(workload.data()[d].bytes);
  }
  return bytes;
}

ReferenceCurves reference_curves(const Workload& workload, const Platform& platform) {
  ReferenceCurves curves;
  const double M = platform.memory_bytes * platform.memory_nodes();
  const GeneratorInfo& g = workload.generator();
  curves.compulsory_bytes = compulsory_load_bytes(workload, platform);
  curves.working_set_bytes = static_cast<double>(workload.working_set_bytes());
  curves.lower_bound_bytes = curves.compulsory_bytes;
  curves.bound = "compulsory (each input loaded once)";
  curves.ideal_compute_ns = workload.total_flops() / (platform.total_peak_gflops());
  // What the host's links can move in that time: the host bus, or the PCIe tree below it when
  // its switches carry less.
  curves.bus_limit_bytes = platform.host_throughput() * curves.ideal_compute_ns * 1e-9;
  // The closed forms count the traffic of one bounded memory computing everything; CPU
  // workers compute from the host without loads, so with them only the compulsory bound holds.
  if (cpus_compute(workload, platform)) return curves;

  const double N = static_cast<double>(g.N);
  const double S = static_cast<double>(g.b) * static_cast<double>(g.b) * static_cast<double>(g.elem);
  if (g.name == "matmul2d" || g.name == "matmul2d-random-order") {
    const double I = N * static_cast<double>(g.n) * S;
    curves.one_input_bytes = I;
    curves.both_inputs_bytes = 2 * I;
    const double bound = matmul2d_lower_bound(I, M);
    if (bound > curves.lower_bound_bytes) {
      curves.lower_bound_bytes = bound;
      curves.bound = "matmul2d (fgcs 5.2)";
    }
  } else if (g.name == "matmul2d-random-pairs" || g.name == "matmul2d-sparse") {
    const double I = N * static_cast<double>(g.n) * S;  // marks only: not every pair is computed
    curves.one_input_bytes = I;
    curves.both_inputs_bytes = 2 * I;
  } else if (g.name == "matmul3d") {
    const double inner = static_cast<double>(g.n);
    curves.one_input_bytes = N * inner * S;
    curves.both_inputs_bytes = 2 * N * inner * S;
    const double bound = matmul3d_lower_bound(N * N * inner, S, M);
    if (bound > curves.lower_bound_bytes) {
      curves.lower_bound_bytes = bound;
      curves.bound = "matmul3d (fgcs 5.3)";
    }
  } else if (g.name == "cholesky" || g.name == "cholesky-tasks") {
    const double tiles = cholesky_lower_bound_tiles(N, M / S) * S;
    if (tiles > curves.lower_bound_bytes) {
      curves.asymptotic = true;
      curves.lower_bound_bytes = tiles;
      curves.bound = "cholesky leading term (Beaumont et al. 2022)";
    }
  } else if (g.name == "lu") {
    const double tiles = lu_lower_bound_tiles(N, M / S) * S;
    if (tiles > curves.lower_bound_bytes) {
      curves.asymptotic = true;
      curves.lower_bound_bytes = tiles;
      curves.bound = "lu leading term (Kwasniewski et al. 2021)";
    }
  }
  return curves;
}

}  // namespace tilelens
