// --sort by file time: see time_order.hpp.
#include "time_order.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <numeric>

#include "beneath.hpp"

namespace ctx::walker::detail {

std::optional<FileTime> read_file_time(int dir_fd, const char* path, bool beneath, SortBy sort) {
  const unsigned want = sort == SortBy::kModified   ? STATX_MTIME
                        : sort == SortBy::kAccessed ? STATX_ATIME
                                                    : STATX_BTIME;
  struct statx sx {};
  int got = -1;
  if (beneath) {
    int fd = open_beneath(dir_fd, path, O_PATH);
    if (fd >= 0) {
      got = ::statx(fd, "", AT_EMPTY_PATH, want, &sx);
      ::close(fd);
    }
  } else {
    got = ::statx(dir_fd, path, 0, want, &sx);
  }
  if (got != 0 || (sx.stx_mask & want) == 0) return std::nullopt;
  const struct statx_timestamp& ts = sort == SortBy::kModified   ? sx.stx_mtime
                                     : sort == SortBy::kAccessed ? sx.stx_atime
                                                                 : sx.stx_btime;
  return FileTime{ts.tv_sec, ts.tv_nsec};
}

std::vector<std::size_t> order_by_time(const std::vector<std::optional<FileTime>>& times,
                                       bool reverse) {
  std::vector<std::size_t> order(times.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // rg's comparator: Some vs Some by time, Some before None, None equal to None; the whole
  // ordering reversed under --sortr (so None first), then a stable sort keeps ties in walk order.
  auto less = [&times](std::size_t a, std::size_t b) {
    const std::optional<FileTime>& ta = times[a];
    const std::optional<FileTime>& tb = times[b];
    if (ta && tb) {
      return ta->sec != tb->sec ? ta->sec < tb->sec : ta->nsec < tb->nsec;
    }
    return ta.has_value() && !tb.has_value();
  };
  if (reverse) {
    std::stable_sort(order.begin(), order.end(),
                     [&less](std::size_t a, std::size_t b) { return less(b, a); });
  } else {
    std::stable_sort(order.begin(), order.end(), less);
  }
  return order;
}

}  // namespace ctx::walker::detail
