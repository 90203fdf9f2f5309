// Writing a file a user named (--output, --trace-out, a workload or platform file) so that a
// failure is never silent and never leaves a half-written file in place of a good one.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include "util/result.hpp"

namespace tilelens {

// Writes through `write` into `path`. A regular file (or a new one) is written beside it and
// renamed over it once complete; a device or a pipe (/dev/stdout, /dev/full) is written in
// place. Every write, the flush and the close are checked: a full disk is an error naming
// the file, and the file it would have replaced is left as it was.
Status write_output_file(const std::string& path, const std::function<Status(std::ostream&)>& write);
// The same with the whole text at hand.
Status write_output_file(const std::string& path, const std::string& text);

}  // namespace tilelens
