// Where ripgrep's regex dialect (Rust's regex crate) and PCRE2 (UTF + UCP) read the same syntax
// differently, rewrites of a pattern so that PCRE2 and Hyperscan follow Rust.
//
//   POSIX classes   Rust: ASCII only ([[:alpha:]] is [A-Za-z], [[:^alpha:]] everything else,
//                   Unicode included); PCRE2 with UCP: Unicode properties.
//   \w \W \b \B     Rust's word character is [\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}];
//                   PCRE2 10.42's (UCP) is letters, every number, and '_'.
//   \s \S           Rust: White_Space; PCRE2 also counts U+180E (\h).
//   \d \D \w        Rust (ripgrep 14) has Unicode 15 tables, PCRE2 10.42 Unicode 14: the
//                   characters new in Unicode 15 are added to \d and \w.
//   \p{..}          resolved as Rust resolves it (names, aliases, gc, sc, scx, Age, gcb, wb, sb;
//                   unicode_props.hpp) into ripgrep 14's Unicode 15 code point ranges, closed
//                   under simple case folding when case-insensitive (PCRE2 folds no property);
//                   names only PCRE2 knows (\p{L&}, \p{Xan}, \p{^Greek}) are errors.
//   [a[b]] [a&&b]   nested classes and the set operations && -- ~~ (intersection, difference,
//                   symmetric difference) become look-aheads around one-character classes.
//   [:alpha:]       at the top level: a class of ':', 'a', 'l', ... in Rust, an error in PCRE2.
//   (?u)            dropped (Unicode mode is the default); (?-u) is an error here: patterns with
//                   it (and --no-unicode) go to byte_mode.hpp instead.
//   \b{start} \<    Rust's special word boundaries (\b{end} \>, \b{start-half}, \b{end-half}):
//                   look-arounds on kRustWordItems, as \b; PCRE2 reads `\b{start}` as \b and
//                   a literal, `\<` as `<`.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "ctx/base/result.hpp"

namespace ctx::engine::detail {

// The members of Rust regex-syntax's ASCII class `name` (`alpha` for [[:alpha:]]; ClassAsciiKind):
// true for each member below 128. Returns false, `s` cleared, for a name Rust does not know.
using AsciiSet = std::array<bool, 128>;
bool ascii_class(std::string_view name, AsciiSet& s);

// PCRE2 class items (for inside [...]) of Rust's \w: the properties, plus the characters
// Unicode 15 (ripgrep 14) added to them and PCRE2 10.42's Unicode 14 tables lack.
inline constexpr std::string_view kRustWordItems =
    "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}"
    "\\x{CF3}\\x{ECE}\\x{10EFD}-\\x{10EFF}\\x{1123F}-\\x{11241}\\x{11F00}-\\x{11F10}"
    "\\x{11F12}-\\x{11F3A}\\x{11F3E}-\\x{11F42}\\x{11F50}-\\x{11F59}\\x{1342F}"
    "\\x{13440}-\\x{13455}\\x{1B132}\\x{1B155}\\x{1DF25}-\\x{1DF2A}\\x{1E030}-\\x{1E06D}"
    "\\x{1E08F}\\x{1E4D0}-\\x{1E4F9}\\x{2B739}\\x{31350}-\\x{323AF}";

// PCRE2 callouts the kRust rewrites and -w use for a quirk of Rust's word boundaries: the
// character before a position is decoded from the last byte (among the 4 before it) that is not a
// UTF-8 continuation byte, so a valid character followed by stray continuation bytes counts as
// the character before ("b\x80" ends in 'b'), where PCRE2's look-behinds see invalid UTF-8.
// kCalloutWordBefore succeeds (returns 0) only in that case with a word character, and
// kCalloutNonWordBefore only in that case with any other character; both fail otherwise (the
// look-behinds decide the other cases). The match context must have rust_word_callout set
// (pattern_set.cpp).
inline constexpr int kCalloutWordBefore = 241;
inline constexpr int kCalloutNonWordBefore = 242;

enum class WordMode {
  kKeep,      // \w \W \b \B \s \S \d \D stay as written (PCRE2 without UCP on ASCII lines, the
              // byte prefilter and the BitMatcher: they read them as ASCII classes, or as ASCII
              // plus any non-ASCII character, a superset of Rust's)
  kRust,      // exactly Rust's (for PCRE2 with UCP)
  kSuperset,  // a superset for Hyperscan's UTF-8 UCP mode, whose Unicode tables are older than
              // PCRE2's: every class and class escape becomes its exact ASCII members plus every
              // non-ASCII character (\p{..} alone, or with literals in a class: its exact
              // ranges), \b and \B are dropped (an assertion removed widens)
};

// `regex` (ripgrep's syntax) with POSIX classes as Rust's ASCII sets (`posix`) and the rest
// per `words` (see WordMode). `caseless`: -i (inline (?i) groups are followed too); a negated
// POSIX class then excludes the whole case-fold closure of its set, as Rust's does (-i
// [[:^upper:]] matches neither `a` nor U+017F). Anything not understood is copied unchanged.
// \p{..} and \P{..} become exact Unicode 15 ranges (kRust, kSuperset) or their exact ASCII
// members plus \P{ASCII} (kKeep), case-folded first under `caseless` or (?i).
// Errors (kInvalidArgument, naming the offset in `regex`): a \p{..} name Rust does not accept,
// (?-u), a class set operation without a right-hand side.
Result<std::string> rust_to_pcre2(std::string_view regex, bool caseless, bool posix,
                                  WordMode words);

// The length of the PCRE2 class item at `at` of `text` that stands for one character (a UTF-8
// character other than a backslash, or an escape of one: \x{..}, \xHH, \N{..}, \o{..}, octal
// digits, or a backslash and one ASCII character), or 0 when there is none.
std::size_t one_char_item_length(std::string_view text, std::size_t at);

// Whether class items `items` are exactly one item for one character (one_char_item_length).
inline bool one_class_item(std::string_view items) {
  return !items.empty() && one_char_item_length(items, 0) == items.size();
}

// Whether PCRE2 regex `regex` may hold a negated class of one character ([^k], [^\x{3A3}]):
// PCRE2 10.42's JIT misreads invalid UTF-8 there under caseless matching (see run_pcre2 in
// pattern_set.cpp). Errs on the side of "may" (a "[^" in a comment or after \Q counts).
bool may_negate_one_char(std::string_view regex);

}  // namespace ctx::engine::detail
