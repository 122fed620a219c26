// Where ripgrep's regex dialect (Rust's regex crate) and PCRE2 (UTF + UCP) read the same syntax
// differently, rewrites of a pattern so that PCRE2 and Hyperscan follow Rust.
//
//   POSIX classes   Rust: ASCII only ([[:alpha:]] is [A-Za-z], [[:^alpha:]] everything else,
//                   Unicode included); PCRE2 with UCP: Unicode properties.
//   \w \W \b \B     Rust's word character is [\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}];
//                   PCRE2 10.42's (UCP) is letters, every number, and '_'.
//   [:alpha:]       at the top level: a class of ':', 'a', 'l', ... in Rust, an error in PCRE2.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace ctx::engine::detail {

// The members of Rust regex-syntax's ASCII class `name` (`alpha` for [[:alpha:]]; ClassAsciiKind):
// true for each member below 128. Returns false, `s` cleared, for a name Rust does not know.
using AsciiSet = std::array<bool, 128>;
bool ascii_class(std::string_view name, AsciiSet& s);

// PCRE2 class items (for inside [...]) of Rust's \w.
inline constexpr std::string_view kRustWordItems =
    "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}";

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
  kKeep,      // \w \W \b \B stay as written (the byte prefilter and BitMatcher: they read \w as
              // ASCII word bytes plus any non-ASCII character, a superset of Rust's \w and \W)
  kRust,      // exactly Rust's (for PCRE2)
  kSuperset,  // a superset for Hyperscan's UTF-8 UCP mode: \w and \W become classes of general
              // categories that hold Rust's, \b and \B are dropped (an assertion removed widens)
};

// `regex` (ripgrep's syntax) with POSIX classes as Rust's ASCII sets (`posix`) and \w \W \b \B
// per `words`. `caseless`: -i (inline (?i) groups are followed too); a negated POSIX class then
// excludes the whole case-fold closure of its set, as Rust's does (-i [[:^upper:]] matches
// neither `a` nor U+017F). Anything not understood is copied unchanged.
std::string rust_to_pcre2(std::string_view regex, bool caseless, bool posix, WordMode words);

}  // namespace ctx::engine::detail
