#include "ctx/base/fd_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace ctx {

int openat_retry(int dir_fd, const char* name, int flags) {
  int fd = -1;
  do {
    fd = ::openat(dir_fd, name, flags);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace ctx
