// What a long-lived server keeps between calls (SessionState::Impl): the result sets of recent
// searches, so that paging with a cursor slices the same results instead of searching again, the
// compiled ignore files its walks read, and what file_info learnt from reading files.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "content_cache.hpp"
#include "ctx/agent/tools.hpp"
#include "ctx/walker/ignore_cache.hpp"

namespace ctx::agent {

struct SearchResults;  // search_results.hpp

// A few recent result sets keyed by the exact list-defining arguments of their call, least
// recently used dropped first. Bounded by entries and by the results' memory; a result set larger
// than the byte bound is not kept. Thread-safe. Entries are shared and immutable, so a page being
// rendered keeps its results alive even if the entry is dropped meanwhile.
class ResultCache {
 public:
  ResultCache(std::size_t max_entries, std::size_t max_bytes)
      : max_entries_(max_entries), max_bytes_(max_bytes) {}

  std::shared_ptr<const SearchResults> find(const std::string& key);
  // Adds (or replaces) the entry for `key`; `bytes` is the results' memory.
  void put(const std::string& key, std::shared_ptr<const SearchResults> results, std::size_t bytes);

  std::size_t size() const;
  std::size_t bytes() const;

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const SearchResults> results;
    std::size_t bytes;
  };
  void drop_back_locked();

  std::size_t max_entries_;
  std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  std::size_t bytes_ = 0;
};

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
};

}  // namespace ctx::agent
