#include "file_reading.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ctx/engine/searcher.hpp"
#include "fmt/format.h"

namespace ctx::agent {

std::string_view to_string(TextEncoding encoding) {
  switch (encoding) {
    case TextEncoding::kUtf8:
      return "utf-8";
    case TextEncoding::kUtf8Bom:
      return "utf-8-bom";
    case TextEncoding::kUtf16Le:
      return "utf-16le";
    case TextEncoding::kUtf16Be:
      return "utf-16be";
    case TextEncoding::kBinary:
      return "binary";
  }
  return "binary";
}

Expected<std::size_t> pread_full(int fd, char* out, std::size_t bytes, std::uint64_t offset,
                                 std::string_view path) {
  std::size_t got = 0;
  while (got < bytes) {
    ssize_t n = ::pread(fd, out + got, bytes - got, static_cast<off_t>(offset + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ToolError{ToolErrorCode::kIoError,
                       fmt::format("reading '{}' failed: {}", path, std::strerror(errno)),
                       "retry, or call file_info on it"};
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  return got;
}

namespace {

// The encoding of a file whose first bytes (up to kSniffBytes, fewer only at its end) are `s`.
TextEncoding encoding_of_head(std::string_view s) {
  if (s.substr(0, 2) == "\xFF\xFE") return TextEncoding::kUtf16Le;
  if (s.substr(0, 2) == "\xFE\xFF") return TextEncoding::kUtf16Be;
  if (s.find('\0') != std::string_view::npos) return TextEncoding::kBinary;
  if (s.substr(0, 3) == "\xEF\xBB\xBF") return TextEncoding::kUtf8Bom;
  return TextEncoding::kUtf8;
}

}  // namespace

Expected<TextEncoding> sniff_encoding(int fd, std::string_view path) {
  char head[kSniffBytes];
  CTX_TRY_ASSIGN(std::size_t n, pread_full(fd, head, sizeof head, 0, path));
  return encoding_of_head(std::string_view(head, n));
}

Expected<TextEncoding> TextChunkReader::sniff() {
  raw_ = std::make_unique_for_overwrite<char[]>(kChunkBytes);  // not zero-filled
  CTX_TRY_ASSIGN(std::size_t n, pread_full(fd_, raw_.get(), kChunkBytes, 0, path_));
  encoding_ = encoding_of_head(std::string_view(raw_.get(), std::min(n, kSniffBytes)));
  if (encoding_ == TextEncoding::kUtf8) {
    primed_ = n;  // exactly the chunk next() would read first
  } else if (encoding_ == TextEncoding::kUtf8Bom) {
    offset_ = 3;
  } else if (encoding_ == TextEncoding::kUtf16Le || encoding_ == TextEncoding::kUtf16Be) {
    offset_ = 2;
  }
  return encoding_;
}

TextChunkReader::TextChunkReader(int fd, TextEncoding encoding, std::string_view path)
    : fd_(fd), encoding_(encoding), path_(path) {
  if (encoding_ == TextEncoding::kUtf8Bom) offset_ = 3;
  if (encoding_ == TextEncoding::kUtf16Le || encoding_ == TextEncoding::kUtf16Be) offset_ = 2;
}

Expected<std::string_view> TextChunkReader::next() {
  if (eof_) return std::string_view();
  if (!raw_) raw_ = std::make_unique_for_overwrite<char[]>(kChunkBytes);  // not zero-filled
  std::size_t n = primed_;
  primed_ = SIZE_MAX;
  if (n == SIZE_MAX) {
    CTX_TRY_ASSIGN(n, pread_full(fd_, raw_.get(), kChunkBytes, offset_, path_));
  }
  offset_ += n;
  // pread_full stops short only where a read returned 0: the end of the file was seen.
  if (n < kChunkBytes) eof_ = true;
  const std::string_view raw(raw_.get(), n);
  if (encoding_ != TextEncoding::kUtf16Le && encoding_ != TextEncoding::kUtf16Be) return raw;
  const bool little = encoding_ == TextEncoding::kUtf16Le;
  std::string units = std::move(carry_);
  carry_.clear();
  units.append(raw);
  if (!eof_) {
    // Keep an odd byte, and a high surrogate whose pair may come next, for the next chunk.
    std::size_t even = units.size() & ~std::size_t{1};
    if (even >= 2) {
      auto hi = static_cast<unsigned char>(units[even - (little ? 1 : 2)]);
      if (hi >= 0xD8 && hi <= 0xDB) even -= 2;
    }
    carry_ = units.substr(even);
    units.resize(even);
  }
  decoded_ = engine::utf16_to_utf8(units, little);
  if (decoded_.empty() && !eof_) return next();  // only carried bytes this round
  return std::string_view(decoded_);
}

}  // namespace ctx::agent
