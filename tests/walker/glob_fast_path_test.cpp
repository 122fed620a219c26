// Differential tests for ctx::walker::Glob's shape fast paths: on random patterns and texts,
// Glob::matches (literal, star-suffix and one-byte-ops-around-one-star paths) must answer exactly
// as the general NFA (Glob::matches_by_nfa), which glob_test.cpp checks against git itself.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "../shown.hpp"
#include "ctx/walker/glob.hpp"

namespace {

using ctx::testing::shown;
using ctx::walker::Glob;
using ctx::walker::GlobOptions;

// Text bytes: letters of both cases, the separators that matter, a high byte and NUL.
constexpr std::string_view kTextBytes = "aAbBcCzZ./-_]\\[!^:\x80\xff";

std::string random_text(std::mt19937& rng) {
  std::uniform_int_distribution<std::size_t> len(0, 9);
  std::uniform_int_distribution<std::size_t> pick(0, kTextBytes.size());  // the last: NUL
  std::string out;
  for (std::size_t n = len(rng); n > 0; --n) {
    std::size_t i = pick(rng);
    out.push_back(i == kTextBytes.size() ? '\0' : kTextBytes[i]);
  }
  return out;
}

// One pattern element: a literal byte, an escape, `?`, or a bracket expression (ranges, negation,
// POSIX classes, a ']' member, sometimes unclosed).
std::string random_element(std::mt19937& rng) {
  static constexpr std::string_view kClasses[] = {
      "[abc]", "[!a]",  "[^/]",      "[a-c]",        "[A-Z]",       "[]a]", "[!]]",
      "[co]",  "[-a]",  "[a-]",      "[\\]x]",       "[[:alpha:]]", "[.]",  "[/]",
      "[!/]",  "[z-a]", "[[:bog:]]", "[[:digit:]x]", "[a",          "[\\",  "[!B-b]"};
  static constexpr std::string_view kLits = "aAbBcz./-_:!^]";
  std::uniform_int_distribution<int> kind(0, 9);
  switch (kind(rng)) {
    case 0:
      return "?";
    case 1:
    case 2: {
      std::uniform_int_distribution<std::size_t> c(0, std::size(kClasses) - 1);
      return std::string(kClasses[c(rng)]);
    }
    case 3: {
      std::uniform_int_distribution<std::size_t> c(0, kTextBytes.size() - 1);
      return std::string("\\") + kTextBytes[c(rng)];
    }
    default: {
      std::uniform_int_distribution<std::size_t> c(0, kLits.size() - 1);
      return std::string(1, kLits[c(rng)]);
    }
  }
}

// Mostly the shapes the fast paths take (`X*Y`, `*X`, `X*`, `X` with X, Y runs of one-byte
// elements), sometimes `**`, two stars, `**/` or a trailing backslash, which must fall back.
std::string random_pattern(std::mt19937& rng) {
  std::uniform_int_distribution<int> run(0, 3);
  std::uniform_int_distribution<int> shape(0, 9);
  std::string out;
  for (int n = run(rng); n > 0; --n) out += random_element(rng);
  int s = shape(rng);
  if (s <= 4) out += "*";
  if (s == 5) out += "**";
  if (s == 6) out += "**/";
  if (s == 7) out += "*?*";
  for (int n = run(rng); n > 0; --n) out += random_element(rng);
  if (shape(rng) == 0) out += "\\";
  return out;
}

}  // namespace

TEST_CASE("the glob fast paths answer as the NFA on random patterns and texts", "[walker][glob]") {
  std::mt19937 rng(20261122);
  const GlobOptions kModes[] = {
      {true, false, false}, {true, true, false}, {false, false, false},
      {false, true, false}, {true, false, true}, {true, true, true},
  };
  std::size_t matched = 0;
  std::size_t compared = 0;
  for (int p = 0; p < 4000; ++p) {
    const std::string pattern = random_pattern(rng);
    for (const GlobOptions& mode : kModes) {
      const Glob glob = Glob::compile(pattern, mode);
      for (int t = 0; t < 40; ++t) {
        std::string text = random_text(rng);
        // Half the texts are built to fit: the pattern with its wildcards filled in.
        if (t % 2 == 1) {
          text.clear();
          for (char c : pattern) {
            if (c == '*' || c == '?' || c == '\\') {
              text += random_text(rng).substr(0, c == '*' ? 3 : 1);
            } else if (c != '[' && c != ']') {
              text.push_back(c);
            }
          }
        }
        const bool fast = glob.matches(text);
        const bool nfa = glob.matches_by_nfa(text);
        if (fast != nfa) {
          FAIL("pattern " << shown(pattern) << " text " << shown(text) << " pathname "
                          << mode.pathname << " fold " << mode.case_insensitive << " split "
                          << mode.git_prefix_split << ": fast " << fast << ", NFA " << nfa);
        }
        matched += nfa ? 1 : 0;
        ++compared;
      }
    }
  }
  // The texts must exercise both answers, or the comparison above proves little.
  CHECK(matched > compared / 50);
  CHECK(matched < compared / 2);
}

TEST_CASE("one-byte ops around one star match by position, as git does", "[walker][glob]") {
  const GlobOptions path{true, false, false};
  const GlobOptions fold{true, true, false};
  const GlobOptions plain{false, false, false};
  struct Row {
    std::string_view pattern, text;
    GlobOptions mode;
    bool expected;
  };
  const Row rows[] = {
      {"*.[aos]", "lib.a", path, true},      {"*.[aos]", "lib.c", path, false},
      {"*.[aos]", ".o", path, true},         {"*.[aos]", "d/x.o", path, false},
      {"*.[aos]", "d/x.o", plain, true},     {"*.py[co]", "m.pyc", path, true},
      {"*.py[co]", "m.PYC", path, false},    {"*.py[co]", "m.PYC", fold, true},
      {"*.py[co]", "m.py", path, false},     {"[Dd]ebug", "Debug", path, true},
      {"[Dd]ebug", "debugs", path, false},   {"[Dd]ebug", "DEBUG", fold, true},
      {"lib*", "lib", path, true},           {"lib*", "libx/y", path, false},
      {"src/*.[od]", "src/a.d", path, true}, {"src/*.[od]", "src/a/b.d", path, false},
      {"a?c", "a/c", path, false},           {"a?c", "a/c", plain, true},
      {"x**y", "x/a/y", path, false},        {"x/**", "x/a/y", path, true},
      {"[!a]*", "/x", path, false},          {"[!a]*", "/x", plain, true},
  };
  for (const Row& row : rows) {
    const Glob glob = Glob::compile(row.pattern, row.mode);
    INFO("pattern " << shown(row.pattern) << " text " << shown(row.text));
    CHECK(glob.matches(row.text) == row.expected);
    CHECK(glob.matches_by_nfa(row.text) == row.expected);
  }
}

TEST_CASE("a glob's last_bytes and first_bytes hold the ends of every non-empty text it matches",
          "[walker][glob]") {
  std::mt19937 rng(20261123);
  const GlobOptions kModes[] = {
      {true, false, false}, {true, true, false}, {false, false, false},
      {false, true, false}, {true, false, true}, {true, true, true},
  };
  std::size_t matched = 0;
  std::size_t pinned = 0;  // patterns whose set is not every byte
  std::size_t pinned_first = 0;
  for (int p = 0; p < 4000; ++p) {
    const std::string pattern = random_pattern(rng);
    for (const GlobOptions& mode : kModes) {
      const Glob glob = Glob::compile(pattern, mode);
      const std::array<std::uint64_t, 4> last = glob.last_bytes();
      if ((last[0] & last[1] & last[2] & last[3]) != ~std::uint64_t{0}) ++pinned;
      const std::array<std::uint64_t, 4> first = glob.first_bytes();
      if ((first[0] & first[1] & first[2] & first[3]) != ~std::uint64_t{0}) ++pinned_first;
      for (int t = 0; t < 40; ++t) {
        std::string text = random_text(rng);
        if (t % 2 == 1) {  // built to fit, as in the fast-path test above
          text.clear();
          for (char c : pattern) {
            if (c == '*' || c == '?' || c == '\\') {
              text += random_text(rng).substr(0, c == '*' ? 3 : 1);
            } else if (c != '[' && c != ']') {
              text.push_back(c);
            }
          }
        }
        if (text.empty() || !glob.matches(text)) continue;
        ++matched;
        const auto c = static_cast<unsigned char>(text.back());
        if ((last[c / 64] >> (c % 64) & 1U) == 0) {
          FAIL("pattern " << shown(pattern) << " matches " << shown(text) << " (pathname "
                          << mode.pathname << " fold " << mode.case_insensitive
                          << ") but its last_bytes lacks the last byte");
        }
        const auto f = static_cast<unsigned char>(text.front());
        if ((first[f / 64] >> (f % 64) & 1U) == 0) {
          FAIL("pattern " << shown(pattern) << " matches " << shown(text) << " (pathname "
                          << mode.pathname << " fold " << mode.case_insensitive
                          << ") but its first_bytes lacks the first byte");
        }
      }
    }
  }
  CHECK(matched > 1000);
  CHECK(pinned > 1000);
  CHECK(pinned_first > 1000);
}
