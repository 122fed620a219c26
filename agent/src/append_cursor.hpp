// AppendCursor: appends to a std::string through a plain pointer, for renderers that write many
// small pieces (a line's number, its text, the JSON around it). The string is kept longer than
// what was written, its tail scratch, so a piece is stored without a capacity check of its own
// and small pieces may be stored with fixed-size copies that run past their end.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace ctx::agent {

// Copies the characters of the string literal `text` (not its terminating NUL) to `dst` and
// returns the end of them.
template <std::size_t N>
inline char* put_literal(char* dst, const char (&text)[N]) {
  return std::copy_n(text, N - 1, dst);
}

// Copies the `n` bytes at `src` to `dst` and returns dst + n, reading and writing nothing outside
// them. Pieces up to 32 bytes (most lines of code, numbers) are copied inline with two
// overlapping loads, not through a memcpy call.
inline char* put_bytes(char* dst, const char* src, std::size_t n) {
  if (n > 32) {
    std::memcpy(dst, src, n);
  } else if (n >= 16) {
    char a[16];
    char b[16];
    std::memcpy(a, src, 16);
    std::memcpy(b, src + n - 16, 16);
    std::memcpy(dst, a, 16);
    std::memcpy(dst + n - 16, b, 16);
  } else if (n >= 8) {
    std::uint64_t a;
    std::uint64_t b;
    std::memcpy(&a, src, 8);
    std::memcpy(&b, src + n - 8, 8);
    std::memcpy(dst, &a, 8);
    std::memcpy(dst + n - 8, &b, 8);
  } else if (n >= 4) {
    std::uint32_t a;
    std::uint32_t b;
    std::memcpy(&a, src, 4);
    std::memcpy(&b, src + n - 4, 4);
    std::memcpy(dst, &a, 4);
    std::memcpy(dst + n - 4, &b, 4);
  } else if (n > 0) {
    const char first = src[0];
    const char middle = src[n / 2];
    const char last = src[n - 1];
    dst[0] = first;
    dst[n / 2] = middle;
    dst[n - 1] = last;
  }
  return dst + n;
}

class AppendCursor {
 public:
  // Appends after what `out` holds. Until finish() (or the destructor) nothing else may use
  // `out`: its size runs ahead of what was written.
  explicit AppendCursor(std::string& out) : out_(out), end_(out.size()) {}
  ~AppendCursor() { finish(); }
  AppendCursor(const AppendCursor&) = delete;
  AppendCursor& operator=(const AppendCursor&) = delete;

  // Where the next bytes go, with room for `bytes` of them; valid until the next room().
  char* room(std::size_t bytes) {
    if (out_.size() - end_ < bytes) grow(bytes);
    return out_.data() + end_;
  }
  // Takes the `bytes` bytes written at room()'s pointer as appended.
  void advance(std::size_t bytes) { end_ += bytes; }
  // Takes what was written up to `end` (a pointer into room()'s room) as appended.
  void advance_to(const char* end) { end_ = static_cast<std::size_t>(end - out_.data()); }
  void append(std::string_view piece) {
    std::memcpy(room(piece.size()), piece.data(), piece.size());
    end_ += piece.size();
  }
  // Makes room for `bytes` bytes in all (what was written included) without growing later.
  void reserve(std::size_t bytes) {
    if (out_.size() < bytes) out_.resize(bytes);
  }
  std::size_t size() const { return end_; }
  // Cuts the string to what was written. The cursor may be used again after.
  void finish() { out_.resize(end_); }

 private:
  void grow(std::size_t bytes) {
    out_.resize(std::max({end_ + bytes, 2 * out_.size(), std::size_t{256}}));
  }

  std::string& out_;
  std::size_t end_;
};

}  // namespace ctx::agent
