// The optimum as an integer program for CBC (optimum_ilp.hpp), built as the module
// libtilelens_cbc.so that solve_optimum_ilp loads on first use. Variables, for n tasks, D data
// and positions k = 0..n-1:
//   x[t][k] = 1 when task t runs at position k (each task once, each position once);
//   m[d][k] = 1 when datum d is in memory at step k (at most M, every datum of the step's task);
//   l[d][k] >= m[d][k] - m[d][k-1] - (written-only by the step's task): a load when d enters
//   memory for a read. Dependencies order the positions. Minimise the sum of l.
#include "schedulers/cbc/cbc_module.hpp"

#include <bit>
#include <chrono>
#include <limits>
#include <vector>

#include <coin/Cbc_C_Interface.h>

namespace tilelens {
namespace {

OptimumIlpResult solve_with_cbc(const OptimumProblem& p, double seconds) {
  OptimumIlpResult result;
  if (p.gpus != 1) {
    result.error = "the integer program is written for one GPU";
    return result;
  }
  const int n = static_cast<int>(p.tasks), data = static_cast<int>(p.data);
  Cbc_Model* model = Cbc_newModel();
  Cbc_setLogLevel(model, 0);
  const auto x = [&](int t, int k) { return t * n + k; };
  const int m0 = n * n, l0 = m0 + data * n;
  const auto m = [&](int d, int k) { return m0 + d * n + k; };
  const auto l = [&](int d, int k) { return l0 + d * n + k; };
  for (int t = 0; t < n; ++t) {
    for (int k = 0; k < n; ++k) Cbc_addCol(model, "", 0, 1, 0, 1, 0, nullptr, nullptr);
  }
  for (int d = 0; d < data; ++d) {
    for (int k = 0; k < n; ++k) Cbc_addCol(model, "", 0, 1, 0, 1, 0, nullptr, nullptr);
  }
  for (int d = 0; d < data; ++d) {
    for (int k = 0; k < n; ++k) Cbc_addCol(model, "", 0, 1, 1, 0, 0, nullptr, nullptr);  // loads: continuous, counted
  }
  std::vector<int> cols;
  std::vector<double> coefs;
  const auto row = [&](char sense, double rhs) {
    Cbc_addRow(model, "", static_cast<int>(cols.size()), cols.data(), coefs.data(), sense, rhs);
    cols.clear();
    coefs.clear();
    ++result.rows;
  };
  const auto term = [&](int col, double coef) {
    cols.push_back(col);
    coefs.push_back(coef);
  };
  for (int t = 0; t < n; ++t) {  // each task once
    for (int k = 0; k < n; ++k) term(x(t, k), 1);
    row('E', 1);
  }
  for (int k = 0; k < n; ++k) {  // each position once
    for (int t = 0; t < n; ++t) term(x(t, k), 1);
    row('E', 1);
  }
  for (int k = 0; k < n; ++k) {  // the memory holds M
    for (int d = 0; d < data; ++d) term(m(d, k), 1);
    row('L', p.memory);
  }
  for (int d = 0; d < data; ++d) {
    for (int k = 0; k < n; ++k) {
      // Present while a task that accesses it runs.
      term(m(d, k), 1);
      for (int t = 0; t < n; ++t) {
        if ((p.needs[static_cast<std::size_t>(t)] >> d) & 1u) term(x(t, k), -1);
      }
      row('G', 0);
      // Loaded when it enters memory, unless the step's task only writes it (an allocation).
      term(l(d, k), 1);
      term(m(d, k), -1);
      if (k > 0) term(m(d, k - 1), 1);
      for (int t = 0; t < n; ++t) {
        const std::uint64_t written_only = p.needs[static_cast<std::size_t>(t)] & ~p.reads[static_cast<std::size_t>(t)];
        if ((written_only >> d) & 1u) term(x(t, k), 1);
      }
      row('G', 0);
    }
  }
  for (int t = 0; t < n; ++t) {  // after each predecessor
    for (std::uint64_t preds = p.preds[static_cast<std::size_t>(t)]; preds; preds &= preds - 1) {
      const int before = std::countr_zero(preds);
      for (int k = 0; k < n; ++k) term(x(t, k), k);
      for (int k = 0; k < n; ++k) term(x(before, k), -k);
      row('G', 1);
    }
  }
  result.columns = l0 + data * n;
  Cbc_setMaximumSeconds(model, seconds);
  const auto start = std::chrono::steady_clock::now();
  Cbc_solve(model);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Without a feasible schedule found in time, CBC's objective is its infinity (1e50).
  result.loads = Cbc_bestSolution(model) ? Cbc_getObjValue(model) : std::numeric_limits<double>::infinity();
  result.lower_bound = Cbc_getBestPossibleObjValue(model);
  result.proven = Cbc_isProvenOptimal(model) != 0;
  Cbc_deleteModel(model);
  return result;
}

constexpr CbcModule kModule{kCbcModuleVersion, kCbcModuleLayout, solve_with_cbc};

}  // namespace
}  // namespace tilelens

extern "C" __attribute__((visibility("default"))) const tilelens::CbcModule* tilelens_cbc_module() { return &tilelens::kModule; }
