// The rules of one ignore file (.gitignore, .ignore, .rgignore, .ctxignore, info/exclude, the
// global excludes file, --ignore-file) parsed with gitignore(5) syntax, and matched against paths
// relative to the directory the file applies to. The last matching line decides.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ctx/walker/glob.hpp"
#include "ctx/walker/match.hpp"

namespace ctx::walker {

class IgnoreRules {
 public:
  struct Options {
    bool case_insensitive = false;  // --ignore-file-case-insensitive
  };

  IgnoreRules() = default;
  explicit IgnoreRules(Options options) : options_(options) {}

  // Parses a whole file: comments, blank lines, a UTF-8 BOM, CRLF line ends and every gitignore(5)
  // form (escapes, trailing spaces, `!` negation, anchoring slashes, trailing `/`). Never fails:
  // a line that can match nothing is kept and matches nothing, as in git.
  static IgnoreRules parse(std::string_view text, Options options);

  // Adds one line in gitignore syntax (a comment or blank line adds nothing). `case_insensitive`
  // folds this line alone (for --iglob); the rules' option folds every line.
  void add_line(std::string_view line, bool case_insensitive = false);

  // How many lines were `!` negations (an override set with any positive glob needs to know).
  std::size_t negated_count() const { return negated_count_; }

  // Decides `rel_path` (relative to the ignore file's directory, '/'-separated, no leading "./" or
  // '/') which is a directory when `is_dir`. kIgnore or kWhitelist come from the last matching
  // line; kNone when no line matches.
  MatchKind match(std::string_view rel_path, bool is_dir) const;

  bool empty() const { return rules_.empty(); }
  std::size_t size() const { return rules_.size(); }

 private:
  struct Rule {
    Glob glob;
    bool negated;   // leading '!': a match whitelists
    bool dir_only;  // trailing '/': matches directories only
    bool basename;  // no '/' in the pattern: matched against the last path component
  };

  Options options_;
  std::vector<Rule> rules_;
  // Fast paths, each an index into rules_: basename literals, `*suffix` basename globs and anchored
  // literal paths by their literal; everything else scanned from the last rule down.
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using IndexMap =
      std::unordered_map<std::string, std::vector<std::uint32_t>, StringHash, std::equal_to<>>;
  IndexMap by_literal_;  // rule indices, ascending
  IndexMap by_suffix_;
  IndexMap by_path_;  // anchored literal paths, matched against the whole relative path
  // A bit set over a cheap hash of a key's length and three of its bytes (folded as the set is),
  // one per index: a lookup whose key has no bit set cannot be in the index, so it is skipped
  // without hashing the key or folding the path (most paths match no literal). Sized to about
  // 16 bits per key, so a key not in the index passes about one time in 16.
  class KeyFilter {
   public:
    // Records `index`'s key `folded_key` (just added to it); grows and refills the bits from
    // `index` when it outgrew them.
    void add(std::string_view folded_key, const IndexMap& index);
    // False when `key` (folded as the set folds when `fold`) is certainly not a key.
    bool may_hold(std::string_view key, bool fold) const {
      if (bits_.empty()) return false;
      const std::size_t slot = slot_of(key, fold) & (bits_.size() * 64 - 1);
      return (bits_[slot / 64] >> (slot % 64) & 1U) != 0;
    }

   private:
    // Inline: a lookup asks every index, and each suffix length, per path.
    static std::size_t slot_of(std::string_view key, bool fold) {
      const std::size_t n = key.size();
      std::uint64_t h = n;
      if (n > 0) {
        h = h << 24 | std::uint64_t{fold_byte(key[0], fold)} << 16 |
            std::uint64_t{fold_byte(key[n / 2], fold)} << 8 | fold_byte(key[n - 1], fold);
      }
      h *= 0x9E3779B97F4A7C15ULL;
      return static_cast<std::size_t>(h >> 40);
    }
    static unsigned char fold_byte(char c, bool fold) {
      const auto b = static_cast<unsigned char>(c);
      return fold && b >= 'A' && b <= 'Z' ? static_cast<unsigned char>(b - 'A' + 'a') : b;
    }
    std::vector<std::uint64_t> bits_;  // a power of two words; empty while the index is
  };
  KeyFilter literal_filter_;
  KeyFilter suffix_filter_;
  KeyFilter path_filter_;
  std::vector<std::uint32_t> general_;
  // For each of general_, the bytes a path it matches can end with (Glob::last_bytes) and the
  // bytes the text it is matched against (the base name for a basename rule, else the path) can
  // start with (Glob::first_bytes): a rule is skipped without running its glob when the path's
  // last byte or that first byte is not among them.
  struct ByteFilter {
    std::array<std::uint64_t, 4> last;
    std::array<std::uint64_t, 4> first;
    bool basename;
  };
  std::vector<ByteFilter> general_filter_;
  std::vector<std::size_t> suffix_lengths_;  // distinct lengths of by_suffix_ keys
  std::size_t negated_count_ = 0;

  bool rule_matches(const Rule& rule, std::string_view rel_path, std::string_view base,
                    bool is_dir) const;
  // The highest index in `bucket` whose rule accepts `is_dir`, or -1.
  std::int64_t best_in(const std::vector<std::uint32_t>& bucket, bool is_dir) const;
};

}  // namespace ctx::walker
