// UTF-8 validity: names read from files (workloads, platforms, StarPU records) must be valid
// UTF-8, because the exports (Chrome trace JSON, Paje, CSV) and the app pass them on as text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace tilelens {

// One step through UTF-8 text from text[at]: a well-formed sequence (1 to 4 bytes), or else
// the maximal ill-formed subpart there (Unicode chapter 3: the bytes that start a sequence
// correctly before it breaks, at least one), which a writer replaces with one U+FFFD.
// Overlong forms, surrogates and code points past U+10FFFF are ill-formed (Table 3-7).
struct Utf8Step {
  std::size_t length;
  bool valid;
};
inline Utf8Step utf8_step(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return {1, true};
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead == 0xE0) length = 3, low = 0xA0;
  else if (lead >= 0xE1 && lead <= 0xEC) length = 3;
  else if (lead == 0xED) length = 3, high = 0x9F;
  else if (lead >= 0xEE && lead <= 0xEF) length = 3;
  else if (lead == 0xF0) length = 4, low = 0x90;
  else if (lead >= 0xF1 && lead <= 0xF3) length = 4;
  else if (lead == 0xF4) length = 4, high = 0x8F;
  else return {1, false};
  std::size_t matched = 1;
  while (matched < length && at + matched < text.size()) {
    const unsigned char next = byte(at + matched);
    if (next < (matched == 1 ? low : 0x80) || next > (matched == 1 ? high : 0xBF)) break;
    ++matched;
  }
  return {matched, matched == length};
}

// The offset of the first byte that does not start a well-formed sequence; npos if none.
// Runs of ASCII, nearly all of what a workload file or a trace holds, are skipped eight bytes at
// a time: every line read is checked, and a byte-by-byte walk was 6% of a replay of a Cholesky
// N = 40 file.
inline std::size_t invalid_utf8_at(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::uint64_t eight = 0;
    while (at + sizeof eight <= text.size()) {
      std::memcpy(&eight, text.data() + at, sizeof eight);
      if (eight & 0x8080808080808080ull) break;
      at += sizeof eight;
    }
    if (at >= text.size()) break;
    const Utf8Step step = utf8_step(text, at);
    if (!step.valid) return at;
    at += step.length;
  }
  return std::string_view::npos;
}

}  // namespace tilelens
