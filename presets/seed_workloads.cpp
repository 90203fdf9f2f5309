// The seed workloads; see generators.hpp. Task sets follow fgcs section 5.1 and darts
// section 6.1; loop orders follow the tiled algorithms of Chameleon.
#include "presets/seed_workloads.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include "util/rng.hpp"
#include "model/units.hpp"

namespace tilelens {
namespace {

constexpr double kMaxTasks = 50e6;

// What generating and replaying one task costs at most in memory, with its trace kept: the
// task, its accesses and edges, the engine's state and the records (measured: 200 B per task
// streamed, 290 kept, for cholesky, lu and the products at half a million tasks).
constexpr double kBytesPerTask = 320;
constexpr double kBaselineBytes = 64.0 * 1024 * 1024;

// The memory this process may still take: the smallest of what its address-space and data
// limits leave beside what it maps already, and what the machine has available.
double memory_available_bytes() {
  double available = std::numeric_limits<double>::infinity();
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kilobytes = 0;
  std::string unit;
  double machine = 0;
  bool known = false;
  while (meminfo >> key >> kilobytes) {
    std::getline(meminfo, unit);
    if (key == "MemAvailable:" || key == "SwapFree:") {
      machine += kilobytes * 1024;
      known = true;
    }
  }
  if (known) available = machine;
  double mapped = 0;
  std::ifstream status("/proc/self/status");
  while (status >> key >> kilobytes) {
    std::getline(status, unit);
    if (key == "VmSize:") mapped = kilobytes * 1024;
  }
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit limit{};
    if (getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
      available = std::min(available, static_cast<double>(limit.rlim_cur) - mapped);
    }
  }
  return available;
}

// Refuses, before anything is allocated, a workload whose tasks cannot fit in this process.
Status check_fits(const std::string& name, double tasks) {
  const double needed = kBaselineBytes + tasks * kBytesPerTask;
  const double available = memory_available_bytes();
  if (needed <= available) return Status::success();
  return make_error(name + ": " + format_fixed(tasks / 1e6, 1) + " million tasks need about " + format_bytes(needed) +
                    " of memory to generate and replay, and this process has about " + format_bytes(std::max(0.0, available)) +
                    " left (free memory, or its ulimit); choose a smaller N");
}

std::vector<ParamSpec> common(std::string N_default) {
  return {{"N", std::move(N_default), "tiles per side (block-rows / block-columns of C)"},
          {"b", "960", "tile size in elements per side"},
          {"elem", "4", "bytes per element (4: fp32)"},
          {"seed", "0", "seed of every random choice"}};
}

std::vector<ParamSpec> with(std::vector<ParamSpec> params, std::vector<ParamSpec> more) {
  params.insert(params.end(), more.begin(), more.end());
  return params;
}

const ParamSpec kInner2d{"n", "4", "tiles along the inner dimension (A is N x n, B is n x N)"};
const ParamSpec kInner3d{"n", "0", "inner dimension in tiles (0: N); n=4 gives fgcs Fig. 12"};
const ParamSpec kDensity{"density", "0.1", "fraction of the N x N tasks kept"};

struct Shape {
  GeneratorInfo info;
  double tile_bytes = 0;
  double b3 = 0;  // b^3, the flop unit of one tile kernel
};

Result<Shape> read_shape(const Params& params, const std::string& name, std::int64_t max_N) {
  Shape shape;
  shape.info.name = name;
  shape.info.spec = params.canonical();
  auto N = params.integer("N");
  if (!N) return N.error();
  auto b = params.integer("b");
  if (!b) return b.error();
  auto elem = params.integer("elem");
  if (!elem) return elem.error();
  auto seed = params.integer("seed");
  if (!seed) return seed.error();
  if (*N < 1 || *N > max_N) {
    return make_error(name + ": N must be between 1 and " + std::to_string(max_N) + " (got " + std::to_string(*N) + ")");
  }
  if (*b < 1 || *b > 65536) return make_error(name + ": b must be between 1 and 65536 (got " + std::to_string(*b) + ")");
  if (*elem < 1 || *elem > 64) return make_error(name + ": elem must be between 1 and 64 bytes (got " + std::to_string(*elem) + ")");
  if (*seed < 0) return make_error(name + ": seed must not be negative");
  shape.info.N = *N;
  shape.info.b = *b;
  shape.info.elem = *elem;
  shape.info.seed = static_cast<std::uint64_t>(*seed);
  shape.tile_bytes = static_cast<double>(*b) * static_cast<double>(*b) * static_cast<double>(*elem);
  shape.b3 = std::pow(static_cast<double>(*b), 3);
  return shape;
}

Data tile(char matrix, std::int32_t row, std::int32_t col, double bytes) {
  Data data;
  data.matrix = matrix;
  data.row = row;
  data.col = col;
  data.bytes = static_cast<std::uint64_t>(bytes);
  data.name = std::string(1, matrix) + "(" + std::to_string(row) + "," + std::to_string(col) + ")";
  return data;
}

// matmul2d and its variants share data: block-rows A_i and block-columns B_j of n tiles.
enum class Pairs { All, RandomOrder, RandomPairs, Sparse };

Result<Workload> matmul2d(const Params& params, const std::string& name, Pairs variant) {
  auto shape = read_shape(params, name, 5000);
  if (!shape) return shape.error();
  auto n = params.integer("n");
  if (!n) return n.error();
  if (*n < 1 || *n > 4096) return make_error(name + ": n must be between 1 and 4096 (got " + std::to_string(*n) + ")");
  double density = 1;
  if (variant == Pairs::Sparse) {
    auto value = params.real("density");
    if (!value) return value.error();
    if (!(*value > 0 && *value <= 1)) return make_error(name + ": density must be in (0, 1] (got " + params.text("density") + ")");
    density = *value;
  }
  const auto N = static_cast<std::int32_t>(shape->info.N);
  if (auto fits = check_fits(name, static_cast<double>(N) * N * density); !fits) return fits.error();
  shape->info.n = *n;
  shape->info.density = density;
  Rng rng(shape->info.seed);

  WorkloadBuilder builder(name);
  const KindId gemm = builder.kind("GEMM");
  const double block_bytes = static_cast<double>(*n) * shape->tile_bytes;
  for (std::int32_t i = 0; i < N; ++i) {
    Data a = tile('A', i, -1, block_bytes);
    a.name = "A" + std::to_string(i);
    builder.add_data(a);
  }
  for (std::int32_t j = 0; j < N; ++j) {
    Data b = tile('B', -1, j, block_bytes);
    b.name = "B" + std::to_string(j);
    builder.add_data(b);
  }
  std::vector<char> keep(static_cast<std::size_t>(N) * N, 1);
  if (variant == Pairs::Sparse) {
    // Exactly round(density * N^2) tasks (at least one), chosen by a seeded partial shuffle.
    const auto total = static_cast<std::size_t>(N) * N;
    const auto kept = std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(density * static_cast<double>(total))));
    std::vector<std::uint32_t> index(total);
    for (std::size_t i = 0; i < total; ++i) index[i] = static_cast<std::uint32_t>(i);
    for (std::size_t i = 0; i < kept; ++i) std::swap(index[i], index[i + rng.below(total - i)]);
    std::fill(keep.begin(), keep.end(), 0);
    for (std::size_t i = 0; i < kept; ++i) keep[index[i]] = 1;
  }
  const double flops = 2.0 * static_cast<double>(*n) * shape->b3;
  for (std::int32_t i = 0; i < N; ++i) {
    for (std::int32_t j = 0; j < N; ++j) {
      if (!keep[static_cast<std::size_t>(i) * N + j]) continue;
      DataId row = static_cast<DataId>(i), col = static_cast<DataId>(N + j);
      if (variant == Pairs::RandomPairs) {
        row = static_cast<DataId>(rng.below(static_cast<std::uint64_t>(N)));
        col = static_cast<DataId>(N + rng.below(static_cast<std::uint64_t>(N)));
      }
      const std::array<Access, 2> accesses{{{row, AccessMode::Read}, {col, AccessMode::Read}}};
      builder.add_task(gemm, accesses, flops, i, j, 0);
    }
  }
  if (variant == Pairs::RandomOrder) {
    std::vector<TaskId> order(builder.task_count());
    for (std::size_t t = 0; t < order.size(); ++t) order[t] = static_cast<TaskId>(t);
    rng.shuffle(order);
    builder.set_submission_order(std::move(order));
  }
  builder.set_generator(shape->info);
  return std::move(builder).finish();
}

Result<Workload> matmul3d(const Params& params) {
  auto shape = read_shape(params, "matmul3d", 368);
  if (!shape) return shape.error();
  auto inner = params.integer("n");
  if (!inner) return inner.error();
  const std::int64_t K = *inner == 0 ? shape->info.N : *inner;
  if (K < 1 || K > 4096) return make_error("matmul3d: n must be between 0 (meaning N) and 4096 (got " + std::to_string(*inner) + ")");
  const auto N = static_cast<std::int32_t>(shape->info.N);
  if (static_cast<double>(N) * N * static_cast<double>(K) > kMaxTasks) {
    return make_error("matmul3d: N*N*n = " + std::to_string(static_cast<std::int64_t>(N) * N * K) + " tasks is over the limit of 50 million");
  }
  if (auto fits = check_fits("matmul3d", static_cast<double>(N) * N * static_cast<double>(K)); !fits) return fits.error();
  shape->info.n = K;
  WorkloadBuilder builder("matmul3d");
  const KindId gemm = builder.kind("GEMM");
  const auto k_count = static_cast<std::int32_t>(K);
  // Data ids: A(i,k) then B(k,j) then C(i,j).
  for (std::int32_t i = 0; i < N; ++i)
    for (std::int32_t k = 0; k < k_count; ++k) builder.add_data(tile('A', i, k, shape->tile_bytes));
  for (std::int32_t k = 0; k < k_count; ++k)
    for (std::int32_t j = 0; j < N; ++j) builder.add_data(tile('B', k, j, shape->tile_bytes));
  for (std::int32_t i = 0; i < N; ++i)
    for (std::int32_t j = 0; j < N; ++j) builder.add_data(tile('C', i, j, shape->tile_bytes));
  const auto a_id = [&](std::int32_t i, std::int32_t k) { return static_cast<DataId>(i * k_count + k); };
  const auto b_id = [&](std::int32_t k, std::int32_t j) { return static_cast<DataId>(N * k_count + k * N + j); };
  const auto c_id = [&](std::int32_t i, std::int32_t j) { return static_cast<DataId>(2 * N * k_count + i * N + j); };
  const double flops = 2.0 * shape->b3;
  // fgcs 5.1: C(i,j) is an input of every task on that tile but the first (k = 0); like the
  // paper we model it as read data and do not count results written back.
  for (std::int32_t k = 0; k < k_count; ++k) {
    for (std::int32_t i = 0; i < N; ++i) {
      for (std::int32_t j = 0; j < N; ++j) {
        std::array<Access, 3> accesses{{{a_id(i, k), AccessMode::Read}, {b_id(k, j), AccessMode::Read}, {c_id(i, j), AccessMode::Read}}};
        builder.add_task(gemm, std::span<const Access>(accesses.data(), k == 0 ? 2 : 3), flops, i, j, k);
      }
    }
  }
  builder.set_generator(shape->info);
  return std::move(builder).finish();
}

// Tiled Cholesky on the lower triangle (darts Fig. 3, Chameleon's right-looking loop order).
// With dependencies the kernels write their target tile (RW); as independent tasks (fgcs
// "tasks of the Cholesky factorization") every access is a read, as in the paper's model.
Result<Workload> cholesky(const Params& params, const std::string& name, bool with_dependencies) {
  auto shape = read_shape(params, name, 600);
  if (!shape) return shape.error();
  const auto N = static_cast<std::int32_t>(shape->info.N);
  const double side = N;
  if (auto fits = check_fits(name, side + side * (side - 1) + side * (side - 1) * (side - 2) / 6); !fits) return fits.error();
  WorkloadBuilder builder(name);
  const KindId potrf = builder.kind("POTRF"), trsm = builder.kind("TRSM"), syrk = builder.kind("SYRK"),
               gemm = builder.kind("GEMM");
  std::vector<DataId> ids(static_cast<std::size_t>(N) * N, kNoId);
  for (std::int32_t j = 0; j < N; ++j)
    for (std::int32_t i = j; i < N; ++i) ids[static_cast<std::size_t>(i) * N + j] = builder.add_data(tile('A', i, j, shape->tile_bytes));
  const auto at = [&](std::int32_t i, std::int32_t j) { return ids[static_cast<std::size_t>(i) * N + j]; };
  const AccessMode target = with_dependencies ? AccessMode::ReadWrite : AccessMode::Read;
  const double b3 = shape->b3;
  for (std::int32_t k = 0; k < N; ++k) {
    std::array<Access, 1> p{{{at(k, k), target}}};
    builder.add_task(potrf, p, b3 / 3.0, k, k, k);
    for (std::int32_t m = k + 1; m < N; ++m) {
      std::array<Access, 2> a{{{at(k, k), AccessMode::Read}, {at(m, k), target}}};
      builder.add_task(trsm, a, b3, m, k, k);
    }
    for (std::int32_t n = k + 1; n < N; ++n) {
      std::array<Access, 2> a{{{at(n, k), AccessMode::Read}, {at(n, n), target}}};
      builder.add_task(syrk, a, b3, n, n, k);
      for (std::int32_t m = n + 1; m < N; ++m) {
        std::array<Access, 3> g{{{at(m, k), AccessMode::Read}, {at(n, k), AccessMode::Read}, {at(m, n), target}}};
        builder.add_task(gemm, g, 2.0 * b3, m, n, k);
      }
    }
  }
  if (with_dependencies) {
    builder.derive_data_dependencies();
    builder.use_bottom_level_priorities();
  }
  builder.set_generator(shape->info);
  return std::move(builder).finish();
}

// Tiled LU without pivoting (darts section 6.1, Chameleon's getrf_nopiv loop order).
Result<Workload> lu(const Params& params) {
  auto shape = read_shape(params, "lu", 450);
  if (!shape) return shape.error();
  const auto N = static_cast<std::int32_t>(shape->info.N);
  const double side = N;
  if (auto fits = check_fits("lu", side + side * (side - 1) + (side - 1) * side * (2 * side - 1) / 6); !fits) return fits.error();
  WorkloadBuilder builder("lu");
  const KindId getrf = builder.kind("GETRF"), trsm = builder.kind("TRSM"), gemm = builder.kind("GEMM");
  for (std::int32_t i = 0; i < N; ++i)
    for (std::int32_t j = 0; j < N; ++j) builder.add_data(tile('A', i, j, shape->tile_bytes));
  const auto at = [&](std::int32_t i, std::int32_t j) { return static_cast<DataId>(i * N + j); };
  const double b3 = shape->b3;
  for (std::int32_t k = 0; k < N; ++k) {
    std::array<Access, 1> p{{{at(k, k), AccessMode::ReadWrite}}};
    builder.add_task(getrf, p, 2.0 * b3 / 3.0, k, k, k);
    for (std::int32_t m = k + 1; m < N; ++m) {  // column panel: L(m,k)
      std::array<Access, 2> a{{{at(k, k), AccessMode::Read}, {at(m, k), AccessMode::ReadWrite}}};
      builder.add_task(trsm, a, b3, m, k, k);
    }
    for (std::int32_t n = k + 1; n < N; ++n) {  // row panel: U(k,n)
      std::array<Access, 2> a{{{at(k, k), AccessMode::Read}, {at(k, n), AccessMode::ReadWrite}}};
      builder.add_task(trsm, a, b3, k, n, k);
    }
    for (std::int32_t n = k + 1; n < N; ++n) {
      for (std::int32_t m = k + 1; m < N; ++m) {
        std::array<Access, 3> g{{{at(m, k), AccessMode::Read}, {at(k, n), AccessMode::Read}, {at(m, n), AccessMode::ReadWrite}}};
        builder.add_task(gemm, g, 2.0 * b3, m, n, k);
      }
    }
  }
  builder.derive_data_dependencies();
  builder.use_bottom_level_priorities();
  builder.set_generator(shape->info);
  return std::move(builder).finish();
}

struct Entry {
  WorkloadGenerator about;
  std::function<Result<Workload>(const Params&)> make;
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = {
      {{"matmul2d", "2D product: task T(i,j) reads block-row A_i and block-column B_j (fgcs 5.1)", with(common("10"), {kInner2d})},
       [](const Params& p) { return matmul2d(p, "matmul2d", Pairs::All); }},
      {{"matmul3d", "3D product: T(i,j,k) reads A(i,k), B(k,j), and C(i,j) when k > 0 (fgcs 5.1)", with(common("8"), {kInner3d})},
       matmul3d},
      {{"cholesky-tasks", "the tasks of tiled Cholesky without dependencies (fgcs 5.1)", common("10")},
       [](const Params& p) { return cholesky(p, "cholesky-tasks", false); }},
      {{"matmul2d-random-order", "matmul2d submitted in a seeded random order (fgcs 5.5)", with(common("10"), {kInner2d}), true},
       [](const Params& p) { return matmul2d(p, "matmul2d-random-order", Pairs::RandomOrder); }},
      {{"matmul2d-random-pairs", "T(i,j) reads a random A_r and a random B_c, seeded (fgcs 5.6)", with(common("10"), {kInner2d}), true},
       [](const Params& p) { return matmul2d(p, "matmul2d-random-pairs", Pairs::RandomPairs); }},
      {{"matmul2d-sparse", "a seeded fraction (density) of the matmul2d tasks (fgcs 5.7)", with(common("10"), {kInner2d, kDensity}), true},
       [](const Params& p) { return matmul2d(p, "matmul2d-sparse", Pairs::Sparse); }},
      {{"cholesky", "tiled Cholesky with data dependencies and bottom-level priorities (darts 6.1)", common("10")},
       [](const Params& p) { return cholesky(p, "cholesky", true); }},
      {{"lu", "tiled LU without pivoting, with dependencies and bottom-level priorities (darts 6.1)", common("10")},
       lu},
  };
  return table;
}

}  // namespace

const std::vector<WorkloadGenerator>& workload_generators() {
  static const std::vector<WorkloadGenerator> list = [] {
    std::vector<WorkloadGenerator> out;
    for (const auto& entry : entries()) out.push_back(entry.about);
    return out;
  }();
  return list;
}

Result<Workload> generate_workload(std::string_view text) {
  auto spec = parse_spec(text);
  if (!spec) return spec.error();
  std::string valid;
  for (const auto& entry : entries()) {
    if (entry.about.name == spec->name) {
      auto params = Params::bind(*spec, entry.about.params, "workload");
      if (!params) return params.error();
      return entry.make(*params);
    }
    valid += (valid.empty() ? "" : ", ") + entry.about.name;
  }
  return make_error("unknown workload '" + spec->name + "' (valid: " + valid + ")");
}

}  // namespace tilelens
