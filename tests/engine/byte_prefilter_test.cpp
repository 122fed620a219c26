// byte_prefilter: the byte-mode superset Hyperscan scans for regexes. Each case checks that the
// normal path (Hyperscan on the rewrite, PCRE2 confirming) finds exactly the lines PCRE2 alone
// finds, on haystacks built to catch a rewrite that is not a superset: multibyte characters where
// the regex has classes, `.`, negations, counted repetitions and case-insensitive letters.
#include "../../engine/src/byte_prefilter.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "line_starts.hpp"

namespace {

using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::engine::detail::byte_prefilter;
using ctx::testing::line_starts;

void agrees_with_pcre2(const std::string& regex, bool caseless, const std::string& hay) {
  PatternOptions options;
  options.case_insensitive = caseless;
  auto tested = PatternSet::compile({regex}, options);
  options.pcre2_only = true;
  auto reference = PatternSet::compile({regex}, options);
  REQUIRE(tested.ok());
  REQUIRE(reference.ok());
  INFO("regex " << regex << (caseless ? " (-i)" : "") << " on " << hay);
  CHECK(line_starts(*tested, hay, true) == line_starts(*reference, hay, true));
}

}  // namespace

TEST_CASE("byte prefilters keep every line PCRE2 matches", "[engine][byte_prefilter]") {
  const std::string hay =
      "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9 \xCE\xA3\xCE\xA3\xCE\xA3\xCE\xA3\xCE\xA3 "
      "x\n"  // ééééé ΣΣΣΣΣ
      "a\xC3\xA9"
      "b\n"                 // aéb
      "\xE6\x97\xA5x\n"     // 日x
      "\xE2\x84\xAA\n"      // KELVIN SIGN
      "\xC5\xBF\n"          // LONG S
      "caf\xC3\x89\n"       // cafÉ
      "12\xD9\xA3\n"        // 12٣ (Arabic-Indic digit)
      "tab\xC2\xA0space\n"  // NO-BREAK SPACE
      "plain ascii words here\n"
      "\xCE\xA3\n"
      "{brace} a{1 x-y\n";
  const char* regexes[] = {
      "\\w{5}\\s+\\w{5}\\s+\\w",
      "a.b",
      "[^a]x",
      "k",
      "[a-z]",
      "s$",
      "caf\xC3\xA9",
      "\\x{e9}",
      "\\d{3}",
      "tab\\sspace",
      "[[:alpha:]]",
      "[[:upper:]]",
      "\\bx\\b",
      "\\W\\w",
      "^\\S+$",
      "[\xC3\xA0-\xC3\xBF]b",
      "(?i)CAF\xC3\xA9",
      "(?P<word>\\w+) (?:x)",
      "a{1",
      "\\{brace\\}",
      "x-y|\\x{3a3}",
      "[\\w&&[^a]]",  // set operation: not rewritten, still correct
      "\\p{Greek}+",  // not rewritten, still correct
  };
  for (const char* regex : regexes) {
    agrees_with_pcre2(regex, false, hay);
    agrees_with_pcre2(regex, true, hay);
  }
}

TEST_CASE("byte prefilters model common syntax and refuse what they cannot",
          "[engine][byte_prefilter]") {
  CHECK(byte_prefilter("\\w{5}\\s+\\w{5}", false).has_value());
  CHECK(byte_prefilter("[A-Z]+_SUSPEND", false).has_value());
  CHECK(byte_prefilter("(?i)foo|(?-i:bar)", false).has_value());
  CHECK(byte_prefilter("(?P<name>a)(?<other>b)", false).has_value());
  CHECK_FALSE(byte_prefilter("(?=a)", false).has_value());
  CHECK_FALSE(byte_prefilter("(a)\\1", false).has_value());
  CHECK_FALSE(byte_prefilter("\\p{Greek}", false).has_value());
  CHECK_FALSE(byte_prefilter("(?x) a b", false).has_value());
  CHECK_FALSE(byte_prefilter("(?s).", false).has_value());
  CHECK_FALSE(byte_prefilter("[a&&b]", false).has_value());
  CHECK_FALSE(byte_prefilter("a++", false).has_value());
  CHECK_FALSE(byte_prefilter("(a", false).has_value());
  // ASCII stays exact; a non-ASCII literal stays exact unless case folding could change it.
  CHECK(*byte_prefilter("ab", false) == "ab");
  CHECK(*byte_prefilter("\xC3\xA9", false) == "(?:\\xc3\\xa9)");
  CHECK(*byte_prefilter("\xC3\xA9", true) == "(?:[\\x80-\\xff]+)");
  CHECK(*byte_prefilter("k", true) == "(?:k|\\xE2\\x84\\xAA)");
}
