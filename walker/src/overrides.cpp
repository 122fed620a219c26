#include "ctx/walker/overrides.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "ctx/walker/glob.hpp"

namespace ctx::walker {

Status Overrides::add(std::string_view glob, bool case_insensitive) {
  // As ripgrep: the glob is one gitignore line (so `#x` is a comment and trailing spaces are
  // trimmed), matched with its sense inverted.
  if (!glob.empty() && glob[0] == '#') return {};  // a comment, as an ignore-file line
  CTX_TRY_ASSIGN(const std::vector<std::string> expanded, expand_braces(glob));
  for (const std::string& one : expanded) rules_.add_line(one, case_insensitive);
  positive_count_ = rules_.size() - rules_.negated_count();
  return {};
}

MatchKind Overrides::match(std::string_view path, bool is_dir) const {
  if (rules_.empty()) return MatchKind::kNone;
  switch (rules_.match(path, is_dir)) {
    case MatchKind::kWhitelist:  // a `!GLOB` line
      return MatchKind::kIgnore;
    case MatchKind::kIgnore:  // a plain `GLOB` line
      return MatchKind::kWhitelist;
    case MatchKind::kNone:
      break;
  }
  return positive_count_ > 0 && !is_dir ? MatchKind::kIgnore : MatchKind::kNone;
}

}  // namespace ctx::walker
