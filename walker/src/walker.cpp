// The walk: one TBB task per directory. A task lists its directory with getdents64 (d_type, no
// stat per entry), notices ignore files and `.git` in that listing (no failed opens for absent
// ones), builds a RuleNode only when the directory brings rules, and decides each entry with the
// chain of RuleNodes above it. Walks sorted by path go depth first in order on one thread; walks
// sorted by a time record a tree and replay it afterwards.

#include "ctx/walker/walker.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_for_each.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "beneath.hpp"
#include "ctx/base/file_buffer.hpp"
#include "ctx/walker/ignore_cache.hpp"
#include "ctx/walker/ignore_rules.hpp"
#include "ctx/walker/overrides.hpp"
#include "ctx/walker/per_thread.hpp"
#include "ctx/walker/types.hpp"
#include "git_paths.hpp"
#include "time_order.hpp"

namespace ctx::walker {
namespace {

constexpr std::size_t kMaxIgnoreFileBytes = std::size_t{256} << 20;
constexpr std::size_t kDentBufferBytes = 64 << 10;

constexpr std::string_view kDotGit = kRuleNames[0];
constexpr std::string_view kGitIgnore = kRuleNames[1];
constexpr std::string_view kDotIgnore = kRuleNames[2];
constexpr std::string_view kRgIgnore = kRuleNames[3];
constexpr std::string_view kCtxIgnore = kRuleNames[4];
constexpr std::size_t kMaxInlineDepth = 256;  // walk_order: deeper directories wait their turn

// This thread's task arena of `threads` concurrency, made on its first walk and kept until the
// thread ends. Not one per walk: oneTBB 2021.8 keeps about 7 KiB for every task_arena
// constructed (20,000 arenas: +141 MiB of anonymous memory, out of sight of heap profilers since
// it comes from tbbmalloc), which a long-lived server walking once per tool call turned into
// steady growth. Per thread, so walks running at once on different threads stay as isolated
// from each other as they were with an arena each.
// Whether a read(2) of a regular file on the file system holding `dir_fd` returns fewer bytes than
// asked only at the file's end: on local file systems (see on_local_file_system). Others (procfs,
// sysfs, FUSE, network file systems) may return short reads before the end.
bool short_reads_end_files(int dir_fd) { return on_local_file_system(dir_fd); }

tbb::task_arena& arena_for(unsigned threads) {
  thread_local std::map<unsigned, std::unique_ptr<tbb::task_arena>> arenas;
  std::unique_ptr<tbb::task_arena>& arena = arenas[threads];
  if (arena == nullptr) arena = std::make_unique<tbb::task_arena>(static_cast<int>(threads));
  return *arena;
}

// One ignore file's compiled rules (shared with an IgnoreCache when the walk has one), and
// optionally a second file's read after it (.ctxignore after .rgignore), whose lines come later
// and so decide first; null when there are none.
struct SharedRules {
  std::shared_ptr<const IgnoreRules> rules;
  std::shared_ptr<const IgnoreRules> later;
  bool empty() const {
    return (rules == nullptr || rules->empty()) && (later == nullptr || later->empty());
  }
  MatchKind match(std::string_view rel_path, bool is_dir) const {
    if (later != nullptr) {
      if (MatchKind m = later->match(rel_path, is_dir); m != MatchKind::kNone) return m;
    }
    return rules == nullptr ? MatchKind::kNone : rules->match(rel_path, is_dir);
  }
};

// The rules one directory brings. Nodes link to the nearest ancestor that brings rules too.
struct RuleNode {
  std::shared_ptr<const RuleNode> parent;
  // In-root nodes: an entry path's bytes before the part relative to this directory.
  std::size_t strip = 0;
  // Above-root nodes (parents of a root): this directory's path down to the root ("b/c").
  bool above_root = false;
  std::string prefix;
  bool has_git = false;  // the directory holds `.git`: a repository's top
  bool any_git = false;  // this node or an ancestor has_git
  SharedRules custom;    // .rgignore then .ctxignore (later lines win)
  SharedRules dot;       // .ignore
  SharedRules git;       // .gitignore
  SharedRules exclude;   // info/exclude, on has_git nodes
};

struct Root {
  std::string display;  // "" for the implicit current directory
  std::size_t strip;    // bytes of an entry path before the root-relative part
  dev_t dev = 0;
};

// A sorted walk's listings (by time: the whole tree, replayed afterwards; by path: the
// directories on the current path).
struct SortedDir;
struct SortedChild {
  std::string name;
  std::unique_ptr<SortedDir> dir;  // null for files
  bool short_read_is_end = false;  // a file's WalkEntry::short_read_is_end
  // Sorted by path: an entry that could not be stat'ed (a dangling link or a link loop under -L),
  // reported at its turn as walkdir does, not when its directory is listed.
  std::optional<Error> error;
};
// A problem met while listing a directory ahead of its turn (walk_in_order), reported at its turn.
struct DeferredReport {
  bool ignore_file;  // WalkSink::on_ignore_error, else on_error
  Error error;
};
struct SortedDir {
  std::vector<SortedChild> children;
  std::size_t task = 0;  // walk_in_order: this directory's index among its parent's child tasks
  std::vector<DeferredReport> reports;  // walk_in_order: what its listing ahead met
};

// While set (on a thread listing a directory ahead of its turn), the walk's reports go here.
thread_local std::vector<DeferredReport>* t_deferred = nullptr;

// A path given on the command line, in command-line order.
struct RootItem {
  bool is_dir;
  std::string path;
  std::unique_ptr<SortedDir> tree;
  std::size_t task = 0;        // a directory's index in `tasks`
  std::optional<Error> error;  // a root that could not be walked, reported at its turn
};

struct Ancestor {  // -L loop detection: the chain of directories above a task
  std::shared_ptr<const Ancestor> parent;
  dev_t dev;
  ino_t ino;
  std::string path;
  bool via_symlink;  // DirTask::via_symlink
};

struct DirTask {
  std::string path;  // display path ("" for the implicit current directory)
  std::size_t depth = 0;
  std::shared_ptr<const RuleNode> node;
  const Root* root = nullptr;
  SortedDir* out = nullptr;
  std::shared_ptr<const Ancestor> ancestors;
  // -L: reached through a symlink. As ripgrep (walkdir, ignore), such a directory is checked
  // against its ancestors, a real one beneath a followed link is entered even when it is one of
  // them (the loop is found at the link's next occurrence), so the paths in the message are rg's.
  bool via_symlink = false;
};

struct RawEntry {
  std::uint32_t name_offset;
  std::uint32_t name_size;
  unsigned char type;  // DT_*
};

struct Scratch {
  // getdents64's buffer: allocated per walk and thread, never zero-filled (the kernel writes what
  // is read from it).
  std::unique_ptr<char[]> dents{new char[kDentBufferBytes]};
  std::string names;
  std::vector<RawEntry> entries;
  std::string path;
  std::string rel;
};

std::string child_prefix(const std::string& dir) {
  if (dir.empty() || dir.back() == '/') return dir;
  return dir + "/";
}

bool is_dir_type(unsigned char t) { return t == DT_DIR; }

EntryType entry_type(unsigned char t) {
  return t == DT_REG   ? EntryType::kFile
         : t == DT_DIR ? EntryType::kDirectory
         : t == DT_LNK ? EntryType::kSymlink
                       : EntryType::kOther;
}

// Rust's Path ordering (ripgrep sorts by it): component by component, a leading '/' first, then
// a leading ".", then "..", then names by their bytes; empty and inner "." components are
// skipped, so "a/b" < "a.c" (the component "a" < "a.c") and "a//b/" equals "a/b".
bool path_less(std::string_view a, std::string_view b) {
  struct Components {
    std::string_view rest;
    bool first = true;
    // The next component as (rank, name); rank 0 when none is left.
    std::pair<int, std::string_view> next() {
      if (first && rest.starts_with('/')) {
        first = false;
        return {1, {}};
      }
      const bool at_start = first;
      first = false;
      while (!rest.empty()) {
        const std::size_t slash = rest.find('/');
        const std::string_view part = rest.substr(0, slash);
        rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
        if (part == "." && at_start) return {2, part};
        if (part.empty() || part == ".") continue;
        return {part == ".." ? 3 : 4, part};
      }
      return {0, {}};
    }
  };
  Components x{a}, y{b};
  for (;;) {
    const auto cx = x.next();
    const auto cy = y.next();
    if (cx != cy) return cx < cy;
    if (cx.first == 0) return false;
  }
}

// An ignore file found by the walk (in a directory, a parent or git's global excludes) that
// cannot be read: absent, not a regular file, unreadable. ripgrep skips such a file silently.
bool unreadable(const Error& error) {
  return error.code == ErrorCode::kNotFound || error.code == ErrorCode::kPermissionDenied ||
         error.code == ErrorCode::kIo;
}

// Errors of a confined open, said in the walk's terms.
Error beneath_error(int err, std::string_view path) {
  if (err == EXDEV) {
    return Error{ErrorCode::kInvalidArgument,
                 fmt::format("{}: outside the directory the walk is confined to", path)};
  }
  if (err == ELOOP) {
    return Error{ErrorCode::kInvalidArgument,
                 fmt::format("{}: a symlink (confined walks do not follow symlinks)", path)};
  }
  return Error::from_errno(err, path);
}

class Walker {
 public:
  Walker(const WalkOptions& options, WalkSink& sink) : options_(options), sink_(sink) {}

  Status run();

 private:
  const WalkOptions& options_;
  WalkSink& sink_;
  std::atomic<bool> stop_{false};
  unsigned threads_ = 1;  // -j, else the core count
  std::string cwd_;
  // Confined walks (beneath_fd >= 0): the fd's absolute path without a trailing '/' ("" for "/"
  // and when /proc cannot tell; then no ignore files above the fd are read).
  std::string beneath_abs_;
  bool beneath_abs_known_ = false;
  IgnoreRules explicit_rules_;
  std::once_flag global_once_;
  SharedRules global_rules_;
  PerThread<Scratch> scratch_;
  std::vector<std::unique_ptr<Root>> roots_;

  bool sorted() const { return options_.sort != SortBy::kNone; }
  // WalkOptions::walk_order on one thread: process() descends into each subdirectory as it meets
  // it (walkdir's order), each depth with its own Scratch; set by run().
  bool inline_ = false;
  std::vector<std::unique_ptr<Scratch>> depth_scratch_;
  Scratch& scratch_for(std::size_t depth);
  bool beneath() const { return options_.beneath_fd >= 0; }
  void emit(std::string_view path, std::size_t depth, int dir_fd = -1, std::string_view name = {},
            bool short_read_is_end = false);
  void report(const Error& error) {
    if (t_deferred != nullptr) {
      t_deferred->push_back(DeferredReport{false, error});
    } else {
      sink_.on_error(error);
    }
  }
  void report_ignore_file(const Error& error) {
    if (t_deferred != nullptr) {
      t_deferred->push_back(DeferredReport{true, error});
    } else {
      sink_.on_ignore_error(error);
    }
  }
  // `path` as errors name it: as ripgrep, beneath the implicit root (no path given) it starts
  // with "./" (the root itself is "./"), though printed results do not.
  std::string error_path(std::string_view path) const;
  // An error stat'ing, opening or listing `path`, worded as options_.walkdir_errors asks.
  Error io_error(int err, std::string_view path) const;

  // `inside_len`: in confined walks, ancestors at least this long are beneath the fd and are
  // read through it (their path past `inside_len` is fd-relative).
  std::shared_ptr<const RuleNode> parent_chain(const std::string& abs_root,
                                               std::size_t inside_len = std::string::npos);
  // `dir_fd` >= 0 (confined walks): ignore files are read beneath this open directory, `dir`
  // only names them in errors.
  void load_node_rules(RuleNode& node, const std::string& dir, bool has_gitignore, bool has_ignore,
                       bool has_rgignore, bool has_ctxignore, int dir_fd = -1);
  Status start_beneath();
  const SharedRules& global_rules();
  // The compiled rules of the ignore file `rel` beneath `dir_fd` (confined walks) or, with
  // dir_fd < 0, at `shown` (relative to the cwd); errors name `shown`. The file is opened, then
  // fstat'ed, then looked up in options_.ignore_cache by that identity or read from the same fd.
  Result<std::shared_ptr<const IgnoreRules>> load_rules(int dir_fd, std::string_view rel,
                                                        const std::string& shown);

  void process(DirTask& task, std::vector<DirTask>& children);
  bool skip_entry(std::string_view path, std::string_view name, bool is_dir, const RuleNode* node,
                  const Root& root, Scratch& scratch);
  MatchKind match_ignores(std::string_view path, bool is_dir, const RuleNode* node,
                          const Root& root, Scratch& scratch);
  std::string_view relative_to(const RuleNode& node, std::string_view path, const Root& root,
                               Scratch& scratch) const;
  std::string_view cwd_relative(std::string_view path) const;
  // The path --ignore-file rules see: ripgrep builds them with an empty root, so they see the
  // walked path as written (one "./" and then one "/" stripped), not one relative to the cwd.
  static std::string_view ignore_file_relative(std::string_view path);

  // Sorted by a time: appends the files of the recorded tree `dir` to `collect` (with depths).
  void replay(const SortedDir& dir, std::string& path, std::size_t depth,
              std::vector<std::pair<std::string, std::size_t>>& collect);
  // Sorted by path: `task` is listed (its `out` holds its entries, `children` its subdirectories'
  // tasks); hands its files to the sink (or appends them to `collect`, with their depth) and walks
  // its subdirectories, in order, on the calling thread (list_ahead: listing them ahead on the
  // others).
  // `path` is the task's path with a trailing '/' (or empty); it is restored before returning.
  void walk_in_order(DirTask& task, std::vector<DirTask>& children, std::string& path,
                     std::vector<std::pair<std::string, std::size_t>>* collect);
  // The walk sorted by path (forward: files go to the sink in order as found; reversed: all are
  // collected, then sorted as ripgrep 14 sorts them). `items`: the roots in command-line order.
  void walk_sorted_by_path(const std::vector<RootItem>& items, std::vector<DirTask>& tasks);
  void replay_by_time(std::vector<std::pair<std::string, std::size_t>>& files);
};

std::string Walker::error_path(std::string_view path) const {
  if (!options_.paths.empty() || beneath()) return std::string(path);
  if (path.empty() || path == ".") return "./";
  return fmt::format("./{}", path);
}

Error Walker::io_error(int err, std::string_view path) const {
  const std::string shown = error_path(path);
  Error error = Error::from_errno(err, shown);
  if (options_.walkdir_errors) {
    error.detail = fmt::format("{}: IO error for operation on {}", shown, error.detail);
  }
  return error;
}

std::string_view Walker::cwd_relative(std::string_view path) const {
  if (path.substr(0, 2) == "./") path.remove_prefix(2);
  if (!path.empty() && path[0] == '/' && !cwd_.empty() && path.size() > cwd_.size() &&
      path.substr(0, cwd_.size()) == cwd_ && path[cwd_.size()] == '/') {
    path.remove_prefix(cwd_.size() + 1);
  }
  return path;
}

std::string_view Walker::ignore_file_relative(std::string_view path) {
  // As the ignore crate: Ignore::matched strips "./", Gitignore::strip strips "./" again, then
  // the (empty) root and one leading "/". So `a/*` applies under `.//` but not under an
  // absolute or `../` root (ripgrep #2366: deliberate, paths are handled symbolically).
  for (int i = 0; i < 2 && path.substr(0, 2) == "./"; ++i) path.remove_prefix(2);
  if (path.find('/') != std::string_view::npos && path.substr(0, 1) == "/") path.remove_prefix(1);
  return path;
}

std::string_view Walker::relative_to(const RuleNode& node, std::string_view path, const Root& root,
                                     Scratch& scratch) const {
  if (!node.above_root) return path.substr(std::min(node.strip, path.size()));
  scratch.rel.assign(node.prefix);
  std::string_view in_root = path.substr(std::min(root.strip, path.size()));
  if (!in_root.empty()) {
    scratch.rel.push_back('/');
    scratch.rel.append(in_root);
  }
  return scratch.rel;
}

const SharedRules& Walker::global_rules() {
  std::call_once(global_once_, [this] {
    auto path = options_.ignore_cache != nullptr ? options_.ignore_cache->global_excludes_path()
                                                 : detail::global_excludes_path();
    if (!path) return;
    auto rules = load_rules(-1, {}, *path);
    if (rules.ok()) {
      global_rules_.rules = std::move(*rules);
    } else if (!unreadable(rules.error())) {
      report_ignore_file(rules.error());
    }
  });
  return global_rules_;
}

Result<std::shared_ptr<const IgnoreRules>> Walker::load_rules(int dir_fd, std::string_view rel,
                                                              const std::string& shown) {
  int fd = -1;
  if (dir_fd >= 0) {
    fd = detail::open_beneath(dir_fd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    // A symlinked ignore file counts as absent: git does not follow one either.
    if (fd < 0) return Error::from_errno(errno == ELOOP ? ENOENT : errno, shown);
  } else {
    fd = ::openat(AT_FDCWD, shown.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return Error::from_errno(errno, shown);
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error::from_errno(errno, shown);
  if (!S_ISREG(st.st_mode)) {  // as ripgrep, counts as absent
    return Error{ErrorCode::kNotFound, fmt::format("{}: not a regular file", shown)};
  }
  if (static_cast<std::uint64_t>(st.st_size) > kMaxIgnoreFileBytes) {
    return Error{ErrorCode::kInvalidArgument,
                 fmt::format("{}: file is {} bytes, more than the limit of {}", shown, st.st_size,
                             kMaxIgnoreFileBytes)};
  }
  IgnoreCache* cache = options_.ignore_cache;
  std::string key;
  if (cache != nullptr) {
    key = IgnoreCache::key(shown, st, options_.ignore_case_insensitive);
    if (auto hit = cache->find(key)) return hit;
  }
  std::string text;
  char buf[16 << 10];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno(errno, shown);
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxIgnoreFileBytes) {
      return Error{
          ErrorCode::kInvalidArgument,
          fmt::format("{}: file grew past the limit of {} bytes", shown, kMaxIgnoreFileBytes)};
    }
  }
  auto rules = std::make_shared<const IgnoreRules>(
      IgnoreRules::parse(text, {options_.ignore_case_insensitive}));
  // A file written during the read has another identity now: not cached under the old one.
  struct stat after {};
  if (cache != nullptr && ::fstat(fd, &after) == 0 &&
      IgnoreCache::key(shown, after, options_.ignore_case_insensitive) == key) {
    cache->insert(key, st, rules, text.size());
  }
  return rules;
}

MatchKind Walker::match_ignores(std::string_view path, bool is_dir, const RuleNode* node,
                                const Root& root, Scratch& scratch) {
  MatchKind m_dot = MatchKind::kNone, m_git = MatchKind::kNone, m_exclude = MatchKind::kNone;
  const bool any_git = !options_.require_git || (node != nullptr && node->any_git);
  bool saw_git = false;
  const RuleNode* repo = nullptr;
  for (const RuleNode* n = node; n != nullptr; n = n->parent.get()) {
    const bool want_git = any_git && !saw_git;
    const bool relevant = !n->custom.empty() || (m_dot == MatchKind::kNone && !n->dot.empty()) ||
                          (want_git && ((m_git == MatchKind::kNone && !n->git.empty()) ||
                                        (m_exclude == MatchKind::kNone && !n->exclude.empty())));
    if (relevant) {
      std::string_view rel = relative_to(*n, path, root, scratch);
      // .rgignore/.ctxignore outrank everything else, so their first verdict is final.
      if (MatchKind m = n->custom.match(rel, is_dir); m != MatchKind::kNone) return m;
      if (m_dot == MatchKind::kNone) m_dot = n->dot.match(rel, is_dir);
      if (want_git && m_git == MatchKind::kNone) m_git = n->git.match(rel, is_dir);
      if (want_git && m_exclude == MatchKind::kNone) m_exclude = n->exclude.match(rel, is_dir);
    }
    if (n->has_git && !saw_git) {
      saw_git = true;
      repo = n;
    }
  }
  if (m_dot != MatchKind::kNone) return m_dot;
  if (m_git != MatchKind::kNone) return m_git;
  if (m_exclude != MatchKind::kNone) return m_exclude;
  if (options_.git_global && any_git) {
    const SharedRules& global = global_rules();
    if (!global.empty()) {
      // Anchored at the repository's top, as git; outside a repository (--no-require-git) at
      // the root of the walk.
      std::string_view rel = repo != nullptr ? relative_to(*repo, path, root, scratch)
                                             : path.substr(std::min(root.strip, path.size()));
      MatchKind m = global.match(rel, is_dir);
      if (m != MatchKind::kNone) return m;
    }
  }
  if (!explicit_rules_.empty()) return explicit_rules_.match(ignore_file_relative(path), is_dir);
  return MatchKind::kNone;
}

bool Walker::skip_entry(std::string_view path, std::string_view name, bool is_dir,
                        const RuleNode* node, const Root& root, Scratch& scratch) {
  if (options_.overrides != nullptr && !options_.overrides->empty()) {
    MatchKind m = options_.overrides->match(cwd_relative(path), is_dir);
    if (m != MatchKind::kNone) return m == MatchKind::kIgnore;
  }
  bool whitelisted = false;
  MatchKind m = match_ignores(path, is_dir, node, root, scratch);
  if (m == MatchKind::kIgnore) return true;
  whitelisted = m == MatchKind::kWhitelist;
  if (!is_dir && options_.types != nullptr && !options_.types->empty()) {
    MatchKind t = options_.types->match(name, false);
    if (t == MatchKind::kIgnore) return true;
    whitelisted = whitelisted || t == MatchKind::kWhitelist;
  }
  return !whitelisted && !options_.hidden && !name.empty() && name[0] == '.';
}

void Walker::load_node_rules(RuleNode& node, const std::string& dir, bool has_gitignore,
                             bool has_ignore, bool has_rgignore, bool has_ctxignore, int dir_fd) {
  std::string prefix = child_prefix(dir);
  auto load = [&](std::string_view name) -> std::shared_ptr<const IgnoreRules> {
    auto rules = load_rules(dir_fd, name, prefix + std::string(name));
    if (rules.ok()) return std::move(*rules);
    if (!unreadable(rules.error())) report_ignore_file(rules.error());
    return nullptr;
  };
  if (options_.git_ignore && has_gitignore) node.git.rules = load(kGitIgnore);
  if (options_.dot_ignore && has_ignore) node.dot.rules = load(kDotIgnore);
  if (options_.dot_ignore) {
    if (has_rgignore) node.custom.rules = load(kRgIgnore);
    if (has_ctxignore) node.custom.later = load(kCtxIgnore);
  }
  if (node.has_git && options_.git_exclude && options_.git_ignore && dir_fd >= 0) {
    // Confined: a `.git` directory's info/exclude is read beneath the fd; a `.git` file (a
    // worktree or submodule) points elsewhere, followed by absolute path as git does.
    struct stat st {};
    if (::fstatat(dir_fd, ".git", &st, AT_SYMLINK_NOFOLLOW) != 0) return;
    if (S_ISDIR(st.st_mode)) {
      auto rules = load_rules(dir_fd, ".git/info/exclude", prefix + ".git/info/exclude");
      if (rules.ok()) node.exclude.rules = std::move(*rules);
    } else if (S_ISREG(st.st_mode) && beneath_abs_known_) {
      std::string abs = dir.empty() || dir[0] == '/' ? dir : beneath_abs_ + "/" + dir;
      if (dir.empty()) abs = beneath_abs_.empty() ? "/" : beneath_abs_;
      if (auto exclude = detail::info_exclude_path(abs)) {
        auto rules = load_rules(-1, {}, *exclude);
        if (rules.ok()) node.exclude.rules = std::move(*rules);
      }
    }
  } else if (node.has_git && options_.git_exclude && options_.git_ignore) {
    if (auto exclude = detail::info_exclude_path(dir.empty() ? "." : dir)) {
      auto rules = load_rules(-1, {}, *exclude);
      if (rules.ok()) node.exclude.rules = std::move(*rules);
    }
  }
}

std::shared_ptr<const RuleNode> Walker::parent_chain(const std::string& abs_root,
                                                     std::size_t inside_len) {
  std::shared_ptr<const RuleNode> chain;
  if (abs_root.size() <= 1) return chain;  // the root is "/": no parents
  // Ancestors from "/" down to the root's parent.
  std::vector<std::string> ancestors;
  for (std::size_t i = abs_root.find('/', 1);; i = abs_root.find('/', i + 1)) {
    ancestors.push_back(i == std::string::npos ? std::string() : abs_root.substr(0, i));
    if (i == std::string::npos) break;
  }
  ancestors.pop_back();  // the root itself
  ancestors.insert(ancestors.begin(), "/");
  IgnoreCache* cache = options_.ignore_cache;
  for (const std::string& ancestor : ancestors) {
    // Confined walks read the ancestors beneath the fd through it (`dir` is then fd-relative).
    const bool inside = inside_len != std::string::npos && ancestor.size() >= inside_len;
    std::string dir = ancestor;
    int dir_fd = -1;
    bool own_fd = false;
    if (inside) {
      dir = ancestor.substr(inside_len);
      while (!dir.empty() && dir[0] == '/') dir.erase(0, 1);
      if (dir.empty()) {
        dir_fd = options_.beneath_fd;  // the fd's own directory
      } else {
        dir_fd = detail::open_beneath(options_.beneath_fd, dir, O_RDONLY | O_DIRECTORY | O_NOCTTY);
        if (dir_fd < 0) continue;  // the root's own open reports the problem
        own_fd = true;
      }
    }
    struct Closer {
      int fd;
      ~Closer() {
        if (fd >= 0) ::close(fd);
      }
    } closer{own_fd ? dir_fd : -1};
    auto exists = [&](std::string_view name) {
      struct stat st {};
      if (dir_fd >= 0) {
        return ::fstatat(dir_fd, std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
      }
      std::string p = child_prefix(dir) + std::string(name);
      return ::lstat(p.c_str(), &st) == 0;
    };
    // The names present, a bit each: .git, .gitignore, .ignore, .rgignore, .ctxignore. With a
    // cache, one stat of the directory stands for the five probes while it is unchanged.
    std::uint8_t present = 0;
    struct stat dir_st {};
    const bool cacheable =
        cache != nullptr &&
        (dir_fd >= 0 ? ::fstat(dir_fd, &dir_st) == 0 : ::lstat(dir.c_str(), &dir_st) == 0) &&
        S_ISDIR(dir_st.st_mode);
    if (auto cached = cacheable ? cache->find_names(dir_st) : std::nullopt; cached) {
      present = *cached;
    } else if (cacheable) {
      std::uint8_t bit = 1;
      for (std::string_view name : {kDotGit, kGitIgnore, kDotIgnore, kRgIgnore, kCtxIgnore}) {
        if (exists(name)) present |= bit;
        bit = static_cast<std::uint8_t>(bit << 1);
      }
      cache->insert_names(dir_st, present);
    } else {
      // Probed as the options ask (the same names, in the same order, as with a cache).
      unsigned bits = exists(kDotGit) ? 1U : 0U;
      if (options_.parents) {
        bits |= options_.git_ignore && exists(kGitIgnore) ? 2U : 0U;
        bits |= options_.dot_ignore && exists(kDotIgnore) ? 4U : 0U;
        bits |= options_.dot_ignore && exists(kRgIgnore) ? 8U : 0U;
        bits |= options_.dot_ignore && exists(kCtxIgnore) ? 16U : 0U;
      }
      present = static_cast<std::uint8_t>(bits);
    }
    const bool has_git = (present & 1) != 0;
    const bool gi = options_.parents && options_.git_ignore && (present & 2) != 0;
    const bool ig = options_.parents && options_.dot_ignore && (present & 4) != 0;
    const bool rg = options_.parents && options_.dot_ignore && (present & 8) != 0;
    const bool ci = options_.parents && options_.dot_ignore && (present & 16) != 0;
    if (!has_git && !gi && !ig && !rg && !ci) continue;
    auto node = std::make_shared<RuleNode>();
    node->parent = chain;
    node->above_root = true;
    node->prefix = abs_root.substr(ancestor == "/" ? 1 : ancestor.size() + 1);
    node->has_git = has_git;
    node->any_git = has_git || (chain && chain->any_git);
    if (options_.parents) load_node_rules(*node, dir, gi, ig, rg, ci, dir_fd);
    if (!options_.parents) node->exclude.rules = nullptr;
    chain = std::move(node);
  }
  return chain;
}

void Walker::emit(std::string_view path, std::size_t depth, int dir_fd, std::string_view name,
                  bool short_read_is_end) {
  if (sink_.on_file(WalkEntry{path, depth, EntryType::kFile, dir_fd, name, short_read_is_end}) ==
      Flow::kStop)
    stop_.store(true, std::memory_order_relaxed);
}

Scratch& Walker::scratch_for(std::size_t depth) {
  if (depth >= depth_scratch_.size()) depth_scratch_.resize(depth + 1);
  if (!depth_scratch_[depth]) depth_scratch_[depth] = std::make_unique<Scratch>();
  return *depth_scratch_[depth];
}

void Walker::process(DirTask& task, std::vector<DirTask>& children) {
  if (stop_.load(std::memory_order_relaxed)) return;
  Scratch& scratch = inline_ ? scratch_for(task.depth) : scratch_.local();
  const char* open_path = task.path.empty() ? "." : task.path.c_str();
  int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY;
  if (task.depth > 0 && !options_.follow_links) flags |= O_NOFOLLOW;
  // Confined: opened anew beneath the fd, so a directory swapped for a symlink since it was
  // listed is refused (ELOOP), never entered.
  int fd = beneath() ? detail::open_beneath(options_.beneath_fd, task.path, flags)
                     : ::open(open_path, flags);
  if (fd < 0) {
    // A directory that vanished since its parent was listed is no error.
    if (errno != ENOENT || task.depth == 0) {
      report(beneath() ? beneath_error(errno, open_path) : io_error(errno, open_path));
    }
    return;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};

  std::shared_ptr<const Ancestor> ancestors = task.ancestors;
  if (options_.one_file_system || options_.follow_links) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      report(io_error(errno, open_path));
      return;
    }
    if (options_.one_file_system && task.depth > 0 && st.st_dev != task.root->dev) return;
    if (options_.follow_links) {
      // A real directory that is an ancestor is a loop only when no link lies between the two (a
      // bind mount: rg would never end); past a link, the link is found again further down.
      bool linked = false;  // a link lies between `a` and this directory
      for (const Ancestor* a = ancestors.get(); a != nullptr; a = a->parent.get()) {
        const bool loop = task.via_symlink || !linked;
        linked = linked || a->via_symlink;
        if (loop && a->dev == st.st_dev && a->ino == st.st_ino) {
          report(Error{ErrorCode::kIo,
                       fmt::format("File system loop found: {} points to an ancestor {}",
                                   error_path(task.path), error_path(a->path))});
          return;
        }
      }
    }
    if (options_.follow_links) {
      ancestors = std::make_shared<const Ancestor>(
          Ancestor{ancestors, st.st_dev, st.st_ino, task.path, task.via_symlink});
    }
  }

  sink_.on_directory(fd, task.path);
  // List the directory.
  scratch.names.clear();
  scratch.entries.clear();
  bool has_git = false, has_gitignore = false, has_ignore = false, has_rgignore = false,
       has_ctxignore = false;
  for (;;) {
    long n = ::getdents64(fd, scratch.dents.get(), kDentBufferBytes);
    if (n < 0) {
      if (errno == EINTR) continue;
      report(io_error(errno, open_path));
      break;
    }
    if (n == 0) break;
    for (long off = 0; off < n;) {
      auto* d = reinterpret_cast<struct dirent64*>(scratch.dents.get() + off);
      off += d->d_reclen;
      std::string_view name(d->d_name);
      if (name == "." || name == "..") continue;
      if (name[0] == '.') {
        if (name == kDotGit) {
          has_git = true;
          continue;  // never listed, never descended
        }
        has_gitignore = has_gitignore || name == kGitIgnore;
        has_ignore = has_ignore || name == kDotIgnore;
        has_rgignore = has_rgignore || name == kRgIgnore;
        has_ctxignore = has_ctxignore || name == kCtxIgnore;
      }
      scratch.entries.push_back(RawEntry{static_cast<std::uint32_t>(scratch.names.size()),
                                         static_cast<std::uint32_t>(name.size()), d->d_type});
      scratch.names.append(name);
    }
  }

  // The rules this directory brings.
  std::string& path = scratch.path;
  path.assign(task.path);
  if (!path.empty() && path.back() != '/') path.push_back('/');
  const std::size_t base = path.size();
  std::shared_ptr<const RuleNode> node = task.node;
  bool brings_rules = has_git || (options_.git_ignore && has_gitignore) ||
                      (options_.dot_ignore && (has_ignore || has_rgignore || has_ctxignore));
  if (brings_rules) {
    auto fresh = std::make_shared<RuleNode>();
    fresh->parent = node;
    fresh->strip = base;
    fresh->has_git = has_git;
    fresh->any_git = has_git || (node && node->any_git);
    load_node_rules(*fresh, task.path, has_gitignore, has_ignore, has_rgignore, has_ctxignore,
                    beneath() ? fd : -1);
    node = std::move(fresh);
  }

  const std::size_t child_depth = task.depth + 1;
  const bool descend = !options_.max_depth || child_depth < *options_.max_depth;
  if (options_.max_depth && child_depth > *options_.max_depth) return;

  enum class Probe : std::uint8_t { kNotYet, kShortReadIsEnd, kUnknown };
  Probe file_system = options_.probe_file_systems ? Probe::kNotYet : Probe::kUnknown;
  for (const RawEntry& e : scratch.entries) {
    std::string_view name(scratch.names.data() + e.name_offset, e.name_size);
    path.resize(base);
    path.append(name);
    unsigned char type = e.type;
    if (type == DT_UNKNOWN || (type == DT_LNK && options_.follow_links)) {
      struct stat st {};
      int sflags = type == DT_LNK ? 0 : AT_SYMLINK_NOFOLLOW;
      if (::fstatat(fd, std::string(name).c_str(), &st, sflags) != 0) {
        if (errno != ENOENT || type == DT_LNK) {
          if (task.out != nullptr && options_.sort == SortBy::kPath) {
            task.out->children.push_back(
                SortedChild{std::string(name), nullptr, false, io_error(errno, path)});
          } else {
            report(io_error(errno, path));
          }
        }
        continue;
      }
      type = S_ISDIR(st.st_mode)   ? DT_DIR
             : S_ISREG(st.st_mode) ? DT_REG
             : S_ISLNK(st.st_mode) ? DT_LNK
                                   : DT_UNKNOWN;
    }
    // Symlinks (without -L), FIFOs and devices are listed under report_all only.
    if (type != DT_DIR && type != DT_REG && !options_.report_all) continue;
    const bool is_dir = is_dir_type(type);
    if (options_.report_all && !is_dir &&
        !sink_.wants(WalkEntry{path, child_depth, entry_type(type)})) {
      continue;
    }
    if (skip_entry(path, name, is_dir, node.get(), *task.root, scratch)) {
      if (options_.report_all) sink_.on_ignored(WalkEntry{path, child_depth, entry_type(type)});
      continue;
    }
    if (options_.report_all && type != DT_REG) {
      const Flow flow = sink_.on_file(WalkEntry{path, child_depth, entry_type(type)});
      if (flow == Flow::kStop) {
        stop_.store(true, std::memory_order_relaxed);
        return;
      }
      if (!is_dir || flow == Flow::kSkip) continue;
    }
    if (is_dir) {
      if (!descend) continue;
      DirTask child;
      child.path = path;
      child.depth = child_depth;
      child.node = node;
      child.root = task.root;
      child.ancestors = ancestors;
      child.via_symlink = e.type == DT_LNK;
      if (task.out != nullptr) {
        task.out->children.push_back(
            SortedChild{std::string(name), std::make_unique<SortedDir>(), false, std::nullopt});
        child.out = task.out->children.back().dir.get();
      }
      // Inline, each open directory holds an fd: past kMaxInlineDepth the rest waits in
      // `children` (walked after, out of walkdir's order) rather than run out of fds.
      if (inline_ && child_depth < kMaxInlineDepth) {
        process(child, children);
        if (stop_.load(std::memory_order_relaxed)) return;
        continue;
      }
      children.push_back(std::move(child));
      continue;
    }
    if (options_.max_filesize) {
      struct stat st {};
      if (::fstatat(fd, std::string(name).c_str(), &st, beneath() ? AT_SYMLINK_NOFOLLOW : 0) != 0) {
        continue;
      }
      if (static_cast<std::uint64_t>(st.st_size) > *options_.max_filesize) continue;
    }
    if (file_system == Probe::kNotYet) {
      file_system = short_reads_end_files(fd) ? Probe::kShortReadIsEnd : Probe::kUnknown;
    }
    // (Not for a symlink followed under -L: its target may lie anywhere.)
    const bool short_read_is_end =
        file_system == Probe::kShortReadIsEnd && (e.type == DT_REG || e.type == DT_UNKNOWN);
    if (task.out != nullptr) {
      task.out->children.push_back(
          SortedChild{std::string(name), nullptr, short_read_is_end, std::nullopt});
    } else {
      emit(path, child_depth, fd, std::string_view(path).substr(base),  // NUL-terminated
           short_read_is_end);
      if (stop_.load(std::memory_order_relaxed)) return;
    }
  }
  // Sorted by path, a directory's children replay by name. In walk order (or sorted by a time,
  // or by path reversed, where all files are sorted at the end) they keep the order the
  // directory listed them in: ripgrep walks unsorted then (one thread, depth first, each
  // directory in readdir order), so its messages come in that order, and its stable sort by time
  // leaves ties (files checked out in the same clock tick) in that order.
  if (task.out != nullptr && options_.sort == SortBy::kPath && !options_.sort_reverse) {
    // The children vector is complete before any child task runs, so child.out stays valid.
    auto by_name = [](const SortedChild& a, const SortedChild& b) { return a.name < b.name; };
    std::sort(task.out->children.begin(), task.out->children.end(), by_name);
  }
}

void Walker::replay(const SortedDir& dir, std::string& path, std::size_t depth,
                    std::vector<std::pair<std::string, std::size_t>>& collect) {
  const std::size_t base = path.size();
  for (const SortedChild& child : dir.children) {
    path.resize(base);
    path.append(child.name);
    if (child.dir) {
      path.push_back('/');
      replay(*child.dir, path, depth + 1, collect);
    } else {
      collect.emplace_back(path, depth + 1);
    }
  }
  path.resize(base);
}

void Walker::walk_in_order(DirTask& task, std::vector<DirTask>& children, std::string& path,
                           std::vector<std::pair<std::string, std::size_t>>* collect) {
  for (std::size_t i = 0; i < children.size(); ++i) children[i].out->task = i;
  // Under list_ahead the subdirectories are listed ahead, in parallel; what their listings meet
  // waits for their turn, so reports keep their place in the order.
  std::vector<std::vector<DirTask>> grandchildren(children.size());
  const bool ahead = options_.list_ahead && children.size() > 1 && threads_ > 1;
  if (ahead) {
    tbb::parallel_for(std::size_t{0}, children.size(), [&](std::size_t i) {
      std::vector<DeferredReport>* outer = t_deferred;
      t_deferred = &children[i].out->reports;
      process(children[i], grandchildren[i]);
      t_deferred = outer;
    });
  }
  const std::size_t base = path.size();
  for (SortedChild& child : task.out->children) {
    if (stop_.load(std::memory_order_relaxed)) break;
    path.resize(base);
    path.append(child.name);
    if (child.error) {
      report(*child.error);
    } else if (child.dir) {
      path.push_back('/');
      const std::size_t i = child.dir->task;
      for (const DeferredReport& r : child.dir->reports) {
        r.ignore_file ? report_ignore_file(r.error) : report(r.error);
      }
      if (!ahead) process(children[i], grandchildren[i]);
      walk_in_order(children[i], grandchildren[i], path, collect);
      child.dir.reset();  // its listing is done with
      std::vector<DirTask>().swap(grandchildren[i]);
    } else if (collect != nullptr) {
      collect->emplace_back(path, task.depth + 1);
    } else {
      emit(path, task.depth + 1, -1, {}, child.short_read_is_end);
    }
  }
  path.resize(base);
}

void Walker::replay_by_time(std::vector<std::pair<std::string, std::size_t>>& files) {
  // As ripgrep: every file is stat'ed and the whole list sorted by the chosen time (stable, so
  // ties keep the walk's order, see process()); files whose time cannot be read sort last (first
  // under --sortr).
  std::vector<std::optional<detail::FileTime>> times;
  times.reserve(files.size());
  for (const auto& [path, depth] : files) {
    times.push_back(detail::read_file_time(beneath() ? options_.beneath_fd : AT_FDCWD, path.c_str(),
                                           beneath(), options_.sort));
  }
  for (std::size_t i : detail::order_by_time(times, options_.sort_reverse)) {
    if (stop_.load(std::memory_order_relaxed)) return;
    emit(files[i].first, files[i].second);
  }
}

Status Walker::start_beneath() {
  if (options_.follow_links) {
    return Error{ErrorCode::kInvalidArgument,
                 "a walk confined with beneath_fd cannot follow symlinks (follow_links)"};
  }
  struct stat st {};
  if (::fstat(options_.beneath_fd, &st) != 0) return Error::from_errno(errno, "beneath_fd");
  if (!S_ISDIR(st.st_mode)) {
    return Error{ErrorCode::kInvalidArgument, "beneath_fd is not a directory"};
  }
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", options_.beneath_fd);
  char buf[PATH_MAX];
  ssize_t n = ::readlink(link, buf, sizeof buf);
  if (n > 0 && static_cast<std::size_t>(n) < sizeof buf && buf[0] == '/') {
    beneath_abs_.assign(buf, static_cast<std::size_t>(n));
    if (beneath_abs_ == "/") beneath_abs_.clear();
    beneath_abs_known_ = true;
  }
  return {};
}

void Walker::walk_sorted_by_path(const std::vector<RootItem>& items, std::vector<DirTask>& tasks) {
  // Reversed, ripgrep 14 collects every file it found and sorts them all by their path's
  // components (stable: the same file named by two roots keeps the roots' order), so roots
  // are sorted too; the same here.
  std::vector<std::pair<std::string, std::size_t>> all;
  auto* collect = options_.sort_reverse ? &all : nullptr;
  for (const RootItem& item : items) {
    if (stop_.load(std::memory_order_relaxed)) break;
    if (item.error) {
      report(*item.error);
      continue;
    }
    if (!item.is_dir) {
      if (collect != nullptr) {
        collect->emplace_back(item.path, 0);
      } else {
        emit(item.path, 0);
      }
      continue;
    }
    std::string path = item.path;
    if (!path.empty() && path.back() != '/') path.push_back('/');
    std::vector<DirTask> children;
    process(tasks[item.task], children);
    walk_in_order(tasks[item.task], children, path, collect);
  }
  if (collect == nullptr) return;
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return path_less(b.first, a.first); });
  for (const auto& [file, depth] : all) {
    if (stop_.load(std::memory_order_relaxed)) break;
    emit(file, depth);
  }
}

Status Walker::run() {
  if (options_.report_all && sorted()) {
    return Error{ErrorCode::kInvalidArgument, "report_all walks cannot be sorted"};
  }
  if (beneath()) {
    CTX_TRY(start_beneath());  // paths are fd-relative: no cwd to strip
  } else if (char buf[PATH_MAX]; ::getcwd(buf, sizeof buf) != nullptr) {
    cwd_ = buf;
  }
  if (!options_.ignore_files.empty() && options_.git_ignore + 1 > 0) {
    explicit_rules_ = IgnoreRules(IgnoreRules::Options{options_.ignore_case_insensitive});
    for (const std::string& file : options_.ignore_files) {
      auto text = read_small_file(AT_FDCWD, file.c_str(), kMaxIgnoreFileBytes);
      if (!text.ok()) {
        struct stat st {};
        // A directory opens but fails at its first read: ripgrep names the line.
        const bool dir = ::stat(file.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
        sink_.on_ignore_error(dir ? Error::from_errno(EISDIR, fmt::format("{}: line 1", file))
                                  : text.error());
        continue;
      }
      std::string_view body = *text;
      if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);
      for_each_line(body, [&](std::string_view line) { explicit_rules_.add_line(line); });
    }
  }

  inline_ = options_.walk_order && !sorted() && !options_.report_all &&
            (options_.threads == 1 || (options_.threads == 0 && cores() <= 1));
  std::vector<std::string> paths = options_.paths;
  const bool implicit = paths.empty();
  if (implicit) paths.emplace_back();

  // Roots in command-line order; directories become tasks, files are emitted (or recorded) as is.
  std::vector<RootItem> items;
  std::vector<DirTask> tasks;
  // A walk in order on one thread (by path, or inline) reports a root it cannot walk when it gets
  // there, as ripgrep's one-thread walk (which a -q search that matched before never reaches);
  // the others report it at once.
  const bool in_turn = inline_ || options_.sort == SortBy::kPath;
  auto root_error = [&](const Error& error, const std::string& p) {
    if (in_turn) {
      items.push_back(RootItem{false, p, nullptr, 0, error});
    } else {
      report(error);
    }
  };
  for (const std::string& p : paths) {
    const char* stat_path = p.empty() ? "." : p.c_str();
    struct stat st {};
    if (beneath()) {
      int fd = detail::open_beneath(options_.beneath_fd, p, O_PATH);
      if (fd < 0) {
        root_error(beneath_error(errno, p), p);
        continue;
      }
      const int got = ::fstat(fd, &st);
      const int err = errno;
      ::close(fd);
      if (got != 0) {
        root_error(Error::from_errno(err, p), p);
        continue;
      }
    } else if (p.empty() && !implicit) {  // as ripgrep: an empty path names nothing
      root_error(io_error(ENOENT, p), p);
      continue;
    } else if (::stat(stat_path, &st) != 0) {
      root_error(io_error(errno, p), p);
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      items.push_back(RootItem{false, p, nullptr, 0, std::nullopt});
      continue;
    }
    auto root = std::make_unique<Root>();
    root->display = p;
    root->strip = p.empty() || p.back() == '/' ? p.size() : p.size() + 1;
    root->dev = st.st_dev;
    DirTask task;
    task.path = p;
    task.root = root.get();
    if (beneath()) {
      // The root's absolute path as the fd's path plus `p` (symlink-free: it opened above).
      std::string abs = beneath_abs_known_ ? beneath_abs_ : std::string();
      const std::size_t inside_len = abs.size();
      std::string_view rest = p;
      while (!rest.empty()) {
        std::size_t slash = rest.find('/');
        std::string_view part = rest.substr(0, slash);
        if (!part.empty() && part != ".") abs.append("/").append(part);
        if (slash == std::string_view::npos) break;
        rest.remove_prefix(slash + 1);
      }
      if (abs.empty()) abs = "/";
      task.node = parent_chain(abs, inside_len);
    } else if (char resolved[PATH_MAX]; ::realpath(stat_path, resolved) != nullptr) {
      task.node = parent_chain(resolved);
    }
    roots_.push_back(std::move(root));
    items.push_back(RootItem{true, p, sorted() ? std::make_unique<SortedDir>() : nullptr,
                             tasks.size(), std::nullopt});
    task.out = items.back().tree.get();
    tasks.push_back(std::move(task));
  }

  // Sorted by path, the walk is one depth-first pass in order, as ripgrep's sorted walk: each file
  // reaches the sink as soon as every path before it has (a consumer searches while the walk goes
  // on), and memory holds the listings of the directories on the current path only, not the tree
  // (311,560 files: 73 MB peak RSS when the whole tree was recorded first).
  threads_ = options_.threads != 0 ? options_.threads : cores();
  if (options_.sort == SortBy::kPath) {
    // (The arena's other threads list directories ahead: walk_in_order.)
    tbb::global_control allow(tbb::global_control::max_allowed_parallelism, threads_);
    arena_for(threads_).execute([&] { walk_sorted_by_path(items, tasks); });
    return {};
  }

  // Unsorted, many files named among the roots go to the sink on all threads (as rg's parallel
  // walker takes every root path as a unit of work), so `ctxsearch PATTERN $(git ls-files)` is not
  // searched on one thread; a few go in the order given, as grep and rg in practice print them.
  std::vector<std::string_view> root_files;
  if (!sorted()) {
    for (const RootItem& item : items) {
      if (!item.is_dir && !item.error) root_files.push_back(item.path);
    }
  }
  const unsigned threads = threads_;
  std::vector<DirTask> deep;  // inline walks: directories too deep to enter at once
  if (inline_) {
    // As ripgrep's one-thread walk: roots in command-line order, each directory depth first.
    std::size_t next_task = 0;
    for (const RootItem& item : items) {
      if (stop_.load(std::memory_order_relaxed)) break;
      if (item.error) {
        report(*item.error);
      } else if (!item.is_dir) {
        emit(item.path, 0);
      } else {
        process(tasks[next_task++], deep);
      }
    }
    if (deep.empty() || stop_.load(std::memory_order_relaxed)) return {};
    tasks = std::move(deep);
    root_files.clear();
  }
  // One named file and nothing to walk: searched here, without starting TBB's threads (its
  // start-up, which looks for its helper libraries, was a third of `ctxsearch PATTERN FILE`'s
  // 3 ms on a small file).
  if (tasks.empty() && root_files.size() <= 1 && !sorted()) {
    for (std::string_view file : root_files) emit(file, 0);
    return {};
  }
  // TBB caps workers at the core count (and warns on stderr past it); -j asks for exactly N.
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, threads);
  arena_for(threads).execute([&] {
    if (root_files.size() < kParallelRootFiles) {
      for (std::string_view file : root_files) emit(file, 0);
    } else {
      tbb::parallel_for(std::size_t{0}, root_files.size(), [&](std::size_t i) {
        if (!stop_.load(std::memory_order_relaxed)) emit(root_files[i], 0);
      });
    }
    tbb::parallel_for_each(tasks.begin(), tasks.end(),
                           [this](DirTask& item, tbb::feeder<DirTask>& feeder) {
                             // Moved out so that its heap parts die before this body returns.
                             // oneTBB (2021.8) releases the wait of parallel_for_each before it
                             // destroys a fed item: a walk could return, and the process exit,
                             // while a worker still held a path string in TBB's task memory,
                             // which LeakSanitizer does not scan (an intermittent 31-byte "leak").
                             DirTask task = std::move(item);
                             std::vector<DirTask> children;
                             process(task, children);
                             // Reverse so the feeder's LIFO order visits the first child first.
                             for (auto it = children.rbegin(); it != children.rend(); ++it) {
                               feeder.add(std::move(*it));
                             }
                           });
  });
  if (!sorted()) return {};

  // Sorted by a time (by path returned above): as ripgrep, the whole list is sorted at the end.
  std::vector<std::pair<std::string, std::size_t>> by_time;
  for (const RootItem& item : items) {
    if (!item.is_dir) {
      by_time.emplace_back(item.path, 0);
      continue;
    }
    std::string path = item.path;
    if (!path.empty() && path.back() != '/') path.push_back('/');
    replay(*item.tree, path, 0, by_time);
  }
  replay_by_time(by_time);
  return {};
}

}  // namespace

unsigned cores() {
  // Read once per process: glibc reads /sys/devices/system/cpu/online on every call (three
  // system calls per walk otherwise).
  static const unsigned count = std::max(1U, std::thread::hardware_concurrency());
  return count;
}

bool on_local_file_system(int fd) {
  struct statfs fs {};
  if (::fstatfs(fd, &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:  // also ext2 and ext3
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
    case TMPFS_MAGIC:
    case RAMFS_MAGIC:
    case OVERLAYFS_SUPER_MAGIC:
      return true;
    default:
      return false;
  }
}

Status walk(const WalkOptions& options, WalkSink& sink) {
  Walker walker(options, sink);
  return walker.run();
}

}  // namespace ctx::walker
