// Tests for Rust's x flag read away (without_extended_syntax, byte_mode.hpp): a pattern whose
// only need of byte mode was its x flag runs on the UTF-8 path. The reference for what such a
// pattern means is byte mode, which parses (?x) as regex-syntax does (checked against rg 14.1.1
// in rust_dialect_test.cpp and the CLI goldens): appending (?-u) to a set keeps it there.
#define CATCH_CONFIG_ENABLE_PAIR_STRINGMAKER  // print match spans as {start, end}
#include <catch2/catch.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "../../engine/src/byte_mode.hpp"
#include "ctx/engine/pattern_set.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::PatternOptions;
using ctx::engine::detail::ByteRegexOptions;
using ctx::engine::detail::without_extended_syntax;
using ctx::testing::SpanPairs;
using ctx::testing::spans_of;

// ripgrep's options: what Rust refuses is an error.
PatternOptions rust() {
  PatternOptions o;
  o.rust_syntax_errors = true;
  return o;
}

std::optional<std::string> plain(const std::string& regex) {
  return without_extended_syntax(regex, ByteRegexOptions{});
}

}  // namespace

TEST_CASE("the x flag's whitespace and comments are read away", "[engine][rust]") {
  CHECK(plain("(?x) a b # c\n d") == "abd");
  CHECK(plain("(?x)(?:\\w+ \\s+){1, 5}") == "(?:\\w+\\s+){1,5}");
  // An escaped space is a space; only where the flag is on.
  CHECK(plain("(?x)a\\ b(?-x) c") == "a\\x{20}b c");
  CHECK(plain("(?ix)a b") == "(?i)ab");
  CHECK(plain("(?x: a b ) c") == "(?:ab) c");
  CHECK(plain("( ?x: a ) b c") == std::nullopt);  // `( ?` is no flag group: an error in Rust
  // The flag's scope ends with its group.
  CHECK(plain("((?x) a ) b") == "(a) b");
  // Classes: whitespace goes, `#` is a member, `]` first is a member, POSIX classes stay.
  CHECK(plain("(?x)[ ] a # ]") == "[]a#]");
  CHECK(plain("(?x)[ ^ [:alpha:] \\ ]") == "[^[:alpha:]\\x{20}]");
  CHECK(plain("(?x)[a [ b c ] ]") == "[a[bc]]");
  // Spaces inside escapes, as regex-syntax skips them.
  CHECK(plain("(?x)\\x 4 1") == "\\x41");
  // Nothing to do, or not the same regex afterwards: nullopt.
  CHECK(plain("a b") == std::nullopt);
  CHECK(plain("(?x)a(") == std::nullopt);
  // (?R) still needs byte mode.
  CHECK(plain("(?xR)a$") == std::nullopt);
}

TEST_CASE("a counted word class under (?x) compiles on the UTF-8 path", "[engine][rust]") {
  // Byte mode made each \w a UTF-8 byte alternation: "regular expression is too large".
  CHECK(spans_of("(?x)(?:\\w+ \\s+){1,5}", "héllo wörld x", rust()) == SpanPairs{{0, 14}});
  CHECK(spans_of("(?x) \\w{3} # three\n", "ωωω", rust()) == SpanPairs{{0, 6}});
}

TEST_CASE("patterns under (?x) match as byte mode reads them", "[engine][rust]") {
  // Random patterns over pieces with whitespace and comments spliced in where (?x) ignores them
  // and escaped spaces where it does not; the UTF-8 path against the set kept in byte mode.
  const std::vector<std::string> pieces = {
      "a",      "b",     "\\w",  "\\s",          "\\d",    "\\ ", "[ab ]", "[^ a]", "\\p{Greek}",
      "(?i)",   "(?-x)", "(?x)", "(?:",          "(",      ")",   "|",     "*",     "+?",
      "{1, 2}", ".",     "\\b",  "[[:alpha:] ]", "(?i-x:", "é",   "#",     "\\#"};
  const std::vector<std::string> haystacks = {"a b",    "ab  ba", "αβγ a1",
                                              "x  é É", "#a b#",  "A\tB 12 ab"};
  std::mt19937 rng(7);
  auto below = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  int rewritten = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string p = "(?x)";
    int open = 0;
    for (std::size_t k = 0, n = 1 + below(8); k < n; ++k) {
      std::string piece = pieces[below(pieces.size())];
      if (piece == ")" && open == 0) piece = "a";
      if (piece == "(" || piece == "(?:" || piece == "(?i-x:") ++open;
      if (piece == ")") --open;
      if (piece == "#") piece = " # comment ) [\n";
      p += piece;
      if (below(3) == 0) p += below(2) == 0 ? " " : "\t\n";
    }
    for (; open > 0; --open) p += ")";
    INFO("pattern " << p);
    auto typed = ctx::engine::PatternSet::compile({p}, rust());
    auto reference = ctx::engine::PatternSet::compile({p, "(?-u)\\xFF\\xFE\\xFD"}, rust());
    REQUIRE(typed.ok() == reference.ok());
    if (!typed.ok()) continue;
    if (plain(p)) ++rewritten;
    for (const std::string& hay : haystacks) {
      INFO("haystack " << hay);
      CHECK(spans_of(p, hay, rust()) == spans_of({p, "(?-u)\\xFF\\xFE\\xFD"}, hay, rust()));
    }
  }
  CHECK(rewritten > 1000);
}
