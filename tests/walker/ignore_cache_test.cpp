// IgnoreCache: walks sharing one reuse compiled ignore files and the git-config lookup, see every
// edit (same-size ones and replacements too), decide exactly as uncached walks, and stay within
// their memory bound.
#include "ctx/walker/ignore_cache.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../temp_tree.hpp"
#include "ctx/walker/walker.hpp"

namespace fs = std::filesystem;
using ctx::walker::Flow;
using ctx::walker::IgnoreCache;
using ctx::walker::WalkOptions;

namespace {

struct TempTree : ctx::testing::TempTree {
  TempTree() : ctx::testing::TempTree(Cwd::kEnter, "ctxcache") {}
};

class Collect final : public ctx::walker::WalkSink {
 public:
  Flow on_file(const ctx::walker::WalkEntry& e) override {
    std::lock_guard lock(mutex_);
    files.emplace_back(e.path);
    return Flow::kContinue;
  }
  void on_error(const ctx::Error& e) override {
    std::lock_guard lock(mutex_);
    errors.push_back(e.detail);
  }
  std::vector<std::string> files, errors;

 private:
  std::mutex mutex_;
};

// The files a walk of the current directory visits, sorted; `beneath` walks through an fd as the
// agent does.
std::vector<std::string> walk(IgnoreCache* cache, bool beneath = false, bool hidden = false) {
  WalkOptions options;
  options.ignore_cache = cache;
  options.hidden = hidden;
  int fd = -1;
  if (beneath) {
    fd = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    options.beneath_fd = fd;
    options.paths = {""};
  }
  Collect sink;
  auto status = ctx::walker::walk(options, sink);
  if (fd >= 0) ::close(fd);
  REQUIRE(status.ok());
  CHECK(sink.errors.empty());
  std::sort(sink.files.begin(), sink.files.end());
  return sink.files;
}

// Longer than any file system's timestamp tick we run on (jiffies): two writes this far apart
// get different mtimes.
void past_a_tick() { std::this_thread::sleep_for(std::chrono::milliseconds(30)); }

using Files = std::vector<std::string>;

}  // namespace

TEST_CASE("A cached walk sees a same-size edit of .gitignore on the next walk") {
  TempTree t;
  fs::create_directory(".git");
  t.file("a.txt");
  t.file("b.txt");
  t.file(".gitignore", "a.txt\n");
  IgnoreCache cache(std::size_t{1} << 20, std::chrono::nanoseconds(0));
  for (bool beneath : {false, true}) {
    INFO("beneath " << beneath);
    t.file(".gitignore", "a.txt\n");
    past_a_tick();
    CHECK(walk(&cache, beneath) == Files{"b.txt"});
    auto before = cache.stats();
    CHECK(walk(&cache, beneath) == Files{"b.txt"});
    CHECK(cache.stats().hits > before.hits);  // the second walk did use the cache
    past_a_tick();
    t.file(".gitignore", "b.txt\n");  // same size, same inode: only the times differ
    CHECK(walk(&cache, beneath) == Files{"a.txt"});
  }
}

TEST_CASE(
    "An edit within the racy window right after a walk is seen even if the clock stood still") {
  TempTree t;
  fs::create_directory(".git");
  t.file("a.txt");
  t.file("b.txt");
  IgnoreCache cache;  // the default window
  for (int i = 0; i < 20; ++i) {
    t.file(".gitignore", i % 2 == 0 ? "a.txt\n" : "b.txt\n");
    CHECK(walk(&cache) == Files{i % 2 == 0 ? "b.txt" : "a.txt"});
  }
  CHECK(cache.stats().entries == 0);  // freshly written files are never kept
}

TEST_CASE("A .gitignore replaced by rename is read again") {
  TempTree t;
  fs::create_directory(".git");
  t.file("a.txt");
  t.file("b.txt");
  t.file(".gitignore", "a.txt\n");
  IgnoreCache cache(std::size_t{1} << 20, std::chrono::nanoseconds(0));
  CHECK(walk(&cache) == Files{"b.txt"});
  t.file("new", "b.txt\n");
  fs::rename("new", ".gitignore");
  CHECK(walk(&cache) == Files{"a.txt"});
  fs::remove(".gitignore");
  CHECK(walk(&cache) == Files{"a.txt", "b.txt"});
}

TEST_CASE("Cached walks of random trees decide exactly as uncached walks") {
  std::mt19937 rng(4242);
  const std::vector<std::string> names = {"a.txt", "b.c", "keep.txt", "x", "sub", "d1", "a.log"};
  const std::vector<std::string> patterns = {"*.txt", "a*",  "!keep.txt", "d1/",    "/b.c",
                                             "**/x",  "*.c", "sub",       "!a.log", "x/",
                                             "*.log", "#c",  "d1/*",      "!d1/x"};
  const std::vector<std::string> ignore_names = {".gitignore", ".ignore", ".rgignore",
                                                 ".ctxignore"};
  IgnoreCache cache(std::size_t{1} << 20, std::chrono::nanoseconds(0));
  for (int tree = 0; tree < 40; ++tree) {
    TempTree t;
    if (rng() % 4 != 0) fs::create_directory(".git");
    std::vector<std::string> dirs = {""};
    for (int i = 0; i < 30; ++i) {
      std::string dir = dirs[rng() % dirs.size()];
      std::string name = names[rng() % names.size()];
      std::string path = dir.empty() ? name : dir + "/" + name;
      if (rng() % 3 == 0 && dirs.size() < 10) {
        if (!fs::exists(path)) {
          fs::create_directories(path);
          dirs.push_back(path);
        }
      } else if (!fs::is_directory(path)) {
        t.file(path);
      }
    }
    for (const std::string& dir : dirs) {
      for (const std::string& ignore : ignore_names) {
        if (rng() % 3 != 0) continue;
        std::string text;
        for (unsigned k = rng() % 4; k > 0; --k) text += patterns[rng() % patterns.size()] + "\n";
        t.file(dir.empty() ? ignore : dir + "/" + ignore, text);
      }
    }
    for (bool beneath : {false, true}) {
      INFO("tree " << tree << " beneath " << beneath);
      Files uncached = walk(nullptr, beneath, true);
      CHECK(walk(&cache, beneath, true) == uncached);
      CHECK(walk(&cache, beneath, true) == uncached);  // now from the cache
    }
  }
  CHECK(cache.stats().hits > 0);
}

TEST_CASE("The cache stays within its byte bound, dropping the least recently used") {
  TempTree t;
  fs::create_directory(".git");
  for (int i = 0; i < 30; ++i) {
    std::string dir = "d" + std::to_string(i);
    t.file(dir + "/a.txt");
    t.file(dir + "/b.txt");
    t.file(dir + "/.gitignore",
           std::string(i % 2 == 0 ? "a.txt\n" : "b.txt\n") + "#" + std::string(200, 'p') + "\n");
  }
  const std::size_t bound = 5 * IgnoreCache::cost(210, 1) + 5 * 80;
  IgnoreCache cache(bound, std::chrono::nanoseconds(0));
  Files uncached = walk(nullptr);
  for (int round = 0; round < 3; ++round) {
    CHECK(walk(&cache) == uncached);
    auto stats = cache.stats();
    CHECK(stats.bytes <= bound);
    CHECK(stats.entries > 0);
    CHECK(stats.entries < 30);
  }
  IgnoreCache tiny(10, std::chrono::nanoseconds(0));  // smaller than any one file's rules
  CHECK(walk(&tiny) == uncached);
  CHECK(tiny.stats().entries == 0);
}

TEST_CASE("A cached walk follows a change of core.excludesFile in the git config") {
  TempTree t;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  for (const char* name : {"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL",
                           "GIT_CONFIG_COUNT"}) {
    const char* v = getenv(name);
    saved.emplace_back(name, v ? std::optional<std::string>(v) : std::nullopt);
  }
  std::string home = (t.root() / "home").string();
  fs::create_directories(home);
  setenv("HOME", home.c_str(), 1);
  setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
  unsetenv("XDG_CONFIG_HOME");
  unsetenv("GIT_CONFIG_GLOBAL");
  unsetenv("GIT_CONFIG_COUNT");
  fs::create_directories("repo/.git");
  t.file("repo/a.txt");
  t.file("repo/b.txt");
  t.file("home/ign-a", "a.txt\n");
  t.file("home/ign-b", "b.txt\n");
  t.file("home/.gitconfig", "[core]\n\texcludesFile = ~/ign-a\n");
  past_a_tick();
  IgnoreCache cache(std::size_t{1} << 20, std::chrono::nanoseconds(0));
  fs::current_path("repo");
  CHECK(walk(&cache) == Files{"b.txt"});
  CHECK(walk(&cache) == Files{"b.txt"});
  CHECK(cache.stats().config_hits > 0);
  past_a_tick();
  t.file("home/.gitconfig", "[core]\n\texcludesFile = ~/ign-b\n");  // same size
  CHECK(walk(&cache) == Files{"a.txt"});
  fs::remove("../home/.gitconfig");
  CHECK(walk(&cache) == Files{"a.txt", "b.txt"});
  fs::current_path(t.root());
  for (auto& [name, value] : saved) {
    if (value) {
      setenv(name.c_str(), value->c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }
}

namespace {

// The files a walk of `path` beneath the directory `fd_dir` visits (as the agent walks), sorted.
std::vector<std::string> walk_beneath(IgnoreCache* cache, const char* fd_dir, std::string path) {
  WalkOptions options;
  options.ignore_cache = cache;
  const int fd = ::open(fd_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  options.beneath_fd = fd;
  options.paths = {std::move(path)};
  Collect sink;
  auto status = ctx::walker::walk(options, sink);
  ::close(fd);
  REQUIRE(status.ok());
  CHECK(sink.errors.empty());
  std::sort(sink.files.begin(), sink.files.end());
  return sink.files;
}

}  // namespace

TEST_CASE("A cached walk sees ignore files created and removed in its root's parents") {
  TempTree t;  // the current directory: the parent of "root", outside the walk's fd
  t.file("root/sub/a.txt");
  t.file("root/sub/b.log");
  IgnoreCache cache(std::size_t{1} << 20, std::chrono::nanoseconds(0));
  // The fd's parent (looked up by path) and the fd's own directory (a parent of "sub").
  for (const char* ignore_at : {".ignore", "root/.ignore", "root/.rgignore"}) {
    INFO(ignore_at);
    past_a_tick();
    CHECK(walk_beneath(&cache, "root", "sub") == Files{"sub/a.txt", "sub/b.log"});
    const auto before = cache.stats();
    CHECK(walk_beneath(&cache, "root", "sub") == Files{"sub/a.txt", "sub/b.log"});
    CHECK(cache.stats().name_hits > before.name_hits);  // the parents' probes were cached
    past_a_tick();
    t.file(ignore_at, "*.log\n");
    CHECK(walk_beneath(&cache, "root", "sub") == Files{"sub/a.txt"});
    CHECK(walk_beneath(&cache, "root", "sub") == Files{"sub/a.txt"});
    past_a_tick();
    fs::remove(ignore_at);
    CHECK(walk_beneath(&cache, "root", "sub") == Files{"sub/a.txt", "sub/b.log"});
  }
}

TEST_CASE("A .git appearing in a cached root's parent makes its .gitignore count") {
  TempTree t;
  t.file("root/a.txt");
  t.file("root/b.log");
  t.file(".gitignore", "*.log\n");  // outside a repository: not read (require_git)
  IgnoreCache cache(std::size_t{1} << 20, std::chrono::nanoseconds(0));
  past_a_tick();
  CHECK(walk_beneath(&cache, "root", "") == Files{"a.txt", "b.log"});
  CHECK(walk_beneath(&cache, "root", "") == Files{"a.txt", "b.log"});
  past_a_tick();
  fs::create_directory(".git");
  CHECK(walk_beneath(&cache, "root", "") == Files{"a.txt"});
}

TEST_CASE("Ignore files created and removed in a fresh parent are seen at once") {
  TempTree t;
  t.file("root/a.txt");
  t.file("root/b.log");
  IgnoreCache cache;  // the default window: the parent, changed just now, is probed every time
  for (int i = 0; i < 40; ++i) {
    if (i % 2 == 1) t.file(".ignore", "*.log\n");
    if (i % 2 == 0) fs::remove(".ignore");
    CHECK(walk_beneath(&cache, "root", "") ==
          (i % 2 == 1 ? Files{"a.txt"} : Files{"a.txt", "b.log"}));
  }
}
