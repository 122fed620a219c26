#include "ctx/base/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace ctx {

bool is_valid_utf8(std::string_view s) { return utf8_valid_prefix(s) == s.size(); }

std::size_t utf8_valid_prefix(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    // Skip ASCII eight bytes at a time.
    while (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if ((w & 0x8080808080808080ULL) != 0) break;
      i += 8;
    }
    if (i >= n) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (len == 0 || c > 0xF4 || i + len > n) return i;
    auto b1 = static_cast<unsigned char>(s[i + 1]);
    if ((b1 & 0xC0) != 0x80) return i;
    if ((c == 0xE0 && b1 < 0xA0) || (c == 0xED && b1 > 0x9F) || (c == 0xF0 && b1 < 0x90) ||
        (c == 0xF4 && b1 > 0x8F)) {
      return i;  // overlong, surrogate or past U+10FFFF
    }
    for (std::size_t k = 2; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return i;
    }
    i += len;
  }
  return n;
}

}  // namespace ctx
