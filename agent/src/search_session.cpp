// ResultCache (session.hpp): the session's recent search results.
#include "search_results.hpp"
#include "session.hpp"

namespace ctx::agent {

std::shared_ptr<const SearchResults> ResultCache::find(const std::string& key) {
  std::lock_guard lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->key != key) continue;
    entries_.splice(entries_.begin(), entries_, it);  // most recently used first
    return entries_.front().results;
  }
  return nullptr;
}

void ResultCache::put(const std::string& key, std::shared_ptr<const SearchResults> results,
                      std::size_t bytes) {
  std::lock_guard lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->key != key) continue;
    bytes_ -= it->bytes;
    entries_.erase(it);
    break;
  }
  if (bytes > max_bytes_ || max_entries_ == 0) return;
  entries_.push_front(Entry{key, std::move(results), bytes});
  bytes_ += bytes;
  while (entries_.size() > max_entries_ || bytes_ > max_bytes_) drop_back_locked();
}

void ResultCache::drop_back_locked() {
  bytes_ -= entries_.back().bytes;
  entries_.pop_back();
}

std::size_t ResultCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

std::size_t ResultCache::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

}  // namespace ctx::agent
