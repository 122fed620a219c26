// Tests for the regex front end reading ripgrep's dialect (Rust's regex-syntax 0.8) and never
// PCRE2's: every pattern is parsed as Rust parses it first (byte_mode.hpp's translator), so what
// Rust refuses is an error naming the offset; Rust's special word boundaries (\b{start} ...,
// \< \>) hold in Unicode mode; syntax PCRE2 reads otherwise (a++, a{ 2 }, (?x) classes) runs as
// Rust reads it; \A and \z are a line's ends. Expectations marked rg were checked against
// rg 14.1.1; the sweeps compare the UTF-8 path with byte mode, whose callouts model
// regex-automata's look-arounds (byte_mode_test.cpp).
#define CATCH_CONFIG_ENABLE_PAIR_STRINGMAKER  // print match spans as {start, end}
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::testing::compile_ok;
using ctx::testing::SpanPairs;

using ctx::testing::spans_of;

// The error of `pattern` with ripgrep's errors (PatternOptions::rust_syntax_errors).
std::string error_of(const std::string& pattern, PatternOptions options = {}) {
  options.rust_syntax_errors = true;
  auto set = PatternSet::compile({pattern}, options);
  return set.ok() ? std::string("(compiled)") : set.error().detail;
}

// The start of every line of `hay` that find_line reports, from the start.
std::vector<std::size_t> matching_lines(const PatternSet& set, std::string_view hay) {
  PatternSet::Scratch scratch = set.make_scratch();
  std::vector<std::size_t> starts;
  for (std::size_t from = 0; from <= hay.size();) {
    auto line = set.find_line(hay, from, scratch);
    REQUIRE(line.ok());
    if (!line->has_value()) break;
    starts.push_back((*line)->start);
    from = (*line)->end + 1;
  }
  return starts;
}

}  // namespace

TEST_CASE("special word boundaries hold in Unicode mode", "[engine][rust]") {
  // rg: `-c '\b{start}foo'` on "foo foo\nbar\nfoo\n" prints 2.
  CHECK(spans_of("\\b{start}foo", "foo foo") == SpanPairs{{0, 3}, {4, 7}});
  CHECK(spans_of("\\b{start}foo", "xfoo") == SpanPairs{});
  CHECK(spans_of("foo\\b{end}", "foox foo") == SpanPairs{{5, 8}});
  // rg -o: Rust's word characters (é, the combining U+0301) on both sides.
  const std::string words = "\xC3\xA9t\xC3\xA9 caf\xC3\xA9 x\xCC\x81y";
  CHECK(spans_of("\\<\\w", words) == SpanPairs{{0, 2}, {6, 7}, {12, 13}});
  CHECK(spans_of("\\w\\>", words) == SpanPairs{{3, 5}, {9, 11}, {15, 16}});
  CHECK(spans_of("\\b{start}\\w+\\b{end}", words) == SpanPairs{{0, 5}, {6, 11}, {12, 16}});
  // rg -o: the half boundaries need no word character on the other side.
  CHECK(spans_of("\\b{start}[a-z-]+", "-ab cd-") == SpanPairs{{1, 3}, {4, 7}});
  CHECK(spans_of("[a-z-]+\\b{end}", "-ab cd-") == SpanPairs{{0, 3}, {4, 6}});
  CHECK(spans_of("\\b{start-half}[a-z-]+\\b{end-half}", "-ab cd- x") ==
        SpanPairs{{0, 3}, {4, 7}, {8, 9}});
  // \b{2} repeats \b (a digit after the brace); a repeated assertion is one assertion.
  CHECK(spans_of("\\b{2}foo", "foo xfoo") == SpanPairs{{0, 3}});
  CHECK(spans_of("\\b{start}+foo", "foo xfoo") == SpanPairs{{0, 3}});
  CHECK(spans_of("(?i)\\b{start}FOO", "foo xfoo") == SpanPairs{{0, 3}});
}

TEST_CASE("special word boundaries in Unicode mode agree with byte mode next to any bytes",
          "[engine][rust]") {
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
                                          "x \xC3\xA9t\xC3\xA9 -\xC3\xA9- ",
                                          "\xF0\x9F\x98\x80"
                                          "a_1 \xFF\xFE",
                                          "\x80\x80\x80"
                                          "a",
                                          "x\xCC\x81y \xE2\x80\xA8z",
                                          ""};
  // NOLINTEND(bugprone-suspicious-missing-comma)
  const std::vector<std::string> patterns = {
      "\\b{start}",     "\\b{end}", "\\b{start-half}", "\\b{end-half}",
      "\\<\\w",         "\\w\\>",   "\\b{start}\\W",   "\\b{start-half}[^a-z]+\\b{end-half}",
      "\\w+\\b{end}\\W"};
  for (bool after_line_break : {false, true}) {
    for (bool caseless : {false, true}) {
      PatternOptions options;
      options.case_insensitive = caseless;
      for (const std::string& p : patterns) {
        for (const std::string& line : lines) {
          INFO("pattern " << p << " line " << line << " after_line_break " << after_line_break
                          << " -i " << caseless);
          // A trailing (?-u) sends the whole pattern to byte mode, Unicode still on before it.
          CHECK(spans_of(p, line, options, after_line_break) ==
                spans_of(p + "(?-u)", line, options, after_line_break));
        }
      }
    }
  }
}

TEST_CASE("what Rust's regex syntax refuses is an error naming the offset", "[engine][rust]") {
  // Each of these is an error in rg 14; PCRE2 reads every one as something (an escape, a verb,
  // a look-around, a literal brace), which matched or silently matched nothing.
  struct Refused {
    const char* pattern;
    const char* error;
  };
  const std::vector<Refused> refused = {
      {"\\b{stat}foo", "at offset 0: unrecognized special word boundary"},
      {"\\b{start", "at offset 0: special word boundary assertion is unclosed"},
      {"\\B{start}foo", "at offset 2: repetition quantifier expects a valid decimal"},
      {"(?=foo)", "at offset 0: look-around"},
      {"(?<!f)oo", "at offset 0: look-around"},
      {"\\h", "at offset 0: unrecognized escape sequence"},
      {"x\\Qfoo\\E", "at offset 1: unrecognized escape sequence"},
      {"\\e", "unrecognized escape sequence"},
      {"\\Z", "unrecognized escape sequence"},
      {"\\G", "unrecognized escape sequence"},
      {"\\K", "unrecognized escape sequence"},
      {"\\R", "unrecognized escape sequence"},
      {"\\cA", "unrecognized escape sequence"},
      {"(a)\\1", "at offset 3: backreferences are not supported"},
      {"(*FAIL)", "at offset 1: repetition operator missing expression"},
      {"a|*b", "at offset 2: repetition operator missing expression"},
      {"(?i)*", "repetition operator missing expression"},
      {"(?-)foo", "at offset 2: flag negation operator missing flag"},
      {"(?'n'x)", "regex parse error"},
      {"(?>x)", "regex parse error"},
      {"(?#c)x", "regex parse error"},
      {"o{,3}", "repetition quantifier expects a valid decimal"},
      {"o{2, }", "repetition quantifier expects a valid decimal"},
      {"[\\b]", "regex parse error"},
  };
  for (const Refused& r : refused) {
    INFO("pattern " << r.pattern);
    const std::string error = error_of(r.pattern);
    CHECK(error.find(r.error) != std::string::npos);
    CHECK(error.find(std::string("'") + r.pattern + "'") != std::string::npos);
  }
  // Without ripgrep's errors (the agent's search_files) PCRE2 reads what Rust refuses.
  CHECK(spans_of("o(?=o)", "foo") == SpanPairs{{1, 2}});
  // -F and -P keep their own readings.
  PatternOptions fixed;
  fixed.fixed_strings = true;
  CHECK(spans_of("\\h", "a\\hb", fixed) == SpanPairs{{1, 3}});
  PatternOptions pcre2;
  pcre2.pcre2 = true;
  CHECK(spans_of("(?<=f)oo", "foo", pcre2) == SpanPairs{{1, 3}});
}

TEST_CASE("syntax PCRE2 reads otherwise runs as Rust reads it", "[engine][rust]") {
  // rg -o. Rust's a++ is (a+)+ (PCRE2: possessive, never giving one back).
  CHECK(spans_of("o++o", "foo") == SpanPairs{{1, 3}});
  CHECK(spans_of("a{1}{2}", "baaa") == SpanPairs{{1, 3}});
  CHECK(spans_of("o**", "oo") == SpanPairs{{0, 2}});
  // Whitespace around the numbers of a counted repetition (PCRE2: a literal brace).
  CHECK(spans_of("fo{ 1 , 2 }", "foo") == SpanPairs{{0, 3}});
  // (?x) skips whitespace inside classes too (PCRE2 only under (?xx)).
  CHECK(spans_of("(?x)[ o ]+", "fo o") == SpanPairs{{1, 2}, {3, 4}});
  // (?R): CRLF mode, `$` before a CR (PCRE2: recursion).
  CHECK(spans_of("(?R)o$", "fo\r") == SpanPairs{{1, 2}});
}

TEST_CASE("a repetition of a repetition orders its matches as Rust's does", "[engine][rust]") {
  // Every chain of two and three of * *? + +? ? ?? (byte_mode.cpp folds them into one
  // repetition): the spans ripgrep 14.1.1 reports (rg --json) where the order of preference
  // shows: the copies a match ends after when stopping early or late both work (\B after a run
  // of 0's, a choice of 00 or 3 after it), several matches on a line, and a repeated atom that
  // may match the empty string.
  struct Row {
    const char* chain;
    SpanPairs before_non_boundary, before_choice, on_line, empty_atom;
  };
  const std::vector<Row> rows = {
      {"**", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"**?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*+", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"*+?", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"*?*", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*?+", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*??", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*???", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"+*", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+*?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"++", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"++?", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+?*", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+?*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"+?+", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+?+?", {{0, 2}}, {{0, 4}}, {{0, 2}, {2, 4}, {5, 7}}, {{0, 2}}},
      {"+??", {{0, 2}}, {{0, 4}}, {{0, 2}, {2, 4}, {5, 7}}, {{0, 2}}},
      {"+???", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"?*", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"?*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"?+", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"?+?", {{0, 2}}, {{0, 4}}, {{0, 2}, {2, 4}, {5, 7}}, {{0, 2}}},
      {"??*", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"??+", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"???", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"????", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"***", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"***?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"**+", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"**+?", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"**?*", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"**?*?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"**?+", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"**?+?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"**??", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"**???", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*+*", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"*+*?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*++", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"*++?", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"*+?*", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"*+?*?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*+?+", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"*+?+?", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"*+??", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"*+???", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?**", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?**?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?*+", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?*+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?*?*", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?*?*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*?*?+", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?*?+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*?*??", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*?*???", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*?+*", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?+*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?++", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?++?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?+?*", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?+?*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*?+?+", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*?+?+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*?+??", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*?+???", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*??*", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*??*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*??+", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*??+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*???*", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*???*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*???+", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"*???+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*????", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"*?????", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"+**", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+**?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+*+", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+*+?", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+*?*", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+*?*?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+*?+", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+*?+?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+*??", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+*???", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"++*", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"++*?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+++", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+++?", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"++?*", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"++?*?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"++?+", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"++?+?", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"++??", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"++???", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+?**", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+?**?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+?*+", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+?*+?", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+?*?*", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+?*?*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"+?*?+", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+?*?+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"+?*??", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"+?*???", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"+?+*", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+?+*?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+?++", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+?++?", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+?+?*", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+?+?*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"+?+?+", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+?+?+?", {{0, 2}}, {{0, 4}}, {{0, 2}, {2, 4}, {5, 7}}, {{0, 2}}},
      {"+?+??", {{0, 2}}, {{0, 4}}, {{0, 2}, {2, 4}, {5, 7}}, {{0, 2}}},
      {"+?+???", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"+??*", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+??*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"+??+", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"+??+?", {{0, 2}}, {{0, 4}}, {{0, 2}, {2, 4}, {5, 7}}, {{0, 2}}},
      {"+???*", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+???*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"+???+", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"+???+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"+????", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"+?????", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"?**", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"?**?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"?*+", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"?*+?", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"?*?*", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"?*?*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"?*?+", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"?*?+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"?*??", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"?*???", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"?+*", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"?+*?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"?++", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"?++?", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"?+?*", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"?+?*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"?+?+", {{0, 3}}, {{0, 5}}, {{0, 2}, {2, 5}, {5, 9}}, {{0, 3}}},
      {"?+?+?", {{0, 2}}, {{0, 4}}, {{0, 2}, {2, 4}, {5, 7}}, {{0, 2}}},
      {"?+??", {{0, 2}}, {{0, 4}}, {{0, 2}, {2, 4}, {5, 7}}, {{0, 2}}},
      {"?+???", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"??**", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??**?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??*+", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??*+?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??*?*", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??*?*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"??*?+", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??*?+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"??*??", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"??*???", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"??+*", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??+*?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??++", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??++?", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??+?*", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??+?*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"??+?+", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"??+?+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"??+??", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"??+???", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"???*", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"???*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"???+", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"???+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"????*", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"????*?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"????+", {{0, 3}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 3}}},
      {"????+?", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"?????", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
      {"??????", {{0, 2}}, {{0, 3}}, {{0, 1}, {2, 3}, {5, 6}}, {{0, 2}}},
  };
  for (const Row& row : rows) {
    const std::string chain = row.chain;
    INFO("chain " << chain);
    CHECK(spans_of("-0" + chain + "\\B", "-000") == row.before_non_boundary);
    CHECK(spans_of("30" + chain + "(?:00|3)", "30003") == row.before_choice);
    CHECK(spans_of("[bcd](?:0|00)" + chain, "b0c00d000e") == row.on_line);
    CHECK(spans_of("-(?:0|)" + chain + "\\B", "-000") == row.empty_atom);
  }
}

TEST_CASE("\\A and \\z are a line's ends in line mode", "[engine][rust]") {
  // rg: `-c '\A'` and `-c '\z'` count every line; `-n '\Abar'` prints 2:bar.
  const std::string hay = "foo\nbar\nfoo bar\n";
  CHECK(matching_lines(compile_ok({"\\Abar"}), hay) == std::vector<std::size_t>{4});
  CHECK(matching_lines(compile_ok({"bar\\z"}), hay) == std::vector<std::size_t>{4, 8});
  CHECK(matching_lines(compile_ok({"\\A"}), hay) == std::vector<std::size_t>{0, 4, 8});
  CHECK(matching_lines(compile_ok({"\\z"}), hay) == std::vector<std::size_t>{0, 4, 8});
  PatternOptions caseless;
  caseless.case_insensitive = true;
  CHECK(matching_lines(compile_ok({"\\AB\\w+"}, caseless), hay) == std::vector<std::size_t>{4});
}

TEST_CASE("U+017F and U+212A escapes fold to ASCII through the prefilters", "[engine][rust]") {
  // rg -c: (?i)\x{212A} matches k, K and itself; -i [ſ] matches s, S and ſ.
  const std::string hay = "k\nK\n" + std::string(ctx::testing::kKelvin) + "\ns\nS\n" +
                          std::string(ctx::testing::kLongS) + "\nx\n";
  PatternOptions caseless;
  caseless.case_insensitive = true;
  CHECK(matching_lines(compile_ok({"(?i)\\x{212A}"}), hay) == std::vector<std::size_t>{0, 2, 4});
  CHECK(matching_lines(compile_ok({"(?i)[\\x{212A}]"}), hay) == std::vector<std::size_t>{0, 2, 4});
  CHECK(matching_lines(compile_ok({"(?i)\xC5\xBF"}), hay) == std::vector<std::size_t>{8, 10, 12});
  CHECK(matching_lines(compile_ok({"\\x{17f}"}, caseless), hay) ==
        std::vector<std::size_t>{8, 10, 12});
  CHECK(matching_lines(compile_ok({"[\xC5\xBF]"}, caseless), hay) ==
        std::vector<std::size_t>{8, 10, 12});
  CHECK(matching_lines(compile_ok({"x*\xC5\xBF"}, caseless), hay) ==
        std::vector<std::size_t>{8, 10, 12});
  CHECK(matching_lines(compile_ok({"\\u212A"}, caseless), hay) ==
        std::vector<std::size_t>{0, 2, 4});
}

TEST_CASE("smart case reads \\pL's letter as a class name, not an uppercase literal",
          "[engine][rust]") {
  // rg 14 -S: `\pL+` has no uppercase literal, so `-e '\Wfoo' -e '\pL+'` is case-insensitive.
  PatternOptions smart;
  smart.smart_case = true;
  const PatternSet set = compile_ok({"\\Wfoo", "\\pL+"}, smart);
  PatternSet::Scratch scratch = set.make_scratch();
  CHECK(ctx::testing::span_pairs(set, "\tFoo", scratch) == SpanPairs{{0, 4}});
  CHECK(matching_lines(compile_ok({"\\pLfoo"}, smart), "xFOO\n") == std::vector<std::size_t>{0});
  CHECK(matching_lines(compile_ok({"\\pLFoo"}, smart), "xFOO\n").empty());
}

TEST_CASE("a negated class around a large Unicode property or an ASCII-only class is exact",
          "[engine][rust]") {
  // Hyperscan's stand-ins widen (a superset); a class that negates one became a subset, and a
  // byte-mode rewrite widened for non-ASCII was taken for the regex itself. Each row: rg 14.1.1.
  struct Row {
    const char* pattern;
    const char* line;
    bool matches;
  };
  const Row rows[] = {
      {"[^\\pL]x",
       "\xE2\x82\xAC"
       "x",
       true},  // "€x"
      {"a[^\\pL]", "a\xE2\x82\xAC", true},
      {"a[^\\pL]", "a\xC3\xA9", false},  // "aé": a letter
      {"[^\\P{L}]", "\xC3\xA9", true},   // "é" is a letter
      {"[^\\P{Lu}]", "\xC3\x89", true},  // "É"
      {"[^\\P{Lu}]", "\xC3\xA9", false},
      {"x|[^\\P{L}]", "\xCE\xB1", true},  // "α"
      {"a[^\\p{M}]", "a\xE2\x82\xAC", true},
      {"ab|a[^\\pL]", "a\xE2\x82\xAC", true},
      {"(?:[^a[:^alpha:]])+", "\xC3\xA9", false},
      {"(?:[^a[:^alpha:]])+", "b", true},
      {"(?:[^a[:^alpha:]])+", "a", false},
      {"[^a[:^alpha:]]{2}", "\xCE\xB1", false},
  };
  for (const Row& row : rows) {
    CAPTURE(row.pattern, row.line);
    // The line search (Hyperscan first), not only the spans (PCRE2).
    const PatternSet set = compile_ok({row.pattern}, {});
    PatternSet::Scratch scratch = set.make_scratch();
    const std::string hay = std::string(row.line) + "\n";
    auto found = set.find_line(hay, 0, scratch);
    REQUIRE(found.ok());
    CHECK(found->has_value() == row.matches);
  }
  // Under -i the byte rewrite widens [x-z] for non-ASCII letters: PCRE2 must confirm "abcée".
  PatternOptions caseless;
  caseless.case_insensitive = true;
  const PatternSet set = compile_ok({"(?:abc|cde)+[x-z]?e"}, caseless);
  PatternSet::Scratch scratch = set.make_scratch();
  for (const auto& [line, matches] : {std::pair<std::string, bool>{"abc\xC3\xA9"
                                                                   "e\n",
                                                                   false},
                                      std::pair<std::string, bool>{"abcYe\n", true}}) {
    CAPTURE(line);
    auto found = set.find_line(line, 0, scratch);
    REQUIRE(found.ok());
    CHECK(found->has_value() == matches);
  }
}
