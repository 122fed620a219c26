#include "content_cache.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ctx::agent {

namespace {

bool same_version(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size &&
         timestamp_ns(a.st_mtim) == timestamp_ns(b.st_mtim) &&
         timestamp_ns(a.st_ctim) == timestamp_ns(b.st_ctim);
}

}  // namespace

std::optional<ContentFacts> ContentCache::find(const struct stat& st) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(Key{st.st_dev, st.st_ino});
  if (it == index_.end()) return std::nullopt;
  const Entry& e = *it->second;
  if (e.size != st.st_size || e.mtime_ns != timestamp_ns(st.st_mtim) ||
      e.ctime_ns != timestamp_ns(st.st_ctim)) {
    entries_.erase(it->second);  // another version of the file: the entry is no use any more
    index_.erase(it);
    return std::nullopt;
  }
  entries_.splice(entries_.begin(), entries_, it->second);
  return e.facts;
}

bool ContentCache::put(const struct stat& before, const struct stat& after,
                       std::int64_t read_started_ns, ContentFacts facts) {
  const Key key{before.st_dev, before.st_ino};
  const bool keep = max_entries_ > 0 && cacheable_version(before, after, read_started_ns);
  std::lock_guard lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) {
    entries_.erase(it->second);
    index_.erase(it);
  }
  if (!keep) return false;
  entries_.push_front(Entry{key, before.st_size, timestamp_ns(before.st_mtim),
                            timestamp_ns(before.st_ctim), std::move(facts)});
  index_.emplace(key, entries_.begin());
  while (entries_.size() > max_entries_) {
    index_.erase(entries_.back().key);
    entries_.pop_back();
  }
  return true;
}

bool cacheable_version(const struct stat& before, const struct stat& after,
                       std::int64_t read_started_ns) {
  const std::int64_t newest = std::max(timestamp_ns(before.st_mtim), timestamp_ns(before.st_ctim));
  return same_version(before, after) && newest < read_started_ns - ContentCache::kRacyWindowNs;
}

std::string file_version(const struct stat& st) {
  return fmt::format("{}:{}:{}:{}:{}", st.st_dev, st.st_ino, st.st_size, timestamp_ns(st.st_mtim),
                     timestamp_ns(st.st_ctim));
}

std::size_t ContentCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace ctx::agent
