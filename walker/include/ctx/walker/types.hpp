// File types for -t/--type, -T/--type-not, --type-add, --type-clear and --type-list, with the
// semantics of ripgrep's ignore crate (types.rs). A `TypeTable` holds named glob lists (ripgrep's
// defaults plus user edits); `TypeMatcher::build` compiles the selected and negated types of a
// table once into an immutable matcher that judges each file name in the walk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ctx/base/result.hpp"
#include "ctx/walker/glob.hpp"
#include "ctx/walker/match.hpp"

namespace ctx::walker {

// Named lists of file-name globs. Names sort bytewise (as ripgrep's BTreeMap); each type keeps
// its globs in the order they were added, which is the order that breaks ties when matching.
class TypeTable {
 public:
  // An empty table (no types at all).
  TypeTable() = default;
  // ripgrep's default types (crates/ignore/src/default_types.rs); aliases such as py/python are
  // separate types with the same globs.
  static TypeTable with_defaults();

  // --type-add. Two forms:
  //   "name:glob[,glob...]"  appends the globs to `name` (creating it). A comma inside `{...}`,
  //                          `[...]` or after a backslash does not split; `{a,b}` alternation is
  //                          kept as written and expanded when matching (as ripgrep's globset).
  //   "name:include:a,b"     appends the current globs of types a and b to `name`.
  // Names are letters and digits (any non-ASCII byte counts as a letter) and not "all".
  // Errors (kInvalidArgument) quote the spec and say what is expected, e.g.
  //   "invalid type definition 'foo': expected name:glob or name:include:type[,type...]".
  // On error the table is unchanged. Globs are checked when a matcher is built, as in ripgrep.
  Status add(std::string_view spec);

  // --type-clear: forgets `name` and its globs (nothing happens if it is unknown).
  void clear(std::string_view name);

  // Exactly ripgrep's --type-list output: one "name: glob1, glob2\n" line per type, sorted by
  // name, globs sorted bytewise. Empty for an empty table.
  std::string list() const;

  bool has(std::string_view name) const;
  std::size_t size() const { return types_.size(); }
  // The globs of `name` in the order they were added; empty when unknown.
  const std::vector<std::string>& globs(std::string_view name) const;
  // Every type name, sorted.
  std::vector<std::string> names() const;

 private:
  void add_defaults();  // defined in default_types.cpp
  void append(std::string_view name, std::string glob);

  std::map<std::string, std::vector<std::string>, std::less<>> types_;
};

// One -t (negated = false) or -T (negated = true) flag, in command-line order.
struct TypeSelection {
  std::string name;
  bool negated = false;
};

// The compiled -t/-T selection of a table: immutable after build, safe to share across threads.
class TypeMatcher {
 public:
  // No selections: every path gets kNone.
  TypeMatcher() = default;

  // `selections` in command-line order (ripgrep 14): when globs of several selections match a
  // name, the one added last wins. "all" stands for every type of the table, in name order.
  // Errors (kInvalidArgument): "unrecognized file type: NAME (see --type-list)" for an unknown
  // name; "error parsing glob 'GLOB': WHY" for a glob ripgrep's globset rejects (unclosed `[` or
  // `{`, unopened `}`, a trailing `\`, a reversed range).
  [[nodiscard]] static Result<TypeMatcher> build(const TypeTable& table,
                                                 const std::vector<TypeSelection>& selections);
  // select = names given with -t, negate = names given with -T; the selections come first, so
  // a glob shared by a selected and a negated type ignores the file (ripgrep 13's order).
  [[nodiscard]] static Result<TypeMatcher> build(const TypeTable& table,
                                                 const std::vector<std::string>& select,
                                                 const std::vector<std::string>& negate);

  // True when no type was selected or negated (no -t/-T given, or "all" of an empty table).
  bool empty() const { return selection_count_ == 0; }

  // Judges a path by its last component (a bare file name is fine). Directories get kNone.
  // The last matching glob in selection order decides: from a negated type kIgnore, from a
  // selected one kWhitelist. When nothing matches: kIgnore if any type is selected, else kNone.
  // A path with no file name (empty, ending in '.' or "..") counts as matching nothing.
  // Allocates nothing.
  MatchKind match(std::string_view path, bool is_dir) const;

 private:
  // The latest glob (1-based position in selection order; 0 = none) that matched, and whether
  // it came from a negated type.
  struct Hit {
    std::uint32_t order = 0;
    bool negated = false;
  };
  struct General {
    Glob glob;
    // Literal text every match starts with / ends with / contains; cheap rejections before the
    // NFA runs.
    std::string prefix;
    std::string suffix;
    std::string infix;
    Hit hit;
  };
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using HitMap = std::unordered_map<std::string, Hit, StringHash, std::equal_to<>>;

  void index(std::string_view glob, Hit hit);
  static void record(HitMap& map, std::string key, Hit hit);

  HitMap by_name_;       // literal globs: "Makefile"
  HitMap by_extension_;  // "*.rs" keyed by "rs" (the suffix is '.' plus a dot-free extension)
  HitMap by_suffix_;     // other "*suffix" globs: "*.tar.gz", "*README"
  std::vector<std::size_t> suffix_lengths_;  // the distinct key lengths of by_suffix_
  std::vector<General> general_;             // the rest, latest first
  std::size_t selection_count_ = 0;
  std::size_t glob_count_ = 0;
  bool has_selected_ = false;
};

}  // namespace ctx::walker
