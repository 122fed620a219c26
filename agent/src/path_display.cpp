#include "path_display.hpp"

#include "ctx/base/utf8.hpp"

namespace ctx::agent {

namespace {

constexpr char kHexDigits[] = "0123456789ABCDEF";

void append_escaped_byte(std::string& out, unsigned char byte) {
  out += "\\x";
  out.push_back(kHexDigits[byte >> 4]);
  out.push_back(kHexDigits[byte & 0xF]);
}

// The value of hex digit `c`, or -1.
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Whether `path` holds `\x` and two hex digits at `i`.
bool escape_at(std::string_view path, std::size_t i) {
  return i + 3 < path.size() && path[i] == '\\' && path[i + 1] == 'x' &&
         hex_value(path[i + 2]) >= 0 && hex_value(path[i + 3]) >= 0;
}

}  // namespace

bool needs_path_escape(std::string_view path) {
  return path.find("\\x") != std::string_view::npos || !is_valid_utf8(path);
}

std::string escape_path(std::string_view path) {
  if (!needs_path_escape(path)) return std::string(path);
  std::string out;
  out.reserve(path.size() + path.size() / 2);
  while (!path.empty()) {
    const std::size_t valid = utf8_valid_prefix(path);
    for (char c : path.substr(0, valid)) {
      if (c == '\\') {
        append_escaped_byte(out, '\\');
      } else {
        out.push_back(c);
      }
    }
    path.remove_prefix(valid);
    if (path.empty()) break;
    append_escaped_byte(out, static_cast<unsigned char>(path.front()));  // one invalid byte
    path.remove_prefix(1);
  }
  return out;
}

std::string unescape_path(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (escape_at(path, i)) {
      out.push_back(static_cast<char>(hex_value(path[i + 2]) * 16 + hex_value(path[i + 3])));
      i += 3;
    } else {
      out.push_back(path[i]);
    }
  }
  return out;
}

}  // namespace ctx::agent
