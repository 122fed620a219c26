// The Encoding Standard's indexes the legacy decoders of encoding.cpp look code points up in,
// generated (encoding_tables.cpp, by scripts/gen_encoding_tables.py). A null entry is 0.
#pragma once

#include <cstdint>
#include <span>

namespace ctx::engine::detail::whatwg {

// The single-byte encodings with an index (windows-1252 also stands for its latin1 labels).
enum class SingleByte : std::uint8_t {
  kIbm866,
  kIso88592,
  kIso88593,
  kIso88594,
  kIso88595,
  kIso88596,
  kIso88597,
  kIso88598,
  kIso885910,
  kIso885913,
  kIso885914,
  kIso885915,
  kIso885916,
  kKoi8R,
  kKoi8U,
  kMacintosh,
  kWindows874,
  kWindows1250,
  kWindows1251,
  kWindows1252,
  kWindows1253,
  kWindows1254,
  kWindows1255,
  kWindows1256,
  kWindows1257,
  kWindows1258,
  kXMacCyrillic,
};

// The code points of bytes 0x80-0xFF.
std::span<const std::uint16_t, 128> single_byte(SingleByte which);
// Indexed by pointer; a pointer past the end is null.
std::span<const std::uint16_t> jis0208();
std::span<const std::uint16_t> jis0212();
std::span<const std::uint16_t> euc_kr();
std::span<const std::uint16_t> gb18030();
std::span<const std::uint32_t> big5();
// (pointer, code point) pairs, sorted by pointer.
std::span<const std::uint32_t> gb18030_ranges();

}  // namespace ctx::engine::detail::whatwg
