// A summary of the HIR that regex-syntax 0.8 (ripgrep 14) parses a pattern into, enough for
// ripgrep's checks on it: the NUL ban and the literal line terminator errors (grep-regex's
// ban::check and strip_from_match: a literal holding the byte, or a class of that byte alone,
// anywhere in the HIR after regex-syntax's simplifications), whether -U searches in multiline
// mode (grep-regex's non_matching_bytes) and its regex size limit (regex-automata 0.4's Thompson
// NFA builder).
//
// The byte-mode translator (byte_mode.hpp), which parses every pattern as regex-syntax does,
// builds the summary bottom-up with the hir_* functions below, applying the same smart
// constructors as regex-syntax's Hir: adjacent literals merge, an alternation of single characters
// or of classes is a class, a class of one character is a literal, x{0} is empty and x{1} is x.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "required_literals.hpp"
#include "unicode_props.hpp"

namespace ctx::engine::detail {

struct HirSummary {
  enum class Kind : std::uint8_t { kEmpty, kLiteral, kClass, kOther };
  Kind kind = Kind::kEmpty;
  // kLiteral: its bytes (the first 64 of a longer one) and its size.
  std::string literal;
  std::size_t literal_size = 0;
  // kClass: its members, without those ripgrep strips (hir_class).
  CodepointRanges members;
  // The line terminator bytes (kHoldsLf, kHoldsCr, kHoldsNul) that some literal in it holds (a
  // class of one of them alone being that literal).
  std::uint8_t holds = 0;
  // The line terminator bytes that some match of it may hold, as ripgrep's non_matching_bytes
  // finds them (its test for multiline mode): a literal's bytes, a class's members, and a line
  // feed for every anchor (^ $ \A \z).
  std::uint8_t matches = 0;
  bool concat = false;       // a concatenation (regex-syntax may share its start with others)
  bool alternation = false;  // kOther: an alternation (regex-syntax flattens nested ones)
  bool byte_class = false;   // kClass: of bytes (Unicode off), not of scalar values
  bool ascii_class = false;  // kClass: every member is ASCII
  bool zero_width = true;    // it matches the empty string only (its repetitions are cut to {0,1})
  bool nullable = true;      // it may match the empty string
  bool text_start = false;   // every match starts with \A (regex-automata anchors the NFA then)
  bool text_end = false;     // every match ends with \z (the reverse NFA is anchored then)
  // A lower bound of the memory regex-automata's NFA builder spends on it (its states take 32
  // bytes each, each union alternate 4, each sparse transition 8) in the forward NFA, with
  // capture groups, and in the reverse NFA, without them, which ripgrep's engine also builds
  // (larger for Unicode classes); both saturate at kNfaMax.
  std::uint64_t nfa_bytes = 0;
  std::uint64_t reverse_nfa_bytes = 0;
  // What regex-syntax's literal extractor (prefixes; limits 10 class members, 10 repeats, 100
  // bytes, 250 literals) makes of it when the literals are exact, the whole of every match: how
  // many (0: not exact), the longest, and whether the empty string is one of them. With exact
  // literals and no capture group or look-around, regex-automata searches for the literals alone
  // and builds no NFA.
  std::uint32_t exact_count = 1;
  std::uint32_t exact_length = 0;
  bool exact_empty = true;
  bool captures = false;  // it has a capture group
  bool looks = false;     // it has a look-around assertion
  // Every match is of ASCII literals and classes of ASCII members (no line terminator among them),
  // with line anchors (^ $) as its only assertions and counts up to kPlainRepeatMax: Hyperscan
  // over bytes matches exactly the lines it matches (no confirmation needed).
  bool plain_ascii = false;
  // Required literals (required_literals.hpp) of a kOther node: `required`, the rarest set found
  // of which every match holds a literal, and `leading`, a set of which every match starts with a
  // literal (what Hyperscan anchors on); empty where none is known. A literal or a letter with
  // its two cases is its own set (required_of, leading_of).
  RequiredSet required;
  RequiredSet leading;
};

inline constexpr std::uint64_t kNfaMax = std::uint64_t{1} << 60;
// The largest count HirSummary::plain_ascii allows (Hyperscan gets larger ones widened).
inline constexpr std::uint32_t kPlainRepeatMax = 1000;
// Line terminator bytes (HirSummary::holds, ::matches): one bit each.
inline constexpr std::uint8_t kHoldsLf = 1, kHoldsCr = 2, kHoldsNul = 4;
// The bit of `byte` ('\n', '\r' or NUL; 0 for any other).
constexpr std::uint8_t terminator_bit(char byte) {
  return byte == '\n' ? kHoldsLf : byte == '\r' ? kHoldsCr : byte == '\0' ? kHoldsNul : 0;
}

// A literal of `bytes` (empty: hir_empty()).
HirSummary hir_literal(std::string_view bytes);
HirSummary hir_empty();
// A class of `members` (sorted, disjoint ranges) of Unicode scalar values, or of bytes under
// `bytes`. No member: a class that never matches; one: a literal. `strip`: the bytes ripgrep
// strips from classes before it compiles them (its line terminator without -U: strip_from_match),
// which changes their cost, not what the checks see.
HirSummary hir_class(const CodepointRanges& members, bool bytes, std::string_view strip = {});
// A look-around assertion: a line anchor (^ $), \A, \z or a word boundary (\b \B \< ...).
enum class HirLook : std::uint8_t { kLine, kTextStart, kTextEnd, kWord };
HirSummary hir_look(HirLook look);
HirSummary hir_concat(std::vector<HirSummary> items);
HirSummary hir_alternation(std::vector<HirSummary> branches, std::string_view strip = {});
// `sub` repeated {min,max} (no max: unbounded); greedy or lazy cost the same.
HirSummary hir_repetition(HirSummary sub, std::uint32_t min, std::optional<std::uint32_t> max);
HirSummary hir_capture(const HirSummary& sub);
// A pattern that does not parse as Rust's (PCRE-like syntax where ripgrep's errors are off):
// it holds no literal the checks see, may match any line terminator and costs nothing.
HirSummary hir_unknown();

// The HIR of a pattern that is a plain literal (-F, or no meta character), under case folding
// (-i) or not, without parsing it.
HirSummary hir_of_literal(std::string_view pattern, bool caseless);

// The required literals of `h` (HirSummary::required; a literal or a letter with its two cases:
// itself), and the leading ones (HirSummary::leading). Empty: none known.
RequiredSet required_of(const HirSummary& h);
RequiredSet leading_of(const HirSummary& h);

// Whether the alternation of `patterns` (ripgrep joins its patterns so) holds `byte` ('\n', '\r'
// or NUL) as ripgrep's ban::check and strip_from_match find it: then ripgrep refuses the patterns.
bool holds_literal_byte(const std::vector<HirSummary>& patterns, char byte);

// The memory regex-automata's larger NFA (forward or reverse) for the alternation of `patterns`
// takes (with its unanchored prefix, group 0 and match state), exact for the repetitions of a
// literal, class or group of them that reach the limit, and else a lower bound with rare
// exceptions (a class that holds a line terminator in an alternation that stripping it makes a
// class; `strip` as for hir_class): ripgrep refuses the patterns with
// "compiled regex exceeds size limit of N" when it exceeds its --regex-size-limit N. 0 where
// regex-automata builds no NFA: literals only, or exact literals (see exact_count) without
// capture groups or look-arounds. `wrapped`: -w or -x, whose look-arounds ripgrep puts around the
// alternation.
std::uint64_t nfa_bytes_lower_bound(const std::vector<HirSummary>& patterns, std::string_view strip,
                                    bool wrapped);

}  // namespace ctx::engine::detail
