// Tests for the places where ripgrep's regex dialect (Rust's regex crate, ripgrep 14) and PCRE2
// with UCP read the same syntax differently (engine/src/rust_syntax.hpp): POSIX classes are
// ASCII, \w \W \b \B and -w use Rust's word characters (Alphabetic, marks, Nd, Pc, Join_Control),
// and -w's half word boundaries fail next to invalid UTF-8. Every expectation was checked against
// rg 14.1.1. The prefilters (Hyperscan in byte mode and in UTF-8 mode, the BitMatcher) must never
// drop a line PCRE2 alone accepts under the new definitions: the sweeps over code points below
// compare every path against PatternOptions::pcre2_only.
#define CATCH_CONFIG_ENABLE_PAIR_STRINGMAKER  // print match spans as {start, end}
#include "../../engine/src/rust_syntax.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctx/base/utf8.hpp"
#include "ctx/engine/pattern_set.hpp"
#include "line_starts.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::MatchSpan;
using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::testing::line_starts;
using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;

using ctx::testing::compile_ok;

Pairs spans(const PatternSet& set, std::string_view line) {
  PatternSet::Scratch scratch = set.make_scratch();
  std::vector<MatchSpan> out;
  if (auto status = set.find_spans(line, scratch, out); !status.ok()) {
    FAIL("find_spans failed: " << status.error().detail);
  }
  Pairs pairs;
  for (const MatchSpan& m : out) pairs.emplace_back(m.start, m.end);
  return pairs;
}

// Spans of `pattern` (one regex, default options plus `tweak`) in `line`.
Pairs spans_of(const std::string& pattern, std::string_view line, PatternOptions options = {}) {
  return spans(compile_ok({pattern}, options), line);
}

bool matches(const std::string& pattern, std::string_view line, PatternOptions options = {}) {
  return !spans_of(pattern, line, options).empty();
}

// One line per code point: ASCII, the Latin/Greek/Cyrillic/... blocks up to U+3000 (marks,
// numbers, symbols, General Punctuation with U+200C/U+200D and U+203F), the circled and squared
// letters that are Alphabetic but So, CJK, and astral digits and letters, each followed by "x" so
// that patterns like `\wx` have something to match; then a few lines with invalid UTF-8.
std::string code_point_lines() {
  std::string hay;
  auto add = [&](std::uint32_t lo, std::uint32_t hi) {
    for (std::uint32_t cp = lo; cp <= hi; ++cp) {
      if (cp == '\n' || (cp >= 0xD800 && cp <= 0xDFFF)) continue;
      hay += ctx::utf8_of(cp) + "x\n";
    }
  };
  add(0x01, 0x3000);
  add(0x3040, 0x30FF);
  add(0xFF00, 0xFF65);
  add(0x1D7CE, 0x1D7FF);  // mathematical digits (Nd)
  add(0x1F100, 0x1F1FF);  // enclosed alphanumerics: circled/squared letters (So, Alphabetic)
  add(0x10140, 0x1018F);  // Greek acrophonic numerals (Nl)
  hay +=
      "\xAF"
      "x\n"
      "a\xAF"
      "x\n"
      "\xC3"
      "ax\n"
      "x\xE2\x80\n";
  return hay;
}

// Every prefiltered path agrees with PCRE2 alone on every line of code_point_lines().
void sweep(const std::vector<std::string>& patterns, PatternOptions options = {}) {
  static const std::string hay = code_point_lines();
  PatternSet tested = compile_ok(patterns, options);
  options.pcre2_only = true;
  PatternSet reference = compile_ok(patterns, options);
  INFO("patterns " << patterns.front() << (patterns.size() > 1 ? " ..." : "")
                   << (options.case_insensitive ? " -i" : "") << (options.word ? " -w" : ""));
  CHECK(line_starts(tested, hay) == line_starts(reference, hay));
}

PatternOptions caseless() {
  PatternOptions o;
  o.case_insensitive = true;
  return o;
}

PatternOptions word() {
  PatternOptions o;
  o.word = true;
  return o;
}

constexpr std::string_view kLongS = "\xC5\xBF";       // U+017F, folds to s
constexpr std::string_view kKelvin = "\xE2\x84\xAA";  // U+212A, folds to k

}  // namespace

TEST_CASE("POSIX classes are Rust's ASCII sets, not PCRE2's Unicode ones", "[engine][rust]") {
  CHECK(spans_of("[[:alpha:]]+",
                 "\xC3\x89"
                 "cole") == Pairs{{2, 6}});         // École: cole
  CHECK_FALSE(matches("[[:upper:]]", "\xCE\xA3"));  // Greek capital sigma
  CHECK_FALSE(matches("[[:digit:]]", "\xD9\xA3"));  // Arabic-Indic three
  CHECK_FALSE(matches("[[:space:]]", "\xC2\xA0"));  // no-break space
  CHECK(spans_of("[[:space:]]+", "a\t\v\f\r b") == Pairs{{1, 6}});
  CHECK(spans_of("[[:punct:]]+", "a!/:@[`{~b") == Pairs{{1, 9}});
  CHECK(spans_of("[[:word:]]+", "a_1\xC3\xA9") == Pairs{{0, 3}});
  // Negated: everything outside the ASCII set, non-ASCII characters included.
  CHECK(spans_of("[[:^alpha:]]+",
                 "a\xC3\xA9"
                 "1b") == Pairs{{1, 4}});
  CHECK(spans_of("[x[:^alpha:]]+",
                 "ax\xC3\xA9"
                 "b") == Pairs{{1, 4}});
  CHECK(spans_of("[^[:alpha:]]+",
                 "a\xC3\xA9"
                 "b") == Pairs{{1, 3}});
  // Rust reads a top-level [:alpha:] as a class of ':', 'a', 'l', 'p', 'h'; PCRE2 refuses it.
  CHECK(spans_of("[:alpha:]", "b:a") == Pairs{{1, 2}, {2, 3}});
  // An unknown name is a nested class of its characters (rg 14: `[[:nope:]]` matches ':').
  CHECK(spans_of("[[:nope:]]", "a:n") == Pairs{{1, 2}, {2, 3}});
}

TEST_CASE("POSIX classes fold case as in Rust under -i and (?i)", "[engine][rust]") {
  // -i [[:upper:]] is [A-Za-z] plus U+017F and U+212A (simple case folding of s and k).
  CHECK(matches("[[:upper:]]", kLongS, caseless()));
  CHECK(matches("[[:upper:]]", kKelvin, caseless()));
  CHECK(matches("[[:upper:]]", "x", caseless()));
  CHECK_FALSE(matches("[[:upper:]]", "\xC3\x89", caseless()));  // É
  // A negated class excludes the whole fold closure: neither x, U+017F nor U+212A.
  CHECK_FALSE(matches("[[:^upper:]]", "x", caseless()));
  CHECK_FALSE(matches("[[:^upper:]]", kLongS, caseless()));
  CHECK_FALSE(matches("[[:^upper:]]", kKelvin, caseless()));
  CHECK(matches("[[:^upper:]]", "\xC3\xA9", caseless()));
  CHECK(matches("[[:^upper:]]", kLongS));  // case-sensitive: U+017F is not in [A-Z]
  // Inline flags are followed, group by group.
  CHECK_FALSE(matches("(?i:[[:^upper:]])", kKelvin));
  CHECK(matches("(?i:a)[[:^upper:]]", std::string("A") + std::string(kKelvin)));
  CHECK_FALSE(matches("(?i)[[:^lower:]]", kKelvin));
}

TEST_CASE("\\w and \\W are Rust's word characters", "[engine][rust]") {
  CHECK(spans_of("\\w+", "x\xE2\x82\x80y") == Pairs{{0, 1}, {4, 5}});  // subscript zero (No)
  CHECK(spans_of("\\w+", "e\xCC\x81t") == Pairs{{0, 4}});              // combining acute (Mn)
  CHECK(spans_of("\\w+",
                 "a\xE2\x80\xBF"
                 "b") == Pairs{{0, 5}});                     // U+203F (Pc)
  CHECK(spans_of("\\w+", "\xE2\x92\xB6") == Pairs{{0, 3}});  // circled A (So)
  CHECK(spans_of("\\w+",
                 "a\xE2\x80\x8D"
                 "b") == Pairs{{0, 5}});  // zero width joiner
  CHECK(spans_of("\\W+",
                 "a\xE2\x82\x80"
                 "b") == Pairs{{1, 4}});
  CHECK_FALSE(matches("\\W", "e\xCC\x81"));
  // \W inside a class, positive and negated.
  CHECK(spans_of("[\\W_]+", "a\xE2\x82\x80_b") == Pairs{{1, 5}});
  CHECK(spans_of("[^\\W\\d]+",
                 "a1\xE2\x82\x80"
                 "b\xCC\x81") == Pairs{{0, 1}, {5, 8}});
  CHECK(spans_of("[\\w\\W]", "\xE2\x82\x80") == Pairs{{0, 3}});
}

TEST_CASE("\\b, \\B and -w use Rust's word characters", "[engine][rust]") {
  CHECK(matches("x\\b", "x\xE2\x82\x80"));    // x then a non-word character
  CHECK_FALSE(matches("x\\b", "x\xCC\x81"));  // x then a mark: inside a word
  CHECK(matches("x\\B", "x\xCC\x81"));
  CHECK(matches("x", "x\xE2\x82\x80", word()));
  CHECK_FALSE(matches("x", "x\xCC\x81", word()));
  CHECK_FALSE(matches("x", "\xE2\x92\xB6x", word()));  // circled A before
  CHECK(spans_of("\\b\\w+\\b", "e\xCC\x81t\xC3\xA9 x") == Pairs{{0, 6}, {7, 8}});
}

TEST_CASE("-w and \\B fail next to invalid UTF-8 and inside a character, as in ripgrep 14",
          "[engine][rust]") {
  // Half word boundaries need a valid character (or the haystack's edge) on their side.
  CHECK_FALSE(matches("a.*b",
                      "\xAF"
                      "ab",
                      word()));
  CHECK_FALSE(matches("ab",
                      "\xAF"
                      "ab",
                      word()));
  CHECK_FALSE(matches("ab", "ab\xAF", word()));
  CHECK(matches("ab", " ab ", word()));
  // Empty matches of -w 'x?' in " —": not inside the em dash (rg: offsets 0, 1, 4).
  CHECK(spans_of("x?", " \xE2\x80\x94", word()) == Pairs{{0, 0}, {1, 1}, {4, 4}});
  // \B needs valid characters on both sides.
  CHECK_FALSE(matches("\\B", "a\xAF"));
  CHECK_FALSE(matches("\\B", "\xC3\xA9"));
  CHECK(spans_of("\\B", "ab") == Pairs{{1, 1}});
}

TEST_CASE("-P keeps PCRE2's own POSIX classes and word characters, as rg -P", "[engine][rust]") {
  PatternOptions pcre2;
  pcre2.pcre2 = true;
  CHECK(matches("[[:upper:]]", "\xCE\xA3", pcre2));
  CHECK(spans_of("\\w+", "x\xE2\x82\x80y", pcre2) == Pairs{{0, 5}});
}

TEST_CASE("the prefilters keep every line PCRE2 accepts under Rust's classes", "[engine][rust]") {
  // Byte-mode Hyperscan and the BitMatcher (plain patterns), UTF-8 Hyperscan (with \p{Greek},
  // which the byte rewriter does not model), each against PCRE2 alone over ~14,000 characters.
  for (const char* p : {"\\w", "\\W", "\\wx", "\\Wx", "[\\W_]x", "[^\\W\\d]x", "\\bx", "\\Bx",
                        "[[:alpha:]]x", "[[:^alpha:]]x", "[[:^word:]]x", "[x[:^upper:]]"}) {
    sweep({p});
    sweep({p}, caseless());
    sweep({std::string("\\p{Greek}\\p{Greek}|") + p});
    sweep({std::string("\\p{Greek}\\p{Greek}|") + p}, caseless());
  }
  sweep({"x"}, word());
  sweep({"\\p{Greek}\\p{Greek}|x"}, word());
  sweep({"[[:^upper:]]x", "\\p{Greek}\\p{Greek}"}, caseless());
  // \p{..} as exact Unicode 15 ranges (Hyperscan in UTF-8 mode, PCRE2), folded under -i.
  for (const char* p : {"\\p{Greek}", "\\P{Greek}x", "\\p{Lu}x", "\\P{Lu}", "[^\\p{Lu}\\d]x",
                        "[\\p{Greek}\\p{Cyrillic}k]+x", "\\p{scx=Greek}", "\\p{Age=3.0}x",
                        "\\p{wb=ALetter}\\p{gcb=Extend}", "\\p{sb=Upper}|\\P{Assigned}",
                        "[\\p{L}--\\p{Ll}]x", "\\p{ASCII}x", "\\P{Any}|\\p{Cherokee}"}) {
    sweep({p});
    sweep({p}, caseless());
    sweep({p}, word());
  }
}

TEST_CASE("the rewriter turns only what Rust and PCRE2 read differently", "[engine][rust]") {
  using ctx::engine::detail::WordMode;
  auto rust_to_pcre2 = [](std::string_view re, bool caseless, bool posix, WordMode words) {
    auto out = ctx::engine::detail::rust_to_pcre2(re, caseless, posix, words);
    return out.ok() ? out.value() : "error: " + out.error().detail;
  };
  CHECK(rust_to_pcre2("[[:alpha:]]", false, true, WordMode::kKeep) == "[A-Za-z]");
  CHECK(rust_to_pcre2("[^[:digit:]_]", false, true, WordMode::kKeep) == "[^0-9\\_]");
  CHECK(rust_to_pcre2("[[:^digit:]]", false, true, WordMode::kKeep) ==
        "[\\x{0}-\\x{2F}\\x{3A}-\\x{10FFFF}]");
  CHECK(rust_to_pcre2("[[:^lower:]]", true, true, WordMode::kKeep) ==
        "[\\x{0}-\\x{40}\\x{5B}-\\x{60}\\x{7B}-\\x{17E}\\x{180}-\\x{2129}\\x{212B}-\\x{10FFFF}]");
  // Escapes, \x{..} arguments, and classes of other characters are copied; \p{..} becomes the
  // Unicode 15 ranges (kRust, kSuperset) or the ASCII members plus \P{ASCII} (kKeep).
  CHECK(rust_to_pcre2("\\[:alpha:\\]\\p{Coptic}\\x{41}[a-z]", false, true, WordMode::kRust) ==
        "\\[:alpha:\\][\\x{3E2}-\\x{3EF}\\x{2C80}-\\x{2CF3}\\x{2CF9}-\\x{2CFF}]\\x{41}[a-z]");
  CHECK(rust_to_pcre2("\\p{Coptic}", false, true, WordMode::kSuperset) ==
        "[\\x{3E2}-\\x{3EF}\\x{2C80}-\\x{2CF3}\\x{2CF9}-\\x{2CFF}]");
  CHECK(rust_to_pcre2("\\p{Coptic}", false, true, WordMode::kKeep) == "\\P{ASCII}");
  CHECK(rust_to_pcre2("\\p{AHex}", false, true, WordMode::kKeep) == "[0-9A-Fa-f]");
  CHECK(rust_to_pcre2("\\P{Lu}", true, true, WordMode::kKeep) ==
        "[\\x{0}-\\x{40}\\x{5B}-\\x{60}\\x{7B}-\\x{7F}\\P{ASCII}]");
  CHECK(rust_to_pcre2("a\\wb", false, true, WordMode::kKeep) == "a\\wb");
  CHECK(rust_to_pcre2("\\w", false, false, WordMode::kRust) ==
        "[" + std::string(ctx::engine::detail::kRustWordItems) + "]");
  CHECK(rust_to_pcre2("a\\bb", false, false, WordMode::kSuperset) == "ab");
}

TEST_CASE("a valid character then stray continuation bytes is the character before, as in Rust",
          "[engine][rust]") {
  // Rust's decode_last decodes from the last non-continuation byte among the 4 before a
  // position: in ".\x80bar" the character before "bar" is '.', a non-word character.
  CHECK(matches("bar",
                ".\x80"
                "bar",
                word()));
  CHECK_FALSE(matches("bar",
                      "a\x80"
                      "bar",
                      word()));  // 'a' before: inside a word
  CHECK_FALSE(matches("bar",
                      "\x80\x80"
                      "bar",
                      word()));  // nothing valid: fails
  CHECK(spans_of("\\b", "ab\xAF") == Pairs{{0, 0}, {2, 2}, {3, 3}});
  CHECK(spans_of("\\Bbar",
                 "a\x80"
                 "bar") == Pairs{{2, 5}});
  // At a line's start only continuation bytes: the line terminator before them counts, when
  // the caller says there is one (the CLI's -o, as ripgrep's printer searching the buffer).
  PatternSet w = compile_ok({"x"}, word());
  PatternSet::Scratch scratch = w.make_scratch();
  std::vector<MatchSpan> out;
  REQUIRE(w.find_spans("\xAF"
                       "x",
                       scratch, out, /*after_line_break=*/true)
              .ok());
  CHECK(out.size() == 1);
  out.clear();
  REQUIRE(w.find_spans("\xAF"
                       "x",
                       scratch, out, /*after_line_break=*/false)
              .ok());
  CHECK(out.empty());
}

TEST_CASE("empty matches inside invalid UTF-8 are found past the start offset", "[engine][rust]") {
  // PCRE2 10.42 (PCRE2_MATCH_INVALID_UTF) never starts an attempt inside an invalid sequence
  // past the start offset; Rust regex does (rg 14: offsets 0, 2, 3, 6).
  CHECK(spans_of("\\b",
                 "ab\xAF\xAF"
                 "cd") == Pairs{{0, 0}, {2, 2}, {3, 3}, {6, 6}});
  CHECK(spans_of("x?",
                 "a\xAF"
                 "b") == Pairs{{0, 0}, {1, 1}, {2, 2}, {3, 3}});
  // Multiline mode: `^` after a line feed before an invalid byte (rg -U -c '^|foo': 2).
  PatternOptions ml;
  ml.multiline = true;
  PatternSet caret = compile_ok({"^|foo"}, ml);
  PatternSet::Scratch scratch = caret.make_scratch();
  const std::string hay =
      "a\n\xAF"
      "x";
  auto first = caret.find_multiline(hay, 1, scratch);  // the rest "\n\xAFx" as a haystack
  REQUIRE(first.ok());
  REQUIRE(first->has_value());
  CHECK((*first)->start == 1);
  auto second = caret.find_multiline(hay, 2, scratch);  // the rest "\xAFx": its start
  REQUIRE(second.ok());
  REQUIRE(second->has_value());
  CHECK((*second)->start == 2);
  std::vector<MatchSpan> out;
  REQUIRE(caret.find_spans_in(hay, 0, hay.size(), scratch, out).ok());
  Pairs pairs;
  for (const MatchSpan& m : out) pairs.emplace_back(m.start, m.end);
  CHECK(pairs == Pairs{{0, 0}, {2, 2}});
}

TEST_CASE("smart case needs a literal and reads hex escapes as their characters, as rg 14",
          "[engine][rust]") {
  PatternOptions smart;
  smart.smart_case = true;
  // No literal at all: case-sensitive (-S '[[:upper:]]+' does not match "t").
  CHECK_FALSE(matches("[[:upper:]]+", "t", smart));
  CHECK_FALSE(matches("(?:[[:lower:]])", "T", smart));
  // A literal, even an escaped one or a repetition's operand, makes it case-insensitive.
  CHECK(matches("\\.|[[:upper:]]", "t", smart));
  CHECK(matches("a{2}|[[:upper:]]", "t", smart));
  // \x41 is an uppercase 'A'; \x61 a lowercase one.
  CHECK_FALSE(matches("\\x41", "a", smart));
  CHECK_FALSE(matches("\\x{391}", "\xCE\xB1", smart));  // Greek capital alpha
  CHECK(matches("\\x61", "A", smart));
}

namespace {

// Planes 0-3 and the tags/variation selectors of plane 14 (every assigned character but
// plane 15-16 private use), without surrogates and the line feed: one a line.
const std::vector<std::uint32_t>& sweep_code_points() {
  static const std::vector<std::uint32_t> cps = [] {
    std::vector<std::uint32_t> v;
    auto add = [&](std::uint32_t lo, std::uint32_t hi) {
      for (std::uint32_t cp = lo; cp < hi; ++cp) {
        if (cp != '\n' && (cp < 0xD800 || cp > 0xDFFF)) v.push_back(cp);
      }
    };
    add(0, 0x40000);
    add(0xE0000, 0xE01F0);
    return v;
  }();
  return cps;
}

// How many of sweep_code_points() `pattern` matches (the prefiltered path).
std::size_t count_all(const std::string& pattern, PatternOptions options = {}) {
  static const std::string hay = [] {
    std::string h;
    for (std::uint32_t cp : sweep_code_points()) h += ctx::utf8_of(cp) + "\n";
    return h;
  }();
  return line_starts(compile_ok({pattern}, options), hay).size();
}

std::string error_of(const std::string& pattern) {
  auto set = PatternSet::compile({pattern}, {});
  return set.ok() ? std::string("(compiled)") : set.error().detail;
}

}  // namespace

// Counts over sweep_code_points() (260,591 code points) from rg 14.1.1: `rg -c PATTERN` on a
// file with one code point a line. (PCRE2 10.42's Unicode 14 tables miss what Unicode 15 added
// to \p{..} classes; \p{..} itself comes from Unicode 15 tables.)
TEST_CASE("\\s \\d \\w, nested classes and set operations match what ripgrep 14 matches",
          "[engine][rust]") {
  CHECK(count_all("\\s") == 24);  // White_Space without \n: no U+180E, no U+200B
  CHECK(count_all("[^\\S]") == 24);
  CHECK(count_all("\\d") == 680);  // Nd with Unicode 15's Kawi and Nag Mundari digits
  CHECK(count_all("\\w") == 139612);
  CHECK(count_all("[^\\W_]") == 139611);
  CHECK(count_all("[\\w--\\d]") == 138932);
  CHECK(count_all("[\\p{Greek}&&\\p{Uppercase}]") == 123);
  CHECK(count_all("[a-z&&[^aeiou]]") == 21);
  CHECK(count_all("\\p{Lu}") == 1831);  // Hyperscan's tables miss Cherokee capitals and more
}

// Counts over sweep_code_points() from rg 14.1.1 (`rg -c`, as above).
TEST_CASE("\\p{..} classes hold ripgrep 14's Unicode 15 members, Age and break properties too",
          "[engine][rust]") {
  CHECK(count_all("\\p{L}") == 136104);  // CJK Extension H (Unicode 15) included
  CHECK(count_all("\\PL") == 124487);
  CHECK(count_all("\\p{Cased_Letter}") == 4095);
  CHECK(count_all("\\p{gc=Nd}") == 680);
  CHECK(count_all("\\p{Bidi_Mirrored}") == 553);
  CHECK(count_all("\\p{Kawi}") == 86);  // a Unicode 15 script PCRE2 10.42 does not know
  CHECK(count_all("\\p{Common}") == 8300);
  CHECK(count_all("\\p{scx=Greek}") == 522);
  CHECK(count_all("\\p{Script_Extensions=Common}") == 7872);
  CHECK(count_all("\\p{Age=1.1}") == 33978);
  CHECK(count_all("\\p{Age=V6_0}") == 115888);
  CHECK(count_all("\\P{age=14.0}") == 109390);
  CHECK(count_all("\\p{gcb=Extend}") == 2130);
  CHECK(count_all("\\p{Grapheme_Cluster_Break=Prepend}") == 27);
  CHECK(count_all("\\p{wb=ALetter}") == 29489);
  CHECK(count_all("\\p{Word_Break=ExtendNumLet}") == 11);
  CHECK(count_all("\\p{sb=ATerm}") == 4);
  CHECK(count_all("\\p{Sentence_Break=OLetter}") == 132036);
  CHECK(count_all("[^\\p{L}\\p{N}]") == 122656);
  CHECK(count_all("\\P{Any}") == 0);
}

TEST_CASE("-i, (?i) and smart case fold \\p{..} classes before negating them, as Rust does",
          "[engine][rust]") {
  CHECK(matches("\\p{Lu}", "a", caseless()));
  CHECK_FALSE(matches("\\P{Lu}", "a", caseless()));
  CHECK_FALSE(matches("\\P{Lu}", "A", caseless()));
  CHECK(matches("\\P{Lu}", "1", caseless()));
  CHECK_FALSE(matches("[^\\p{Lu}]", "a", caseless()));
  CHECK(matches("\\p{Ll}", std::string(kKelvin), caseless()));  // K, k, U+212A: one class
  CHECK(matches("(?i)\\p{Lu}", "a"));
  CHECK(matches("(?i:\\p{Lu})", "a"));
  CHECK_FALSE(matches("(?i:x)\\p{Lu}", "xa"));
  CHECK_FALSE(matches("\\p{Lu}", "a"));
  PatternOptions smart;
  smart.smart_case = true;
  // Smart case needs a literal without uppercase: a lone class stays case-sensitive (rg 14).
  CHECK_FALSE(matches("\\p{lu}", "a", smart));
  CHECK(matches("\\p{lu}x", "aX", smart));
  CHECK(count_all("\\p{Lu}", caseless()) == 3212);
  CHECK(count_all("\\P{Lu}", caseless()) == 257379);
  CHECK(count_all("[^\\p{Lu}]", caseless()) == 257379);
  CHECK(count_all("[\\P{Lu}x]", caseless()) == 257381);
  CHECK(count_all("\\p{Greek}", caseless()) == 520);
  CHECK(count_all("\\p{Cherokee}", caseless()) == 172);
  CHECK(count_all("\\p{ASCII}", caseless()) == 129);  // U+017F and U+212A fold into it
  CHECK(count_all("\\p{sb=Lower}", caseless()) == 3884);
  CHECK(count_all("[\\p{Greek}--\\p{Lowercase}]", caseless()) == 171);
  CHECK(count_all("\\p{Assigned}", caseless()) == 155650);
}

TEST_CASE("Rust's \\p names and aliases are accepted, PCRE2-only ones are errors with an offset",
          "[engine][rust]") {
  // Accepted by rg 14 (Rust's loose matching: case, spaces, '_', '-' and an "is" prefix).
  CHECK(matches("\\p{Letter}", "\xCE\xB1"));
  CHECK(matches("\\p{uppercase letter}", "A"));
  CHECK(matches("\\p{General_Category=Decimal_Number}", "\xD9\xA3"));
  CHECK(matches("\\p{gc:digit}", "7"));
  CHECK(matches("\\p{Script=Greek}", "\xCE\xB1"));
  CHECK(matches("\\p{isGreek}", "\xCE\xB1"));
  CHECK(matches("\\p{punct}", "!"));
  CHECK(matches("\\p{Combining_Mark}", "\xCC\x81"));
  CHECK_FALSE(matches("\\p{Assigned}", "\xF3\xA0\x80\x80"));  // U+E0000 is unassigned
  CHECK(matches("\\P{Cased_Letter}", "1"));
  CHECK(matches("(?u)\\w(?u:x)", "ax"));
  // ripgrep 14 reads `!=` as `=` (rg 13 too): \p{sc!=Greek} matches Greek.
  CHECK(matches("\\p{sc!=Greek}", "\xCE\xB1"));
  CHECK_FALSE(matches("\\p{sc!=Greek}", "a"));
  // Rejected by rg 14, accepted by PCRE2 10.42: errors naming where the escape starts.
  CHECK(error_of("ab\\p{L&}") ==
        "regex parse error in 'ab\\p{L&}' at offset 2: Unicode property not found");
  CHECK(error_of("[\\p{Xan}]").find("at offset 1: Unicode property not found") !=
        std::string::npos);
  CHECK(error_of("\\p{^Greek}").find("at offset 0: Unicode property not found") !=
        std::string::npos);
  CHECK(error_of("\\p{Unknown}").find("at offset 0") != std::string::npos);
  CHECK(error_of("\\p{bc=L}").find("at offset 0") != std::string::npos);
  CHECK(error_of("x\\p{Age=NA}") ==
        "regex parse error in 'x\\p{Age=NA}' at offset 1: Unicode property value not found");
  CHECK(error_of("\\p{gcb=Other}").find("at offset 0: Unicode property value not found") !=
        std::string::npos);
  CHECK(error_of("[a\\p{Script}]").find("at offset 2: Unicode property not found") !=
        std::string::npos);
  CHECK(error_of("\\p{gc=Cs}").find("Unicode property value not found") != std::string::npos);
  CHECK(error_of("\\p{Katakana_Or_Hiragana}").find("value not found") != std::string::npos);
  // (?-u) is Rust's byte mode (byte_mode_test.cpp): \w is ASCII there.
  CHECK(matches("a(?-u)\\w", "ab"));
  CHECK_FALSE(matches("a(?-u)\\w", "a\xCE\xB1"));
}

TEST_CASE("nested classes and class set operations follow Rust", "[engine][rust]") {
  CHECK(spans_of("[a-z&&[^aeiou]]+", "hello") == Pairs{{0, 1}, {2, 4}});
  CHECK(spans_of("[\\w--\\d]+", "ab12cd") == Pairs{{0, 2}, {4, 6}});
  CHECK(spans_of("[a-c~~b-d]+", "abcde") == Pairs{{0, 1}, {3, 4}});
  // Equal precedence, left to right: [[a-z--aeiou]&&[a-h]].
  CHECK(spans_of("[a-z--aeiou&&a-h]+", "abcdefghi") == Pairs{{1, 4}, {5, 8}});
  CHECK(spans_of("[^a-z&&[^aeiou]]+", "hello") == Pairs{{1, 2}, {4, 5}});
  CHECK(spans_of("[a[\\W]]+", "ba-b") == Pairs{{1, 3}});
  CHECK(spans_of("[[:nope:]]", "a:n") == Pairs{{1, 2}, {2, 3}});  // a nested class of ':', 'n'...
  CHECK_FALSE(matches("[a&&]", "a"));                             // an empty right-hand side
  // Case folding applies to each operand, then the operation (rg 14 -i).
  CHECK(matches("[a-z&&[^k]]", "K", caseless()) == false);
  CHECK(matches("[a-z&&[^k]]", "B", caseless()));
  CHECK_FALSE(matches("[a-z&&[^k]]", kKelvin, caseless()));
  CHECK(error_of("[a-z&&[^k]").find("at offset 0: unclosed character class") != std::string::npos);
}

TEST_CASE("the prefilters keep every line PCRE2 accepts for the new class constructs",
          "[engine][rust]") {
  for (const char* p : {"\\sx", "\\Sx", "[^\\S]x", "\\dx", "\\Dx", "[a-z&&[^aeiou]]x",
                        "[\\w--\\d]x", "[a[\\W]]x", "[^\\w--\\d]x", "\\p{Lu}x", "\\pNx",
                        "[\\p{Greek}&&\\pL]x", "\\p{Letter}x", "[^\\p{Lu}\\s]x"}) {
    sweep({p});
    sweep({p}, caseless());
  }
  sweep({"\\p{Lu}"}, word());
  sweep({"[\\w--\\d]+"}, word());
}
