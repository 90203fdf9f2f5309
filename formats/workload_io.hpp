// Reading and writing workload files (format "tilelens-workload 1", docs/workload-format.md).
// Errors name the file, the line and the field.
#pragma once

#include <iosfwd>
#include <string>

#include "model/model.hpp"

namespace tilelens {

inline constexpr int kWorkloadFormatVersion = 1;

Status write_workload(const Workload& workload, std::ostream& out);
Status save_workload(const Workload& workload, const std::string& path);

// `source` names the stream in error messages (a file path).
Result<Workload> read_workload(std::istream& in, const std::string& source);
Result<Workload> load_workload(const std::string& path);

// A workload argument: a generator spec ("matmul2d:N=20") or the path of a workload file.
Result<Workload> resolve_workload(const std::string& argument);

}  // namespace tilelens
