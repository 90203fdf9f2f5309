// One way to quote user input in a message: at most 200 characters of it, control characters
// and bytes outside printable ASCII shown as '?', and how much was left out. A 100 MB bad line
// must not become 100 MB on stderr.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tilelens {

inline constexpr std::size_t kQuotedMax = 200;

// The text as it goes inside quotes, without them: "ab?c...".
inline std::string shown(std::string_view text, std::size_t limit = kQuotedMax) {
  std::string out;
  for (char c : text.substr(0, limit)) out += (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) ? '?' : c;
  if (text.size() > limit) out += "...";
  return out;
}

// The text in single quotes, and its length when cut: 'ab?c', 'abcd...' (2000000 bytes). Not
// named quoted: for a std::string argument std::quoted would win by argument-dependent lookup.
inline std::string quote_input(std::string_view text, std::size_t limit = kQuotedMax) {
  return "'" + shown(text, limit) + "'" + (text.size() > limit ? " (" + std::to_string(text.size()) + " bytes)" : "");
}

}  // namespace tilelens
