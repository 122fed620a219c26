// Tests for counted repetitions beyond PCRE2's 65535 and Hyperscan's limits
// (engine/src/large_repeats.hpp): the rewrites themselves, and that pieces of a repetition find
// the same matches as the repetition (checked with small pieces against PCRE2's own counts).
#define CATCH_CONFIG_ENABLE_PAIR_STRINGMAKER  // print match spans as {start, end}
#include "../../engine/src/large_repeats.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::PatternOptions;
using ctx::engine::detail::split_large_repeats;
using ctx::engine::detail::widen_large_repeats;
using ctx::testing::spans_of;

}  // namespace

TEST_CASE("counts above 65535 become pieces of at most 65535", "[engine][large_repeats]") {
  CHECK(split_large_repeats("x{70000}") == "(?:x{65535}x{4465})");
  CHECK(split_large_repeats("x{0,70000}") == "(?:x{0,65535}x{0,4465})");
  CHECK(split_large_repeats("x{1,100000}?") == "(?:xx{0,65535}?x{0,34464}?)");
  CHECK(split_large_repeats("ab{65536,}c") == "a(?:b{65535}bb*)c");
  CHECK(split_large_repeats("x{131070}") == "(?:x{65535}x{65535})");
  // The atom before the count: an escape, a class (with braces and brackets inside), a group.
  CHECK(split_large_repeats("\\x{41}{70000}") == "(?:\\x{41}{65535}\\x{41}{4465})");
  CHECK(split_large_repeats("[{}\\]]{70000}") == "(?:[{}\\]]{65535}[{}\\]]{4465})");
  CHECK(split_large_repeats("(?:ab){70000}") == "(?:(?:ab){65535}(?:ab){4465})");
  CHECK(split_large_repeats("\xC3\xA9{70000}") == "(?:\xC3\xA9{65535}\xC3\xA9{4465})");
  // Single-character alternatives become one class (PCRE2 repeats a class by a count).
  CHECK(split_large_repeats("(?:x|y){2,100000}") == "(?:[xy]{2}[xy]{0,65535}[xy]{0,34463})");
  CHECK(split_large_repeats("(?:a|[]b]|\\d|-){70000}") ==
        "(?:[a\\]b\\d\\-]{65535}[a\\]b\\d\\-]{4465})");
  // A group of one atom, or of single characters, flags or not: the count goes inside it.
  CHECK(split_large_repeats("(?i:x|y){70000}") == "(?i:(?:[xy]{65535}[xy]{4465}))");
  CHECK(split_large_repeats("(?s:.){70000}?") == "(?s:(?:.{65535}.{4465}))");
  CHECK(split_large_repeats("(?s:.){1,70000}?") == "(?s:(?:..{0,65535}?.{0,4464}?))");
  CHECK(split_large_repeats("(?:[^a]){70000}") == "(?:[^a]{65535}[^a]{4465})");
  CHECK(split_large_repeats("(?:x|yz){70000}") == "(?:(?:x|yz){65535}(?:x|yz){4465})");
  CHECK(split_large_repeats("(?:x|yz){70000}?") == "(?:x|yz){70000}?");
  CHECK(split_large_repeats("(?:x|[^y]){70000}") == "(?:(?:x|[^y]){65535}(?:x|[^y]){4465})");
  // Left as written: small counts, captures (copies would be new groups), counts out of order,
  // braces that are no repetition.
  CHECK(split_large_repeats("x{65535}y{0,65535}") == "x{65535}y{0,65535}");
  CHECK(split_large_repeats("(x){70000}") == "(x){70000}");
  CHECK(split_large_repeats("(?:(x)y){70000}") == "(?:(x)y){70000}");
  CHECK(split_large_repeats("x{70000,1}") == "x{70000,1}");
  CHECK(split_large_repeats("\\{{70000}") == "(?:\\{{65535}\\{{4465})");
  CHECK(split_large_repeats("\\{70000}") == "\\{70000}");
  CHECK(split_large_repeats("(?C1){70000}") == "(?:(?C1){65535}(?C1){4465})");
}

TEST_CASE("pieces of a repetition find the matches of the repetition", "[engine][large_repeats]") {
  // PCRE2 (-P, no rewrite of its own) on the repetition and on its pieces of at most 2: the same
  // leftmost-first matches, greedy and lazy, of characters and classes, and greedy of groups whose
  // branches overlap, on random subjects over a small alphabet.
  const std::vector<std::string> patterns = {"a{0,5}",
                                             "a{0,5}?",
                                             "a{2,7}",
                                             "a{2,7}?b",
                                             "a{3,}",
                                             "a{3,}?c",
                                             "a{7}",
                                             "[ab]{0,5}b",
                                             "[ab]{1,7}?b",
                                             "(?:ab|a){0,5}",
                                             "(?:ab|a){1,5}b",
                                             "(?:a|ab|b){2,7}c",
                                             "(?:b|ab){1,6}",
                                             "(?:a?b?){0,5}c",
                                             "(?:a|ab){3,5}$",
                                             "x(?:a|b|ab){0,9}x",
                                             "(?:ba|a|b){2,6}a",
                                             "(?:a|b){2,5}?c",
                                             "\\w{1,5}?a",
                                             "(?i:a|B){1,7}?c",
                                             "(?s:.){2,5}?b",
                                             "(?i:A){0,4}b"};
  PatternOptions pcre2;
  pcre2.pcre2 = true;
  std::mt19937 rng(7);
  std::vector<std::string> subjects;
  for (int i = 0; i < 300; ++i) {
    std::string s;
    const auto length = std::uniform_int_distribution<int>(0, 14)(rng);
    for (int k = 0; k < length; ++k) s += "abcx"[std::uniform_int_distribution<int>(0, 3)(rng)];
    subjects.push_back(s);
  }
  for (const std::string& p : patterns) {
    const std::string pieces = split_large_repeats(p, 2);
    INFO(p << " as " << pieces);
    REQUIRE(pieces != p);
    for (const std::string& s : subjects) {
      INFO(s);
      CHECK(spans_of(pieces, s, pcre2) == spans_of(p, s, pcre2));
    }
  }
}

TEST_CASE("Hyperscan gets large counts widened to a superset", "[engine][large_repeats]") {
  CHECK(widen_large_repeats("ab{0,32000}c", 1000) == "ab{0,}c");
  CHECK(widen_large_repeats("ab{5000}c", 1000) == "ab{1000,}c");
  CHECK(widen_large_repeats("ab{20,5000}?c", 1000) == "ab{20,}?c");
  CHECK(widen_large_repeats("(?:x|y){2000,}", 1000) == "(?:x|y){1000,}");
  CHECK(widen_large_repeats("ab{2,1000}c[{]{5000}", 1000) == "ab{2,1000}c[{]{1000,}");
  CHECK(widen_large_repeats("\\x{41}{3}", 1000) == "\\x{41}{3}");
}

TEST_CASE("a count above 65535 matches as in ripgrep", "[engine][large_repeats]") {
  const std::string x70000(70000, 'x');
  using Spans = ctx::testing::SpanPairs;
  CHECK(spans_of("x{70000}", x70000) == Spans{{0, 70000}});
  CHECK(spans_of("x{70001}", x70000).empty());
  CHECK(spans_of("x{65536,}", x70000) == Spans{{0, 70000}});
  CHECK(spans_of("x{0,69999}", x70000) == Spans{{0, 69999}, {69999, 70000}});
  CHECK(spans_of("x{2,100000}?", "xxxxx") == Spans{{0, 2}, {2, 4}});
  CHECK(spans_of("(?:x|y){2,100000}", "xy-z-yx") == Spans{{0, 2}, {5, 7}});
  PatternOptions caseless;
  caseless.case_insensitive = true;
  CHECK(spans_of("x{70000}", std::string(70000, 'X'), caseless) == Spans{{0, 70000}});
  // A group of several characters repeated so is too large for PCRE2 (rg takes it).
  auto group = ctx::engine::PatternSet::compile({"(?:ab){0,70000}"}, {});
  REQUIRE_FALSE(group.ok());
  CHECK(group.error().detail.find("regular expression is too large") != std::string::npos);
}
