// Text encodings as ripgrep's -E/--encoding knows them: the Encoding Standard's encodings (the
// ones encoding_rs implements), found by label, decoded to UTF-8 as encoding_rs decodes them
// (malformed input becomes U+FFFD), and the plan ripgrep's searcher follows for a haystack
// (encoding_rs_io's DecodeReaderBytes: BOM sniffing, BOM stripping, the size of each read).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ctx::engine {

enum class Encoding : std::uint8_t {
  kUtf8,
  kIbm866,
  kIso88592,
  kIso88593,
  kIso88594,
  kIso88595,
  kIso88596,
  kIso88597,
  kIso88598,
  kIso88598I,  // decodes as ISO-8859-8
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
  kGbk,  // decodes as gb18030
  kGb18030,
  kBig5,
  kEucJp,
  kIso2022Jp,
  kShiftJis,
  kEucKr,
  kUtf16Be,
  kUtf16Le,
  kXUserDefined,
};

// The encoding a label names, as encoding_rs's Encoding::for_label_no_replacement (the Encoding
// Standard's "get an encoding": ASCII case-insensitive, leading and trailing ASCII whitespace
// ignored); nullopt for an unknown label and for the labels of the replacement encoding
// (iso-2022-kr, hz-gb-2312, ...).
std::optional<Encoding> encoding_for_label(std::string_view label);

// The encoding's name as the Encoding Standard spells it ("windows-1252", "UTF-16LE").
std::string_view encoding_name(Encoding encoding);

// A streaming decoder to UTF-8. Pieces may split a character anywhere; the output is the same as
// for the whole input at once. With `remove_bom`, a BOM of the encoding's own (UTF-8, UTF-16LE or
// UTF-16BE) at the very start is dropped, as encoding_rs's new_decoder_with_bom_removal.
class Decoder {
 public:
  Decoder(Encoding encoding, bool remove_bom);
  // Appends what `in` (the next piece) completes to `out`; `last` ends the stream (a character
  // left incomplete becomes U+FFFD). No call may follow one with `last`.
  void decode(std::string_view in, bool last, std::string& out);

 private:
  // These write UTF-8 at `w` (the caller made room: at most 4 bytes per input byte, plus 32).
  void step(std::uint8_t byte, char*& w);
  void finish(char*& w);
  void feed(std::string_view in, char*& w);
  void replay(char*& w);
  bool idle() const { return lead_ == 0 && needed_ == 0 && pending_count_ == 0; }

  Encoding encoding_;
  bool bom_open_;              // still deciding whether the stream starts with a BOM
  std::uint8_t bom_held_ = 0;  // bytes of a possible BOM held back
  std::uint8_t bom_bytes_[3] = {};
  // The decoder's state (what each field means depends on the encoding).
  std::uint32_t code_point_ = 0;
  std::uint8_t needed_ = 0, seen_ = 0, lower_ = 0x80, upper_ = 0xBF;  // UTF-8
  std::uint8_t lead_ = 0, second_ = 0, third_ = 0;
  bool flag_ = false;  // EUC-JP: jis0212; ISO-2022-JP: output
  std::int32_t lead_surrogate_ = -1;
  std::int16_t lead_byte_ = -1;                // UTF-16
  std::uint8_t state_ = 0, output_state_ = 0;  // ISO-2022-JP
  // Bytes put back in front of the input ("prepend to the stream" in the Encoding Standard).
  std::uint8_t pending_[3] = {};
  std::uint8_t pending_count_ = 0;
  // Single-byte encodings: the UTF-8 of bytes 0x80-0xFF (length in byte 3).
  const std::uint16_t* single_byte_ = nullptr;
};

// What ripgrep's searcher does with a haystack's bytes before searching them (grep-searcher's
// decoder: encoding_rs_io with BOM sniffing as configured, UTF-8 passed through).
struct DecodePlan {
  // Bytes dropped at the start (a BOM, stripped; 0-3).
  std::size_t skip = 0;
  // The decoder, or nullopt: the bytes after `skip` are searched as they are.
  std::optional<Encoding> decoder;
  // The first read of the bytes after `skip`: what is left of the 3 bytes peeked for a BOM (0:
  // the first read is a whole one).
  std::size_t first_read = 0;
};

// The plan for a haystack starting with `head` (its first 3 bytes or all of a shorter one):
// `explicit_encoding` is -E's (nullopt: auto); `bom_sniffing` false is -E none (then the bytes are
// searched as they are, BOM included).
DecodePlan plan_decoding(std::string_view head, std::optional<Encoding> explicit_encoding,
                         bool bom_sniffing);

// Decodes `in` (the bytes after the plan's `skip`) as ripgrep's decoder does, with BOM removal.
// `read_ends`, when given, receives where in the output each of its reads ends: the first takes
// `first_read` bytes of `in` (when not 0), the next reaches `buffered_end` when that is further
// (stdin: what Rust's 8 KiB stdin buffer still holds), the others take 8 KiB each; a read that
// decodes to nothing reads on, and the end of the stream may add one last read (a character left
// incomplete). Increasing; the last is the output's size (none for an empty output).
std::string decode_haystack(Encoding encoding, std::string_view in, std::size_t first_read,
                            std::size_t buffered_end, std::vector<std::size_t>* read_ends);

// Whether decoding `in` from `encoding` may give a U+0000 (binary data to ripgrep): for UTF-16 a
// zero code unit (`in` starting at a code unit), for the other encodings a NUL byte (only a NUL
// byte decodes to U+0000 in them; ISO-2022-JP's decoder sometimes gives U+FFFD for one instead,
// hence "may"). Pieces of one input give the same answer as the whole when each starts at a code
// unit.
bool may_decode_to_nul(Encoding encoding, std::string_view in);

}  // namespace ctx::engine
