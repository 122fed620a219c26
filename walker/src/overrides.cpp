#include "ctx/walker/overrides.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace ctx::walker {
namespace {

// Expands the first top-level `{a,b,...}` group of `glob` recursively into `out`. Backslash
// escapes and `[...]` classes are skipped over. Returns false on an unbalanced brace.
bool expand_braces(std::string_view glob, std::vector<std::string>& out, int depth) {
  if (depth > 32) return false;
  std::size_t open = std::string_view::npos;
  std::vector<std::size_t> commas;
  int level = 0;
  for (std::size_t i = 0; i < glob.size(); ++i) {
    char c = glob[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c == '[') {  // a class: skip to its closing ']' (the first member may be ']')
      std::size_t j = i + 1;
      if (j < glob.size() && (glob[j] == '!' || glob[j] == '^')) ++j;
      if (j < glob.size() && glob[j] == ']') ++j;
      std::size_t close = glob.find(']', j);
      if (close != std::string_view::npos) i = close;
      continue;
    }
    if (c == '{') {
      if (level++ == 0) open = i;
    } else if (c == '}') {
      if (level == 0) return false;
      if (--level == 0) {
        std::string_view head = glob.substr(0, open);
        std::string_view tail = glob.substr(i + 1);
        std::size_t start = open + 1;
        commas.push_back(i);
        for (std::size_t end : commas) {
          std::string alternative(head);
          alternative.append(glob.substr(start, end - start));
          alternative.append(tail);
          if (!expand_braces(alternative, out, depth + 1)) return false;
          start = end + 1;
        }
        return true;
      }
    } else if (c == ',' && level == 1) {
      commas.push_back(i);
    }
  }
  if (level != 0) return false;
  out.emplace_back(glob);
  return true;
}

}  // namespace

Status Overrides::add(std::string_view glob, bool case_insensitive) {
  // As ripgrep: the glob is one gitignore line (so `#x` is a comment and trailing spaces are
  // trimmed), matched with its sense inverted.
  if (!glob.empty() && glob[0] == '#') return {};  // a comment, as an ignore-file line
  std::vector<std::string> expanded;
  if (!expand_braces(glob, expanded, 0)) {
    return Error{ErrorCode::kInvalidArgument,
                 fmt::format("invalid glob '{}': unbalanced '{{' or '}}' (escape a literal brace "
                             "as \\{{ or \\}})",
                             glob)};
  }
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
