// append_json_string and put_json_body: the bulk-copy fast path writes exactly what the original
// byte-by-byte escaper wrote, kept here as the oracle (put_json_body within the room it asks for).
#include "ctx/base/json.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>

namespace {

// The per-byte implementation append_json_string had before the fast path (serde_json's escapes).
void oracle_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
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
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
}

std::string fast(std::string_view s) {
  std::string out = "prefix";
  ctx::append_json_string(out, s);
  return out;
}

std::string slow(std::string_view s) {
  std::string out = "prefix";
  oracle_json_string(out, s);
  return out;
}

// put_json_body's output in "prefix" "..." form, so it compares with fast(); fails the test when
// it wrote past the room json_body_room promises.
std::string put(std::string_view s) {
  constexpr std::size_t kGuard = 64;
  const std::size_t room = ctx::json_body_room(s.size());
  std::string buf(room + kGuard, '\xAA');
  const char* end = ctx::put_json_body(buf.data(), s);
  REQUIRE(end >= buf.data());
  REQUIRE(static_cast<std::size_t>(end - buf.data()) <= room);
  REQUIRE(buf.compare(room, kGuard, std::string(kGuard, '\xAA')) == 0);
  return "prefix\"" + buf.substr(0, static_cast<std::size_t>(end - buf.data())) + "\"";
}

}  // namespace

TEST_CASE("Every single byte value is escaped as the original escaper did, at every offset") {
  for (int b = 0; b < 256; ++b) {
    for (std::size_t pos : {0u, 1u, 15u, 16u, 17u, 31u, 32u, 40u}) {
      std::string s(41, 'a');
      s[pos] = static_cast<char>(b);
      INFO("byte " << b << " at " << pos);
      REQUIRE(fast(s) == slow(s));
      REQUIRE(put(s) == slow(s));
    }
  }
}

TEST_CASE("Known escapes come out as serde_json writes them") {
  CHECK(fast(std::string("a\"b\\c\n\r\t\b\f\x01\x1f\x7f\xc3\xa9", 15)) ==
        "prefix\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f\x7f\xc3\xa9\"");
  CHECK(fast("") == "prefix\"\"");
}

TEST_CASE("Random strings of every length escape byte for byte as the original escaper") {
  std::mt19937_64 rng(20261122);
  // Alphabets weighted towards plain text, UTF-8 and the escaped characters, and raw bytes.
  const std::string plain = "abcxyzABC 019{}[]:,~";
  const std::string special = "\"\\\n\r\t\b\f\x01\x1f\x7f";
  const std::string utf8 = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
  for (int iter = 0; iter < 20000; ++iter) {
    std::size_t len = rng() % 200;
    unsigned mode = static_cast<unsigned>(rng() % 4);
    std::string s;
    while (s.size() < len) {
      unsigned r = static_cast<unsigned>(rng() % 100);
      if (mode == 0 || r < 70) {
        s.push_back(plain[rng() % plain.size()]);
      } else if (mode == 1 || r < 80) {
        s += utf8.substr(rng() % 3 * 3, 3);
      } else if (mode == 2 || r < 95) {
        s.push_back(special[rng() % special.size()]);
      } else {
        s.push_back(static_cast<char>(rng() & 0xFF));
      }
    }
    INFO("iteration " << iter);
    REQUIRE(fast(s) == slow(s));
    REQUIRE(put(s) == slow(s));
  }
}

TEST_CASE("Long strings of every escape density escape as the original escaper, across the stage") {
  // Lengths past the 2048-byte output stage, and strings whose every byte expands six-fold, so the
  // staged output is flushed mid-block and mid-tail; U+2028/U+2029 are copied raw (as serde_json
  // does) and invalid UTF-8 (lone continuation bytes, truncated sequences, 0xFF) passes through.
  std::mt19937_64 rng(2028);
  const std::string pieces[] = {"a",
                                "xyz0123456789",
                                "\xe2\x80\xa8",
                                "\xe2\x80\xa9",
                                "\x80",
                                "\xc3",
                                "\xff\xfe",
                                "\xe2\x82",
                                "\x01",
                                "\x1f",
                                "\x7f",
                                "\"",
                                "\\",
                                "\n",
                                "\t\t",
                                std::string(1, '\0')};
  for (int iter = 0; iter < 600; ++iter) {
    std::size_t len = rng() % 9000;
    // The share of escaped pieces, from none to all.
    auto dense = static_cast<unsigned>(rng() % 101);
    std::string s;
    while (s.size() < len) {
      bool escaped = rng() % 100 < dense;
      std::size_t k = escaped ? 8 + rng() % 8 : rng() % 8;
      s += pieces[k];
    }
    INFO("iteration " << iter << ", length " << s.size() << ", density " << dense);
    REQUIRE(fast(s) == slow(s));
    REQUIRE(put(s) == slow(s));
  }
  const std::string all_controls(5000, '\x01');
  CHECK(fast(all_controls) == slow(all_controls));
  CHECK(put(all_controls) == slow(all_controls));
  CHECK(fast(all_controls).size() == 6 + 2 + 6 * all_controls.size());
}
