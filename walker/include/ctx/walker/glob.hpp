// One compiled glob with gitignore(5)/git wildmatch semantics: `*`, `?`, `[...]` (ranges, `!`/`^`,
// POSIX `[:alpha:]` classes), backslash escapes and the `**` forms `**/`, `/**`, `/**/`.
// Matching is a bit-parallel NFA: linear in the text, no backtracking blow-up on any pattern.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

  // Shape facts for fast paths (callers index globs by them): the pattern is one literal string,
  // or `*` followed by a literal without '/'.
  enum class Shape : std::uint8_t { kLiteral, kStarSuffix, kGeneral, kNever };
  Shape shape() const { return shape_; }
  // The literal (kLiteral) or the suffix after the star (kStarSuffix), case-folded when the glob
  // is case-insensitive.
  const std::string& literal() const { return literal_; }
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
  Shape shape_ = Shape::kGeneral;
  bool case_insensitive_ = false;
  bool pathname_ = true;

  bool matches_nfa(std::string_view text) const;
};

}  // namespace ctx::walker
