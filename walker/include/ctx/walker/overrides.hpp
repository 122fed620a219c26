// The -g/--glob and --iglob overrides: gitignore-syntax globs with the sense inverted, as in
// ripgrep. `GLOB` whitelists what it matches (and, once any such glob is given, every other file is
// ignored); `!GLOB` ignores. Overrides outrank every ignore file, file type and the hidden rule.
#pragma once

#include <string_view>

#include "ctx/base/result.hpp"
#include "ctx/walker/ignore_rules.hpp"
#include "ctx/walker/match.hpp"

namespace ctx::walker {

class Overrides {
 public:
  // Adds one -g glob (`case_insensitive` for --iglob or --glob-case-insensitive), read as one
  // gitignore line as ripgrep does (`#x` is a comment, trailing spaces are trimmed). `{a,b}`
  // alternatives are expanded; an unbalanced brace is an error that names the glob.
  Status add(std::string_view glob, bool case_insensitive);

  // Decides `path` (relative to the directory ctxsearch runs in, no leading "./").
  MatchKind match(std::string_view path, bool is_dir) const;

  bool empty() const { return rules_.empty(); }

 private:
  IgnoreRules rules_;
  std::size_t positive_count_ = 0;  // globs without '!' (comments excluded)
};

}  // namespace ctx::walker
