// BitMatcher: the bit-parallel line matcher for pure-ASCII haystacks. It answers without PCRE2, so
// every case compares the lines the normal path (BitMatcher first) reports with the lines PCRE2
// alone (-P) reports: hand-picked regexes on haystacks built to catch wrong class members, off-by-
// one repetition counts, anchors, block boundaries (64 bytes) and the hand-over to Hyperscan at
// the first non-ASCII byte, then random regexes of the modelled subset on random ASCII text.
#include "../../engine/src/bit_matcher.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "line_starts.hpp"

namespace {

using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::engine::detail::BitMatcher;
using ctx::testing::line_starts;

void agrees_with_pcre2(const std::vector<std::string>& regexes, PatternOptions options,
                       const std::string& hay) {
  auto tested = PatternSet::compile(regexes, options);
  options.pcre2_only = true;
  auto reference = PatternSet::compile(regexes, options);
  REQUIRE(tested.ok() == reference.ok());
  if (!tested.ok()) return;
  INFO("regex " << regexes.front() << (regexes.size() > 1 ? " (and more)" : "")
                << (options.case_insensitive ? " -i" : "") << (options.line ? " -x" : "") << " on "
                << hay);
  CHECK(line_starts(*tested, hay) == line_starts(*reference, hay));
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1DULL;
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

// A random regex of the subset BitMatcher models (and a few things it refuses, which must then
// fall back cleanly).
std::string random_regex(Rng& rng, int depth = 0) {
  static const char* const kAtoms[] = {"a",
                                       "b",
                                       "k",
                                       "s",
                                       "\\w",
                                       "\\W",
                                       "\\d",
                                       "\\D",
                                       "\\s",
                                       "\\S",
                                       ".",
                                       "[a-c]",
                                       "[^a-c]",
                                       "[ab\\d]",
                                       "[^\\s]",
                                       "[[:alpha:]]",
                                       "[[:punct:]]",
                                       "[[:^space:]]",
                                       "[]a]",
                                       "[a-]",
                                       "\\.",
                                       "\\x41",
                                       "\\t",
                                       " ",
                                       "_",
                                       "[[:upper:]]",
                                       "\\x{e9}",
                                       "\xC3\xA9",
                                       "[\\x00-\\x{100}]",
                                       "\\b"};
  static const char* const kQuantifiers[] = {"",    "",      "",     "?",  "*",  "+",
                                             "{2}", "{1,3}", "{2,}", "??", "+?", "{0,2}"};
  std::string out;
  const std::size_t items = 1 + rng.below(5);
  for (std::size_t i = 0; i < items; ++i) {
    if (depth < 2 && rng.below(8) == 0) {
      out += "(" + random_regex(rng, depth + 1);
      if (rng.below(2) == 0) out += "|" + random_regex(rng, depth + 1);
      out += ")";
      if (rng.below(3) == 0) out += "?";
      continue;
    }
    out += kAtoms[rng.below(std::size(kAtoms))];
    out += kQuantifiers[rng.below(std::size(kQuantifiers))];
  }
  if (rng.below(6) == 0) out = "^" + out;
  if (rng.below(6) == 0) out += "$";
  if (depth == 0 && rng.below(5) == 0) out += "|" + random_regex(rng, 1);
  return out;
}

// Random text; with `unicode`, also multibyte characters (word, space, case-folding ones) and
// invalid UTF-8.
std::string random_text(Rng& rng, std::size_t size, bool unicode = false) {
  static const char kAlphabet[] = "aabbkKsSAB  \t\n\n.-_]019\x0b\r!~\x7f";
  static const char* const kWide[] = {"\xC3\xA9", "\xCE\xA3",     "\xE2\x84\xAA", "\xC5\xBF",
                                      "\xC2\xA0", "\xE6\x97\xA5", "\xE0\xAE\xBE", "\xFF"};
  std::string out;
  for (std::size_t i = 0; i < size; ++i) {
    if (unicode && rng.below(6) == 0) {
      out += kWide[rng.below(std::size(kWide))];
    } else {
      out += kAlphabet[rng.below(sizeof kAlphabet - 1)];
    }
  }
  return out;
}

// Multiline mode: the matches find_multiline reports, one after the other, as the searcher asks.
std::vector<std::pair<std::size_t, std::size_t>> multiline_matches(const PatternSet& set,
                                                                   std::string_view hay) {
  PatternSet::Scratch scratch = set.make_scratch();
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t from = 0;
  while (from < hay.size()) {
    auto found = set.find_multiline(hay, from, scratch);
    REQUIRE(found.ok());
    if (!*found) break;
    out.emplace_back((*found)->start, (*found)->end);
    from = (*found)->end > (*found)->start ? (*found)->end : (*found)->end + 1;
  }
  return out;
}

void multiline_agrees_with_pcre2(const std::vector<std::string>& regexes, PatternOptions options,
                                 const std::string& hay) {
  options.multiline = true;
  auto tested = PatternSet::compile(regexes, options);
  options.pcre2_only = true;
  auto reference = PatternSet::compile(regexes, options);
  REQUIRE(tested.ok() == reference.ok());
  if (!tested.ok() || !tested->multiline()) return;
  INFO("regex " << regexes.front() << (regexes.size() > 1 ? " (and more)" : "") << " -U"
                << (options.case_insensitive ? " -i" : "")
                << (options.multiline_dotall ? " --multiline-dotall" : "") << " on " << hay);
  CHECK(multiline_matches(*tested, hay) == multiline_matches(*reference, hay));
}

}  // namespace

// The matcher needs AVX2; without it every regex takes the general path (checked in the last
// lines of each case that needs the matcher).
namespace {
bool have_avx2() { return __builtin_cpu_supports("avx2"); }
}  // namespace

TEST_CASE("bit matcher takes regexes without a literal and leaves literal ones to Hyperscan",
          "[engine][bit_matcher]") {
  if (!have_avx2()) {
    CHECK_FALSE(BitMatcher::compile({"\\w{5}"}, false, false).has_value());
    return;
  }
  CHECK(BitMatcher::compile({"\\w{5}\\s+\\w{5}\\s+\\w{5}"}, false, false).has_value());
  CHECK(BitMatcher::compile({"[a-z]+[0-9]"}, true, true).has_value());
  CHECK_FALSE(BitMatcher::compile({"[A-Z]+_SUSPEND"}, false, false).has_value());
  CHECK_FALSE(BitMatcher::compile({"\\bfoo\\w"}, false, false).has_value());
  CHECK_FALSE(BitMatcher::compile({"(?i)\\w+"}, false, false).has_value());
  CHECK_FALSE(BitMatcher::compile({"(ab)+c"}, false, false).has_value());
  CHECK_FALSE(BitMatcher::compile({"\\p{Greek}\\w"}, false, false).has_value());
  CHECK_FALSE(BitMatcher::compile({"a*"}, false, false).has_value());
  // A literal non-ASCII character is a strong literal on its own; optional, it is not.
  CHECK_FALSE(BitMatcher::compile({"\\w+\xC3\xA9"}, false, false).has_value());
  CHECK_FALSE(
      BitMatcher::compile({"[a-z]+\xC3\xA9", "\\w{3}\xE2\x82\xAC"}, false, false).has_value());
  CHECK(BitMatcher::compile({"[a-z]+\xC3\xA9?x"}, false, false).has_value());
  CHECK(BitMatcher::compile({"[a-z]+\xC3\xA9", "\\w{5}"}, false, false).has_value());
}

TEST_CASE("bit matcher finds the lines PCRE2 finds on ASCII text", "[engine][bit_matcher]") {
  const std::string hay =
      "hello world again and again\n"
      "short one\n"
      "abcde  fghij\tklmno\n"
      "abcd efghi jklmn\n"
      "\n"
      "tabs\tand\x0bvt\rcr\n"
      "UPPER lower MiXeD 12345 678\n"
      "x" +
      std::string(70, 'y') + " " + std::string(70, 'z') + " " + std::string(5, 'w') +
      "\n"
      "punct!!! ~~~ ___ ...\n"
      "last line without newline abcde fghij klmno";
  PatternOptions plain;
  PatternOptions caseless;
  caseless.case_insensitive = true;
  PatternOptions whole;
  whole.line = true;
  for (const char* re : {"\\w{5}\\s+\\w{5}\\s+\\w{5}", "\\w+\\s\\w+", "^\\w+$", "^$", "[a-e]{5}",
                         "\\S\\s\\S", "[[:punct:]]{3}\\s", "y{64}", "y{63}\\s+z", "\\d{5}\\s\\d",
                         "^[a-z]+\\s", "o$", "(ab|cd)e?\\s", "[^a-z \\n]{2}", ".{80}", "\\W{3}",
                         "[[:upper:]]{5}", "a.c", "\\x41[[:alpha:]]"}) {
    agrees_with_pcre2({re}, plain, hay);
    agrees_with_pcre2({re}, caseless, hay);
    agrees_with_pcre2({re}, whole, hay);
  }
  agrees_with_pcre2({"\\d{5}", "[A-Z]{5}\\s"}, plain, hay);
}

TEST_CASE("bit matcher hands the haystack over at the first non-ASCII line",
          "[engine][bit_matcher]") {
  auto m = BitMatcher::compile({"\\w{3}\\s\\w{3}"}, false, false);
  REQUIRE(m.has_value() == have_avx2());
  if (!m) return;
  const std::string hay = "nothing\nab\xC3\xA9 xyz\nabc def\n";
  BitMatcher::Found f = m->find_line(hay, 0);
  CHECK(f.kind == BitMatcher::Found::kNotAscii);
  CHECK(f.start == 8);
  CHECK(f.end == 16);
  // A match before the non-ASCII line is still reported.
  const std::string early = "abc def\n" + std::string(40, '-') + "\xC3\xA9\n";
  f = m->find_line(early, 0);
  CHECK(f.kind == BitMatcher::Found::kLine);
  CHECK(f.start == 0);
  CHECK(f.end == 7);
  // Through the PatternSet, the line with é matches with Unicode \w (é is a word character).
  agrees_with_pcre2({"\\w{3}\\s\\w{3}"}, PatternOptions{}, hay);
  agrees_with_pcre2({"\\w{3}\\s\\w{3}"}, PatternOptions{}, early);
}

TEST_CASE("bit matcher agrees with PCRE2 on random regexes and ASCII text",
          "[engine][bit_matcher]") {
  Rng rng(0x5eed1234);
  std::size_t modelled = 0;
  for (int round = 0; round < 800; ++round) {
    std::vector<std::string> regexes{random_regex(rng)};
    if (rng.below(5) == 0) regexes.push_back(random_regex(rng));
    PatternOptions options;
    options.case_insensitive = rng.below(3) == 0;
    options.line = rng.below(6) == 0;
    if (BitMatcher::compile(regexes, options.case_insensitive, options.line)) ++modelled;
    const std::string hay = random_text(rng, 20 + rng.below(300));
    agrees_with_pcre2(regexes, options, hay);
  }
  CHECK((modelled > 150) ==
        have_avx2());  // the generator mostly exercises the matcher, not the fallback
}

TEST_CASE("bit matcher's superset for non-ASCII lines keeps every line PCRE2 matches",
          "[engine][bit_matcher]") {
  Rng rng(0xfeedbeef);
  for (int round = 0; round < 500; ++round) {
    std::vector<std::string> regexes{random_regex(rng)};
    PatternOptions options;
    options.case_insensitive = rng.below(3) == 0;
    options.line = rng.below(8) == 0;
    agrees_with_pcre2(regexes, options, random_text(rng, 20 + rng.below(300), true));
  }
}

TEST_CASE("multiline search tries only where the bit matcher says a match may start",
          "[engine][bit_matcher]") {
  CHECK(BitMatcher::compile_multiline({"\\w{5}\\s+\\w{5}"}, false, false).has_value() ==
        have_avx2());
  CHECK_FALSE(BitMatcher::compile_multiline({"^\\w+\\s"}, false, false).has_value());
  const std::string hay = "int main(void)\n{\n  return 0;\n}\n" + std::string(100, 'x') +
                          "\n\n  } \n else {\xC3\xA9\xC3\xA9\n\tword\n";
  for (const char* re : {"\\w{5}\\s+\\w{5}", "\\)\\s*\\{", "\\}\\s*\\n\\s*else", "x{64}\\s+\\s",
                         "[^a-z]+\\w", "\\w\\s+\\w", ".\\n."}) {
    multiline_agrees_with_pcre2({re}, PatternOptions{}, hay);
    PatternOptions dotall;
    dotall.multiline_dotall = true;
    multiline_agrees_with_pcre2({re}, dotall, hay);
  }
  Rng rng(0xabcdef);
  for (int round = 0; round < 400; ++round) {
    std::vector<std::string> regexes{random_regex(rng) + "\\s" + random_regex(rng)};
    PatternOptions options;
    options.case_insensitive = rng.below(3) == 0;
    options.multiline_dotall = rng.below(2) == 0;
    multiline_agrees_with_pcre2(regexes, options,
                                random_text(rng, 20 + rng.below(300), rng.below(2) == 0));
  }
}

TEST_CASE("multiline match starts are the same when the haystack is scanned in pieces",
          "[engine][bit_matcher]") {
  // match_starts reverses the haystack 256 KiB at a time, its blocks' carries passed on: runs of
  // a class, line starts and counted repeats that cross a piece's end must not be cut there.
  constexpr std::size_t kPiece = std::size_t{256} << 10;
  Rng rng(0x5eed);
  for (bool unicode : {false, true}) {
    std::string hay = random_text(rng, 3 * kPiece + 1000, unicode);
    // A match across each piece's end (counted from the haystack's end: pieces are reversed).
    for (std::size_t k = 1; k <= 3; ++k) {
      hay.replace(hay.size() - k * kPiece - 6, 12, "aaaa b{\nbb  ");
    }
    for (const char* re : {"\\w+\\s*\\{\\n", "[ab]{3}\\s+\\w", "\\n\\s+\\w{2}", "\\]\\s*\\n"}) {
      PatternOptions options;
      options.multiline = true;
      auto tested = PatternSet::compile({re}, options);
      options.pcre2_only = true;
      auto reference = PatternSet::compile({re}, options);
      REQUIRE(tested.ok());
      REQUIRE(reference.ok());
      INFO(re << (unicode ? " (with non-ASCII)" : ""));
      const auto found = multiline_matches(*tested, hay);
      CHECK(found.size() >= 3);
      CHECK(found == multiline_matches(*reference, hay));
    }
  }
}
