// System-call helpers every module needs the same way: openat and whole writes, retried on EINTR.
#pragma once

#include <string_view>

namespace ctx {

// openat(2), retried while it fails with EINTR. Returns the fd or -1 with errno set.
int openat_retry(int dir_fd, const char* name, int flags);

// Writes all of `data` to `fd`, retrying on EINTR and short writes. False (errno set) on an error.
bool write_all(int fd, std::string_view data);

}  // namespace ctx
