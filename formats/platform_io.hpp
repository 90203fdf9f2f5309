// A platform in a file (docs/platform-file.md): what `tilelens calibrate` writes and
// `tilelens replay --platform FILE.json` reads. A flat JSON object of the Platform's fields,
// rates in GFlop/s, bandwidths in bytes per second, latency in ns, with "format": 1.
#pragma once

#include <iosfwd>
#include <string>

#include "model/model.hpp"

namespace tilelens {

inline constexpr int kPlatformFileFormat = 1;

void write_platform_json(const Platform& platform, std::ostream& out, const std::string& comment = "");
// Errors name the file and the field (or the line and column of a syntax error).
Result<Platform> read_platform_json(std::istream& in, const std::string& source);
Result<Platform> load_platform_file(const std::string& path);

}  // namespace tilelens
