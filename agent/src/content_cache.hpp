// ContentCache: what file_info learnt from reading a file (its git blob id, line count and
// encoding), kept between calls of one session and trusted only while the file's stat is the
// same, like git's index: keyed by (dev, ino), checked against size, mtime and ctime to the
// nanosecond, with git's racily-clean rule so a change that leaves the stat as it was is never
// served from the cache.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace ctx::agent {

// What reading a whole file told file_info (everything it shows that depends on the bytes).
struct ContentFacts {
  std::string hash;      // short git blob id
  std::string encoding;  // as file_info names it ("utf-8", "non-utf8", "binary", ...)
  std::optional<std::uint64_t> lines;
  std::uint64_t checked_bytes = 0;
};

// Bounded (least recently used dropped first) and thread-safe.
class ContentCache {
 public:
  // A timestamp closer than this to the moment the file was read makes the entry racy: a write
  // in the same timestamp tick (coarse kernel clocks, 1-2 s granularity on some filesystems)
  // could leave size, mtime and ctime as they were, so the entry is not kept.
  static constexpr std::int64_t kRacyWindowNs = 2'000'000'000;

  explicit ContentCache(std::size_t max_entries) : max_entries_(max_entries) {}

  // The facts stored for the file `st` describes, when its size, mtime and ctime are still those
  // they were read with; nullopt otherwise (a miss: the caller reads the file).
  std::optional<ContentFacts> find(const struct stat& st);

  // Stores `facts` read from the file `before` describes (its fstat before the read; `after`,
  // its fstat after it, must agree or nothing is stored: the file changed while it was read).
  // `read_started_ns` is CLOCK_REALTIME taken before `before` was. An entry whose mtime or ctime
  // is not older than read_started_ns - kRacyWindowNs is racily clean and is not stored (and any
  // older entry for the file is dropped). Returns whether it was stored.
  bool put(const struct stat& before, const struct stat& after, std::int64_t read_started_ns,
           ContentFacts facts);

  std::size_t size() const;

 private:
  struct Key {
    dev_t dev;
    ino_t ino;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<std::uint64_t>()(static_cast<std::uint64_t>(k.ino) * 0x9E3779B97F4A7C15ULL ^
                                        static_cast<std::uint64_t>(k.dev));
    }
  };
  struct Entry {
    Key key;
    off_t size;
    std::int64_t mtime_ns;
    std::int64_t ctime_ns;
    ContentFacts facts;
  };

  std::size_t max_entries_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> index_;
};

// A stat timestamp in nanoseconds since the epoch.
inline std::int64_t timestamp_ns(const struct timespec& t) {
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + static_cast<std::int64_t>(t.tv_nsec);
}

// Whether what was read from a file between its stats `before` and `after` may be kept for its
// version (dev, inode, size, mtime, ctime; see file_version): the two agree, and neither time is
// within ContentCache::kRacyWindowNs of `read_started_ns` (CLOCK_REALTIME taken before `before`).
bool cacheable_version(const struct stat& before, const struct stat& after,
                       std::int64_t read_started_ns);

// The file's version as a key: "dev:inode:size:mtime:ctime" (nanoseconds).
std::string file_version(const struct stat& st);

}  // namespace ctx::agent
