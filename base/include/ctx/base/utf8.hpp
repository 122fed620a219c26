// UTF-8 encoding of one code point: the one encoder shared by the engine and its tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace ctx {

// Whether `s` is well-formed UTF-8 (as Rust's str: no overlong forms, surrogates or code points
// past U+10FFFF; a sequence cut short at the end is invalid). ASCII runs are skipped 8 bytes at a
// time.
bool is_valid_utf8(std::string_view s);

// The length of the longest valid UTF-8 prefix of `s` (Rust's Utf8Error::valid_up_to): where the
// first invalid or cut-short sequence starts, or s.size().
std::size_t utf8_valid_prefix(std::string_view s);

// Whether every byte of `s` is ASCII (eight at a time; false at the first that is not).
inline bool is_ascii_text(std::string_view s) {
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if ((w & 0x8080808080808080ULL) != 0) return false;
  }
  for (; i < s.size(); ++i) {
    if (static_cast<unsigned char>(s[i]) >= 0x80) return false;
  }
  return true;
}

// Appends the UTF-8 bytes of `cp` to `out`. `cp` must be at most U+10FFFF; surrogates are encoded
// as their three bytes (callers that must not produce them map them to U+FFFD first).
inline void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The UTF-8 bytes of `cp` (as append_utf8).
inline std::string utf8_of(std::uint32_t cp) {
  std::string out;
  append_utf8(out, cp);
  return out;
}

}  // namespace ctx
