// Tests for Rust's non-Unicode mode ((?-u), --no-unicode; engine/src/byte_mode.hpp): a set with
// such a pattern runs as regexes over bytes, Unicode pieces as UTF-8 byte-sequence alternations.
// The expectations of the first cases were checked against rg 14.1.1; the sweeps compare the
// byte-mode translation of Unicode pieces against the UTF-8 path (itself checked against rg 14)
// code point by code point, and next to invalid UTF-8 for the word look-arounds.
#define CATCH_CONFIG_ENABLE_PAIR_STRINGMAKER  // print match spans as {start, end}
#include "../../engine/src/byte_mode.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctx/base/utf8.hpp"
#include "ctx/engine/pattern_set.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::testing::compile_ok;
using ctx::testing::SpanPairs;

using ctx::testing::spans_of;

std::string error_of(const std::string& pattern, PatternOptions options = {}) {
  auto set = PatternSet::compile({pattern}, options);
  return set.ok() ? std::string("(compiled)") : set.error().detail;
}

PatternOptions no_unicode() {
  PatternOptions o;
  o.no_unicode = true;
  return o;
}

}  // namespace

TEST_CASE("(?-u) matches raw bytes where Unicode mode matches characters", "[engine][bytes]") {
  CHECK(spans_of("(?-u)\\xff",
                 "a\xff"
                 "b") == SpanPairs{{1, 2}});
  CHECK(spans_of("(?-u:[^a])",
                 "a\xff"
                 "b") == SpanPairs{{1, 2}, {2, 3}});
  CHECK(spans_of("(?-u).", "\xC3\xA9") == SpanPairs{{0, 1}, {1, 2}});
  CHECK(spans_of("(?-u).", "a\nb", [] {
          PatternOptions o;
          o.multiline = true;
          return o;
        }()) == SpanPairs{{0, 1}, {2, 3}});
  // \x{FF} (braced) is the character U+00FF, its two UTF-8 bytes, even with Unicode off.
  CHECK(spans_of("(?-u)\\x{ff}", "\xFF\xC3\xBF") == SpanPairs{{1, 3}});
  CHECK(spans_of("(?-u)[\\x80-\\xff]+", "ab\x80\xC3\xA9z") == SpanPairs{{2, 5}});
  // A non-ASCII literal outside a class is its bytes; with (?i) it does not fold.
  CHECK(spans_of("(?i-u)\xC3\xA9", "\xC3\x89\xC3\xA9") == SpanPairs{{2, 4}});
  CHECK(spans_of("(?-u)\\w+", "caf\xC3\xA9 x_1") == SpanPairs{{0, 3}, {6, 9}});
  CHECK(spans_of("(?-u)\\W", "a\xC3\xA9") == SpanPairs{{1, 2}, {2, 3}});
  CHECK(spans_of("(?-u)[[:^alpha:]]", "a\xFF") == SpanPairs{{1, 2}});
  CHECK(spans_of("(?-u)\\d\\s\\S", "1 \xFF") == SpanPairs{{0, 3}});
}

TEST_CASE("(?i) with Unicode off folds ASCII letters only", "[engine][bytes]") {
  const std::string hay = std::string("K") + std::string(ctx::testing::kKelvin) + " k";
  CHECK(spans_of("(?i-u)k", hay) == SpanPairs{{0, 1}, {5, 6}});
  CHECK(spans_of("(?i)k(?-u)", hay) == SpanPairs{{0, 1}, {1, 4}, {5, 6}});
  PatternOptions caseless = no_unicode();
  caseless.case_insensitive = true;
  CHECK(spans_of("k", hay, caseless) == SpanPairs{{0, 1}, {5, 6}});
  CHECK(spans_of("[a-z]+", "ABC\xC5\xBF", caseless) == SpanPairs{{0, 3}});
  caseless.fixed_strings = true;
  CHECK(spans_of("\xC3\xA9", "\xC3\x89\xC3\xA9", caseless) == SpanPairs{{2, 4}});
}

TEST_CASE("Unicode pieces keep their meaning inside a byte-mode pattern", "[engine][bytes]") {
  CHECK(spans_of("(?-u)(?u:\\w+)", "caf\xC3\xA9!") == SpanPairs{{0, 5}});
  CHECK(spans_of("\\w+(?-u:\\W)", "\xCE\xB1\xCE\xB2\xFF") == SpanPairs{{0, 5}});
  CHECK(spans_of("\\p{Greek}+(?-u:\\xff)", "x\xCE\xB1\xCE\xB2\xFF") == SpanPairs{{1, 6}});
  CHECK(spans_of("\xC3\xA9(?-u:\\xe9)", "\xC3\xA9\xE9") == SpanPairs{{0, 3}});
  CHECK(spans_of("(?i)(?-u:k)|\xC3\xA9", "K\xC3\x89") == SpanPairs{{0, 1}, {1, 3}});
  // (?i)é* must repeat the whole folded character, not its last byte.
  CHECK(spans_of("(?i)x\xC3\xA9*(?-u)", "x\xC3\x89\xC3\xA9") == SpanPairs{{0, 5}});
}

TEST_CASE("\\p{..} and non-ASCII class literals are errors with Unicode off", "[engine][bytes]") {
  CHECK(error_of("(?-u)\\pL") ==
        "regex parse error in '(?-u)\\pL' at offset 5: Unicode not allowed here");
  CHECK(error_of("(?-u)[\xC3\xA9]").find("at offset 6: Unicode not allowed here") !=
        std::string::npos);
  CHECK(error_of("\\p{Greek}", no_unicode()).find("Unicode not allowed here") != std::string::npos);
  CHECK(error_of("(?-u)[\\x{e9}]").find("Unicode not allowed here") != std::string::npos);
  CHECK(error_of("(?-u)(?=a)").find("look-around") != std::string::npos);
  CHECK(error_of("(?-u)(a").find("unclosed group") != std::string::npos);
  CHECK(error_of("(?-u)\\p{Nope}").find("Unicode not allowed here") != std::string::npos);
  CHECK(error_of("(?-u)(?u:\\p{Nope})").find("Unicode property not found") != std::string::npos);
}

TEST_CASE("--no-unicode turns Unicode mode off for every pattern, (?u) back on",
          "[engine][bytes]") {
  CHECK(spans_of("\\w+", "caf\xC3\xA9", no_unicode()) == SpanPairs{{0, 3}});
  CHECK(spans_of("(?u)\\w+", "caf\xC3\xA9", no_unicode()) == SpanPairs{{0, 5}});
  CHECK(spans_of(".", "\xFF", no_unicode()) == SpanPairs{{0, 1}});
  CHECK(spans_of(std::vector<std::string>{"\\xff", "(?u)\\w"}, "\xFF\xCE\xB1", no_unicode()) ==
        SpanPairs{{0, 1}, {1, 3}});
  // Plain literals stay on the UTF-8 path, with the same matches.
  CHECK(spans_of("caf\xC3\xA9", "a caf\xC3\xA9", no_unicode()) == SpanPairs{{2, 7}});
}

TEST_CASE("-w uses ASCII half word boundaries under --no-unicode, Unicode ones with (?-u)",
          "[engine][bytes]") {
  PatternOptions word = no_unicode();
  word.word = true;
  CHECK(spans_of("caf", "caf\xC3\xA9", word) == SpanPairs{{0, 3}});
  CHECK(spans_of("caf",
                 "\xFF"
                 "caf!",
                 word) == SpanPairs{{1, 4}});
  word.no_unicode = false;
  CHECK(spans_of("caf", "caf\xC3\xA9", word).empty());
  CHECK(spans_of("(?-u)caf", "caf\xC3\xA9", word).empty());
  // Unicode half boundaries fail next to invalid UTF-8.
  CHECK(spans_of("(?-u)caf",
                 "\xFF"
                 "caf!",
                 word)
            .empty());
  CHECK(spans_of("(?-u)caf", "\xC3\xA9 caf!", word) == SpanPairs{{3, 6}});
}

TEST_CASE("byte-mode Unicode classes match exactly the UTF-8 path's characters",
          "[engine][bytes]") {
  // Every pattern also runs with a never-matching (?-u) alternative, which puts the set in byte
  // mode; both must match the same characters, sampled across every range of code points.
  const std::vector<std::string> pieces = {".",
                                           "\\w",
                                           "\\W",
                                           "\\d",
                                           "\\s",
                                           "\\p{Greek}",
                                           "(?i)k",
                                           "[^a-z]",
                                           "(?i)[^k]",
                                           "\\P{L}",
                                           "(?i)\\p{Lu}",
                                           "[\\w--\\d]",
                                           "(?i)\xCF\x83",
                                           "[\\x{80}-\\x{10FFFF}&&\\p{Han}]",
                                           "[[:^alpha:]]",
                                           "(?i)[[:upper:]]"};
  std::string hay;
  for (std::uint32_t cp = 1; cp <= 0x10FFFF; cp += (cp < 0x3000 ? 7 : 997)) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    if (cp == '\n') continue;
    ctx::append_utf8(hay, cp);
  }
  for (std::uint32_t cp : {0x7FU, 0x80U, 0x7FFU, 0x800U, 0xFFFFU, 0x10000U, 0x10FFFFU, 0x212AU,
                           0x17FU, 0x3A3U, 0x3C2U}) {
    ctx::append_utf8(hay, cp);
  }
  for (const std::string& piece : pieces) {
    INFO("pattern " << piece);
    const SpanPairs utf8 = spans_of(piece, hay);
    CHECK(spans_of(std::vector<std::string>{piece, "(?-u:\\xff\\xfe)"}, hay) == utf8);
    CHECK(spans_of(piece + "(?-u)", hay) == utf8);
  }
}

TEST_CASE("byte-mode word look-arounds agree with the UTF-8 path next to invalid UTF-8",
          "[engine][bytes]") {
  // A hex escape ends where a literal ends: "\xFF" "b" is two strings on purpose.
  // NOLINTBEGIN(bugprone-suspicious-missing-comma)
  const std::vector<std::string> lines = {"b\x80 x",
                                          "\x80"
                                          "bar",
                                          "a\xCE\xB1\xFF"
                                          "b",
                                          "\xE2\x84 ab",
                                          "ab\xC3",
                                          "\xCE\xB1\x80\x80"
                                          "c",
                                          "x \xC3\xA9t\xC3\xA9 ",
                                          "\xF0\x9F\x98\x80"
                                          "a_1 \xFF\xFE",
                                          "\x80\x80\x80"
                                          "a",
                                          "\x80"
                                          "a"};
  // NOLINTEND(bugprone-suspicious-missing-comma)
  const std::vector<std::string> patterns = {"\\b", "\\B", "\\b\\w+\\b", "\\Ba", "a\\b", "\\w\\B"};
  for (bool after_line_break : {false, true}) {
    for (const std::string& p : patterns) {
      for (const std::string& line : lines) {
        INFO("pattern " << p << " after_line_break " << after_line_break);
        const SpanPairs utf8 = spans_of(std::vector<std::string>{p}, line, {}, after_line_break);
        CHECK(spans_of(std::vector<std::string>{p + "(?-u)"}, line, {}, after_line_break) == utf8);
      }
    }
    PatternOptions word;
    word.word = true;
    for (const char* p : {"a", "\\w+", "ab|bar|c"}) {
      for (const std::string& line : lines) {
        INFO("-w pattern " << p << " after_line_break " << after_line_break);
        const SpanPairs utf8 = spans_of(std::vector<std::string>{p}, line, word, after_line_break);
        CHECK(spans_of(std::vector<std::string>{std::string(p) + "(?-u)"}, line, word,
                       after_line_break) == utf8);
      }
    }
  }
}

TEST_CASE("byte-mode sets agree with PCRE2 alone through the Hyperscan prefilter",
          "[engine][bytes]") {
  // The Hyperscan expressions are supersets over bytes; PCRE2 alone is the reference.
  const std::vector<std::vector<std::string>> sets = {{"(?-u)\\xff"},
                                                      {"(?-u)\\w+x"},
                                                      {"\\p{Greek}+(?-u)", "foo"},
                                                      {"(?i-u)ab|(?i)k"},
                                                      {"(?-u)[^\\x00-\\x7f]{2}"},
                                                      {"\\w{3}(?-u:\\b)"},
                                                      {"(?-u)caf\\xc3|\\s\\S"}};
  const std::string hay =
      "foo \xCE\xB1\xCE\xB2 \xFF\xFE abx K\xE2\x84\xAA \xC3\xA9t\xC3\xA9 caf\xC3\n"
      "plain ascii\nAB \xCF\x83\n";
  for (const auto& patterns : sets) {
    for (bool caseless : {false, true}) {
      PatternOptions options;
      options.case_insensitive = caseless;
      PatternOptions reference = options;
      reference.pcre2_only = true;
      const PatternSet set = compile_ok(patterns, options);
      const PatternSet ref = compile_ok(patterns, reference);
      PatternSet::Scratch s1 = set.make_scratch(), s2 = ref.make_scratch();
      INFO("first pattern " << patterns.front() << " -i " << caseless);
      std::size_t from1 = 0, from2 = 0;
      for (;;) {
        auto a = set.find_line(hay, from1, s1);
        auto b = ref.find_line(hay, from2, s2);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        REQUIRE(a->has_value() == b->has_value());
        if (!a->has_value()) break;
        CHECK((*a)->start == (*b)->start);
        from1 = from2 = (*a)->end + 1;
        if (from1 > hay.size()) break;
      }
    }
  }
}

TEST_CASE("byte mode accepts and rejects the shapes Rust does", "[engine][bytes]") {
  // Checked against rg 14.1.1: repeated repetitions and repeated assertions are valid in Rust.
  CHECK(spans_of("(?-u)a**", "baa") == SpanPairs{{0, 0}, {1, 3}});
  CHECK(spans_of("(?-u)^*a", "ba") == SpanPairs{{1, 2}});
  CHECK(spans_of("(?-u)(ab)+{2}", "ababab") == SpanPairs{{0, 6}});
  CHECK(spans_of("(?x-u) a \\  b", "a b") == SpanPairs{{0, 3}});
  // ripgrep wraps each pattern in a group, which a comment running to the end comments out.
  CHECK(error_of("(?x-u) a # comment").find("unclosed group") != std::string::npos);
  CHECK(spans_of("(?-u)[]a]+", "]a]") == SpanPairs{{0, 3}});
  CHECK(spans_of("(?-u)[[:alpha:]&&[^a]]+", "abc") == SpanPairs{{1, 3}});
  CHECK(spans_of("(?-u)\\b{start}\\w+\\b{end}", "caf\xC3\xA9") == SpanPairs{{0, 3}});
  CHECK(error_of("(?-u)[\\d-z]").find("invalid range boundary, must be a literal") !=
        std::string::npos);
  CHECK(error_of("(?iu-u)x").find("duplicate flag") != std::string::npos);
  CHECK(error_of("(?-u)a{").find("counted repetition") != std::string::npos);
  CHECK(error_of("(?-u)\\1").find("backreferences are not supported") != std::string::npos);
  CHECK(error_of("(?-u)\\x{110000}").find("not a Unicode scalar value") != std::string::npos);
  CHECK(error_of("(?-u:x)|[\\pL\\pN]{100}").find("at most") != std::string::npos);
  CHECK(error_of("(?-u)\xFF").find("at offset 5: the pattern is not valid UTF-8") !=
        std::string::npos);
}

TEST_CASE("disables_unicode finds (?-u) flag groups", "[engine][bytes]") {
  using ctx::engine::detail::disables_unicode;
  CHECK(disables_unicode("(?-u)x"));
  CHECK(disables_unicode("a(?i-u:b)"));
  CHECK(disables_unicode("(?s-iu)."));
  CHECK_FALSE(disables_unicode("(?u)x"));
  CHECK_FALSE(disables_unicode("(?i)u-u"));
  CHECK_FALSE(disables_unicode("(?u-i)x"));
}

TEST_CASE("a chain of repetitions becomes one repetition, not nested groups", "[engine][bytes]") {
  // Each nested group doubled Hyperscan's compile time: 30 +'s took minutes (found by fuzzing).
  using ctx::engine::detail::ByteRegexOptions;
  using ctx::engine::detail::rust_to_bytes;
  const std::string pluses(40, '+');
  ByteRegexOptions exact;
  exact.unicode = false;
  ByteRegexOptions superset = exact;
  superset.superset = true;
  for (const ByteRegexOptions& options : {exact, superset}) {
    INFO("superset " << options.superset);
    CHECK(rust_to_bytes("a" + pluses + "b", options).value() == "a+b");
    CHECK(rust_to_bytes("a+*?", options).value() == (options.superset ? "a*" : "(?:a+)??"));
    // Greedy and lazy in turn: one group at most.
    std::string mixed = "a";
    for (int i = 0; i < 20; ++i) mixed += "+?+";
    const std::string out = rust_to_bytes(mixed, options).value();
    CHECK(out.find("(?:(?:") == std::string::npos);
  }
  // A counted repetition is not folded.
  CHECK(rust_to_bytes("a{2}+", exact).value() == "(?:a{2})+");
  // The whole set compiles at once (it took minutes).
  CHECK(spans_of("330" + pluses + "3", "x3300003y") == SpanPairs{{1, 8}});
}

TEST_CASE("-F literals with < and > stay literals in byte mode", "[engine][bytes]") {
  // Found by pattern_fuzz: escaped for a regex as `\<`, Rust's syntax read a word start, and
  // `-F -i --no-unicode '<'` matched every line starting with a word.
  for (const bool caseless : {false, true}) {
    for (const bool word : {false, true}) {
      PatternOptions options;
      options.fixed_strings = true;
      options.no_unicode = true;
      options.case_insensitive = caseless;
      options.word = word;
      INFO((caseless ? "-i " : "") << (word ? "-w" : ""));
      CHECK(spans_of("<", "XXXX", options).empty());
      CHECK(spans_of("<", "a < b", options) == SpanPairs{{2, 3}});
      CHECK(spans_of("a>", "a a> b", options) == SpanPairs{{2, 4}});
      CHECK(spans_of("<a>", "x <a>", options) == SpanPairs{{2, 5}});
    }
  }
}
