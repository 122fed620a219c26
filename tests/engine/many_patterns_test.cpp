// Tests for PatternSet with many patterns: thousands of -f identifiers and regexes, more than
// PCRE2 compiles into one regex (64 KiB of compiled code with Debian's LINK_SIZE 2), so the
// combined regex is cut into chunks searched leftmost-first; and plain literals that Hyperscan
// decides alone (exact spans, -x whole lines, -i pieces without k/s verified against U+212A and
// U+017F).
//
// The reference for a line is a small set: the patterns that can match somewhere in the line
// (literals found by substring search, each regex asked alone), in their original order, compiled
// with PCRE2 alone. Patterns that cannot match in a line do not change its leftmost-first
// matches, so the big set must report exactly the small set's spans and lines.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "line_starts.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::LineSpan;
using ctx::engine::MatchSpan;
using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;

using ctx::testing::kKelvin;
using ctx::testing::kLongS;

using ctx::testing::compile_ok;
using ctx::testing::line_starts;
using ctx::testing::span_pairs;

// `text` lowercased (ASCII) with U+212A as k and U+017F as s: a caseless literal occurs in a line
// only if its lowercase form occurs in this.
std::string folded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i, kKelvin.size()) == kKelvin) {
      out += 'k';
      i += kKelvin.size() - 1;
    } else if (text.substr(i, kLongS.size()) == kLongS) {
      out += 's';
      i += kLongS.size() - 1;
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    }
  }
  return out;
}

struct Corpus {
  std::vector<std::string> patterns;
  std::vector<bool> regex;  // patterns[i] is a regex (else a literal)
  std::string hay;
};

// 10,000 patterns: identifiers (with k and s, some prefixes of others) and every 40th a regex
// with capture groups; a haystack whose lines hold identifiers, their case and fold variants,
// regex instances, words around them and lines that are exactly an identifier.
Corpus make_corpus(std::size_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto below = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  const std::string letters = "abcdeKkSsxyz_";
  Corpus c;
  for (std::size_t i = 0; i < count; ++i) {
    std::string id;
    const std::size_t length = 3 + below(6);
    for (std::size_t k = 0; k < length; ++k) id += letters[below(letters.size())];
    id += std::to_string(i % 997);
    if (i % 40 == 7) {
      c.patterns.push_back("(" + id.substr(0, 3) + ")[0-9]+(x?)");
      c.regex.push_back(true);
    } else if (i % 40 == 23) {
      c.patterns.push_back("\\b" + id + "\\w*");
      c.regex.push_back(true);
    } else if (i % 97 == 5 && i > 0 && !c.regex[i - 1]) {  // a prefix of the one before
      c.patterns.push_back(c.patterns[i - 1].substr(0, 2));
      c.regex.push_back(false);
    } else {
      c.patterns.push_back(id);
      c.regex.push_back(false);
    }
  }
  for (int line = 0; line < 60; ++line) {
    if (line % 8 == 0) {  // a whole line that is a literal (for -x)
      std::size_t i = below(count);
      while (c.regex[i]) i = below(count);
      c.hay += c.patterns[i] + "\n";
      continue;
    }
    const std::size_t words = below(6);
    for (std::size_t w = 0; w < words; ++w) {
      std::string word;
      const std::size_t i = below(count);
      if (c.regex[i]) {
        word =
            c.patterns[i].substr(c.patterns[i].size() > 3 && c.patterns[i][0] == '(' ? 1 : 2, 3) +
            std::to_string(below(1000));
      } else {
        word = c.patterns[i];
      }
      for (char& ch : word) {
        if (below(6) == 0) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      }
      std::string out = ctx::testing::with_fold_variants(word, below);
      if (below(4) == 0) out = "q" + out;  // glued to a word character (for -w)
      if (below(4) == 0) out += "Z";
      c.hay += out + (below(3) == 0 ? "." : " ");
    }
    c.hay += "\n";
  }
  return c;
}

// The patterns of `c` that may match in `line` under `options`, in order. `lower`: the patterns
// folded().
std::vector<std::string> candidates(const Corpus& c, const std::vector<std::string>& lower,
                                    const std::vector<PatternSet>& alone, std::string_view line,
                                    const PatternOptions& options) {
  const bool caseless = options.case_insensitive;
  const std::string text = caseless ? folded(line) : std::string(line);
  std::vector<std::string> out;
  std::size_t regex_index = 0;
  for (std::size_t i = 0; i < c.patterns.size(); ++i) {
    const std::string& p = c.patterns[i];
    if (c.regex[i] && !options.fixed_strings) {
      PatternSet::Scratch scratch = alone[regex_index].make_scratch();
      if (!span_pairs(alone[regex_index], line, scratch).empty()) out.push_back(p);
      ++regex_index;
    } else if (text.find(caseless ? lower[i] : p) != std::string::npos) {
      out.push_back(p);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("10,000 patterns find the lines and spans that the patterns able to match alone find",
          "[engine][pattern][many]") {
  const Corpus c = make_corpus(10000, 11);
  std::vector<std::string> lower;
  for (const std::string& p : c.patterns) lower.push_back(folded(p));
  struct Variant {
    const char* name;
    PatternOptions options;
  };
  std::vector<Variant> variants;
  variants.push_back({"plain", {}});
  PatternOptions o;
  o.case_insensitive = true;
  variants.push_back({"-i", o});
  o = {};
  o.word = true;
  o.case_insensitive = true;
  variants.push_back({"-w -i", o});
  o = {};
  o.line = true;
  variants.push_back({"-x", o});  // Hyperscan unanchored, PCRE2 confirms
  o = {};
  o.fixed_strings = true;
  variants.push_back({"-F", o});
  o.case_insensitive = true;
  o.line = true;
  variants.push_back({"-F -i -x", o});  // literals alone: Hyperscan's pieces and whole lines
  o = {};
  o.pcre2_only = true;  // PCRE2 scans whole buffers: the chunks' leftmost search over buffers
  o.word = true;
  variants.push_back({"pcre2_only -w", o});
  std::size_t matched_lines = 0;
  for (const Variant& v : variants) {
    INFO("variant " << v.name);
    PatternSet big = compile_ok(c.patterns, v.options);
    std::vector<PatternSet> alone;
    if (!v.options.fixed_strings) {
      PatternOptions single = v.options;
      single.pcre2_only = true;
      for (std::size_t i = 0; i < c.patterns.size(); ++i) {
        if (c.regex[i]) alone.push_back(compile_ok({c.patterns[i]}, single));
      }
    }
    PatternSet::Scratch scratch = big.make_scratch();
    std::vector<std::size_t> expected_lines;
    std::size_t start = 0;
    while (start < c.hay.size()) {
      const std::size_t end = c.hay.find('\n', start);
      const std::string_view line = std::string_view(c.hay).substr(start, end - start);
      INFO("line " << start << ": " << line);
      PatternOptions reference_options = v.options;
      reference_options.pcre2_only = true;
      const std::vector<std::string> subset = candidates(c, lower, alone, line, v.options);
      std::vector<std::pair<std::size_t, std::size_t>> expected;
      if (!subset.empty()) {
        PatternSet reference = compile_ok(subset, reference_options);
        PatternSet::Scratch reference_scratch = reference.make_scratch();
        expected = span_pairs(reference, line, reference_scratch);
      }
      CHECK(span_pairs(big, line, scratch) == expected);
      if (!expected.empty()) expected_lines.push_back(start);
      start = end + 1;
    }
    CHECK(line_starts(big, c.hay) == expected_lines);
    matched_lines += expected_lines.size();
  }
  CHECK(matched_lines > 100);  // the haystack exercises the sets
}

TEST_CASE("replacements number capture groups over all patterns when they are in chunks",
          "[engine][pattern][many]") {
  // 6,000 patterns of two groups each: pattern i holds groups 2i+1 and 2i+2, whichever chunk it
  // is in; names are looked up in the chunk that matched.
  std::vector<std::string> patterns;
  for (int i = 0; i < 6000; ++i) {
    patterns.push_back("(w" + std::to_string(i) + "a)(b?)");
  }
  patterns.push_back("(?P<tail>zz[0-9]+)");
  PatternOptions pcre2_only;  // no Hyperscan: a quick compile (each_match is the same)
  pcre2_only.pcre2_only = true;
  PatternSet set = compile_ok(patterns, pcre2_only);
  PatternSet::Scratch scratch = set.make_scratch();
  std::vector<MatchSpan> spans;
  std::vector<std::string> expansions;
  const std::string line = "w5998ab w12a zz77";
  REQUIRE(
      set.expand_matches(line, "<$11997|$11998|$25|${tail}|$0>", scratch, spans, expansions).ok());
  REQUIRE(expansions.size() == 3);
  CHECK(expansions[0] == "<w5998a|b|||w5998ab>");
  CHECK(expansions[1] == "<||w12a||w12a>");  // w12a is pattern 12: groups 25 and 26
  CHECK(expansions[2] == "<|||zz77|zz77>");
  expansions.clear();
  spans.clear();
  REQUIRE(set.expand_matches("w12a", "$25-$26-$1", scratch, spans, expansions).ok());
  CHECK(expansions == std::vector<std::string>{"w12a--"});
}

TEST_CASE("leftmost-first holds across chunks: the earliest start wins, then pattern order",
          "[engine][pattern][many]") {
  // Filler regexes push "abc" and "ab" into different chunks; the one listed first wins at the
  // same start, whichever chunk it is in, and an earlier start in a later chunk wins over a
  // later start in an earlier one.
  for (bool longer_first : {true, false}) {
    std::vector<std::string> patterns;
    patterns.push_back(longer_first ? "abc" : "ab");
    for (int i = 0; i < 8000; ++i) patterns.push_back("f" + std::to_string(i) + "[x-z]");
    patterns.push_back(longer_first ? "ab" : "abc");
    patterns.push_back("zab");
    PatternOptions pcre2_only;  // no Hyperscan: a quick compile of the same chunks
    pcre2_only.pcre2_only = true;
    PatternSet set = compile_ok(patterns, pcre2_only);
    PatternSet::Scratch scratch = set.make_scratch();
    CHECK(span_pairs(set, "abcd", scratch) ==
          std::vector<std::pair<std::size_t, std::size_t>>{{0, longer_first ? 3 : 2}});
    CHECK(span_pairs(set, "zabc f12y", scratch) ==
          std::vector<std::pair<std::size_t, std::size_t>>{{0, 3}, {5, 9}});
  }
}

TEST_CASE("leftmost-first holds across chunks after invalid UTF-8 too", "[engine][pattern][many]") {
  // PCRE2 10.42's JIT can miss the offset limit that keeps a later chunk from winning at the same
  // start (a chunk of 1,000 -i literals, invalid UTF-8 before the match): "ſ" (which folds to S)
  // is listed first and wins at "Strax", also when the line holds invalid UTF-8 before it
  // (differential test, many-patterns seed 1002).
  std::vector<std::string> patterns;
  for (int i = 0; i < 2500; ++i) patterns.push_back("ident" + std::to_string(10000 + i) + "_zz");
  patterns.insert(patterns.begin() + 10, std::string(kLongS));
  patterns.insert(patterns.begin() + 2000, "Strax");
  PatternOptions caseless;
  caseless.case_insensitive = true;
  PatternSet set = compile_ok(patterns, caseless);
  PatternSet::Scratch scratch = set.make_scratch();
  using Spans = std::vector<std::pair<std::size_t, std::size_t>>;
  CHECK(span_pairs(set, "\tabcStrax", scratch) == Spans{{4, 5}});
  CHECK(span_pairs(set, "\t\xED\xA0\x80Strax", scratch) == Spans{{4, 5}});
  std::vector<MatchSpan> spans;
  const std::string hay = "\t\xED\xA0\x80Strax\n";
  REQUIRE(set.find_spans_in(hay, 0, hay.size() - 1, scratch, spans).ok());
  REQUIRE(spans.size() == 1);
  CHECK(spans[0].end == 5);
}

TEST_CASE("plain literals under -i match U+212A for k and U+017F for s, spans and whole lines",
          "[engine][pattern][many]") {
  std::vector<std::string> patterns;
  for (int i = 0; i < 1000; ++i) patterns.push_back("id" + std::to_string(i) + "q");
  patterns.push_back("mask");
  patterns.push_back("ss");  // only k and s: no piece without them (the regex route)
  PatternOptions caseless;
  caseless.case_insensitive = true;
  for (bool with_ss : {false, true}) {
    std::vector<std::string> set_patterns = patterns;
    if (!with_ss) set_patterns.pop_back();
    PatternSet set = compile_ok(set_patterns, caseless);
    PatternSet::Scratch scratch = set.make_scratch();
    const std::string line = "x MA" + std::string(kLongS) + std::string(kKelvin) + " ID7Q";
    CHECK(span_pairs(set, line, scratch) ==
          std::vector<std::pair<std::size_t, std::size_t>>{{2, 9}, {10, 14}});
    CHECK(line_starts(set, "nothing\nmas\n" + line + "\n") == std::vector<std::size_t>{12});
    PatternOptions whole = caseless;
    whole.line = true;
    PatternSet lines = compile_ok(set_patterns, whole);
    CHECK(line_starts(lines, "mask\nmask \nma" + std::string(kLongS) + "k\nid9Q\n") ==
          std::vector<std::size_t>{0, 11, 17});
  }
}

TEST_CASE("what genuinely cannot be compiled is an error naming the pattern and the fix",
          "[engine][pattern][many]") {
  // One pattern alone beyond PCRE2's compiled size.
  auto huge = PatternSet::compile({"(abcdefgh){20000}"}, {});
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.error().detail.find("'(abcdefgh){20000}'") != std::string::npos);
  CHECK(huge.error().detail.find("regular expression is too large") != std::string::npos);
  CHECK(huge.error().detail.find("simplify") != std::string::npos);
  // Under -P, a back-reference could mean another pattern's group once the patterns are split.
  std::vector<std::string> many;
  for (int i = 0; i < 5000; ++i) many.push_back("identifier_" + std::to_string(i));
  many.push_back("(a)\\1");
  PatternOptions pcre2;
  pcre2.pcre2 = true;
  auto refers = PatternSet::compile(many, pcre2);
  REQUIRE_FALSE(refers.ok());
  CHECK(refers.error().detail.find("'(a)\\1'") != std::string::npos);
  CHECK(refers.error().detail.find("fewer patterns") != std::string::npos);
  CHECK(refers.error().detail.size() < 600);
  // Without the reference they compile, -P too.
  many.pop_back();
  PatternSet set = compile_ok(many, pcre2);
  CHECK(line_starts(set, "x\nidentifier_4999\n") == std::vector<std::size_t>{2});
}

TEST_CASE("repeated Unicode classes too large for PCRE2 are shared, captures as numbered",
          "[engine][pattern][many]") {
  // \p{L} is its exact Unicode 15 ranges: 14 of them overflowed 64
  // KiB ("regular expression is too large"; rg 14 takes 300). The class is now defined once and
  // called; the capture groups keep their numbers.
  std::string letters;
  for (int i = 0; i < 14; ++i) letters += "\\p{L}";
  const std::string pattern = "(\\p{L})" + letters + "(x)|(?<n>\\p{Greek})" + letters;
  PatternSet set = compile_ok({pattern});
  PatternSet::Scratch scratch = set.make_scratch();
  const std::string line = "1 héllowörldabcdefx 2 αβγδεζηθικλμνοπ";
  std::vector<MatchSpan> spans;
  std::vector<std::string> expansions;
  REQUIRE(set.expand_matches(line, "[$1|$2|$n]", scratch, spans, expansions).ok());
  CHECK(span_pairs(set, line, scratch) ==
        std::vector<std::pair<std::size_t, std::size_t>>{{3, 21}, {24, 54}});
  CHECK(expansions == std::vector<std::string>{"[é|x|]", "[||α]"});
  // Cut into chunks when even shared they do not fit (the second pattern alone is just under 64
  // KiB): the first pattern alone needs the shared
  // class, and the groups keep the whole set's numbers after it ($3 is the second pattern's).
  std::string words = "(y)(?:";
  for (int i = 0; i < 5000; ++i) words += (i > 0 ? "|w" : "w") + std::to_string(1000 + i);
  words += ")";
  PatternSet chunked = compile_ok({"(a)" + letters + "(b)", words});
  PatternSet::Scratch chunk_scratch = chunked.make_scratch();
  spans.clear();
  expansions.clear();
  REQUIRE(
      chunked.expand_matches("yw5999 aabcdefghijklmnb", "$1$2$3", chunk_scratch, spans, expansions)
          .ok());
  CHECK(expansions == std::vector<std::string>{"y", "ab"});
  // Options set inline would not reach a shared definition: such a regex keeps its error.
  std::string folded;
  for (int i = 0; i < 40; ++i) folded += "(?i)\\p{Lu}";
  auto refused = PatternSet::compile({folded}, {});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().detail.find("regular expression is too large") != std::string::npos);
  CHECK(refused.error().detail.find("at offset") == std::string::npos);
}
