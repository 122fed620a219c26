#include "tool_walk.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "ctx/walker/per_thread.hpp"
#include "session.hpp"
#include "tool_common.hpp"

namespace ctx::agent {

namespace {

// Makes `stamp` depend on the repository's info/exclude that a walk reads in the directory open
// as `dir_fd` when it holds a `.git` directory: `.git`'s watch sees info/ made or removed,
// info/'s sees exclude written. A `.git` file (a worktree, a submodule) names a git directory
// elsewhere, and an exclude file that is a symlink has its content elsewhere: not followed, the
// stamp is spoiled instead. Absent, `.git` needs nothing more: the watch of its directory (whole,
// or for its name) sees it made.
void watch_git_exclude(DirWatch& watch, WatchStamp& stamp, int dir_fd) {
  struct stat st {};
  if (::fstatat(dir_fd, ".git", &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) stamp.spoil();
    return;
  }
  UniqueFd git(S_ISDIR(st.st_mode)
                   ? ::openat(dir_fd, ".git", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                   : -1);
  if (!git) {
    stamp.spoil();
    return;
  }
  static constexpr std::string_view kInfo[] = {"info"};
  watch.watch_names(stamp, git.get(), kInfo);
  UniqueFd info(::openat(git.get(), "info", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!info) {
    if (errno != ENOENT) stamp.spoil();
    return;
  }
  static constexpr std::string_view kExclude[] = {"exclude"};
  watch.watch_names(stamp, info.get(), kExclude);
  if (::fstatat(info.get(), "exclude", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
    stamp.spoil();
  }
}

class VisibleSink final : public walker::WalkSink {
 public:
  static constexpr std::size_t kClockEvery = 16;

  VisibleSink(const CallContext& context,
              const std::function<bool(std::string_view, walker::EntryType)>& keep, DirWatch* watch,
              WatchStamp* stamp, bool record_skipped)
      : context_(context),
        keep_(keep),
        watch_(watch),
        stamp_(stamp),
        record_skipped_(record_skipped) {}

  void on_directory(int dir_fd, std::string_view /*path*/) override {
    if (stamp_ == nullptr) return;
    watch_->watch_directory(*stamp_, dir_fd);
    watch_git_exclude(*watch_, *stamp_, dir_fd);
  }

  walker::Flow on_file(const walker::WalkEntry& entry) override {
    if (stopped_.load(std::memory_order_relaxed) != nullptr) return walker::Flow::kStop;
    const std::size_t visited = visited_.fetch_add(1, std::memory_order_relaxed);
    // The clock is read at every kClockEvery-th entry (the first included), not at each: an
    // entry takes about a microsecond, so the deadline and a cancellation are still seen within
    // tens of microseconds, and the reading was a twentieth of a listing's own CPU time.
    if (visited % kClockEvery == 0 && context_.expired()) {
      return stop(expiry_reason(context_) == kReasonCancelled ? &kReasonCancelled
                                                              : &kReasonDeadline);
    }
    if (visited >= context_.config.limits.max_visited) return stop(&kReasonVisitCap);
    const bool is_dir = entry.type == walker::EntryType::kDirectory;
    // Hidden directories are never entered, so every entry's parent is visible.
    if (!context_.policy.visible_entry(entry.path, is_dir)) {
      hidden_.fetch_add(1, std::memory_order_relaxed);
      if (record_skipped_) add(entry, Kept::kHidden);
      return walker::Flow::kSkip;  // a hidden directory is never entered
    }
    if (!is_dir || keep_(entry.path, entry.type)) {  // `wants` kept the others already
      add(entry, Kept::kVisible);
    }
    return walker::Flow::kContinue;
  }

  // A non-directory `keep` refuses is dropped before the ignore rules and the policy: whatever
  // they would say, it is neither listed nor counted (find_files matches its glob first).
  bool wants(const walker::WalkEntry& entry) override {
    if (stopped_.load(std::memory_order_relaxed) != nullptr) return false;
    return keep_(entry.path, entry.type);
  }

  void on_ignored(const walker::WalkEntry& entry) override {
    const bool is_dir = entry.type == walker::EntryType::kDirectory;
    if (!context_.policy.visible_entry(entry.path, is_dir)) return;  // hidden: not counted
    ignored_.fetch_add(1, std::memory_order_relaxed);  // a directory, or what `wants` kept
    if (record_skipped_) add(entry, Kept::kIgnored);
  }

  void on_error(const Error& /*error*/) override {
    // The walk enters only visible directories, so an error names nothing hidden; its text is
    // still not passed on (it may hold absolute paths of the machine).
    unreadable_.fetch_add(1, std::memory_order_relaxed);
  }

  VisibleWalk take() {
    VisibleWalk out;
    // The threads' arenas, one after the other, into one (views into it stay valid: it is sized
    // once and moved, never grown, from here on).
    std::size_t bytes = 0;
    std::size_t count = 0;
    locals_.for_each([&](const Local& local) {
      bytes += local.arena.size();
      count += local.kept.size();
    });
    out.arena.reserve(bytes);
    out.entries.reserve(count);
    locals_.for_each([&](const Local& local) {
      const char* base = out.arena.data() + out.arena.size();
      out.arena.insert(out.arena.end(), local.arena.begin(), local.arena.end());
      for (const Kept& k : local.kept) {
        const std::string_view path(base + k.offset, k.size);
        switch (k.state) {
          case Kept::kVisible:
            out.entries.push_back(WalkedEntry{path, k.type, out.entries.size()});
            break;
          case Kept::kIgnored:
            out.ignored_entries.push_back(WalkedEntry{path, k.type, 0});
            break;
          case Kept::kHidden:
            out.hidden_entries.push_back(WalkedEntry{path, k.type, 0});
            break;
          default:
            break;
        }
      }
    });
    out.ignored = ignored_.load();
    out.policy_hidden = hidden_.load();
    out.unreadable = unreadable_.load();
    if (const std::string_view* why = stopped_.load()) out.stopped = *why;
    return out;
  }

 private:
  void add(const walker::WalkEntry& entry, std::uint8_t state) {
    // Into the thread's arena, not a string each (an allocation and a free per entry), and
    // without a lock (two threads adding every file of a tree waited on one).
    Local& local = locals_.local();
    local.kept.push_back(Kept{local.arena.size(), entry.path.size(), entry.type, state});
    local.arena.insert(local.arena.end(), entry.path.begin(), entry.path.end());
    local.arena.push_back('\0');
  }

  walker::Flow stop(const std::string_view* why) {
    const std::string_view* expected = nullptr;
    stopped_.compare_exchange_strong(expected, why);
    return walker::Flow::kStop;
  }

  const CallContext& context_;
  const std::function<bool(std::string_view, walker::EntryType)>& keep_;
  DirWatch* watch_;
  WatchStamp* stamp_;  // null: nothing is watched
  bool record_skipped_;
  struct Kept {
    enum : std::uint8_t { kVisible, kIgnored, kHidden };
    std::size_t offset;  // in its thread's arena
    std::size_t size;
    walker::EntryType type;
    std::uint8_t state;
  };
  struct Local {
    std::vector<char> arena;  // the kept paths, each followed by a NUL byte
    std::vector<Kept> kept;
  };
  walker::PerThread<Local> locals_;
  std::atomic<std::size_t> visited_{0};
  std::atomic<std::size_t> ignored_{0};
  std::atomic<std::size_t> hidden_{0};
  std::atomic<std::size_t> unreadable_{0};
  std::atomic<const std::string_view*> stopped_{nullptr};
};

}  // namespace

bool compare_paths(std::string_view a, std::string_view b) {
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t i = 0;
  // Skip the common prefix 8 bytes at a time (siblings share their directory's path).
  for (; i + 8 <= n; i += 8) {
    std::uint64_t wa;
    std::uint64_t wb;
    std::memcpy(&wa, a.data() + i, 8);
    std::memcpy(&wb, b.data() + i, 8);
    if (wa != wb) break;
  }
  for (; i < n; ++i) {
    if (a[i] == b[i]) continue;
    if (a[i] == '/') return true;
    if (b[i] == '/') return false;
    return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  }
  return a.size() < b.size();
}

std::uint64_t path_order_key(std::string_view path, std::size_t from) {
  std::uint64_t key = 0;
  for (std::size_t k = 0; k < 8; ++k) {
    unsigned b = 0;  // past the end: below every byte but '/', which ties with it
    if (from + k < path.size()) {
      b = static_cast<unsigned char>(path[from + k]);
      b = b == '/' ? 0 : b < '/' ? b + 1 : b;
    }
    key = key << 8 | b;
  }
  return key;
}

Expected<VisibleWalk> walk_visible(
    const CallContext& context, const std::string& start, std::optional<std::size_t> max_depth,
    bool include_ignored,
    const std::function<bool(std::string_view path, walker::EntryType type)>& keep,
    WatchStamp* stamp, bool record_skipped) {
  DirWatch* watch = nullptr;
  if (stamp != nullptr && context.session != nullptr) {
    watch = &context.session->impl().watch;
    watch_walk_inputs(context, start, *stamp);
  } else if (stamp != nullptr) {
    stamp->spoil();
    stamp = nullptr;
  }
  walker::WalkOptions options;
  options.paths = {start};
  options.beneath_fd = context.sandbox.root_fd();
  options.hidden = true;
  if (context.session != nullptr)
    options.ignore_cache =
        &context.session->impl()
             .ignores;  // dotfiles are listed; the policy hides secrets, the walker .git
  options.follow_links = false;
  options.report_all = true;
  options.max_depth = max_depth;
  if (include_ignored) {
    options.git_ignore = false;
    options.git_exclude = false;
    options.git_global = false;
    options.dot_ignore = false;
  }
  VisibleSink sink(context, keep, watch, stamp, record_skipped);
  Status status = walker::walk(options, sink);
  if (!status.ok()) {
    return ToolError{ToolErrorCode::kIoError,
                     "the directory walk could not start: " + status.error().detail,
                     "retry; if it persists, list a subdirectory"};
  }
  VisibleWalk out = sink.take();
  // Sorted through (order key, index) pairs, which swap and compare cheaply, then moved into
  // place once (paths are distinct, so the order is the same as sorting the entries themselves).
  // Every path starts with `start` and a '/', so the keys hold the bytes after that.
  std::size_t from = start.empty() ? 0 : start.size() + 1;
  for (const WalkedEntry& e : out.entries) {
    if (e.path.size() < from || e.path.compare(0, start.size(), start) != 0 ||
        (from > 0 && e.path[from - 1] != '/')) {
      from = 0;
      break;
    }
  }
  struct Key {
    std::uint64_t order;
    std::size_t index;
  };
  std::vector<Key> keys;
  keys.reserve(out.entries.size());
  for (std::size_t i = 0; i < out.entries.size(); ++i) {
    keys.push_back(Key{path_order_key(out.entries[i].path, from), i});
  }
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    if (a.order != b.order) return a.order < b.order;
    return compare_paths(out.entries[a.index].path, out.entries[b.index].path);
  });
  std::vector<WalkedEntry> sorted;
  sorted.reserve(out.entries.size());
  for (const Key& key : keys) sorted.push_back(out.entries[key.index]);
  out.entries = std::move(sorted);
  return out;
}

void watch_walk_inputs(const CallContext& context, const std::string& start, WatchStamp& stamp) {
  if (context.session == nullptr) {
    stamp.spoil();
    return;
  }
  SessionState::Impl& session = context.session->impl();
  // Above the root, its path now (as the walker reads the root's parents: the root may have been
  // moved since the server started); below it, `start` opened beneath the root's fd.
  char link[32];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", context.sandbox.root_fd());
  char root_path[PATH_MAX];
  const ssize_t n = ::readlink(link, root_path, sizeof root_path);
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof root_path || root_path[0] != '/') {
    stamp.spoil();
    return;
  }
  auto split = [](std::string_view path) {
    std::vector<std::string> names;
    while (!path.empty()) {
      const std::size_t slash = path.find('/');
      if (const std::string_view name = path.substr(0, slash); !name.empty()) {
        names.emplace_back(name);
      }
      if (slash == std::string_view::npos) break;
      path.remove_prefix(slash + 1);
    }
    return names;
  };
  const std::vector<std::string> above =
      split(std::string_view(root_path, static_cast<std::size_t>(n)));
  const std::vector<std::string> below = split(start);
  std::array<std::string_view, walker::kRuleNames.size() + 1> names{};
  std::copy(walker::kRuleNames.begin(), walker::kRuleNames.end(), names.begin());
  // In each directory on the way: the rule names and the next name; then into the next one.
  auto step = [&](const UniqueFd& dir, const std::string& next) {
    names.back() = next;
    session.watch.watch_names(stamp, dir.get(), names);
    watch_git_exclude(session.watch, stamp, dir.get());
  };
  UniqueFd dir(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  for (std::size_t i = 0; i < above.size() && dir; ++i) {
    step(dir, above[i]);
    dir =
        i + 1 < above.size()
            ? UniqueFd(::openat(dir.get(), above[i].c_str(),
                                O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC))
            : UniqueFd(::openat(context.sandbox.root_fd(), ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  }
  // No symlink lies below: `start` is canonical.
  for (std::size_t i = 0; i < below.size() && dir; ++i) {
    step(dir, below[i]);
    dir = UniqueFd(
        ::openat(dir.get(), below[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  }
  if (!dir) {
    stamp.spoil();
    return;
  }
  if (auto inputs = session.ignores.global_excludes_inputs()) {
    for (const std::string& input : *inputs) session.watch.watch_path(stamp, input);
  } else {
    stamp.spoil();
  }
}

std::optional<struct stat> stat_beneath(const CallContext& context, const std::string& path) {
  return stat_beneath(context, std::string_view(path));  // c_str(): a NUL follows its bytes
}

std::optional<struct stat> stat_beneath(const CallContext& context, std::string_view path) {
  struct open_how how {};
  how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  // `path` is NUL-terminated (the contract), so its data is a C string.
  long fd = ::syscall(SYS_openat2, context.sandbox.root_fd(), path.data(), &how, sizeof how);
  if (fd < 0 && errno == ENOSYS) {
    // No openat2: the sandbox's own walk (it follows in-root symlinks; callers stat files only).
    auto opened = context.sandbox.open_beneath(path);
    if (!opened.ok()) return std::nullopt;
    return opened->st;
  }
  if (fd < 0) return std::nullopt;
  struct stat st {};
  const int rc = ::fstat(static_cast<int>(fd), &st);
  ::close(static_cast<int>(fd));
  if (rc != 0) return std::nullopt;
  return st;
}

RenderedPage render_page(const CallContext& context, std::size_t max_tokens, std::size_t reserve,
                         std::string_view header, std::uint64_t offset, std::size_t count,
                         std::size_t total, std::string_view stopped, const CursorKey& key,
                         const std::function<void(std::size_t i, std::string& out)>& line,
                         const PageWords& words) {
  const bool total_exact = stopped.empty();
  RenderedPage page;
  std::size_t cap = count;
  bool shrunk = false;
  std::string text;  // one line at a time
  for (;;) {
    TextBudget budget(context, max_tokens, reserve);
    if (!header.empty()) budget.append(header);
    page.shown = 0;
    page.reason = shrunk ? kReasonBudget : std::string_view();
    for (std::size_t i = 0; i < cap; ++i) {
      text.clear();
      line(i, text);
      if (!budget.append(text)) {
        page.reason = budget.byte_capped() ? kReasonOutputCap : kReasonBudget;
        break;
      }
      ++page.shown;
    }
    const std::uint64_t next = offset + page.shown;
    page.more = next < total;
    if (page.more && page.reason.empty()) page.reason = kReasonMaxResults;
    if (!page.more && !total_exact) page.reason = stopped;
    page.truncated = page.more || !total_exact;
    page.next_cursor = page.more ? encode_cursor(key, next) : std::string();

    std::string footer = "(";
    if (total == 0) {
      footer += words.empty;
    } else if (page.shown == 0) {
      footer += fmt::format("no {} shown of {}", words.noun, grouped(total));
    } else {
      footer += fmt::format("{} {}–{} of {}{}", words.noun, grouped(offset + 1), grouped(next),
                            total_exact ? "" : "at least ", grouped(total));
    }
    if (page.reason == kReasonBudget) footer += fmt::format("; cut at max_tokens={}", max_tokens);
    if (!total_exact) {
      footer += fmt::format("; the walk stopped early ({}): narrow {}", stopped, words.narrow);
    }
    footer += words.notes;
    if (page.more) footer += words.more_notes;
    if (page.more) footer += fmt::format("; {} for more", words.next_call(page.next_cursor));
    footer += ")";
    page.text = budget.finish(footer);
    page.tokens = budget.tokens();
    if (!budget.trimmed() || page.shown == 0) break;
    cap = page.shown - std::max<std::size_t>(1, page.shown / 4);
    shrunk = true;
  }
  return page;
}

void write_page_fields(JsonWriter& w, const RenderedPage& page) {
  w.field("truncated", page.truncated).key("truncated_reason");
  page.truncated ? w.string(page.reason) : w.null();
  w.key("next_cursor");
  page.more ? w.string(page.next_cursor) : w.null();
}

}  // namespace ctx::agent
