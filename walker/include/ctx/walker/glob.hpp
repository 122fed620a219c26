// One compiled glob with gitignore(5)/git wildmatch semantics: `*`, `?`, `[...]` (ranges, `!`/`^`,
// POSIX `[:alpha:]` classes), backslash escapes and the `**` forms `**/`, `/**`, `/**/`.
// Matching is a bit-parallel NFA: linear in the text, no backtracking blow-up on any pattern.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/base/result.hpp"

namespace ctx::walker {

struct GlobOptions {
  // gitignore's FNM_PATHNAME: `*`, `?` and classes never match '/', and `**` between slashes (or at
  // either end) spans directories. Without it, `*` and `**` match anything, '/' included.
  bool pathname = true;
  // ASCII case folding. Unlike git's core.ignorecase (which leaves escaped letters and class
  // members unfolded), every letter folds, as in ripgrep's case-insensitive globs.
  bool case_insensitive = false;
  // git's quirk for path patterns (with a '/'): a `**` right after the literal prefix counts as
  // a component start, so `foo**/bar` matches `foo/x/bar` (see match_pathname in git's dir.c).
  bool git_prefix_split = false;
};

class Glob {
 public:
  // Compiles `pattern`. Never fails: an unclosed `[` is a literal '[' (as in current ripgrep), a
  // malformed `[[:bogus:]]` class or a trailing lone backslash make a glob that matches nothing
  // (as in git).
  static Glob compile(std::string_view pattern, GlobOptions options);

  // True when the whole of `text` matches.
  bool matches(std::string_view text) const;
  // The same answer from the general NFA alone, bypassing every shape fast path (for tests that
  // check the fast paths against it). A glob that matches nothing has no NFA.
  bool matches_by_nfa(std::string_view text) const {
    return shape_ != Shape::kNever && matches_nfa(text);
  }

  // Shape facts for fast paths (callers index globs by them): the pattern is one literal string,
  // or `*` followed by a literal without '/'.
  enum class Shape : std::uint8_t { kLiteral, kStarSuffix, kGeneral, kNever };
  Shape shape() const { return shape_; }
  // The literal (kLiteral) or the suffix after the star (kStarSuffix), case-folded when the glob
  // is case-insensitive.
  const std::string& literal() const { return literal_; }
  // The bytes a non-empty text that matches can end with, as a 256-bit set (bit c of word c / 64);
  // every byte when the pattern does not pin its last byte. Callers reject by it before matching.
  std::array<std::uint64_t, 4> last_bytes() const;
  // The same for the first byte of a non-empty text that matches.
  std::array<std::uint64_t, 4> first_bytes() const;
  bool case_insensitive() const { return case_insensitive_; }

 private:
  struct Op {
    std::uint8_t kind;    // an OpKind of glob.cpp
    unsigned char byte;   // a literal's (folded) byte
    std::uint16_t klass;  // a class's index into classes_ (4 words each)
  };
  std::vector<Op> ops_;
  std::vector<std::uint64_t> classes_;  // 4 words (256 bits) per class op
  std::string literal_;
  std::string head_, tail_;  // kGeneral: literal bytes every match starts / ends with (folded)
  std::string middle_;       // kGeneral: the longest literal run between them (folded)
  // kGeneral made of one-byte ops (literal, `?`, class) around at most one `*`/`**` (`*.[oa]`,
  // `*.py[co]`, `src/*.[od]`, `[Dd]ebug`, `lib*`): for each one-byte op in order, 4 words holding
  // the set of raw (unfolded) text bytes it accepts; matched without the NFA.
  std::vector<std::uint64_t> fixed_sets_;
  std::uint16_t fixed_head_ = 0;  // how many one-byte ops precede the star (all of them if none)
  bool fixed_ = false;            // the shape above applies
  bool fixed_has_star_ = false;
  bool fixed_star_spans_ = false;  // the star is `**` (crosses '/')
  Shape shape_ = Shape::kGeneral;
  bool case_insensitive_ = false;
  bool pathname_ = true;

  bool matches_nfa(std::string_view text) const;
  void build_fixed();
  bool matches_fixed(std::string_view text) const;
};

// The globs that `glob`'s `{a,b}` alternatives (nested ones too) stand for, in order; backslash
// escapes and `[...]` classes are skipped over. An error names the glob when a brace is
// unbalanced or there would be more than `max` globs ({a,b} twenty times is a million).
Result<std::vector<std::string>> expand_braces(std::string_view glob, std::size_t max = 1024);

}  // namespace ctx::walker
