// ContentCache (file_info's per-session memory of what it read): an entry is served only while
// the file's size, mtime and ctime are those it was read with, racily-clean entries (a timestamp
// within kRacyWindowNs of the read) are never kept, a file that changed during its read is not
// kept, and the cache holds at most its bound. Through file_info with a session: a modified file
// gets its new hash.
#include "../../agent/src/content_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "../../agent/src/session.hpp"
#include "open_watch.hpp"
#include "tool_test_env.hpp"

using ctx::agent::ContentCache;
using ctx::agent::ContentFacts;
using ctx::agent::timestamp_ns;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

struct stat stat_of(dev_t dev, ino_t ino, off_t size, std::int64_t mtime_ns,
                    std::int64_t ctime_ns) {
  struct stat st {};
  st.st_dev = dev;
  st.st_ino = ino;
  st.st_size = size;
  st.st_mtim = {static_cast<time_t>(mtime_ns / kSecond), static_cast<long>(mtime_ns % kSecond)};
  st.st_ctim = {static_cast<time_t>(ctime_ns / kSecond), static_cast<long>(ctime_ns % kSecond)};
  return st;
}

ContentFacts facts(std::string hash) { return ContentFacts{std::move(hash), "utf-8", 3, 30}; }

}  // namespace

TEST_CASE("a cached entry is served only while size, mtime and ctime are unchanged",
          "[agent][content_cache]") {
  ContentCache cache(16);
  const std::int64_t t = 1'700'000'000 * kSecond;
  const struct stat st = stat_of(1, 42, 30, t, t);
  REQUIRE(cache.put(st, st, t + 10 * kSecond, facts("aaaaaaaaaaaa")));
  auto hit = cache.find(st);
  REQUIRE(hit);
  CHECK(hit->hash == "aaaaaaaaaaaa");
  CHECK(hit->lines == 3);
  // Each of the three, changed alone, is a miss (a nanosecond is enough).
  CHECK_FALSE(cache.find(stat_of(1, 42, 31, t, t)));
  REQUIRE(cache.put(st, st, t + 10 * kSecond, facts("aaaaaaaaaaaa")));
  CHECK_FALSE(cache.find(stat_of(1, 42, 30, t + 1, t)));
  REQUIRE(cache.put(st, st, t + 10 * kSecond, facts("aaaaaaaaaaaa")));
  CHECK_FALSE(cache.find(stat_of(1, 42, 30, t, t + 1)));
  // A miss drops the stale entry: the old stat no longer finds it either.
  CHECK_FALSE(cache.find(st));
  // Another inode, or the same inode number on another device, is another file.
  REQUIRE(cache.put(st, st, t + 10 * kSecond, facts("aaaaaaaaaaaa")));
  CHECK_FALSE(cache.find(stat_of(1, 43, 30, t, t)));
  CHECK_FALSE(cache.find(stat_of(2, 42, 30, t, t)));
  CHECK(cache.find(st));
}

TEST_CASE("a racily clean entry (a timestamp within the window of the read) is not kept",
          "[agent][content_cache]") {
  ContentCache cache(16);
  const std::int64_t read_at = 1'700'000'000 * kSecond;
  const std::int64_t old = read_at - ContentCache::kRacyWindowNs - 1;
  const std::int64_t recent = read_at - ContentCache::kRacyWindowNs;  // not older than the window
  // A write after the read in the same timestamp tick could leave this stat as it is, so an entry
  // kept now could later be served for other bytes.
  for (const auto& [mtime, ctime] :
       {std::pair{recent, old}, std::pair{old, recent}, std::pair{read_at + kSecond, old}}) {
    INFO(mtime << " " << ctime);
    const struct stat st = stat_of(1, 7, 10, mtime, ctime);
    CHECK_FALSE(cache.put(st, st, read_at, facts("bbbbbbbbbbbb")));
    CHECK_FALSE(cache.find(st));
  }
  const struct stat settled = stat_of(1, 7, 10, old, old);
  CHECK(cache.put(settled, settled, read_at, facts("bbbbbbbbbbbb")));
  CHECK(cache.find(settled));
  // A racy read of the same file drops the older entry too.
  const struct stat racy = stat_of(1, 7, 10, recent, recent);
  CHECK_FALSE(cache.put(racy, racy, read_at, facts("cccccccccccc")));
  CHECK_FALSE(cache.find(settled));
}

TEST_CASE("a file that changed while it was read is not kept", "[agent][content_cache]") {
  ContentCache cache(16);
  const std::int64_t t = 1'700'000'000 * kSecond;
  const struct stat before = stat_of(1, 9, 10, t, t);
  const struct stat after = stat_of(1, 9, 12, t + 20 * kSecond, t + 20 * kSecond);
  CHECK_FALSE(cache.put(before, after, t + 10 * kSecond, facts("dddddddddddd")));
  CHECK_FALSE(cache.find(before));
  CHECK_FALSE(cache.find(after));
}

TEST_CASE("the cache holds at most its bound, dropping the least recently used",
          "[agent][content_cache]") {
  ContentCache cache(3);
  const std::int64_t t = 1'700'000'000 * kSecond;
  auto st = [&](ino_t ino) { return stat_of(1, ino, 10, t, t); };
  for (ino_t ino = 1; ino <= 3; ++ino)
    REQUIRE(cache.put(st(ino), st(ino), t + kSecond * 10, facts("x")));
  REQUIRE(cache.find(st(1)));  // 1 is now the most recently used; 2 the least
  REQUIRE(cache.put(st(4), st(4), t + kSecond * 10, facts("y")));
  CHECK(cache.size() == 3);
  CHECK(cache.find(st(1)));
  CHECK_FALSE(cache.find(st(2)));
  CHECK(cache.find(st(3)));
  CHECK(cache.find(st(4)));
  for (ino_t ino = 10; ino < 1000; ++ino) cache.put(st(ino), st(ino), t + kSecond * 10, facts("z"));
  CHECK(cache.size() == 3);
}

TEST_CASE("file_info in a session gives a modified file its new hash, even within one tick",
          "[agent][content_cache][file_info]") {
  ctx::agent::testing::ToolEnv env;
  ctx::agent::SessionState session;
  env.session = &session;
  auto hash_of = [&]() {
    auto out = env.ok("file_info", R"({"path":"a.txt"})");
    const std::size_t at = out.structured.find(R"("hash":")");
    REQUIRE(at != std::string::npos);
    return out.structured.substr(at + 8, 12);
  };
  // Same size every time, rewritten in place right after each call (well within one tick of the
  // coarse clock, so mtime and ctime may well not move): the racily-clean rule must re-hash.
  env.file("a.txt", "version 1\n");
  const std::string h1 = hash_of();
  CHECK(hash_of() == h1);
  env.file("a.txt", "version 2\n");
  const std::string h2 = hash_of();
  CHECK(h2 != h1);
  env.file("a.txt", "version 3\n");
  CHECK(hash_of() != h2);
  // Fresh files are racy: nothing was kept.
  CHECK(session.impl().contents.size() == 0);
}

TEST_CASE(
    "file_info in a session serves an old file's facts from the cache and re-reads it "
    "once it changes",
    "[agent][content_cache][file_info]") {
  ctx::agent::testing::ToolEnv env;
  ctx::agent::SessionState session;
  env.session = &session;
  env.file("old.txt", "one\ntwo\n");
  // The ctime cannot be set back, so the file is made old by its stat as the cache sees it: put an
  // entry whose stat is the file's and whose facts no read could give, as if read long ago.
  struct stat st {};
  REQUIRE(::stat((env.root() / "old.txt").c_str(), &st) == 0);
  REQUIRE(session.impl().contents.put(
      st, st, std::max(timestamp_ns(st.st_mtim), timestamp_ns(st.st_ctim)) + 10 * kSecond,
      ContentFacts{"0123456789ab", "utf-8", 99, 8}));
  auto out = env.ok("file_info", R"({"path":"old.txt"})");
  CHECK(out.structured.find(R"("hash":"0123456789ab")") != std::string::npos);
  CHECK(out.structured.find(R"("lines":99)") != std::string::npos);
  // Rewritten with another size: the stat differs, the file is read again.
  env.file("old.txt", "one\ntwo\nthree\n");
  out = env.ok("file_info", R"({"path":"old.txt"})");
  CHECK(out.structured.find(R"("hash":"0123456789ab")") == std::string::npos);
  CHECK(out.structured.find(R"("lines":3)") != std::string::npos);
}

TEST_CASE("file_info serves cached facts from a lookup, never opening the file for reading",
          "[agent][content_cache][file_info]") {
  ctx::agent::testing::ToolEnv env;
  ctx::agent::SessionState session;
  env.session = &session;
  env.file("old.txt", "one\ntwo\n");
  env.file("new.txt", "three\n");
  struct stat st {};
  REQUIRE(::stat((env.root() / "old.txt").c_str(), &st) == 0);
  REQUIRE(session.impl().contents.put(
      st, st, std::max(timestamp_ns(st.st_mtim), timestamp_ns(st.st_ctim)) + 10 * kSecond,
      ContentFacts{"0123456789ab", "utf-8", 99, 8}));
  ctx::testing::OpenWatch watch(env.root().string());
  auto out = env.ok("file_info", R"({"path":"old.txt"})");
  CHECK(out.structured.find(R"("hash":"0123456789ab")") != std::string::npos);
  CHECK(watch.opened().count("old.txt") == 0);  // looked up O_PATH only
  // Not cached: opened and read, as before.
  out = env.ok("file_info", R"({"path":"new.txt"})");
  CHECK(out.structured.find(R"("lines":1)") != std::string::npos);
  CHECK(watch.opened().count("new.txt") == 1);
}
