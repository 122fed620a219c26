// A bit-parallel line matcher for simple regexes on pure-ASCII haystacks.
//
// Regexes without a literal (`\w{5}\s+\w{5}\s+\w{5}`) leave Hyperscan running an automaton over
// every byte (~4-5 cycles a byte). This matcher evaluates such a regex the way Parabix/icgrep do:
// 64 bytes at a time, each character class becomes a 64-bit mask (AVX2 nibble lookups), and every
// regex step is a few 64-bit operations on a "marker" mask of the positions a match can have
// reached (x{n}: shift; x*: MatchStar, an addition that runs markers through a run of the class).
// It finds every match end at once, so a line holds a match iff a final marker falls in it.
//
// It answers exactly (no confirmation needed) but only where its model is exact: haystacks that
// are pure ASCII, where PCRE2's Unicode \w, \s, \d, POSIX classes, `.` and case folding agree
// with their ASCII meanings. On the first non-ASCII byte it stops and hands the rest of the
// haystack back to the caller (Hyperscan + PCRE2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ctx::engine::detail {

class BitMatcher {
 public:
  // The matcher for the line search of `regexes` (alternatives: a line matches if any does), or
  // nullopt when some regex uses what this does not model (groups with quantifiers, look-around,
  // \b, \p{..}, back-references, inline flags, ...), when the CPU lacks AVX2, or when the regexes
  // are better served by Hyperscan's literal search (every one holds a literal of 3+ bytes).
  // `caseless`: -i. `whole_line`: -x (each regex anchored at both line ends). A regex that can
  // match the empty string is refused too (the caller never asks then).
  static std::optional<BitMatcher> compile(const std::vector<std::string>& regexes, bool caseless,
                                           bool whole_line);

  // The matcher for multiline mode (-U): `regexes` may match line feeds (`.` does under
  // `dotall`); anchors are not modelled. Only match_starts() is used then.
  static std::optional<BitMatcher> compile_multiline(const std::vector<std::string>& regexes,
                                                     bool caseless, bool dotall);

  // Multiline mode: sets in `starts` (reversed coordinates: bit j stands for byte
  // hay.size() - j) every position where a match may start; a superset (exact on ASCII).
  // `reversed` is scratch space.
  void match_starts(std::string_view hay, std::vector<char>& reversed,
                    std::vector<std::uint64_t>& starts) const;

  struct Found {
    enum Kind { kNone, kLine, kNotAscii } kind = kNone;
    // kLine: the first matching line [start, end) (end excludes the '\n'). kNotAscii: [start,
    // end) is the first line holding a non-ASCII byte, undecided; no line before it matches.
    std::size_t start = 0;
    std::size_t end = 0;
  };

  // The first line at or after `from` (a line start) that holds a match, as PCRE2 would decide
  // with Unicode semantics on that line alone.
  Found find_line(std::string_view hay, std::size_t from) const;

  // Whether the line (no terminator; any bytes) may hold a match: a superset for lines that are
  // not ASCII (a class that can match a non-ASCII character takes any run of bytes >= 0x80 for
  // it, and counted repetitions become "at least"). A yes needs confirming.
  bool line_may_match(std::string_view line) const;

  // One step of the marker program. kOne: one byte of the class; kOpt: zero or one; kStar: any
  // number; kRepeat: exactly `count` (runs of kOne, merged by compile()). The class is an index
  // into classes_.
  struct Step {
    enum Kind : std::uint8_t { kOne, kOpt, kStar, kRepeat } kind;
    std::uint8_t klass;
    std::uint8_t count = 1;
  };
  // One alternative: an optional ^, steps, an optional $.
  struct Sequence {
    bool bol = false;
    bool eol = false;
    std::vector<Step> steps;
  };
  // A set of ASCII bytes, as 128 bits; `high`: the class may match some non-ASCII character.
  struct ByteSet {
    std::uint64_t bits[2] = {0, 0};
    bool high = false;
    // A literal non-ASCII character (no ASCII members, `high`): its UTF-8 length; 0 otherwise.
    std::uint8_t literal_bytes = 0;
    bool operator==(const ByteSet&) const = default;
  };

 private:
  BitMatcher() = default;
  static std::optional<BitMatcher> build(const std::vector<std::string>& regexes, bool caseless,
                                         bool whole_line, bool multiline, bool dotall);
  std::vector<Sequence> sequences_;
  std::vector<Sequence> relaxed_;         // the superset program for non-ASCII lines
  std::vector<Sequence> reversed_;        // relaxed_ backwards: match_starts()
  std::vector<Sequence> reversed_exact_;  // sequences_ backwards: match_starts() on ASCII
  std::uint32_t high_classes_ = 0;        // bit k: classes_[k].high
  std::vector<ByteSet> classes_;
  // Nibble tables for the AVX2 lookup, 16 bytes a class: bit h of entry l is set when the byte
  // (h << 4 | l) is in the class.
  std::vector<std::uint8_t> low_tables_;
  std::size_t total_steps_ = 0;
};

}  // namespace ctx::engine::detail
