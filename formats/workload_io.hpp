// Reading and writing workload files (format "tilelens-workload 1", docs/workload-format.md).
// Errors name the file, the line and the field.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "model/model.hpp"

namespace tilelens {

inline constexpr int kWorkloadFormatVersion = 1;

Status write_workload(const Workload& workload, std::ostream& out);
Status save_workload(const Workload& workload, const std::string& path);

// `source` names the stream in error messages (a file path). A file with a `generator` line
// is checked against what that generator makes, and refused when the two differ: its bounds
// and its run keys come from that line. A file written by write_workload carries on that line
// the digest of its text (digest=N, workload_file_digest): while the digest still matches, the
// file is known to be what the spec generated, and is not generated again to compare.
Result<Workload> read_workload(std::istream& in, const std::string& source);
Result<Workload> load_workload(const std::string& path);

// The digest= a generated workload's file records: of the file's text without that word.
std::string workload_file_digest(std::string_view text);

// FNV-1a over the workload's file form, 16 hex digits: identical workloads hash the same
// whatever produced them (the store keeps each once).
std::string workload_content_hash(const Workload& workload);
// What identifies a workload in a run key: its generator's canonical spec when it has one (a
// generator line is trusted only once the content is checked to be that generator's, see
// read_workload), else "content:" and its content hash, so that an edited file is a new
// workload however it is named.
std::string workload_identity(const Workload& workload);

// A workload argument: a generator spec ("matmul2d:N=20") or the path of a workload file.
Result<Workload> resolve_workload(const std::string& argument);

}  // namespace tilelens
