// Tests for -x with regexes: Hyperscan gets each regex anchored at both line ends (^(?:re)$ with
// HS_FLAG_MULTILINE) for small sets, unanchored for large ones; either way PCRE2 confirms whole
// lines. An anchored expression that is not a superset of the regex's whole-line matches would
// lose lines: the reference is the same set searched by PCRE2 alone (pcre2_only).
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "line_starts.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::testing::compile_ok;
using ctx::testing::kKelvin;
using ctx::testing::kLongS;
using ctx::testing::line_starts;

PatternOptions line_options(bool caseless) {
  PatternOptions o;
  o.line = true;
  o.case_insensitive = caseless;
  return o;
}

}  // namespace

TEST_CASE("-x regexes match whole lines only, alternations and anchors inside them included",
          "[engine][whole_line]") {
  const PatternSet set = compile_ok({"ab|cd", "x\\w+y", "^q$", "\\p{Greek}+"}, line_options(false));
  const std::string hay =
      "ab\n"                // 0: yes
      "abcd\n"              // 3: no (neither alternative is the whole line)
      "cd\n"                // 8: yes
      "xzzy\n"              // 11: yes
      "xzzy \n"             // 16: no
      " xzzy\n"             // 22: no
      "q\n"                 // 28: yes
      "qq\n"                // 30: no
      "\xCE\xB1\xCE\xB2\n"  // 33: yes
      "\xCE\xB1 \n"         // 38: no
      "ab\r\n";             // 42: no (a CR is part of the line without --crlf)
  CHECK(line_starts(set, hay) == std::vector<std::size_t>{0, 8, 11, 28, 33});
}

TEST_CASE("-x -i regexes match the U+212A and U+017F folds of k and s in whole lines",
          "[engine][whole_line]") {
  const PatternSet set = compile_ok({"k\\d+s", "[a-k]s"}, line_options(true));
  const std::string hay = std::string(kKelvin) + "12" + std::string(kLongS) + "\n" + "xK1s\n" +
                          "K" + std::string(kLongS) + "\n";
  CHECK(line_starts(set, hay) == std::vector<std::size_t>{0, 13});
}

TEST_CASE("-x regex sets small and large agree with PCRE2 alone on random lines",
          "[engine][whole_line]") {
  std::mt19937 rng(77);
  auto below = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  const std::vector<std::string> atoms = {"a",      "b",      "k",     "s",  "\\w",  "\\d+", "[ab]",
                                          "(a|bc)", "x?",     "\\s*",  ".",  "\\W",  "foo",  "\\bs",
                                          "é",      "\\p{L}", "(?i)k", "b*", "[^a]", "\\."};
  const std::vector<std::string> pieces = {"a",
                                           "b",
                                           "k",
                                           "s",
                                           "K",
                                           "S",
                                           "1",
                                           "22",
                                           " ",
                                           ".",
                                           "foo",
                                           "bc",
                                           "x",
                                           "é",
                                           "É",
                                           std::string(kKelvin),
                                           std::string(kLongS),
                                           "\xCE\xB1",
                                           "\xFF",
                                           "\t"};
  std::size_t matched = 0;
  for (std::size_t count : {std::size_t{3}, std::size_t{40}, std::size_t{90}}) {
    std::vector<std::string> patterns;
    for (std::size_t i = 0; i < count; ++i) {
      std::string p;
      const std::size_t n = 1 + below(4);
      for (std::size_t k = 0; k < n; ++k) p += atoms[below(atoms.size())];
      if (p == "x?" || p == "\\s*" || p == "b*") p += "a";
      patterns.push_back(p);
    }
    for (bool caseless : {false, true}) {
      PatternOptions options = line_options(caseless);
      auto fast = PatternSet::compile(patterns, options);
      options.pcre2_only = true;
      auto reference = PatternSet::compile(patterns, options);
      REQUIRE(fast.ok() == reference.ok());
      if (!fast.ok()) continue;  // e.g. a pattern that can match empty: both refuse alike
      std::string hay;
      for (int l = 0; l < 400; ++l) {
        const std::size_t n = 1 + below(5);
        for (std::size_t k = 0; k < n; ++k) hay += pieces[below(pieces.size())];
        hay += "\n";
      }
      INFO("count " << count << " caseless " << caseless);
      const std::vector<std::size_t> want = line_starts(*reference, hay);
      CHECK(line_starts(*fast, hay) == want);
      matched += want.size();
    }
  }
  CHECK(matched > 50);  // the lines exercise the sets
}
