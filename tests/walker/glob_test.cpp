// Tests for ctx::walker::Glob: tables of (pattern, text, mode, expected) whose every expectation
// was produced by git itself, plus the shape fast paths and the NFA's linear time.
//
// Where the expectations come from (a throwaway script, not in the repo, asked git 2.39.5):
//  - pathname modes: `git check-ignore --no-index` with the lines `/<pattern>` and `!*/` in
//    core.excludesFile (the leading '/' sends the whole pattern to wildmatch with WM_PATHNAME, the
//    `!*/` keeps parent directories from deciding); `-c core.ignorecase=true` for the fold modes;
//  - plain modes: `git ls-files -- <pattern>` (a pathspec is wildmatch without WM_PATHNAME) in a
//    repository whose index holds just the text; `--icase-pathspecs` for the fold mode;
//  - rows marked `W`: the git command line cannot express them (an empty text or pattern, a text
//    with "//", a trailing '/', a leading ':' or a "." component; a pattern ending in ' ' or '/'),
//    so they come from git's own wildmatch.c (v2.39.5, what t3070 runs as `test-tool wildmatch`);
//    every row the CLI could answer agreed with wildmatch.c, except the rows marked
//    `W, prefix`, where dir.c compares the literal prefix before wildmatch so `foo**` acts as
//    `foo/**` in a .gitignore (see ignore_rules_test.cpp), and `W, literal pathspec`, where a
//    pathspec equal to the path matches without wildmatch;
//  - rows marked `git: no match`: the documented deviation from git, an unclosed '[' is a
//    literal '[' as in current ripgrep.
#include "ctx/walker/glob.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "../shown.hpp"

namespace {

using ctx::walker::Glob;
using ctx::walker::GlobOptions;

enum class Mode : std::uint8_t { kPath, kPathFold, kPlain, kPlainFold };
constexpr Mode kPath = Mode::kPath;          // GlobOptions{.pathname = true}
constexpr Mode kPathFold = Mode::kPathFold;  // ... and case_insensitive
constexpr Mode kPlain = Mode::kPlain;        // pathname = false
constexpr Mode kPlainFold = Mode::kPlainFold;

struct GlobCase {
  std::string_view pattern;
  std::string_view text;
  Mode mode;
  bool expected;
};

GlobOptions options_for(Mode mode) {
  return GlobOptions{mode == kPath || mode == kPathFold, mode == kPathFold || mode == kPlainFold};
}

const char* mode_name(Mode mode) {
  switch (mode) {
    case kPath:
      return "pathname";
    case kPathFold:
      return "pathname, case-insensitive";
    case kPlain:
      return "no pathname";
    case kPlainFold:
      return "no pathname, case-insensitive";
  }
  return "?";
}

using ctx::testing::shown;

void check_table(std::span<const GlobCase> cases) {
  for (const GlobCase& c : cases) {
    INFO("pattern " << shown(c.pattern) << " text " << shown(c.text) << " (" << mode_name(c.mode)
                    << ")");
    CHECK(Glob::compile(c.pattern, options_for(c.mode)).matches(c.text) == c.expected);
  }
}

constexpr GlobCase kBasics[] = {
    {"foo", "foo", kPath, true},
    {"foo", "fo", kPath, false},
    {"foo", "fooo", kPath, false},
    {"foo", "Foo", kPath, false},
    {"foo", "xfoo", kPath, false},
    {"foo", "", kPath, false},  // W
    {"foo", "foo", kPlain, true},
    {"foo", "fo", kPlain, false},
    {"foo", "fooo", kPlain, false},
    {"foo", "Foo", kPlain, false},
    {"foo", "xfoo", kPlain, false},
    {"foo", "", kPlain, false},  // W
    {"", "", kPath, true},       // W
    {"", "a", kPath, false},     // W
    {"", "", kPlain, true},      // W
    {"", "a", kPlain, false},    // W
    {"?", "a", kPath, true},
    {"?", "", kPath, false},  // W
    {"?", "ab", kPath, false},
    {"?", ".", kPath, true},  // W
    {"?", "?", kPath, true},
    {"?", "a", kPlain, true},
    {"?", "", kPlain, false},  // W
    {"?", "ab", kPlain, false},
    {"?", ".", kPlain, true},  // W
    {"?", "?", kPlain, true},
    {"?\?", "ab", kPath, true},
    {"?\?", "a", kPath, false},
    {"?\?", "abc", kPath, false},
    {"a?c", "abc", kPath, true},
    {"a?c", "ac", kPath, false},
    {"a?c", "a.c", kPath, true},
    {"a?c", "abbc", kPath, false},
    {"a?c", "abc", kPlain, true},
    {"a?c", "ac", kPlain, false},
    {"a?c", "a.c", kPlain, true},
    {"a?c", "abbc", kPlain, false},
    {"*", "", kPath, true},  // W
    {"*", "a", kPath, true},
    {"*", "abc", kPath, true},
    {"*", ".hidden", kPath, true},
    {"*", "*", kPath, true},
    {"*", "", kPlain, true},  // W
    {"*", "a", kPlain, true},
    {"*", "abc", kPlain, true},
    {"*", ".hidden", kPlain, true},
    {"*", "*", kPlain, true},
    {"*.rs", "main.rs", kPath, true},
    {"*.rs", ".rs", kPath, true},
    {"*.rs", "main.rs.bak", kPath, false},
    {"*.rs", "main.r", kPath, false},
    {"*.rs", "mainrs", kPath, false},
    {"*.rs", "main.rs", kPlain, true},
    {"*.rs", ".rs", kPlain, true},
    {"*.rs", "main.rs.bak", kPlain, false},
    {"*.rs", "main.r", kPlain, false},
    {"*.rs", "mainrs", kPlain, false},
    {"foo*", "foo", kPath, true},
    {"foo*", "foobar", kPath, true},
    {"foo*", "fo", kPath, false},
    {"*foo", "foo", kPath, true},
    {"*foo", "xfoo", kPath, true},
    {"*foo", "foox", kPath, false},
    {"*foo*", "foo", kPath, true},
    {"*foo*", "xfooy", kPath, true},
    {"*foo*", "fo", kPath, false},
    {"*foo*", "ofo", kPath, false},
    {"a*b*c", "abc", kPath, true},
    {"a*b*c", "aXbYc", kPath, true},
    {"a*b*c", "acb", kPath, false},
    {"a*b*c", "abcbc", kPath, true},
    {"a*b*c", "aXc", kPath, false},
    {"a*b*c", "abc", kPlain, true},
    {"a*b*c", "aXbYc", kPlain, true},
    {"a*b*c", "acb", kPlain, false},
    {"a*b*c", "abcbc", kPlain, true},
    {"a*b*c", "aXc", kPlain, false},
    {"*a*a*a*b", "aaab", kPath, true},
    {"*a*a*a*b", "aaaa", kPath, false},
    {"*a*a*a*b", "ababab", kPath, true},
    {"*a*a*a*b", "aab", kPath, false},
    {"*.tar.gz", "x.tar.gz", kPath, true},
    {"*.tar.gz", "x.tar.gzip", kPath, false},
    {"*.tar.gz", ".tar.gz", kPath, true},
    {"*.tar.gz", "x.tar.g", kPath, false},
    {".*", ".env", kPath, true},
    {".*", "env", kPath, false},
    {".*", ".", kPath, true},   // W
    {".*", "..", kPath, true},  // W
    {"*~", "file~", kPath, true},
    {"*~", "~file", kPath, false},
    {"*~", "~", kPath, true},
    {"#*", "#x", kPath, true},
    {"#*", "x#", kPath, false},
    {"!foo", "!foo", kPath, true},
    {"!foo", "foo", kPath, false},
    {" foo", " foo", kPath, true},
    {" foo", "foo", kPath, false},
    {"foo bar", "foo bar", kPath, true},
    {"foo bar", "foobar", kPath, false},
    {"foo bar", "foo  bar", kPath, false},
    {"a b*", "a b", kPath, true},
    {"a b*", "a bc", kPath, true},
    {"a b*", "ab", kPath, false},
    {"caf\303\251", "caf\303\251", kPath, true},
    {"caf\303\251", "cafe", kPath, false},
    {"caf?", "caf\303\251", kPath, false},
    {"caf?", "cafe", kPath, true},
    {"caf?\?", "caf\303\251", kPath, true},
    {"caf?\?", "cafe", kPath, false},
    {"*\303\251", "caf\303\251", kPath, true},
    {"*\303\251", "\303\251", kPath, true},
    {"*\303\251", "e", kPath, false},
    {"a]b", "a]b", kPath, true},
    {"a-b", "a-b", kPath, true},
    {"{a,b}", "{a,b}", kPath, true},
    {"{a,b}", "a", kPath, false},
    {"a+b", "a+b", kPath, true},
    {"a+b", "aab", kPath, false},
    {"^a$", "^a$", kPath, true},
    {"^a$", "a", kPath, false},
    {"a.b", "a.b", kPath, true},
    {"a.b", "axb", kPath, false},
    {"(a|b)", "(a|b)", kPath, true},
    {"(a|b)", "a", kPath, false},
};

constexpr GlobCase kPaths[] = {
    {"a/b", "a/b", kPath, true},
    {"a/b", "a/b/c", kPath, false},
    {"a/b", "x/a/b", kPath, false},
    {"a/b", "ab", kPath, false},
    {"a/b", "a/bc", kPath, false},
    {"a/b", "a/b", kPlain, true},
    {"a/b", "a/b/c", kPlain, false},  // W
    {"a/b", "x/a/b", kPlain, false},
    {"a/b", "ab", kPlain, false},
    {"a/b", "a/bc", kPlain, false},
    {"a/*", "a/b", kPath, true},
    {"a/*", "a/b/c", kPath, false},
    {"a/*", "a/.x", kPath, true},
    {"a/*", "b/a", kPath, false},
    {"a/*", "a/b", kPlain, true},
    {"a/*", "a/b/c", kPlain, true},
    {"a/*", "a/.x", kPlain, true},
    {"a/*", "b/a", kPlain, false},
    {"*/b", "a/b", kPath, true},
    {"*/b", "b", kPath, false},
    {"*/b", "x/a/b", kPath, false},
    {"*/b", "a/bc", kPath, false},
    {"*/b", "a/b", kPlain, true},
    {"*/b", "b", kPlain, false},
    {"*/b", "x/a/b", kPlain, true},
    {"*/b", "a/bc", kPlain, false},
    {"*/*", "a/b", kPath, true},
    {"*/*", "a", kPath, false},
    {"*/*", "a/b/c", kPath, false},
    {"*/*", "a/b", kPlain, true},
    {"*/*", "a", kPlain, false},
    {"*/*", "a/b/c", kPlain, true},
    {"a/*/c", "a/b/c", kPath, true},
    {"a/*/c", "a/c", kPath, false},
    {"a/*/c", "a/b/x/c", kPath, false},
    {"a/*/c", "a/bb/c", kPath, true},
    {"a/*/c", "a/b/c", kPlain, true},
    {"a/*/c", "a/c", kPlain, false},
    {"a/*/c", "a/b/x/c", kPlain, true},
    {"a/*/c", "a/bb/c", kPlain, true},
    {"a/?/c", "a/b/c", kPath, true},
    {"a/?/c", "a/bb/c", kPath, false},
    {"src/*.rs", "src/main.rs", kPath, true},
    {"src/*.rs", "src/a/main.rs", kPath, false},
    {"src/*.rs", "main.rs", kPath, false},
    {"src/*.rs", "src/.rs", kPath, true},
    {"src/*.rs", "src/main.rs", kPlain, true},
    {"src/*.rs", "src/a/main.rs", kPlain, true},
    {"src/*.rs", "main.rs", kPlain, false},
    {"src/*.rs", "src/.rs", kPlain, true},
    {"*/*.c", "a/b.c", kPath, true},
    {"*/*.c", "b.c", kPath, false},
    {"*/*.c", "a/b/c.c", kPath, false},
    {"*/*.c", "a/b.c", kPlain, true},
    {"*/*.c", "b.c", kPlain, false},
    {"*/*.c", "a/b/c.c", kPlain, true},
    {"a*/b", "a/b", kPath, true},
    {"a*/b", "ab/b", kPath, true},
    {"a*/b", "axx/b", kPath, true},
    {"a*/b", "a/x/b", kPath, false},
    {"a*/b", "a/b", kPlain, true},
    {"a*/b", "ab/b", kPlain, true},
    {"a*/b", "axx/b", kPlain, true},
    {"a*/b", "a/x/b", kPlain, true},
    {"a/b*", "a/b", kPath, true},
    {"a/b*", "a/bcd", kPath, true},
    {"a/b*", "a/b/c", kPath, false},
    {"a/b*", "a/b", kPlain, true},
    {"a/b*", "a/bcd", kPlain, true},
    {"a/b*", "a/b/c", kPlain, true},
};

constexpr GlobCase kPathname[] = {
    {"*", "a/b", kPath, false},
    {"*", "/", kPath, false},  // W
    {"*", "a/b", kPlain, true},
    {"*", "/", kPlain, true},    // W
    {"a*", "a/", kPath, false},  // W
    {"a*", "a/b", kPath, false},
    {"a*", "ab", kPath, true},
    {"a*", "a/", kPlain, true},  // W
    {"a*", "a/b", kPlain, true},
    {"a*", "ab", kPlain, true},
    {"*b", "a/b", kPath, false},
    {"*b", "/b", kPath, false},  // W
    {"*b", "a/b", kPlain, true},
    {"*b", "/b", kPlain, true},  // W
    {"a*b", "a/b", kPath, false},
    {"a*b", "axb", kPath, true},
    {"a*b", "a/x/b", kPath, false},
    {"a*b", "a/b", kPlain, true},
    {"a*b", "axb", kPlain, true},
    {"a*b", "a/x/b", kPlain, true},
    {"a?b", "a/b", kPath, false},
    {"a?b", "axb", kPath, true},
    {"a?b", "a/b", kPlain, true},
    {"a?b", "axb", kPlain, true},
    {"a[/]b", "a/b", kPath, false},
    {"a[/]b", "a/b", kPlain, true},
    {"a[!x]b", "a/b", kPath, false},
    {"a[!x]b", "ayb", kPath, true},
    {"a[!x]b", "axb", kPath, false},
    {"a[!x]b", "a/b", kPlain, true},
    {"a[!x]b", "ayb", kPlain, true},
    {"a[!x]b", "axb", kPlain, false},
    {"a[^x]b", "a/b", kPath, false},
    {"a[^x]b", "a/b", kPlain, true},
    {"a[[:punct:]]b", "a/b", kPath, false},
    {"a[[:punct:]]b", "a.b", kPath, true},
    {"a[[:punct:]]b", "a/b", kPlain, true},
    {"a[[:punct:]]b", "a.b", kPlain, true},
    {"a[.-0]b", "a/b", kPath, false},
    {"a[.-0]b", "a.b", kPath, true},
    {"a[.-0]b", "a0b", kPath, true},
    {"a[.-0]b", "a/b", kPlain, true},
    {"a[.-0]b", "a.b", kPlain, true},
    {"a[.-0]b", "a0b", kPlain, true},
    {"*.c", "a/b.c", kPath, false},
    {"*.c", "b.c", kPath, true},
    {"*.c", "a/b.c", kPlain, true},
    {"*.c", "b.c", kPlain, true},
    {"?", "/", kPath, false},      // W
    {"?", "/", kPlain, true},      // W
    {"*/", "a/", kPath, true},     // W
    {"*/", "/", kPath, true},      // W
    {"*/", "a/", kPlain, true},    // W
    {"*/", "/", kPlain, true},     // W
    {"/*", "/a", kPath, true},     // W
    {"/*", "/a/b", kPath, false},  // W
    {"/*", "/a", kPlain, true},    // W
    {"/*", "/a/b", kPlain, true},  // W
};

constexpr GlobCase kPlainMode[] = {
    {"*", "a/b/c", kPlain, true},     {"*", "a/b", kPlainFold, true},
    {"*", "a/b/c", kPlainFold, true}, {"a*c", "a/b/c", kPlain, true},
    {"**/b", "b", kPlain, false},     {"**/b", "a/b", kPlain, true},
    {"**/b", "xb", kPlain, false},    {"**/b", "a/x/b", kPlain, true},
    {"a/**/b", "a//b", kPlain, true},  // W
    {"?/?", "a/b", kPlain, true},     {"?/?", "ab/c", kPlain, false},
};

constexpr GlobCase kClasses[] = {
    {"[abc]", "a", kPath, true},
    {"[abc]", "b", kPath, true},
    {"[abc]", "c", kPath, true},
    {"[abc]", "d", kPath, false},
    {"[abc]", "", kPath, false},  // W
    {"[abc]", "ab", kPath, false},
    {"[abc]", "A", kPath, false},
    {"[a-c]x", "ax", kPath, true},
    {"[a-c]x", "bx", kPath, true},
    {"[a-c]x", "cx", kPath, true},
    {"[a-c]x", "dx", kPath, false},
    {"[a-c]x", "-x", kPath, false},
    {"[!a-c]", "d", kPath, true},
    {"[!a-c]", "a", kPath, false},
    {"[!a-c]", "c", kPath, false},
    {"[!a-c]", "-", kPath, true},
    {"[^a-c]", "d", kPath, true},
    {"[^a-c]", "b", kPath, false},
    {"[]]", "]", kPath, true},
    {"[]]", "a", kPath, false},
    {"[]a]", "]", kPath, true},
    {"[]a]", "a", kPath, true},
    {"[]a]", "b", kPath, false},
    {"[!]]", "]", kPath, false},
    {"[!]]", "a", kPath, true},
    {"[^]]", "]", kPath, false},
    {"[^]]", "a", kPath, true},
    {"[a-]", "a", kPath, true},
    {"[a-]", "-", kPath, true},
    {"[a-]", "b", kPath, false},
    {"[-a]", "-", kPath, true},
    {"[-a]", "a", kPath, true},
    {"[-a]", "b", kPath, false},
    {"[!-]", "-", kPath, false},
    {"[!-]", "a", kPath, true},
    {"[a\\-z]", "-", kPath, true},
    {"[a\\-z]", "b", kPath, false},
    {"[a\\-z]", "a", kPath, true},
    {"[a\\-z]", "z", kPath, true},
    {"[\\]]", "]", kPath, true},
    {"[\\]]", "\\", kPath, false},
    {"[\\\\]", "\\", kPath, true},
    {"[\\\\]", "]", kPath, false},
    {"[\\a]", "a", kPath, true},
    {"[\\a]", "\\", kPath, false},
    {"[[]", "[", kPath, true},
    {"[[]]", "[]", kPath, true},
    {"[[]]", "[", kPath, false},
    {"[!!]", "!", kPath, false},
    {"[!!]", "a", kPath, true},
    {"[!^]", "^", kPath, false},
    {"[!^]", "a", kPath, true},
    {"[a^]", "^", kPath, true},
    {"[a^]", "a", kPath, true},
    {"[a^]", "b", kPath, false},
    {"[z-a]", "a", kPath, false},
    {"[z-a]", "z", kPath, true},
    {"[z-a]", "m", kPath, false},
    {"[!z-a]", "m", kPath, true},
    {"[!z-a]", "a", kPath, true},
    {"[a-a]", "a", kPath, true},
    {"[a-a]", "b", kPath, false},
    {"[0-9][0-9]", "42", kPath, true},
    {"[0-9][0-9]", "4a", kPath, false},
    {"[0-9][0-9]", "4", kPath, false},
    {"[a-cx-z]", "b", kPath, true},
    {"[a-cx-z]", "y", kPath, true},
    {"[a-cx-z]", "m", kPath, false},
    {"[*?]", "*", kPath, true},
    {"[*?]", "?", kPath, true},
    {"[*?]", "a", kPath, false},
    {"[*]x", "*x", kPath, true},
    {"[*]x", "ax", kPath, false},
    {"[[:alpha:]]", "a", kPath, true},
    {"[[:alpha:]]", "Z", kPath, true},
    {"[[:alpha:]]", "1", kPath, false},
    {"[[:alpha:]]", "_", kPath, false},
    {"[[:alpha:]]", "\303", kPath, false},
    {"[[:digit:]]", "5", kPath, true},
    {"[[:digit:]]", "a", kPath, false},
    {"[[:alnum:]]", "a", kPath, true},
    {"[[:alnum:]]", "5", kPath, true},
    {"[[:alnum:]]", "-", kPath, false},
    {"[[:upper:]]", "A", kPath, true},
    {"[[:upper:]]", "a", kPath, false},
    {"[[:lower:]]", "a", kPath, true},
    {"[[:lower:]]", "A", kPath, false},
    {"[[:space:]]", " ", kPath, true},
    {"[[:space:]]", "\t", kPath, true},
    {"[[:space:]]", "\n", kPath, true},
    {"[[:space:]]", "\r", kPath, true},
    {"[[:space:]]", "a", kPath, false},
    {"[![:space:]]", " ", kPath, false},
    {"[![:space:]]", "a", kPath, true},
    {"[[:blank:]]", " ", kPath, true},
    {"[[:blank:]]", "\t", kPath, true},
    {"[[:blank:]]", "\n", kPath, false},
    {"[[:punct:]]", "!", kPath, true},
    {"[[:punct:]]", "a", kPath, false},
    {"[[:punct:]]", "_", kPath, true},
    {"[[:punct:]]", "~", kPath, true},
    {"[[:punct:]]", "/", kPath, false},  // W
    {"[[:punct:]]", " ", kPath, false},
    {"[[:punct:]]", "!", kPlain, true},
    {"[[:punct:]]", "a", kPlain, false},
    {"[[:punct:]]", "_", kPlain, true},
    {"[[:punct:]]", "~", kPlain, true},
    {"[[:punct:]]", "/", kPlain, true},  // W
    {"[[:punct:]]", " ", kPlain, false},
    {"[[:xdigit:]]", "f", kPath, true},
    {"[[:xdigit:]]", "g", kPath, false},
    {"[[:xdigit:]]", "F", kPath, true},
    {"[[:xdigit:]]", "9", kPath, true},
    {"[[:cntrl:]]", "\001", kPath, true},
    {"[[:cntrl:]]", "a", kPath, false},
    {"[[:cntrl:]]", "\177", kPath, true},
    {"[[:cntrl:]]", "\037", kPath, true},
    {"[[:graph:]]", "a", kPath, true},
    {"[[:graph:]]", " ", kPath, false},
    {"[[:graph:]]", "~", kPath, true},
    {"[[:print:]]", " ", kPath, true},
    {"[[:print:]]", "\001", kPath, false},
    {"[[:print:]]", "~", kPath, true},
    {"[[:print:]]", "\177", kPath, false},
    {"[![:digit:]]", "a", kPath, true},
    {"[![:digit:]]", "1", kPath, false},
    {"[[:digit:]-z]", "-", kPath, true},
    {"[[:digit:]-z]", "5", kPath, true},
    {"[[:digit:]-z]", "z", kPath, true},
    {"[[:digit:]-z]", "a", kPath, false},
    {"[a-c[:digit:]]", "b", kPath, true},
    {"[a-c[:digit:]]", "7", kPath, true},
    {"[a-c[:digit:]]", "d", kPath, false},
    {"[[:digit:][:upper:]]x", "5x", kPath, true},
    {"[[:digit:][:upper:]]x", "Ax", kPath, true},
    {"[[:digit:][:upper:]]x", "ax", kPath, false},
    {"[[:alpha:]][[:digit:]]", "a1", kPath, true},
    {"[[:alpha:]][[:digit:]]", "1a", kPath, false},
    {"[[:foo:]]", "f", kPath, false},
    {"[[:foo:]]", "o", kPath, false},
    {"[[:foo:]]", ":", kPath, false},  // W
    {"[[:foo:]]", "[", kPath, false},
    {"[[:foo:]]", "]", kPath, false},
    {"x[[:foo:]]", "xf", kPath, false},
    {"x[[:foo:]]", "x", kPath, false},
    {"[[:foo:]]*", "anything", kPath, false},
    {"[a[:foo:]]", "a", kPath, false},
    {"[[:]]", "[", kPath, false},
    {"[[:]]", ":", kPath, false},  // W
    {"[[:]]", "]", kPath, false},
    {"[[:a]", "[", kPath, true},
    {"[[:a]", ":", kPath, true},  // W
    {"[[:a]", "a", kPath, true},
    {"[[::]]", "[", kPath, false},
    {"[[::]]", ":", kPath, false},  // W
    {"[[:alpha]", "a", kPath, true},
    {"[[:alpha]", "[", kPath, true},
    {"[x[:alpha:]", "x", kPath, false},
    {"[\303\251]", "\303\251", kPath, false},
    {"[\303\251]", "\303", kPath, true},
    {"[\303\251]", "\251", kPath, true},
    {"[\\x-\\z]", "y", kPath, true},
    {"[\\x-\\z]", "\\", kPath, false},
};

constexpr GlobCase kEscapes[] = {
    {"\\*", "*", kPath, true},         {"\\*", "a", kPath, false},
    {"\\*", "\\*", kPath, false},      {"\\?", "?", kPath, true},
    {"\\?", "a", kPath, false},        {"\\[a]", "[a]", kPath, true},
    {"\\[a]", "a", kPath, false},      {"\\[a\\]", "[a]", kPath, true},
    {"\\\\", "\\", kPath, true},       {"\\\\", "\\\\", kPath, false},
    {"\\a", "a", kPath, true},         {"\\a", "\\a", kPath, false},
    {"foo\\", "foo", kPath, false},    {"foo\\", "foo\\", kPath, false},
    {"foo\\", "foo", kPlain, false},   {"foo\\", "foo\\", kPlain, false},  // W, literal pathspec
    {"\\", "\\", kPath, false},        {"\\", "", kPath, false},           // W
    {"*\\", "a\\", kPath, false},      {"*\\", "a", kPath, false},
    {"\\\\*", "\\x", kPath, true},     {"\\\\*", "x", kPath, false},
    {"\\#x", "#x", kPath, true},       {"\\#x", "\\#x", kPath, false},
    {"\\!x", "!x", kPath, true},       {"a\\ b", "a b", kPath, true},
    {"a\\/b", "a/b", kPath, true},     {"a\\/b", "a/b", kPlain, true},
    {"\\*\\*", "**", kPath, true},     {"\\*\\*", "ab", kPath, false},
    {"a\\*b*", "a*bc", kPath, true},   {"a\\*b*", "axbc", kPath, false},
    {"f\\\\oo", "f\\oo", kPath, true},
};

constexpr GlobCase kDoubleStar[] = {
    {"**", "a", kPath, true},
    {"**", "a/b", kPath, true},
    {"**", "a/b/c", kPath, true},
    {"**", "", kPath, true},  // W
    {"**", ".x/y", kPath, true},
    {"**", "a", kPlain, true},
    {"**", "a/b", kPlain, true},
    {"**", "a/b/c", kPlain, true},
    {"**", "", kPlain, true},  // W
    {"**", ".x/y", kPlain, true},
    {"**/foo", "foo", kPath, true},
    {"**/foo", "a/foo", kPath, true},
    {"**/foo", "a/b/foo", kPath, true},
    {"**/foo", "foo/x", kPath, false},
    {"**/foo", "foo", kPlain, false},
    {"**/foo", "a/foo", kPlain, true},
    {"**/foo", "a/b/foo", kPlain, true},
    {"**/foo", "abfoo", kPlain, false},
    {"**/foo", "a/bfoo", kPlain, false},
    {"**/foo", "foo/x", kPlain, false},
    {"**/foo", "xfoo", kPlain, false},
    {"**/foo/bar", "foo/bar", kPath, true},
    {"**/foo/bar", "a/foo/bar", kPath, true},
    {"foo/**", "foo/a", kPath, true},
    {"foo/**", "foo/a/b", kPath, true},
    {"foo/**", "foo", kPath, false},
    {"foo/**", "foox/a", kPath, false},
    {"foo/**", "foo/", kPath, true},  // W
    {"foo/**", "foo/a", kPlain, true},
    {"foo/**", "foo/a/b", kPlain, true},
    {"foo/**", "foo", kPlain, false},
    {"foo/**", "foox/a", kPlain, false},
    {"foo/**", "foo/", kPlain, true},  // W
    {"a/**/b", "a/b", kPath, true},
    {"a/**/b", "a/x/b", kPath, true},
    {"a/**/b", "a/x/y/b", kPath, true},
    {"a/**/b", "ab", kPath, false},
    {"a/**/b", "a/b/c", kPath, false},
    {"a/**/b", "a/b", kPlain, false},
    {"a/**/b", "a/x/b", kPlain, true},
    {"a/**/b", "a/x/y/b", kPlain, true},
    {"a/**/b", "a/xb", kPlain, false},
    {"a/**/b", "ab", kPlain, false},
    {"a/**/b", "a/b/c", kPlain, false},
    {"a/**/b", "a/x/yb", kPlain, false},
    {"a/**/b/**/c", "a/b/c", kPath, true},
    {"a/**/b/**/c", "a/x/b/y/c", kPath, true},
    {"a/**b", "a/xb", kPath, true},
    {"a/**b", "a/x/b", kPath, false},
    {"a/**b", "a/b", kPath, true},
    {"a**/b", "ab/b", kPath, true},
    {"a**/b", "a/x/b", kPath, false},  // W, prefix
    {"a**/b", "a/b", kPath, true},
    {"a**/b", "axx/b", kPath, true},
    {"a/**/", "a/", kPath, true},    // W
    {"a/**/", "a/x/", kPath, true},  // W
    {"**a", "a", kPath, true},
    {"**a", "xa", kPath, true},
    {"**a", "x/a", kPath, false},
    {"a**", "a", kPath, true},
    {"a**", "ab", kPath, true},
    {"a**", "a/b", kPath, false},  // W, prefix
    {"a/**/**/b", "a/b", kPath, true},
    {"a/**/**/b", "a/x/b", kPath, true},
    {"a/**/**/b", "a/x/y/b", kPath, true},
    {"**/**", "a", kPath, true},
    {"**/**", "a/b", kPath, true},
    {"**/x*.rs", "x.rs", kPath, true},
    {"**/x*.rs", "a/x.rs", kPath, true},
    {"**/*.rs", "main.rs", kPath, true},
    {"**/*.rs", "src/main.rs", kPath, true},
    {"**/*.rs", "src/a/main.rs", kPath, true},
    {"**\\/foo", "a/foo", kPath, true},
    {"**\\/foo", "foo", kPath, false},
    {"**\\/foo", "a/b/foo", kPath, true},
    {"/**/x", "x", kPath, false},
    {"/**/x", "a/x", kPath, false},
    {"***/foo", "foo", kPath, true},
    {"***/foo", "a/foo", kPath, true},
    {"foo/***", "foo/a/b", kPath, true},
    {"**/", "a/", kPath, true},    // W
    {"**/", "a/b/", kPath, true},  // W
    {"*/**/x", "a/x", kPath, true},
    {"*/**/x", "x", kPath, false},
    {"*/**/x", "a/b/x", kPath, true},
    {"**/*/x", "a/x", kPath, true},
    {"**/*/x", "x", kPath, false},
    {"**/*/x", "a/b/x", kPath, true},
    {"x/**/*", "x/a", kPath, true},
    {"x/**/*", "x/a/b", kPath, true},
    {"x/**/*", "x", kPath, false},
    {"**.rs", "a.rs", kPath, true},
    {"**.rs", "a/b.rs", kPath, false},
    {"**.rs", "a.rs", kPlain, true},
    {"**.rs", "a/b.rs", kPlain, true},
    {"a/**/*.c", "a/x.c", kPath, true},
    {"a/**/*.c", "a/b/x.c", kPath, true},
    {"a/**/*.c", "ax.c", kPath, false},
};

constexpr GlobCase kFold[] = {
    {"foo", "FOO", kPathFold, true},
    {"foo", "Foo", kPathFold, true},
    {"foo", "foo", kPathFold, true},
    {"foo", "fo", kPathFold, false},
    {"foo", "FOO", kPlainFold, true},
    {"foo", "Foo", kPlainFold, true},
    {"foo", "foo", kPlainFold, true},
    {"foo", "fo", kPlainFold, false},
    {"FOO", "foo", kPathFold, true},
    {"*.RS", "main.rs", kPathFold, true},
    {"*.RS", "MAIN.RS", kPathFold, true},
    {"*.RS", "main.Rs", kPathFold, true},
    {"*.RS", "main.rs", kPlainFold, true},
    {"*.RS", "MAIN.RS", kPlainFold, true},
    {"*.RS", "main.Rs", kPlainFold, true},
    {"F?O", "foo", kPathFold, true},
    {"F?O", "FxO", kPathFold, true},
    {"*FOO*", "xfooy", kPathFold, true},
    {"**/FOO", "a/foo", kPathFold, true},
    {"**/FOO", "A/Foo", kPathFold, true},
    {"A/**/B", "a/x/b", kPathFold, true},
    {"[a-z]", "Q", kPathFold, true},
    {"[a-z]", "q", kPathFold, true},
    {"[A-Z]", "q", kPathFold, true},
    {"[A-Z]", "Q", kPathFold, true},
    {"[[:upper:]]", "q", kPathFold, true},
    {"[[:upper:]]", "Q", kPathFold, true},
    {"[[:lower:]]", "Q", kPathFold, true},
    {"[[:lower:]]", "q", kPathFold, true},
    {"[Z-a]", "z", kPathFold, true},
    {"[Z-a]", "A", kPathFold, true},
    {"[Z-a]", "_", kPathFold, true},
    {"[Z-a]", "b", kPathFold, false},
    {"[a]", "A", kPathFold, true},
    {"[a]", "a", kPathFold, true},
    {"[!a]", "A", kPathFold, false},
    {"[!a]", "b", kPathFold, true},
    {"[!A]", "b", kPathFold, true},
    {"\\a", "A", kPathFold, true},
    {"caf\303\211", "caf\303\251", kPathFold, false},
    {"caf\303\211", "CAF\303\211", kPathFold, true},
    {"\303\211", "\303\251", kPathFold, false},
    {"[@-Z]", "`", kPathFold, false},
    {"[@-Z]", "@", kPathFold, true},
    {"[@-Z]", "a", kPathFold, true},
};

constexpr GlobCase kT3070[] = {
    {"bar", "foo", kPath, false},
    {"bar", "foo", kPathFold, false},
    {"bar", "foo", kPlain, false},
    {"bar", "foo", kPlainFold, false},
    {"", "", kPathFold, true},   // W
    {"", "", kPlainFold, true},  // W
    {"?\?\?", "foo", kPath, true},
    {"?\?\?", "foo", kPathFold, true},
    {"?\?\?", "foo", kPlain, true},
    {"?\?\?", "foo", kPlainFold, true},
    {"?\?", "foo", kPath, false},
    {"?\?", "foo", kPathFold, false},
    {"?\?", "foo", kPlain, false},
    {"?\?", "foo", kPlainFold, false},
    {"*", "foo", kPath, true},
    {"*", "foo", kPathFold, true},
    {"*", "foo", kPlain, true},
    {"*", "foo", kPlainFold, true},
    {"f*", "foo", kPath, true},
    {"f*", "foo", kPathFold, true},
    {"f*", "foo", kPlain, true},
    {"f*", "foo", kPlainFold, true},
    {"*f", "foo", kPath, false},
    {"*f", "foo", kPathFold, false},
    {"*f", "foo", kPlain, false},
    {"*f", "foo", kPlainFold, false},
    {"*foo*", "foo", kPathFold, true},
    {"*foo*", "foo", kPlain, true},
    {"*foo*", "foo", kPlainFold, true},
    {"*ob*a*r*", "foobar", kPath, true},
    {"*ob*a*r*", "foobar", kPathFold, true},
    {"*ob*a*r*", "foobar", kPlain, true},
    {"*ob*a*r*", "foobar", kPlainFold, true},
    {"*ab", "aaaaaaabababab", kPath, true},
    {"*ab", "aaaaaaabababab", kPathFold, true},
    {"*ab", "aaaaaaabababab", kPlain, true},
    {"*ab", "aaaaaaabababab", kPlainFold, true},
    {"foo\\*", "foo*", kPath, true},
    {"foo\\*", "foo*", kPathFold, true},
    {"foo\\*", "foo*", kPlain, true},
    {"foo\\*", "foo*", kPlainFold, true},
    {"foo\\*bar", "foobar", kPath, false},
    {"foo\\*bar", "foobar", kPathFold, false},
    {"foo\\*bar", "foobar", kPlain, false},
    {"foo\\*bar", "foobar", kPlainFold, false},
    {"f\\\\oo", "f\\oo", kPathFold, true},
    {"f\\\\oo", "f\\oo", kPlain, true},
    {"f\\\\oo", "f\\oo", kPlainFold, true},
    {"*[al]?", "ball", kPath, true},
    {"*[al]?", "ball", kPathFold, true},
    {"*[al]?", "ball", kPlain, true},
    {"*[al]?", "ball", kPlainFold, true},
    {"[ten]", "ten", kPath, false},
    {"[ten]", "ten", kPathFold, false},
    {"[ten]", "ten", kPlain, false},
    {"[ten]", "ten", kPlainFold, false},
    {"**[!te]", "ten", kPath, true},
    {"**[!te]", "ten", kPathFold, true},
    {"**[!te]", "ten", kPlain, true},
    {"**[!te]", "ten", kPlainFold, true},
    {"**[!ten]", "ten", kPath, false},
    {"**[!ten]", "ten", kPathFold, false},
    {"**[!ten]", "ten", kPlain, false},
    {"**[!ten]", "ten", kPlainFold, false},
    {"t[a-g]n", "ten", kPath, true},
    {"t[a-g]n", "ten", kPathFold, true},
    {"t[a-g]n", "ten", kPlain, true},
    {"t[a-g]n", "ten", kPlainFold, true},
    {"t[!a-g]n", "ten", kPath, false},
    {"t[!a-g]n", "ten", kPathFold, false},
    {"t[!a-g]n", "ten", kPlain, false},
    {"t[!a-g]n", "ten", kPlainFold, false},
    {"t[!a-g]n", "ton", kPath, true},
    {"t[!a-g]n", "ton", kPathFold, true},
    {"t[!a-g]n", "ton", kPlain, true},
    {"t[!a-g]n", "ton", kPlainFold, true},
    {"t[^a-g]n", "ton", kPath, true},
    {"t[^a-g]n", "ton", kPathFold, true},
    {"t[^a-g]n", "ton", kPlain, true},
    {"t[^a-g]n", "ton", kPlainFold, true},
    {"a[]]b", "a]b", kPath, true},
    {"a[]]b", "a]b", kPathFold, true},
    {"a[]]b", "a]b", kPlain, true},
    {"a[]]b", "a]b", kPlainFold, true},
    {"a[]-]b", "a-b", kPath, true},
    {"a[]-]b", "a-b", kPathFold, true},
    {"a[]-]b", "a-b", kPlain, true},
    {"a[]-]b", "a-b", kPlainFold, true},
    {"a[]-]b", "a]b", kPath, true},
    {"a[]-]b", "a]b", kPathFold, true},
    {"a[]-]b", "a]b", kPlain, true},
    {"a[]-]b", "a]b", kPlainFold, true},
    {"a[]-]b", "aab", kPath, false},
    {"a[]-]b", "aab", kPathFold, false},
    {"a[]-]b", "aab", kPlain, false},
    {"a[]-]b", "aab", kPlainFold, false},
    {"a[]a-]b", "aab", kPath, true},
    {"a[]a-]b", "aab", kPathFold, true},
    {"a[]a-]b", "aab", kPlain, true},
    {"a[]a-]b", "aab", kPlainFold, true},
    {"]", "]", kPath, true},
    {"]", "]", kPathFold, true},
    {"]", "]", kPlain, true},
    {"]", "]", kPlainFold, true},
    {"foo*bar", "foo/baz/bar", kPath, false},
    {"foo*bar", "foo/baz/bar", kPathFold, false},
    {"foo*bar", "foo/baz/bar", kPlain, true},
    {"foo*bar", "foo/baz/bar", kPlainFold, true},
    {"foo**bar", "foo/baz/bar", kPath, false},
    {"foo**bar", "foo/baz/bar", kPathFold, false},
    {"foo**bar", "foo/baz/bar", kPlain, true},
    {"foo**bar", "foo/baz/bar", kPlainFold, true},
    {"foo**bar", "foobazbar", kPath, true},
    {"foo**bar", "foobazbar", kPathFold, true},
    {"foo**bar", "foobazbar", kPlain, true},
    {"foo**bar", "foobazbar", kPlainFold, true},
    {"foo/**/bar", "foo/baz/bar", kPath, true},
    {"foo/**/bar", "foo/baz/bar", kPathFold, true},
    {"foo/**/bar", "foo/baz/bar", kPlain, true},
    {"foo/**/bar", "foo/baz/bar", kPlainFold, true},
    {"foo/**/**/bar", "foo/baz/bar", kPath, true},
    {"foo/**/**/bar", "foo/baz/bar", kPathFold, true},
    {"foo/**/**/bar", "foo/baz/bar", kPlain, false},
    {"foo/**/**/bar", "foo/baz/bar", kPlainFold, false},
    {"foo/**/bar", "foo/b/a/z/bar", kPath, true},
    {"foo/**/bar", "foo/b/a/z/bar", kPathFold, true},
    {"foo/**/bar", "foo/b/a/z/bar", kPlain, true},
    {"foo/**/bar", "foo/b/a/z/bar", kPlainFold, true},
    {"foo/**/**/bar", "foo/b/a/z/bar", kPath, true},
    {"foo/**/**/bar", "foo/b/a/z/bar", kPathFold, true},
    {"foo/**/**/bar", "foo/b/a/z/bar", kPlain, true},
    {"foo/**/**/bar", "foo/b/a/z/bar", kPlainFold, true},
    {"foo/**/bar", "foo/bar", kPath, true},
    {"foo/**/bar", "foo/bar", kPathFold, true},
    {"foo/**/bar", "foo/bar", kPlain, false},
    {"foo/**/bar", "foo/bar", kPlainFold, false},
    {"foo/**/**/bar", "foo/bar", kPath, true},
    {"foo/**/**/bar", "foo/bar", kPathFold, true},
    {"foo/**/**/bar", "foo/bar", kPlain, false},
    {"foo/**/**/bar", "foo/bar", kPlainFold, false},
    {"foo?bar", "foo/bar", kPath, false},
    {"foo?bar", "foo/bar", kPathFold, false},
    {"foo?bar", "foo/bar", kPlain, true},
    {"foo?bar", "foo/bar", kPlainFold, true},
    {"foo[/]bar", "foo/bar", kPath, false},
    {"foo[/]bar", "foo/bar", kPathFold, false},
    {"foo[/]bar", "foo/bar", kPlain, true},
    {"foo[/]bar", "foo/bar", kPlainFold, true},
    {"foo[^a-z]bar", "foo/bar", kPath, false},
    {"foo[^a-z]bar", "foo/bar", kPathFold, false},
    {"foo[^a-z]bar", "foo/bar", kPlain, true},
    {"foo[^a-z]bar", "foo/bar", kPlainFold, true},
    {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo/bar", kPath, false},
    {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo/bar", kPathFold, false},
    {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo/bar", kPlain, true},
    {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo/bar", kPlainFold, true},
    {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", kPath, true},
    {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", kPathFold, true},
    {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", kPlain, true},
    {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", kPlainFold, true},
    {"**/foo", "foo", kPathFold, true},
    {"**/foo", "foo", kPlainFold, false},
    {"**/foo", "XXX/foo", kPath, true},
    {"**/foo", "XXX/foo", kPathFold, true},
    {"**/foo", "XXX/foo", kPlain, true},
    {"**/foo", "XXX/foo", kPlainFold, true},
    {"**/foo", "bar/baz/foo", kPath, true},
    {"**/foo", "bar/baz/foo", kPathFold, true},
    {"**/foo", "bar/baz/foo", kPlain, true},
    {"**/foo", "bar/baz/foo", kPlainFold, true},
    {"*/foo", "bar/baz/foo", kPath, false},
    {"*/foo", "bar/baz/foo", kPathFold, false},
    {"*/foo", "bar/baz/foo", kPlain, true},
    {"*/foo", "bar/baz/foo", kPlainFold, true},
    {"**/bar*", "foo/bar/baz", kPath, false},
    {"**/bar*", "foo/bar/baz", kPathFold, false},
    {"**/bar*", "foo/bar/baz", kPlain, true},
    {"**/bar*", "foo/bar/baz", kPlainFold, true},
    {"**/bar/*", "deep/foo/bar/baz", kPath, true},
    {"**/bar/*", "deep/foo/bar/baz", kPathFold, true},
    {"**/bar/*", "deep/foo/bar/baz", kPlain, true},
    {"**/bar/*", "deep/foo/bar/baz", kPlainFold, true},
    {"**/bar/*", "deep/foo/bar/baz/", kPath, false},       // W
    {"**/bar/*", "deep/foo/bar/baz/", kPathFold, false},   // W
    {"**/bar/*", "deep/foo/bar/baz/", kPlain, true},       // W
    {"**/bar/*", "deep/foo/bar/baz/", kPlainFold, true},   // W
    {"**/bar/**", "deep/foo/bar/baz/", kPath, true},       // W
    {"**/bar/**", "deep/foo/bar/baz/", kPathFold, true},   // W
    {"**/bar/**", "deep/foo/bar/baz/", kPlain, true},      // W
    {"**/bar/**", "deep/foo/bar/baz/", kPlainFold, true},  // W
    {"**/bar/*", "deep/foo/bar", kPath, false},
    {"**/bar/*", "deep/foo/bar", kPathFold, false},
    {"**/bar/*", "deep/foo/bar", kPlain, false},
    {"**/bar/*", "deep/foo/bar", kPlainFold, false},
    {"**/bar/**", "deep/foo/bar/", kPath, true},       // W
    {"**/bar/**", "deep/foo/bar/", kPathFold, true},   // W
    {"**/bar/**", "deep/foo/bar/", kPlain, true},      // W
    {"**/bar/**", "deep/foo/bar/", kPlainFold, true},  // W
    {"**/bar**", "foo/bar/baz", kPath, false},
    {"**/bar**", "foo/bar/baz", kPathFold, false},
    {"**/bar**", "foo/bar/baz", kPlain, true},
    {"**/bar**", "foo/bar/baz", kPlainFold, true},
    {"*/bar/**", "foo/bar/baz/x", kPath, true},
    {"*/bar/**", "foo/bar/baz/x", kPathFold, true},
    {"*/bar/**", "foo/bar/baz/x", kPlain, true},
    {"*/bar/**", "foo/bar/baz/x", kPlainFold, true},
    {"*/bar/**", "deep/foo/bar/baz/x", kPath, false},
    {"*/bar/**", "deep/foo/bar/baz/x", kPathFold, false},
    {"*/bar/**", "deep/foo/bar/baz/x", kPlain, true},
    {"*/bar/**", "deep/foo/bar/baz/x", kPlainFold, true},
    {"**/bar/*/*", "deep/foo/bar/baz/x", kPath, true},
    {"**/bar/*/*", "deep/foo/bar/baz/x", kPathFold, true},
    {"**/bar/*/*", "deep/foo/bar/baz/x", kPlain, true},
    {"**/bar/*/*", "deep/foo/bar/baz/x", kPlainFold, true},
    {"a[c-c]st", "acrt", kPath, false},
    {"a[c-c]st", "acrt", kPathFold, false},
    {"a[c-c]st", "acrt", kPlain, false},
    {"a[c-c]st", "acrt", kPlainFold, false},
    {"a[c-c]rt", "acrt", kPath, true},
    {"a[c-c]rt", "acrt", kPathFold, true},
    {"a[c-c]rt", "acrt", kPlain, true},
    {"a[c-c]rt", "acrt", kPlainFold, true},
    {"[!]-]", "]", kPath, false},
    {"[!]-]", "]", kPathFold, false},
    {"[!]-]", "]", kPlain, false},
    {"[!]-]", "]", kPlainFold, false},
    {"[!]-]", "a", kPath, true},
    {"[!]-]", "a", kPathFold, true},
    {"[!]-]", "a", kPlain, true},
    {"[!]-]", "a", kPlainFold, true},
    {"\\", "", kPathFold, false},   // W
    {"\\", "", kPlain, false},      // W
    {"\\", "", kPlainFold, false},  // W
    {"\\", "\\", kPathFold, false},
    {"\\", "\\", kPlain, false},      // W, literal pathspec
    {"\\", "\\", kPlainFold, false},  // W, literal pathspec
    {"*/\\", "XXX/\\", kPath, false},
    {"*/\\", "XXX/\\", kPathFold, false},
    {"*/\\", "XXX/\\", kPlain, false},
    {"*/\\", "XXX/\\", kPlainFold, false},
    {"*/\\\\", "XXX/\\", kPath, true},
    {"*/\\\\", "XXX/\\", kPathFold, true},
    {"*/\\\\", "XXX/\\", kPlain, true},
    {"*/\\\\", "XXX/\\", kPlainFold, true},
    {"@foo", "@foo", kPath, true},
    {"@foo", "@foo", kPathFold, true},
    {"@foo", "@foo", kPlain, true},
    {"@foo", "@foo", kPlainFold, true},
    {"@foo", "foo", kPath, false},
    {"@foo", "foo", kPathFold, false},
    {"@foo", "foo", kPlain, false},
    {"@foo", "foo", kPlainFold, false},
    {"\\[ab]", "[ab]", kPath, true},
    {"\\[ab]", "[ab]", kPathFold, true},
    {"\\[ab]", "[ab]", kPlain, true},
    {"\\[ab]", "[ab]", kPlainFold, true},
    {"[[]ab]", "[ab]", kPath, true},
    {"[[]ab]", "[ab]", kPathFold, true},
    {"[[]ab]", "[ab]", kPlain, true},
    {"[[]ab]", "[ab]", kPlainFold, true},
    {"[[:]ab]", "[ab]", kPath, true},
    {"[[:]ab]", "[ab]", kPathFold, true},
    {"[[:]ab]", "[ab]", kPlain, true},
    {"[[:]ab]", "[ab]", kPlainFold, true},
    {"[[::]ab]", "[ab]", kPath, false},
    {"[[::]ab]", "[ab]", kPathFold, false},
    {"[[::]ab]", "[ab]", kPlain, false},
    {"[[::]ab]", "[ab]", kPlainFold, false},
    {"[[:digit]ab]", "[ab]", kPath, true},
    {"[[:digit]ab]", "[ab]", kPathFold, true},
    {"[[:digit]ab]", "[ab]", kPlain, true},
    {"[[:digit]ab]", "[ab]", kPlainFold, true},
    {"[\\[:]ab]", "[ab]", kPath, true},
    {"[\\[:]ab]", "[ab]", kPathFold, true},
    {"[\\[:]ab]", "[ab]", kPlain, true},
    {"[\\[:]ab]", "[ab]", kPlainFold, true},
    {"\\?\?\\?b", "?a?b", kPath, true},
    {"\\?\?\\?b", "?a?b", kPathFold, true},
    {"\\?\?\\?b", "?a?b", kPlain, true},
    {"\\?\?\\?b", "?a?b", kPlainFold, true},
    {"\\a\\b\\c", "abc", kPath, true},
    {"\\a\\b\\c", "abc", kPathFold, true},
    {"\\a\\b\\c", "abc", kPlain, true},
    {"\\a\\b\\c", "abc", kPlainFold, true},
    {"", "foo", kPath, false},       // W
    {"", "foo", kPathFold, false},   // W
    {"", "foo", kPlain, false},      // W
    {"", "foo", kPlainFold, false},  // W
    {"**/t[o]", "foo/bar/baz/to", kPath, true},
    {"**/t[o]", "foo/bar/baz/to", kPathFold, true},
    {"**/t[o]", "foo/bar/baz/to", kPlain, true},
    {"**/t[o]", "foo/bar/baz/to", kPlainFold, true},
    {"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", kPath, true},
    {"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", kPathFold, true},
    {"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", kPlain, true},
    {"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", kPlainFold, true},
    {"[[:digit:][:upper:][:space:]]", "a", kPath, false},
    {"[[:digit:][:upper:][:space:]]", "a", kPathFold, true},
    {"[[:digit:][:upper:][:space:]]", "a", kPlain, false},
    {"[[:digit:][:upper:][:space:]]", "a", kPlainFold, true},
    {"[[:digit:][:upper:][:space:]]", "A", kPath, true},
    {"[[:digit:][:upper:][:space:]]", "A", kPathFold, true},
    {"[[:digit:][:upper:][:space:]]", "A", kPlain, true},
    {"[[:digit:][:upper:][:space:]]", "A", kPlainFold, true},
    {"[[:digit:][:upper:][:space:]]", "1", kPath, true},
    {"[[:digit:][:upper:][:space:]]", "1", kPathFold, true},
    {"[[:digit:][:upper:][:space:]]", "1", kPlain, true},
    {"[[:digit:][:upper:][:space:]]", "1", kPlainFold, true},
    {"[[:digit:][:upper:][:spaci:]]", "1", kPath, false},
    {"[[:digit:][:upper:][:spaci:]]", "1", kPathFold, false},
    {"[[:digit:][:upper:][:spaci:]]", "1", kPlain, false},
    {"[[:digit:][:upper:][:spaci:]]", "1", kPlainFold, false},
    {"[[:digit:][:upper:][:space:]]", " ", kPath, true},
    {"[[:digit:][:upper:][:space:]]", " ", kPathFold, true},
    {"[[:digit:][:upper:][:space:]]", " ", kPlain, true},
    {"[[:digit:][:upper:][:space:]]", " ", kPlainFold, true},
    {"[[:digit:][:upper:][:space:]]", ".", kPath, false},       // W
    {"[[:digit:][:upper:][:space:]]", ".", kPathFold, false},   // W
    {"[[:digit:][:upper:][:space:]]", ".", kPlain, false},      // W
    {"[[:digit:][:upper:][:space:]]", ".", kPlainFold, false},  // W
    {"[[:digit:][:punct:][:space:]]", ".", kPath, true},        // W
    {"[[:digit:][:punct:][:space:]]", ".", kPathFold, true},    // W
    {"[[:digit:][:punct:][:space:]]", ".", kPlain, true},       // W
    {"[[:digit:][:punct:][:space:]]", ".", kPlainFold, true},   // W
    {"[[:xdigit:]]", "5", kPath, true},
    {"[[:xdigit:]]", "5", kPathFold, true},
    {"[[:xdigit:]]", "5", kPlain, true},
    {"[[:xdigit:]]", "5", kPlainFold, true},
    {"[[:xdigit:]]", "f", kPathFold, true},
    {"[[:xdigit:]]", "f", kPlain, true},
    {"[[:xdigit:]]", "f", kPlainFold, true},
    {"[[:xdigit:]]", "D", kPath, true},
    {"[[:xdigit:]]", "D", kPathFold, true},
    {"[[:xdigit:]]", "D", kPlain, true},
    {"[[:xdigit:]]", "D", kPlainFold, true},
    {"[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:"
     "upper:][:xdigit:]]",
     "_", kPath, true},
    {"[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:"
     "upper:][:xdigit:]]",
     "_", kPathFold, true},
    {"[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:"
     "upper:][:xdigit:]]",
     "_", kPlain, true},
    {"[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:"
     "upper:][:xdigit:]]",
     "_", kPlainFold, true},
    {"[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]", ".",
     kPath, true},  // W
    {"[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]", ".",
     kPathFold, true},  // W
    {"[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]", ".",
     kPlain, true},  // W
    {"[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]", ".",
     kPlainFold, true},  // W
    {"[a-c[:digit:]x-z]", "5", kPath, true},
    {"[a-c[:digit:]x-z]", "5", kPathFold, true},
    {"[a-c[:digit:]x-z]", "5", kPlain, true},
    {"[a-c[:digit:]x-z]", "5", kPlainFold, true},
    {"[a-c[:digit:]x-z]", "b", kPath, true},
    {"[a-c[:digit:]x-z]", "b", kPathFold, true},
    {"[a-c[:digit:]x-z]", "b", kPlain, true},
    {"[a-c[:digit:]x-z]", "b", kPlainFold, true},
    {"[a-c[:digit:]x-z]", "y", kPath, true},
    {"[a-c[:digit:]x-z]", "y", kPathFold, true},
    {"[a-c[:digit:]x-z]", "y", kPlain, true},
    {"[a-c[:digit:]x-z]", "y", kPlainFold, true},
    {"[a-c[:digit:]x-z]", "q", kPath, false},
    {"[a-c[:digit:]x-z]", "q", kPathFold, false},
    {"[a-c[:digit:]x-z]", "q", kPlain, false},
    {"[a-c[:digit:]x-z]", "q", kPlainFold, false},
    {"[\\\\-^]", "]", kPath, true},
    {"[\\\\-^]", "]", kPathFold, true},
    {"[\\\\-^]", "]", kPlain, true},
    {"[\\\\-^]", "]", kPlainFold, true},
    {"[\\\\-^]", "[", kPath, false},
    {"[\\\\-^]", "[", kPathFold, false},
    {"[\\\\-^]", "[", kPlain, false},
    {"[\\\\-^]", "[", kPlainFold, false},
    {"[\\-_]", "-", kPath, true},
    {"[\\-_]", "-", kPathFold, true},
    {"[\\-_]", "-", kPlain, true},
    {"[\\-_]", "-", kPlainFold, true},
    {"[\\]]", "]", kPathFold, true},
    {"[\\]]", "]", kPlain, true},
    {"[\\]]", "]", kPlainFold, true},
    {"[\\]]", "\\]", kPath, false},
    {"[\\]]", "\\]", kPathFold, false},
    {"[\\]]", "\\]", kPlain, false},
    {"[\\]]", "\\]", kPlainFold, false},
    {"[\\]]", "\\", kPathFold, false},
    {"[\\]]", "\\", kPlain, false},
    {"[\\]]", "\\", kPlainFold, false},
    {"a[]b", "ab", kPath, false},
    {"a[]b", "ab", kPathFold, false},
    {"a[]b", "ab", kPlain, false},
    {"a[]b", "ab", kPlainFold, false},
    {"[!", "ab", kPath, false},
    {"[!", "ab", kPathFold, false},
    {"[!", "ab", kPlain, false},
    {"[!", "ab", kPlainFold, false},
    {"[-", "ab", kPath, false},
    {"[-", "ab", kPathFold, false},
    {"[-", "ab", kPlain, false},
    {"[-", "ab", kPlainFold, false},
    {"[-]", "-", kPath, true},
    {"[-]", "-", kPathFold, true},
    {"[-]", "-", kPlain, true},
    {"[-]", "-", kPlainFold, true},
    {"[a-", "-", kPath, false},
    {"[a-", "-", kPathFold, false},
    {"[a-", "-", kPlain, false},
    {"[a-", "-", kPlainFold, false},
    {"[!a-", "-", kPath, false},
    {"[!a-", "-", kPathFold, false},
    {"[!a-", "-", kPlain, false},
    {"[!a-", "-", kPlainFold, false},
    {"[--A]", "-", kPath, true},
    {"[--A]", "-", kPathFold, true},
    {"[--A]", "-", kPlain, true},
    {"[--A]", "-", kPlainFold, true},
    {"[--A]", "5", kPath, true},
    {"[--A]", "5", kPathFold, true},
    {"[--A]", "5", kPlain, true},
    {"[--A]", "5", kPlainFold, true},
    {"[ --]", " ", kPath, true},
    {"[ --]", " ", kPathFold, true},
    {"[ --]", " ", kPlain, true},
    {"[ --]", " ", kPlainFold, true},
    {"[ --]", "$", kPath, true},
    {"[ --]", "$", kPathFold, true},
    {"[ --]", "$", kPlain, true},
    {"[ --]", "$", kPlainFold, true},
    {"[ --]", "-", kPath, true},
    {"[ --]", "-", kPathFold, true},
    {"[ --]", "-", kPlain, true},
    {"[ --]", "-", kPlainFold, true},
    {"[ --]", "0", kPath, false},
    {"[ --]", "0", kPathFold, false},
    {"[ --]", "0", kPlain, false},
    {"[ --]", "0", kPlainFold, false},
    {"[---]", "-", kPath, true},
    {"[---]", "-", kPathFold, true},
    {"[---]", "-", kPlain, true},
    {"[---]", "-", kPlainFold, true},
    {"[------]", "-", kPath, true},
    {"[------]", "-", kPathFold, true},
    {"[------]", "-", kPlain, true},
    {"[------]", "-", kPlainFold, true},
    {"[a-e-n]", "j", kPath, false},
    {"[a-e-n]", "j", kPathFold, false},
    {"[a-e-n]", "j", kPlain, false},
    {"[a-e-n]", "j", kPlainFold, false},
    {"[a-e-n]", "-", kPath, true},
    {"[a-e-n]", "-", kPathFold, true},
    {"[a-e-n]", "-", kPlain, true},
    {"[a-e-n]", "-", kPlainFold, true},
    {"[!------]", "a", kPath, true},
    {"[!------]", "a", kPathFold, true},
    {"[!------]", "a", kPlain, true},
    {"[!------]", "a", kPlainFold, true},
    {"[]-a]", "[", kPath, false},
    {"[]-a]", "[", kPathFold, false},
    {"[]-a]", "[", kPlain, false},
    {"[]-a]", "[", kPlainFold, false},
    {"[]-a]", "^", kPath, true},
    {"[]-a]", "^", kPathFold, true},
    {"[]-a]", "^", kPlain, true},
    {"[]-a]", "^", kPlainFold, true},
    {"[!]-a]", "^", kPath, false},
    {"[!]-a]", "^", kPathFold, false},
    {"[!]-a]", "^", kPlain, false},
    {"[!]-a]", "^", kPlainFold, false},
    {"[!]-a]", "[", kPath, true},
    {"[!]-a]", "[", kPathFold, true},
    {"[!]-a]", "[", kPlain, true},
    {"[!]-a]", "[", kPlainFold, true},
    {"[a^bc]", "^", kPath, true},
    {"[a^bc]", "^", kPathFold, true},
    {"[a^bc]", "^", kPlain, true},
    {"[a^bc]", "^", kPlainFold, true},
    {"[a-]b]", "-b]", kPath, true},
    {"[a-]b]", "-b]", kPathFold, true},
    {"[a-]b]", "-b]", kPlain, true},
    {"[a-]b]", "-b]", kPlainFold, true},
    {"[\\]", "\\", kPath, false},
    {"[\\]", "\\", kPathFold, false},
    {"[\\]", "\\", kPlain, false},
    {"[\\]", "\\", kPlainFold, false},
    {"[\\\\]", "\\", kPathFold, true},
    {"[\\\\]", "\\", kPlain, true},
    {"[\\\\]", "\\", kPlainFold, true},
    {"[!\\\\]", "\\", kPath, false},
    {"[!\\\\]", "\\", kPathFold, false},
    {"[!\\\\]", "\\", kPlain, false},
    {"[!\\\\]", "\\", kPlainFold, false},
    {"[A-\\\\]", "G", kPath, true},
    {"[A-\\\\]", "G", kPathFold, true},
    {"[A-\\\\]", "G", kPlain, true},
    {"[A-\\\\]", "G", kPlainFold, true},
    {"b*a", "aaabbb", kPath, false},
    {"b*a", "aaabbb", kPathFold, false},
    {"b*a", "aaabbb", kPlain, false},
    {"b*a", "aaabbb", kPlainFold, false},
    {"*ba*", "aabcaa", kPath, false},
    {"*ba*", "aabcaa", kPathFold, false},
    {"*ba*", "aabcaa", kPlain, false},
    {"*ba*", "aabcaa", kPlainFold, false},
    {"[,]", ",", kPath, true},
    {"[,]", ",", kPathFold, true},
    {"[,]", ",", kPlain, true},
    {"[,]", ",", kPlainFold, true},
    {"[\\\\,]", ",", kPath, true},
    {"[\\\\,]", ",", kPathFold, true},
    {"[\\\\,]", ",", kPlain, true},
    {"[\\\\,]", ",", kPlainFold, true},
    {"[\\\\,]", "\\", kPath, true},
    {"[\\\\,]", "\\", kPathFold, true},
    {"[\\\\,]", "\\", kPlain, true},
    {"[\\\\,]", "\\", kPlainFold, true},
    {"[,-.]", "-", kPath, true},
    {"[,-.]", "-", kPathFold, true},
    {"[,-.]", "-", kPlain, true},
    {"[,-.]", "-", kPlainFold, true},
    {"[,-.]", "+", kPath, false},
    {"[,-.]", "+", kPathFold, false},
    {"[,-.]", "+", kPlain, false},
    {"[,-.]", "+", kPlainFold, false},
    {"[,-.]", "-.]", kPath, false},
    {"[,-.]", "-.]", kPathFold, false},
    {"[,-.]", "-.]", kPlain, false},
    {"[,-.]", "-.]", kPlainFold, false},
    {"[\\1-\\3]", "2", kPath, true},
    {"[\\1-\\3]", "2", kPathFold, true},
    {"[\\1-\\3]", "2", kPlain, true},
    {"[\\1-\\3]", "2", kPlainFold, true},
    {"[\\1-\\3]", "3", kPath, true},
    {"[\\1-\\3]", "3", kPathFold, true},
    {"[\\1-\\3]", "3", kPlain, true},
    {"[\\1-\\3]", "3", kPlainFold, true},
    {"[\\1-\\3]", "4", kPath, false},
    {"[\\1-\\3]", "4", kPathFold, false},
    {"[\\1-\\3]", "4", kPlain, false},
    {"[\\1-\\3]", "4", kPlainFold, false},
    {"[[-\\]]", "\\", kPath, true},
    {"[[-\\]]", "\\", kPathFold, true},
    {"[[-\\]]", "\\", kPlain, true},
    {"[[-\\]]", "\\", kPlainFold, true},
    {"[[-\\]]", "[", kPath, true},
    {"[[-\\]]", "[", kPathFold, true},
    {"[[-\\]]", "[", kPlain, true},
    {"[[-\\]]", "[", kPlainFold, true},
    {"[[-\\]]", "]", kPath, true},
    {"[[-\\]]", "]", kPathFold, true},
    {"[[-\\]]", "]", kPlain, true},
    {"[[-\\]]", "]", kPlainFold, true},
    {"[[-\\]]", "-", kPath, false},
    {"[[-\\]]", "-", kPathFold, false},
    {"[[-\\]]", "-", kPlain, false},
    {"[[-\\]]", "-", kPlainFold, false},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1",
     kPath, true},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1",
     kPathFold, true},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1",
     kPlain, true},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1",
     kPlainFold, true},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1",
     kPath, false},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1",
     kPathFold, false},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1",
     kPlain, false},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1",
     kPlainFold, false},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1",
     kPath, false},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1",
     kPathFold, false},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1",
     kPlain, false},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1",
     kPlainFold, false},
    {"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*",
     "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", kPath, true},  // W
    {"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*",
     "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", kPathFold, true},  // W
    {"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*",
     "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", kPlain, true},  // W
    {"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*",
     "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", kPlainFold, true},  // W
    {"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*",
     "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", kPath, false},  // W
    {"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*",
     "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", kPathFold, false},  // W
    {"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*",
     "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", kPlain, false},  // W
    {"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*",
     "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", kPlainFold, false},  // W
    {"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", kPath, true},
    {"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", kPathFold, true},
    {"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", kPlain, true},
    {"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", kPlainFold, true},
    {"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", kPath, false},
    {"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", kPathFold, false},
    {"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", kPlain, false},
    {"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", kPlainFold, false},
    {"*/*/*", "foo", kPath, false},
    {"*/*/*", "foo", kPathFold, false},
    {"*/*/*", "foo", kPlain, false},
    {"*/*/*", "foo", kPlainFold, false},
    {"*/*/*", "foo/bar", kPath, false},
    {"*/*/*", "foo/bar", kPathFold, false},
    {"*/*/*", "foo/bar", kPlain, false},
    {"*/*/*", "foo/bar", kPlainFold, false},
    {"*/*/*", "foo/bba/arr", kPath, true},
    {"*/*/*", "foo/bba/arr", kPathFold, true},
    {"*/*/*", "foo/bba/arr", kPlain, true},
    {"*/*/*", "foo/bba/arr", kPlainFold, true},
    {"*/*/*", "foo/bb/aa/rr", kPath, false},
    {"*/*/*", "foo/bb/aa/rr", kPathFold, false},
    {"*/*/*", "foo/bb/aa/rr", kPlain, true},
    {"*/*/*", "foo/bb/aa/rr", kPlainFold, true},
    {"**/**/**", "foo/bb/aa/rr", kPath, true},
    {"**/**/**", "foo/bb/aa/rr", kPathFold, true},
    {"**/**/**", "foo/bb/aa/rr", kPlain, true},
    {"**/**/**", "foo/bb/aa/rr", kPlainFold, true},
    {"*X*i", "abcXdefXghi", kPath, true},
    {"*X*i", "abcXdefXghi", kPathFold, true},
    {"*X*i", "abcXdefXghi", kPlain, true},
    {"*X*i", "abcXdefXghi", kPlainFold, true},
    {"*X*i", "ab/cXd/efXg/hi", kPath, false},
    {"*X*i", "ab/cXd/efXg/hi", kPathFold, false},
    {"*X*i", "ab/cXd/efXg/hi", kPlain, true},
    {"*X*i", "ab/cXd/efXg/hi", kPlainFold, true},
    {"*/*X*/*/*i", "ab/cXd/efXg/hi", kPath, true},
    {"*/*X*/*/*i", "ab/cXd/efXg/hi", kPathFold, true},
    {"*/*X*/*/*i", "ab/cXd/efXg/hi", kPlain, true},
    {"*/*X*/*/*i", "ab/cXd/efXg/hi", kPlainFold, true},
    {"**/*X*/**/*i", "ab/cXd/efXg/hi", kPath, true},
    {"**/*X*/**/*i", "ab/cXd/efXg/hi", kPathFold, true},
    {"**/*X*/**/*i", "ab/cXd/efXg/hi", kPlain, true},
    {"**/*X*/**/*i", "ab/cXd/efXg/hi", kPlainFold, true},
    {"fo", "foo", kPath, false},
    {"fo", "foo", kPathFold, false},
    {"fo", "foo", kPlain, false},
    {"fo", "foo", kPlainFold, false},
    {"foo/bar", "foo/bar", kPath, true},
    {"foo/bar", "foo/bar", kPathFold, true},
    {"foo/bar", "foo/bar", kPlain, true},
    {"foo/bar", "foo/bar", kPlainFold, true},
    {"foo/*", "foo/bar", kPath, true},
    {"foo/*", "foo/bar", kPathFold, true},
    {"foo/*", "foo/bar", kPlain, true},
    {"foo/*", "foo/bar", kPlainFold, true},
    {"foo/*", "foo/bba/arr", kPath, false},
    {"foo/*", "foo/bba/arr", kPathFold, false},
    {"foo/*", "foo/bba/arr", kPlain, true},
    {"foo/*", "foo/bba/arr", kPlainFold, true},
    {"foo/**", "foo/bba/arr", kPath, true},
    {"foo/**", "foo/bba/arr", kPathFold, true},
    {"foo/**", "foo/bba/arr", kPlain, true},
    {"foo/**", "foo/bba/arr", kPlainFold, true},
    {"foo*", "foo/bba/arr", kPath, false},
    {"foo*", "foo/bba/arr", kPathFold, false},
    {"foo*", "foo/bba/arr", kPlain, true},
    {"foo*", "foo/bba/arr", kPlainFold, true},
    {"foo**", "foo/bba/arr", kPath, false},      // W, prefix
    {"foo**", "foo/bba/arr", kPathFold, false},  // W, prefix
    {"foo**", "foo/bba/arr", kPlain, true},
    {"foo**", "foo/bba/arr", kPlainFold, true},
    {"foo/*arr", "foo/bba/arr", kPath, false},
    {"foo/*arr", "foo/bba/arr", kPathFold, false},
    {"foo/*arr", "foo/bba/arr", kPlain, true},
    {"foo/*arr", "foo/bba/arr", kPlainFold, true},
    {"foo/**arr", "foo/bba/arr", kPath, false},
    {"foo/**arr", "foo/bba/arr", kPathFold, false},
    {"foo/**arr", "foo/bba/arr", kPlain, true},
    {"foo/**arr", "foo/bba/arr", kPlainFold, true},
    {"foo/*z", "foo/bba/arr", kPath, false},
    {"foo/*z", "foo/bba/arr", kPathFold, false},
    {"foo/*z", "foo/bba/arr", kPlain, false},
    {"foo/*z", "foo/bba/arr", kPlainFold, false},
    {"foo/**z", "foo/bba/arr", kPath, false},
    {"foo/**z", "foo/bba/arr", kPathFold, false},
    {"foo/**z", "foo/bba/arr", kPlain, false},
    {"foo/**z", "foo/bba/arr", kPlainFold, false},
    {"*Xg*i", "ab/cXd/efXg/hi", kPath, false},
    {"*Xg*i", "ab/cXd/efXg/hi", kPathFold, false},
    {"*Xg*i", "ab/cXd/efXg/hi", kPlain, true},
    {"*Xg*i", "ab/cXd/efXg/hi", kPlainFold, true},
    {"[A-Z]", "a", kPath, false},
    {"[A-Z]", "a", kPathFold, true},
    {"[A-Z]", "a", kPlain, false},
    {"[A-Z]", "a", kPlainFold, true},
    {"[A-Z]", "A", kPath, true},
    {"[A-Z]", "A", kPathFold, true},
    {"[A-Z]", "A", kPlain, true},
    {"[A-Z]", "A", kPlainFold, true},
    {"[a-z]", "A", kPath, false},
    {"[a-z]", "A", kPathFold, true},
    {"[a-z]", "A", kPlain, false},
    {"[a-z]", "A", kPlainFold, true},
    {"[a-z]", "a", kPath, true},
    {"[a-z]", "a", kPathFold, true},
    {"[a-z]", "a", kPlain, true},
    {"[a-z]", "a", kPlainFold, true},
    {"[[:upper:]]", "a", kPathFold, true},
    {"[[:upper:]]", "a", kPlain, false},
    {"[[:upper:]]", "a", kPlainFold, true},
    {"[[:upper:]]", "A", kPathFold, true},
    {"[[:upper:]]", "A", kPlain, true},
    {"[[:upper:]]", "A", kPlainFold, true},
    {"[[:lower:]]", "A", kPathFold, true},
    {"[[:lower:]]", "A", kPlain, false},
    {"[[:lower:]]", "A", kPlainFold, true},
    {"[[:lower:]]", "a", kPathFold, true},
    {"[[:lower:]]", "a", kPlain, true},
    {"[[:lower:]]", "a", kPlainFold, true},
    {"[B-Za]", "A", kPath, false},
    {"[B-Za]", "A", kPathFold, true},
    {"[B-Za]", "A", kPlain, false},
    {"[B-Za]", "A", kPlainFold, true},
    {"[B-Za]", "a", kPath, true},
    {"[B-Za]", "a", kPathFold, true},
    {"[B-Za]", "a", kPlain, true},
    {"[B-Za]", "a", kPlainFold, true},
    {"[B-a]", "A", kPath, false},
    {"[B-a]", "A", kPathFold, true},
    {"[B-a]", "A", kPlain, false},
    {"[B-a]", "A", kPlainFold, true},
    {"[B-a]", "a", kPath, true},
    {"[B-a]", "a", kPathFold, true},
    {"[B-a]", "a", kPlain, true},
    {"[B-a]", "a", kPlainFold, true},
    {"[Z-y]", "z", kPath, false},
    {"[Z-y]", "z", kPathFold, true},
    {"[Z-y]", "z", kPlain, false},
    {"[Z-y]", "z", kPlainFold, true},
    {"[Z-y]", "Z", kPath, true},
    {"[Z-y]", "Z", kPathFold, true},
    {"[Z-y]", "Z", kPlain, true},
    {"[Z-y]", "Z", kPlainFold, true},
};

constexpr GlobCase kUnclosed[] = {
    {"[abc", "[abc", kPath, true},  // git: no match
    {"[abc", "a", kPath, false},
    {"[abc", "[abc]", kPath, false},
    {"a[", "a[", kPath, true},  // git: no match
    {"a[", "a", kPath, false},
    {"a[", "a[", kPlain, true},  // git: no match
    {"a[", "a", kPlain, false},
    {"[", "[", kPath, true},    // git: no match
    {"[!", "[!", kPath, true},  // git: no match
    {"[!", "a", kPath, false},
    {"[a-", "[a-", kPath, true},  // git: no match
    {"[a-", "a", kPath, false},
    {"[]", "[]", kPath, true},    // git: no match
    {"[!]", "[!]", kPath, true},  // git: no match
    {"[!]", "a", kPath, false},
    {"[\\]", "[]", kPath, true},  // git: no match
    {"[\\]", "[\\]", kPath, false},
    {"x[*", "x[yz", kPath, true},  // git: no match
    {"x[*", "x[", kPath, true},    // git: no match
    {"x[*", "xy", kPath, false},
    {"[[:alpha:]", "[[:alpha:]", kPath, false},
    {"[[:alpha:]", "a", kPath, false},
    {"[[:alpha:]", "[a", kPath, true},  // git: no match
    {"[[:", "[[:", kPath, true},        // git: no match
    {"[abc/*", "[abc/x", kPath, true},  // git: no match
    {"[abc/*", "[abc/x/y", kPath, false},
    {"[abc/*", "[abc/x", kPlain, true},    // git: no match
    {"[abc/*", "[abc/x/y", kPlain, true},  // git: no match
    {"[a]b[", "ab[", kPath, true},         // git: no match
    {"[a]b[", "ab", kPath, false},
    {"foo[0-9", "foo[0-9", kPath, true},  // git: no match
    {"foo[0-9", "foo1", kPath, false},
    {"[A", "[a", kPathFold, true},       // git: no match
    {"[A", "[A", kPathFold, true},       // git: no match
    {"*[", "x[", kPath, true},           // git: no match
    {"*[", "[", kPath, true},            // git: no match
    {"a[]b", "a[]b", kPath, true},       // git: no match
    {"a[]b", "a[]b", kPathFold, true},   // git: no match
    {"a[]b", "a[]b", kPlain, true},      // git: no match
    {"a[]b", "a[]b", kPlainFold, true},  // git: no match
    {"ab[", "ab[", kPath, true},         // git: no match
    {"ab[", "ab[", kPathFold, true},     // git: no match
    {"ab[", "ab[", kPlain, true},        // git: no match
    {"ab[", "ab[", kPlainFold, true},    // git: no match
};

// Former disagreements, now matching git: `**/` only re-enters at a component start, and
// [:space:] is git's " \t\n\r" (git's ctype.c), without \v and \f.
constexpr GlobCase kFixedRegressions[] = {
    {"**/foo", "abfoo", kPath, false},       {"**/foo", "a/bfoo", kPath, false},
    {"**/foo", "xfoo", kPath, false},        {"**/foo/bar", "afoo/bar", kPath, false},
    {"a/**/b", "a/xb", kPath, false},        {"a/**/b", "a/x/yb", kPath, false},
    {"a/**/b/**/c", "a/xb/c", kPath, false}, {"a/**/b/**/c", "a/b/yc", kPath, false},
    {"a/**/", "a/x", kPath, false},  // W
    {"**/x*.rs", "ax.rs", kPath, false},     {"**/x*.rs", "a/bx.rs", kPath, false},
    {"***/foo", "xfoo", kPath, false},       {"**/", "zz", kPath, false},  // W
    {"[[:space:]]", "\v", kPath, false},     {"[[:space:]]", "\f", kPath, false},
    {"[![:space:]]", "\v", kPath, true},
};

// Deliberate deviations from git under case folding, following ripgrep's case-insensitive globs:
// git compares an escaped byte and single bracket members unfolded against the folded text (so
// with core.ignorecase `\A` matches nothing and `[!A]` matches "A"); ctxsearch folds every letter.
constexpr GlobCase kFoldDeviations[] = {
    {"\\A", "A", kPathFold, true},     // git: the opposite (quirk)
    {"\\A", "a", kPathFold, true},     // git: the opposite (quirk)
    {"x\\Y", "xy", kPathFold, true},   // git: the opposite (quirk)
    {"x\\Y", "XY", kPathFold, true},   // git: the opposite (quirk)
    {"[A]", "A", kPathFold, true},     // git: the opposite (quirk)
    {"[A]", "a", kPathFold, true},     // git: the opposite (quirk)
    {"[!A]", "a", kPathFold, false},   // git: the opposite (quirk)
    {"[!A]", "A", kPathFold, false},   // git: the opposite (quirk)
    {"[AB]x", "ax", kPathFold, true},  // git: the opposite (quirk)
    {"[AB]x", "Bx", kPathFold, true},  // git: the opposite (quirk)
    {"[\\A]", "a", kPathFold, true},   // git: the opposite (quirk)
    {"[\\A]", "A", kPathFold, true},   // git: the opposite (quirk)
};
}  // namespace

TEST_CASE("literal text, question mark and star match as in git", "[walker][glob]") {
  check_table(kBasics);
}

TEST_CASE("slashes in a pattern are literal and must line up with the text's", "[walker][glob]") {
  check_table(kPaths);
}

TEST_CASE("with pathname, star, question mark and classes never match a slash", "[walker][glob]") {
  check_table(kPathname);
}

TEST_CASE("without pathname every wildcard matches a slash and '**' is '*'", "[walker][glob]") {
  check_table(kPlainMode);
}

TEST_CASE("bracket expressions follow git: ranges, negation, ']' and '-' members, POSIX classes",
          "[walker][glob]") {
  check_table(kClasses);
}

TEST_CASE("a backslash escapes the next byte; a trailing lone backslash matches nothing",
          "[walker][glob]") {
  check_table(kEscapes);
}

TEST_CASE("double star slash spans zero or more directories", "[walker][glob]") {
  check_table(kDoubleStar);
}

TEST_CASE("case-insensitive globs fold ASCII letters as git's core.ignorecase does",
          "[walker][glob]") {
  check_table(kFold);
}

TEST_CASE("every pair of git's own wildmatch suite (t3070) matches as in git", "[walker][glob]") {
  check_table(kT3070);
}

TEST_CASE("an unclosed bracket is a literal bracket, as in current ripgrep (git matches nothing)",
          "[walker][glob]") {
  check_table(kUnclosed);
}

TEST_CASE("double star slash re-enters only at a component start and [:space:] is git's",
          "[walker][glob]") {
  check_table(kFixedRegressions);
}

TEST_CASE("case folding folds escaped letters and bracket members too, unlike git",
          "[walker][glob]") {
  check_table(kFoldDeviations);
}

TEST_CASE("a literal glob reports its shape and literal", "[walker][glob]") {
  Glob g = Glob::compile("src/main.rs", GlobOptions{});
  CHECK(g.shape() == Glob::Shape::kLiteral);
  CHECK(g.literal() == "src/main.rs");
  CHECK(g.matches("src/main.rs"));
  CHECK_FALSE(g.matches("src/main.rsx"));

  Glob escaped = Glob::compile("a\\*b\\?", GlobOptions{});
  CHECK(escaped.shape() == Glob::Shape::kLiteral);
  CHECK(escaped.literal() == "a*b?");
  CHECK(escaped.matches("a*b?"));
  CHECK_FALSE(escaped.matches("axbc"));

  Glob folded = Glob::compile("Makefile", GlobOptions{.pathname = true, .case_insensitive = true});
  CHECK(folded.shape() == Glob::Shape::kLiteral);
  CHECK(folded.case_insensitive());
  CHECK(folded.literal() == "makefile");
  CHECK(folded.matches("MAKEFILE"));
  CHECK(folded.matches("makefile"));
}

TEST_CASE("a star-suffix glob reports its suffix and checks slashes", "[walker][glob]") {
  Glob g = Glob::compile("*.rs", GlobOptions{});
  CHECK(g.shape() == Glob::Shape::kStarSuffix);
  CHECK(g.literal() == ".rs");
  CHECK(g.matches(".rs"));
  CHECK(g.matches("lib.rs"));
  CHECK_FALSE(g.matches("src/lib.rs"));
  CHECK_FALSE(g.matches("lib.rs.orig"));
  CHECK_FALSE(g.matches("rs"));

  Glob plain = Glob::compile("*.rs", GlobOptions{.pathname = false});
  CHECK(plain.shape() == Glob::Shape::kStarSuffix);
  CHECK(plain.matches("src/lib.rs"));

  Glob folded = Glob::compile("*.RS", GlobOptions{.pathname = true, .case_insensitive = true});
  CHECK(folded.shape() == Glob::Shape::kStarSuffix);
  CHECK(folded.literal() == ".rs");
  CHECK(folded.matches("LIB.rs"));
  CHECK(folded.matches("lib.Rs"));
  CHECK_FALSE(folded.matches("a/lib.rs"));
}

TEST_CASE("globs that can never match report the never shape", "[walker][glob]") {
  for (std::string_view pattern :
       {"foo\\", "\\", "[[:nope:]]", "a[[:alpha:][:bogus:]]b", "[[::]]"}) {
    INFO("pattern " << shown(pattern));
    Glob g = Glob::compile(pattern, GlobOptions{});
    CHECK(g.shape() == Glob::Shape::kNever);
    CHECK_FALSE(g.matches(""));
    CHECK_FALSE(g.matches(pattern));
  }
}

TEST_CASE("globs with wildcards inside report the general shape", "[walker][glob]") {
  for (std::string_view pattern : {"a*", "*/x", "a?c", "[ab]", "**/x", "*.r[s]"}) {
    INFO("pattern " << shown(pattern));
    CHECK(Glob::compile(pattern, GlobOptions{}).shape() == Glob::Shape::kGeneral);
  }
}

// Time a backtracking matcher would need is exponential in the number of stars here; the NFA is
// linear in the text. Expectations are by construction (the texts have no 'b').
TEST_CASE("pathological star patterns match in linear time", "[walker][glob][perf]") {
  const std::string as(50000, 'a');
  const std::string slashes = [] {
    std::string s;
    for (int i = 0; i < 20000; ++i) s += "a/";
    return s;
  }();
  auto start = std::chrono::steady_clock::now();
  for (Mode mode : {kPath, kPathFold, kPlain, kPlainFold}) {
    INFO(mode_name(mode));
    Glob stars = Glob::compile("*a*a*a*a*a*a*a*a*b", options_for(mode));
    CHECK_FALSE(stars.matches(as));
    CHECK(stars.matches(as + "b"));
    Glob double_stars = Glob::compile("**a**a**a**a**a**a**a**a**b", options_for(mode));
    CHECK_FALSE(double_stars.matches(as));
    Glob classes = Glob::compile("*[a-c]*[!b]*?*[[:alpha:]]*b", options_for(mode));
    CHECK_FALSE(classes.matches(as));
  }
  Glob dirs = Glob::compile("**/a/**/a/**/a/**/a/**/a/**/b", GlobOptions{});
  CHECK_FALSE(dirs.matches(slashes));
  CHECK(dirs.matches(slashes + "b"));
  Glob stars_in_dirs = Glob::compile("*/*/*/*/*/*/*/*/b", GlobOptions{});
  CHECK_FALSE(stars_in_dirs.matches(slashes));
  auto elapsed = std::chrono::steady_clock::now() - start;
  // Generous so that sanitizer and debug builds pass; a backtracking matcher takes hours.
  CHECK(elapsed < std::chrono::seconds(5));
}

TEST_CASE("patterns longer than the NFA's inline state words still match", "[walker][glob]") {
  // 600 ops: the state set no longer fits the matcher's stack words and moves to the heap.
  std::string pattern;
  for (int i = 0; i < 300; ++i) pattern += "*a";
  pattern += "b";
  const std::string many(299, 'a');
  const std::string enough(300, 'a');
  for (Mode mode : {kPath, kPlain}) {
    INFO(mode_name(mode));
    Glob g = Glob::compile(pattern, options_for(mode));
    CHECK(g.matches(enough + "b"));
    CHECK(g.matches("x" + std::string(150, 'a') + "/y" + std::string(150, 'a') + "b") ==
          (mode == kPlain));
    CHECK_FALSE(g.matches(many + "b"));
    CHECK_FALSE(g.matches(enough));
  }
  std::string questions(500, '?');
  Glob q = Glob::compile(questions, GlobOptions{});
  CHECK(q.matches(std::string(500, 'x')));
  CHECK_FALSE(q.matches(std::string(499, 'x')));
  CHECK_FALSE(q.matches(std::string(499, 'x') + "/"));
}

TEST_CASE("many unclosed classes are literal '[' (their scans end where an earlier one ended)",
          "[walker][glob]") {
  // Each scan for a closing ']' used to run to the glob's end: quadratic (200 KB: 34 s).
  const std::string opens(100'000, '[');
  CHECK(Glob::compile(opens + "x", options_for(kPath)).matches(opens + "x"));
  CHECK_FALSE(Glob::compile(opens + "x", options_for(kPath)).matches(opens + "y"));
  std::string escaped;  // "[\]" repeated: each '[' sees only escaped ']' after it
  for (int i = 0; i < 50'000; ++i) escaped += "[\\]";
  std::string literal;
  for (int i = 0; i < 50'000; ++i) literal += "[]";
  CHECK(Glob::compile(escaped, options_for(kPath)).matches(literal));
  // Scans that start out of step with an earlier unclosed one still find their own ']'.
  CHECK(Glob::compile("[[:alpha:]", options_for(kPath)).matches("[:"));
  CHECK(Glob::compile("[\\[]a-]", options_for(kPath)).matches("[a-]"));  // '[', then a-], literal
  CHECK(Glob::compile("[a-\\][b]", options_for(kPath)).matches("b"));  // one class, an empty range
  CHECK(
      Glob::compile("[a-\\][b]", options_for(kPath)).matches("a"));  // the range start is a member
}

TEST_CASE("brace alternatives expand in order, nested too, up to a cap", "[walker][glob]") {
  auto one = ctx::walker::expand_braces("*.{ts,tsx}");
  REQUIRE(one.ok());
  CHECK(*one == std::vector<std::string>{"*.ts", "*.tsx"});
  auto nested = ctx::walker::expand_braces("{src/*.{js,ts},README*}");
  REQUIRE(nested.ok());
  CHECK(*nested == std::vector<std::string>{"src/*.js", "src/*.ts", "README*"});
  auto literal = ctx::walker::expand_braces("a\\{b,c\\}[{]");  // escaped and in a class: no group
  REQUIRE(literal.ok());
  CHECK(*literal == std::vector<std::string>{"a\\{b,c\\}[{]"});
  CHECK_FALSE(ctx::walker::expand_braces("*.{ts").ok());
  // {a,b} twenty times stands for 2^20 globs: an error naming the cap, not a million rules.
  std::string many;
  for (int i = 0; i < 20; ++i) many += "{a,b}";
  auto huge = ctx::walker::expand_braces(many);
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.error().detail.find("more than 1024 globs") != std::string::npos);
  CHECK(ctx::walker::expand_braces(many.substr(0, 50)).ok());  // ten of them: 1024
}
