// Reading a text file an agent tool opened: the encoding sniffed from its first bytes (BOMs, NUL
// bytes, UTF-8 validity) and a chunked pread reader that yields the file as UTF-8 from its start
// (UTF-16 transcoded as the searcher does), so a tool reads no further than it needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ctx/agent/tool_error.hpp"

namespace ctx::agent {

inline constexpr std::size_t kSniffBytes = 8 << 10;  // NUL here (no UTF-16 BOM): binary

enum class TextEncoding : std::uint8_t { kUtf8, kUtf8Bom, kUtf16Le, kUtf16Be, kBinary };

// "utf-8", "utf-8-bom", "utf-16le", "utf-16be", "binary".
std::string_view to_string(TextEncoding encoding);

// Reads up to `bytes` bytes at `offset` (fewer only at end of file); EINTR retried.
// Errors name `path`.
Expected<std::size_t> pread_full(int fd, char* out, std::size_t bytes, std::uint64_t offset,
                                 std::string_view path);

// The encoding of the file open as `fd`, from its first kSniffBytes bytes.
Expected<TextEncoding> sniff_encoding(int fd, std::string_view path);

// Yields the file's text as UTF-8 chunks from its start: a UTF-8 BOM dropped, UTF-16 transcoded
// (a surrogate pair or odd byte split by a chunk boundary is carried to the next chunk).
class TextChunkReader {
 public:
  static constexpr std::size_t kChunkBytes = 64 << 10;
  TextChunkReader(int fd, TextEncoding encoding, std::string_view path);
  // A reader whose encoding sniff() finds: it reads the first chunk once, sniffs it as
  // sniff_encoding would, and next() then yields that chunk without reading it again (UTF-8
  // without a BOM; other encodings read from past their BOM as the constructor above does).
  TextChunkReader(int fd, std::string_view path) : fd_(fd), path_(path) {}
  // Call once, before next(); kBinary is returned, not an error.
  Expected<TextEncoding> sniff();
  // The next chunk (valid until the next call); empty at end of file.
  Expected<std::string_view> next();
  // Raw file bytes read so far.
  std::uint64_t raw_offset() const { return offset_; }

 private:
  int fd_;
  TextEncoding encoding_ = TextEncoding::kUtf8;
  std::string path_;
  std::uint64_t offset_ = 0;
  std::unique_ptr<char[]> raw_;  // kChunkBytes, allocated by the first next()
  std::string carry_;
  std::string decoded_;
  bool eof_ = false;
  std::size_t primed_ = SIZE_MAX;  // bytes of raw_ sniff() read for next() to yield, if any
};

}  // namespace ctx::agent
