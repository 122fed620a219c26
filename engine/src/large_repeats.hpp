// Counted repetitions beyond what the engines take. ripgrep takes any count up to 2^32 - 1 (its
// size limit decides what compiles); PCRE2 refuses counts above 65535 ("number too big in {}
// quantifier"), and Hyperscan bounded repeats above 32767, compiling large ones slowly (seconds
// for `ab{0,32000}c`). split_large_repeats rewrites a regex for PCRE2 with the same matches;
// widen_large_repeats makes a Hyperscan superset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ctx::engine::detail {

// PCRE2's largest count in {n,m}.
inline constexpr std::uint64_t kPcre2MaxRepeat = 65535;

// `regex` (PCRE2 syntax as this engine's translators write it: no (?x), no \Q..\E) with every
// counted repetition whose count exceeds kPcre2MaxRepeat written as a concatenation of
// repetitions of the same atom of at most that count: `x{70000}` is `(?:x{65535}x{4465})`,
// `x{1,100000}?` is `(?:xx{0,65535}?x{0,34464}?)`. PCRE2 finds the same first match in either
// (greedy pieces take as many as they can from the left, lazy ones as few; a lazy repetition of a
// group is left as it is, as its pieces could try its ways to match in another order). An atom
// holding a capture group is left as it is (copies would be new groups): PCRE2 then reports its
// error (a group repeated 65536 times is larger than PCRE2's 64 KiB in any case). A
// non-capturing group of one character, class or escape, `(?s:.)`, or of single-character
// alternatives, `(?i:x|y)` (as the class `[xy]`, regex-syntax's reading too), is repeated inside
// the group, `(?i:[xy]{65535}...)`: PCRE2 repeats a character by a count, a group by copies.
// Returns `regex` unchanged when it has no such repetition. `most`: the largest count of a piece
// (tests make it small).
std::string split_large_repeats(std::string_view regex, std::uint64_t most = kPcre2MaxRepeat);

// `regex` (PCRE2 or Hyperscan syntax, as above) with every counted repetition {n,m} or {n,}
// whose largest count exceeds `cap` widened to {min(n, cap),}: a regex matching wherever the
// original matches (a prefilter), which Hyperscan compiles in milliseconds.
std::string widen_large_repeats(std::string_view regex, std::uint32_t cap);

}  // namespace ctx::engine::detail
