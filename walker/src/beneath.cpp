#include "beneath.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>

#include "ctx/base/fd_io.hpp"

namespace ctx::walker::detail {
namespace {

std::atomic<bool> g_force_fallback{false};
constexpr int kMaxRetries = 64;

// 1: openat2 works, 0: it does not (ENOSYS, or a seccomp filter that predates it), -1: unknown.
std::atomic<int> g_have_openat2{-1};

long openat2_call(int dir_fd, const char* path, int flags) {
  struct open_how how {};
  how.flags = static_cast<__u64>(flags);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  long fd = -1;
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    fd = ::syscall(SYS_openat2, dir_fd, path, &how, sizeof how);
    if (fd >= 0 || (errno != EINTR && errno != EAGAIN)) break;
  }
  return fd;
}

int component_walk(int dir_fd, std::string_view rel, int flags) {
  int cur = -1;  // owned; -1 while at dir_fd
  auto close_cur = [&cur] {
    if (cur >= 0) {
      const int saved = errno;
      ::close(cur);
      errno = saved;
    }
  };
  std::string name;
  while (true) {
    while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
    std::size_t slash = rel.find('/');
    name.assign(rel.substr(0, slash));
    rel = slash == std::string_view::npos ? std::string_view() : rel.substr(slash);
    while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
    const bool last = rel.empty();
    if (name.empty() || name == ".") {
      if (!last) continue;
      int fd = openat_retry(cur >= 0 ? cur : dir_fd, ".", flags | O_CLOEXEC);
      close_cur();
      return fd;
    }
    if (name == "..") {
      close_cur();
      errno = EXDEV;
      return -1;
    }
    const int step =
        last ? flags | O_CLOEXEC | O_NOFOLLOW : O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW;
    int fd = openat_retry(cur >= 0 ? cur : dir_fd, name.c_str(), step);
    if (fd < 0 && errno == ENOTDIR) {
      // O_DIRECTORY on a symlink says ENOTDIR; say ELOOP as RESOLVE_NO_SYMLINKS does.
      struct stat st {};
      if (::fstatat(cur >= 0 ? cur : dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK(st.st_mode)) {
        errno = ELOOP;
      } else {
        errno = ENOTDIR;
      }
    }
    close_cur();
    if (fd >= 0 && last && (flags & O_PATH) != 0) {
      // O_PATH | O_NOFOLLOW opens a trailing symlink itself; refuse it as openat2 does.
      struct stat st {};
      if (::fstat(fd, &st) != 0 || S_ISLNK(st.st_mode)) {
        ::close(fd);
        errno = ELOOP;
        return -1;
      }
    }
    if (fd < 0 || last) return fd;
    cur = fd;
  }
}

}  // namespace

void set_force_beneath_fallback(bool force) { g_force_fallback.store(force); }

int open_beneath(int dir_fd, std::string_view rel, int flags) {
  if (!rel.empty() && rel.front() == '/') {
    errno = EXDEV;
    return -1;
  }
  if (rel.size() >= PATH_MAX) {
    errno = ENAMETOOLONG;
    return -1;
  }
  if (!g_force_fallback.load(std::memory_order_relaxed) &&
      g_have_openat2.load(std::memory_order_relaxed) != 0) {
    const std::string path(rel.empty() ? std::string_view(".") : rel);
    long fd = openat2_call(dir_fd, path.c_str(), flags | O_CLOEXEC);
    if (fd >= 0) {
      g_have_openat2.store(1, std::memory_order_relaxed);
      return static_cast<int>(fd);
    }
    const bool unsupported =
        errno == ENOSYS || (errno == EPERM && g_have_openat2.load(std::memory_order_relaxed) < 0);
    if (!unsupported) return -1;
    g_have_openat2.store(0, std::memory_order_relaxed);
  }
  return component_walk(dir_fd, rel, flags);
}

Result<std::string> read_small_file_beneath(int dir_fd, std::string_view rel,
                                            std::string_view shown_path, std::size_t max_bytes) {
  int fd = open_beneath(dir_fd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return Error::from_errno(errno == ELOOP ? ENOENT : errno, shown_path);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error::from_errno(errno, shown_path);
  if (!S_ISREG(st.st_mode)) {
    return Error{ErrorCode::kInvalidArgument, fmt::format("{}: not a regular file", shown_path)};
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return Error{ErrorCode::kInvalidArgument,
                 fmt::format("{}: file is {} bytes, more than the limit of {}", shown_path,
                             st.st_size, max_bytes)};
  }
  std::string out;
  char buf[16 << 10];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno(errno, shown_path);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > max_bytes) {
      return Error{ErrorCode::kInvalidArgument,
                   fmt::format("{}: file grew past the limit of {} bytes", shown_path, max_bytes)};
    }
  }
  return out;
}

}  // namespace ctx::walker::detail
