// A reader for the one git configuration value the walker needs, core.excludesFile, following
// git's rules for where configuration lives and how it is written, without linking libgit2 (whose
// dependencies cost ~7 ms of start-up on every run).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ctx::walker::detail {

// The value of `section.key` (`section` and `key` compared case-insensitively, no subsection) in
// the git config text `text`, the last one winning; `[include] path = ...` lines are followed
// (relative to `file_path`'s directory, `~/` expanded, at most 10 levels deep) through `read`.
// Values are unquoted and unescaped as git does ("a\"b" -> a"b, `;`/`#` start comments outside
// quotes, a trailing backslash continues the line). `found` is set when the key appeared at all.
struct GitConfigLookup {
  std::string_view section;
  std::string_view key;
  std::optional<std::string> value;
  // When set, every configuration file looked for (read or absent) is appended with its stat
  // identity taken before reading it (file_identity below; "" when absent).
  std::vector<std::pair<std::string, std::string>>* files_tried = nullptr;
};
void scan_git_config(std::string_view text, const std::string& file_path, GitConfigLookup& lookup,
                     int depth = 0);

// core.excludesFile from the user's configuration, in git's order (later wins): the system file
// ($GIT_CONFIG_SYSTEM, else /etc/gitconfig; skipped when $GIT_CONFIG_NOSYSTEM is true), then the
// global files ($GIT_CONFIG_GLOBAL alone if set, else $XDG_CONFIG_HOME/git/config or
// ~/.config/git/config, then ~/.gitconfig), then $GIT_CONFIG_COUNT/KEY_n/VALUE_n. `~/` in the value
// is expanded. nullopt when unset.
std::optional<std::string> configured_excludes_file(
    std::vector<std::pair<std::string, std::string>>* files_tried = nullptr);

// The stat identity (device, inode, size, mtime, ctime) of `path`, following symlinks, or ""
// when it cannot be stat'ed.
std::string file_identity(const std::string& path);

}  // namespace ctx::walker::detail
