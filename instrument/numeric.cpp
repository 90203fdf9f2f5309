// Kernel plans, seeded tiles, reference kernels and verification; see numeric.hpp.
#include "instrument/numeric.hpp"

#include <atomic>
#include <thread>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "model/rng.hpp"

namespace tilelens::instrument {
namespace {

// Element (r, c) of a column-major matrix with leading dimension ld.
inline float& at(std::vector<float>& m, std::int64_t ld, std::int64_t r, std::int64_t c) {
  return m[static_cast<std::size_t>(c * ld + r)];
}
inline float at(const std::vector<float>& m, std::int64_t ld, std::int64_t r, std::int64_t c) {
  return m[static_cast<std::size_t>(c * ld + r)];
}

// X M = B in place (X holds B), M upper triangular, row by row; M is `factor`, or the
// transpose of a lower triangular `factor`.
void solve_right_upper(std::vector<float>& X, const std::vector<float>& factor, std::int64_t b, bool transposed) {
  const auto m = [&](std::int64_t r, std::int64_t c) { return transposed ? at(factor, b, c, r) : at(factor, b, r, c); };
  for (std::int64_t r = 0; r < b; ++r) {
    for (std::int64_t j = 0; j < b; ++j) {
      double v = at(X, b, r, j);
      for (std::int64_t c = 0; c < j; ++c) v -= static_cast<double>(at(X, b, r, c)) * m(c, j);
      at(X, b, r, j) = static_cast<float>(v / m(j, j));
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
  }
  return "?";
}

Result<KernelPlan> plan_kernels(const Workload& workload) {
  const GeneratorInfo& g = workload.generator();
  if (g.name.empty()) {
    return make_error("workload '" + workload.name() + "' has no generator: the executor runs the seed workloads only "
                      "(it needs to know what each task computes)");
  }
  if (g.elem != 4) return make_error("workload '" + g.spec + "': the executor computes in fp32 (elem=4), not elem=" + std::to_string(g.elem));
  KernelPlan plan;
  plan.b = g.b;
  plan.what = g.name;
  plan.output_n = g.b;
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

HostTiles make_tiles(const Workload& workload, const KernelPlan& plan, std::uint64_t seed) {
  HostTiles tiles;
  const double shift = static_cast<double>(workload.generator().N * plan.b);
  const bool spd = plan.what == "cholesky" || plan.what == "cholesky-tasks";
  const bool dominant = plan.what == "lu";
  tiles.data.resize(workload.data_count());
  // Each data has its own stream of the seed, so that the tiles are made on every core at
  // once (a 60x60 product holds 26 GB of tiles) and still the same for a seed.
  const auto make = [&](DataId d) {
    const Data& data = workload.data()[d];
    Rng rng(seed ^ (0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(d) + 1)));
    auto& values = tiles.data[d];
    values.resize(data.bytes / 4);
    for (float& v : values) v = static_cast<float>(static_cast<double>(rng.next() >> 11) * 0x1.0p-53 * 2 - 1);
    if ((spd || dominant) && data.row >= 0 && data.row == data.col) {
      for (std::int64_t r = 0; r < plan.b; ++r) at(values, plan.b, r, r) += static_cast<float>(shift);
    }
    if (spd && data.row == data.col) {  // a symmetric diagonal tile (only its lower part is read)
      for (std::int64_t c = 0; c < plan.b; ++c)
        for (std::int64_t r = 0; r < c; ++r) at(values, plan.b, r, c) = at(values, plan.b, c, r);
    }
  };
  const unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::atomic<DataId> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (DataId d = next++; d < workload.data_count(); d = next++) make(d);
    });
  }
  for (auto& thread : pool) thread.join();
  tiles.outputs.assign(plan.outputs, std::vector<float>(static_cast<std::size_t>(plan.output_n * plan.output_n), 0.0f));
  return tiles;
}

void run_on_host(const KernelPlan& plan, TaskId task, HostTiles& tiles) {
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
          at(C, k.m, r, c) = static_cast<float>(sum);
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
        at(L, b, j, j) = static_cast<float>(root);
        for (std::int64_t r = j + 1; r < b; ++r) {
          double v = at(L, b, r, j);
          for (std::int64_t p = 0; p < j; ++p) v -= static_cast<double>(at(L, b, r, p)) * at(L, b, j, p);
          at(L, b, r, j) = static_cast<float>(v / root);
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
          at(C, b, r, c) = static_cast<float>(at(C, b, r, c) - sum);
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
          at(C, b, r, c) = static_cast<float>(at(C, b, r, c) - sum);
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
    case Op::TrsmLeftUnitLower: {  // L X = B, column by column
      const auto& L = tiles.data[k.a];
      auto& X = tiles.data[k.target];
      for (std::int64_t c = 0; c < b; ++c) {
        for (std::int64_t r = 0; r < b; ++r) {
          double v = at(X, b, r, c);
          for (std::int64_t p = 0; p < r; ++p) v -= static_cast<double>(at(L, b, r, p)) * at(X, b, p, c);
          at(X, b, r, c) = static_cast<float>(v);
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
void add_product(std::vector<double>& sum, const std::vector<float>& A, const std::vector<float>& B, std::int64_t m, std::int64_t n,
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

Verdict verify(const Workload& workload, const KernelPlan& plan, const HostTiles& input, const HostTiles& result,
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
  std::map<std::pair<std::int32_t, std::int32_t>, DataId> tile;
  for (DataId d = 0; d < workload.data_count(); ++d) tile[{workload.data()[d].row, workload.data()[d].col}] = d;
  std::vector<std::pair<std::int32_t, std::int32_t>> positions;
  for (const auto& [position, id] : tile) positions.push_back(position);
  const bool cholesky = plan.what == "cholesky";
  // The factor's tile (i, k), with the triangle a diagonal tile contributes.
  enum class Part { Full, Lower, UnitLower, Upper };
  const auto factor = [&](std::int32_t i, std::int32_t k, Part part) {
    std::vector<float> m = result.data[tile.at({i, k})];
    for (std::int64_t c = 0; c < b; ++c)
      for (std::int64_t r = 0; r < b; ++r) {
        float& v = at(m, b, r, c);
        if (part == Part::Lower && r < c) v = 0;
        if (part == Part::UnitLower) v = r < c ? 0.0f : r == c ? 1.0f : v;
        if (part == Part::Upper && r > c) v = 0;
      }
    return m;
  };
  const auto transpose = [&](const std::vector<float>& m) {
    std::vector<float> t(m.size());
    for (std::int64_t c = 0; c < b; ++c)
      for (std::int64_t r = 0; r < b; ++r) at(t, b, c, r) = at(m, b, r, c);
    return t;
  };
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

}  // namespace tilelens::instrument
