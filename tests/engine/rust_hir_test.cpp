// Tests for the summary of regex-syntax's HIR that the byte-mode translator builds
// (engine/src/rust_hir.hpp): ripgrep's literal checks (grep-regex's ban::check and
// strip_from_match, their own test cases among them) and the size of regex-automata's NFA, whose
// thresholds were measured with rg 14.1.1 (`--regex-size-limit 100000`: the smallest count rg
// refuses).
#include "../../engine/src/rust_hir.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "../../engine/src/byte_mode.hpp"
#include "ctx/engine/pattern_set.hpp"

namespace {

using ctx::engine::detail::ByteRegexOptions;
using ctx::engine::detail::HirSummary;
using ctx::engine::detail::RustFacts;

HirSummary hir_of(const std::string& pattern, bool caseless = false) {
  ByteRegexOptions options;
  options.caseless = caseless;
  options.superset = true;
  RustFacts facts;
  auto out = ctx::engine::detail::rust_to_bytes(pattern, options, &facts);
  if (!out.ok()) FAIL("does not parse: " << pattern);
  return facts.hir;
}

bool holds(const std::vector<std::string>& patterns, char byte, bool caseless = false) {
  std::vector<HirSummary> hirs;
  for (const std::string& p : patterns) hirs.push_back(hir_of(p, caseless));
  return ctx::engine::detail::holds_literal_byte(hirs, byte);
}

// Whether ripgrep's size limit refuses `pattern` (not -P).
bool too_large(const std::string& pattern, std::uint64_t limit,
               ctx::engine::PatternOptions options = {}) {
  options.regex_size_limit = limit;
  auto set = ctx::engine::PatternSet::compile({pattern}, options);
  return !set.ok() && set.error().detail.find("exceeds size limit") != std::string::npos;
}

}  // namespace

TEST_CASE("a NUL or line feed literal is found as ripgrep's ban::check finds it",
          "[engine][rust_hir]") {
  for (const char* p : {"\\x00", "a\\x00", "\\x00b", "a\\x00b", "\\x00|ab", "ab|\\x00", "\\x00?",
                        "(\\x00)", "[\\x00]", "[^[^\\x00]]", "\\x00|\\x00", "(?:a|\\x00)b\\x00",
                        "(?i)a|\\x00", "\\x00|[ab]", "(?:\\x00){2}", "\\u0000", "(?x) \\x00 "}) {
    INFO(p);
    CHECK(holds({p}, '\0'));
  }
  for (const char* p : {"[^\\x00]", "[\\x00a]", "a|\\x00", "[ab]|[\\x00c]", "\\x00{0}", "a\\x00{0}",
                        "\\x00{1}|a", "(?:\\x00)|(?:a)", "\\\\x00", "(?x) a | \\x00", "\\n"}) {
    INFO(p);
    CHECK_FALSE(holds({p}, '\0'));
  }
  // strip_from_match's cases, for the line feed.
  for (const char* p : {"\\n", "abc\\n", "\\nabc", "abc\\nxyz", "\\x0A", "\\u000A", "\\U0000000A",
                        "\\u{A}", "[\\n]", "a|b\\n"}) {
    INFO(p);
    CHECK(holds({p}, '\n'));
  }
  for (const char* p : {"[a\\n]", "\\s", "[^x]", "\\\\n", "a|\\n", "\\n{0}"}) {
    INFO(p);
    CHECK_FALSE(holds({p}, '\n'));
  }
  // The patterns are one alternation; case folding makes a letter a class.
  CHECK_FALSE(holds({"b", "\\x00"}, '\0'));
  CHECK(holds({"bc", "\\x00"}, '\0'));
  CHECK_FALSE(holds({"A", "\\n"}, '\n'));
  CHECK(holds({"A", "\\n"}, '\n', true));
  CHECK_FALSE(holds({"1", "\\n", "2"}, '\n'));
  CHECK(holds({"(?i)a|\\n"}, '\n'));
  CHECK_FALSE(holds({"(?i)1|\\n"}, '\n'));
}

TEST_CASE("the NFA size is regex-automata's where rg 14 reaches its limit", "[engine][rust_hir]") {
  struct Threshold {
    const char* pattern;  // N: the count
    int refused;          // the smallest N rg 14.1.1 refuses at --regex-size-limit 100000
  };
  for (const Threshold& t : std::vector<Threshold>{{"x{N}", 3119},
                                                   {"x{0,N}", 1386},
                                                   {"x{1,N}", 1387},
                                                   {"x{N,}", 3118},
                                                   {"x{N}?", 3119},
                                                   {"(?:ab){N}", 1560},
                                                   {"(a){N}", 1040},
                                                   {"[a-c]{N}", 1387},
                                                   {"[ac]{N}", 1248},
                                                   {"(?i)x{N}", 1248},
                                                   {"(?i)k{N}", 424},
                                                   {"(?-u:\\d){N}", 1387},
                                                   {"(?-u:[^a]){N}", 1135},
                                                   {"(?:x|y){N}", 1387},
                                                   {"(?:a|bc){N}", 543},
                                                   {"(?:foo|bar|baz){N}", 188},
                                                   {"(?:ab|cd){0,N}", 342},
                                                   {"x{N}|y{N}", 1559},
                                                   {"^x{N}", 3118},
                                                   {"\\Ax{N}", 3120},
                                                   {"x{N}\\z", 3118},
                                                   {"(?:x?){N}", 960},
                                                   {"(?:\\b){N}x{N}", 3118},
                                                   {"\\d{N}", 22},
                                                   {"(\\d){N}", 22},
                                                   {".{N}", 100},
                                                   {"(?s:.){N}", 100},
                                                   {"[^a]{N}", 97},
                                                   {"\\s{N}", 140},
                                                   {"\\w{N}", 3},
                                                   {"[\xC3\xA9-\xC3\xBC]{N}", 757},
                                                   {"(?i)\xC3\xA9{N}", 595},
                                                   {"\\p{Greek}{N}", 45}}) {
    const std::string p = t.pattern;
    const auto with = [&](int n) {
      std::string out = p;
      for (std::size_t at = out.find('N'); at != std::string::npos; at = out.find('N')) {
        out.replace(at, 1, std::to_string(n));
      }
      return out;
    };
    INFO(p);
    CHECK_FALSE(too_large(with(t.refused - 1), 100000));
    CHECK(too_large(with(t.refused), 100000));
  }
  // The default limit (100 MiB): rg refuses x{3276794}, not x{3276793}.
  CHECK_FALSE(too_large("x{3276793}", std::uint64_t{100} << 20));
  CHECK(too_large("x{3276794}", std::uint64_t{100} << 20));
  // Literals alone never: rg may search for them without an NFA.
  CHECK_FALSE(too_large(std::string(4000, 'x'), 100000));
}

TEST_CASE("small NFAs cost what rg 14 counts, and exact literals none", "[engine][rust_hir]") {
  struct Smallest {
    const char* pattern;
    std::uint64_t accepted;  // the smallest --regex-size-limit rg 14.1.1 accepts the pattern at
    bool word = false, line = false, caseless = false;
  };
  for (const Smallest& t : std::vector<Smallest>{{"fo+", 312},
                                                 {"(foo)", 368},
                                                 {"\\bfoo", 336},
                                                 {"a{11}", 560},
                                                 {"x*", 280},
                                                 {"[a-k]z", 312},
                                                 {"foo", 368, true},
                                                 {"foo", 368, false, true},
                                                 {"fo+", 376, true},
                                                 {"(foo)", 432, true},
                                                 // regex-syntax's literal extractor finds these
                                                 // exact: regex-automata builds no NFA
                                                 {"foo", 0},
                                                 {"foo", 0, false, false, true},
                                                 {"fo?", 0},
                                                 {"[ab]c", 0},
                                                 {"a{3}", 0},
                                                 {"[a-j]z", 0},
                                                 {"[\xC3\xA9"
                                                  "a]x",
                                                  0}}) {
    INFO(t.pattern << " -w " << t.word << " -x " << t.line << " -i " << t.caseless);
    ctx::engine::PatternOptions options;
    options.word = t.word;
    options.line = t.line;
    options.case_insensitive = t.caseless;
    CHECK_FALSE(too_large(t.pattern, t.accepted, options));
    if (t.accepted > 0) CHECK(too_large(t.pattern, t.accepted - 1, options));
  }
}

TEST_CASE("-U searches in multiline mode where ripgrep's non_matching_bytes allow a line feed",
          "[engine][rust_hir]") {
  const auto multiline = [](const std::string& p, bool dotall = false) {
    ctx::engine::PatternOptions options;
    options.multiline = true;
    options.multiline_dotall = dotall;
    auto set = ctx::engine::PatternSet::compile({p}, options);
    if (!set.ok()) FAIL("compile failed: " << set.error().detail);
    return set.value().multiline();
  };
  for (const char* p : {"a\\n", "a\\x0A", "[^a]", "a\\s", "(?s)a.", "a$", "^a", "\\Aa", "a\\z",
                        "a\\W", "[[:space:]]", "(?-u:[^a])", "a|\\n", "(\\n)?"}) {
    INFO(p);
    CHECK(multiline(p));
  }
  // regex-syntax drops \n{0}; `.` and \b match no line feed.
  for (const char* p : {"a\\n{0}", "a.", "a\\b", "\\w+", "[^\\n]", "a\\x00"}) {
    INFO(p);
    CHECK_FALSE(multiline(p));
  }
  CHECK(multiline("a.", true));
}
