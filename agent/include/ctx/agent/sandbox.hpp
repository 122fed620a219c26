// Root containment for every path a tool touches. A model's path (relative, "./x", or an absolute
// path under the root, spelled through its real path or the path the root was given as) is
// normalised to a root-relative path, then opened beneath the root's directory fd with
// openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) where the kernel has it, or by a
// component-by-component openat(O_NOFOLLOW) walk otherwise. Symlinks that stay inside the root are
// followed; anything that would leave it (`..`, absolute targets, magic links, a directory swapped
// for a symlink between check and use) fails with `outside_root`. The final object is opened
// O_PATH first and its type checked, so FIFOs, sockets and devices are never opened for reading
// (no blocking, no device side effects such as a tape rewind).
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
  // Files and directories: O_RDONLY, for reading. Special files (kSpecial: FIFOs, sockets,
  // devices): an O_PATH fd, which fstat accepts and read refuses; they are never opened. A
  // regular file looked up with OpenFor::kLookup: its O_PATH fd until Sandbox::reopen.
  UniqueFd fd;
  std::string canonical;  // root-relative after following in-root symlinks; "" is the root
  EntryKind kind;         // of the opened object (never kSymlink: symlinks are followed)
  struct stat st;         // fstat of fd
  bool readable = true;   // false: a regular file's fd is O_PATH (OpenFor::kLookup)
};

class Sandbox {
 public:
  // Opens `root` (must be a directory). The error names the root. The root is resolved once
  // (realpath) here; when it was given through a symlink (`--root /tmp/link-to-project`), that
  // spelling, made absolute, is kept as `root_alias` so absolute paths in either form are
  // accepted (a spelling holding `..` is not kept: it may not mean what it says lexically).
  static Expected<Sandbox> open(const std::string& root);

  // A model's path to a root-relative one, its \xHH escapes read first (the bytes of a name that
  // is not UTF-8, as the tools show it: path_display.hpp): "" / "." / "./" / the root -> "";
  // "a//b/./c/" -> "a/b/c"; an absolute path under the root or under its alias (at a path
  // component boundary: "/r/x" is under "/r", "/rx/y" is not) -> relative; NUL bytes, `..` that
  // leaves the root, and absolute paths elsewhere -> invalid_argument / outside_root with a hint.
  // Pure string work; containment is enforced by `open_beneath`.
  Expected<std::string> normalize(std::string_view user_path) const;

  // Opens the root-relative `relative` (normalised) beneath the root and never follows a symlink
  // out of it. The object is looked up O_PATH and fstat'ed before anything opens it: a special
  // file is returned as kSpecial with that O_PATH fd (never opened, so a FIFO cannot block and a
  // device sees no open); a regular file is reopened for reading through the O_PATH fd's
  // /proc/self/fd entry (the same inode, no second path lookup), a directory through openat(".").
  // `canonical` is read back from the fd so policy globs can match where a symlink really led.
  // With OpenFor::kLookup a regular file is left O_PATH (`readable` false): a caller that may
  // need only its stat (a cache keyed by it) saves the reopen, and calls reopen() if it reads.
  enum class OpenFor : std::uint8_t { kReading, kLookup };
  Expected<OpenedPath> open_beneath(std::string_view relative,
                                    OpenFor purpose = OpenFor::kReading) const;
  // Makes a regular file that open_beneath(relative, kLookup) returned readable, exactly as
  // open_beneath(relative) would have opened it (the same errors); a no-op when it is readable.
  ToolStatus reopen(OpenedPath& opened, std::string_view relative) const;

  int root_fd() const { return root_fd_.get(); }
  const std::string& root_path() const { return root_path_; }  // absolute, no trailing '/'
  // The root as given, absolute, when it differs from root_path() (a symlink on the way); else "".
  const std::string& root_alias() const { return root_alias_; }

 private:
  Sandbox(UniqueFd fd, std::string path, std::string alias)
      : root_fd_(std::move(fd)), root_path_(std::move(path)), root_alias_(std::move(alias)) {}
  UniqueFd root_fd_;
  std::string root_path_;
  std::string root_alias_;
};

}  // namespace ctx::agent
