// Compiled ignore files and the git-config lookup kept across walks, for a long-lived process
// (the agent's MCP server) that walks the same trees again and again. A walk given one
// (WalkOptions::ignore_cache) opens each ignore file, fstats the open file and reuses the
// compiled rules when the file's identity (path, device, inode, size, mtime, ctime) is the one
// cached; an edited or replaced file has another identity and is read again. As git does with
// "racily clean" index entries, a file changed within the last `racy_window` is not cached:
// file systems stamp times coarsely (a jiffy, a second), so two writes that close together may
// leave the same identity. Thread-safe.
#pragma once

#include <sys/stat.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ctx/walker/ignore_rules.hpp"

namespace ctx::walker {

class IgnoreCache {
 public:
  // `max_bytes` bounds the cached rules' estimated memory (see cost()); the least recently used
  // entries are dropped past it, and a file whose rules alone exceed it is never kept.
  explicit IgnoreCache(std::size_t max_bytes = std::size_t{16} << 20,
                       std::chrono::nanoseconds racy_window = std::chrono::seconds(3))
      : max_bytes_(max_bytes), racy_window_(racy_window) {}
  IgnoreCache(const IgnoreCache&) = delete;
  IgnoreCache& operator=(const IgnoreCache&) = delete;

  // The identity of the ignore file `path` as fstat of the opened file saw it, with the rule
  // option that changes its compilation.
  static std::string key(std::string_view path, const struct stat& st, bool case_insensitive);
  // The rules cached under `key`, or null.
  std::shared_ptr<const IgnoreRules> find(const std::string& key);
  // Caches `rules` compiled from a file of `text_bytes` bytes whose fstat, taken before the read
  // and unchanged after it, is `st` (not cached when changed within the racy window).
  void insert(const std::string& key, const struct stat& st,
              std::shared_ptr<const IgnoreRules> rules, std::size_t text_bytes);
  // The estimated memory of rules compiled from `text_bytes` bytes in `rule_count` rules.
  static std::size_t cost(std::size_t text_bytes, std::size_t rule_count) {
    return 256 + 2 * text_bytes + 192 * rule_count;
  }

  // The global excludes file's path (core.excludesFile, else the XDG default) as
  // detail::global_excludes_path computes it, recomputed only when the environment variables git
  // reads or the identity (stat) of any configuration file it read or looked for changed.
  std::optional<std::string> global_excludes_path();

  // The absolute paths global_excludes_path depends on: the configuration files it read or
  // looked for, and the excludes file it found (if any); nullopt when its answer is not kept
  // (a file among them changed within the racy window), so what it read is not known to hold.
  std::optional<std::vector<std::string>> global_excludes_inputs();

  // Which of the names a walk looks for in a root's parent directories (.git and the ignore
  // files: `present`, a bit per name in the walker's order) a directory held, kept by the
  // directory's identity: device and inode, and mtime and ctime to the nanosecond, which every
  // entry created, removed or renamed in it changes (git's untracked cache trusts directory
  // mtimes the same way). A directory changed within the racy window is not kept. find_names
  // returns the bits cached for `st`, or nullopt; at most kMaxNameProbes directories are kept.
  std::optional<std::uint8_t> find_names(const struct stat& st);
  void insert_names(const struct stat& st, std::uint8_t present);
  static constexpr std::size_t kMaxNameProbes = 4096;

  struct Stats {
    std::uint64_t hits = 0, misses = 0, config_hits = 0, config_misses = 0;
    std::uint64_t name_hits = 0, name_misses = 0;
    std::size_t entries = 0, bytes = 0;
  };
  Stats stats() const;

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const IgnoreRules> rules;
    std::size_t bytes;
  };
  struct ConfigState {
    std::string env;                                         // the variables git reads
    std::vector<std::pair<std::string, std::string>> files;  // path, stat identity ("" if absent)
    std::optional<std::string> path;
  };

  mutable std::mutex mutex_;
  bool recent(const struct stat& st) const;

  std::size_t max_bytes_;
  std::chrono::nanoseconds racy_window_;
  std::size_t bytes_ = 0;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  std::optional<ConfigState> config_;
  struct NameProbe {
    struct timespec mtime, ctime;
    std::uint8_t present;
  };
  // Keyed by (device, inode).
  std::unordered_map<std::string, NameProbe> names_;
  Stats stats_;
};

}  // namespace ctx::walker
