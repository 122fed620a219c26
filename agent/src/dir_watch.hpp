// Whether what a result was made from is still as it was, told by inotify instead of by reading
// it again: a long-lived server keeps a listing while none of the directories it came from, and
// none of the ignore files that shaped it, changed.
//
// A result's `WatchStamp` names what it depends on: whole directories (any entry created,
// removed, renamed, written, truncated or given other attributes, and the directory itself moved
// or removed) and single names in a directory (that entry only, and the directory itself). The
// watches are added before the inputs are read, so a change made while they are read is seen
// too; inotify queues an event in the system call that makes the change, so once a change's
// call has returned, the next `unchanged` sees it.
//
// Not everything is seen, so the stamp refuses where it would be blind:
// - file systems where changes can come from elsewhere (network, FUSE) or where inotify is not
//   known to see them all: only local disk and memory file systems are watched;
// - a file changed through another hard link or a bind mount of it elsewhere (its directory here
//   is not told): the caller spoils the stamp for such files (see spoil());
// - writes through a shared mapping (no event; they change neither size nor kind);
// - more watches than kMaxWatches or the user's inotify limit: the stamp is spoiled, and the next
//   begin() past kMaxWatches drops every watch, so every stamp goes stale.
// A lost event (the queue overflowed) makes every stamp stale, and so does any mount or unmount
// (inotify does not see a file system mounted over a watched directory). Thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ctx/agent/sandbox.hpp"

namespace ctx::agent {

// What of a watched directory a result shows: everything, file sizes included (a listing), or its
// entries only (their names and kinds, which ignore files hold and what they say: a find), which
// a file written in place does not change.
enum class Shows : std::uint8_t { kEverything, kEntries };

class WatchStamp {
 public:
  WatchStamp() = default;
  WatchStamp(const WatchStamp& other) { *this = other; }
  WatchStamp(WatchStamp&& other) noexcept { *this = std::move(other); }
  WatchStamp& operator=(const WatchStamp& other) {
    if (this == &other) return *this;
    epoch_ = other.epoch_;
    usable_.store(other.usable_.load());
    shows_ = other.shows_;
    dependencies_ = other.dependencies_;
    return *this;
  }
  WatchStamp& operator=(WatchStamp&& other) noexcept {
    epoch_ = other.epoch_;
    usable_.store(other.usable_.load());
    shows_ = other.shows_;
    dependencies_ = std::move(other.dependencies_);
    return *this;
  }
  ~WatchStamp() = default;

  // False once something it depends on could not be watched: the result must not be kept.
  bool usable() const { return usable_.load(std::memory_order_relaxed); }
  // May be called while a walk's threads add watches to the stamp.
  void spoil() { usable_.store(false, std::memory_order_relaxed); }

 private:
  friend class DirWatch;
  struct Dependency {
    int wd;
    int slot;  // kWhole, kEntries, or an index in the watch's names
    std::uint64_t generation;
  };
  static constexpr int kWhole = -1;
  static constexpr int kEntries = -2;
  std::uint64_t epoch_ = 0;
  std::atomic<bool> usable_{true};
  Shows shows_ = Shows::kEverything;
  std::vector<Dependency> dependencies_;  // guarded by the DirWatch's mutex while it is built
};

// A result kept with the stamp that tells whether what it was made from changed since.
template <class T>
struct Watched {
  T value;
  WatchStamp stamp;
};

class DirWatch {
 public:
  // Each watch pins its directory's inode in the kernel (about 1 KiB of kernel memory, which the
  // user's fs.inotify.max_user_watches budgets): 32 MiB at most.
  static constexpr std::size_t kMaxWatches = 32768;

  DirWatch();
  DirWatch(const DirWatch&) = delete;
  DirWatch& operator=(const DirWatch&) = delete;

  // False when inotify is not available (every stamp is then spoiled).
  bool enabled() const {
    std::lock_guard lock(mutex_);
    return watching();
  }

  // A new stamp, before any of its inputs is read (events already queued are taken in first),
  // for a result that shows `shows` of the directories it watches whole.
  WatchStamp begin(Shows shows = Shows::kEverything);
  // `stamp` also depends on every change in the directory open as `dir_fd` (any fd: O_PATH too),
  // but for a stamp that shows kEntries, on a file written in place (IN_MODIFY, IN_CLOSE_WRITE)
  // only when it is an ignore file (walker::kRuleNames).
  void watch_directory(WatchStamp& stamp, int dir_fd);
  // `stamp` also depends on the entries `names` of the directory open as `dir_fd` (created,
  // removed, renamed, written, given other attributes) and on the directory itself.
  void watch_names(WatchStamp& stamp, int dir_fd, std::span<const std::string_view> names);
  // `stamp` also depends on the file at the absolute `path`, present or not: its directory is
  // watched for its name; when that directory is missing, the nearest existing ancestor is
  // watched for the name on the way down. Spoils the stamp when `path` or a directory on its way
  // is a symlink (the watch would not see the target change).
  void watch_path(WatchStamp& stamp, const std::string& path);

  // True when `stamp` is usable and nothing it depends on changed since it was watched.
  bool unchanged(const WatchStamp& stamp);

  // For tests and the audit: watches held, and events read.
  std::size_t watches() const;
  std::uint64_t events() const;

 private:
  struct Watch {
    std::uint64_t generation = 0;  // bumped by every event of the watch
    std::uint64_t entries = 0;     // bumped by every event but a file written in place
    std::vector<std::pair<std::string, std::uint64_t>> names;  // name, its generation
  };
  // Each requires mutex_.
  bool watching() const { return fd_->get() >= 0; }
  void drain();
  void reset();
  // The watch of the directory open as `dir_fd`, added if new; -1 (stamp spoiled) on failure.
  // `lock` (of mutex_) is held on entry and return, released around the system calls.
  int add(WatchStamp& stamp, int dir_fd, std::unique_lock<std::mutex>& lock);

  mutable std::mutex mutex_;
  std::shared_ptr<const UniqueFd> fd_;
  UniqueFd mounts_;  // /proc/self/mounts, polled for mounts and unmounts  // replaced by reset();
                     // held by add() while it uses it
  std::uint64_t epoch_ = 1;  // bumped when watches are dropped or events were lost
  std::uint64_t events_ = 0;
  std::unordered_map<int, Watch> watches_;
};

}  // namespace ctx::agent
