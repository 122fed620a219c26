// DirWatch and the listings it keeps: a stamp stays unchanged exactly while nothing it depends on
// changed (every kind of change to a watched directory, only the watched names elsewhere, paths
// that do not exist yet, lost events), and list_directory gives a kept listing again only while
// nothing it was made from changed: its directories, its files' sizes, the ignore files in it
// and above it, the repository's info/exclude, and the directory its path names.
#include "../../agent/src/dir_watch.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "../../agent/src/session.hpp"
#include "../temp_tree.hpp"
#include "ctx/walker/walker.hpp"
#include "open_watch.hpp"
#include "tool_test_env.hpp"

using ctx::agent::DirWatch;
using ctx::agent::UniqueFd;
using ctx::agent::WatchStamp;
using ctx::agent::testing::ToolEnv;
namespace fs = std::filesystem;

namespace {

using TempDir = ctx::testing::TempTree;

UniqueFd open_dir(const TempDir& tmp, const std::string& rel) {
  UniqueFd fd(::open((tmp.root() / rel).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  REQUIRE(fd);
  return fd;
}

void append(const TempDir& tmp, const std::string& rel, std::string_view text) {
  std::ofstream(tmp.root() / rel, std::ios::binary | std::ios::app) << text;
}

// Whether this machine's temporary directory can be watched (inotify available, a local file
// system): where not, nothing is ever kept, and the tests that need watching say so and stop.
bool watchable_here() {
  static const bool watchable = [] {
    DirWatch watch;
    UniqueFd tmp(::open(fs::temp_directory_path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    return watch.enabled() && tmp && ctx::walker::on_local_file_system(tmp.get());
  }();
  if (!watchable) WARN("the temporary directory cannot be watched here: nothing is kept");
  return watchable;
}

// Whether `change` makes a stamp of the whole directory `rel` stale.
bool stales_directory(DirWatch& watch, const TempDir& tmp, const std::string& rel,
                      const std::function<void()>& change) {
  WatchStamp stamp = watch.begin();
  watch.watch_directory(stamp, open_dir(tmp, rel).get());  // closed again, as a walk closes it
  REQUIRE(stamp.usable());
  REQUIRE(watch.unchanged(stamp));
  change();
  return !watch.unchanged(stamp);
}

std::vector<std::string> paths_of(const std::string& structured) {
  simdjson::dom::parser parser;
  auto json = ctx::agent::testing::parse(parser, structured);
  std::vector<std::string> out;
  for (auto e : json["entries"].get_array()) out.emplace_back(std::string_view(e["path"]));
  return out;
}

bool lists(const ctx::agent::ToolOutput& out, const std::string& path) {
  const auto paths = paths_of(out.structured);
  return std::find(paths.begin(), paths.end(), path) != paths.end();
}

}  // namespace

TEST_CASE("a watched directory's stamp goes stale on every change in it, and not before",
          "[agent][dir_watch]") {
  if (!watchable_here()) return;
  TempDir tmp;
  DirWatch watch;
  REQUIRE(watch.enabled());
  fs::create_directories(tmp.root() / "d");
  tmp.file("d/f", "one\n");
  const fs::path d = tmp.root() / "d";
  // Reading changes nothing.
  CHECK_FALSE(stales_directory(watch, tmp, "d", [&] {
    std::ifstream in(d / "f");
    std::string line;
    std::getline(in, line);
    static_cast<void>(fs::file_size(d / "f"));
    static_cast<void>(fs::directory_iterator(d));
  }));
  CHECK(stales_directory(watch, tmp, "d", [&] { tmp.file("d/new", ""); }));
  CHECK(stales_directory(watch, tmp, "d", [&] { append(tmp, "d/f", "more\n"); }));
  CHECK(stales_directory(watch, tmp, "d", [&] { fs::resize_file(d / "f", 1); }));
  CHECK(stales_directory(watch, tmp, "d", [&] {
    fs::permissions(d / "f", fs::perms::owner_read | fs::perms::owner_write);
  }));
  CHECK(stales_directory(watch, tmp, "d", [&] { fs::rename(d / "f", d / "g"); }));
  CHECK(stales_directory(watch, tmp, "d", [&] { fs::remove(d / "g"); }));
  CHECK(stales_directory(watch, tmp, "d", [&] { fs::create_directory(d / "sub"); }));
  CHECK(stales_directory(watch, tmp, "d", [&] { fs::create_symlink("sub", d / "link"); }));
  CHECK(stales_directory(watch, tmp, "d", [&] { fs::create_hard_link(d / "new", d / "hard"); }));
  // The directory itself moved away, or removed.
  CHECK(stales_directory(watch, tmp, "d", [&] { fs::rename(d, tmp.root() / "moved"); }));
  fs::create_directories(tmp.root() / "gone");
  CHECK(stales_directory(watch, tmp, "gone", [&] { fs::remove(tmp.root() / "gone"); }));
  CHECK(watch.events() > 0);
}

TEST_CASE("a stamp of a directory's entries ignores files written in place, but not ignore files",
          "[agent][dir_watch]") {
  if (!watchable_here()) return;
  TempDir tmp;
  DirWatch watch;
  fs::create_directories(tmp.root() / "d");
  tmp.file("d/f.c", "int x;\n");
  tmp.file("d/.gitignore", "*.o\n");
  auto entries_stamp = [&] {
    WatchStamp stamp = watch.begin(ctx::agent::Shows::kEntries);
    watch.watch_directory(stamp, open_dir(tmp, "d").get());
    REQUIRE(watch.unchanged(stamp));
    return stamp;
  };
  WatchStamp stamp = entries_stamp();
  tmp.file("d/f.c", "int x; int y;\n");  // truncated and written in place
  append(tmp, "d/f.c", "more\n");
  CHECK(watch.unchanged(stamp));
  tmp.file("d/.gitignore", "*.c\n");
  CHECK_FALSE(watch.unchanged(stamp));
  stamp = entries_stamp();
  tmp.file("d/.ignore", "");  // created
  CHECK_FALSE(watch.unchanged(stamp));
  stamp = entries_stamp();
  fs::permissions(tmp.root() / "d" / "f.c", fs::perms::owner_read);
  CHECK_FALSE(watch.unchanged(stamp));
  stamp = entries_stamp();
  fs::rename(tmp.root() / "d" / "f.c", tmp.root() / "d" / "g.c");
  CHECK_FALSE(watch.unchanged(stamp));
}

TEST_CASE("a stamp of names in a directory goes stale only for those names", "[agent][dir_watch]") {
  if (!watchable_here()) return;
  TempDir tmp;
  DirWatch watch;
  fs::create_directories(tmp.root() / "n");
  UniqueFd n = open_dir(tmp, "n");
  WatchStamp stamp = watch.begin();
  const std::string_view names[] = {".gitignore", "sub"};
  watch.watch_names(stamp, n.get(), names);
  REQUIRE(stamp.usable());
  tmp.file("n/other", "x");
  fs::create_directories(tmp.root() / "n" / "other_dir");
  CHECK(watch.unchanged(stamp));
  tmp.file("n/.gitignore", "*.o\n");
  CHECK_FALSE(watch.unchanged(stamp));

  WatchStamp second = watch.begin();
  watch.watch_names(second, n.get(), names);
  CHECK(watch.unchanged(second));
  fs::create_directories(tmp.root() / "n" / "sub");
  CHECK_FALSE(watch.unchanged(second));
  // The same directory watched by another stamp for other names: each goes by its own.
  WatchStamp third = watch.begin();
  watch.watch_names(third, n.get(), names);
  WatchStamp whole = watch.begin();
  watch.watch_directory(whole, n.get());
  tmp.file("n/another", "y");
  CHECK(watch.unchanged(third));
  CHECK_FALSE(watch.unchanged(whole));
  // The directory moved: every name's stamp goes stale.
  fs::rename(tmp.root() / "n", tmp.root() / "n2");
  CHECK_FALSE(watch.unchanged(third));
}

TEST_CASE("a watched path that does not exist yet goes stale when any part of it appears",
          "[agent][dir_watch]") {
  if (!watchable_here()) return;
  TempDir tmp;
  DirWatch watch;
  fs::create_directories(tmp.root() / "a");
  const std::string path = (tmp.root() / "a" / "b" / "c").string();
  auto stamp_of = [&] {
    WatchStamp stamp = watch.begin();
    watch.watch_path(stamp, path);
    REQUIRE(stamp.usable());
    REQUIRE(watch.unchanged(stamp));
    return stamp;
  };
  WatchStamp before_b = stamp_of();
  tmp.file("a/unrelated", "x");
  CHECK(watch.unchanged(before_b));
  fs::create_directories(tmp.root() / "a" / "b");
  CHECK_FALSE(watch.unchanged(before_b));
  WatchStamp before_c = stamp_of();
  tmp.file("a/b/c", "*.log\n");
  CHECK_FALSE(watch.unchanged(before_c));
  WatchStamp present = stamp_of();
  tmp.file("a/b/c", "*.tmp\n");
  CHECK_FALSE(watch.unchanged(present));
  // A symlink on the way: the watch would not see its target change.
  fs::create_symlink(tmp.root() / "a" / "b" / "c", tmp.root() / "a" / "link");
  WatchStamp linked = watch.begin();
  watch.watch_path(linked, (tmp.root() / "a" / "link").string());
  CHECK_FALSE(linked.usable());
  CHECK_FALSE(watch.unchanged(linked));
  WatchStamp relative = watch.begin();
  watch.watch_path(relative, "a/b/c");
  CHECK_FALSE(relative.usable());
}

TEST_CASE("lost events make every stamp stale; later stamps work again", "[agent][dir_watch]") {
  if (!watchable_here()) return;
  TempDir tmp;
  DirWatch watch;
  fs::create_directories(tmp.root() / "quiet");
  fs::create_directories(tmp.root() / "busy");
  UniqueFd quiet = open_dir(tmp, "quiet");
  UniqueFd busy = open_dir(tmp, "busy");
  WatchStamp stamp = watch.begin();
  watch.watch_directory(stamp, quiet.get());
  WatchStamp busy_stamp = watch.begin();
  watch.watch_directory(busy_stamp, busy.get());
  // More events than the queue holds, in the busy directory only (two names in turn: the kernel
  // merges an event equal to the one queued last).
  std::size_t limit = 16384;
  std::ifstream("/proc/sys/fs/inotify/max_queued_events") >> limit;
  tmp.file("busy/a", "");
  tmp.file("busy/b", "");
  const int a = ::open((tmp.root() / "busy" / "a").c_str(), O_WRONLY | O_CLOEXEC);
  const int b = ::open((tmp.root() / "busy" / "b").c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(a >= 0);
  REQUIRE(b >= 0);
  bool wrote = true;
  for (std::size_t i = 0; i <= limit / 2 + 8; ++i) {
    wrote = wrote && ::write(a, "x", 1) == 1 && ::write(b, "x", 1) == 1;
  }
  REQUIRE(wrote);
  ::close(a);
  ::close(b);
  CHECK_FALSE(watch.unchanged(stamp));  // nothing happened in `quiet`, but that is not known
  WatchStamp after = watch.begin();
  watch.watch_directory(after, quiet.get());
  CHECK(watch.unchanged(after));
  tmp.file("quiet/x", "");
  CHECK_FALSE(watch.unchanged(after));
}

TEST_CASE("list_directory gives a kept listing again only while nothing it came from changed",
          "[agent][list_directory][dir_watch]") {
  if (!watchable_here()) return;
  ToolEnv env;
  ctx::agent::SessionState session;
  env.session = &session;
  env.file("top.txt", "top\n");
  env.file("src/a.c", "int a;\n");
  env.file("src/deep/b.c", "int b;\n");
  const std::string args = R"({"path":"src","depth":2})";
  const ctx::agent::ToolOutput first = env.ok("list_directory", args);
  CHECK(lists(first, "src/deep/b.c"));
  REQUIRE(session.impl().listings.size() == 1);

  // Kept: given again without listing src/deep (never opened) and byte for byte the same.
  ctx::testing::OpenWatch opens((env.root() / "src").string());
  const ctx::agent::ToolOutput again = env.ok("list_directory", args);
  CHECK(opens.opened().count("deep") == 0);
  CHECK(again.text == first.text);
  CHECK(again.structured == first.structured);
  CHECK(again.tokens == first.tokens);

  // A file's size in a subdirectory.
  env.file("src/deep/b.c", "int b; int c;\n");
  CHECK(env.ok("list_directory", args).text.find("(14 bytes)") != std::string::npos);
  CHECK(opens.opened().count("deep") == 1);
  CHECK(env.ok("list_directory", args).text.find("(14 bytes)") != std::string::npos);
  CHECK(opens.opened().count("deep") == 0);  // kept again

  // An ignore file in the listed directory, above it inside the root, and above the root: each
  // is honoured at once.
  env.file("src/.ignore", "a.c\n");
  CHECK_FALSE(lists(env.ok("list_directory", args), "src/a.c"));
  env.file(".ignore", "deep/\n");
  CHECK_FALSE(lists(env.ok("list_directory", args), "src/deep"));
  fs::remove(env.root() / ".ignore");
  CHECK(lists(env.ok("list_directory", args), "src/deep"));
  CHECK(lists(env.ok("list_directory", args), "src/deep"));  // kept

  // A repository appears above the listed directory: its .gitignore starts to count, and so does
  // its info/exclude, edited later.
  env.file(".gitignore", "b.c\n");
  CHECK(lists(env.ok("list_directory", args), "src/deep/b.c"));  // no repository yet
  fs::create_directories(env.root() / ".git");
  CHECK_FALSE(lists(env.ok("list_directory", args), "src/deep/b.c"));
  fs::remove(env.root() / ".gitignore");
  CHECK(lists(env.ok("list_directory", args), "src/deep/b.c"));
  fs::create_directories(env.root() / ".git" / "info");
  CHECK(lists(env.ok("list_directory", args), "src/deep/b.c"));
  env.file(".git/info/exclude", "deep\n");
  CHECK_FALSE(lists(env.ok("list_directory", args), "src/deep"));
  env.file(".git/info/exclude", "# nothing\n");
  CHECK(lists(env.ok("list_directory", args), "src/deep"));

  // The path named now leads to another directory.
  fs::rename(env.root() / "src", env.root() / "old");
  env.file("src/fresh.c", "");
  const ctx::agent::ToolOutput replaced = env.ok("list_directory", args);
  CHECK(lists(replaced, "src/fresh.c"));
  CHECK_FALSE(lists(replaced, "src/deep"));
  CHECK(env.ok("list_directory", R"({"path":"old","depth":2})").text.find("b.c") !=
        std::string::npos);
}

TEST_CASE("list_directory keeps no listing that shows a file with other links",
          "[agent][list_directory][dir_watch]") {
  ToolEnv env;
  ctx::agent::SessionState session;
  env.session = &session;
  env.file("dir/one.txt", "1\n");
  env.file("elsewhere/two.txt", "22\n");
  fs::create_hard_link(env.root() / "elsewhere" / "two.txt", env.root() / "dir" / "two.txt");
  CHECK(env.ok("list_directory", R"({"path":"dir"})").text.find("(3 bytes)") != std::string::npos);
  CHECK(session.impl().listings.size() == 0);
  // Written through the other link, in a directory the listing did not watch.
  env.file("elsewhere/two.txt", "4444\n");
  CHECK(env.ok("list_directory", R"({"path":"dir"})").text.find("(5 bytes)") != std::string::npos);
  // Without a session, nothing is kept or watched.
  env.session = nullptr;
  CHECK(env.ok("list_directory", R"({"path":"elsewhere"})").text.find("two.txt") !=
        std::string::npos);
  CHECK(session.impl().listings.size() == 0);
}

TEST_CASE("a session's listings and finds equal fresh ones through random changes to the tree",
          "[agent][list_directory][dir_watch]") {
  // Random changes (files written, grown, cut, removed, renamed; directories made and removed;
  // ignore files and a repository's info/exclude written anywhere, the root included), each
  // followed by listings and finds through a session and without one, which must agree byte for
  // byte (and in what the policy hid, for the audit log).
  ToolEnv env;
  ctx::agent::SessionState session;
  std::mt19937 rng(static_cast<std::uint32_t>(Catch::rngSeed()));
  auto pick = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  const std::vector<std::string> dirs = {"", "a", "a/b", "a/b/c", "d", "d/e"};
  const std::vector<std::string> names = {"x.txt", "y.c", "z.o", "w.md", ".env"};
  const std::vector<std::string> rule_files = {".gitignore", ".ignore", ".rgignore", ".ctxignore"};
  const std::vector<std::string> rules = {"*.o\n", "x.txt\n", "b/\n", "!z.o\n*.o\n",
                                          "c\n",   "e\n",     ""};
  for (const std::string& d : dirs) env.dir(d.empty() ? "." : d);
  auto in = [](const std::string& dir, const std::string& name) {
    return dir.empty() ? name : dir + "/" + name;
  };
  const std::vector<std::string> patterns = {"*.txt",   "**/*.c", "a/**/*.o", "*",
                                             "**/w.md", "b/*",    "*.[co]"};
  std::uint64_t kept_hits = 0;
  std::uint64_t kept_finds = 0;
  for (int step = 0; step < 300; ++step) {
    const std::string& dir = dirs[pick(dirs.size())];
    if (!fs::is_directory(env.root() / (dir.empty() ? "." : dir))) {
      env.dir(dir);
      continue;
    }
    const fs::path target = env.root() / in(dir, names[pick(names.size())]);
    switch (pick(9)) {
      case 0:
      case 1:
        env.file(in(dir, names[pick(names.size())]), std::string(pick(40), 'x'));
        break;
      case 2:
        if (fs::is_regular_file(target)) fs::resize_file(target, pick(10));
        break;
      case 3:
        if (fs::is_regular_file(target)) fs::remove(target);
        break;
      case 4:
        if (fs::is_regular_file(target))
          fs::rename(target, env.root() / in(dir, names[pick(names.size())]));
        break;
      case 5:
        env.file(in(dir, rule_files[pick(rule_files.size())]), rules[pick(rules.size())]);
        break;
      case 6:
        if (pick(2) == 0) {
          env.dir(in(dir, ".git/info"));
          env.file(in(dir, ".git/info/exclude"), rules[pick(rules.size())]);
        } else {
          std::error_code ec;
          fs::remove_all(env.root() / in(dir, ".git"), ec);
        }
        break;
      case 7:
        if (!dir.empty() && pick(3) == 0) {
          std::error_code ec;
          fs::remove_all(env.root() / dir, ec);
        }
        break;
      default:
        break;  // no change: the next listings may be kept ones
    }
    for (int call = 0; call < 6; ++call) {
      const std::string& listed = dirs[pick(dirs.size())];
      const bool find = call >= 2;
      const std::string in_path =
          pick(3) == 0 ? fmt::format(R"("path":"{}",)", listed.empty() ? "." : listed) : "";
      const std::string args =
          find ? fmt::format(R"({{"pattern":"{}",{}"include_ignored":{}}})",
                             patterns[pick(patterns.size())], in_path,
                             pick(4) == 0 ? "true" : "false")
               : fmt::format(R"({{"path":"{}","depth":{},"include_ignored":{}}})",
                             listed.empty() ? "." : listed, 1 + pick(3),
                             pick(4) == 0 ? "true" : "false");
      const char* tool = find ? "find_files" : "list_directory";
      env.session = &session;
      auto& impl = session.impl();
      const std::uint64_t hits_before = impl.listing_hits.load() + impl.walk_hits.load();
      auto with = env.call(tool, args);
      (find ? kept_finds : kept_hits) +=
          impl.listing_hits.load() + impl.walk_hits.load() - hits_before;
      env.session = nullptr;
      auto without = env.call(tool, args);
      INFO("step " << step << ": " << args);
      REQUIRE(with.ok() == without.ok());
      if (!with.ok()) continue;
      const bool same = with->text == without->text && with->structured == without->structured;
      if (!same) FAIL_CHECK("kept:\n" << with->text << "\nfresh:\n" << without->text);
      REQUIRE(same);
      CHECK(with->policy_hidden == without->policy_hidden);
    }
  }
  if (!watchable_here()) {
    CHECK(kept_hits + kept_finds == 0);
    return;
  }
  CHECK(kept_hits > 20);
  CHECK(kept_finds > 50);
}

TEST_CASE("find_files keeps a tree's walk from its second find, and not a tree it cannot watch",
          "[agent][find_files][dir_watch]") {
  if (!watchable_here()) return;
  ToolEnv env;
  ctx::agent::SessionState session;
  env.session = &session;
  env.file("src/a.c", "int a;\n");
  env.file("src/sub/b.c", "int b;\n");
  env.file("src/sub/notes.md", "notes\n");
  auto& impl = session.impl();
  auto files = [&](const char* args) {
    const ctx::agent::ToolOutput out = env.ok("find_files", args);
    simdjson::dom::parser parser;
    auto json = ctx::agent::testing::parse(parser, out.structured);
    std::vector<std::string> paths;
    for (auto f : json["files"].get_array()) paths.emplace_back(std::string_view(f));
    return paths;
  };
  using Paths = std::vector<std::string>;
  CHECK(files(R"({"pattern":"*.c"})") == Paths{"src/a.c", "src/sub/b.c"});  // selective
  CHECK(files(R"({"pattern":"*.md"})") == Paths{"src/sub/notes.md"});       // whole, kept
  CHECK(impl.walk_hits.load() == 0);
  ctx::testing::OpenWatch opens((env.root() / "src").string());
  CHECK(files(R"({"pattern":"**/b.*"})") == Paths{"src/sub/b.c"});
  CHECK(impl.walk_hits.load() == 1);
  CHECK(opens.opened().count("sub") == 0);
  // A file written in place changes no find: still kept.
  env.file("src/sub/b.c", "int b; int c;\n");
  CHECK(files(R"({"pattern":"*.c"})") == Paths{"src/a.c", "src/sub/b.c"});
  CHECK(impl.walk_hits.load() == 2);
  // A new file does.
  env.file("src/sub/c.c", "");
  CHECK(files(R"({"pattern":"*.c"})") == Paths{"src/a.c", "src/sub/b.c", "src/sub/c.c"});
  CHECK(impl.walk_hits.load() == 2);

  // A `.git` file (a worktree's or a submodule's) names an info/exclude elsewhere, which is not
  // watched: that tree's walk is never kept, and is not walked whole again for a while.
  env.file("mod/.git", "gitdir: ../elsewhere\n");
  env.file("mod/x.c", "");
  const std::uint64_t hits = impl.walk_hits.load();
  for (int i = 0; i < 6; ++i) {
    CHECK(files(R"({"pattern":"*.c","path":"mod"})") == Paths{"mod/x.c"});
  }
  CHECK(impl.walk_hits.load() == hits);
  CHECK(impl.walks.size() == 1);  // the root's only
}

TEST_CASE("a mount over a watched directory makes its stamp stale", "[agent][dir_watch]") {
  if (!watchable_here()) return;
  // In a child process with a mount namespace of its own (private: nothing outside sees it, and
  // this process keeps sharing its working directory with its threads, which unshare would end).
  // The child's exit status: 0 all held, 1 + the index of the first check that failed, 100 no
  // mount namespace here (nothing to check).
  TempDir tmp;
  fs::create_directories(tmp.root() / "d" / "under");
  tmp.file("d/under/old.txt", "x");
  const std::string under = (tmp.root() / "d" / "under").string();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      ::_exit(100);
    }
    DirWatch watch;
    auto stamp_of = [&] {
      WatchStamp stamp = watch.begin();
      UniqueFd dir(::open(under.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
      watch.watch_directory(stamp, dir.get());
      return stamp;
    };
    WatchStamp before = stamp_of();
    if (!watch.unchanged(before)) ::_exit(1);
    if (::mount("none", under.c_str(), "tmpfs", 0, nullptr) != 0) ::_exit(2);
    if (watch.unchanged(before)) ::_exit(3);  // the mount over it
    WatchStamp mounted = stamp_of();
    if (!watch.unchanged(mounted)) ::_exit(4);
    if (::umount(under.c_str()) != 0) ::_exit(5);
    if (watch.unchanged(mounted)) ::_exit(6);  // the unmount
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 100) {
    WARN("no mount namespace here: mounts not checked");
    return;
  }
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("a directory on a file system inotify may not see changes of is never kept",
          "[agent][dir_watch]") {
  // procfs: its entries change without any inotify event.
  DirWatch watch;
  UniqueFd proc(::open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC));
  REQUIRE(proc);
  WatchStamp stamp = watch.begin();
  watch.watch_directory(stamp, proc.get());
  CHECK_FALSE(stamp.usable());
  CHECK_FALSE(watch.unchanged(stamp));
}

TEST_CASE("a kept listing follows the root when it moves, not what takes its old path",
          "[agent][list_directory][dir_watch]") {
  if (!watchable_here()) return;
  ToolEnv env;
  ctx::agent::SessionState session;
  env.session = &session;
  env.file("a/b/x.c", "int x;\n");
  const std::string args = R"({"path":"a/b"})";
  CHECK(lists(env.ok("list_directory", args), "a/b/x.c"));
  // The root moves, and another tree takes its old path.
  const fs::path root = env.root();
  const fs::path moved = root.string() + "-moved";
  fs::rename(root, moved);
  fs::create_directories(root / "a" / "b");
  CHECK(lists(env.ok("list_directory", args), "a/b/x.c"));  // the stamp made after the move
  CHECK(lists(env.ok("list_directory", args), "a/b/x.c"));  // kept
  // An ignore file above the listed directory, in the real root: seen.
  std::ofstream(moved / "a" / ".ignore") << "x.c\n";
  const bool hidden = !lists(env.ok("list_directory", args), "a/b/x.c");
  fs::remove_all(root);
  fs::rename(moved, root);  // for ToolEnv to remove
  CHECK(hidden);
}
