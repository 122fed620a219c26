// Opening and reading beneath a directory fd without following any symlink, for walks confined
// with WalkOptions::beneath_fd: openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
// RESOLVE_NO_MAGICLINKS) where the kernel has it, else one openat(O_NOFOLLOW) per component.
#pragma once

#include <string>
#include <string_view>

#include "ctx/base/result.hpp"

namespace ctx::walker::detail {

// Opens `rel` ('/'-separated, relative; "" or "." is `dir_fd` itself) beneath `dir_fd` with
// `flags` (O_CLOEXEC is added). Refuses every symlink on the way and at the end (ELOOP), `..`
// and absolute paths (EXDEV). Returns the fd, or -1 with errno set.
int open_beneath(int dir_fd, std::string_view rel, int flags);

// Reads the regular file `rel` beneath `dir_fd` as open_beneath opens it (a symlink is ELOOP),
// refusing files over `max_bytes`. Errors name `shown_path`; a symlink counts as absent
// (kNotFound): git does not follow a symlinked .gitignore either.
Result<std::string> read_small_file_beneath(int dir_fd, std::string_view rel,
                                            std::string_view shown_path, std::size_t max_bytes);

// Test hook: while true, open_beneath uses the per-component walk as on kernels without openat2.
void set_force_beneath_fallback(bool force);

}  // namespace ctx::walker::detail
