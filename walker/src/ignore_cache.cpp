#include "ctx/walker/ignore_cache.hpp"

#include <fmt/format.h>
#include <time.h>

#include <cstring>

#include "git_config.hpp"
#include "git_paths.hpp"

extern char** environ;

namespace ctx::walker {
namespace {

// The environment variables global_excludes_path reads, as one string.
std::string git_environment() {
  std::string out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view var = *e;
    if (var.substr(0, 10) == "GIT_CONFIG" || var.substr(0, 5) == "HOME=" ||
        var.substr(0, 16) == "XDG_CONFIG_HOME=") {
      out.append(var);
      out.push_back('\0');
    }
  }
  return out;
}

}  // namespace

std::string IgnoreCache::key(std::string_view path, const struct stat& st, bool case_insensitive) {
  return fmt::format("{}:{}:{}:{}.{}:{}.{}:{}:{}", st.st_dev, st.st_ino, st.st_size,
                     st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
                     case_insensitive ? 1 : 0, path);
}

std::shared_ptr<const IgnoreRules> IgnoreCache::find(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  ++stats_.hits;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->rules;
}

bool IgnoreCache::recent(const struct stat& st) const {
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  auto ns = [](const struct timespec& t) {
    return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
  };
  const auto horizon = ns(now) - racy_window_;
  return ns(st.st_mtim) >= horizon || ns(st.st_ctim) >= horizon;
}

void IgnoreCache::insert(const std::string& key, const struct stat& st,
                         std::shared_ptr<const IgnoreRules> rules, std::size_t text_bytes) {
  const std::size_t bytes = cost(text_bytes, rules->size()) + key.size();
  if (bytes > max_bytes_ || recent(st)) return;
  std::lock_guard lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) {  // another thread compiled it too
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  while (!lru_.empty() && bytes_ + bytes > max_bytes_) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
  lru_.push_front(Entry{key, std::move(rules), bytes});
  index_.emplace(key, lru_.begin());
  bytes_ += bytes;
}

namespace {

std::string directory_key(const struct stat& st) {
  return fmt::format("{}:{}", st.st_dev, st.st_ino);
}

bool same_time(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

}  // namespace

std::optional<std::uint8_t> IgnoreCache::find_names(const struct stat& st) {
  const std::string key = directory_key(st);
  std::lock_guard lock(mutex_);
  auto it = names_.find(key);
  if (it == names_.end() || !same_time(it->second.mtime, st.st_mtim) ||
      !same_time(it->second.ctime, st.st_ctim)) {
    ++stats_.name_misses;
    return std::nullopt;
  }
  ++stats_.name_hits;
  return it->second.present;
}

void IgnoreCache::insert_names(const struct stat& st, std::uint8_t present) {
  if (recent(st)) return;
  std::string key = directory_key(st);
  std::lock_guard lock(mutex_);
  if (names_.size() >= kMaxNameProbes && names_.count(key) == 0) names_.clear();
  names_[std::move(key)] = NameProbe{st.st_mtim, st.st_ctim, present};
}

std::optional<std::string> IgnoreCache::global_excludes_path() {
  std::string env = git_environment();
  std::optional<ConfigState> cached;
  {
    std::lock_guard lock(mutex_);
    cached = config_;
  }
  if (cached && cached->env == env) {
    bool same = true;
    for (const auto& [path, identity] : cached->files) {
      if (detail::file_identity(path) != identity) {
        same = false;
        break;
      }
    }
    if (same) {
      std::lock_guard lock(mutex_);
      ++stats_.config_hits;
      return cached->path;
    }
  }
  ConfigState state{std::move(env), {}, std::nullopt};
  state.path = detail::global_excludes_path(&state.files);
  bool cacheable = true;
  for (const auto& file : state.files) {
    struct stat st {};
    if (::stat(file.first.c_str(), &st) == 0 && recent(st)) cacheable = false;
  }
  std::lock_guard lock(mutex_);
  ++stats_.config_misses;
  if (cacheable) {
    config_ = state;
  } else {
    config_.reset();
  }
  return state.path;
}

std::optional<std::vector<std::string>> IgnoreCache::global_excludes_inputs() {
  std::optional<std::string> excludes = global_excludes_path();
  std::lock_guard lock(mutex_);
  if (!config_ || config_->path != excludes) return std::nullopt;
  std::vector<std::string> inputs;
  inputs.reserve(config_->files.size() + 1);
  for (const auto& file : config_->files) inputs.push_back(file.first);
  if (excludes) inputs.push_back(*excludes);
  return inputs;
}

IgnoreCache::Stats IgnoreCache::stats() const {
  std::lock_guard lock(mutex_);
  Stats out = stats_;
  out.entries = lru_.size();
  out.bytes = bytes_;
  return out;
}

}  // namespace ctx::walker
