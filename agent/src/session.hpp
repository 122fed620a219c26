// What a long-lived server keeps between calls (SessionState::Impl): the result sets of recent
// searches, so that paging with a cursor slices the same results instead of searching again, the
// compiled ignore files its walks read, what file_info learnt from reading files, read_file's
// results while the file's stat is unchanged, and list_directory's listings and find_files' walks
// while inotify (DirWatch) sees no change in what they were made from.
#pragma once

#include <atomic>
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "content_cache.hpp"
#include "ctx/agent/tools.hpp"
#include "ctx/walker/ignore_cache.hpp"
#include "dir_watch.hpp"

namespace ctx::agent {

struct SearchResults;  // search_results.hpp
struct VisibleWalk;    // tool_walk.hpp

// A few recent values keyed by a string, least recently used dropped first. Bounded by entries
// and by the values' memory; a value larger than the byte bound is not kept. Thread-safe.
// Entries are shared and immutable, so a caller still using a value keeps it alive even if the
// entry is dropped meanwhile. (Few entries: looked up by a linear scan.)
template <class Value>
class LruCache {
 public:
  LruCache(std::size_t max_entries, std::size_t max_bytes)
      : max_entries_(max_entries), max_bytes_(max_bytes) {}

  std::shared_ptr<const Value> find(const std::string& key) {
    std::lock_guard lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->key != key) continue;
      entries_.splice(entries_.begin(), entries_, it);  // most recently used first
      return entries_.front().value;
    }
    return nullptr;
  }
  // Adds (or replaces) the entry for `key`; `bytes` is the value's memory.
  void put(const std::string& key, std::shared_ptr<const Value> value, std::size_t bytes) {
    std::lock_guard lock(mutex_);
    erase_locked(key);
    if (bytes > max_bytes_ || max_entries_ == 0) return;
    entries_.push_front(Entry{key, std::move(value), bytes});
    bytes_ += bytes;
    while (entries_.size() > max_entries_ || bytes_ > max_bytes_) {
      bytes_ -= entries_.back().bytes;
      entries_.pop_back();
    }
  }

  void erase(const std::string& key) {
    std::lock_guard lock(mutex_);
    erase_locked(key);
  }

  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }
  std::size_t bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
  }

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const Value> value;
    std::size_t bytes;
  };

  void erase_locked(const std::string& key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->key != key) continue;
      bytes_ -= it->bytes;
      entries_.erase(it);
      return;
    }
  }

  std::size_t max_entries_;
  std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  std::size_t bytes_ = 0;
};

// The result sets of recent searches, keyed by the exact list-defining arguments of their call.
using ResultCache = LruCache<SearchResults>;

struct SessionState::Impl {
  static constexpr std::size_t kSearchEntries = 4;
  static constexpr std::size_t kSearchBytes = std::size_t{128} << 20;

  std::mutex mutex;
  ResultCache searches{kSearchEntries, kSearchBytes};
  // Compiled ignore files and the git-config lookup, reused by every walk of the session.
  static constexpr std::size_t kIgnoreBytes = std::size_t{32} << 20;
  walker::IgnoreCache ignores{kIgnoreBytes};
  // What file_info read from files (blob id, lines, encoding), while their stat is unchanged.
  static constexpr std::size_t kContentEntries = 4096;
  ContentCache contents{kContentEntries};
  // read_file's last results, keyed by the file's version (see ContentCache: dev, inode, size,
  // mtime, ctime) and the call's arguments: a file read again unchanged is not rendered again.
  static constexpr std::size_t kReadEntries = 32;
  static constexpr std::size_t kReadBytes = std::size_t{8} << 20;
  LruCache<ToolOutput> reads{kReadEntries, kReadBytes};
  // What tells a kept listing is still true: inotify watches on what it was made from.
  DirWatch watch;
  // list_directory's last results, with what they were made from (see list_directory.cpp).
  static constexpr std::size_t kListEntries = 64;
  static constexpr std::size_t kListBytes = std::size_t{16} << 20;
  LruCache<Watched<ToolOutput>> listings{kListEntries, kListBytes};
  std::atomic<std::uint64_t> listing_hits{0};  // listings given again (for tests)
  // find_files' walks of whole trees (every file, and what the ignore rules and the policy
  // skipped), kept while nothing they were made from changed, so a find by another pattern
  // filters the kept files instead of walking again. A tree is walked whole (and kept) the second
  // time find_files searches it; `walked_once` counts the finds before that.
  static constexpr std::size_t kWalkEntries = 4;
  static constexpr std::size_t kWalkBytes = std::size_t{32} << 20;  // ~350k files
  LruCache<Watched<VisibleWalk>> walks{kWalkEntries, kWalkBytes};
  LruCache<int> walked_once{16, 16};        // finds of a tree not kept: whole walk at the second
  std::atomic<std::uint64_t> walk_hits{0};  // finds answered from a kept walk (for tests)
};

}  // namespace ctx::agent
