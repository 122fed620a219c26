// `-` among the paths of a walk, placed as ripgrep 14 places it: its walk yields stdin as an
// entry named "<stdin>" (what --files lists), which --sortr path sorts by that name (as Rust's
// Path::cmp, component by component), and a sort by a time puts after the files (it has no
// time; before them when reversed).
#pragma once

#include <string_view>

namespace ctx::cli {

inline constexpr std::string_view kStdinName = "<stdin>";

// Whether `path` sorts after "<stdin>" by Rust's Path::cmp (a leading '/', "." or ".." is a
// component that sorts before any name).
inline bool sorts_after_stdin_name(std::string_view path) {
  if (path.starts_with('/')) return false;
  const std::size_t slash = path.find('/');
  const std::string_view first = path.substr(0, slash);
  if (first == "." || first == "..") return false;
  std::string_view rest = slash == std::string_view::npos ? std::string_view() : path.substr(slash);
  while (rest.starts_with('/')) rest.remove_prefix(1);
  return first > kStdinName || (first == kStdinName && !rest.empty());
}

}  // namespace ctx::cli
