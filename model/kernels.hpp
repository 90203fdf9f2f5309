// Dense linear-algebra kernels named as Chameleon and StarPU's examples name their codelets
// ("dgemm", "cl_zpotrf", "dgetrf_nopiv"): a precision letter (s, d, c, z), a LAPACK/BLAS kernel,
// optionally after "cl_" and before a suffix. The StarPU importer counts a task's flops from its
// name and tile side; the executor maps the name to a cuBLAS or cuSOLVER call (instrument/numeric).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tilelens {

struct KernelName {
  char precision = 0;  // 's', 'd', 'c' or 'z'
  std::string kernel;  // "gemm", "potrf", ...: any letters, known or not
  std::string suffix;  // "nopiv" for "dgetrf_nopiv", "" for none
};

// The parts of a name, case ignored; nullopt unless it starts (after "cl_") with s, d, c or z
// followed by letters or digits, up to an optional "_suffix". Whether the kernel is a known one
// is the caller's question: "dplgsy" parses, "panel_done" and "gemm" do not.
std::optional<KernelName> parse_kernel_name(std::string_view raw_name);

// The bytes of one element: 4 (s), 8 (d, c), 16 (z); 0 for another letter.
double element_bytes(char precision);
inline bool is_complex(char precision) { return precision == 'c' || precision == 'z'; }

// The flops of one task of the kernel on square tiles of side n: LAWN 41's counts, complex ones
// as 6 flops per multiplication and 2 per addition, Chameleon's for the tile QR/LU kernels.
// nullopt for a name that does not parse or a kernel it does not know.
std::optional<double> kernel_flops(std::string_view name, double n);

}  // namespace tilelens
