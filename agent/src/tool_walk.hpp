// The directory walk behind list_directory and find_files: ctx::walker::walk confined beneath the
// sandbox root (WalkOptions::beneath_fd), every entry judged by the policy (hidden directories
// are never entered, hidden entries only counted for the audit log), ignore rules honoured
// unless asked otherwise, the deadline, cancellation and Limits::max_visited respected.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/agent/tools.hpp"
#include "ctx/walker/walker.hpp"

namespace ctx::agent {

struct WalkedEntry {
  std::string path;  // root-relative
  walker::EntryType type;
};

struct VisibleWalk {
  std::vector<WalkedEntry> entries;  // those `keep` accepted, sorted by compare_paths
  std::size_t ignored = 0;           // visible entries the ignore rules skipped (see walk_visible)
  std::size_t policy_hidden = 0;     // for ToolOutput::policy_hidden only
  std::size_t unreadable = 0;        // directories that could not be listed
  std::string_view stopped;          // why the walk ended early ("" when it did not)
};

// Walks the directory `start` (root-relative, "" for the root) down to `max_depth` levels (1:
// its entries only). `keep(path, type)` picks the entries to return (called concurrently); it is
// asked about every non-directory first, before the ignore rules and the policy, and one it
// refuses is neither returned nor counted anywhere (nor visited for Limits::max_visited), so a
// selective `keep` spares the matching of everything else. Directories are judged by the policy
// and the ignore rules first, and only visible ones are offered to `keep`. Ignored entries are
// counted when they are directories or `keep` accepts them.
Expected<VisibleWalk> walk_visible(
    const CallContext& context, const std::string& start, std::optional<std::size_t> max_depth,
    bool include_ignored,
    const std::function<bool(std::string_view path, walker::EntryType type)>& keep);

// Component-wise path order: a directory's entries follow it directly ("a/b" < "a.txt" is false
// bytewise, true here, because '/' sorts before every other byte).
bool compare_paths(std::string_view a, std::string_view b);

// The stat of the root-relative `path` without following a final symlink, opened beneath the
// root (never by path string from the process's cwd); nullopt when it cannot be read.
std::optional<struct stat> stat_beneath(const CallContext& context, const std::string& path);

}  // namespace ctx::agent
