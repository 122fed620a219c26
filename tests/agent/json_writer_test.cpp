// JsonWriter: the copy-as-is path for short plain-ASCII keys and strings writes exactly what the
// block-wise escaper writes, for every byte value at every position and for lengths around the
// short-string bound; invalid UTF-8 is still written lossily.
#include "../../agent/src/json_writer.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "ctx/base/json.hpp"

namespace {

using ctx::agent::JsonWriter;

// What key(s) + string(s) must write: both through the escaper.
std::string expected(std::string_view s) {
  std::string out = "{";
  ctx::append_json_string(out, s);
  out += ":";
  ctx::append_json_string(out, s);
  out += "}";
  return out;
}

std::string written(std::string_view s) {
  JsonWriter w;
  w.begin_object().key(s).string(s).end_object();
  return w.take();
}

}  // namespace

TEST_CASE("short keys and strings are written as the escaper writes them, whatever their bytes",
          "[agent][json]") {
  // Every ASCII byte (controls, '"', '\\', DEL) alone and inside plain text.
  for (int c = 0; c < 0x80; ++c) {
    const std::string one(1, static_cast<char>(c));
    CHECK(written(one) == expected(one));
    const std::string inside = "ab" + one + "cd";
    CHECK(written(inside) == expected(inside));
  }
  // Valid multi-byte UTF-8 is not plain ASCII but must come out the same.
  CHECK(written("caf\xC3\xA9") == expected("caf\xC3\xA9"));
  const std::string long_utf8 = std::string(20, 'a') + "\xC3\xA9" + std::string(20, 'b');
  CHECK(written(long_utf8) == expected(long_utf8));
  // Lengths around the 16-byte blocks of the check, plain and with one escape at the end.
  for (std::size_t n = 0; n <= 40; ++n) {
    const std::string plain(n, 'x');
    CHECK(written(plain) == expected(plain));
    for (std::size_t at = 0; at <= n; ++at) {
      for (char special : {'"', '\\', '\n', '\x1f', '\x7f'}) {
        std::string one = plain;
        one.insert(at, 1, special);
        CHECK(written(one) == expected(one));
      }
    }
  }
  // Random ASCII texts.
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string s(rng() % 80, ' ');
    for (char& ch : s) ch = static_cast<char>(rng() % 0x80);
    INFO(i);
    CHECK(written(s) == expected(s));
  }
}

TEST_CASE("valid_string writes valid UTF-8 as string() does; string() stays lossy",
          "[agent][json]") {
  for (std::string_view s : {std::string_view("plain"), std::string_view("tab\there"),
                             std::string_view("\xE2\x9C\x93 done"), std::string_view("")}) {
    JsonWriter a;
    a.valid_string(s);
    JsonWriter b;
    b.string(s);
    CHECK(a.str() == b.str());
  }
  JsonWriter lossy;
  lossy.string("bad \xFF byte");
  CHECK(lossy.str() == "\"bad \xEF\xBF\xBD byte\"");
}
