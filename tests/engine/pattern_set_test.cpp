// Tests for ctx::engine::PatternSet: the Hyperscan prefilter never drops a line PCRE2 accepts (a
// property test over random patterns and haystacks, against the same patterns compiled with
// PatternOptions{.pcre2_only = true}, which runs PCRE2 alone), compile errors, find_spans, smart
// case, and an empty pattern list.
//
// The reference for a line is the PCRE2-only set's find_spans() on that line alone (a line
// matches when it has a match, an empty one included); the PCRE2-only set's find_line() over the
// whole haystack must agree with it too. Lines are the '\n'-separated pieces of the haystack, the
// piece after a final '\n' excluded (as the searcher does).
//
// The property test found three ways the prefilter dropped true matches: `.` and negated classes
// matching one byte (Hyperscan without HS_FLAG_UTF8), caseless k/s missing U+212A/U+017F, and
// Hyperscan's UTF-8 mode on invalid UTF-8; all three are fixed and pinned by regression cases
// below, as are the smart-case and empty-match fixes. CTX_PATTERN_PROPERTY_CASES and
// CTX_PATTERN_PROPERTY_SEED widen the search. The [!mayfail] case at the end pins a disagreement
// with ripgrep that is still open (-P smart case); rust_syntax_test.cpp covers POSIX classes and
// \w.
#include "ctx/engine/pattern_set.hpp"

#include "pattern_testing.hpp"

#define CATCH_CONFIG_ENABLE_PAIR_STRINGMAKER  // print match spans as {start, end}
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using ctx::engine::LineSpan;
using ctx::engine::MatchSpan;
using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;

using ctx::testing::kKelvin;
using ctx::testing::kLongS;

using ctx::testing::compile_ok;

std::string compile_error(const std::vector<std::string>& patterns,
                          const PatternOptions& options = {}) {
  auto set = PatternSet::compile(patterns, options);
  REQUIRE_FALSE(set.ok());
  CHECK(set.error().code == ctx::ErrorCode::kInvalidArgument);
  return set.error().detail;
}

// The lines of `hay`: [start, end) without the '\n'; no line after a final '\n'.
std::vector<LineSpan> split_lines(std::string_view hay) {
  std::vector<LineSpan> out;
  std::size_t start = 0;
  while (start < hay.size()) {
    std::size_t nl = hay.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? hay.size() : nl;
    out.push_back(LineSpan{start, end});
    start = end + 1;
  }
  return out;
}

// Line starts reported by iterating find_line() over `hay` from 0. (Plain ifs rather than
// REQUIREs: the property test calls this tens of thousands of times.)
std::vector<std::size_t> matching_lines(const PatternSet& set, std::string_view hay,
                                        PatternSet::Scratch& scratch) {
  std::vector<std::size_t> starts;
  std::size_t pos = 0;
  while (pos <= hay.size()) {
    auto hit = set.find_line(hay, pos, scratch);
    if (!hit.ok()) FAIL("find_line failed: " << hit.error().detail);
    if (!hit->has_value()) break;
    const LineSpan line = **hit;
    if (line.start < pos || line.end > hay.size() || line.start > line.end ||
        (line.end < hay.size() && hay[line.end] != '\n') ||
        (line.start > 0 && hay[line.start - 1] != '\n')) {
      FAIL("find_line from " << pos << " returned [" << line.start << ", " << line.end
                             << "), not a line");
    }
    if (line.start == hay.size() && (hay.empty() || hay.back() == '\n')) break;  // past the end
    starts.push_back(line.start);
    pos = line.end + 1;
  }
  return starts;
}

std::vector<std::size_t> matching_lines(const PatternSet& set, std::string_view hay) {
  PatternSet::Scratch scratch = set.make_scratch();
  return matching_lines(set, hay, scratch);
}

std::vector<MatchSpan> spans(const PatternSet& set, std::string_view line,
                             PatternSet::Scratch& scratch) {
  std::vector<MatchSpan> out;
  if (auto status = set.find_spans(line, scratch, out); !status.ok()) {
    FAIL("find_spans failed: " << status.error().detail);
  }
  return out;
}

std::vector<MatchSpan> spans(const PatternSet& set, std::string_view line) {
  PatternSet::Scratch scratch = set.make_scratch();
  return spans(set, line, scratch);
}

bool line_matches(const PatternSet& set, std::string_view line) {
  return !spans(set, line).empty();
}

// Line starts whose line has a match, asking `reference` one line at a time.
std::vector<std::size_t> reference_lines(const PatternSet& reference, std::string_view hay,
                                         PatternSet::Scratch& scratch) {
  std::vector<std::size_t> starts;
  for (const LineSpan& l : split_lines(hay)) {
    if (!spans(reference, hay.substr(l.start, l.end - l.start), scratch).empty()) {
      starts.push_back(l.start);
    }
  }
  return starts;
}

std::string escaped(std::string_view s) {
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x80) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    } else {
      out += c;
    }
  }
  return out;
}

std::string describe(const std::vector<std::string>& patterns, const PatternOptions& o) {
  std::string out = "patterns {";
  for (const std::string& p : patterns) out += " \"" + escaped(p) + "\"";
  out += " }";
  if (o.fixed_strings) out += " -F";
  if (o.case_insensitive) out += " -i";
  if (o.smart_case) out += " -S";
  if (o.word) out += " -w";
  if (o.line) out += " -x";
  if (o.pcre2) out += " -P";
  return out;
}

// ---------------------------------------------------------------------------------------------
// Random patterns and haystacks.

class Gen {
 public:
  explicit Gen(std::uint32_t seed) : rng_(seed) {}

  std::size_t below(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
  }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <typename T, std::size_t N>
  const T& pick(const T (&items)[N]) {
    return items[below(N)];
  }

  // alternation := concat ('|' concat)?
  std::string regex(int depth = 0) {
    std::string out = concat(depth);
    if (chance(depth == 0 ? 0.3 : 0.2)) out += "|" + concat(depth);
    return out;
  }

  std::string literal_pattern() {
    static constexpr const char* kLiterals[] = {"a",  "ab",  "abc",      "b c",      "a.b", "(a",
                                                "[b", "x|y", "\xC3\xA9", "\xCE\xB1", "A",   "k",
                                                "s",  "-",   "a b",      "_"};
    std::string out = pick(kLiterals);
    if (chance(0.3)) out += pick(kLiterals);
    return out;
  }

  // A haystack of 0-6 lines of tokens: fixed ones, pieces of the patterns' literal text (so
  // matches are likely), sometimes invalid UTF-8, CR, tab or a case-fold variant.
  std::string haystack(const std::vector<std::string>& patterns) {
    static constexpr const char* kTokens[] = {
        "a", "b", "c", "ab", "abc", "A", "B", "AB", "x", "y", " ", " ", "-", "_", ".", "1", "k",
        "s", "K", "S", "\xC3\xA9", "\xC3\x89", "\xCE\xB1", "\xCE\x91", "\xCE\xB1\xCE\xB2", "a b",
        "a.b", "x|y",
        // Where Rust's \w and PCRE2's differ: e + combining acute, subscript zero, U+203F
        // (Pc), circled A (So but Alphabetic), zero width joiner.
        "e\xCC\x81", "\xE2\x82\x80", "\xE2\x80\xBF", "\xE2\x92\xB6", "\xE2\x80\x8D"};
    static constexpr const char* kRare[] = {"\xE2\x84\xAA", "\xC5\xBF", "\xFF", "\xC3", "\r", "\t"};
    std::vector<std::string> pieces;
    for (const std::string& p : patterns) literal_pieces(p, pieces);
    const bool rare = chance(0.25);
    std::string out;
    const std::size_t lines = below(7);
    for (std::size_t i = 0; i < lines; ++i) {
      const std::size_t tokens = below(7);
      for (std::size_t t = 0; t < tokens; ++t) {
        if (rare && chance(0.15)) {
          out += pick(kRare);
        } else if (!pieces.empty() && chance(0.4)) {
          out += pieces[below(pieces.size())];
        } else {
          out += pick(kTokens);
        }
      }
      if (i + 1 < lines || chance(0.5)) out += '\n';
    }
    return out;
  }

 private:
  // The runs of `pattern` between regex syntax characters (and escapes), and their first bytes.
  static void literal_pieces(std::string_view pattern, std::vector<std::string>& out) {
    std::string run;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      const char c = pattern[i];
      if (c == '\\' || std::string_view(".^$|?*+()[]{}").find(c) != std::string_view::npos) {
        if (!run.empty()) out.push_back(run);
        run.clear();
        if (c == '\\') ++i;
        continue;
      }
      run += c;
    }
    if (!run.empty()) out.push_back(run);
  }

  std::string concat(int depth) {
    std::string out;
    const std::size_t n = 1 + below(3);
    for (std::size_t i = 0; i < n; ++i) out += piece(depth);
    return out;
  }

  std::string piece(int depth) {
    static constexpr const char* kQuantifiers[] = {"*", "+", "?", "{1,2}", "{2}", "*?"};
    bool quantifiable = true;
    std::string a = atom(depth, quantifiable);
    if (quantifiable && chance(0.25)) a += pick(kQuantifiers);
    return a;
  }

  std::string atom(int depth, bool& quantifiable) {
    static constexpr const char* kChars[] = {"a",   "b", "c", "A",        "x",        "k", "s",
                                             "\\.", "-", " ", "\xC3\xA9", "\xCE\xB1", "_", "1"};
    static constexpr const char* kClasses[] = {
        "[abc]",        "[^a]",         "[a-c]",        "[A-Z]",       "[\xCE\xB1-\xCF\x89]",
        "[^ ]",         "[ks]",         "[^a-z]",       "[[:alpha:]]", "[[:^alpha:]]",
        "[x[:upper:]]", "[^[:lower:]]", "[[:^word:]k]", "[\\W_]",      "[^\\W\\d]"};
    static constexpr const char* kPerl[] = {"\\w", "\\d", "\\s", "\\W", ".", "\\S", "\\p{Greek}"};
    static constexpr const char* kAssertions[] = {"\\b", "^", "$", "\\B"};
    static constexpr const char* kWords[] = {"ab", "abc", "x", "AB"};
    switch (below(depth >= 2 ? 7 : 9)) {
      case 0:
      case 1:
      case 2:
        return pick(kChars);
      case 3:
        return pick(kClasses);
      case 4:
        return pick(kPerl);
      case 5:
        quantifiable = false;
        return pick(kAssertions);
      case 6:
        return chance(0.5) ? std::string(pick(kWords)) : "(?i)" + std::string(pick(kWords));
      case 7:
        return "(" + regex(depth + 1) + ")";
      default:
        return "(?:" + regex(depth + 1) + ")";
    }
  }

  std::mt19937 rng_;
};

std::uint32_t property_seed() {
  const char* env = std::getenv("CTX_PATTERN_PROPERTY_SEED");
  return env != nullptr ? static_cast<std::uint32_t>(std::strtoul(env, nullptr, 10)) : 20240611U;
}

std::size_t property_cases() {
  const char* env = std::getenv("CTX_PATTERN_PROPERTY_CASES");
  if (env != nullptr) return static_cast<std::size_t>(std::strtoull(env, nullptr, 10));
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return 200;  // Hyperscan compiles dominate; a sanitized build runs them several times slower
#else
  return 600;
#endif
}

// ---------------------------------------------------------------------------------------------

TEST_CASE("the prefilter never drops a line that PCRE2 alone matches", "[engine][pattern]") {
  Gen gen(property_seed());
  const std::size_t cases = property_cases();
  std::size_t compared = 0, rejected = 0;
  for (std::size_t n = 0; n < cases; ++n) {
    PatternOptions options;
    options.fixed_strings = gen.chance(0.1);
    options.case_insensitive = gen.chance(0.2);
    options.smart_case = !options.case_insensitive && gen.chance(0.15);
    options.word = gen.chance(0.2);
    options.line = gen.chance(0.1);
    std::vector<std::string> patterns;
    const std::size_t count = 1 + gen.below(gen.chance(0.3) ? 3 : 1);
    for (std::size_t i = 0; i < count; ++i) {
      patterns.push_back(options.fixed_strings ? gen.literal_pattern() : gen.regex());
    }
    std::vector<std::string> haystacks;
    for (int h = 0; h < 8; ++h) haystacks.push_back(gen.haystack(patterns));

    auto tested = PatternSet::compile(patterns, options);
    PatternOptions pcre2_options = options;
    pcre2_options.pcre2_only = true;
    auto reference = PatternSet::compile(patterns, pcre2_options);
    INFO("seed " << property_seed() << " case " << n << ": " << describe(patterns, options));
    // The same regex must compile (or fail) alike with and without Hyperscan.
    REQUIRE(tested.ok() == reference.ok());
    if (!tested.ok()) {
      ++rejected;
      continue;
    }
    PatternSet::Scratch tested_scratch = tested->make_scratch();
    PatternSet::Scratch reference_scratch = reference->make_scratch();
    for (const std::string& hay : haystacks) {
      INFO("haystack \"" << escaped(hay) << "\"");
      const std::vector<std::size_t> want = reference_lines(*reference, hay, reference_scratch);
      const std::vector<std::size_t> got = matching_lines(*tested, hay, tested_scratch);
      const std::vector<std::size_t> pcre2_scan =
          matching_lines(*reference, hay, reference_scratch);
      CHECK(pcre2_scan == want);
      CHECK(got == want);
      ++compared;
    }
  }
  WARN("prefilter property: " << compared << " haystacks compared, " << rejected
                              << " pattern sets rejected by PCRE2");
  CHECK(compared > cases);
}

TEST_CASE("find_line reports each matching line once, in order, from any line start",
          "[engine][pattern]") {
  const std::string hay = "foo\nbar\n\nfoo bar\nbaz";
  PatternSet set = compile_ok({"bar"}, {});
  CHECK(matching_lines(set, hay) == std::vector<std::size_t>{4, 9});
  PatternSet::Scratch scratch = set.make_scratch();
  auto from_second = set.find_line(hay, 8, scratch);
  REQUIRE(from_second.ok());
  REQUIRE(from_second->has_value());
  CHECK((*from_second)->start == 9);
  CHECK((*from_second)->end == 16);
  auto past = set.find_line(hay, 17, scratch);
  REQUIRE(past.ok());
  CHECK_FALSE(past->has_value());
  auto beyond = set.find_line(hay, hay.size() + 1, scratch);
  REQUIRE(beyond.ok());
  CHECK_FALSE(beyond->has_value());
  // The last line has no '\n'.
  CHECK(matching_lines(compile_ok({"baz"}, {}), hay) == std::vector<std::size_t>{17});
}

TEST_CASE("a regex that could span lines never reports a line without a match",
          "[engine][pattern]") {
  // Hyperscan scans the buffer as a whole: a\sb matches "a\nb" there; no line holds it.
  CHECK(matching_lines(compile_ok({"a\\sb"}, {}), "xa\nbx\n").empty());
  CHECK(matching_lines(compile_ok({"a[^x]b"}, {}), "a\nb\na b\n") == std::vector<std::size_t>{4});
  CHECK(matching_lines(compile_ok({"a\\W*b"}, {}), "a\n\nb\n").empty());
  CHECK(matching_lines(compile_ok({"^$"}, {}), "a\n\nb\n") == std::vector<std::size_t>{2});
}

TEST_CASE("-w and -x wrap every pattern of the set", "[engine][pattern]") {
  PatternOptions word;
  word.word = true;
  PatternSet w = compile_ok({"foo", "ba"}, word);
  CHECK(line_matches(w, "a foo."));
  CHECK(line_matches(w, "ba"));
  CHECK_FALSE(line_matches(w, "foobar"));
  CHECK_FALSE(line_matches(w, "bar"));
  CHECK_FALSE(line_matches(w, "_foo"));
  CHECK(line_matches(w, "\xCE\xB1 foo"));
  CHECK_FALSE(line_matches(w,
                           "\xCE\xB1"
                           "foo"));  // a Greek letter is a word character

  PatternOptions line;
  line.line = true;
  PatternSet x = compile_ok({"a|b", "c+"}, line);
  CHECK(line_matches(x, "a"));
  CHECK(line_matches(x, "b"));
  CHECK(line_matches(x, "ccc"));
  CHECK_FALSE(line_matches(x, "ab"));
  CHECK_FALSE(line_matches(x, " a"));
  CHECK(matching_lines(x, "ab\na\nxc\nc") == std::vector<std::size_t>{3, 8});
}

TEST_CASE("bad patterns are errors naming the pattern and the offset", "[engine][pattern]") {
  CHECK(compile_error({"foo("}) ==
        "regex parse error in 'foo(' at offset 4: missing closing parenthesis");
  // With ripgrep's errors, Rust's parser (regex-syntax) decides: where the unclosed group opens.
  PatternOptions rust;
  rust.rust_syntax_errors = true;
  CHECK(compile_error({"foo("}, rust) == "regex parse error in 'foo(' at offset 3: unclosed group");
  // Several patterns: the message names the bad one alone, with its own offset.
  CHECK(compile_error({"ok", "a[", "fine"}) ==
        "regex parse error in 'a[' at offset 1: unclosed character class");
  CHECK(compile_error({"x{2,1}"}).rfind("regex parse error in 'x{2,1}' at offset ", 0) == 0);
  CHECK(compile_error({"*a"}).rfind("regex parse error in '*a' at offset 0: ", 0) == 0);
  PatternOptions pcre2;
  pcre2.pcre2 = true;
  CHECK(compile_error({"(?<=a+)b"}, pcre2).rfind("regex parse error in '(?<=a+)b' at offset ", 0) ==
        0);
  CHECK(compile_error({"foo("}, pcre2).rfind("regex parse error in 'foo(' at offset 4: ", 0) == 0);
  // More patterns than PCRE2 compiles into one regex are no error (many_patterns_test.cpp); an
  // error in one of them still names that one alone.
  std::vector<std::string> many;
  for (int i = 0; i < 4000; ++i) many.push_back("identifier_" + std::to_string(i) + "\\d");
  PatternOptions pcre2_only;  // a quick compile: no Hyperscan
  pcre2_only.pcre2_only = true;
  CHECK(matching_lines(compile_ok(many, pcre2_only), "identifier_3999\n identifier_39995\n") ==
        std::vector<std::size_t>({0, 16}));  // identifier_399\\d matches the first
  many.push_back("x(");
  CHECK(compile_error(many, pcre2_only).rfind("regex parse error in 'x(' at offset 2: ", 0) == 0);
  // Under -F the same text is a literal.
  PatternOptions fixed;
  fixed.fixed_strings = true;
  PatternSet literal = compile_ok({"foo(", "a[", "*a"}, fixed);
  CHECK(line_matches(literal, "call foo(x)"));
  CHECK(line_matches(literal, "*a"));
  CHECK_FALSE(line_matches(literal, "foo"));
}

TEST_CASE("find_spans returns non-overlapping leftmost-first matches", "[engine][pattern]") {
  auto as_pairs = [](const std::vector<MatchSpan>& v) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (const MatchSpan& m : v) out.emplace_back(m.start, m.end);
    return out;
  };
  using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;
  CHECK(as_pairs(spans(compile_ok({"foo"}, {}), "foo bar foo")) == Pairs{{0, 3}, {8, 11}});
  CHECK(as_pairs(spans(compile_ok({"aa"}, {}), "aaaaa")) == Pairs{{0, 2}, {2, 4}});
  // Leftmost-first between alternatives and between the patterns of a set (as ripgrep).
  CHECK(as_pairs(spans(compile_ok({"foo|foobar"}, {}), "foobar")) == Pairs{{0, 3}});
  CHECK(as_pairs(spans(compile_ok({"foo", "foobar"}, {}), "foobar")) == Pairs{{0, 3}});
  CHECK(as_pairs(spans(compile_ok({"bar", "o+"}, {}), "foobar")) == Pairs{{1, 3}, {3, 6}});
  CHECK(spans(compile_ok({"x"}, {}), "abc").empty());
  // Byte offsets, in UTF-8.
  CHECK(as_pairs(spans(compile_ok({"\\p{Greek}+"}, {}), "a\xCE\xB1\xCE\xB2 c")) == Pairs{{1, 5}});
  PatternOptions word;
  word.word = true;
  CHECK(as_pairs(spans(compile_ok({"ab"}, word), "ab abc ab")) == Pairs{{0, 2}, {7, 9}});
  PatternOptions line;
  line.line = true;
  CHECK(as_pairs(spans(compile_ok({"a.c"}, line), "abc")) == Pairs{{0, 3}});
  // An empty pattern matches once at each position of an empty line.
  CHECK(as_pairs(spans(compile_ok({""}, {}), "")) == Pairs{{0, 0}});
}

TEST_CASE("an empty match right after a match is not reported, as in ripgrep",
          "[engine][pattern]") {
  // Ripgrep (Rust regex iteration) finds '', 'aa', '' in "xaay"; PCRE2-style iteration would
  // also report an empty match at offset 3, where 'aa' ended.
  using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;
  Pairs got;
  for (const MatchSpan& m : spans(compile_ok({"a*"}, {}), "xaay")) got.emplace_back(m.start, m.end);
  CHECK(got == Pairs{{0, 0}, {1, 3}, {4, 4}});
}

TEST_CASE("smart case is case-insensitive unless a pattern has an uppercase letter",
          "[engine][pattern]") {
  PatternOptions smart;
  smart.smart_case = true;
  CHECK(line_matches(compile_ok({"foo"}, smart), "FOO"));
  CHECK(line_matches(compile_ok({"foo"}, smart), "fOo"));
  CHECK_FALSE(line_matches(compile_ok({"Foo"}, smart), "foo"));
  CHECK(line_matches(compile_ok({"Foo"}, smart), "Foo"));
  // One uppercase pattern makes the whole set case-sensitive (as ripgrep).
  PatternSet mixed = compile_ok({"foo", "Bar"}, smart);
  CHECK_FALSE(line_matches(mixed, "FOO"));
  CHECK(line_matches(mixed, "foo"));
  // -i wins over smart case when both are set.
  PatternOptions both = smart;
  both.case_insensitive = true;
  CHECK(line_matches(compile_ok({"Foo"}, both), "fOO"));
  // Non-ASCII lowercase patterns fold too.
  CHECK(line_matches(compile_ok({"\xCE\xB1\xCE\xB2"}, smart), "\xCE\x91\xCE\x92"));  // αβ, ΑΒ
  // Without either flag the search is case-sensitive.
  CHECK_FALSE(line_matches(compile_ok({"foo"}, {}), "FOO"));
}

TEST_CASE("smart case looks at literal characters only, non-ASCII uppercase included",
          "[engine][pattern]") {
  // Ripgrep 14 makes `\u041C\u0438\u0440` case-sensitive (an uppercase
  // Cyrillic letter) and keeps `\Wfoo` / `\p{Greek}` case-insensitive (escapes are not literals).
  PatternOptions smart;
  smart.smart_case = true;
  CHECK_FALSE(
      line_matches(compile_ok({"\xD0\x9C\xD0\xB8\xD1\x80"}, smart), "\xD0\xBC\xD0\xB8\xD1\x80"));
  CHECK(line_matches(compile_ok({"\\Wfoo"}, smart), "-FOO"));
  CHECK(line_matches(compile_ok({"\\p{Greek}x"}, smart), "\xCE\xB1X"));
}

TEST_CASE("an empty pattern list matches nothing", "[engine][pattern]") {
  for (bool pcre2 : {false, true}) {
    PatternOptions options;
    options.pcre2 = pcre2;
    INFO("pcre2 " << pcre2);
    PatternSet none = compile_ok({}, options);
    CHECK(matching_lines(none, "foo\n\nbar\n").empty());
    CHECK(matching_lines(none, "").empty());
    CHECK(spans(none, "foo").empty());
    CHECK(spans(none, "").empty());
    PatternOptions word_line = options;
    word_line.word = true;
    word_line.line = true;
    CHECK(matching_lines(compile_ok({}, word_line), "foo\n\n").empty());
  }
}

TEST_CASE("the empty pattern matches every line", "[engine][pattern]") {
  const std::string hay = "a\n\nb";
  CHECK(matching_lines(compile_ok({""}, {}), hay) == std::vector<std::size_t>{0, 2, 3});
  CHECK(matching_lines(compile_ok({"zzz", ""}, {}), hay) == std::vector<std::size_t>{0, 2, 3});
  PatternOptions fixed;
  fixed.fixed_strings = true;
  CHECK(matching_lines(compile_ok({""}, fixed), hay) == std::vector<std::size_t>{0, 2, 3});
  PatternOptions line;
  line.line = true;
  CHECK(matching_lines(compile_ok({""}, line), hay) == std::vector<std::size_t>{2});
}

TEST_CASE("literal sets are decided by Hyperscan alone, regexes and -w are confirmed",
          "[engine][pattern]") {
  CHECK(compile_ok({"foo", "bar"}, {}).hyperscan_exact());
  PatternOptions fixed;
  fixed.fixed_strings = true;
  CHECK(compile_ok({"a.b", "(x"}, fixed).hyperscan_exact());
  PatternOptions word;
  word.word = true;
  CHECK_FALSE(compile_ok({"foo"}, word).hyperscan_exact());
  PatternOptions pcre2;
  pcre2.pcre2 = true;
  CHECK_FALSE(compile_ok({"foo"}, pcre2).hyperscan_exact());
  CHECK_FALSE(compile_ok({"(?<=a)b"}, pcre2).hyperscan_exact());
  // Look-around under -P runs on PCRE2 alone and still finds its lines.
  CHECK(matching_lines(compile_ok({"(?<=a)b"}, pcre2), "b\nab\n") == std::vector<std::size_t>{2});
}

TEST_CASE("many plain literals find the lines and spans PCRE2 alone finds, under -i -F -w -x too",
          "[engine][pattern]") {
  // Plain ASCII literals compile through Hyperscan's literal API (no regex parsing, no PCRE2
  // validation each); the set must still agree with PCRE2 alone line by line and span by span.
  std::mt19937 rng(7);
  const std::string alphabet = "abAcksKSXxyz_0";
  auto word = [&](std::size_t length) {
    std::string w;
    for (std::size_t i = 0; i < length; ++i) w.push_back(alphabet[rng() % alphabet.size()]);
    return w;
  };
  std::vector<std::string> literals;
  for (int i = 0; i < 400; ++i) literals.push_back(word(3 + rng() % 6));
  literals.push_back("a.b(c");  // punctuation: a literal under -F, a regex otherwise
  std::string hay;
  for (int line = 0; line < 300; ++line) {
    const std::size_t pieces = rng() % 4;
    for (std::size_t i = 0; i < pieces; ++i) {
      hay += rng() % 3 == 0 ? literals[rng() % literals.size()] : word(1 + rng() % 9);
      hay += rng() % 2 == 0 ? " " : "";
    }
    if (line % 50 == 0) hay += std::string(kKelvin) + "a.b(c";
    hay += '\n';
  }
  for (int variant = 0; variant < 6; ++variant) {
    PatternOptions options;
    options.fixed_strings = true;
    options.case_insensitive = variant == 1 || variant == 5;
    options.word = variant == 2;
    options.line = variant == 3;
    std::vector<std::string> set_literals = literals;
    if (variant == 4 || variant == 5) {  // without k/s: the literal API under -i too
      for (std::string& l : set_literals) {
        for (char& c : l) c = (c == 'k' || c == 'K' || c == 's' || c == 'S') ? 'y' : c;
      }
    }
    INFO("variant " << variant);
    PatternSet set = compile_ok(set_literals, options);
    PatternOptions pcre2_options = options;
    pcre2_options.pcre2 = true;
    PatternSet reference = compile_ok(set_literals, pcre2_options);
    PatternSet::Scratch scratch = reference.make_scratch();
    const std::vector<std::size_t> expected = reference_lines(reference, hay, scratch);
    CHECK_FALSE(expected.empty());
    CHECK(matching_lines(set, hay) == expected);
    for (const LineSpan& l : split_lines(hay)) {
      const std::string_view line = std::string_view(hay).substr(l.start, l.end - l.start);
      PatternSet::Scratch set_scratch = set.make_scratch();
      auto as_pairs = [](const std::vector<MatchSpan>& v) {
        std::vector<std::pair<std::size_t, std::size_t>> out;
        for (const MatchSpan& m : v) out.emplace_back(m.start, m.end);
        return out;
      };
      REQUIRE(as_pairs(spans(set, line, set_scratch)) == as_pairs(spans(reference, line, scratch)));
    }
  }
  // A thousand literals (as `-f` with 1,000 identifiers): one set, same verdicts.
  std::vector<std::string> many;
  for (int i = 0; i < 1000; ++i) many.push_back("id_" + std::to_string(i * 7919) + "_x");
  PatternSet big = compile_ok(many, {});
  CHECK(big.hyperscan_exact());
  CHECK(matching_lines(big, "id_7919_x\nid_7919_y\nfoo id_23757_x;\n") ==
        std::vector<std::size_t>{0, 20});
}

TEST_CASE("the prefilter keeps lines where `.` or a negated class meets a multibyte character",
          "[engine][pattern]") {
  // An all-ASCII regex without a backslash once reached Hyperscan without HS_FLAG_UTF8, so `.`
  // matched one byte and these lines were dropped before PCRE2 saw them.
  CHECK(line_matches(compile_ok({"f.o"}, {}), "f\xCE\xB1o"));
  CHECK(matching_lines(compile_ok({"f.o"}, {}), "f\xCE\xB1o\n") == std::vector<std::size_t>{0});
  PatternOptions line;
  line.line = true;
  CHECK(matching_lines(compile_ok({"."}, line), "\xC3\xA9\n") == std::vector<std::size_t>{0});
  CHECK(matching_lines(compile_ok({"a[^b]c"}, {}),
                       "a\xC3\xA9"
                       "c\n") == std::vector<std::size_t>{0});
}

TEST_CASE("caseless ASCII letters find their Unicode simple case folds", "[engine][pattern]") {
  // PCRE2 (and ripgrep) fold k to U+212A and s to U+017F; Hyperscan's ASCII caseless mode
  // dropped those lines.
  PatternOptions caseless_options;
  caseless_options.case_insensitive = true;
  const std::string hay = std::string(kKelvin) + "\n" + std::string(kLongS) + "\n";
  CHECK(matching_lines(compile_ok({"k"}, caseless_options), hay) == std::vector<std::size_t>{0});
  CHECK(matching_lines(compile_ok({"s"}, caseless_options), hay) == std::vector<std::size_t>{4});
  CHECK(matching_lines(compile_ok({"[ks]"}, caseless_options), hay) ==
        std::vector<std::size_t>{0, 4});
  CHECK(matching_lines(compile_ok({"(?i)k"}, {}), hay) == std::vector<std::size_t>{0});
}

TEST_CASE("invalid UTF-8 in the haystack does not hide a match from the prefilter",
          "[engine][pattern]") {
  // Hyperscan's UTF-8 mode is undefined on invalid input; PCRE2 (PCRE2_MATCH_INVALID_UTF) and
  // ripgrep match "foo" here.
  CHECK(line_matches(compile_ok({"\\bfoo\\b"}, {}),
                     "\xC3"
                     "foo:"));
  CHECK(matching_lines(compile_ok({"\\bfoo\\b"}, {}),
                       "\xC3"
                       "foo:\nfoo\n") == std::vector<std::size_t>{0, 6});
}

TEST_CASE("a negated class of one caseless character matches no invalid UTF-8",
          "[engine][pattern]") {
  // PCRE2 10.42's JIT read "\xFF" in [^k] under caseless matching as the lead byte of a 4-byte
  // character: -i -o '[^k]' on "a\xFFb" gave "\xFFb" (and ripgrep 14's -P panics on it). Rust
  // regex, like PCRE2's interpreter, matches no invalid UTF-8 in Unicode mode.
  using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;
  auto as_pairs = [](const std::vector<MatchSpan>& v) {
    Pairs out;
    for (const MatchSpan& m : v) out.emplace_back(m.start, m.end);
    return out;
  };
  PatternOptions caseless;
  caseless.case_insensitive = true;
  PatternOptions pcre2_caseless = caseless;
  pcre2_caseless.pcre2 = true;
  PatternOptions pcre2_plain;
  pcre2_plain.pcre2 = true;
  const std::string hay =
      "a\xFF"
      "b";
  for (const PatternOptions& o : {caseless, pcre2_caseless}) {
    // k (K, U+212A), s (S, U+017F), sigma (three forms), micro sign (mu, Mu).
    for (const std::string pattern : {"[^k]", "[^K]", "[^s]", "[^\xCF\x83]", "[^\xC2\xB5]"}) {
      INFO(pattern << (o.pcre2 ? " -P" : ""));
      CHECK(as_pairs(spans(compile_ok({pattern}, o), hay)) == Pairs{{0, 1}, {2, 3}});
      // Invalid UTF-8 at the end: nothing to match after the "a".
      CHECK(spans(compile_ok({"a" + pattern}, o), "a\xFF").empty());
      CHECK_FALSE(line_matches(compile_ok({"a" + pattern}, o), "a\xFF"));
    }
    CHECK(as_pairs(spans(compile_ok({"[^k]+"}, o),
                         "ab\xF0"
                         "cd")) == Pairs{{0, 2}, {3, 5}});
  }
  // Escapes and inline flags under -P.
  for (const char* p : {"(?i)[^k]", "(?i)[^\\x{212A}]", "(?i:[^\\x6b])", "(?i)[^\\153]"}) {
    INFO(p);
    CHECK(as_pairs(spans(compile_ok({p}, pcre2_plain), hay)) == Pairs{{0, 1}, {2, 3}});
  }
}

TEST_CASE("sets of many patterns search a line's spans in chunks as one alternation would",
          "[engine][pattern]") {
  // Over kSpanChunkPatterns (32) patterns with Hyperscan, line_re is compiled in chunks and a
  // line's spans come from the chunks of the patterns Hyperscan found in it: leftmost-first
  // across chunks, overlapping and touching matches of patterns in different chunks, -i with
  // non-ASCII literals (k, s and a Cyrillic word), -w.
  std::vector<std::string> patterns;
  patterns.reserve(64);
  for (int i = 0; i < 60; ++i) patterns.push_back("w" + std::to_string(i) + "x");
  patterns.insert(patterns.begin() + 5, "\xD0\xBF\xD1\x80\xD0\xB8");  // "при"
  patterns.emplace_back("kelvin");
  patterns.emplace_back("w1\\d+x");  // overlaps w1x, w10x, ... of earlier chunks
  patterns.emplace_back("ss");
  const std::vector<std::string> pieces = {"w1x",
                                           "w10x",
                                           "w59x",
                                           "w12",
                                           " ",
                                           "x",
                                           "\xD0\x9F\xD0\xA0\xD0\x98",
                                           "KELVIN",
                                           "\xE2\x84\xAA\x65lvin",
                                           "S",
                                           "\xC5\xBF",
                                           "w3x",
                                           "-",
                                           "w5"};
  std::vector<std::pair<PatternSet, PatternSet>> sets;  // (tested, PCRE2 alone) per options
  for (int k = 0; k < 4; ++k) {
    PatternOptions fast;
    fast.case_insensitive = k % 2 == 0;
    fast.word = k >= 2;
    PatternOptions alone = fast;
    alone.pcre2_only = true;
    sets.emplace_back(compile_ok(patterns, fast), compile_ok(patterns, alone));
  }
  std::mt19937 rng(77);
  for (int round = 0; round < 400; ++round) {
    const auto& [a, b] = sets[static_cast<std::size_t>(round % 4)];
    std::string line;
    const std::size_t n = 1 + rng() % 12;
    for (std::size_t i = 0; i < n; ++i) line += pieces[rng() % pieces.size()];
    INFO("line '" << escaped(line) << "' options " << round % 4);
    const auto got = spans(a, line), want = spans(b, line);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].start == want[i].start);
      CHECK(got[i].end == want[i].end);
    }
  }
}

// Open disagreements with ripgrep 14 at the PatternSet level (also OPEN_BUGS in
// tests/diff/test_rg_search.py). [!mayfail]: they report without failing the run; drop the tag
// once fixed.

TEST_CASE("smart case under -P counts every uppercase character not after a backslash",
          "[engine][pattern][!mayfail]") {
  // pcre2-smart-case: rg 14's -P rule makes `\p{Han}|\Sfoo` case-sensitive (the `H`). The CLI
  // applies the rule before compiling (cli/src/search.cpp, pcre2_smart_case_sensitive); the
  // engine's own smart case still uses the non--P rule, hence [!mayfail].
  PatternOptions smart_pcre2;
  smart_pcre2.smart_case = true;
  smart_pcre2.pcre2 = true;
  CHECK_FALSE(line_matches(compile_ok({"\\p{Han}|\\Sfoo"}, smart_pcre2), ".FOO"));
  CHECK(line_matches(compile_ok({"\\x{41}foo"}, smart_pcre2), "aFOO"));  // no uppercase literal
}

}  // namespace

TEST_CASE("a script name is the Script property, as in ripgrep, not PCRE2's Script_Extensions",
          "[engine][pattern]") {
  constexpr std::string_view kPerispomeni = "\xCD\x82";  // U+0342: script Inherited, scx Greek
  constexpr std::string_view kAlpha = "\xCE\xB1";
  PatternSet greek = compile_ok({"\\p{Greek}"}, {});
  CHECK(line_matches(greek, kAlpha));
  CHECK_FALSE(line_matches(greek, kPerispomeni));
  CHECK(line_matches(compile_ok({"\\P{Greek}"}, {}), kPerispomeni));
  CHECK(line_matches(compile_ok({"[\\p{Greek}x]+"}, {}), kAlpha));
  CHECK_FALSE(line_matches(compile_ok({"[\\p{Greek}x]"}, {}), kPerispomeni));
  // Categories and escaped backslashes are left alone.
  CHECK(line_matches(compile_ok({"\\p{Lu}"}, {}), "A"));
  CHECK(line_matches(compile_ok({"\\\\p{Greek}"}, {}), "\\p{Greek}"));
  // For Rust (and rg 14) those braces are a counted repetition: an error.
  PatternOptions rust;
  rust.rust_syntax_errors = true;
  CHECK_FALSE(PatternSet::compile({"\\\\p{Greek}"}, rust).ok());
  // -P keeps PCRE2's own meaning, as rg -P does.
  PatternOptions pcre2;
  pcre2.pcre2 = true;
  CHECK(line_matches(compile_ok({"\\p{Greek}"}, pcre2), kPerispomeni));
}

namespace {

// The first matching line at or after `from`, from a scratch that has seen nothing before.
std::optional<LineSpan> fresh_find_line(const PatternSet& set, std::string_view hay,
                                        std::size_t from) {
  PatternSet::Scratch scratch = set.make_scratch();
  auto hit = set.find_line(hay, from, scratch);
  if (!hit.ok()) FAIL("find_line failed: " << hit.error().detail);
  return *hit;
}

}  // namespace

TEST_CASE("find_line's look-ahead answers every query as a fresh scan would, in any order",
          "[engine][pattern_set]") {
  // One scratch queues the matching lines a scan finds past the first (up to 256 a scan); queries
  // that step back, skip ahead or pass the queue must still get the first matching line.
  std::mt19937 rng(7);
  const std::vector<std::string> words = {"foo", "bar", "str", "string", "x", "foofoo", "é", ""};
  std::string hay;
  for (int line = 0; line < 3000; ++line) {
    const int n = static_cast<int>(rng() % 4);
    for (int w = 0; w < n; ++w) hay += words[rng() % words.size()] + " ";
    hay += '\n';
  }
  std::vector<std::size_t> starts = {0};
  for (std::size_t i = 0; i < hay.size(); ++i) {
    if (hay[i] == '\n') starts.push_back(i + 1);
  }
  struct Case {
    std::vector<std::string> patterns;
    PatternOptions options;
  };
  const std::vector<Case> cases = {
      {{"foo"}, {}},              // a literal: Hyperscan's answer is exact
      {{"str[a-z]+"}, {}},        // a regex PCRE2 confirms line by line
      {{"foo"}, {.word = true}},  // literals whose occurrences are verified (-w)
      {{"bar", "str\\w"}, {.case_insensitive = true}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.patterns, c.options.word, c.options.case_insensitive);
    const PatternSet set = ctx::testing::compile_ok(c.patterns, c.options);
    PatternSet::Scratch scratch = set.make_scratch();
    // Forward, as the searcher goes: from past each hit.
    std::size_t from = 0;
    std::size_t hits = 0;
    while (from <= hay.size()) {
      auto hit = set.find_line(hay, from, scratch);
      REQUIRE(hit.ok());
      const std::optional<LineSpan> want = fresh_find_line(set, hay, from);
      REQUIRE(hit->has_value() == want.has_value());
      if (!want) break;
      REQUIRE((*hit)->start == want->start);
      REQUIRE((*hit)->end == want->end);
      ++hits;
      from = want->end + 1;
    }
    CHECK(hits > 300);  // enough to fill several look-ahead queues
    // Random line starts, stepping back and forth.
    for (int q = 0; q < 400; ++q) {
      const std::size_t at = starts[rng() % starts.size()];
      auto hit = set.find_line(hay, at, scratch);
      REQUIRE(hit.ok());
      const std::optional<LineSpan> want = fresh_find_line(set, hay, at);
      REQUIRE(hit->has_value() == want.has_value());
      if (want) REQUIRE((*hit)->start == want->start);
    }
  }
}

TEST_CASE(
    "small_haystacks runs a few plain literals on PCRE2 alone, tiny_haystacks any few "
    "patterns, with the same lines",
    "[engine][pattern]") {
  std::mt19937 rng(3);
  const std::vector<std::string> words = {
      "foo", "Foo", "bar",          "fo", "oo", "\xC3\xA9t\xC3\xA9",
      "K",   "k",   "\xE2\x84\xAA", " ",  "\n", "x.y"};
  std::string hay;
  for (int i = 0; i < 3000; ++i) hay += words[rng() % words.size()];
  hay += '\n';
  const std::vector<std::vector<std::string>> sets = {
      {"foo"}, {"k", "bar"}, {"x.y"}, {"\xC3\xA9t"}};
  for (const auto& set : sets) {
    for (const bool caseless : {false, true}) {
      for (const bool fixed : {false, true}) {
        PatternOptions usual;
        usual.case_insensitive = caseless;
        usual.fixed_strings = fixed;
        PatternOptions small = usual;
        small.small_haystacks = true;
        PatternOptions tiny = small;
        tiny.tiny_haystacks = true;
        const PatternSet a = compile_ok(set, usual);
        const PatternSet b = compile_ok(set, small);
        const PatternSet c = compile_ok(set, tiny);
        CAPTURE(set, caseless, fixed);
        // (x.y is a regex: unless -F it keeps Hyperscan, but not for tiny haystacks. One
        // literal keeps PairLiteral, which compiles nothing.)
        const bool literal = fixed || set[0] != "x.y";
        if (literal && set.size() > 1) CHECK_FALSE(b.hyperscan_exact());
        if (set.size() > 1 || !literal) CHECK_FALSE(c.hyperscan_exact());
        if (literal && set.size() == 1 && set[0] != "\xC3\xA9t") CHECK(c.hyperscan_exact());
        CHECK(matching_lines(a, hay) == matching_lines(b, hay));
        CHECK(matching_lines(a, hay) == matching_lines(c, hay));
      }
    }
  }
  // More than kFewLiterals literals keep Hyperscan.
  std::vector<std::string> many;
  for (std::size_t i = 0; i <= PatternOptions::kFewLiterals; ++i)
    many.push_back("w" + std::to_string(i) + "x");
  PatternOptions small;
  small.small_haystacks = true;
  CHECK(compile_ok(many, small).hyperscan_exact());
  small.tiny_haystacks = true;
  CHECK(compile_ok(many, small).hyperscan_exact());
}
