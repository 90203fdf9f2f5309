// The platform presets (`tilelens platforms`): the papers' machines (fgcs 5.1, darts Table 1
// and 7.3, lahp's K40 node) and the lent H100 as measured, each a starting point that the
// command-line options and platform files override.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/model.hpp"

namespace tilelens {

struct PlatformPreset {
  std::string name;
  std::string summary;
  Platform platform;
};
const std::vector<PlatformPreset>& platform_presets();
Result<Platform> find_platform_preset(std::string_view name);

}  // namespace tilelens
