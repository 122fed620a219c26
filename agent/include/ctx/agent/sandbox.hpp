// Root containment for every path a tool touches. A model's path (relative, "./x", or an absolute
// path under the root) is normalised to a root-relative path, then opened beneath the root's
// directory fd with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) where the kernel has it, or
// by a component-by-component openat(O_NOFOLLOW) walk otherwise. Symlinks that stay inside the
// root are followed; anything that would leave it (`..`, absolute targets, magic links, a
// directory swapped for a symlink between check and use) fails with `outside_root`.
#pragma once

#include <sys/stat.h>

#include <string>
#include <string_view>

#include "ctx/agent/tool_error.hpp"

namespace ctx::agent {

// An owned file descriptor (closed on destruction).
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

enum class EntryKind : std::uint8_t { kFile, kDirectory, kSymlink, kSpecial };
std::string_view to_string(EntryKind kind);  // "file", "dir", "symlink", "special"

struct OpenedPath {
  UniqueFd fd;            // O_RDONLY (O_PATH never: the fd is used to read)
  std::string canonical;  // root-relative after following in-root symlinks; "" is the root
  EntryKind kind;         // of the opened object (never kSymlink: symlinks are followed)
  struct stat st;         // fstat of fd
};

class Sandbox {
 public:
  // Opens `root` (must be a directory). The error names the root.
  static Expected<Sandbox> open(const std::string& root);

  // A model's path to a root-relative one: "" / "." / "./" / the root itself -> "";
  // "a//b/./c/" -> "a/b/c"; an absolute path under the root -> relative; NUL bytes, `..` that
  // leaves the root, and absolute paths elsewhere -> invalid_argument / outside_root with a hint.
  // Pure string work; containment is enforced by `open_beneath`.
  Expected<std::string> normalize(std::string_view user_path) const;

  // Opens the root-relative `relative` (normalised) beneath the root. Never blocks on FIFOs
  // (O_NONBLOCK, then cleared) and never follows a symlink out of the root. `canonical` is read
  // back from the fd so policy globs can match where a symlink really led.
  Expected<OpenedPath> open_beneath(std::string_view relative) const;

  int root_fd() const { return root_fd_.get(); }
  const std::string& root_path() const { return root_path_; }  // absolute, no trailing '/'

 private:
  Sandbox(UniqueFd fd, std::string path) : root_fd_(std::move(fd)), root_path_(std::move(path)) {}
  UniqueFd root_fd_;
  std::string root_path_;
};

}  // namespace ctx::agent
