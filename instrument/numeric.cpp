// Kernel plans, seeded tiles, reference kernels and verification; see numeric.hpp.
#include "instrument/numeric.hpp"

#include <atomic>
#include <thread>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "model/kernels.hpp"
#include "util/rng.hpp"

namespace tilelens::instrument {
namespace {

// Element (r, c) of a column-major matrix with leading dimension ld.
template <class T>
inline T& at(std::vector<T>& m, std::int64_t ld, std::int64_t r, std::int64_t c) {
  return m[static_cast<std::size_t>(c * ld + r)];
}
template <class T>
inline T at(const std::vector<T>& m, std::int64_t ld, std::int64_t r, std::int64_t c) {
  return m[static_cast<std::size_t>(c * ld + r)];
}

// X M = B in place (X holds B), M upper triangular, row by row; M is `factor`, or the
// transpose of a lower triangular `factor`.
template <class T>
void solve_right_upper(std::vector<T>& X, const std::vector<T>& factor, std::int64_t b, bool transposed) {
  const auto m = [&](std::int64_t r, std::int64_t c) { return transposed ? at(factor, b, c, r) : at(factor, b, r, c); };
  for (std::int64_t r = 0; r < b; ++r) {
    for (std::int64_t j = 0; j < b; ++j) {
      double v = at(X, b, r, j);
      for (std::int64_t c = 0; c < j; ++c) v -= static_cast<double>(at(X, b, r, c)) * m(c, j);
      at(X, b, r, j) = static_cast<T>(v / m(j, j));
    }
  }
}

bool is_product(const std::string& name) {
  return name == "matmul2d" || name == "matmul2d-random-order" || name == "matmul2d-random-pairs" || name == "matmul2d-sparse";
}

}  // namespace

const char* to_string(Op op) {
  switch (op) {
    case Op::Product: return "product";
    case Op::Accumulate: return "accumulate";
    case Op::Potrf: return "potrf";
    case Op::TrsmRightLowerT: return "trsm-right-lower-t";
    case Op::Syrk: return "syrk";
    case Op::GemmNT: return "gemm-nt";
    case Op::Getrf: return "getrf-nopiv";
    case Op::TrsmRightUpper: return "trsm-right-upper";
    case Op::TrsmLeftUnitLower: return "trsm-left-unit-lower";
    case Op::GemmNN: return "gemm-nn";
    case Op::Fill: return "fill";
    case Op::Wait: return "wait";
  }
  return "?";
}

const char* to_string(Precision precision) { return precision == Precision::Double ? "fp64" : "fp32"; }

double default_tolerance(Precision precision) { return precision == Precision::Double ? 1e-9 : 1e-3; }

namespace {

Result<KernelPlan> plan_generated(const Workload& workload) {
  const GeneratorInfo& g = workload.generator();
  if (g.elem != 4 && g.elem != 8) {
    return make_error("workload '" + g.spec + "': the executor computes in fp32 (elem=4) or fp64 (elem=8), not elem=" + std::to_string(g.elem));
  }
  KernelPlan plan;
  plan.b = g.b;
  plan.precision = g.elem == 8 ? Precision::Double : Precision::Single;
  plan.what = g.name;
  plan.output_n = g.b;
  plan.grid = g.N;
  plan.spd = g.name == "cholesky" || g.name == "cholesky-tasks";
  plan.dominant = g.name == "lu";
  const std::int64_t b = g.b;
  const auto N = static_cast<std::uint32_t>(g.N);
  const auto kind_of = [&](TaskId t) -> const std::string& { return workload.kinds()[workload.tasks()[t].kind]; };
  plan.tasks.resize(workload.task_count());
  for (TaskId t = 0; t < workload.task_count(); ++t) {
    const Task& task = workload.tasks()[t];
    const auto access = workload.accesses(t);
    TaskKernel& kernel = plan.tasks[t];
    kernel.flops = task.flops;
    const auto need = [&](std::size_t count) -> Status {
      if (access.size() < count) {
        return make_error("task " + workload.task_label(t) + " has " + std::to_string(access.size()) + " accesses; its " +
                          kind_of(t) + " kernel needs " + std::to_string(count));
      }
      return Status::success();
    };
    if (is_product(g.name) || g.name == "matmul3d") {
      if (auto status = need(2); !status) return status.error();
      kernel.op = g.name == "matmul3d" ? Op::Accumulate : Op::Product;
      kernel.a = access[0].data;
      kernel.b = access[1].data;
      kernel.output = static_cast<std::uint32_t>(task.i) * N + static_cast<std::uint32_t>(task.j);
      kernel.m = kernel.n = b;
      kernel.k = g.name == "matmul3d" ? b : g.n * b;
      plan.outputs = N * N;
      continue;
    }
    const std::string& kind = kind_of(t);
    if (g.name == "cholesky" || g.name == "cholesky-tasks") {
      plan.checkable = g.name == "cholesky";
      if (kind == "POTRF") {
        kernel.op = Op::Potrf;
        kernel.target = access[0].data;
      } else if (kind == "TRSM") {
        if (auto status = need(2); !status) return status.error();
        kernel = {Op::TrsmRightLowerT, access[0].data, kNoId, access[1].data, kNoId, 0, 0, 0, task.flops};
      } else if (kind == "SYRK") {
        if (auto status = need(2); !status) return status.error();
        kernel = {Op::Syrk, access[0].data, kNoId, access[1].data, kNoId, 0, 0, 0, task.flops};
      } else if (kind == "GEMM") {
        if (auto status = need(3); !status) return status.error();
        kernel = {Op::GemmNT, access[0].data, access[1].data, access[2].data, kNoId, 0, 0, 0, task.flops};
      } else {
        return make_error("task " + workload.task_label(t) + ": no " + kind + " kernel in a Cholesky factorization");
      }
      continue;
    }
    if (g.name == "lu") {
      if (kind == "GETRF") {
        kernel.op = Op::Getrf;
        kernel.target = access[0].data;
      } else if (kind == "TRSM") {
        if (auto status = need(2); !status) return status.error();
        // The column panel L(m,k) sits below the diagonal (i = m > k), the row panel U(k,n) right of it.
        kernel = {task.i > task.k ? Op::TrsmRightUpper : Op::TrsmLeftUnitLower, access[0].data, kNoId, access[1].data, kNoId, 0, 0, 0,
                  task.flops};
      } else if (kind == "GEMM") {
        if (auto status = need(3); !status) return status.error();
        kernel = {Op::GemmNN, access[0].data, access[1].data, access[2].data, kNoId, 0, 0, 0, task.flops};
      } else {
        return make_error("task " + workload.task_label(t) + ": no " + kind + " kernel in an LU factorization");
      }
      continue;
    }
    return make_error("workload '" + g.spec + "': the executor knows no kernels for generator '" + g.name + "'");
  }
  return plan;
}

// Which factorization a task belongs to, for the TRSM and GEMM variants: the one that wrote
// its operands, as Chameleon's Cholesky (lower) and LU without pivoting call them.
enum class Family : std::uint8_t { None, Cholesky, Lu };

// An imported workload, kind by kind from the names (numeric.hpp). Tasks are planned in
// submission order, so an operand's family is that of the task that wrote it last before.
Result<KernelPlan> plan_imported(const Workload& workload, const PlanOptions& options) {
  KernelPlan plan;
  plan.what = workload.name();
  const std::vector<TaskId>& order = workload.submission_order();
  // The tile side and precision of the computed kernels: those of the first task whose name is
  // an s or d kernel with a written square tile; the others of another side or precision wait.
  std::int64_t side = 0;
  char precision = 0;
  for (TaskId t : order) {
    const auto name = parse_kernel_name(workload.kinds()[workload.tasks()[t].kind]);
    if (!name || (name->precision != 's' && name->precision != 'd')) continue;
    for (const Access& a : workload.accesses(t)) {
      const double elements = static_cast<double>(workload.data()[a.data].bytes) / element_bytes(name->precision);
      const double n = std::round(std::sqrt(elements));
      if (a.mode != AccessMode::Read && n > 0 && n * n == elements) {
        side = static_cast<std::int64_t>(n);
        precision = name->precision;
        break;
      }
    }
    if (side > 0) break;
  }
  plan.b = side;
  plan.output_n = side;
  plan.precision = precision == 'd' ? Precision::Double : Precision::Single;
  const auto tile_bytes = static_cast<std::uint64_t>(side * side) * element_size(plan.precision);
  for (const Data& d : workload.data()) plan.grid = std::max<std::int64_t>(plan.grid, std::max(d.row, d.col) + 1);

  std::vector<Family> family_of(workload.data_count(), Family::None);
  std::vector<char> accessed(workload.data_count(), 0);  // by a task before, in submission order
  std::map<std::string, std::map<std::string, std::size_t>> became;  // kind -> what it became -> tasks
  bool writes_unknown = false, has_potrf = false, has_getrf = false;
  plan.tasks.resize(workload.task_count());
  for (TaskId t : order) {
    const Task& task = workload.tasks()[t];
    const std::string& kind = workload.kinds()[task.kind];
    TaskKernel& kernel = plan.tasks[t];
    kernel.flops = task.flops;
    std::vector<DataId> reads, writes;
    for (const Access& a : workload.accesses(t)) (a.mode == AccessMode::Read ? reads : writes).push_back(a.data);
    const bool fresh_target = writes.size() == 1 && !accessed[writes[0]];
    for (const Access& a : workload.accesses(t)) accessed[a.data] = 1;
    const auto wait = [&](const std::string& why) {
      const bool measured = t < options.measured_ns.size() && options.measured_ns[t] > 0;
      kernel = TaskKernel{};
      kernel.op = Op::Wait;
      kernel.flops = task.flops;
      kernel.wait_ns = measured ? options.measured_ns[t] : static_cast<std::int64_t>(std::llround(task.flops / std::max(options.wait_gflops, 1e-9)));
      if (!writes.empty()) writes_unknown = true;
      ++became[kind]["a wait of its " +
                     (measured ? std::string("measured duration") : "flops at " + std::to_string(static_cast<int>(options.wait_gflops)) + " GFlop/s") +
                     " (" + why + ")"];
    };
    const auto name = parse_kernel_name(kind);
    if (!name) {
      wait("not a BLAS or LAPACK kernel name");
      continue;
    }
    if (name->precision != precision) {
      wait(is_complex(name->precision) ? "complex kernels are not mapped" : "another precision than the computed kernels'");
      continue;
    }
    bool square = side > 0;
    for (const Access& a : workload.accesses(t)) square = square && workload.data()[a.data].bytes == tile_bytes;
    const std::string& k = name->kernel;
    const auto fits = [&](std::size_t read_count, std::size_t write_count) { return reads.size() == read_count && writes.size() == write_count; };
    Family family = Family::None;
    for (DataId d : reads) {
      if (family == Family::None) family = family_of[d];
    }
    const bool generator = k == "plgsy" || k == "plghe" || k == "plrnt";  // Chameleon's
    const bool mapped = generator || k == "potrf" || k == "getrf" || k == "trsm" || k == "syrk" || k == "gemm";
    if (mapped && !square) {
      wait("tiles not all " + std::to_string(side) + " x " + std::to_string(side));
      continue;
    }
    if (k == "potrf" && fits(0, 1)) {
      kernel.op = Op::Potrf;
      kernel.target = writes[0];
      family = Family::Cholesky;
      has_potrf = true;
    } else if (k == "getrf" && fits(0, 1)) {
      kernel.op = Op::Getrf;
      kernel.target = writes[0];
      family = Family::Lu;
      has_getrf = true;
    } else if (k == "trsm" && fits(1, 1)) {
      kernel.a = reads[0];
      kernel.target = writes[0];
      const Data& triangle = workload.data()[reads[0]];
      const Data& panel = workload.data()[writes[0]];
      // LU's row panel U(k,n) shares the diagonal tile's row; its column panel L(m,k), its column.
      kernel.op = family != Family::Lu ? Op::TrsmRightLowerT
                  : (panel.row == triangle.row && panel.row >= 0) ? Op::TrsmLeftUnitLower
                                                                  : Op::TrsmRightUpper;
    } else if (k == "syrk" && fits(1, 1)) {
      kernel.op = Op::Syrk;
      kernel.a = reads[0];
      kernel.target = writes[0];
      family = Family::Cholesky;
    } else if (k == "gemm" && fits(2, 1)) {
      kernel.op = family == Family::Cholesky ? Op::GemmNT : Op::GemmNN;
      kernel.a = reads[0];
      kernel.b = reads[1];
      kernel.target = writes[0];
    } else if (generator && fits(0, 1) && fresh_target) {
      // Only as the tile's first access: the executor fills from the tile's host copy, which
      // holds the seeded values until a write-back replaces them.
      kernel.op = Op::Fill;
      kernel.target = writes[0];
    } else if (generator && fits(0, 1)) {
      wait("a generator on a tile used before: its values would not be the seed's");
      continue;
    } else {
      wait(mapped ? "its accesses are not the call's: " + std::to_string(reads.size()) + " read, " + std::to_string(writes.size()) + " written"
                  : "no call mapped for " + k);
      continue;
    }
    for (DataId d : writes) family_of[d] = family;
    std::string what = to_string(kernel.op);
    if (k == "getrf" && name->suffix != "nopiv") what += ", without the pivoting a " + k + " may do";
    ++became[kind][what];
  }
  plan.spd = has_potrf;
  plan.dominant = has_getrf;
  // The result means a factorization only for one kind of factorization of tiles with places.
  bool placed = side > 0;
  for (const Data& d : workload.data()) placed = placed && (d.bytes == 0 || (d.row >= 0 && d.col >= 0 && d.bytes == tile_bytes));
  plan.checkable = placed && !writes_unknown && has_potrf != has_getrf;
  if (plan.checkable) plan.what = has_potrf ? "cholesky" : "lu";
  for (const auto& [kind, outcomes] : became) {
    for (const auto& [what, count] : outcomes) plan.notes.push_back(kind + " (" + std::to_string(count) + " tasks): " + what);
  }
  return plan;
}

}  // namespace

Result<KernelPlan> plan_kernels(const Workload& workload, const PlanOptions& options) {
  if (workload.generator().name.empty()) return plan_imported(workload, options);
  return plan_generated(workload);
}

std::uint64_t arena_slot_bytes(std::uint64_t bytes) { return (bytes + 255) / 256 * 256; }

std::size_t element_size(Precision precision) { return precision == Precision::Double ? 8 : 4; }

std::size_t output_tile_bytes(const KernelPlan& plan) {
  return static_cast<std::size_t>(plan.output_n * plan.output_n) * element_size(plan.precision);
}

double output_pool_bytes(const KernelPlan& plan) { return static_cast<double>(plan.outputs) * static_cast<double>(output_tile_bytes(plan)); }

std::vector<std::string> arena_lines(const Workload& workload, const KernelPlan& plan, double memory_bytes, std::uint32_t gpus) {
  std::map<std::uint64_t, std::size_t> data_of_size;
  for (const Data& d : workload.data()) {
    if (d.bytes > 0) ++data_of_size[d.bytes];
  }
  std::vector<std::string> lines;
  char line[240];
  std::snprintf(line, sizeof line, "%u GPU%s, each an arena of %.0f bytes (M) reserved with one cudaMalloc", gpus, gpus == 1 ? "" : "s",
                memory_bytes);
  lines.emplace_back(line);
  for (const auto& [bytes, count] : data_of_size) {
    const std::uint64_t slot = arena_slot_bytes(bytes);
    const double fit = std::floor(memory_bytes / static_cast<double>(slot));
    std::snprintf(line, sizeof line, "  %zu data of %llu bytes: slots of %llu bytes, %.0f fit in M (%s)", count,
                  static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(slot), fit,
                  fit >= static_cast<double>(count) ? "all of them" : "evictions needed");
    lines.emplace_back(line);
  }
  if (data_of_size.size() > 1) {
    lines.emplace_back("  slots of one size serve that size only: with several sizes the arena can run out before M is reached");
  }
  if (plan.outputs > 0) {
    std::snprintf(line, sizeof line, "  beside it, the products' outputs: %u tiles, %.0f bytes per GPU", plan.outputs, output_pool_bytes(plan));
    lines.emplace_back(line);
  }
  return lines;
}

std::vector<std::string> plan_lines(const Workload& workload, const KernelPlan& plan) {
  std::vector<std::string> lines;
  lines.push_back(std::string(to_string(plan.precision)) + " tiles of " + std::to_string(plan.b) + " x " + std::to_string(plan.b) +
                  (plan.outputs > 0 ? ", " + std::to_string(plan.outputs) + " output tiles apart" : "") + "; result " +
                  (plan.checkable ? "checked as " + plan.what : "not checked"));
  if (!plan.notes.empty()) {
    lines.insert(lines.end(), plan.notes.begin(), plan.notes.end());
  } else {
    std::map<std::string, std::map<std::string, std::size_t>> calls;
    for (TaskId t = 0; t < plan.tasks.size(); ++t) ++calls[workload.kinds()[workload.tasks()[t].kind]][to_string(plan.tasks[t].op)];
    for (const auto& [kind, ops] : calls) {
      for (const auto& [op, count] : ops) lines.push_back(kind + " (" + std::to_string(count) + " tasks): " + op);
    }
  }
  std::size_t computed = 0, fills = 0, waits = 0;
  double flops = 0, wait_ns = 0;
  for (const TaskKernel& k : plan.tasks) {
    if (k.op == Op::Wait) {
      ++waits;
      wait_ns += static_cast<double>(k.wait_ns);
    } else if (k.op == Op::Fill) {
      ++fills;
    } else {
      ++computed;
      flops += k.flops;
    }
  }
  char line[200];
  std::snprintf(line, sizeof line, "in all: %zu cuBLAS/cuSOLVER calls (%.3g GFlop), %zu fills, %zu waits (%.3f ms)", computed, flops / 1e9,
                fills, waits, wait_ns / 1e6);
  lines.emplace_back(line);
  return lines;
}

namespace {

// One data's seeded values (make_tiles_as, and a Fill on the host): its own stream of the seed,
// so that tiles are made on every core at once and still the same for a seed.
template <class T>
void seed_tile(const Workload& workload, const KernelPlan& plan, std::uint64_t seed, DataId d, std::vector<T>& values) {
  const Data& data = workload.data()[d];
  const double shift = static_cast<double>(plan.grid * plan.b);
  Rng rng(seed ^ (0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(d) + 1)));
  // Whole elements covering every byte: loads and write-backs copy data.bytes.
  values.resize((data.bytes + element_size(plan.precision) - 1) / element_size(plan.precision));
  for (T& v : values) v = static_cast<T>(static_cast<double>(rng.next() >> 11) * 0x1.0p-53 * 2 - 1);
  const bool square = values.size() == static_cast<std::size_t>(plan.b * plan.b);
  if (!square || data.row < 0 || data.row != data.col) return;
  if (plan.spd || plan.dominant) {
    for (std::int64_t r = 0; r < plan.b; ++r) at(values, plan.b, r, r) += static_cast<T>(shift);
  }
  if (plan.spd) {  // a symmetric diagonal tile (only its lower part is read)
    for (std::int64_t c = 0; c < plan.b; ++c)
      for (std::int64_t r = 0; r < c; ++r) at(values, plan.b, r, c) = at(values, plan.b, c, r);
  }
}

}  // namespace

template <class T>
Tiles<T> make_tiles_as(const Workload& workload, const KernelPlan& plan, std::uint64_t seed) {
  Tiles<T> tiles;
  tiles.data.resize(workload.data_count());
  const unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::atomic<DataId> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (DataId d = next++; d < workload.data_count(); d = next++) seed_tile(workload, plan, seed, d, tiles.data[d]);
    });
  }
  for (auto& thread : pool) thread.join();
  tiles.outputs.assign(plan.outputs, std::vector<T>(static_cast<std::size_t>(plan.output_n * plan.output_n), T(0)));
  return tiles;
}

template <class T>
void run_on_host(const Workload& workload, const KernelPlan& plan, TaskId task, Tiles<T>& tiles, std::uint64_t seed) {
  const TaskKernel& k = plan.tasks[task];
  const std::int64_t b = plan.b;
  switch (k.op) {
    case Op::Product:
    case Op::Accumulate: {
      const auto& A = tiles.data[k.a];
      const auto& B = tiles.data[k.b];
      auto& C = tiles.outputs[k.output];
      for (std::int64_t c = 0; c < k.n; ++c) {
        for (std::int64_t r = 0; r < k.m; ++r) {
          double sum = k.op == Op::Accumulate ? at(C, k.m, r, c) : 0.0;
          for (std::int64_t p = 0; p < k.k; ++p) sum += static_cast<double>(at(A, k.m, r, p)) * at(B, k.k, p, c);
          at(C, k.m, r, c) = static_cast<T>(sum);
        }
      }
      return;
    }
    case Op::Potrf: {
      auto& L = tiles.data[k.target];
      for (std::int64_t j = 0; j < b; ++j) {
        double d = at(L, b, j, j);
        for (std::int64_t p = 0; p < j; ++p) d -= static_cast<double>(at(L, b, j, p)) * at(L, b, j, p);
        const double root = std::sqrt(std::max(d, 1e-30));
        at(L, b, j, j) = static_cast<T>(root);
        for (std::int64_t r = j + 1; r < b; ++r) {
          double v = at(L, b, r, j);
          for (std::int64_t p = 0; p < j; ++p) v -= static_cast<double>(at(L, b, r, p)) * at(L, b, j, p);
          at(L, b, r, j) = static_cast<T>(v / root);
        }
      }
      return;
    }
    case Op::TrsmRightLowerT:  // X L^T = B: L^T is upper triangular, its (c, j) is L's (j, c)
      solve_right_upper(tiles.data[k.target], tiles.data[k.a], b, true);
      return;
    case Op::Syrk: {
      const auto& A = tiles.data[k.a];
      auto& C = tiles.data[k.target];
      for (std::int64_t c = 0; c < b; ++c) {
        for (std::int64_t r = c; r < b; ++r) {
          double sum = 0;
          for (std::int64_t p = 0; p < b; ++p) sum += static_cast<double>(at(A, b, r, p)) * at(A, b, c, p);
          at(C, b, r, c) = static_cast<T>(at(C, b, r, c) - sum);
        }
      }
      return;
    }
    case Op::GemmNT:
    case Op::GemmNN: {
      const auto& A = tiles.data[k.a];
      const auto& B = tiles.data[k.b];
      auto& C = tiles.data[k.target];
      for (std::int64_t c = 0; c < b; ++c) {
        for (std::int64_t r = 0; r < b; ++r) {
          double sum = 0;
          for (std::int64_t p = 0; p < b; ++p) {
            sum += static_cast<double>(at(A, b, r, p)) * (k.op == Op::GemmNT ? at(B, b, c, p) : at(B, b, p, c));
          }
          at(C, b, r, c) = static_cast<T>(at(C, b, r, c) - sum);
        }
      }
      return;
    }
    case Op::Getrf: {
      auto& A = tiles.data[k.target];
      for (std::int64_t p = 0; p < b; ++p) {
        for (std::int64_t r = p + 1; r < b; ++r) at(A, b, r, p) /= at(A, b, p, p);
        for (std::int64_t c = p + 1; c < b; ++c)
          for (std::int64_t r = p + 1; r < b; ++r) at(A, b, r, c) -= at(A, b, r, p) * at(A, b, p, c);
      }
      return;
    }
    case Op::TrsmRightUpper:  // X U = B
      solve_right_upper(tiles.data[k.target], tiles.data[k.a], b, false);
      return;
    case Op::Fill:
      seed_tile(workload, plan, seed, k.target, tiles.data[k.target]);
      return;
    case Op::Wait:
      return;
    case Op::TrsmLeftUnitLower: {  // L X = B, column by column
      const auto& L = tiles.data[k.a];
      auto& X = tiles.data[k.target];
      for (std::int64_t c = 0; c < b; ++c) {
        for (std::int64_t r = 0; r < b; ++r) {
          double v = at(X, b, r, c);
          for (std::int64_t p = 0; p < r; ++p) v -= static_cast<double>(at(L, b, r, p)) * at(X, b, p, c);
          at(X, b, r, c) = static_cast<T>(v);
        }
      }
      return;
    }
  }
}

namespace {

// Largest |x - y| over the largest |y|, on the entries `keep` selects.
template <class Keep>
double relative_error(const std::vector<double>& x, const std::vector<double>& reference, std::int64_t n, Keep keep) {
  double diff = 0, scale = 0;
  for (std::int64_t c = 0; c < n; ++c) {
    for (std::int64_t r = 0; r < n; ++r) {
      if (!keep(r, c)) continue;
      const auto i = static_cast<std::size_t>(c * n + r);
      diff = std::max(diff, std::abs(x[i] - reference[i]));
      scale = std::max(scale, std::abs(reference[i]));
    }
  }
  return scale > 0 ? diff / scale : diff;
}

// sum += A · B on the rows `row` selects, A m x k and B k x n, column-major.
template <class T>
void add_product(std::vector<double>& sum, const std::vector<T>& A, const std::vector<T>& B, std::int64_t m, std::int64_t n,
                 std::int64_t k, const std::vector<char>& row) {
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t r = 0; r < m; ++r) {
      if (!row[static_cast<std::size_t>(r)]) continue;
      double s = 0;
      for (std::int64_t p = 0; p < k; ++p) s += static_cast<double>(at(A, m, r, p)) * at(B, k, p, c);
      sum[static_cast<std::size_t>(c * m + r)] += s;
    }
}

}  // namespace

template <class T>
Verdict verify(const Workload& workload, const KernelPlan& plan, const Tiles<T>& input, const Tiles<T>& result,
               std::size_t samples, std::uint64_t seed, double tolerance, std::size_t rows) {
  Verdict verdict;
  if (!plan.checkable) {
    verdict.detail = plan.what + ": tasks without dependencies, nothing to check";
    return verdict;
  }
  const std::int64_t b = plan.b;
  const auto n2 = static_cast<std::size_t>(b * b);
  const auto note = [&](double error, const std::string& where) {
    ++verdict.checked;
    verdict.worst = std::max(verdict.worst, error);
    if (error > tolerance && verdict.ok) {
      verdict.ok = false;
      char text[160];
      std::snprintf(text, sizeof text, "%s: relative error %.3g above %.3g", where.c_str(), error, tolerance);
      verdict.detail = text;
    }
  };
  // The rows checked in every sampled tile: all, or `rows` of them chosen with the seed (the
  // reference of a whole 960-tile of a large product takes seconds; a few rows catch a wrong
  // operand, order or slot as surely).
  std::vector<char> row(static_cast<std::size_t>(b), rows == 0 || rows >= static_cast<std::size_t>(b) ? 1 : 0);
  if (rows > 0 && rows < static_cast<std::size_t>(b)) {
    Rng rng(seed ^ 0x5eedu);
    row[0] = row[static_cast<std::size_t>(b - 1)] = 1;
    for (std::size_t i = 2; i < rows; ++i) row[static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(b)))] = 1;
  }
  const auto selected = [&](std::int64_t r, std::int64_t) { return row[static_cast<std::size_t>(r)] != 0; };
  const auto pick = [&](std::size_t count) {
    std::set<std::size_t> chosen;
    if (count == 0) return chosen;
    chosen.insert(0);
    chosen.insert(count - 1);
    Rng rng(seed);
    for (std::size_t s = 0; s < samples && chosen.size() < count; ++s) chosen.insert(static_cast<std::size_t>(rng.below(count)));
    return chosen;
  };

  if (plan.outputs > 0) {  // products: each sampled output against its tasks' products on the inputs
    std::map<std::uint32_t, std::vector<TaskId>> tasks_of;
    for (TaskId t = 0; t < plan.tasks.size(); ++t) tasks_of[plan.tasks[t].output].push_back(t);
    std::vector<std::uint32_t> outputs;
    for (const auto& [output, tasks] : tasks_of) outputs.push_back(output);
    for (std::size_t index : pick(outputs.size())) {
      const std::uint32_t output = outputs[index];
      std::vector<double> reference(n2, 0), got(n2);
      for (TaskId t : tasks_of[output]) {
        const TaskKernel& k = plan.tasks[t];
        add_product(reference, input.data[k.a], input.data[k.b], k.m, k.n, k.k, row);
      }
      for (std::size_t i = 0; i < n2; ++i) got[i] = result.outputs[output][i];
      note(relative_error(got, reference, b, selected),
           "C(" + std::to_string(output / workload.generator().N) + "," + std::to_string(output % workload.generator().N) + ")");
    }
    return verdict;
  }

  // Factorizations: a sampled tile (i, j) of L·L^T or L·U against the input.
  // The factored matrix's tiles: an imported workload's other data (a token of size 0) are not.
  std::map<std::pair<std::int32_t, std::int32_t>, DataId> tile;
  for (DataId d = 0; d < workload.data_count(); ++d) {
    const Data& data = workload.data()[d];
    if (data.row >= 0 && data.col >= 0 && data.bytes == n2 * element_size(plan.precision)) tile[{data.row, data.col}] = d;
  }
  std::vector<std::pair<std::int32_t, std::int32_t>> positions;
  for (const auto& [position, id] : tile) positions.push_back(position);
  const bool cholesky = plan.what == "cholesky";
  // The factor's tile (i, k), with the triangle a diagonal tile contributes.
  enum class Part { Full, Lower, UnitLower, Upper };
  const auto factor = [&](std::int32_t i, std::int32_t k, Part part) {
    std::vector<T> m = result.data[tile.at({i, k})];
    for (std::int64_t c = 0; c < b; ++c)
      for (std::int64_t r = 0; r < b; ++r) {
        T& v = at(m, b, r, c);
        if (part == Part::Lower && r < c) v = 0;
        if (part == Part::UnitLower) v = r < c ? T(0) : r == c ? T(1) : v;
        if (part == Part::Upper && r > c) v = 0;
      }
    return m;
  };
  const auto transpose = [&](const std::vector<T>& m) {
    std::vector<T> t(m.size());
    for (std::int64_t c = 0; c < b; ++c)
      for (std::int64_t r = 0; r < b; ++r) at(t, b, c, r) = at(m, b, r, c);
    return t;
  };
  if (cholesky) {  // L·Lᵀ is symmetric: its lower triangle is checked (a matrix may hold both)
    std::erase_if(positions, [](const auto& position) { return position.first < position.second; });
  }
  for (std::size_t index : pick(positions.size())) {
    const auto [i, j] = positions[index];
    std::vector<double> product(n2, 0), reference(n2);
    for (std::int32_t k = 0; k <= std::min(i, j); ++k) {
      if (cholesky) {  // (L L^T)(i, j) = sum_k L(i,k) L(j,k)^T, i >= j
        const auto left = factor(i, k, i == k ? Part::Lower : Part::Full);
        const auto right = transpose(factor(j, k, j == k ? Part::Lower : Part::Full));
        add_product(product, left, right, b, b, b, row);
      } else {  // (L U)(i, j) = sum_k L(i,k) U(k,j)
        const auto left = factor(i, k, i == k ? Part::UnitLower : Part::Full);
        const auto right = factor(k, j, j == k ? Part::Upper : Part::Full);
        add_product(product, left, right, b, b, b, row);
      }
    }
    const auto& original = input.data[tile.at({i, j})];
    for (std::size_t e = 0; e < n2; ++e) reference[e] = original[e];
    const bool diagonal_lower = cholesky && i == j;
    note(relative_error(product, reference, b,
                        [&](std::int64_t r, std::int64_t c) { return selected(r, c) && (!diagonal_lower || r >= c); }),
         "tile (" + std::to_string(i) + "," + std::to_string(j) + ")");
  }
  return verdict;
}

template Tiles<float> make_tiles_as<float>(const Workload&, const KernelPlan&, std::uint64_t);
template Tiles<double> make_tiles_as<double>(const Workload&, const KernelPlan&, std::uint64_t);
template void run_on_host<float>(const Workload&, const KernelPlan&, TaskId, Tiles<float>&, std::uint64_t);
template void run_on_host<double>(const Workload&, const KernelPlan&, TaskId, Tiles<double>&, std::uint64_t);
template Verdict verify<float>(const Workload&, const KernelPlan&, const Tiles<float>&, const Tiles<float>&, std::size_t, std::uint64_t,
                               double, std::size_t);
template Verdict verify<double>(const Workload&, const KernelPlan&, const Tiles<double>&, const Tiles<double>&, std::size_t,
                                std::uint64_t, double, std::size_t);

}  // namespace tilelens::instrument
