#include "ctx/base/file_buffer.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace ctx {
namespace {

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

}  // namespace

Result<std::string> read_small_file(int dir_fd, const char* path, std::size_t max_bytes) {
  int fd = ::openat(dir_fd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error::from_errno(errno, path);
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error::from_errno(errno, path);
  if (!S_ISREG(st.st_mode)) {
    return Error{ErrorCode::kInvalidArgument, fmt::format("{}: not a regular file", path)};
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    return Error{ErrorCode::kInvalidArgument,
                 fmt::format("{}: file is {} bytes, more than the limit of {}", path, st.st_size,
                             max_bytes)};
  }
  std::string out;
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  for (;;) {
    if (got == out.size()) out.resize(out.size() + 4096);  // the file grew since fstat
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno(errno, path);
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
    if (got > max_bytes) {
      return Error{ErrorCode::kInvalidArgument,
                   fmt::format("{}: file grew past the limit of {} bytes", path, max_bytes)};
    }
  }
  out.resize(got);
  return out;
}

}  // namespace ctx
