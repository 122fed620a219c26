// Required literals: strings of which every match of a regex holds one, for the searcher's
// required-literal prefilter (PatternSet::find_line).
//
// Hyperscan anchors a regex on a literal of its own choosing, mostly the one it starts with: for
// `return.*ENOMEM` it runs an automaton from every "return" to the end of its line, and on a file
// where every line starts with "line", `line.1499999 ` costs twice ripgrep's time. The HIR summary
// (rust_hir.hpp) keeps, for each node, the sets of literals its matches must hold; the rarest set
// by a byte frequency table measured on source code stands in for the regex's leading literal
// when it is much rarer: the searcher looks for it first and runs the regex on the lines that
// hold it only.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ctx/engine/pattern_set.hpp"

namespace ctx::engine::detail {

struct HirSummary;

// One literal: its bytes, ASCII letters lowercase when `caseless` (then either case matches:
// a superset of the regex's own folding, which is all a prefilter needs).
struct RequiredLiteral {
  std::string bytes;
  bool caseless = false;
  friend bool operator==(const RequiredLiteral&, const RequiredLiteral&) = default;
};
using RequiredSet = std::vector<RequiredLiteral>;

// The most literals a set holds, and the most bytes a literal keeps (a prefix of a required
// literal is required too).
inline constexpr std::size_t kRequiredSetMax = 16;
inline constexpr std::size_t kRequiredBytesMax = 32;

// `into` and the literals of `more` not in it; empty when that holds more than kRequiredSetMax
// or either is empty (none known): the set of an alternation of the two.
RequiredSet united(RequiredSet into, const RequiredSet& more);

// How often a set's literals may be expected to occur: the sum over its literals of the product
// of the frequencies of their two rarest bytes (a literal of one byte: its frequency), each
// byte's frequency as measured in C, C++ and other source text (under `caseless` a letter's two
// cases together). Lower is rarer; an empty set never occurs (0).
double rarity_score(const RequiredSet& set);

// How often `byte` occurs in source code (C, C++ and other source text), as a fraction of all
// bytes; under `caseless` a lower-case letter counts its upper case too.
double byte_frequency(unsigned char byte, bool caseless);

// The rarity_score at or below which a set of one literal is searched for first (kAuto) though
// no rarer than what Hyperscan anchors on: by byte frequencies, about one candidate in 8 KiB.
inline constexpr double kSingleLiteralScoreMax = 1.0 / 8192;

// The literals the required-literal prefilter looks for in lines matching the alternation of
// `patterns`, or nullopt when it is not to be used: some pattern has no required set, the union
// holds more than kRequiredSetMax literals, or (RequiredLiterals::kAuto) a literal is shorter than
// 3 bytes, or the sets are not at least 8 times rarer than the leading ones (what Hyperscan
// anchors on) unless they are one literal with a rarity_score of kSingleLiteralScoreMax or less.
// `by_rarity` (when given) is set to whether the set was taken for that last reason alone.
std::optional<RequiredSet> required_prefilter(const std::vector<HirSummary>& patterns,
                                              RequiredLiterals mode, bool* by_rarity = nullptr);

// Multiline mode: the literals every match of the alternation of `patterns` starts with (the
// union of their leading sets), searched for instead of running an automaton over the whole
// buffer; nullopt when some pattern has none, the union holds more than kRequiredSetMax, or a
// literal is shorter than 3 bytes.
std::optional<RequiredSet> leading_prefilter(const std::vector<HirSummary>& patterns);

}  // namespace ctx::engine::detail
