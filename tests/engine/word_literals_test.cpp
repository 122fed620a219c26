// Tests for -w with plain literals, which Hyperscan's literal API finds and C++ checks against
// ripgrep 14's half word boundaries (Rust's \b{start-half} and \b{end-half}, Unicode word
// characters, invalid UTF-8 never a boundary). The reference is the same set searched by PCRE2
// alone (pcre2_only), whose -w regex models the same boundaries with look-arounds and a callout.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "line_starts.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::MatchSpan;
using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::testing::compile_ok;
using ctx::testing::kKelvin;
using ctx::testing::kLongS;
using ctx::testing::line_starts;

using Pairs = ctx::testing::SpanPairs;

Pairs spans(const PatternSet& set, std::string_view line, bool after_line_break = false) {
  PatternSet::Scratch scratch = set.make_scratch();
  return ctx::testing::span_pairs(set, line, scratch, after_line_break);
}

PatternOptions word_options(bool caseless) {
  PatternOptions o;
  o.word = true;
  o.case_insensitive = caseless;
  return o;
}

}  // namespace

TEST_CASE("-w literals match only between non-word characters, Unicode ones included",
          "[engine][word_literals]") {
  const PatternSet set = compile_ok({"foo", "a-b", "-x"}, word_options(false));
  CHECK(spans(set, "foo foo_ xfoo foo.") == Pairs{{0, 3}, {14, 17}});
  // Greek alpha (U+03B1) and a combining acute (U+0301) are word characters; NBSP (U+00A0) and
  // the euro sign (U+20AC) are not.
  CHECK(spans(set,
              "\xCE\xB1"
              "foo foo\xCC\x81 \xC2\xA0"
              "foo\xE2\x82\xAC")
            .size() == 1);
  CHECK(spans(set,
              "\xC2\xA0"
              "foo\xE2\x82\xAC") == Pairs{{2, 5}});
  // Punctuation at a literal's edge: a boundary needs a non-word character beside it, not a
  // word/non-word change (rg 14's -w), so "-x" matches after a space but not after "a".
  CHECK(spans(set, " -x a-x") == Pairs{{1, 3}});
  CHECK(spans(set, "a-b-b") == Pairs{{0, 3}});
  // Invalid UTF-8 next to a literal is never a boundary.
  CHECK(spans(set,
              "\xFF"
              "foo foo\x80") == Pairs{});
  CHECK(line_starts(set,
                    "\xFF"
                    "foo\nfoo\x80\nfoo\n") == std::vector<std::size_t>{10});
}

TEST_CASE("-w literals take the first pattern in order whose boundaries hold at the leftmost start",
          "[engine][word_literals]") {
  // "foo" comes first but is glued to "bar": the regex's alternation goes on to "foobar".
  CHECK(spans(compile_ok({"foo", "foobar"}, word_options(false)), "foobar foo") ==
        Pairs{{0, 6}, {7, 10}});
  // Both hold: pattern order decides, not length.
  CHECK(spans(compile_ok({"a", "a-b"}, word_options(false)), "a-b") == Pairs{{0, 1}});
  CHECK(spans(compile_ok({"a-b", "a"}, word_options(false)), "a-b") == Pairs{{0, 3}});
  // The look-behind sees the line before the last match's end: ".b" right after "a." follows
  // its '.'.
  CHECK(spans(compile_ok({"a.", ".b"}, word_options(false)), "a..b") == Pairs{{0, 2}, {2, 4}});
}

TEST_CASE("-w -i literals match the U+212A and U+017F folds of k and s within word boundaries",
          "[engine][word_literals]") {
  const PatternSet set = compile_ok({"kiss", "ks"}, word_options(true));
  const std::string line = std::string(kKelvin) + "i" + std::string(kLongS) + "S " +
                           std::string(kKelvin) + "s x" + std::string(kKelvin) + "s";
  CHECK(spans(set, line) == Pairs{{0, 7}, {8, 12}});
  CHECK(line_starts(set, "xks\n" + line + "\n") == std::vector<std::size_t>{4});
}

TEST_CASE("-w literal lines starting with stray continuation bytes follow the line break rule",
          "[engine][word_literals]") {
  // Rust's decode_last looks back at most 4 bytes: the line feed before "\x80\x80" is the
  // character before "foo" only when the find_spans caller says a line break precedes.
  const PatternSet set = compile_ok({"foo"}, word_options(false));
  CHECK(spans(set,
              "\x80\x80"
              "foo",
              true) == Pairs{{2, 5}});
  CHECK(spans(set,
              "\x80\x80"
              "foo",
              false) == Pairs{});
  CHECK(spans(set,
              "\x80\x80\x80\x80"
              "foo",
              true) == Pairs{});
  // A valid character followed by stray continuation bytes: decode_last reads the character.
  CHECK(spans(set,
              "\xC2\xA0\x80"
              "foo") == Pairs{{3, 6}});
  CHECK(spans(set,
              "\xCE\xB1\x80"
              "foo") == Pairs{});
}

TEST_CASE("-w literal sets agree with PCRE2's -w regex on random lines",
          "[engine][word_literals]") {
  std::mt19937 rng(20240607);
  auto below = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  // Pieces that make up lines: word and non-word characters of both kinds, invalid bytes.
  const std::vector<std::string> pieces = {
      "a",
      "b",
      "k",
      "s",
      "K",
      "S",
      "_",
      "1",
      "-",
      " ",
      ".",
      "\t",
      std::string(kKelvin),
      std::string(kLongS),
      "\xCE\xB1",      // Greek alpha (word)
      "\xCC\x81",      // combining acute (word: a mark)
      "\xC2\xA0",      // NBSP (not word)
      "\xE2\x82\xAC",  // euro sign (not word)
      "\xE2\x80\x8D",  // ZERO WIDTH JOINER (word: Join_Control)
      "\x80",
      "\xFF",
      "\xC3",
      "\xE2\x82"};  // invalid
  const std::vector<std::string> alphabet = {"a", "b", "k", "s", "-", "_", "1", "K"};
  std::size_t compared = 0, matched = 0;
  for (int round = 0; round < 40; ++round) {
    std::vector<std::string> patterns;
    const std::size_t count = 1 + below(12);
    for (std::size_t i = 0; i < count; ++i) {
      std::string p;
      const std::size_t length = 1 + below(3);
      for (std::size_t k = 0; k < length; ++k) p += alphabet[below(alphabet.size())];
      patterns.push_back(p);
    }
    for (bool caseless : {false, true}) {
      PatternOptions options = word_options(caseless);
      const PatternSet fast = compile_ok(patterns, options);
      options.pcre2_only = true;
      const PatternSet reference = compile_ok(patterns, options);
      std::string hay;
      for (int l = 0; l < 30; ++l) {
        std::string line;
        const std::size_t n = below(12);
        for (std::size_t k = 0; k < n; ++k) line += pieces[below(pieces.size())];
        INFO("patterns " << patterns.size() << " first " << patterns[0] << " caseless " << caseless
                         << " line '" << line << "'");
        for (bool after : {false, true}) {
          const Pairs want = spans(reference, line, after);
          CHECK(spans(fast, line, after) == want);
          if (!want.empty()) ++matched;
          ++compared;
        }
        hay += line + "\n";
      }
      CHECK(line_starts(fast, hay) == line_starts(reference, hay));
    }
  }
  CHECK(compared == std::size_t{40 * 2 * 30 * 2});
  CHECK(matched > 200);  // the lines exercise the sets
}
