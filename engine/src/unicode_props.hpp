// Rust regex-syntax's Unicode classes (ripgrep 14, Unicode 15.0) as code point ranges: \p{..}
// resolved exactly as regex-syntax resolves it, simple case folding of a class, complement.
// rust_syntax.cpp turns the ranges into PCRE2 or Hyperscan class items.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ctx::engine::detail {

// Sorted, disjoint, non-adjacent [lo, hi] ranges of Unicode scalar values (no surrogates).
using CodepointRanges = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

// What \p{body} names, once canonical.
struct UnicodeClass {
  enum Kind { kBinary, kGeneralCategory, kScript, kScriptExtensions, kOther } kind = kOther;
  std::string canonical;   // `Alphabetic`, `Uppercase_Letter`, `Any`, `Greek`; for kOther `Age`...
  CodepointRanges ranges;  // its members (Unicode 15.0)
};

// The class Rust gives `\p{body}` (`body` as written between the braces, or the one letter of
// \pL). nullopt, `why` set to regex-syntax's message, when Rust rejects it ("Unicode property not
// found", "Unicode property value not found").
std::optional<UnicodeClass> unicode_class(std::string_view body, std::string& why);

// `ranges` closed under simple case folding (regex-syntax's try_case_fold_simple).
CodepointRanges case_fold_closure(const CodepointRanges& ranges);

// The scalar values not in `ranges` (regex-syntax's ClassUnicode::negate).
CodepointRanges complement(const CodepointRanges& ranges);

// Sorts and merges `ranges` into the form above (adjacent ranges joined).
CodepointRanges canonical_ranges(CodepointRanges ranges);

}  // namespace ctx::engine::detail
