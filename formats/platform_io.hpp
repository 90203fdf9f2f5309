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
// Strict JSON in UTF-8; a key given twice or unknown is refused, and so is a value out of the
// ranges docs/platform-file.md gives. Errors name the file, the line and the field or key
// ("p.json:7: field ..."), and the column too for a syntax error.
Result<Platform> read_platform_json(std::istream& in, const std::string& source);
Result<Platform> load_platform_file(const std::string& path);

}  // namespace tilelens
