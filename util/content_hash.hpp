// One digest of a file's bytes for what a run records about the files it read: a plugin's
// library (plugin.hash) and a schedule file (fixed's digest), so that a run replayed again, or
// a sweep deciding whether a run is already stored, sees that the file changed.
#pragma once

#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace tilelens {

// FNV-1a over 64 bits, as 16 hex digits. Its offset basis is the one plugin hashes have been
// recorded with from the start (one digit short of FNV's published 14695981039346656037):
// another would make every stored plugin run a mismatch.
inline std::string content_hash(std::string_view bytes) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

// The whole file, or nothing when it cannot be read (a directory opens, and its read throws).
inline std::optional<std::string> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  try {
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return std::nullopt;
    return bytes;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace tilelens
