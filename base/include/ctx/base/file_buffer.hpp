// Reading small whole files (ignore files, config files, pattern files) into memory. Large-file
// access for searching belongs to the engine's own buffers; this is for inputs of kilobytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "ctx/base/result.hpp"

namespace ctx {

// Reads the whole file at `path` (relative paths resolve against `dir_fd`, e.g. AT_FDCWD).
// Refuses anything but a regular file, and files over `max_bytes` (kInvalidArgument).
// Errors name `path`.
Result<std::string> read_small_file(int dir_fd, const char* path, std::size_t max_bytes);

// Splits `text` into lines without their '\n' (and without one trailing '\r'); calls fn(line)
// for each. A last line without '\n' still counts; an empty text has no lines.
template <typename Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

}  // namespace ctx
