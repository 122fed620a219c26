// Where git keeps the files the walker reads besides .gitignore: the repository's info/exclude
// (following a worktree's or submodule's `.git` file) and the global excludes file.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ctx::walker::detail {

// `dir` holds an entry named ".git" (a directory, or a file "gitdir: PATH" as in worktrees and
// submodules). Returns the path of the info/exclude file that applies, or nullopt when `.git` is
// unreadable. A worktree's `commondir` is followed, as git does.
std::optional<std::string> info_exclude_path(const std::string& dir);

// The global excludes file: core.excludesFile from the user's git configuration (git_config.hpp:
// includes and `~/` expansion behave as in git), else $XDG_CONFIG_HOME/git/ignore, else
// $HOME/.config/git/ignore. nullopt when none can be named. `files_tried`: as in
// configured_excludes_file.
std::optional<std::string> global_excludes_path(
    std::vector<std::pair<std::string, std::string>>* files_tried = nullptr);

}  // namespace ctx::walker::detail
