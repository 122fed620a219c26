// Test helper: records which names in one directory were opened (inotify IN_OPEN). Lookups with
// O_PATH raise no such event (the kernel does not notify for O_PATH descriptors); real opens do, so
// a test can prove a file was looked at but never opened.
#pragma once

#include <sys/inotify.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <set>
#include <string>

namespace ctx::testing {

class OpenWatch {
 public:
  explicit OpenWatch(const std::string& dir) : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    REQUIRE(fd_ >= 0);
    REQUIRE(::inotify_add_watch(fd_, dir.c_str(), IN_OPEN) >= 0);
  }
  ~OpenWatch() { ::close(fd_); }
  OpenWatch(const OpenWatch&) = delete;
  OpenWatch& operator=(const OpenWatch&) = delete;

  // The names opened since the last call.
  std::set<std::string> opened() {
    std::set<std::string> names;
    alignas(inotify_event) char buf[8192];
    for (;;) {
      ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n <= 0) break;
      for (ssize_t at = 0; at < n;) {
        const auto* event = reinterpret_cast<const inotify_event*>(buf + at);
        if (event->len > 0) names.insert(event->name);
        at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      }
    }
    return names;
  }

 private:
  int fd_;
};

}  // namespace ctx::testing
