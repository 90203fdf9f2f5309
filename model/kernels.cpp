// Kernel names and their flop counts; see kernels.hpp.
#include "model/kernels.hpp"

#include <cctype>

namespace tilelens {

std::optional<KernelName> parse_kernel_name(std::string_view raw_name) {
  std::string name;
  for (char c : raw_name) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name.rfind("cl_", 0) == 0) name.erase(0, 3);
  if (name.size() < 2 || element_bytes(name[0]) == 0) return std::nullopt;
  KernelName parsed;
  parsed.precision = name[0];
  const auto underscore = name.find('_');
  parsed.kernel = name.substr(1, underscore == std::string::npos ? std::string::npos : underscore - 1);
  if (underscore != std::string::npos) parsed.suffix = name.substr(underscore + 1);
  if (parsed.kernel.empty()) return std::nullopt;
  for (char c : parsed.kernel) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return std::nullopt;
  }
  return parsed;
}

double element_bytes(char precision) {
  switch (precision) {
    case 's': return 4;
    case 'd': case 'c': return 8;
    case 'z': return 16;
    default: return 0;
  }
}

std::optional<double> kernel_flops(std::string_view raw_name, double n) {
  const auto name = parse_kernel_name(raw_name);
  if (!name || !(n > 0)) return std::nullopt;
  const std::string& kernel = name->kernel;
  // (multiplications, additions) for square n x n tiles: LAWN 41, and Chameleon's counts for
  // the tile QR/LU kernels, which it gives as totals (split evenly here).
  const double n2 = n * n, n3 = n2 * n;
  struct Count {
    const char* kernel;
    double muls, adds;
  };
  const Count counts[] = {
      {"gemm", n3, n3},
      {"symm", n3, n3},
      {"hemm", n3, n3},
      {"potrf", n3 / 6 + n2 / 2 + n / 3, n3 / 6 - n / 6},
      {"trsm", n2 * (n + 1) / 2, n2 * (n - 1) / 2},
      {"trmm", n2 * (n + 1) / 2, n2 * (n - 1) / 2},
      {"syrk", n2 * (n + 1) / 2, n2 * (n + 1) / 2},
      {"herk", n2 * (n + 1) / 2, n2 * (n + 1) / 2},
      {"syr2k", n3, n3 + n},
      {"her2k", n3, n3 + n},
      {"getrf", n3 / 3 + 2 * n / 3, n3 / 3 - n2 / 2 + n / 6},
      {"geqrf", 2 * n3 / 3 + 3 * n2 / 2 + 23 * n / 6, 2 * n3 / 3 + n2 / 2 + 5 * n / 6},
      {"geqrt", 2 * n3 / 3 + 3 * n2 / 2 + 23 * n / 6, 2 * n3 / 3 + n2 / 2 + 5 * n / 6},
      {"gelqt", 2 * n3 / 3 + 3 * n2 / 2 + 23 * n / 6, 2 * n3 / 3 + n2 / 2 + 5 * n / 6},
      {"lauum", n3 / 6, n3 / 6},
      {"trtri", n3 / 6, n3 / 6},
      {"ormqr", n3, n3},
      {"unmqr", n3, n3},
      {"ormlq", n3, n3},
      {"unmlq", n3, n3},
      {"tsqrt", n3, n3},
      {"tpqrt", n3, n3},
      {"tslqt", n3, n3},
      {"tsmqr", 2 * n3, 2 * n3},
      {"tpmqrt", 2 * n3, 2 * n3},
      {"tsmlq", 2 * n3, 2 * n3},
      {"tpmlqt", 2 * n3, 2 * n3},
      {"gessm", n3 / 2, n3 / 2},
      {"tstrf", n3 / 2, n3 / 2},
      {"ssssm", n3, n3},
  };
  for (const Count& c : counts) {
    if (kernel != c.kernel) continue;
    return is_complex(name->precision) ? 6 * c.muls + 2 * c.adds : c.muls + c.adds;
  }
  return std::nullopt;
}

}  // namespace tilelens
