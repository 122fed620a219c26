#include "ctx/base/json.hpp"

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ctx {

namespace {

// True for the bytes append_json_string copies unchanged: everything from 0x20 up except '"' and
// '\\' (bytes past 0x7F included, so valid multi-byte UTF-8 is copied whole; callers that need
// valid UTF-8 check it first, as append_json_data does).
inline bool json_plain(unsigned char c) { return c >= 0x20 && c != '"' && c != '\\'; }

// The length of the longest prefix of `s` made of json_plain bytes.
std::size_t json_plain_run(const char* s, std::size_t n) {
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control_max = _mm_set1_epi8(0x1F);
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    // v <= 0x1F (unsigned) exactly when max(v, 0x1F) == 0x1F.
    __m128i special =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                     _mm_cmpeq_epi8(_mm_max_epu8(v, control_max), control_max));
    auto mask = static_cast<unsigned>(_mm_movemask_epi8(special));
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(mask));
  }
#endif
  while (i < n && json_plain(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t run = json_plain_run(s.data() + i, s.size() - i);
    out.append(s.data() + i, run);
    i += run;
    if (i == s.size()) break;
    auto c = static_cast<unsigned char>(s[i++]);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default: {  // the other control characters, below 0x20
        static constexpr char kHex[] = "0123456789abcdef";
        const char esc[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out.append(esc, sizeof esc);
      }
    }
  }
  out.push_back('"');
}

void append_json_data(std::string& out, std::string_view s) {
  if (is_valid_utf8(s)) {
    out += "{\"text\":";
    append_json_string(out, s);
    out += "}";
    return;
  }
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  out += "{\"bytes\":\"";
  std::size_t i = 0;
  for (; i + 2 < s.size(); i += 3) {
    std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])) << 16 |
                      static_cast<std::uint32_t>(static_cast<unsigned char>(s[i + 1])) << 8 |
                      static_cast<unsigned char>(s[i + 2]);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  if (i < s.size()) {
    std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])) << 16;
    if (i + 1 < s.size())
      v |= static_cast<std::uint32_t>(static_cast<unsigned char>(s[i + 1])) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(i + 1 < s.size() ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  out += "\"}";
}

}  // namespace ctx
