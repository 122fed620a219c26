// is_valid_utf8 (the 8-bytes-at-a-time scanner) against a per-code-point decoder, and
// append_utf8 against it, on edge cases and random byte strings.
#include "ctx/base/utf8.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

// The reference: decode each sequence by the table of RFC 3629, section 4.
bool reference_valid(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80             ? 0
                    : (c & 0xE0) == 0xC0 ? 1
                    : (c & 0xF0) == 0xE0 ? 2
                    : (c & 0xF8) == 0xF0 ? 3
                                         : 4;
    if (n == 4) return false;
    std::uint32_t cp = n == 0 ? c : n == 1 ? (c & 0x1FU) : n == 2 ? (c & 0x0FU) : (c & 0x07U);
    for (std::size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return false;
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3FU);
    }
    static constexpr std::uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return false;
    i += n + 1;
  }
  return true;
}

}  // namespace

TEST_CASE(
    "is_valid_utf8 rejects overlong forms, surrogates, code points past U+10FFFF and cut "
    "sequences, and accepts the rest",
    "[utf8]") {
  CHECK(ctx::is_valid_utf8(""));
  CHECK(ctx::is_valid_utf8("plain ASCII, longer than eight bytes"));
  CHECK(ctx::is_valid_utf8("\xC3\xA9t\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  CHECK_FALSE(ctx::is_valid_utf8("\xC0\xAF"));          // overlong '/'
  CHECK_FALSE(ctx::is_valid_utf8("\xE0\x80\xAF"));      // overlong
  CHECK_FALSE(ctx::is_valid_utf8("\xED\xA0\x80"));      // U+D800
  CHECK_FALSE(ctx::is_valid_utf8("\xF4\x90\x80\x80"));  // U+110000
  CHECK_FALSE(ctx::is_valid_utf8("abcdefgh\xE2\x82"));  // cut at the end, after an ASCII run
  CHECK_FALSE(ctx::is_valid_utf8("\x80"));
  CHECK_FALSE(ctx::is_valid_utf8("\xFF"));
}

TEST_CASE("is_valid_utf8 agrees with a per-code-point decoder on random bytes", "[utf8]") {
  std::mt19937 rng(7);
  // Mostly ASCII with lead and continuation bytes mixed in, so both the 8-byte skip and every
  // branch of the decoder run.
  const std::string alphabet =
      "ab \n\x80\x8F\x90\x9F\xA0\xBF\xC0\xC2\xDF\xE0\xED\xEF\xF0\xF4\xF5\xFF";
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    const std::size_t len = rng() % 24;
    for (std::size_t i = 0; i < len; ++i) {
      s += rng() % 3 == 0 ? alphabet[rng() % alphabet.size()] : 'x';
    }
    INFO("round " << round);
    REQUIRE(ctx::is_valid_utf8(s) == reference_valid(s));
  }
}

TEST_CASE("append_utf8 writes every scalar value as valid UTF-8 of the right length", "[utf8]") {
  for (std::uint32_t cp = 0; cp <= 0x10FFFF; cp += (cp < 0x800 ? 1 : 7)) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::string bytes = ctx::utf8_of(cp);
    const std::size_t want = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    INFO("U+" << std::hex << cp);
    REQUIRE(bytes.size() == want);
    REQUIRE(ctx::is_valid_utf8(bytes));
  }
}

TEST_CASE("utf8_valid_prefix ends where the first invalid or cut-short sequence starts", "[utf8]") {
  CHECK(ctx::utf8_valid_prefix("") == 0);
  CHECK(ctx::utf8_valid_prefix("abc") == 3);
  CHECK(ctx::utf8_valid_prefix("a\xff"
                               "b") == 1);
  CHECK(ctx::utf8_valid_prefix("caf\xc3\xa9!\xe2\x82") == 6);     // a cut-short euro sign
  CHECK(ctx::utf8_valid_prefix("0123456789\xed\xa0\x80") == 10);  // a surrogate
  std::mt19937 rng(7);
  const std::vector<std::string> alphabet = {"a",    "\xc3\xa9",         "\xe2\x82\xac", "\xff",
                                             "\x80", "\xf0\x9f\x98\x80", "\xe2\x82"};
  for (int round = 0; round < 2000; ++round) {
    std::string s;
    for (std::size_t i = 0, len = rng() % 12; i < len; ++i) s += alphabet[rng() % alphabet.size()];
    const std::size_t n = ctx::utf8_valid_prefix(s);
    INFO("round " << round);
    REQUIRE(reference_valid(s.substr(0, n)));
    REQUIRE((n == s.size() || !reference_valid(s.substr(0, n + 1))));
  }
}
