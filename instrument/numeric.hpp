// What the real executor computes for each task of a seed workload, and how a run's result is
// checked (issue "Instrumented CUDA executor", point 1). Plain C++, no CUDA: the plan names
// the kernel and its operands per task; HostTiles holds seeded tiles in the layout cuBLAS
// uses (column-major, one array per data); run_on_host is the reference implementation of
// every kernel, which the CUDA executor's cuBLAS/cuSOLVER calls must match; verify checks a
// finished run (products against a reference on sampled tiles, Cholesky by L·Lᵀ and LU by
// L·U against the input on sampled tiles).
//
// Kernels per workload (fp32):
//   matmul2d and its variants  C(i,j) = A_row · B_col, A_row b x nb, B_col nb x b (one SGEMM of
//                              inner size nb: the n products of the task accumulated);
//   matmul3d                   C(i,j) += A(i,k) · B(k,j);
//   cholesky                   POTRF A(k,k) = L, TRSM A(m,k) = A(m,k) L(k,k)^-T, SYRK
//                              A(n,n) -= A(n,k) A(n,k)^T, GEMM A(m,n) -= A(m,k) A(n,k)^T;
//   lu (no pivoting)           GETRF A(k,k) = L\U, TRSM A(m,k) = A(m,k) U(k,k)^-1 (column
//                              panel), A(k,n) = L(k,k)^-1 A(k,n) (row panel, unit L), GEMM
//                              A(m,n) -= A(m,k) A(k,n).
// The products' C tiles are not data of the model (fgcs counts inputs only): they live in a
// separate output pool, one tile per (i, j). matmul3d's C(i,j) is an input of the model (read
// by the tasks with k > 0) and its accumulation also goes to the output pool, so that the
// tasks, which have no dependencies, may run in any order. cholesky-tasks (no dependencies,
// every access a read) runs its kernels for their cost; its result means nothing and is not
// checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace tilelens::instrument {

enum class Op : std::uint8_t {
  Product,         // output = a · b
  Accumulate,      // output += a · b
  Potrf,           // target = chol(target), lower
  TrsmRightLowerT,  // target = target · a^-T (a lower)
  Syrk,            // target -= a · a^T (lower part)
  GemmNT,          // target -= a · b^T
  Getrf,           // target = L\U without pivoting
  TrsmRightUpper,  // target = target · a^-1 (a upper)
  TrsmLeftUnitLower,  // target = a^-1 · target (a unit lower)
  GemmNN,          // target -= a · b
};
const char* to_string(Op op);

struct TaskKernel {
  Op op = Op::Product;
  DataId a = kNoId, b = kNoId, target = kNoId;  // target: the data written (factorizations)
  std::uint32_t output = kNoId;                 // index in the output pool (products)
  std::int64_t m = 0, n = 0, k = 0;             // GEMM sizes in elements (products)
  double flops = 0;
};

struct KernelPlan {
  std::int64_t b = 0;  // tile size
  std::vector<TaskKernel> tasks;
  std::uint32_t outputs = 0;
  std::int64_t output_n = 0;  // an output tile is b x b
  bool checkable = true;      // the result has a meaning (cholesky-tasks: no)
  std::string what;           // "cholesky", ... for messages
};

// The kernels of a generated workload; an imported or hand-written workload (no generator,
// or an unknown one) is refused with its name.
Result<KernelPlan> plan_kernels(const Workload& workload);

struct HostTiles {
  std::vector<std::vector<float>> data;     // per data, column-major
  std::vector<std::vector<float>> outputs;  // the output pool
};
// Seeded values: uniform in [-1, 1), made symmetric positive definite (Cholesky) or
// diagonally dominant (LU) by adding N·b to the diagonal, so that factorizations without
// pivoting are stable.
HostTiles make_tiles(const Workload& workload, const KernelPlan& plan, std::uint64_t seed);

// The reference kernels (naive loops, for tests and verification; small tiles).
void run_on_host(const KernelPlan& plan, TaskId task, HostTiles& tiles);

struct Verdict {
  bool ok = true;
  double worst = 0;       // the largest relative error found
  std::size_t checked = 0;  // tiles checked
  std::string detail;     // the first tile over the tolerance
};
// Checks `result` (after every task ran once) against `input` (the tiles as made): `samples`
// tiles chosen with the seed, plus the first and the last; a tile's error is the largest
// absolute difference over the largest magnitude of its reference, on `rows` rows of it
// (chosen with the seed, the first and the last among them; 0: every row).
Verdict verify(const Workload& workload, const KernelPlan& plan, const HostTiles& input, const HostTiles& result,
               std::size_t samples, std::uint64_t seed, double tolerance = 1e-3, std::size_t rows = 0);

}  // namespace tilelens::instrument
