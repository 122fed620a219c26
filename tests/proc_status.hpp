// Memory figures of the test process from /proc/self/status, for tests that check that repeated
// work (walks, a flood of calls) keeps memory flat. Meaningless under the sanitizers, which hold
// freed memory in quarantine: such checks belong inside #if !defined(__SANITIZE_ADDRESS__).
#pragma once

#include <fstream>
#include <string>
#include <string_view>

namespace ctx::testing {

// The value in KiB of `key` ("VmRSS", "RssAnon", ...) in /proc/self/status, or -1.
inline long proc_status_kib(std::string_view key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 &&
        line[key.size()] == ':') {
      return std::stol(line.substr(key.size() + 1));
    }
  }
  return -1;
}

}  // namespace ctx::testing
