#include "ctx/base/json.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ctx {

namespace {

#if defined(__SSE2__)
// Bit i set when byte i of `v` needs escaping in a JSON string: '"', '\\' or a control byte.
int special_mask(__m128i v) {
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control_max = _mm_set1_epi8(0x1F);
  // v <= 0x1F (unsigned) exactly when max(v, 0x1F) == 0x1F.
  const __m128i special =
      _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                   _mm_cmpeq_epi8(_mm_max_epu8(v, control_max), control_max));
  return _mm_movemask_epi8(special);
}
#endif

// How append_json_string writes one byte: `len` == 0 copies it unchanged (everything from 0x20 up
// except '"' and '\\', bytes past 0x7F included, so valid multi-byte UTF-8 is copied whole;
// callers that need valid UTF-8 check it first, as append_json_data does); otherwise the first
// `len` bytes of `text`, as serde_json escapes it. 8 bytes each, so one 8-byte copy writes any.
struct Escape {
  char text[7];
  std::uint8_t len;
};

constexpr std::array<Escape, 256> make_escapes() {
  std::array<Escape, 256> table{};
  constexpr char kHex[] = "0123456789abcdef";
  for (unsigned c = 0; c < 0x20; ++c) {
    table[c] = Escape{{'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15], 0}, 6};
  }
  auto two = [&](unsigned char c, char e) { table[c] = Escape{{'\\', e, 0, 0, 0, 0, 0}, 2}; };
  two('"', '"');
  two('\\', '\\');
  two('\n', 'n');
  two('\r', 'r');
  two('\t', 't');
  two('\b', 'b');
  two('\f', 'f');
  return table;
}
constexpr std::array<Escape, 256> kEscapes = make_escapes();

// Output is staged in a stack buffer and appended to the string in kStage-byte pieces, so the
// loops write through a pointer without capacity checks. kSlack covers what one step may write
// past kStage: a 16-byte block at most 96 bytes plus a 16-byte overshoot, the per-byte tail (under
// 32 bytes) at most 186 plus an 8-byte overshoot.
constexpr std::size_t kStage = 2048;
constexpr std::size_t kSlack = 256;

// Writes the escape of `c` (or `c`) at `p`; returns the new end. Writes up to 8 bytes.
inline char* put_byte(char* p, unsigned char c) {
  const Escape& e = kEscapes[c];
  if (e.len == 0) {
    *p = static_cast<char>(c);
    return p + 1;
  }
  std::memcpy(p, e.text, 8);
  return p + e.len;
}

#if defined(__SSE2__)
// Writes the escape of the 16 bytes at `src` (16 more must be readable behind them) at `p`;
// returns the new end. Writes at most 96 bytes (6 per byte), its stores at most 16 past that.
inline char* put_block(char* p, const char* src) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
  auto mask = static_cast<unsigned>(special_mask(v));
  std::size_t pos = 0;  // the block's bytes before `pos` are written
  while (mask != 0) {
    auto k = static_cast<std::size_t>(__builtin_ctz(mask));
    mask &= mask - 1;
    // 16 bytes from `pos`: the plain ones up to k land, the rest is overwritten next.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + pos)));
    p += k - pos;
    const Escape& e = kEscapes[static_cast<unsigned char>(src[k])];
    std::memcpy(p, e.text, 8);
    p += e.len;
    pos = k + 1;
  }
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                   _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + pos)));
  return p + (16 - pos);
}
#endif

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  char stage[kStage + kSlack];
  char* p = stage;
  *p++ = '"';
  auto flush = [&] {
    out.append(stage, static_cast<std::size_t>(p - stage));
    p = stage;
  };
  const char* src = s.data();
  const std::size_t n = s.size();
  std::size_t i = 0;
#if defined(__SSE2__)
  // Blocks of 16 with 16 more bytes behind them, so every 16-byte load below stays inside `s`.
  for (; i + 32 <= n; i += 16) {
    if (p - stage > static_cast<std::ptrdiff_t>(kStage)) flush();
    p = put_block(p, src + i);
  }
#endif
  for (; i < n; ++i) {
    if (p - stage > static_cast<std::ptrdiff_t>(kStage)) flush();
    p = put_byte(p, static_cast<unsigned char>(src[i]));
  }
  *p++ = '"';
  flush();
}

char* put_json_body(char* out, std::string_view s) {
  char* p = out;
  const char* src = s.data();
  const std::size_t n = s.size();
  std::size_t i = 0;
#if defined(__SSE2__)
  // As in append_json_string: blocks of 16 with 16 more bytes behind them. A block writes at most
  // 96 bytes (6 per byte), its stores at most 16 past that.
  for (; i + 32 <= n; i += 16) {
    p = put_block(p, src + i);
  }
#endif
  for (; i < n; ++i) p = put_byte(p, static_cast<unsigned char>(src[i]));
  return p;
}

bool json_string_is_plain(std::string_view s, bool ascii_only) {
  const char* p = s.data();
  const std::size_t n = s.size();
  std::size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    int mask = special_mask(v);
    if (ascii_only) mask |= _mm_movemask_epi8(v);  // the high bit: a byte past 0x7F
    if (mask != 0) return false;
  }
#endif
  for (; i < n; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (c < 0x20 || c == '"' || c == '\\' || (ascii_only && c >= 0x80)) return false;
  }
  return true;
}

std::size_t find_json_escape_except_newline(std::string_view s, std::size_t from) {
  const char* p = s.data();
  const std::size_t n = s.size();
  std::size_t i = from;
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n');
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const int mask = special_mask(v) & ~_mm_movemask_epi8(_mm_cmpeq_epi8(v, newline));
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < n; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    if ((c < 0x20 && c != '\n') || c == '"' || c == '\\') return i;
  }
  return n;
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
