// Rust regex's non-Unicode mode ((?-u), ripgrep's --no-unicode) for PCRE2 without UTF and for
// Hyperscan without HS_FLAG_UTF8: ripgrep's dialect translated into a regex over bytes, where
// Unicode-mode pieces (`.`, \p{..}, \w, Unicode classes, case-folded literals) become UTF-8
// byte-sequence alternations (regex-syntax's Utf8Sequences) and pieces with Unicode off match
// raw bytes, exactly as regex-syntax 0.8 translates them with utf8(false) (ripgrep 14).
//
//   Unicode off   `.` any byte but \n; `\xNN` (two digits, NN >= 0x80) the byte; [^a] any byte
//                 but a; \w \d \s \b and POSIX classes ASCII; (?i) folds ASCII letters only;
//                 \p{..} and a non-ASCII literal in a class are errors ("Unicode not allowed
//                 here"); a non-ASCII literal outside a class is its UTF-8 bytes.
//   Unicode on    as rust_syntax.hpp's kRust mode, over UTF-8 bytes; \b \B (and \b{start}...)
//                 are PCRE2 callouts (kCalloutWordBoundary...) deciding Rust's look-arounds on
//                 the subject's bytes.
// Case folding and dot-all are spelled out: the regex needs neither PCRE2_CASELESS nor
// PCRE2_DOTALL (nor their Hyperscan flags); (?m) and (?U) stay as written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctx/base/result.hpp"
#include "rust_hir.hpp"

namespace ctx::engine::detail {

// PCRE2 callouts the byte-mode regexes use for Rust's Unicode look-arounds, decided on the
// subject's bytes as regex-automata 0.4's LookMatcher decides them (is_word_unicode,
// is_word_unicode_negate, is_word_start_unicode, is_word_end_unicode,
// is_word_start_half_unicode, is_word_end_half_unicode). The match context must have
// rust_word_callout set (pattern_set.cpp).
inline constexpr int kCalloutWordBoundary = 243;
inline constexpr int kCalloutNotWordBoundary = 244;
inline constexpr int kCalloutWordStart = 245;
inline constexpr int kCalloutWordEnd = 246;
inline constexpr int kCalloutWordStartHalf = 247;
inline constexpr int kCalloutWordEndHalf = 248;

// One sequence of byte ranges, each byte of a UTF-8 encoding in its range.
using Seq = std::vector<std::pair<std::uint8_t, std::uint8_t>>;

// regex-syntax's Utf8Sequences: appends the UTF-8 encodings of the scalar values in [lo, hi] to
// `out` as sequences of byte ranges, ascending, none overlapping.
void utf8_sequences(std::uint32_t lo, std::uint32_t hi, std::vector<Seq>& out);

// Whether `regex` (ripgrep's syntax) turns Unicode mode off somewhere: a flag group with `u`
// after its `-` ((?-u), (?i-u:...)). Errs on the side of "yes" (a `(?-u` inside a class or after
// a backslash counts too); the byte-mode translation of a pattern without one is still exact.
bool disables_unicode(std::string_view regex);

struct ByteRegexOptions {
  bool caseless = false;  // -i (or smart case): (?i) at the start
  bool unicode = true;    // false: --no-unicode, (?-u) at the start
  bool dotall = false;    // --multiline-dotall: (?s) at the start
  bool crlf = false;      // --crlf: (?R) at the start (`.` matches no \r either)
  // A superset for Hyperscan (no callouts, no named groups, no (?m)/(?U); big Unicode classes
  // become their exact ASCII members plus every non-ASCII character) rather than the exact regex.
  bool superset = false;
  // The bytes ripgrep strips from classes (its line terminator without -U), for the HIR summary
  // (RustFacts::hir) only.
  std::string_view strip;
};

// `regex` in ripgrep's syntax as a PCRE2 regex to compile without PCRE2_UTF (or a Hyperscan
// expression without HS_FLAG_UTF8 under `superset`). Errors (kInvalidArgument, "regex parse error
// in '<regex>' at offset N: why", the why as regex-syntax words it): \p{..} or a non-ASCII class
// literal with Unicode off, unknown \p names, look-around, backreferences, unclosed groups and
// classes, unknown escapes and flags, a quantifier with nothing to repeat.
// `facts` (when given) gets what the parse found (see RustFacts).
struct RustFacts {
  // The pattern uses syntax that PCRE2 with UTF reads otherwise than Rust even after
  // rust_to_pcre2 (rust_syntax.hpp): a repeated repetition or assertion (a**, a++ is (a+)+ in
  // Rust, possessive in PCRE2), whitespace in a counted repetition (a{ 2 }), the x flag (Rust
  // skips whitespace in classes too) or the R flag (CRLF mode, PCRE2's recursion). Such patterns
  // run on the byte-mode translation, which reads them as Rust does.
  bool differs = false;
  // regex-syntax's HIR of the pattern, summarized for ripgrep's checks (rust_hir.hpp); with the
  // options' case folding and Unicode mode. hir_unknown() when it does not parse.
  HirSummary hir = hir_unknown();
};
Result<std::string> rust_to_bytes(std::string_view regex, const ByteRegexOptions& options,
                                  RustFacts* facts = nullptr);

// `regex` without Rust's extended syntax, for the UTF-8 path: where the x flag is on, the
// whitespace and `#` comments it ignores are dropped (an escaped whitespace character becomes a
// \x{..} escape), and the flag leaves its flag groups ((?x) goes, (?ix:a) is (?i:a)).
// Returns nullopt unless that is the same regex with no x flag left: `regex` parses (options as
// rust_to_bytes'), its byte translation equals the rewrite's, and the rewrite needs nothing
// else of byte mode (RustFacts::differs). So a pattern whose x flag was its only reason for byte
// mode runs on the UTF-8 path, where `\w` is one class rather than a byte alternation that
// PCRE2's compiled-size limit refuses when counted (`(?x)(?:\w+\s+){1,5}`).
std::optional<std::string> without_extended_syntax(std::string_view regex,
                                                   const ByteRegexOptions& options);

}  // namespace ctx::engine::detail
