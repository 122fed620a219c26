// A byte-mode stand-in for a Unicode regex, for Hyperscan prefiltering.
//
// Hyperscan compiles Unicode classes (\w, \s, [[:alpha:]], `.` under HS_FLAG_UCP) into automata
// over UTF-8 that take seconds to build (`\w{5}\s+\w{5}\s+\w{5}`: ~2-4 s, 1.3 MB). Every regex is
// confirmed by PCRE2 anyway, so Hyperscan only has to find a superset of the matching lines. This
// rewrites a regex into one over bytes that matches wherever the original matches: every construct
// that can match a non-ASCII character gets the alternative `[\x80-\xff]+` (the bytes of any
// multibyte characters), ASCII stays exact, `\b`/`\B` are dropped (an assertion removed only
// widens), and ASCII letters that fold to non-ASCII characters under case-insensitivity (k to
// U+212A, s to U+017F) gain those characters' bytes. The result compiles in milliseconds and scans
// any bytes, valid UTF-8 or not.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ctx::engine::detail {

// The byte-mode superset of `regex` (Rust/PCRE syntax, as the default dialect accepts), or
// nullopt when the regex uses something this rewriter does not model (look-around,
// backreferences, \p{..}, (?x), (?s), (?-u), class set operations, ...): the caller then keeps the
// UTF-8 Hyperscan path. `caseless`: the whole regex is case-insensitive (-i, or -S deciding so).
std::optional<std::string> byte_prefilter(std::string_view regex, bool caseless);

// Whether `rewritten`, byte_prefilter's output, was widened for non-ASCII characters (its
// `[\x80-\xff]` alternatives and the classes that leave those bytes to them): then it is a
// superset of the regex, not the regex over bytes, even where the regex is ASCII only.
bool widened_for_non_ascii(std::string_view rewritten);

// Whether `regex` may turn case folding on inline (a group of flags holding `i`: `(?i)`,
// `(?mi:..)`). byte_prefilter then folds case in the whole regex, a superset of where the flag
// holds.
bool folds_case_inline(std::string_view regex);

}  // namespace ctx::engine::detail
