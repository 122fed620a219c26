// Tests for the Encoding Standard decoders and ripgrep's decoding plan (-E/--encoding): labels,
// each decoder's mapping and its malformed-input rules (where glibc's iconv or the platform's
// tables differ from the standard), streaming, the BOM rules of encoding_rs_io, the read ends the
// roll buffer follows, and searching a decoded haystack. tests/diff/test_rg_encoding.py checks
// every one- and two-byte sequence against rg 14 itself.
#include "ctx/engine/encoding.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "ctx/engine/searcher.hpp"
#include "pattern_testing.hpp"

namespace {

using namespace std::string_literals;
using ctx::engine::decode_haystack;
using ctx::engine::Decoder;
using ctx::engine::Encoding;
using ctx::engine::encoding_for_label;
using ctx::engine::plan_decoding;

const std::string kFffd = "\xEF\xBF\xBD";  // NOLINT(readability-identifier-naming)

std::string decode(Encoding e, std::string_view in) {
  Decoder d(e, false);
  std::string out;
  d.decode(in, true, out);
  return out;
}

}  // namespace

TEST_CASE("labels are found case-insensitively with surrounding whitespace ignored",
          "[engine][encoding]") {
  CHECK(encoding_for_label("latin1") == Encoding::kWindows1252);
  CHECK(encoding_for_label("ISO-8859-1") == Encoding::kWindows1252);
  CHECK(encoding_for_label(" \tUTF-8\n") == Encoding::kUtf8);
  CHECK(encoding_for_label("utf-16") == Encoding::kUtf16Le);
  CHECK(encoding_for_label("UnicodeFFFE") == Encoding::kUtf16Be);
  CHECK(encoding_for_label("windows-31j") == Encoding::kShiftJis);
  CHECK(encoding_for_label("gb2312") == Encoding::kGbk);
  CHECK(encoding_for_label("big5-hkscs") == Encoding::kBig5);
  CHECK(encoding_for_label("iso-8859-8-i") == Encoding::kIso88598I);
  CHECK(encoding_for_label("x-user-defined") == Encoding::kXUserDefined);
  CHECK(encoding_name(Encoding::kShiftJis) == "Shift_JIS");
}

TEST_CASE("unknown labels and the replacement encoding's labels are not encodings",
          "[engine][encoding]") {
  for (std::string_view label : {"", "bogus", "utf 8", "utf-7", "replacement", "iso-2022-kr",
                                 "hz-gb-2312", "latin1x", "auto", "none"}) {
    CAPTURE(label);
    CHECK_FALSE(encoding_for_label(label));
  }
}

TEST_CASE("windows-1252 maps every byte, 0x81 to U+0081 (iconv rejects it)", "[engine][encoding]") {
  CHECK(decode(Encoding::kWindows1252, "caf\xE9 \x80 \x81") == "caf\xC3\xA9 \xE2\x82\xAC \xC2\x81");
  // A hole in a single-byte index (windows-1253 0xAA) is U+FFFD.
  CHECK(decode(Encoding::kWindows1253, "\xAA") == kFffd);
  CHECK(decode(Encoding::kKoi8R, "\xC1") == "\xD0\xB0");  // а
  CHECK(decode(Encoding::kXUserDefined, "a\x80\xFF") == "a\xEF\x9E\x80\xEF\x9F\xBF");
}

TEST_CASE("UTF-8 replaces each maximal invalid subpart with one U+FFFD", "[engine][encoding]") {
  CHECK(decode(Encoding::kUtf8, "a\xC3\xA9") == "a\xC3\xA9");
  CHECK(decode(Encoding::kUtf8, "\xE0\x80") == kFffd + kFffd);              // E0 needs A0-BF next
  CHECK(decode(Encoding::kUtf8, "\xED\xA0\x80") == kFffd + kFffd + kFffd);  // a surrogate
  CHECK(decode(Encoding::kUtf8, "\xF0\x90\x80") == kFffd);                  // cut short at the end
  CHECK(decode(Encoding::kUtf8, "\xF0\x90\x80x") == kFffd + "x");
  CHECK(decode(Encoding::kUtf8, "\xFF\xC0\xAF") == kFffd + kFffd + kFffd);
}

TEST_CASE("Shift_JIS decodes JIS X 0208, katakana and the user-defined area",
          "[engine][encoding]") {
  CHECK(decode(Encoding::kShiftJis, "\x82\xA0") == "\xE3\x81\x82");  // あ
  CHECK(decode(Encoding::kShiftJis, "\xB1") == "\xEF\xBD\xB1");      // ｱ
  CHECK(decode(Encoding::kShiftJis, "\x5C\x80") == "\\\xC2\x80");    // ASCII and 0x80 as is
  CHECK(decode(Encoding::kShiftJis, "\xF0\x40") == "\xEE\x80\x80");  // U+E000
  CHECK(decode(Encoding::kShiftJis, "\x87\x40") == "\xE2\x91\xA0");  // ① (NEC row 13)
  // A lead byte before an ASCII byte: U+FFFD, and the ASCII byte is decoded again.
  CHECK(decode(Encoding::kShiftJis, "\x82\x0Ax") == kFffd + "\nx");
  CHECK(decode(Encoding::kShiftJis, "\x82\xFD") == kFffd);  // a non-ASCII trail is consumed
}

TEST_CASE("gb18030 decodes two- and four-byte sequences with the pre-2022 ranges",
          "[engine][encoding]") {
  CHECK(decode(Encoding::kGb18030, "\x80") == "\xE2\x82\xAC");
  CHECK(decode(Encoding::kGb18030, "\xB0\xA1") == "\xE5\x95\x8A");              // 啊
  CHECK(decode(Encoding::kGb18030, "\x81\x30\x81\x30") == "\xC2\x80");          // U+0080
  CHECK(decode(Encoding::kGb18030, "\x84\x31\xA4\x39") == "\xEF\xBF\xBF");      // U+FFFF
  CHECK(decode(Encoding::kGb18030, "\x90\x30\x81\x30") == "\xF0\x90\x80\x80");  // U+10000
  CHECK(decode(Encoding::kGb18030, "\x81\x35\xF4\x37") == "\xEE\x9F\x87");      // 7457: U+E7C7
  CHECK(decode(Encoding::kGb18030, "\x84\x31\xA5\x30") == kFffd);  // past the BMP ranges
  // Broken after two bytes: U+FFFD, then the second byte and the next are decoded again.
  CHECK(decode(Encoding::kGb18030, "\x81\x30\x41") == kFffd + "0A");
  // ... and broken after three: the last two are decoded again (0x81 0x41 is 丄).
  CHECK(decode(Encoding::kGb18030, "\x81\x30\x81\x41") == kFffd + "0\xE4\xB8\x84");
  CHECK(decode(Encoding::kGbk, "\x81\x30\x81\x30") == "\xC2\x80");  // GBK decodes as gb18030
}

TEST_CASE("Big5 decodes HKSCS, astral code points and the four two-code-point pointers",
          "[engine][encoding]") {
  CHECK(decode(Encoding::kBig5, "\xA4\x40") == "\xE4\xB8\x80");      // 一
  CHECK(decode(Encoding::kBig5, "\x88\x62") == "\xC3\x8A\xCC\x84");  // Ê̄
  CHECK(decode(Encoding::kBig5, "\x87\x40") == "\xE4\x8F\xB0");      // 䏰 (HKSCS)
  CHECK(decode(Encoding::kBig5, "\x87\x45") == "\xF0\xA7\x89\xA7");  // U+27267
  CHECK(decode(Encoding::kBig5, "\xA1\x30") == kFffd + "0");
}

TEST_CASE("EUC-JP decodes JIS X 0208, JIS X 0212 and half-width katakana", "[engine][encoding]") {
  CHECK(decode(Encoding::kEucJp, "\xA4\xA2") == "\xE3\x81\x82");      // あ
  CHECK(decode(Encoding::kEucJp, "\x8E\xB1") == "\xEF\xBD\xB1");      // ｱ
  CHECK(decode(Encoding::kEucJp, "\x8F\xB0\xA1") == "\xE4\xB8\x82");  // 丂 (JIS X 0212)
  CHECK(decode(Encoding::kEucJp, "\x8F\xA1\xA1") == kFffd);           // a hole in JIS X 0212
}

TEST_CASE("EUC-KR decodes the whole UHC range", "[engine][encoding]") {
  CHECK(decode(Encoding::kEucKr, "\xB0\xA1") == "\xEA\xB0\x80");  // 가
  CHECK(decode(Encoding::kEucKr, "\x81\x41") == "\xEA\xB0\x82");  // 갂 (UHC extension)
  CHECK(decode(Encoding::kEucKr, "\x81\x20") == kFffd + " ");
}

TEST_CASE("ISO-2022-JP switches with escape sequences and rejects empty switches",
          "[engine][encoding]") {
  CHECK(decode(Encoding::kIso2022Jp, "a\x1B$B\x30\x21\x1B(Bb") ==
        "a\xE4\xBA\x9C"
        "b");  // 亜
  CHECK(decode(Encoding::kIso2022Jp, "\x1B(J\x5C\x7E") == "\xC2\xA5\xE2\x80\xBE");
  CHECK(decode(Encoding::kIso2022Jp, "\x1B(I\x31") == "\xEF\xBD\xB1");
  // Two escapes in a row: the second is an error (nothing was output in between).
  CHECK(decode(Encoding::kIso2022Jp, "\x1B(B\x1B(Ba") == kFffd + "a");
  // An unknown escape: U+FFFD, then its bytes as text.
  CHECK(decode(Encoding::kIso2022Jp, "\x1B(Z") == kFffd + "(Z");
  CHECK(decode(Encoding::kIso2022Jp, "\x1B") == kFffd);
  CHECK(decode(Encoding::kIso2022Jp, "\x1B$B\x30") == kFffd);  // a trail byte missing
  CHECK(decode(Encoding::kIso2022Jp, "\x0E") == kFffd);
}

TEST_CASE("UTF-16 pairs surrogates and replaces unpaired ones and a dangling byte",
          "[engine][encoding]") {
  CHECK(decode(Encoding::kUtf16Le, "a\x00\x3D\xD8\x00\xDE"s) == "a\xF0\x9F\x98\x80");
  CHECK(decode(Encoding::kUtf16Be,
               "\x00"
               "a\xD8\x3D\xDE\x00"s) == "a\xF0\x9F\x98\x80");
  // An unpaired high surrogate: U+FFFD, and the unit after it is decoded again.
  CHECK(decode(Encoding::kUtf16Le,
               "\x00\xD8"
               "A\x00"s) == kFffd + "A");
  CHECK(decode(Encoding::kUtf16Le, "\x00\xDC"s) == kFffd);
  // A high surrogate and a dangling byte at the end: one U+FFFD for both.
  CHECK(decode(Encoding::kUtf16Le,
               "a\x00\x00\xD8"
               "b"s) == "a" + kFffd);
}

namespace {

// The Encoding Standard's UTF-16 decoder, one code unit at a time: the fast paths' oracle.
std::string reference_utf16(std::string_view in, bool le) {
  std::string out;
  auto put = [&out](std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  };
  std::int32_t lead = -1;
  std::size_t i = 0;
  for (; i + 2 <= in.size(); i += 2) {
    const auto b0 = static_cast<std::uint8_t>(in[i]), b1 = static_cast<std::uint8_t>(in[i + 1]);
    const std::uint32_t unit = le ? (std::uint32_t{b1} << 8) | b0 : (std::uint32_t{b0} << 8) | b1;
    if (lead >= 0) {
      if (unit >= 0xDC00 && unit <= 0xDFFF) {
        put(0x10000 + ((static_cast<std::uint32_t>(lead) - 0xD800) << 10) + (unit - 0xDC00));
        lead = -1;
        continue;
      }
      put(0xFFFD);
      lead = -1;
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      lead = static_cast<std::int32_t>(unit);
    } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
      put(0xFFFD);
    } else {
      put(unit);
    }
  }
  if (lead >= 0 || i < in.size()) put(0xFFFD);  // one for both
  return out;
}

}  // namespace

TEST_CASE("UTF-16 decodes as the Encoding Standard's decoder, in any pieces, at any alignment",
          "[engine][encoding]") {
  // Runs of ASCII (the 16- and 8-unit blocks), two- and three-byte units, surrogates paired and
  // not, and zero units, at random places in random lengths.
  std::mt19937 rng(11);
  const std::uint16_t units[] = {'a',    ' ',    '\n',   0,      0x7F,   0x80,   0xE9,   0x3A9,
                                 0x7FF,  0x800,  0x4E2D, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF,
                                 0xE000, 0xFEFF, 0xFFFD, 0xFFFF, 0xFF80, 0x0180, 0x8000};
  for (const bool le : {true, false}) {
    for (int round = 0; round < 3000; ++round) {
      std::string in;
      const int n = static_cast<int>(rng() % 120);
      const auto ascii_run = rng() % 40;  // the chance (in 40) that a unit is ASCII
      for (int i = 0; i < n; ++i) {
        const std::uint16_t u = rng() % 40 < ascii_run
                                    ? static_cast<std::uint16_t>('A' + rng() % 26)
                                    : units[rng() % std::size(units)];
        const char hi = static_cast<char>(u >> 8), lo = static_cast<char>(u & 0xFF);
        in += le ? std::string{lo, hi} : std::string{hi, lo};
      }
      if (rng() % 4 == 0) in += 'z';  // a dangling byte
      const Encoding e = le ? Encoding::kUtf16Le : Encoding::kUtf16Be;
      CAPTURE(le, in);
      CHECK(decode(e, in) == reference_utf16(in, le));
      Decoder d(e, false);
      std::string pieces;
      for (std::size_t at = 0; at < in.size();) {
        const std::size_t len = std::min<std::size_t>(1 + rng() % 40, in.size() - at);
        d.decode(std::string_view(in).substr(at, len), false, pieces);
        at += len;
      }
      d.decode({}, true, pieces);
      CHECK(pieces == reference_utf16(in, le));
    }
  }
}

TEST_CASE("a decoder gives the same text whatever pieces the input comes in",
          "[engine][encoding]") {
  std::mt19937 rng(7);
  const Encoding all[] = {Encoding::kUtf8,  Encoding::kGb18030,   Encoding::kBig5,
                          Encoding::kEucJp, Encoding::kIso2022Jp, Encoding::kShiftJis,
                          Encoding::kEucKr, Encoding::kUtf16Le,   Encoding::kUtf16Be,
                          Encoding::kKoi8U};
  const std::string alphabet =
      "\x1B$(BJ@\x81\x82\x8E\x8F\x30\x39\xA1\xA4\xD8\xDC\xFE\xFF\x00\x41\x0A"s;
  for (Encoding e : all) {
    for (int round = 0; round < 200; ++round) {
      std::string in;
      const int n = static_cast<int>(rng() % 40);
      for (int i = 0; i < n; ++i) in.push_back(alphabet[rng() % alphabet.size()]);
      const std::string whole = decode(e, in);
      Decoder d(e, false);
      std::string pieces;
      for (std::size_t at = 0; at < in.size();) {
        const std::size_t len = std::min<std::size_t>(1 + rng() % 4, in.size() - at);
        d.decode(std::string_view(in).substr(at, len), false, pieces);
        at += len;
      }
      d.decode({}, true, pieces);
      CAPTURE(encoding_name(e), in);
      CHECK(pieces == whole);
    }
  }
}

TEST_CASE("a decoder with BOM removal drops its own BOM only, even one split across pieces",
          "[engine][encoding]") {
  Decoder utf8(Encoding::kUtf8, true);
  std::string out;
  utf8.decode("\xEF", false, out);
  utf8.decode("\xBB", false, out);
  utf8.decode("\xBF\xEF\xBB\xBFx", true, out);
  CHECK(out == "\xEF\xBB\xBFx");  // the second BOM is text (U+FEFF)
  out.clear();
  Decoder utf16(Encoding::kUtf16Le, true);
  utf16.decode(
      "\xFF\xFE"
      "a\x00"s,
      true, out);
  CHECK(out == "a");
  out.clear();
  Decoder partial(Encoding::kUtf8, true);
  partial.decode("\xEF\xBB", true, out);
  CHECK(out == kFffd);  // a BOM cut short is decoded as text
}

TEST_CASE(
    "rg 14 loses a Big5, EUC-KR or Shift_JIS lead byte at the end after a read that "
    "decoded something",
    "[engine][encoding]") {
  // encoding_rs 0.8.34 drops the lead when encoding_rs_io decodes an empty buffer before the
  // end; a lead alone in the last read still becomes U+FFFD.
  CHECK(decode_haystack(Encoding::kShiftJis, "ab\x82", 3, 0, nullptr) == "ab");
  CHECK(decode_haystack(Encoding::kShiftJis, "\x82", 1, 0, nullptr) == kFffd);
  CHECK(decode_haystack(Encoding::kBig5, "ab\x81", 3, 0, nullptr) == "ab");
  CHECK(decode_haystack(Encoding::kEucKr, "ab\x81", 3, 0, nullptr) == "ab");
  // Other decoders keep theirs.
  CHECK(decode_haystack(Encoding::kGb18030, "ab\x81", 3, 0, nullptr) == "ab" + kFffd);
  CHECK(decode_haystack(Encoding::kEucJp, "ab\x8F", 3, 0, nullptr) == "ab" + kFffd);
  CHECK(decode_haystack(Encoding::kUtf8, "ab\xE2\x82", 3, 0, nullptr) == "ab" + kFffd);
}

TEST_CASE("the decoder's reads: the BOM peek's leftover, then 8 KiB each", "[engine][encoding]") {
  const std::string in = "x" + std::string(20000, 'a');
  std::vector<std::size_t> ends;
  CHECK(decode_haystack(Encoding::kWindows1252, in, 1, 0, &ends) == in);
  CHECK(ends == std::vector<std::size_t>{1, 1 + 8192, 1 + 16384, in.size()});
  // A read that decodes to nothing (a lone UTF-16 byte) reads on.
  ends.clear();
  const std::string units(20000, '\0');
  CHECK(decode_haystack(Encoding::kUtf16Le, units, 1, 0, &ends).size() == 10000);
  CHECK(ends == std::vector<std::size_t>{(1 + 8192) / 2, (1 + 16384) / 2, 10000});
  // Through stdin, the read after the peek ends where Rust's 8 KiB buffer does.
  ends.clear();
  decode_haystack(Encoding::kWindows1252, in, 3, 8192, &ends);
  CHECK(ends == std::vector<std::size_t>{3, 8192, 8192 + 8192, in.size()});
}

TEST_CASE("the decoding plan follows encoding_rs_io's BOM rules", "[engine][encoding]") {
  using ctx::engine::DecodePlan;
  auto plan = plan_decoding("abc", std::nullopt, true);
  CHECK((plan.skip == 0 && !plan.decoder && plan.first_read == 3));
  plan = plan_decoding("\xEF\xBB\xBF", std::nullopt, true);  // auto: UTF-8 passed through
  CHECK((plan.skip == 3 && !plan.decoder && plan.first_read == 0));
  plan = plan_decoding("\xFF\xFEx", std::nullopt, true);
  CHECK((plan.skip == 2 && plan.decoder == Encoding::kUtf16Le && plan.first_read == 1));
  plan = plan_decoding("\xFE\xFF", std::nullopt, true);  // 2 bytes: stripped, not a BOM
  CHECK((plan.skip == 2 && !plan.decoder));
  plan = plan_decoding("\xEF\xBB\xBF", Encoding::kShiftJis, true);  // a UTF-8 BOM keeps -E's
  CHECK((plan.skip == 3 && plan.decoder == Encoding::kShiftJis));
  plan = plan_decoding("\xFE\xFFx", Encoding::kShiftJis, true);  // a UTF-16 BOM wins
  CHECK((plan.skip == 2 && plan.decoder == Encoding::kUtf16Be));
  plan = plan_decoding("abc", Encoding::kShiftJis, true);
  CHECK((plan.skip == 0 && plan.decoder == Encoding::kShiftJis && plan.first_read == 3));
  plan = plan_decoding("\xFF\xFEx", std::nullopt, false);  // -E none
  CHECK((plan.skip == 0 && !plan.decoder));
}

namespace {

class Lines final : public ctx::engine::LineSink {
 public:
  std::vector<std::string> seen;
  ctx::engine::Flow on_line(std::uint64_t n, std::uint64_t offset, std::string_view l) override {
    seen.push_back(std::to_string(n) + "@" + std::to_string(offset) + ":" + std::string(l));
    return ctx::engine::Flow::kContinue;
  }
  ctx::engine::Flow on_context(std::uint64_t, std::uint64_t, std::string_view) override {
    return ctx::engine::Flow::kContinue;
  }
  void on_context_break() override {}
  void on_binary(std::uint64_t offset, bool) override {
    seen.push_back("binary@" + std::to_string(offset));
  }
};

std::vector<std::string> search(std::string_view pattern, std::string_view hay,
                                ctx::engine::SearchOptions options) {
  auto set = ctx::testing::compile_ok({std::string(pattern)});
  auto scratch = set.make_scratch();
  options.line_numbers = true;
  Lines sink;
  REQUIRE(ctx::engine::search_buffer(set, scratch, options, hay, sink).ok());
  return sink.seen;
}

}  // namespace

TEST_CASE("a haystack is searched and reported decoded, offsets counting decoded bytes",
          "[engine][encoding][searcher]") {
  ctx::engine::SearchOptions options;
  options.encoding = Encoding::kWindows1252;
  CHECK(search("é", "x\ncaf\xE9\n", options) == std::vector<std::string>{"2@2:caf\xC3\xA9"});
  options.encoding = Encoding::kUtf16Le;  // no BOM: decoded all the same
  CHECK(search("b",
               "a\x00\n\x00"
               "b\x00"s,
               options) == std::vector<std::string>{"2@2:b"});
  // A UTF-16 NUL is binary data once decoded, not before.
  options.binary = ctx::engine::BinaryMode::kQuit;
  CHECK(search("a", "a\x00\n\x00\x00\x00"s, options) == std::vector<std::string>{"binary@2"});
}

TEST_CASE("-E none searches a BOM'd file as it is, BOM included", "[engine][encoding][searcher]") {
  ctx::engine::SearchOptions options;
  options.bom_sniffing = false;
  options.binary = ctx::engine::BinaryMode::kText;
  CHECK(search("a",
               "\xEF\xBB\xBF"
               "a\n",
               options) == std::vector<std::string>{"1@0:\xEF\xBB\xBF"
                                                    "a"});
  CHECK(search("a",
               "\xFF\xFE"
               "a\x00\n"s,
               options) == std::vector<std::string>{"1@0:\xFF\xFE"
                                                    "a\x00"s});
  options.bom_sniffing = true;  // auto: decoded, even with -a (as rg)
  CHECK(search("a",
               "\xFF\xFE"
               "a\x00\n\x00"s,
               options) == std::vector<std::string>{"1@0:a"});
}

TEST_CASE("may_decode_to_nul agrees with decoding, piece by piece", "[engine][encoding]") {
  using ctx::engine::may_decode_to_nul;
  std::mt19937 rng(17);
  for (const Encoding e : {Encoding::kUtf16Le, Encoding::kUtf16Be, Encoding::kWindows1252,
                           Encoding::kShiftJis, Encoding::kGb18030}) {
    for (int round = 0; round < 2000; ++round) {
      // Mostly ASCII-looking bytes with a few zero bytes anywhere: UTF-16 text holds a zero byte
      // in every ASCII unit, and a zero unit only where two zero bytes share a unit.
      // Every other input is long enough for the 64-byte blocks, with fewer zero bytes.
      const bool blocks = round % 2 == 1;
      std::string in(rng() % (blocks ? 320 : 64), '\0');
      const unsigned zero_one_in = blocks ? 40 : 5;
      for (char& c : in) c = rng() % zero_one_in == 0 ? '\0' : static_cast<char>('a' + rng() % 26);
      if (rng() % 2 == 0 && in.size() >= 2) in[rng() % (in.size() - 1) & ~1U] = '\x80';
      const bool decoded_nul = decode(e, in).find('\0') != std::string::npos;
      const bool may = may_decode_to_nul(e, in);
      INFO("encoding " << static_cast<int>(e) << " input size " << in.size());
      if (e == Encoding::kUtf16Le || e == Encoding::kUtf16Be) {
        CHECK(may == decoded_nul);  // exact
        // In pieces that start at a code unit: the same answer.
        const std::size_t cut = (rng() % (in.size() + 1)) & ~std::size_t{1};
        CHECK((may_decode_to_nul(e, std::string_view(in).substr(0, cut)) ||
               may_decode_to_nul(e, std::string_view(in).substr(cut))) == may);
      } else {
        CHECK((!decoded_nul || may));  // never misses one
      }
    }
  }
}
