// libFuzzer target for the Encoding Standard decoders (engine/encoding.hpp, -E/--encoding): byte 0
// picks the encoding, byte 1 seeds how the input is cut into pieces, the rest is the input. It
// traps when the output is not valid UTF-8; when decoding in pieces (any non-empty sizes) differs
// from decoding at once; when decode_haystack's read ends are not increasing or do not end at the
// output's size, or its text differs with and without them; when ASCII input to an
// ASCII-compatible encoding does not come out as it went in; when a single-byte encoding does
// not give one character per byte; when the output outgrows 4 bytes per input byte (a loop that
// puts bytes back without consuming any would, before it hangs); or when a sanitizer fires.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/base/utf8.hpp"
#include "ctx/engine/encoding.hpp"

namespace {

using ctx::engine::Decoder;
using ctx::engine::Encoding;

void require(bool ok) {
  if (!ok) std::abort();
}

std::size_t count_chars(std::string_view utf8) {
  std::size_t n = 0;
  for (char c : utf8) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  constexpr unsigned kEncodings = static_cast<unsigned>(Encoding::kXUserDefined) + 1;
  const auto encoding = static_cast<Encoding>(data[0] % kEncodings);
  std::uint32_t seed = data[1];
  const std::string_view in(reinterpret_cast<const char*>(data + 2), size - 2);

  std::string whole;
  Decoder once(encoding, false);
  once.decode(in, true, whole);
  require(ctx::is_valid_utf8(whole));
  require(whole.size() <= 4 * in.size() + 8);

  std::string pieces;
  Decoder streamed(encoding, false);
  for (std::size_t at = 0; at < in.size();) {
    seed = seed * 1103515245u + 12345u;
    const std::size_t len = std::min<std::size_t>(1 + (seed >> 16) % 9, in.size() - at);
    streamed.decode(in.substr(at, len), false, pieces);
    at += len;
  }
  streamed.decode({}, true, pieces);
  require(pieces == whole);

  std::vector<std::size_t> ends;
  const std::size_t first = in.size() % 4;
  const std::string read = ctx::engine::decode_haystack(encoding, in, first, 0, &ends);
  require(read == ctx::engine::decode_haystack(encoding, in, first, 0, nullptr));
  require(ctx::is_valid_utf8(read));
  for (std::size_t i = 1; i < ends.size(); ++i) require(ends[i - 1] < ends[i]);
  require(ends.empty() ? read.empty() : ends.back() == read.size());

  bool ascii = true;
  for (char c : in) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  const bool ascii_compatible = encoding != Encoding::kUtf16Le && encoding != Encoding::kUtf16Be &&
                                encoding != Encoding::kIso2022Jp;
  if (ascii && ascii_compatible) require(whole == in);
  const bool single_byte = (encoding >= Encoding::kIbm866 && encoding <= Encoding::kXMacCyrillic) ||
                           encoding == Encoding::kXUserDefined;
  if (single_byte) require(count_chars(whole) == in.size());
  return 0;
}
