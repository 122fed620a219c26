// time_order: --sort/--sortr by file time orders as ripgrep 14 (unknown times last, first when
// reversed; ties in walk order), and a time the file system does not keep counts as unknown.
#include "../../walker/src/time_order.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <optional>
#include <vector>

namespace {

using ctx::walker::SortBy;
using ctx::walker::detail::FileTime;
using ctx::walker::detail::order_by_time;
using ctx::walker::detail::read_file_time;
using Times = std::vector<std::optional<FileTime>>;
using Order = std::vector<std::size_t>;

TEST_CASE("files whose time is unknown sort after all others", "[walker][sort]") {
  const Times times = {std::nullopt, FileTime{20, 0}, FileTime{10, 5}, std::nullopt,
                       FileTime{10, 4}};
  CHECK(order_by_time(times, false) == Order{4, 2, 1, 0, 3});
}

TEST_CASE("under --sortr files whose time is unknown sort first", "[walker][sort]") {
  const Times times = {FileTime{10, 0}, std::nullopt, FileTime{30, 0}, std::nullopt};
  CHECK(order_by_time(times, true) == Order{1, 3, 2, 0});
}

TEST_CASE("equal times keep the walk order both ways", "[walker][sort]") {
  const Times times = {FileTime{7, 1}, FileTime{7, 1}, FileTime{-3, 0}, FileTime{7, 1}};
  CHECK(order_by_time(times, false) == Order{2, 0, 1, 3});
  CHECK(order_by_time(times, true) == Order{0, 1, 3, 2});
}

TEST_CASE("times past 2262 and before 1970 compare by seconds then nanoseconds", "[walker][sort]") {
  const Times times = {FileTime{INT64_C(1) << 40, 0}, FileTime{-1, 999'999'999}, FileTime{-1, 0}};
  CHECK(order_by_time(times, false) == Order{2, 1, 0});
}

TEST_CASE("a missing file's time is unknown", "[walker][sort]") {
  CHECK_FALSE(read_file_time(AT_FDCWD, "/nonexistent/ctx-time-order", false, SortBy::kModified));
}

TEST_CASE("a birth time the file system does not keep is unknown", "[walker][sort]") {
  // proc keeps no birth times (statx leaves STATX_BTIME out of stx_mask, stx_btime 0).
  struct statx sx {};
  if (::statx(AT_FDCWD, "/proc/self/stat", 0, STATX_BTIME | STATX_MTIME, &sx) != 0 ||
      (sx.stx_mask & STATX_BTIME) != 0) {
    WARN("/proc is missing or keeps birth times here: nothing to check");
    return;
  }
  CHECK_FALSE(read_file_time(AT_FDCWD, "/proc/self/stat", false, SortBy::kCreated));
  CHECK(read_file_time(AT_FDCWD, "/proc/self/stat", false, SortBy::kModified));
}

}  // namespace
