// The sandbox's attack suite: every way a model's path could leave the project root (`..`,
// absolute paths, symlinks out, magic links, loops, NUL bytes, long paths, a directory swapped
// for a symlink mid-open), each run on openat2 and on the portable O_NOFOLLOW walk; special files
// (FIFOs, sockets, character and block devices) looked up but never opened, with and without
// /proc; and a root given through a symlink, whose spelling absolute paths may use.
#include "ctx/agent/sandbox.hpp"

#include <fcntl.h>
#include <stdio.h>  // renameat2
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <string>
#include <thread>

#include "../../agent/src/sandbox_detail.hpp"
#include "open_watch.hpp"

namespace fs = std::filesystem;
using ctx::agent::EntryKind;
using ctx::agent::Expected;
using ctx::agent::OpenedPath;
using ctx::agent::Sandbox;
using ctx::agent::ToolErrorCode;

namespace {

// <tmp>/root is the sandbox root; <tmp>/outside holds files no path may reach.
class Tree {
 public:
  Tree() {
    std::string tmpl = (fs::temp_directory_path() / "ctxsbXXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    base_ = tmpl;
    fs::create_directories(base_ / "root");
    fs::create_directories(base_ / "outside");
    file_at(base_ / "outside" / "secret", "SECRET-MARKER\n");
  }
  ~Tree() {
    std::error_code ec;
    fs::permissions(base_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(base_, ec);
  }
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;

  static void file_at(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  void file(const std::string& rel, const std::string& text = "hello\n") {
    file_at(root() / rel, text);
  }
  void dir(const std::string& rel) { fs::create_directories(root() / rel); }
  void symlink(const std::string& target, const std::string& rel) {
    fs::create_directories((root() / rel).parent_path());
    REQUIRE(::symlink(target.c_str(), (root() / rel).c_str()) == 0);
  }
  fs::path root() const { return base_ / "root"; }
  fs::path outside() const { return base_ / "outside"; }

 private:
  fs::path base_;
};

// Forces the fallback walk for the lifetime of the guard when `on`.
class ForceFallback {
 public:
  explicit ForceFallback(bool on) { ctx::agent::detail::set_force_openat2_fallback(on); }
  ~ForceFallback() { ctx::agent::detail::set_force_openat2_fallback(false); }
  ForceFallback(const ForceFallback&) = delete;
  ForceFallback& operator=(const ForceFallback&) = delete;
};

// Makes open_beneath act as if /proc were not mounted, for the lifetime of the guard when `on`.
class ForceNoProc {
 public:
  explicit ForceNoProc(bool on) { ctx::agent::detail::set_force_no_proc(on); }
  ~ForceNoProc() { ctx::agent::detail::set_force_no_proc(false); }
  ForceNoProc(const ForceNoProc&) = delete;
  ForceNoProc& operator=(const ForceNoProc&) = delete;
};

using ctx::testing::OpenWatch;

// Binds a unix socket at `path`; the returned fd keeps it alive.
int bind_socket(const std::string& path) {
  int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(s >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(path.size() < sizeof addr.sun_path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  return s;
}

// Creates a device node; false, with a warning, where this process may not (no CAP_MKNOD).
bool make_device(const fs::path& path, mode_t type, dev_t dev) {
  if (::mknod(path.c_str(), type | 0600, dev) == 0) return true;
  WARN("mknod " << path << ": " << std::strerror(errno) << "; the device cases are skipped");
  return false;
}

Sandbox open_root(const Tree& t) {
  auto sb = Sandbox::open(t.root().string());
  REQUIRE(sb.ok());
  return std::move(sb).value();
}

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::pread(fd, buf, sizeof buf, static_cast<off_t>(out.size()));
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

std::string describe(const Expected<OpenedPath>& r) {
  if (r.ok()) return "opened '" + r->canonical + "'";
  return std::string(ctx::agent::to_string(r.error().code)) + ": " + r.error().message + " [" +
         r.error().hint + "]";
}

// Runs the section on both resolution paths.
bool use_fallback() {
  const bool fallback = GENERATE(false, true);
  if (!fallback && !ctx::agent::detail::openat2_available()) {
    WARN("this kernel has no openat2; both runs use the fallback walk");
  }
  return fallback;
}

void require_code(const Expected<OpenedPath>& r, ToolErrorCode code) {
  INFO(describe(r));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == code);
}

}  // namespace

TEST_CASE("normalize turns a model's path into a root-relative one", "[agent][sandbox]") {
  Tree t;
  Sandbox sb = open_root(t);
  const std::string root = sb.root_path();
  CHECK(root == fs::canonical(t.root()).string());
  CHECK(sb.normalize("").value().empty());
  CHECK(sb.normalize(".").value().empty());
  CHECK(sb.normalize("./").value().empty());
  CHECK(sb.normalize(root).value().empty());
  CHECK(sb.normalize(root + "/").value().empty());
  CHECK(sb.normalize("src/x.c").value() == "src/x.c");
  CHECK(sb.normalize("./src/x.c").value() == "src/x.c");
  CHECK(sb.normalize("a//b/./c/").value() == "a/b/c");
  CHECK(sb.normalize("a/../b").value() == "b");
  CHECK(sb.normalize(root + "/src/../src/x.c").value() == "src/x.c");
  // Up and back in again through the root's own name stays inside.
  CHECK(sb.normalize("../root/x.c").value() == "x.c");
}

TEST_CASE("normalize refuses paths that leave the root and NUL bytes, with a hint",
          "[agent][sandbox]") {
  Tree t;
  Sandbox sb = open_root(t);
  for (const char* path : {"..", "../outside/secret", "a/../../x", "/etc/passwd", "/",
                           "../../../../../../etc/passwd"}) {
    INFO(path);
    auto r = sb.normalize(path);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ToolErrorCode::kOutsideRoot);
    CHECK(r.error().hint.find(sb.root_path()) != std::string::npos);
  }
  auto up = sb.normalize("../src/x.c");
  REQUIRE_FALSE(up.ok());
  CHECK(up.error().hint ==
        "paths are relative to the project root " + sb.root_path() + "; try 'src/x.c'");
  auto elsewhere = sb.normalize("/home/someone/proj/src/x.c");
  REQUIRE_FALSE(elsewhere.ok());
  CHECK(elsewhere.error().hint.find("find_files with pattern='**/x.c'") != std::string::npos);
  // A sibling whose name starts with the root's name is not under it.
  auto sibling = sb.normalize(sb.root_path() + "x/file");
  REQUIRE_FALSE(sibling.ok());
  CHECK(sibling.error().code == ToolErrorCode::kOutsideRoot);
  auto nul = sb.normalize(std::string("a\0b", 3));
  REQUIRE_FALSE(nul.ok());
  CHECK(nul.error().code == ToolErrorCode::kInvalidArgument);
}

TEST_CASE("opening the root fails clearly when it is missing or a file", "[agent][sandbox]") {
  Tree t;
  t.file("f");
  auto missing = Sandbox::open((t.root() / "nope").string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ToolErrorCode::kNotFound);
  CHECK(missing.error().message.find("nope") != std::string::npos);
  auto file = Sandbox::open((t.root() / "f").string());
  REQUIRE_FALSE(file.ok());
  CHECK(file.error().code == ToolErrorCode::kNotADirectory);
}

TEST_CASE("a root given through a symlink is stored as its real path", "[agent][sandbox]") {
  Tree t;
  fs::create_directory_symlink(t.root(), t.outside() / "alias");
  auto sb = Sandbox::open((t.outside() / "alias").string());
  REQUIRE(sb.ok());
  CHECK(sb->root_path() == fs::canonical(t.root()).string());
}

TEST_CASE(
    "absolute paths are accepted through the root's real path and the symlink it was given as",
    "[agent][sandbox][alias]") {
  Tree t;
  t.file("src/a.c", "int a;\n");
  const fs::path link = t.outside() / "link-to-project";
  fs::create_directory_symlink(t.root(), link);
  auto sb = Sandbox::open(link.string());
  REQUIRE(sb.ok());
  const std::string real = sb->root_path();
  const std::string alias = link.string();
  CHECK(real == fs::canonical(t.root()).string());
  CHECK(sb->root_alias() == alias);
  for (const std::string& root : {real, alias}) {
    INFO(root);
    CHECK(sb->normalize(root + "/src/a.c").value() == "src/a.c");
    CHECK(sb->normalize(root + "//src/./a.c").value() == "src/a.c");
    CHECK(sb->normalize(root).value().empty());
    CHECK(sb->normalize(root + "/").value().empty());
    auto opened = sb->open_beneath(sb->normalize(root + "/src/a.c").value());
    INFO(describe(opened));
    REQUIRE(opened.ok());
    CHECK(opened->canonical == "src/a.c");
    CHECK(read_all(opened->fd.get()) == "int a;\n");
  }
  CHECK(sb->normalize("src/a.c").value() == "src/a.c");
  // The prefix counts only at a component boundary: "link-to-projectX" is a sibling, not inside.
  fs::create_directories(alias + "X/src");
  for (const std::string& path :
       {alias + "X/src/a.c", alias + "X", real + "X/src/a.c", alias + "/../secret",
        alias + "/../../outside/secret", (t.outside() / "secret").string()}) {
    INFO(path);
    auto r = sb->normalize(path);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ToolErrorCode::kOutsideRoot);
  }
}

TEST_CASE("a root given by its real path, or through '..', keeps no alias",
          "[agent][sandbox][alias]") {
  Tree t;
  fs::create_directory_symlink(t.root(), t.outside() / "link");
  auto plain = Sandbox::open(t.root().string() + "/");
  REQUIRE(plain.ok());
  CHECK(plain->root_alias().empty());
  // ".." after a symlink means the symlink target's parent, so the spelling is not kept lexically.
  auto dotted = Sandbox::open((t.outside() / ".." / "outside" / "link").string());
  REQUIRE(dotted.ok());
  CHECK(dotted->root_alias().empty());
  CHECK(dotted->root_path() == fs::canonical(t.root()).string());
  auto r = dotted->normalize((t.outside() / "link" / "x").string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ToolErrorCode::kOutsideRoot);
}

TEST_CASE("files and directories inside the root open with their kind and canonical path",
          "[agent][sandbox]") {
  Tree t;
  t.file("a.txt", "alpha\n");
  t.file("sub/deep/b.txt", "beta\n");
  Sandbox sb = open_root(t);
  ForceFallback force(use_fallback());
  ForceNoProc no_proc(GENERATE(false, true));

  auto a = sb.open_beneath("a.txt");
  INFO(describe(a));
  REQUIRE(a.ok());
  CHECK(a->canonical == "a.txt");
  CHECK(a->kind == EntryKind::kFile);
  CHECK(a->st.st_size == 6);
  CHECK(read_all(a->fd.get()) == "alpha\n");

  auto b = sb.open_beneath("sub/deep/b.txt");
  REQUIRE(b.ok());
  CHECK(b->canonical == "sub/deep/b.txt");
  CHECK(read_all(b->fd.get()) == "beta\n");

  auto root = sb.open_beneath("");
  REQUIRE(root.ok());
  CHECK(root->canonical.empty());
  CHECK(root->kind == EntryKind::kDirectory);

  auto sub = sb.open_beneath("sub/deep/../deep");
  REQUIRE(sub.ok());
  CHECK(sub->canonical == "sub/deep");
  CHECK(sub->kind == EntryKind::kDirectory);

  auto back = sb.open_beneath("sub/..");
  REQUIRE(back.ok());
  CHECK(back->canonical.empty());
}

TEST_CASE("missing paths and files used as directories get their own codes", "[agent][sandbox]") {
  Tree t;
  t.file("a.txt");
  Sandbox sb = open_root(t);
  ForceFallback force(use_fallback());
  auto missing = sb.open_beneath("src/nothing.c");
  require_code(missing, ToolErrorCode::kNotFound);
  CHECK(missing.error().hint.find("find_files") != std::string::npos);
  CHECK(missing.error().hint.find("nothing.c") != std::string::npos);
  require_code(sb.open_beneath("a.txt/x"), ToolErrorCode::kNotADirectory);
}

TEST_CASE("dot-dot cannot leave the root, plain, nested or after a symlink", "[agent][sandbox]") {
  Tree t;
  t.file("a.txt");
  t.file("sub/deeper/x");
  t.symlink("sub/deeper", "link");
  Sandbox sb = open_root(t);
  ForceFallback force(use_fallback());
  for (const char* path :
       {"..", "../outside/secret", "sub/../../outside/secret", "sub/deeper/../../../outside/secret",
        "link/../../../outside/secret", "link/../../..", "./../root/../outside/secret"}) {
    INFO(path);
    require_code(sb.open_beneath(path), ToolErrorCode::kOutsideRoot);
  }
  // `..` after a symlink is taken physically, from where the symlink led (as the kernel does).
  t.file("sub/y", "physical\n");
  auto y = sb.open_beneath("link/../y");
  INFO(describe(y));
  REQUIRE(y.ok());
  CHECK(y->canonical == "sub/y");
  CHECK(read_all(y->fd.get()) == "physical\n");
}

TEST_CASE("absolute paths are refused by open_beneath and mapped by normalize",
          "[agent][sandbox]") {
  Tree t;
  t.file("a.txt", "inside\n");
  Sandbox sb = open_root(t);
  ForceFallback force(use_fallback());
  require_code(sb.open_beneath("/etc/passwd"), ToolErrorCode::kOutsideRoot);
  require_code(sb.open_beneath((t.outside() / "secret").string()), ToolErrorCode::kOutsideRoot);
  auto rel = sb.normalize(sb.root_path() + "/a.txt");
  REQUIRE(rel.ok());
  auto opened = sb.open_beneath(*rel);
  REQUIRE(opened.ok());
  CHECK(read_all(opened->fd.get()) == "inside\n");
}

TEST_CASE("symlinks that point out of the root are refused", "[agent][sandbox]") {
  Tree t;
  const std::string secret = (t.outside() / "secret").string();
  t.symlink(secret, "abs_file");
  t.symlink("../outside/secret", "rel_file");
  t.symlink(t.outside().string(), "abs_dir");
  t.symlink("../outside", "rel_dir");
  t.symlink("../../outside", "sub/rel_dir2");
  t.symlink("/", "slash");
  t.symlink("/etc/passwd", "passwd");
  Sandbox sb = open_root(t);
  ForceFallback force(use_fallback());
  for (const char* path :
       {"abs_file", "rel_file", "abs_dir", "abs_dir/secret", "rel_dir", "rel_dir/secret",
        "sub/rel_dir2/secret", "slash", "slash/etc/passwd", "passwd"}) {
    INFO(path);
    auto r = sb.open_beneath(path);
    INFO(describe(r));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ToolErrorCode::kOutsideRoot);
  }
}

// Decision: a symlink to an absolute path is refused even when that path is inside the root,
// exactly as RESOLVE_BENEATH refuses it, so both resolution paths agree and no absolute target is
// ever interpreted. Relative in-root symlinks cover the legitimate uses.
TEST_CASE("a symlink to an absolute path inside the root is refused like RESOLVE_BENEATH does",
          "[agent][sandbox]") {
  Tree t;
  t.file("a.txt");
  t.symlink((fs::canonical(t.root()) / "a.txt").string(), "abs_in");
  Sandbox sb = open_root(t);
  ForceFallback force(use_fallback());
  require_code(sb.open_beneath("abs_in"), ToolErrorCode::kOutsideRoot);
}

TEST_CASE("symlinks that stay inside the root are followed to their target", "[agent][sandbox]") {
  Tree t;
  t.file("sub/target.txt", "target\n");
  t.symlink("sub/target.txt", "link_file");
  t.symlink("sub", "link_dir");
  t.symlink("link_file", "chain");
  t.symlink("../sub/target.txt", "other/up_and_in");
  t.symlink(".", "sub/self_dir");
  Sandbox sb = open_root(t);
  ForceFallback force(use_fallback());
  for (const char* path : {"link_file", "link_dir/target.txt", "chain", "other/up_and_in",
                           "sub/self_dir/self_dir/target.txt"}) {
    INFO(path);
    auto r = sb.open_beneath(path);
    INFO(describe(r));
    REQUIRE(r.ok());
    CHECK(r->canonical == "sub/target.txt");
    CHECK(r->kind == EntryKind::kFile);
    CHECK(read_all(r->fd.get()) == "target\n");
  }
  auto dir = sb.open_beneath("link_dir");
  REQUIRE(dir.ok());
  CHECK(dir->canonical == "sub");
  CHECK(dir->kind == EntryKind::kDirectory);
}

TEST_CASE("symlink loops end in an error, not a hang", "[agent][sandbox]") {
  Tree t;
  t.symlink("b", "a");
  t.symlink("a", "b");
  t.symlink("self", "self");
  t.symlink("loopdir/loopdir", "loopdir");
  Sandbox sb = open_root(t);
  ForceFallback force(use_fallback());
  for (const char* path : {"a", "b", "self", "self/x", "loopdir/x"}) {
    INFO(path);
    auto r = sb.open_beneath(path);
    INFO(describe(r));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ToolErrorCode::kIoError);
    CHECK(r.error().message.find("loop") != std::string::npos);
  }
}

TEST_CASE("magic links planted inside the root are refused", "[agent][sandbox]") {
  Tree t;
  Sandbox sb = open_root(t);
  t.symlink("/proc/self/root", "proc_root");
  t.symlink("/proc/self/cwd", "proc_cwd");
  t.symlink("/proc/self/fd/" + std::to_string(sb.root_fd()), "proc_fd");
  // The same through a relative climb (deep enough for any temp dir).
  std::string up;
  for (int i = 0; i < 40; ++i) up += "../";
  t.symlink(up + "proc/self/root", "proc_root_rel");
  t.symlink(up + "proc/self/cwd", "proc_cwd_rel");
  ForceFallback force(use_fallback());
  for (const char* path : {"proc_root", "proc_root/etc/passwd", "proc_cwd", "proc_fd", "proc_fd/..",
                           "proc_root_rel/etc/passwd", "proc_cwd_rel"}) {
    INFO(path);
    auto r = sb.open_beneath(path);
    INFO(describe(r));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ToolErrorCode::kOutsideRoot);
  }
}

TEST_CASE("NUL bytes and overlong paths are invalid arguments", "[agent][sandbox]") {
  Tree t;
  t.file("a");
  Sandbox sb = open_root(t);
  ForceFallback force(use_fallback());
  require_code(sb.open_beneath(std::string("a\0/../../etc/passwd", 19)),
               ToolErrorCode::kInvalidArgument);
  require_code(sb.open_beneath(std::string(PATH_MAX + 10, 'a')), ToolErrorCode::kInvalidArgument);
  std::string many;
  while (many.size() <= PATH_MAX) many += "a/";
  require_code(sb.open_beneath(many), ToolErrorCode::kInvalidArgument);
  require_code(sb.open_beneath(std::string(NAME_MAX + 1, 'n')), ToolErrorCode::kInvalidArgument);
  // Long but legal: a path just under PATH_MAX of missing directories is simply not found.
  std::string near;
  while (near.size() + 2 < PATH_MAX - 10) near += "m/";
  near += "f";
  require_code(sb.open_beneath(near), ToolErrorCode::kNotFound);
}

TEST_CASE("FIFOs, sockets and devices are looked up, never opened, and come back as special",
          "[agent][sandbox][special]") {
  Tree t;
  REQUIRE(::mkfifo((t.root() / "fifo").c_str(), 0600) == 0);
  const int sock = bind_socket((t.root() / "sock").string());
  // /dev/null's numbers (reading it is harmless, but the test asserts it is not even opened) and
  // a loop device's (opening some block and tape devices has side effects, e.g. a rewind).
  const bool devices = make_device(t.root() / "null", S_IFCHR, makedev(1, 3)) &&
                       make_device(t.root() / "blk", S_IFBLK, makedev(7, 0));
  t.symlink("null", "link-to-null");
  std::vector<std::string> names = {"fifo", "sock"};
  if (devices) names.insert(names.end(), {"null", "blk", "link-to-null"});
  Sandbox sb = open_root(t);
  const bool fallback = use_fallback();
  const bool no_proc = GENERATE(false, true);
  OpenWatch watch(t.root());
  for (const std::string& name : names) {
    INFO(name << (fallback ? " (fallback walk)" : "") << (no_proc ? " (no /proc)" : ""));
    auto done = std::async(std::launch::async, [&] {
      ForceFallback force(fallback);
      ForceNoProc force_no_proc(no_proc);
      return sb.open_beneath(name);
    });
    if (done.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
      int w = ::open((t.root() / "fifo").c_str(), O_WRONLY | O_NONBLOCK);
      done.wait();
      if (w >= 0) ::close(w);
      FAIL("open_beneath blocked on " << name);
    }
    auto r = done.get();
    INFO(describe(r));
    REQUIRE(r.ok());
    CHECK(r->kind == EntryKind::kSpecial);
    CHECK(r->canonical == (name == "link-to-null" ? "null" : name));
    // The fd is a lookup handle: fstat works (the kind came from it), reading does not.
    CHECK((::fcntl(r->fd.get(), F_GETFL) & O_PATH) != 0);
    char byte = 0;
    CHECK(::read(r->fd.get(), &byte, 1) == -1);
  }
  const std::set<std::string> opened = watch.opened();
  for (const std::string& name : names) {
    INFO(name);
    CHECK(opened.count(name) == 0);
  }
  if (devices) {
    // The watch does see a real open of the device, so the check above could fail.
    int fd = ::open((t.root() / "null").c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    ::close(fd);
    CHECK(watch.opened().count("null") == 1);
  }
  ::close(sock);
}

TEST_CASE("without /proc a regular file is reopened by path and checked to be the same inode",
          "[agent][sandbox]") {
  Tree t;
  t.file("sub/a.txt", "alpha\n");
  t.symlink("sub/a.txt", "link");
  Sandbox sb = open_root(t);
  ForceFallback force(use_fallback());
  ForceNoProc no_proc(true);
  OpenWatch watch(t.root() / "sub");
  auto r = sb.open_beneath("link");
  INFO(describe(r));
  REQUIRE(r.ok());
  CHECK(r->canonical == "sub/a.txt");
  CHECK(r->kind == EntryKind::kFile);
  CHECK(read_all(r->fd.get()) == "alpha\n");
  CHECK((::fcntl(r->fd.get(), F_GETFL) & (O_PATH | O_NONBLOCK)) == 0);
  CHECK(watch.opened().count("a.txt") == 1);
}

TEST_CASE("unreadable files are io errors and searchable-only directories can be passed",
          "[agent][sandbox]") {
  if (::geteuid() == 0) {
    WARN("running as root: permission checks do not apply, test skipped");
    return;
  }
  Tree t;
  t.file("locked.txt");
  t.file("xonly/inner.txt", "inner\n");
  fs::permissions(t.root() / "locked.txt", fs::perms::none);
  fs::permissions(t.root() / "xonly", fs::perms::owner_exec);
  Sandbox sb = open_root(t);
  ForceFallback force(use_fallback());
  auto locked = sb.open_beneath("locked.txt");
  require_code(locked, ToolErrorCode::kIoError);
  CHECK(locked.error().message.find("permission denied") != std::string::npos);
  auto inner = sb.open_beneath("xonly/inner.txt");
  INFO(describe(inner));
  REQUIRE(inner.ok());
  CHECK(read_all(inner->fd.get()) == "inner\n");
  fs::permissions(t.root() / "xonly", fs::perms::owner_all);
}

// The check-then-use race: a directory inside the root is swapped, over and over, with a symlink
// to an outside directory holding a secret, while another thread opens and reads "d/file".
TEST_CASE("a directory swapped for a symlink out of the root never leaks the outside file",
          "[agent][sandbox][race]") {
  Tree t;
  t.file("d/file", "SAFE\n");
  Tree::file_at(t.outside() / "dir" / "file", "SECRET-MARKER\n");
  const bool absolute_target = GENERATE(false, true);
  t.symlink(absolute_target ? (t.outside() / "dir").string() : "../outside/dir", "swap");
  Sandbox sb = open_root(t);
  const bool fallback = use_fallback();
  const std::string d = (t.root() / "d").string();
  const std::string swap = (t.root() / "swap").string();

  std::atomic<bool> stop{false};
  std::atomic<long> swaps{0};
  std::thread swapper([&] {
    bool exchange = true;
    while (!stop.load(std::memory_order_relaxed)) {
      if (exchange &&
          ::renameat2(AT_FDCWD, d.c_str(), AT_FDCWD, swap.c_str(), RENAME_EXCHANGE) == 0) {
        swaps.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      exchange = false;  // no RENAME_EXCHANGE here: the plain rename(2) three-step
      const std::string tmp = d + ".tmp";
      if (::rename(d.c_str(), tmp.c_str()) == 0 && ::rename(swap.c_str(), d.c_str()) == 0 &&
          ::rename(tmp.c_str(), swap.c_str()) == 0) {
        swaps.fetch_add(1, std::memory_order_relaxed);
      }
    }
  });

  ForceFallback force(fallback);
  long safe = 0, refused = 0, other = 0, leaked = 0, iterations = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline &&
         (iterations < 4000 || safe == 0 || refused == 0)) {
    ++iterations;
    auto r = sb.open_beneath("d/file");
    if (r.ok()) {
      std::string text = read_all(r->fd.get());
      if (text.find("SECRET") != std::string::npos) {
        ++leaked;
      } else if (text == "SAFE\n") {
        ++safe;
      }
      CHECK(r->canonical.find("outside") == std::string::npos);
    } else if (r.error().code == ToolErrorCode::kOutsideRoot) {
      ++refused;
    } else {
      ++other;  // not_found / not_a_directory while a rename is half done
    }
  }
  stop = true;
  swapper.join();
  INFO("iterations " << iterations << ", swaps " << swaps.load() << ", safe " << safe
                     << ", refused " << refused << ", other " << other);
  CHECK(leaked == 0);
  CHECK(iterations >= 4000);
  // The race was real: both states of d were seen.
  CHECK(safe > 0);
  CHECK(refused > 0);
}

TEST_CASE("a file looked up for its stat only is opened for reading by reopen, as open would",
          "[agent][sandbox]") {
  Tree t;
  t.file("a.txt", "alpha\n");
  t.file("sub/b.txt", "beta\n");
  Sandbox sb = open_root(t);
  ForceFallback force(use_fallback());
  ForceNoProc no_proc(GENERATE(false, true));
  OpenWatch watch(t.root());
  auto a = sb.open_beneath("a.txt", Sandbox::OpenFor::kLookup);
  REQUIRE(a.ok());
  CHECK_FALSE(a->readable);
  CHECK(a->kind == EntryKind::kFile);
  CHECK(a->st.st_size == 6);
  char byte = 0;
  CHECK(::read(a->fd.get(), &byte, 1) < 0);  // O_PATH: no reading
  CHECK(watch.opened().count("a.txt") == 0);
  const ino_t ino = a->st.st_ino;
  REQUIRE(sb.reopen(*a, "a.txt").ok());
  CHECK(a->readable);
  CHECK(read_all(a->fd.get()) == "alpha\n");
  struct stat st {};
  REQUIRE(::fstat(a->fd.get(), &st) == 0);
  CHECK(st.st_ino == ino);
  const int fd = a->fd.get();
  REQUIRE(sb.reopen(*a, "a.txt").ok());  // a no-op once readable: the same fd
  CHECK(a->fd.get() == fd);
  // Directories are opened for reading whatever the purpose.
  auto sub = sb.open_beneath("sub", Sandbox::OpenFor::kLookup);
  REQUIRE(sub.ok());
  CHECK(sub->readable);
  CHECK(sub->kind == EntryKind::kDirectory);
}
