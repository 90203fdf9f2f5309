// What the real executor computes for each task, and how a run's result is checked (issue
// "Instrumented CUDA executor", point 1; issue 22, point 3). Plain C++, no CUDA: the plan names
// the kernel and its operands per task; Tiles holds seeded tiles in the layout cuBLAS uses
// (column-major, one array per data), in fp32 or fp64; run_on_host is the reference
// implementation of every kernel, which the CUDA executor's cuBLAS/cuSOLVER calls must match;
// verify checks a finished run (products against a reference on sampled tiles, Cholesky by
// L·Lᵀ and LU by L·U against the input on sampled tiles).
//
// Kernels per seed workload (fp32 with elem=4, fp64 with elem=8):
//   matmul2d and its variants  C(i,j) = A_row · B_col, A_row b x nb, B_col nb x b (one GEMM of
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
//
// Imported workloads (a StarPU trace, docs/starpu-import.md) are planned from their kinds'
// names (model/kernels.hpp): s and d kernels on square tiles of one side map to the calls
// above, and Chameleon's generators (plgsy, plghe, plrnt) to a seeded fill; which TRSM and
// GEMM a task is follows the factorization that wrote its operands (POTRF: Cholesky's, GETRF:
// LU's, by the tiles' places). Every other task, complex kernels included, is a wait of its
// measured duration on the device (Op::Wait), nothing computed. plan_lines() says what each
// kind became and why.
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
  Fill,            // target = its seeded values (a generator task of an imported workload)
  Wait,            // nothing computed: the device waits wait_ns (a kernel with no known call)
};
const char* to_string(Op op);

enum class Precision : std::uint8_t { Single, Double };
const char* to_string(Precision precision);  // "fp32", "fp64"

struct TaskKernel {
  Op op = Op::Product;
  DataId a = kNoId, b = kNoId, target = kNoId;  // target: the data written (factorizations)
  std::uint32_t output = kNoId;                 // index in the output pool (products)
  std::int64_t m = 0, n = 0, k = 0;             // GEMM sizes in elements (products)
  double flops = 0;
  std::int64_t wait_ns = 0;                     // Wait: how long
};

struct KernelPlan {
  std::int64_t b = 0;  // tile side (every tile of a computed kernel is b x b)
  Precision precision = Precision::Single;
  std::vector<TaskKernel> tasks;
  std::uint32_t outputs = 0;
  std::int64_t output_n = 0;  // an output tile is b x b
  std::int64_t grid = 0;      // tiles per matrix side, for the diagonal shift of the seeded tiles
  bool checkable = true;      // the result has a meaning (cholesky-tasks: no)
  bool spd = false, dominant = false;  // seeded diagonal tiles: symmetric positive definite, dominant
  std::string what;           // "cholesky", ... for messages
  std::vector<std::string> notes;  // imported: what each kind became, and why (plan_lines)
};

struct PlanOptions {
  // Imported workloads: each task's measured duration in ns (a measured run's, by task id),
  // for the tasks that become waits; empty: their flops at `wait_gflops`.
  std::vector<std::int64_t> measured_ns;
  double wait_gflops = 1000;
};

// The kernels of a workload: a seed workload's by its generator (elem=4: fp32, elem=8: fp64),
// an imported one's by its kinds' names (see above). Refused, naming it, when a generator has
// no kernels here or a task's accesses do not fit its kernel.
Result<KernelPlan> plan_kernels(const Workload& workload, const PlanOptions& options = {});

// The plan in words, for `tilelens execute --dry-run`: the precision and tile side, whether
// the result is checked, per kind its count and call, and what the device will do in all.
std::vector<std::string> plan_lines(const Workload& workload, const KernelPlan& plan);

// The executor's memory on each GPU: an arena of M bytes carved into slots, a data of `bytes`
// taking a slot of arena_slot_bytes(bytes) (256-byte aligned, as cudaMalloc's blocks), reused
// only by data of the same size; the products' outputs in a pool beside it.
std::uint64_t arena_slot_bytes(std::uint64_t bytes);
std::size_t element_size(Precision precision);
std::size_t output_tile_bytes(const KernelPlan& plan);  // one output tile, output_n x output_n elements
double output_pool_bytes(const KernelPlan& plan);
// The layout in words, for --dry-run: per data size, how many data and how many slots fit in M.
std::vector<std::string> arena_lines(const Workload& workload, const KernelPlan& plan, double memory_bytes, std::uint32_t gpus);

template <class T>
struct Tiles {
  std::vector<std::vector<T>> data;     // per data, column-major
  std::vector<std::vector<T>> outputs;  // the output pool
};
using HostTiles = Tiles<float>;
using HostTilesD = Tiles<double>;

// Seeded values: uniform in [-1, 1), made symmetric positive definite (Cholesky) or
// diagonally dominant (LU) by adding grid·b to the diagonal, so that factorizations without
// pivoting are stable. The same seed gives the same values in fp32 and fp64 (rounded).
template <class T>
Tiles<T> make_tiles_as(const Workload& workload, const KernelPlan& plan, std::uint64_t seed);
inline HostTiles make_tiles(const Workload& workload, const KernelPlan& plan, std::uint64_t seed) {
  return make_tiles_as<float>(workload, plan, seed);
}

// The reference kernels (naive loops, for tests and verification; small tiles). A Fill
// remakes its target with the seed the tiles were made with.
template <class T>
void run_on_host(const Workload& workload, const KernelPlan& plan, TaskId task, Tiles<T>& tiles, std::uint64_t seed);

struct Verdict {
  bool ok = true;
  double worst = 0;       // the largest relative error found
  std::size_t checked = 0;  // tiles checked
  std::string detail;     // the first tile over the tolerance
};
// The tolerance of verify for a plan's precision: 1e-3 in fp32, 1e-9 in fp64.
double default_tolerance(Precision precision);
// Checks `result` (after every task ran once) against `input` (the tiles as made): `samples`
// tiles chosen with the seed, plus the first and the last; a tile's error is the largest
// absolute difference over the largest magnitude of its reference, on `rows` rows of it
// (chosen with the seed, the first and the last among them; 0: every row).
template <class T>
Verdict verify(const Workload& workload, const KernelPlan& plan, const Tiles<T>& input, const Tiles<T>& result,
               std::size_t samples, std::uint64_t seed, double tolerance = 1e-3, std::size_t rows = 0);

}  // namespace tilelens::instrument
