// The parallel directory walk behind `--files` and every search: which files to visit, decided
// exactly as git and ripgrep decide (ignore files at every level, parents' ignore files, the
// repository's info/exclude, the global excludes file, -g overrides, file types, hidden files).
//
// `walk()` runs a work-stealing depth-first walk on oneTBB and hands each file to a `WalkSink`.
// Unsorted, the sink is called from worker threads as files are found. Sorted by path, the walk is
// one depth-first pass in order on the calling thread, which calls the sink as it goes (memory: the
// listings of the directories on the current path). Sorted by a time, discovery is parallel and
// the sink is called on the calling thread in that order afterwards (ties in the order an unsorted
// one-thread walk meets the files, as ripgrep).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/base/result.hpp"
#include "ctx/walker/match.hpp"

namespace ctx::walker {

class IgnoreCache;
class Overrides;
class TypeMatcher;

// The names in a directory (its own, or a root's parent's) whose presence or content changes
// what a walk visits: a repository's `.git` (its info/exclude, and whether git's ignore files
// count), and the ignore files.
inline constexpr std::array<std::string_view, 5> kRuleNames = {".git", ".gitignore", ".ignore",
                                                               ".rgignore", ".ctxignore"};

enum class SortBy : std::uint8_t { kNone, kPath, kModified, kAccessed, kCreated };

// What a reported entry is (only report_all walks report anything but files).
enum class EntryType : std::uint8_t { kFile, kDirectory, kSymlink, kOther };

struct WalkOptions {
  // Roots as the user typed them. Empty: the current directory, whose paths print without "./".
  std::vector<std::string> paths;

  bool hidden = false;           // --hidden: also visit names starting with '.'
  bool follow_links = false;     // -L: follow symlinks (loops are detected and reported)
  bool one_file_system = false;  // do not cross into other file systems
  // Set WalkEntry::short_read_is_end: one fstatfs(2) per directory that holds a regular file.
  bool probe_file_systems = false;
  bool git_ignore = true;   // .gitignore files
  bool git_exclude = true;  // $GIT_DIR/info/exclude
  bool git_global = true;   // core.excludesFile, else $XDG_CONFIG_HOME/git/ignore
  bool dot_ignore = true;   // .ignore, .rgignore and .ctxignore
  bool parents = true;      // ignore files in the roots' parent directories
  bool require_git = true;  // git's ignore files count only inside a repository
  bool ignore_case_insensitive = false;
  std::vector<std::string> ignore_files;  // --ignore-file, lowest precedence, later ones win

  std::optional<std::size_t> max_depth;       // roots are depth 0
  std::optional<std::uint64_t> max_filesize;  // skip files larger than this many bytes
  SortBy sort = SortBy::kNone;
  bool sort_reverse = false;
  // Sorted by path: list each directory's subdirectories ahead, on the other threads, while its
  // files go to the sink (faster where listing is the work, e.g. --files; memory then holds
  // those listings too).
  bool list_ahead = false;
  unsigned threads = 0;  // 0: one per core
  // Unsorted on one thread (threads 1, or 0 on a one-core machine): hand the sink the files in
  // ripgrep's one-thread order (walkdir's: roots as given, each directory depth first, its files
  // and subdirectories interleaved as readdir lists them), as they are found. Without it a
  // directory's files come before its subdirectories'. Ignored when sorted or report_all, or on
  // several threads (no set order there).
  bool walk_order = false;
  // ripgrep's single-threaded walk (walkdir's errors): a path that cannot be stat'ed, opened or
  // listed is reported as "P: IO error for operation on P: ERROR" instead of "P: ERROR". rg walks
  // on one thread when it sorts, under -j1, and for a single path that is not a directory.
  bool walkdir_errors = false;

  // Confinement for agent tools: when >= 0, `paths` are relative to this directory fd (an empty
  // path is the fd's directory itself) and every directory is opened beneath it
  // (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, or a
  // component-by-component O_NOFOLLOW walk where the kernel lacks openat2), so a directory swapped
  // for a symlink mid-walk is never entered and nothing outside the fd's tree is listed. Printed
  // paths stay relative to the fd. Requires follow_links == false.
  int beneath_fd = -1;

  // Directory listings (the agent's list_directory, find_files): also hand the sink each
  // directory (before anything beneath it; on_file returning Flow::kSkip keeps the walk out of
  // it), each symlink (never followed) and each other non-regular entry (FIFO, socket, device),
  // with WalkEntry::type set, and hand on_ignored every entry the ignore rules, overrides, types
  // or the hidden filter skipped (not descended); WalkSink::wants sees each non-directory first.
  // Unsorted walks only (sort must be kNone).
  bool report_all = false;

  // Optional filters; they must outlive the walk.
  const Overrides* overrides = nullptr;
  const TypeMatcher* types = nullptr;

  // Optional: compiled ignore files and the git-config lookup reused across walks (a long-lived
  // server's; see ignore_cache.hpp). Null: every file is read and compiled for this walk alone.
  // Must outlive the walk; may be shared by concurrent walks.
  IgnoreCache* ignore_cache = nullptr;
};

struct WalkEntry {
  std::string_view path;  // as it should be printed; valid during the call only
  std::size_t depth;      // 0 for a root given on the command line
  EntryType type = EntryType::kFile;
  // For files found in a directory listing: that directory, open during the call only, and the
  // entry's name in it (the tail of `path`, so NUL-terminated), so a sink can open the file with
  // openat(dir_fd, name.data()) and skip resolving the whole path again. -1 (and an empty name) for
  // roots and for sorted walks (handed over after their directories were closed).
  int dir_fd = -1;
  std::string_view name = {};
  // Under WalkOptions::probe_file_systems, for a regular file (not a followed symlink) found in a
  // listing: its directory lies on a local disk or memory file system (ext2/3/4, XFS, Btrfs,
  // F2FS, tmpfs, ramfs, overlayfs), where a read(2) of a regular file that returns fewer bytes
  // than asked has reached its end. False when not known (procfs, sysfs, FUSE and network file
  // systems may return short reads before the end). A file bind-mounted from another file system
  // is taken to be on its directory's.
  bool short_read_is_end = false;
};

class WalkSink {
 public:
  virtual ~WalkSink() = default;
  // One file to visit. Called concurrently from worker threads unless sorting. kStop ends the walk.
  virtual Flow on_file(const WalkEntry& entry) = 0;
  // One path that could not be visited (unreadable directory, missing root, symlink loop); the walk
  // goes on. Called concurrently too.
  virtual void on_error(const Error& error) = 0;
  // An ignore file that could not be read (--ignore-file, .gitignore, .ignore, the global
  // excludes); its rules are left out and the walk goes on. By default an on_error; rg reports
  // these as warnings (exit status unchanged, hidden by --no-ignore-messages).
  virtual void on_ignore_error(const Error& error) { on_error(error); }
  // Under report_all: an entry the filters skipped (a directory is not descended). Called
  // concurrently too.
  virtual void on_ignored(const WalkEntry& /*entry*/) {}
  // Under report_all: asked first about each entry that is not a directory, before any filter
  // (ignore rules, overrides, types, hidden); false drops it silently (no on_file, no on_ignored),
  // so a sink that wants a few names saves the ignore matching of all the others. Called
  // concurrently too.
  virtual bool wants(const WalkEntry& /*entry*/) { return true; }
  // Each directory the walk opens (`path` as its entries' paths start), open as `dir_fd` during
  // the call, before it is listed: a sink that watches directories for changes (inotify) sees
  // every change made while and after the walk lists it. Called concurrently too.
  virtual void on_directory(int /*dir_fd*/, std::string_view /*path*/) {}
};

// Walks `options.paths`. Problems with single paths go to `sink.on_error`; the returned Status is
// an error only when the walk could not start at all.
Status walk(const WalkOptions& options, WalkSink& sink);

// Whether the file system holding the open `fd` is a local disk or memory one (ext2/3/4, XFS,
// Btrfs, F2FS, tmpfs, ramfs, overlayfs), where only this machine's kernel changes files, every
// change goes through its VFS (inotify sees it), and a read(2) of a regular file that returns
// fewer bytes than asked has reached its end. False for others (procfs, sysfs, FUSE, network file
// systems) and when fstatfs fails.
bool on_local_file_system(int fd);

// The number of CPUs (at least 1): the thread count of a walk, a search or a chunked file when
// none is asked for.
unsigned cores();

// Unsorted, fewer named files than this (paths that are not directories) reach the sink one after
// the other in the order given; from this many on, on all threads as they come.
inline constexpr std::size_t kParallelRootFiles = 64;

}  // namespace ctx::walker
