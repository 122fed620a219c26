// The directory walk behind list_directory and find_files: ctx::walker::walk confined beneath the
// sandbox root (WalkOptions::beneath_fd), every entry judged by the policy (hidden directories
// are never entered, hidden entries only counted for the audit log), ignore rules honoured
// unless asked otherwise, the deadline, cancellation and Limits::max_visited respected; and the
// one page renderer both tools list a walk's entries with (budget, retry with fewer, footer).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/agent/tools.hpp"
#include "ctx/walker/walker.hpp"
#include "cursor.hpp"
#include "dir_watch.hpp"
#include "json_writer.hpp"

namespace ctx::agent {

struct WalkedEntry {
  // Root-relative; views its VisibleWalk's arena, where a NUL byte follows it (so its bytes may
  // be passed to system calls as they are).
  std::string_view path;
  walker::EntryType type;
  std::size_t visit = 0;  // its place in the order the walk found the entries (directory order)
};

struct VisibleWalk {
  VisibleWalk() = default;
  VisibleWalk(VisibleWalk&&) = default;
  VisibleWalk& operator=(VisibleWalk&&) = default;
  VisibleWalk(const VisibleWalk&) = delete;  // a copy's entries would view the original's arena
  VisibleWalk& operator=(const VisibleWalk&) = delete;

  std::vector<char> arena;           // the entries' paths, each followed by a NUL byte
  std::vector<WalkedEntry> entries;  // those `keep` accepted, sorted by compare_paths
  std::size_t ignored = 0;           // visible entries the ignore rules skipped (see walk_visible)
  std::size_t policy_hidden = 0;     // for ToolOutput::policy_hidden only
  std::size_t unreadable = 0;        // directories that could not be listed
  std::string_view stopped;          // why the walk ended early ("" when it did not)
  // Only when walk_visible was asked to record them (unsorted): the entries the ignore rules
  // skipped (files `keep` accepted, and directories) and those the policy hid (directories, and
  // files `keep` accepted), so a caller can count them for a narrower `keep` later.
  std::vector<WalkedEntry> ignored_entries;
  std::vector<WalkedEntry> hidden_entries;
};

// Walks the directory `start` (root-relative, "" for the root) down to `max_depth` levels (1:
// its entries only). `keep(path, type)` picks the entries to return (called concurrently); it is
// asked about every non-directory first, before the ignore rules and the policy, and one it
// refuses is neither returned nor counted anywhere (nor visited for Limits::max_visited), so a
// selective `keep` spares the matching of everything else. Directories are judged by the policy
// and the ignore rules first, and only visible ones are offered to `keep`. Ignored entries are
// counted when they are directories or `keep` accepts them.
//
// With `stamp` (a DirWatch::begin of the session's watch), the stamp also comes to depend on
// everything the walk's result does: each directory the walk lists (watched before it is
// listed), and the names in `start`'s ancestors, up to "/", that could change what the walk
// finds there or which ignore rules apply (see watch_walk_inputs).
Expected<VisibleWalk> walk_visible(
    const CallContext& context, const std::string& start, std::optional<std::size_t> max_depth,
    bool include_ignored,
    const std::function<bool(std::string_view path, walker::EntryType type)>& keep,
    WatchStamp* stamp = nullptr, bool record_skipped = false);

// Makes `stamp` depend on what a walk of `start` (root-relative) takes from outside the
// directories it lists: in each directory from "/" down to `start`'s parent, the next name on
// the way and the names that bring ignore rules (walker::kRuleNames); a repository's
// .git/info/exclude in any of them; and the files the global excludes file is found through.
// The stamp is spoiled where one of them cannot be watched (a `.git` file, a symlinked
// configuration file, a directory that cannot be opened).
void watch_walk_inputs(const CallContext& context, const std::string& start, WatchStamp& stamp);

// The words of a page footer that differ from tool to tool. The footer reads, for find_files:
// (files 1–50 of at least 1,234; cut at max_tokens=500; the walk stopped early (visit_cap):
// narrow path or pattern<notes>; call find_files with ... cursor='...' for more)
struct PageWords {
  std::string_view noun;    // what the items are: "files", "entries"
  std::string empty;        // the footer's head for an empty list: "no entries"
  std::string_view narrow;  // what to narrow after a walk that stopped early: "path or depth"
  std::string notes;        // "; ..." parts after the walk's ("" for none): ignored, unreadable
  std::string more_notes;   // "; ..." parts said only when more items follow (max_results_note)
  std::function<std::string(std::string_view cursor)> next_call;  // "call ... cursor='...'"
};

// One page of a listing as rendered by render_page.
struct RenderedPage {
  std::string text;
  std::size_t tokens = 0;   // the counter's count of `text`
  std::size_t shown = 0;    // items from the offset that `text` shows
  bool more = false;        // items after the shown ones
  bool truncated = false;   // more, or the walk stopped early
  std::string_view reason;  // truncated_reason (meaningful when truncated)
  std::string next_cursor;  // the cursor of the first item not shown ("" unless more)
};

// Renders `header` (may be empty), then the lines `line(i, out)` writes into `out` (given empty,
// reused from line to line; each line ends in '\n') of items offset + i for i < count, of a list of
// `total` items that `key` defines, within `max_tokens`
// (`reserve` of them held for the footer) and Limits::max_output_bytes, then the footer built from
// `words` and `stopped` (why the walk ended early, "" when it did not). When the budget had to
// trim the whole text (a counter whose counts are not additive), renders again with fewer items,
// so `shown` is exactly what the text holds.
RenderedPage render_page(const CallContext& context, std::size_t max_tokens, std::size_t reserve,
                         std::string_view header, std::uint64_t offset, std::size_t count,
                         std::size_t total, std::string_view stopped, const CursorKey& key,
                         const std::function<void(std::size_t i, std::string& out)>& line,
                         const PageWords& words);

// Writes the paging fields of a listing's structured result: truncated, truncated_reason (null
// unless truncated) and next_cursor (null unless more).
void write_page_fields(JsonWriter& w, const RenderedPage& page);

// Component-wise path order: a directory's entries follow it directly ("a/b" < "a.txt" is false
// bytewise, true here, because '/' sorts before every other byte).
bool compare_paths(std::string_view a, std::string_view b);

// A key of the 8 bytes of `path` from `from` on that orders as compare_paths does, bytes mapped
// so '/' and the end of the path sort lowest: for paths that agree on their first `from` bytes,
// a smaller key means compare_paths(a, b), and equal keys leave the order to compare_paths.
std::uint64_t path_order_key(std::string_view path, std::size_t from);

// The stat of the root-relative `path` without following a final symlink, opened beneath the
// root (never by path string from the process's cwd); nullopt when it cannot be read.
std::optional<struct stat> stat_beneath(const CallContext& context, const std::string& path);
// The same for a path whose bytes are followed by a NUL byte (a WalkedEntry's).
std::optional<struct stat> stat_beneath(const CallContext& context, std::string_view path);

}  // namespace ctx::agent
