// The order of `--sort modified|accessed|created` (and --sortr), as ripgrep 14 sorts (hiargs.rs,
// HiArgs::sort): file times read with statx, then a stable sort in which a file whose time cannot
// be read sorts after every other file (before them when reversed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ctx/walker/walker.hpp"

namespace ctx::walker::detail {

// A file time; compared as (sec, nsec).
struct FileTime {
  std::int64_t sec = 0;
  std::uint32_t nsec = 0;
};

// Reads the time `sort` names (kModified, kAccessed or kCreated) of `path`, relative to `dir_fd`
// (AT_FDCWD or a directory fd), following symlinks as ripgrep's Path::metadata does; with
// `beneath` the path is opened by open_beneath(dir_fd, ...) instead (no symlink followed).
// Returns nullopt when it cannot be read: the file is gone, or the file system keeps no such time
// (no STATX_BTIME in the statx mask: proc, sysfs, older file systems), where Rust's created()
// fails.
std::optional<FileTime> read_file_time(int dir_fd, const char* path, bool beneath, SortBy sort);

// Returns the indices of `times` in sorted order: ascending by time (descending when `reverse`),
// ties in index order; unknown times (nullopt) after all known ones (before them when `reverse`).
std::vector<std::size_t> order_by_time(const std::vector<std::optional<FileTime>>& times,
                                       bool reverse);

}  // namespace ctx::walker::detail
