// Tests for multiline mode (-U): ripgrep's error for a literal line feed without -U, which patterns
// put a set in multiline mode (ripgrep's "can match a line feed" test), find_multiline's search
// (a property test: the Hyperscan prefilter over whole buffers never hides a match that PCRE2
// alone finds), find_spans_in, the searcher's blocks (matches on touching lines merge into one
// reported block), and grapheme_prefix for --max-columns-preview.
#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "ctx/engine/searcher.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::MatchSpan;
using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;

PatternOptions multiline(bool dotall = false) {
  PatternOptions o;
  o.multiline = true;
  o.multiline_dotall = dotall;
  return o;
}

using ctx::testing::compile_ok;

// Every match find_multiline reports over `hay`, iterating as ripgrep's multiline searcher does
// (the next search starts at the end of a match, one byte later after an empty one).
std::vector<std::pair<std::size_t, std::size_t>> all_matches(const PatternSet& set,
                                                             std::string_view hay) {
  auto scratch = set.make_scratch();
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t pos = 0;
  while (pos < hay.size()) {
    auto m = set.find_multiline(hay, pos, scratch);
    REQUIRE(m.ok());
    if (!*m) break;
    out.emplace_back((*m)->start, (*m)->end);
    pos = (*m)->end == (*m)->start ? (*m)->end + 1 : (*m)->end;
  }
  return out;
}

using Recorder = ctx::testing::LineRecorder;

std::vector<std::string> search(const PatternSet& set, std::string_view hay,
                                ctx::engine::SearchOptions options = {}) {
  options.line_numbers = true;
  auto scratch = set.make_scratch();
  Recorder r;
  auto n = ctx::engine::search_buffer(set, scratch, options, hay, r);
  REQUIRE(n.ok());
  return r.seen;
}

}  // namespace

TEST_CASE("a literal line feed without -U is ripgrep's error", "[engine][multiline]") {
  const std::string want =
      "the literal \"\\n\" is not allowed in a regex\n\nConsider enabling multiline mode with the "
      "--multiline flag (or -U for short).\nWhen multiline mode is enabled, new line characters "
      "can be matched.";
  for (const char* p : {"foo\\nbar", "\\x0a", "\\x0A", "\\x{A}", "[\\n]", "a|b\\n"}) {
    INFO(p);
    auto set = PatternSet::compile({p}, {});
    REQUIRE_FALSE(set.ok());
    CHECK(set.error().detail == want);
  }
  // Classes that merely include a line feed, and \s, are fine (no line holds one).
  for (const char* p : {"[\\na]", "\\s", "[^x]", "\\\\n"}) {
    INFO(p);
    CHECK(PatternSet::compile({p}, {}).ok());
  }
  PatternOptions pcre2;
  pcre2.pcre2 = true;
  CHECK(PatternSet::compile({"a\\nb"}, pcre2).ok());  // rg -P allows it too
  CHECK(PatternSet::compile({"a\\nb"}, multiline()).ok());
}

TEST_CASE("-U is multiline mode only when a pattern can match a line feed", "[engine][multiline]") {
  struct Case {
    const char* pattern;
    bool dotall;
    bool expect;
  };
  for (const Case& c : std::vector<Case>{{"foo\\nbar", false, true},
                                         {"foo", false, false},
                                         {"fo.o", false, false},
                                         {"fo.o", true, true},
                                         {"(?s)a.b", false, true},
                                         {"\\s+", false, true},
                                         {"[^a]", false, true},
                                         {"[a-z]+", false, false},
                                         {"[\\x00-\\x7f]", false, true},
                                         {"\\W", false, true},
                                         {"\\w+", false, false},
                                         {"\\p{Greek}", false, false},
                                         {"^foo", false, true},  // anchors count, as in rg
                                         {"foo$", false, true},
                                         {"\\bfoo\\b", false, false}}) {
    INFO(c.pattern << " dotall=" << c.dotall);
    CHECK(compile_ok({c.pattern}, multiline(c.dotall)).multiline() == c.expect);
    auto plain = PatternSet::compile({c.pattern}, {});  // never without -U (or an error)
    CHECK((!plain.ok() || !plain->multiline()));
  }
  PatternOptions x = multiline();
  x.line = true;
  CHECK(compile_ok({"foo"}, x).multiline());  // -x adds anchors
  PatternOptions p = multiline();
  p.pcre2 = true;
  CHECK(compile_ok({"foo"}, p).multiline());  // rg's PCRE2 matcher reports no such bytes
}

TEST_CASE("find_multiline finds matches across lines, searching from a position as a new start",
          "[engine][multiline]") {
  const std::string hay = "foo\nbar baz\nxfoo\nbarx\n";
  auto set = compile_ok({"foo\\nbar"}, multiline());
  REQUIRE(set.multiline());
  using P = std::pair<std::size_t, std::size_t>;
  CHECK(all_matches(set, hay) == std::vector<P>{{0, 7}, {13, 20}});
  // As ripgrep, the rest of the buffer is a haystack of its own: ^ matches where it starts.
  auto anchored = compile_ok({"^o"}, multiline());
  auto scratch = anchored.make_scratch();
  auto m = anchored.find_multiline(hay, 2, scratch);
  REQUIRE(m.ok());
  REQUIRE(m->has_value());
  CHECK((*m)->start == 2);
  // '.' stops at a line feed unless --multiline-dotall.
  CHECK(all_matches(compile_ok({"foo.bar"}, multiline()), hay).empty());
  CHECK(all_matches(compile_ok({"foo.bar"}, multiline(true)), hay) ==
        std::vector<P>{{0, 7}, {13, 20}});
}

TEST_CASE("find_spans_in gives the matches starting in a block, relative to it",
          "[engine][multiline]") {
  const std::string hay = "ab\ncd\nab\n";
  auto set = compile_ok({"b\\nc|a"}, multiline());
  auto scratch = set.make_scratch();
  std::vector<MatchSpan> spans;
  REQUIRE(set.find_spans_in(hay, 0, 6, scratch, spans).ok());
  REQUIRE(spans.size() == 2);
  CHECK((spans[0].start == 0 && spans[0].end == 1));
  CHECK((spans[1].start == 1 && spans[1].end == 4));
  spans.clear();
  std::vector<std::string> expansions;
  const std::string replacement = "<$0>";
  REQUIRE(set.find_spans_in(hay, 6, 9, scratch, spans, &replacement, &expansions).ok());
  REQUIRE(expansions.size() == 1);
  CHECK(expansions[0] == "<a>");
}

TEST_CASE("the searcher reports touching multiline matches as one block", "[engine][multiline]") {
  auto set = compile_ok({"o\\nb"}, multiline());
  const std::string hay = "foo\nbar\nqux\nfoo\nboo\nbob\nx\n";
  // Lines 1-2 match; lines 4-5 and 5-6 touch (line 5), so 4-6 is one block.
  CHECK(search(set, hay) == std::vector<std::string>{"1@0:foo\nbar", "4@12:foo\nboo\nbob"});
  ctx::engine::SearchOptions inverted;
  inverted.invert = true;
  // As ripgrep, -v moves past each block and searches on from there, so the match that ends on
  // line 6 (started before) is not seen again: line 6 is reported (rg 14 prints it too).
  CHECK(search(set, hay, inverted) == std::vector<std::string>{"3@8:qux", "6@20:bob", "7@24:x"});
  ctx::engine::SearchOptions one;
  one.max_count = 1;
  CHECK(search(set, hay, one) == std::vector<std::string>{"1@0:foo\nbar"});
  ctx::engine::SearchOptions context;
  context.after = 1;
  CHECK(search(set, hay, context) ==
        std::vector<std::string>{"1@0:foo\nbar", "3-qux", "4@12:foo\nboo\nbob", "7-x"});
  // A match right after the last line feed is no line: nothing more is reported.
  auto tail = compile_ok({"\\n"}, multiline());
  CHECK(search(tail, "a\n") == std::vector<std::string>{"1@0:a"});
}

TEST_CASE("the multiline prefilter never hides a match PCRE2 alone finds", "[engine][multiline]") {
  const std::vector<std::string> patterns = {
      "foo\\nbar", "o\\n",        "\\n\\n", "foo\\s+bar",  "[a-z]\\n[a-z]", "a.*\\n.*b",
      "\\nfoo",    "(?s)foo.bar", "x\\n|y", "\\w+\\n\\w+", "^\\s*$\\n",     "[^x]{3}k",
      "(?i)K\\nS", "}\\n",        "\\n$",   "α\\nβ",       "[α-ω]\\n"};
  const std::vector<std::string> pieces = {
      "foo", "bar", "\n",           "\n", " ", "x", "y",  "a",    "b",   "K",
      "s",   "ſ",   "\xE2\x84\xAA", "α",  "β", "}", "\t", "\r\n", "\xff"};
  std::mt19937 rng(1234);
  for (int round = 0; round < 400; ++round) {
    std::vector<std::string> chosen;
    const std::size_t n = 1 + rng() % 3;
    for (std::size_t i = 0; i < n; ++i) chosen.push_back(patterns[rng() % patterns.size()]);
    PatternOptions fast = multiline(rng() % 4 == 0);
    fast.case_insensitive = rng() % 3 == 0;
    PatternOptions alone = fast;
    alone.pcre2_only = true;  // no Hyperscan prefilter
    std::string hay;
    const std::size_t len = rng() % 24;
    for (std::size_t i = 0; i < len; ++i) hay += pieces[rng() % pieces.size()];
    auto a = compile_ok(chosen, fast);
    auto b = compile_ok(chosen, alone);
    INFO("patterns " << chosen.size() << " first " << chosen[0] << " hay '" << hay << "'");
    if (!a.multiline()) continue;
    CHECK(all_matches(a, hay) == all_matches(b, hay));
  }
}

TEST_CASE("multiline mode tries matches at the literals every match starts with, window by window",
          "[engine][multiline]") {
  // Sets whose every match starts with a literal of 3+ bytes are searched from the literals'
  // occurrences, 1 MiB of the buffer at a time: the same matches as PCRE2 alone, also where an
  // occurrence or a match crosses a window's end.
  const std::vector<std::vector<std::string>> sets = {
      {"struct\\s+\\w+\\s*\\{\\n"},
      {"foo\\nbar", "struct\\s+x"},
      {"hello\\s+world|help\\n+me"},
      {"(?i)kelvin\\s+\\w"},
      {"abc[^x]*?\\nz"},
  };
  const std::vector<std::string> pieces = {"struct ", "struct", " x {",   "{\n",
                                           "foo",     "\nbar",  "hello",  " \n world",
                                           "help",    "\n\nme", "KELVIN", "\xE2\x84\xAA\x65lvin",
                                           "kelvin ", "abc",    "\nz",    "x",
                                           " ",       "\n",     "\xff",   "y"};
  constexpr std::size_t kWindow = std::size_t{1} << 20;
  std::mt19937 rng(99);
  std::string hay;
  while (hay.size() < 2 * kWindow + 5000) {
    // Near each window's end: an occurrence across it, a match across it.
    if (hay.size() + 3 >= kWindow && hay.size() < kWindow) hay += "xxstruct a\n{\n";
    if (hay.size() + 5 >= 2 * kWindow && hay.size() < 2 * kWindow) hay += "foo\nbar";
    hay += pieces[rng() % pieces.size()];
  }
  for (const auto& set : sets) {
    for (bool caseless : {false, true}) {
      PatternOptions fast = multiline();
      fast.case_insensitive = caseless;
      PatternOptions alone = fast;
      alone.pcre2_only = true;
      auto a = compile_ok(set, fast);
      auto b = compile_ok(set, alone);
      INFO(set.front() << (caseless ? " -i" : ""));
      REQUIRE(a.multiline());
      const auto found = all_matches(a, hay);
      CHECK(found.size() > 10);
      CHECK(found == all_matches(b, hay));
    }
  }
}

TEST_CASE("grapheme_prefix counts extended grapheme clusters", "[engine][multiline]") {
  using ctx::engine::grapheme_prefix;
  CHECK(grapheme_prefix("abcdef", 3) == 3);
  CHECK(grapheme_prefix("ab", 5) == 2);
  CHECK(grapheme_prefix("e\xCC\x81x", 1) == 3);        // e + combining acute is one
  CHECK(grapheme_prefix("\r\nx", 1) == 2);             // CRLF is one
  CHECK(grapheme_prefix("\xCE\xB1\xCE\xB2", 1) == 2);  // α
  CHECK(grapheme_prefix("\xE2\x82.x", 1) == 2);        // a truncated sequence is one (U+FFFD)
  CHECK(grapheme_prefix("\xFF\xFFx", 2) == 2);         // each stray byte is one
  CHECK(grapheme_prefix("", 3) == 0);
  // UAX #29 as ripgrep 14.1.1's bstr reads it (PCRE2 10.42's \X joined the first three):
  // pictographs join only through ZWJ, regional indicators pair, a modifier extends.
  const std::string duck = "\xF0\x9F\xA6\x86";  // U+1F986
  CHECK(grapheme_prefix(duck + duck + duck, 2) == 8);
  CHECK(grapheme_prefix("\xC2\xA9\xC2\xA9\xC2\xA9", 1) == 2);  // (c) is Extended_Pictographic
  const std::string de = "\xF0\x9F\x87\xA9\xF0\x9F\x87\xAA";   // two regional indicators
  CHECK(grapheme_prefix(de + de + "\xF0\x9F\x87\xA9x", 2) == 16);
  CHECK(grapheme_prefix(de + de + "\xF0\x9F\x87\xA9x", 3) == 20);
  const std::string zwj = "\xE2\x80\x8D";
  CHECK(grapheme_prefix("\xF0\x9F\x91\xA8" + zwj + "\xF0\x9F\x91\xA9x", 1) == 11);
  CHECK(grapheme_prefix("\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBDx", 1) == 8);      // thumbs up + skin tone
  CHECK(grapheme_prefix("\xE1\x84\x80\xEA\xB0\x80\xE1\x86\xA8x", 1) == 9);  // L LV T: one syllable
}
