// FIFOs, sockets and device nodes inside the root, through every tool: read_file and
// search_files refuse them with special_file, file_info describes them from a stat, the walks
// list or skip them, and none of them is ever opened (inotify sees no open; opening some devices
// has side effects, and a FIFO without a writer would block a reader forever).
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <future>
#include <set>
#include <string>
#include <vector>

#include "../../agent/src/sandbox_detail.hpp"
#include "open_watch.hpp"
#include "tool_test_env.hpp"

namespace {

using ctx::agent::ToolErrorCode;
using ctx::agent::testing::ToolEnv;

using ctx::testing::OpenWatch;

// A root holding a text file, a FIFO, a socket and (when this process may mknod) a character
// device, a block device and a symlink to the character device. (Not named "null": tool
// arguments take the string "null" for an absent parameter, as small models send it.)
struct SpecialTree {
  ToolEnv env;
  int sock = -1;
  bool devices = false;
  std::vector<std::string> specials;

  SpecialTree() {
    env.file("notes.txt", "needle in a text file\n");
    const std::string root = env.root().string();
    REQUIRE(::mkfifo((root + "/fifo").c_str(), 0600) == 0);
    sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(sock >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string sock_path = root + "/sock";
    REQUIRE(sock_path.size() < sizeof addr.sun_path);
    std::memcpy(addr.sun_path, sock_path.c_str(), sock_path.size() + 1);
    REQUIRE(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    specials = {"fifo", "sock"};
    devices = ::mknod((root + "/devnull").c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0 &&
              ::mknod((root + "/blk").c_str(), S_IFBLK | 0600, makedev(7, 0)) == 0;
    if (devices) {
      env.symlink("devnull", "link-to-devnull");
      specials.insert(specials.end(), {"devnull", "blk", "link-to-devnull"});
    } else {
      WARN("mknod failed (" << std::strerror(errno) << "): the device cases are skipped");
    }
  }
  ~SpecialTree() { ::close(sock); }
  SpecialTree(const SpecialTree&) = delete;
  SpecialTree& operator=(const SpecialTree&) = delete;
};

// Runs the call on another thread so a call that blocks (on a FIFO) fails the test instead of
// hanging it.
ctx::agent::Expected<ctx::agent::ToolOutput> call_or_fail(const ToolEnv& env, std::string_view tool,
                                                          const std::string& args) {
  auto done = std::async(std::launch::async, [&] { return env.call(tool, args); });
  if (done.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    int w = ::open((env.root() / "fifo").c_str(), O_WRONLY | O_NONBLOCK);
    done.wait();
    if (w >= 0) ::close(w);
    FAIL(tool << " " << args << " blocked");
  }
  return done.get();
}

// The swap of the test below: when search_files is about to open "swapped.txt" (the walk saw a
// regular file), the file is replaced by a FIFO holding "needle" from a writer, or by a character
// device (/dev/zero's numbers), once.
struct Swap {
  std::string root;
  bool device = false;
  bool done = false;
  int fifo_writer = -1;
  bool ok = false;
};
Swap g_swap;

void swap_before_open(std::string_view path) {
  if (path != "swapped.txt" || g_swap.done) return;
  g_swap.done = true;
  const std::string file = g_swap.root + "/swapped.txt";
  if (::unlink(file.c_str()) != 0) return;
  if (g_swap.device) {
    g_swap.ok = ::mknod(file.c_str(), S_IFCHR | 0600, makedev(1, 5)) == 0;
    return;
  }
  if (::mkfifo(file.c_str(), 0600) != 0) return;
  // O_RDWR opens a FIFO without waiting for a reader; the bytes wait in the pipe for one.
  g_swap.fifo_writer = ::open(file.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  g_swap.ok = g_swap.fifo_writer >= 0 && ::write(g_swap.fifo_writer, "needle\n", 7) == 7;
}

}  // namespace

TEST_CASE("search_files never reads a FIFO or device swapped in for a file after the walk",
          "[agent][special]") {
  for (const bool device : {false, true}) {
    INFO((device ? "a character device" : "a FIFO with a writer"));
    ToolEnv env;
    env.file("plain.txt", "needle\n");
    env.file("swapped.txt", "needle\n");
    g_swap = Swap{env.root().string(), device};
    ctx::agent::detail::set_walk_open_hook(swap_before_open);
    auto out = call_or_fail(env, "search_files", R"({"pattern":"needle"})");
    ctx::agent::detail::set_walk_open_hook(nullptr);
    std::string left;  // what is still in the FIFO: all of it when nobody read it
    if (g_swap.fifo_writer >= 0) {
      char buf[16] = {};
      const ssize_t n = ::read(g_swap.fifo_writer, buf, sizeof buf);
      if (n > 0) left.assign(buf, static_cast<std::size_t>(n));
      ::close(g_swap.fifo_writer);
    }
    REQUIRE(g_swap.done);
    if (!g_swap.ok && device) {
      WARN("mknod failed (" << std::strerror(errno) << "): the device case is skipped");
      continue;
    }
    REQUIRE(g_swap.ok);
    REQUIRE(out.ok());
    if (!device) CHECK(left == "needle\n");
    // Only the regular file's match, and the swapped path reported as unreadable: it was opened
    // non-blocking, fstat'ed and refused by its type (a device read would give NULs: "binary").
    CHECK(out->structured.find(R"("total":1,)") != std::string::npos);
    CHECK(out->text.find("plain.txt") != std::string::npos);
    CHECK(out->structured.find(R"("unreadable":{"count":1,"examples":["swapped.txt"]})") !=
          std::string::npos);
  }
}

TEST_CASE("read_file refuses FIFOs, sockets and devices by their type, without opening them",
          "[agent][special]") {
  SpecialTree t;
  OpenWatch watch(t.env.root().string());
  for (const std::string& name : t.specials) {
    INFO(name);
    auto out = call_or_fail(t.env, "read_file", R"({"path":")" + name + R"("})");
    REQUIRE_FALSE(out.ok());
    CHECK(out.error().code == ToolErrorCode::kSpecialFile);
    CHECK(out.error().message.find("not a regular file") != std::string::npos);
  }
  const std::set<std::string> opened = watch.opened();
  for (const std::string& name : t.specials) {
    INFO(name);
    CHECK(opened.count(name) == 0);
  }
  // The watch sees real opens: reading the text file shows up, so the checks above can fail.
  REQUIRE(call_or_fail(t.env, "read_file", R"({"path":"notes.txt"})").ok());
  CHECK(watch.opened().count("notes.txt") == 1);
  if (t.devices) {
    int fd = ::open((t.env.root() / "devnull").c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    ::close(fd);
    CHECK(watch.opened().count("devnull") == 1);
  }
}

TEST_CASE("file_info describes FIFOs, sockets and devices from a stat, without opening them",
          "[agent][special]") {
  SpecialTree t;
  OpenWatch watch(t.env.root().string());
  for (const std::string& name : t.specials) {
    INFO(name);
    auto out = call_or_fail(t.env, "file_info", R"({"path":")" + name + R"("})");
    REQUIRE(out.ok());
    CHECK(out->structured.find(R"("kind":"special")") != std::string::npos);
    CHECK(out->structured.find(R"("hash":null)") != std::string::npos);
    CHECK(out->structured.find(R"("encoding":null)") != std::string::npos);
    CHECK(out->text.find("kind: special") != std::string::npos);
    ctx::agent::testing::check_output_schema("file_info", out->structured);
  }
  const std::set<std::string> opened = watch.opened();
  for (const std::string& name : t.specials) {
    INFO(name);
    CHECK(opened.count(name) == 0);
  }
}

TEST_CASE("search_files refuses a special file as its path and never opens one in a walk",
          "[agent][special]") {
  SpecialTree t;
  OpenWatch watch(t.env.root().string());
  for (const std::string& name : t.specials) {
    INFO(name);
    auto out = call_or_fail(t.env, "search_files", R"({"pattern":"x","path":")" + name + R"("})");
    REQUIRE_FALSE(out.ok());
    CHECK(out.error().code == ToolErrorCode::kSpecialFile);
  }
  auto all = call_or_fail(t.env, "search_files", R"({"pattern":"needle|x"})");
  REQUIRE(all.ok());
  CHECK(all->structured.find(R"("total":1)") != std::string::npos);
  CHECK(all->text.find("notes.txt") != std::string::npos);
  const std::set<std::string> opened = watch.opened();
  CHECK(opened.count("notes.txt") == 1);
  for (const std::string& name : t.specials) {
    INFO(name);
    CHECK(opened.count(name) == 0);
  }
}

TEST_CASE("list_directory and find_files show special files as such without opening them",
          "[agent][special]") {
  SpecialTree t;
  OpenWatch watch(t.env.root().string());
  auto listing = call_or_fail(t.env, "list_directory", R"({})");
  REQUIRE(listing.ok());
  CHECK(listing->text.find("fifo  (special)") != std::string::npos);
  CHECK(listing->text.find("sock  (special)") != std::string::npos);
  if (t.devices) CHECK(listing->text.find("devnull  (special)") != std::string::npos);
  auto found = call_or_fail(t.env, "find_files", R"({"pattern":"*"})");
  REQUIRE(found.ok());
  CHECK(found->structured.find(R"("files":["notes.txt"])") != std::string::npos);
  const std::set<std::string> opened = watch.opened();
  for (const std::string& name : t.specials) {
    INFO(name);
    CHECK(opened.count(name) == 0);
  }
}
