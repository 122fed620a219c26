#include "dir_watch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "ctx/walker/walker.hpp"

namespace ctx::agent {

namespace {

// What changes a listing: entries created, removed, renamed, written or truncated (IN_MODIFY;
// IN_CLOSE_WRITE too, for writers whose last write raced the listing), their attributes (mode,
// owner, link count), and the directory itself moved or removed. Not IN_ACCESS or IN_OPEN:
// reading (ours included) changes nothing.
constexpr std::uint32_t kDirectoryEvents = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                           IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF |
                                           IN_MOVE_SELF | IN_ONLYDIR;

}  // namespace

DirWatch::DirWatch()
    : fd_(std::make_shared<const UniqueFd>(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC))),
      mounts_(::open("/proc/self/mounts", O_RDONLY | O_CLOEXEC)) {
  if (!mounts_) fd_ = std::make_shared<const UniqueFd>();  // blind to mounts: watch nothing
}

WatchStamp DirWatch::begin(Shows shows) {
  WatchStamp stamp;
  stamp.shows_ = shows;
  std::lock_guard lock(mutex_);
  if (!watching()) {
    stamp.spoil();
    return stamp;
  }
  drain();
  if (watches_.size() >= kMaxWatches) reset();  // kept results made before go stale
  stamp.epoch_ = epoch_;
  return stamp;
}

int DirWatch::add(WatchStamp& stamp, int dir_fd, std::unique_lock<std::mutex>& lock) {
  if (!stamp.usable() || !watching() || stamp.epoch_ != epoch_ || watches_.size() >= kMaxWatches) {
    stamp.spoil();  // past kMaxWatches: the next begin() drops every watch
    return -1;
  }
  // The system calls run outside the lock (a walk's threads add watches at once); the inotify fd
  // is held, so a reset meanwhile cannot close it under them.
  const std::shared_ptr<const UniqueFd> inotify = fd_;
  const std::uint64_t epoch = epoch_;
  lock.unlock();
  int wd = -1;
  if (walker::on_local_file_system(dir_fd)) {
    // inotify names what it watches by path; the fd's magic link is the very directory the fd
    // is open on (whatever its path is now), so no path is resolved twice.
    char link[32];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", dir_fd);
    wd = ::inotify_add_watch(inotify->get(), link, kDirectoryEvents);
  }
  lock.lock();
  if (wd < 0 || epoch != epoch_) {
    stamp.spoil();
    return -1;
  }
  watches_.try_emplace(wd);  // the same directory again gives the same wd
  return wd;
}

void DirWatch::watch_directory(WatchStamp& stamp, int dir_fd) {
  std::unique_lock lock(mutex_);
  const int wd = add(stamp, dir_fd, lock);
  if (wd < 0) return;
  const Watch& watch = watches_[wd];
  if (stamp.shows_ == Shows::kEntries) {
    stamp.dependencies_.push_back({wd, WatchStamp::kEntries, watch.entries});
  } else {
    stamp.dependencies_.push_back({wd, WatchStamp::kWhole, watch.generation});
  }
}

void DirWatch::watch_names(WatchStamp& stamp, int dir_fd, std::span<const std::string_view> names) {
  std::unique_lock lock(mutex_);
  const int wd = add(stamp, dir_fd, lock);
  if (wd < 0) return;
  Watch& watch = watches_[wd];
  for (std::string_view name : names) {
    std::size_t slot = 0;
    while (slot < watch.names.size() && watch.names[slot].first != name) ++slot;
    if (slot == watch.names.size()) watch.names.emplace_back(std::string(name), 0);
    stamp.dependencies_.push_back({wd, static_cast<int>(slot), watch.names[slot].second});
  }
}

void DirWatch::watch_path(WatchStamp& stamp, const std::string& path) {
  if (path.empty() || path[0] != '/') {
    stamp.spoil();
    return;
  }
  // Down from "/": the deepest existing directory on the way gets a watch for the next name.
  UniqueFd dir(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  std::size_t at = 1;
  while (dir) {
    const std::size_t end = std::min(path.find('/', at), path.size());
    const std::string name = path.substr(at, end - at);
    if (name.empty() || name == "." || name == "..") {
      stamp.spoil();  // not a normalised path: what it names is not plain to watch
      return;
    }
    const std::string_view names[] = {name};
    watch_names(stamp, dir.get(), names);
    struct stat st {};
    if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;  // absent
    if (S_ISLNK(st.st_mode)) {
      stamp.spoil();
      return;
    }
    if (end == path.size()) return;
    if (!S_ISDIR(st.st_mode)) return;  // the rest cannot exist; this name's watch sees it change
    dir =
        UniqueFd(::openat(dir.get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    at = end + 1;
  }
  stamp.spoil();  // a directory on the way could not be opened
}

bool DirWatch::unchanged(const WatchStamp& stamp) {
  std::lock_guard lock(mutex_);
  if (!stamp.usable()) return false;
  drain();
  if (stamp.epoch_ != epoch_) return false;
  for (const WatchStamp::Dependency& d : stamp.dependencies_) {
    auto it = watches_.find(d.wd);
    if (it == watches_.end()) return false;
    const Watch& watch = it->second;
    const std::uint64_t now = d.slot == WatchStamp::kWhole ? watch.generation
                              : d.slot == WatchStamp::kEntries
                                  ? watch.entries
                                  : watch.names[static_cast<std::size_t>(d.slot)].second;
    if (now != d.generation) return false;
  }
  return true;
}

void DirWatch::drain() {
  if (!watching()) return;
  // A file system mounted or unmounted anywhere (over a watched directory too, which inotify
  // does not tell): the mount table's file reports it to poll(2) as an exceptional condition.
  struct pollfd mounts {
    mounts_.get(), POLLPRI, 0
  };
  if (::poll(&mounts, 1, 0) != 0) ++epoch_;
  alignas(inotify_event) char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(fd_->get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0 && errno != EAGAIN) ++epoch_;  // cannot tell what changed: everything is stale
      return;
    }
    for (ssize_t at = 0; at < n;) {
      inotify_event event;
      std::memcpy(&event, buffer + at, sizeof event);
      const char* name = buffer + at + sizeof event;
      at += static_cast<ssize_t>(sizeof event + event.len);
      ++events_;
      if ((event.mask & IN_Q_OVERFLOW) != 0) {
        ++epoch_;  // events were lost
        continue;
      }
      auto it = watches_.find(event.wd);
      if (it == watches_.end()) continue;
      Watch& watch = it->second;
      ++watch.generation;
      // A named event concerns that entry; one without a name (the directory itself moved,
      // removed, unmounted, its attributes, its watch gone: IN_IGNORED) concerns every name.
      const std::string_view named = event.len > 0 ? std::string_view(name) : std::string_view();
      const bool written_in_place =
          (event.mask & ~static_cast<std::uint32_t>(IN_MODIFY | IN_CLOSE_WRITE)) == 0 &&
          !named.empty() &&
          std::find(walker::kRuleNames.begin(), walker::kRuleNames.end(), named) ==
              walker::kRuleNames.end();
      if (!written_in_place) ++watch.entries;
      for (auto& [watched, generation] : watch.names) {
        if (named.empty() || watched == named) ++generation;
      }
    }
  }
}

void DirWatch::reset() {
  // Closing the inotify fd drops every watch at once; the new epoch makes old stamps stale.
  fd_ = std::make_shared<const UniqueFd>(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  watches_.clear();
  ++epoch_;
}

std::size_t DirWatch::watches() const {
  std::lock_guard lock(mutex_);
  return watches_.size();
}

std::uint64_t DirWatch::events() const {
  std::lock_guard lock(mutex_);
  return events_;
}

}  // namespace ctx::agent
