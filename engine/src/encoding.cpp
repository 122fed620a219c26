// The Encoding Standard's decoders (https://encoding.spec.whatwg.org/, as encoding_rs 0.8.34
// implements them for ripgrep 14), written from the standard's algorithms: each is a byte-at-a-time
// state machine whose "prepend to the stream" puts bytes back in front of the input. Runs of ASCII
// go through a fast path where the encoding maps them to themselves.
#include "ctx/engine/encoding.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <utility>

#include "encoding_tables.hpp"

namespace ctx::engine {
namespace {

namespace whatwg = detail::whatwg;

constexpr std::uint32_t kReplacement = 0xFFFD;
constexpr std::size_t kDecoderRead = 8 << 10;  // encoding_rs_io's buffer

struct Label {
  std::string_view label;
  Encoding encoding;
};

// Every label of the Encoding Standard but the replacement encoding's, sorted.
constexpr Label kLabels[] = {
    {"866", Encoding::kIbm866},
    {"ansi_x3.4-1968", Encoding::kWindows1252},
    {"arabic", Encoding::kIso88596},
    {"ascii", Encoding::kWindows1252},
    {"asmo-708", Encoding::kIso88596},
    {"big5", Encoding::kBig5},
    {"big5-hkscs", Encoding::kBig5},
    {"chinese", Encoding::kGbk},
    {"cn-big5", Encoding::kBig5},
    {"cp1250", Encoding::kWindows1250},
    {"cp1251", Encoding::kWindows1251},
    {"cp1252", Encoding::kWindows1252},
    {"cp1253", Encoding::kWindows1253},
    {"cp1254", Encoding::kWindows1254},
    {"cp1255", Encoding::kWindows1255},
    {"cp1256", Encoding::kWindows1256},
    {"cp1257", Encoding::kWindows1257},
    {"cp1258", Encoding::kWindows1258},
    {"cp819", Encoding::kWindows1252},
    {"cp866", Encoding::kIbm866},
    {"csbig5", Encoding::kBig5},
    {"cseuckr", Encoding::kEucKr},
    {"cseucpkdfmtjapanese", Encoding::kEucJp},
    {"csgb2312", Encoding::kGbk},
    {"csibm866", Encoding::kIbm866},
    {"csiso2022jp", Encoding::kIso2022Jp},
    {"csiso58gb231280", Encoding::kGbk},
    {"csiso88596e", Encoding::kIso88596},
    {"csiso88596i", Encoding::kIso88596},
    {"csiso88598e", Encoding::kIso88598},
    {"csiso88598i", Encoding::kIso88598I},
    {"csisolatin1", Encoding::kWindows1252},
    {"csisolatin2", Encoding::kIso88592},
    {"csisolatin3", Encoding::kIso88593},
    {"csisolatin4", Encoding::kIso88594},
    {"csisolatin5", Encoding::kWindows1254},
    {"csisolatin6", Encoding::kIso885910},
    {"csisolatin9", Encoding::kIso885915},
    {"csisolatinarabic", Encoding::kIso88596},
    {"csisolatincyrillic", Encoding::kIso88595},
    {"csisolatingreek", Encoding::kIso88597},
    {"csisolatinhebrew", Encoding::kIso88598},
    {"cskoi8r", Encoding::kKoi8R},
    {"csksc56011987", Encoding::kEucKr},
    {"csmacintosh", Encoding::kMacintosh},
    {"csshiftjis", Encoding::kShiftJis},
    {"csunicode", Encoding::kUtf16Le},
    {"cyrillic", Encoding::kIso88595},
    {"dos-874", Encoding::kWindows874},
    {"ecma-114", Encoding::kIso88596},
    {"ecma-118", Encoding::kIso88597},
    {"elot_928", Encoding::kIso88597},
    {"euc-jp", Encoding::kEucJp},
    {"euc-kr", Encoding::kEucKr},
    {"gb18030", Encoding::kGb18030},
    {"gb2312", Encoding::kGbk},
    {"gb_2312", Encoding::kGbk},
    {"gb_2312-80", Encoding::kGbk},
    {"gbk", Encoding::kGbk},
    {"greek", Encoding::kIso88597},
    {"greek8", Encoding::kIso88597},
    {"hebrew", Encoding::kIso88598},
    {"ibm819", Encoding::kWindows1252},
    {"ibm866", Encoding::kIbm866},
    {"iso-10646-ucs-2", Encoding::kUtf16Le},
    {"iso-2022-jp", Encoding::kIso2022Jp},
    {"iso-8859-1", Encoding::kWindows1252},
    {"iso-8859-10", Encoding::kIso885910},
    {"iso-8859-11", Encoding::kWindows874},
    {"iso-8859-13", Encoding::kIso885913},
    {"iso-8859-14", Encoding::kIso885914},
    {"iso-8859-15", Encoding::kIso885915},
    {"iso-8859-16", Encoding::kIso885916},
    {"iso-8859-2", Encoding::kIso88592},
    {"iso-8859-3", Encoding::kIso88593},
    {"iso-8859-4", Encoding::kIso88594},
    {"iso-8859-5", Encoding::kIso88595},
    {"iso-8859-6", Encoding::kIso88596},
    {"iso-8859-6-e", Encoding::kIso88596},
    {"iso-8859-6-i", Encoding::kIso88596},
    {"iso-8859-7", Encoding::kIso88597},
    {"iso-8859-8", Encoding::kIso88598},
    {"iso-8859-8-e", Encoding::kIso88598},
    {"iso-8859-8-i", Encoding::kIso88598I},
    {"iso-8859-9", Encoding::kWindows1254},
    {"iso-ir-100", Encoding::kWindows1252},
    {"iso-ir-101", Encoding::kIso88592},
    {"iso-ir-109", Encoding::kIso88593},
    {"iso-ir-110", Encoding::kIso88594},
    {"iso-ir-126", Encoding::kIso88597},
    {"iso-ir-127", Encoding::kIso88596},
    {"iso-ir-138", Encoding::kIso88598},
    {"iso-ir-144", Encoding::kIso88595},
    {"iso-ir-148", Encoding::kWindows1254},
    {"iso-ir-149", Encoding::kEucKr},
    {"iso-ir-157", Encoding::kIso885910},
    {"iso-ir-58", Encoding::kGbk},
    {"iso8859-1", Encoding::kWindows1252},
    {"iso8859-10", Encoding::kIso885910},
    {"iso8859-11", Encoding::kWindows874},
    {"iso8859-13", Encoding::kIso885913},
    {"iso8859-14", Encoding::kIso885914},
    {"iso8859-15", Encoding::kIso885915},
    {"iso8859-2", Encoding::kIso88592},
    {"iso8859-3", Encoding::kIso88593},
    {"iso8859-4", Encoding::kIso88594},
    {"iso8859-5", Encoding::kIso88595},
    {"iso8859-6", Encoding::kIso88596},
    {"iso8859-7", Encoding::kIso88597},
    {"iso8859-8", Encoding::kIso88598},
    {"iso8859-9", Encoding::kWindows1254},
    {"iso88591", Encoding::kWindows1252},
    {"iso885910", Encoding::kIso885910},
    {"iso885911", Encoding::kWindows874},
    {"iso885913", Encoding::kIso885913},
    {"iso885914", Encoding::kIso885914},
    {"iso885915", Encoding::kIso885915},
    {"iso88592", Encoding::kIso88592},
    {"iso88593", Encoding::kIso88593},
    {"iso88594", Encoding::kIso88594},
    {"iso88595", Encoding::kIso88595},
    {"iso88596", Encoding::kIso88596},
    {"iso88597", Encoding::kIso88597},
    {"iso88598", Encoding::kIso88598},
    {"iso88599", Encoding::kWindows1254},
    {"iso_8859-1", Encoding::kWindows1252},
    {"iso_8859-15", Encoding::kIso885915},
    {"iso_8859-1:1987", Encoding::kWindows1252},
    {"iso_8859-2", Encoding::kIso88592},
    {"iso_8859-2:1987", Encoding::kIso88592},
    {"iso_8859-3", Encoding::kIso88593},
    {"iso_8859-3:1988", Encoding::kIso88593},
    {"iso_8859-4", Encoding::kIso88594},
    {"iso_8859-4:1988", Encoding::kIso88594},
    {"iso_8859-5", Encoding::kIso88595},
    {"iso_8859-5:1988", Encoding::kIso88595},
    {"iso_8859-6", Encoding::kIso88596},
    {"iso_8859-6:1987", Encoding::kIso88596},
    {"iso_8859-7", Encoding::kIso88597},
    {"iso_8859-7:1987", Encoding::kIso88597},
    {"iso_8859-8", Encoding::kIso88598},
    {"iso_8859-8:1988", Encoding::kIso88598},
    {"iso_8859-9", Encoding::kWindows1254},
    {"iso_8859-9:1989", Encoding::kWindows1254},
    {"koi", Encoding::kKoi8R},
    {"koi8", Encoding::kKoi8R},
    {"koi8-r", Encoding::kKoi8R},
    {"koi8-ru", Encoding::kKoi8U},
    {"koi8-u", Encoding::kKoi8U},
    {"koi8_r", Encoding::kKoi8R},
    {"korean", Encoding::kEucKr},
    {"ks_c_5601-1987", Encoding::kEucKr},
    {"ks_c_5601-1989", Encoding::kEucKr},
    {"ksc5601", Encoding::kEucKr},
    {"ksc_5601", Encoding::kEucKr},
    {"l1", Encoding::kWindows1252},
    {"l2", Encoding::kIso88592},
    {"l3", Encoding::kIso88593},
    {"l4", Encoding::kIso88594},
    {"l5", Encoding::kWindows1254},
    {"l6", Encoding::kIso885910},
    {"l9", Encoding::kIso885915},
    {"latin1", Encoding::kWindows1252},
    {"latin2", Encoding::kIso88592},
    {"latin3", Encoding::kIso88593},
    {"latin4", Encoding::kIso88594},
    {"latin5", Encoding::kWindows1254},
    {"latin6", Encoding::kIso885910},
    {"logical", Encoding::kIso88598I},
    {"mac", Encoding::kMacintosh},
    {"macintosh", Encoding::kMacintosh},
    {"ms932", Encoding::kShiftJis},
    {"ms_kanji", Encoding::kShiftJis},
    {"shift-jis", Encoding::kShiftJis},
    {"shift_jis", Encoding::kShiftJis},
    {"sjis", Encoding::kShiftJis},
    {"sun_eu_greek", Encoding::kIso88597},
    {"tis-620", Encoding::kWindows874},
    {"ucs-2", Encoding::kUtf16Le},
    {"unicode", Encoding::kUtf16Le},
    {"unicode-1-1-utf-8", Encoding::kUtf8},
    {"unicode11utf8", Encoding::kUtf8},
    {"unicode20utf8", Encoding::kUtf8},
    {"unicodefeff", Encoding::kUtf16Le},
    {"unicodefffe", Encoding::kUtf16Be},
    {"us-ascii", Encoding::kWindows1252},
    {"utf-16", Encoding::kUtf16Le},
    {"utf-16be", Encoding::kUtf16Be},
    {"utf-16le", Encoding::kUtf16Le},
    {"utf-8", Encoding::kUtf8},
    {"utf8", Encoding::kUtf8},
    {"visual", Encoding::kIso88598},
    {"windows-1250", Encoding::kWindows1250},
    {"windows-1251", Encoding::kWindows1251},
    {"windows-1252", Encoding::kWindows1252},
    {"windows-1253", Encoding::kWindows1253},
    {"windows-1254", Encoding::kWindows1254},
    {"windows-1255", Encoding::kWindows1255},
    {"windows-1256", Encoding::kWindows1256},
    {"windows-1257", Encoding::kWindows1257},
    {"windows-1258", Encoding::kWindows1258},
    {"windows-31j", Encoding::kShiftJis},
    {"windows-874", Encoding::kWindows874},
    {"windows-949", Encoding::kEucKr},
    {"x-cp1250", Encoding::kWindows1250},
    {"x-cp1251", Encoding::kWindows1251},
    {"x-cp1252", Encoding::kWindows1252},
    {"x-cp1253", Encoding::kWindows1253},
    {"x-cp1254", Encoding::kWindows1254},
    {"x-cp1255", Encoding::kWindows1255},
    {"x-cp1256", Encoding::kWindows1256},
    {"x-cp1257", Encoding::kWindows1257},
    {"x-cp1258", Encoding::kWindows1258},
    {"x-euc-jp", Encoding::kEucJp},
    {"x-gbk", Encoding::kGbk},
    {"x-mac-cyrillic", Encoding::kXMacCyrillic},
    {"x-mac-roman", Encoding::kMacintosh},
    {"x-mac-ukrainian", Encoding::kXMacCyrillic},
    {"x-sjis", Encoding::kShiftJis},
    {"x-unicode20utf8", Encoding::kUtf8},
    {"x-user-defined", Encoding::kXUserDefined},
    {"x-x-big5", Encoding::kBig5},
};

constexpr std::string_view kNames[] = {
    "UTF-8",        "IBM866",       "ISO-8859-2",   "ISO-8859-3",     "ISO-8859-4",
    "ISO-8859-5",   "ISO-8859-6",   "ISO-8859-7",   "ISO-8859-8",     "ISO-8859-8-I",
    "ISO-8859-10",  "ISO-8859-13",  "ISO-8859-14",  "ISO-8859-15",    "ISO-8859-16",
    "KOI8-R",       "KOI8-U",       "macintosh",    "windows-874",    "windows-1250",
    "windows-1251", "windows-1252", "windows-1253", "windows-1254",   "windows-1255",
    "windows-1256", "windows-1257", "windows-1258", "x-mac-cyrillic", "GBK",
    "gb18030",      "Big5",         "EUC-JP",       "ISO-2022-JP",    "Shift_JIS",
    "EUC-KR",       "UTF-16BE",     "UTF-16LE",     "x-user-defined",
};
static_assert(std::size(kNames) == static_cast<std::size_t>(Encoding::kXUserDefined) + 1);

bool is_label_space(char c) { return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '; }

// The single-byte table of `e`, or nullptr when `e` is not a single-byte encoding.
const std::uint16_t* single_byte_table(Encoding e) {
  using whatwg::SingleByte;
  auto table = [](SingleByte s) { return whatwg::single_byte(s).data(); };
  switch (e) {
    case Encoding::kIbm866:
      return table(SingleByte::kIbm866);
    case Encoding::kIso88592:
      return table(SingleByte::kIso88592);
    case Encoding::kIso88593:
      return table(SingleByte::kIso88593);
    case Encoding::kIso88594:
      return table(SingleByte::kIso88594);
    case Encoding::kIso88595:
      return table(SingleByte::kIso88595);
    case Encoding::kIso88596:
      return table(SingleByte::kIso88596);
    case Encoding::kIso88597:
      return table(SingleByte::kIso88597);
    case Encoding::kIso88598:
    case Encoding::kIso88598I:
      return table(SingleByte::kIso88598);
    case Encoding::kIso885910:
      return table(SingleByte::kIso885910);
    case Encoding::kIso885913:
      return table(SingleByte::kIso885913);
    case Encoding::kIso885914:
      return table(SingleByte::kIso885914);
    case Encoding::kIso885915:
      return table(SingleByte::kIso885915);
    case Encoding::kIso885916:
      return table(SingleByte::kIso885916);
    case Encoding::kKoi8R:
      return table(SingleByte::kKoi8R);
    case Encoding::kKoi8U:
      return table(SingleByte::kKoi8U);
    case Encoding::kMacintosh:
      return table(SingleByte::kMacintosh);
    case Encoding::kWindows874:
      return table(SingleByte::kWindows874);
    case Encoding::kWindows1250:
      return table(SingleByte::kWindows1250);
    case Encoding::kWindows1251:
      return table(SingleByte::kWindows1251);
    case Encoding::kWindows1252:
      return table(SingleByte::kWindows1252);
    case Encoding::kWindows1253:
      return table(SingleByte::kWindows1253);
    case Encoding::kWindows1254:
      return table(SingleByte::kWindows1254);
    case Encoding::kWindows1255:
      return table(SingleByte::kWindows1255);
    case Encoding::kWindows1256:
      return table(SingleByte::kWindows1256);
    case Encoding::kWindows1257:
      return table(SingleByte::kWindows1257);
    case Encoding::kWindows1258:
      return table(SingleByte::kWindows1258);
    case Encoding::kXMacCyrillic:
      return table(SingleByte::kXMacCyrillic);
    default:
      return nullptr;
  }
}

template <typename T>
std::uint32_t lookup(std::span<const T> index, std::size_t pointer) {
  return pointer < index.size() ? index[pointer] : 0;
}

// The index gb18030 ranges code point for `pointer` (0: null), the standard before GB18030-2022.
std::uint32_t gb18030_range(std::uint32_t pointer) {
  if ((pointer > 39419 && pointer < 189000) || pointer > 1237575) return 0;
  if (pointer == 7457) return 0xE7C7;
  const std::span<const std::uint32_t> ranges = whatwg::gb18030_ranges();
  // The last (pointer, code point) pair whose pointer is at most `pointer`.
  std::size_t lo = 0, hi = ranges.size() / 2;
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (ranges[2 * mid] <= pointer) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return ranges[2 * lo + 1] + pointer - ranges[2 * lo];
}

// Writes the UTF-8 of `cp` (at most U+10FFFF, no surrogate) at `w`.
inline void put_utf8(char*& w, std::uint32_t cp) {
  if (cp < 0x80) {
    *w++ = static_cast<char>(cp);
  } else if (cp < 0x800) {
    w[0] = static_cast<char>(0xC0 | (cp >> 6));
    w[1] = static_cast<char>(0x80 | (cp & 0x3F));
    w += 2;
  } else if (cp < 0x10000) {
    w[0] = static_cast<char>(0xE0 | (cp >> 12));
    w[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    w[2] = static_cast<char>(0x80 | (cp & 0x3F));
    w += 3;
  } else {
    w[0] = static_cast<char>(0xF0 | (cp >> 18));
    w[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    w[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    w[3] = static_cast<char>(0x80 | (cp & 0x3F));
    w += 4;
  }
}

// Copies the run of ASCII bytes at `p` (8 at a time) to `w`; returns where it ends.
inline const std::uint8_t* copy_ascii(const std::uint8_t* p, const std::uint8_t* end, char*& w) {
  while (end - p >= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    if ((word & 0x8080808080808080ULL) != 0) break;
    std::memcpy(w, p, 8);
    p += 8;
    w += 8;
  }
  while (p < end && *p < 0x80) *w++ = static_cast<char>(*p++);
  return p;
}

// Copies the ASCII code units at `p` (UTF-16, little-endian when `le`) to `w` as bytes, 16 at a
// time, up to the first block of 16 that holds another unit; returns where it stopped.
inline const std::uint8_t* copy_ascii_utf16(const std::uint8_t* p, const std::uint8_t* end, bool le,
                                            char*& w) {
#if defined(__SSE2__)
  // The units of a block are all ASCII when no bit outside each unit's low 7 is set.
  const __m128i outside = _mm_set1_epi16(static_cast<std::int16_t>(0xFF80));
  while (end - p >= 32) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
    if (!le) {  // to little-endian units
      a = _mm_or_si128(_mm_slli_epi16(a, 8), _mm_srli_epi16(a, 8));
      b = _mm_or_si128(_mm_slli_epi16(b, 8), _mm_srli_epi16(b, 8));
    }
    const __m128i high = _mm_and_si128(_mm_or_si128(a, b), outside);
    if (_mm_movemask_epi8(_mm_cmpeq_epi16(high, _mm_setzero_si128())) != 0xFFFF) break;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(w), _mm_packus_epi16(a, b));
    p += 32;
    w += 16;
  }
#else
  (void)end;
  (void)le;
  (void)w;
#endif
  return p;
}

// The code unit at `p` (UTF-16, little-endian when `le`).
inline std::uint32_t utf16_unit(const std::uint8_t* p, bool le) {
  return le ? (std::uint32_t{p[1]} << 8) | p[0] : (std::uint32_t{p[0]} << 8) | p[1];
}

// Decodes the whole code units at `p` up to the first surrogate (or the end): ASCII ones 16, then
// 8 at a time, and in a block of 8 that holds another unit, the ASCII units before it at once and
// that unit alone. Returns where it stopped (a surrogate, or fewer than 2 bytes before `end`).
// Writes up to 8 bytes past what it decodes (the caller's room covers them: 1.5 bytes per input
// byte, plus 32).
inline const std::uint8_t* decode_utf16_bmp(const std::uint8_t* p, const std::uint8_t* end, bool le,
                                            char*& w) {
  p = copy_ascii_utf16(p, end, le, w);
#if defined(__SSE2__)
  const __m128i outside = _mm_set1_epi16(static_cast<std::int16_t>(0xFF80));
  while (end - p >= 16) {
    __m128i units = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if (!le) units = _mm_or_si128(_mm_slli_epi16(units, 8), _mm_srli_epi16(units, 8));
    const __m128i ascii = _mm_cmpeq_epi16(_mm_and_si128(units, outside), _mm_setzero_si128());
    // Two bits per unit that is not ASCII.
    const auto other = static_cast<unsigned>(~_mm_movemask_epi8(ascii)) & 0xFFFFu;
    _mm_storel_epi64(reinterpret_cast<__m128i*>(w), _mm_packus_epi16(units, units));
    if (other == 0) {
      p += 16;
      w += 8;
      continue;
    }
    const auto before = static_cast<std::size_t>(std::countr_zero(other)) / 2;  // ASCII units
    p += 2 * before;
    w += before;
    const std::uint32_t unit = utf16_unit(p, le);
    if (unit >= 0xD800 && unit <= 0xDFFF) return p;
    put_utf8(w, unit);
    p += 2;
  }
#endif
  while (end - p >= 2) {
    const std::uint32_t unit = utf16_unit(p, le);
    if (unit >= 0xD800 && unit <= 0xDFFF) break;
    put_utf8(w, unit);
    p += 2;
  }
  return p;
}

// The length of the well-formed UTF-8 sequence at `p` (the Encoding Standard's ranges), 0 when
// it is malformed or runs past `end`.
inline std::size_t utf8_sequence(const std::uint8_t* p, const std::uint8_t* end) {
  const std::uint8_t b = p[0];
  auto cont = [](std::uint8_t c) { return c >= 0x80 && c <= 0xBF; };
  const auto left = end - p;
  if (b >= 0xC2 && b <= 0xDF) return left >= 2 && cont(p[1]) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    if (left < 3 || !cont(p[2])) return 0;
    const std::uint8_t lo = b == 0xE0 ? 0xA0 : 0x80;
    const std::uint8_t hi = b == 0xED ? 0x9F : 0xBF;
    return p[1] >= lo && p[1] <= hi ? 3 : 0;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (left < 4 || !cont(p[2]) || !cont(p[3])) return 0;
    const std::uint8_t lo = b == 0xF0 ? 0x90 : 0x80;
    const std::uint8_t hi = b == 0xF4 ? 0x8F : 0xBF;
    return p[1] >= lo && p[1] <= hi ? 4 : 0;
  }
  return 0;
}

// The code point of the two-byte sequence `lead` `trail` (lead >= 0x81) in a CJK encoding, as its
// decoder gives it; 0 when the decoder would do anything else (an error, a longer sequence, one
// of Big5's two-code-point pointers, EUC-JP's 0x8E and 0x8F leads).
inline std::uint32_t two_byte_code_point(Encoding e, std::uint32_t lead, std::uint32_t trail) {
  switch (e) {
    case Encoding::kShiftJis: {
      if ((lead > 0x9F && lead < 0xE0) || lead > 0xFC) return 0;
      if (trail < 0x40 || trail == 0x7F || trail > 0xFC) return 0;
      const std::uint32_t pointer =
          (lead - (lead < 0xA0 ? 0x81 : 0xC1)) * 188 + trail - (trail < 0x7F ? 0x40 : 0x41);
      if (pointer >= 8836 && pointer <= 10715) return 0xE000 - 8836 + pointer;
      return lookup(whatwg::jis0208(), pointer);
    }
    case Encoding::kEucKr:
      if (lead > 0xFE || trail < 0x41 || trail > 0xFE) return 0;
      return lookup(whatwg::euc_kr(), (lead - 0x81) * 190 + (trail - 0x41));
    case Encoding::kBig5: {
      if (lead > 0xFE || trail < 0x40 || (trail > 0x7E && trail < 0xA1) || trail > 0xFE) return 0;
      const std::uint32_t pointer = (lead - 0x81) * 157 + (trail - (trail < 0x7F ? 0x40 : 0x62));
      if (pointer == 1133 || pointer == 1135 || pointer == 1164 || pointer == 1166) return 0;
      return lookup(whatwg::big5(), pointer);
    }
    case Encoding::kGbk:
    case Encoding::kGb18030:
      if (lead > 0xFE || trail < 0x40 || trail == 0x7F || trail > 0xFE) return 0;
      return lookup(whatwg::gb18030(),
                    (lead - 0x81) * 190 + (trail - (trail < 0x7F ? 0x40 : 0x41)));
    case Encoding::kEucJp:
      if (lead < 0xA1 || lead > 0xFE || trail < 0xA1 || trail > 0xFE) return 0;
      return lookup(whatwg::jis0208(), (lead - 0xA1) * 94 + (trail - 0xA1));
    default:
      return 0;
  }
}

bool ascii_compatible(Encoding e) {
  return e != Encoding::kUtf16Be && e != Encoding::kUtf16Le && e != Encoding::kIso2022Jp;
}

// ISO-2022-JP decoder states.
enum : std::uint8_t { kAscii, kRoman, kKatakana, kLeadByte, kTrailByte, kEscapeStart, kEscape };

}  // namespace

std::optional<Encoding> encoding_for_label(std::string_view label) {
  while (!label.empty() && is_label_space(label.front())) label.remove_prefix(1);
  while (!label.empty() && is_label_space(label.back())) label.remove_suffix(1);
  std::string lower(label);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  const auto* it =
      std::lower_bound(std::begin(kLabels), std::end(kLabels), lower,
                       [](const Label& l, const std::string& s) { return l.label < s; });
  if (it == std::end(kLabels) || it->label != lower) return std::nullopt;
  return it->encoding;
}

std::string_view encoding_name(Encoding encoding) {
  return kNames[static_cast<std::size_t>(encoding)];
}

Decoder::Decoder(Encoding encoding, bool remove_bom)
    : encoding_(encoding),
      bom_open_(remove_bom && (encoding == Encoding::kUtf8 || encoding == Encoding::kUtf16Le ||
                               encoding == Encoding::kUtf16Be)),
      single_byte_(single_byte_table(encoding)) {}

void Decoder::decode(std::string_view in, bool last, std::string& out) {
  // encoding_rs 0.8.34 (ripgrep 14's) forgets the pending lead byte of its Big5, EUC-KR and
  // Shift_JIS decoders when called with no input short of the end (its two-byte decoders take the
  // lead out of their state before finding the input empty); fixed in 0.8.40.
  if (in.empty() && !last && lead_ != 0 &&
      (encoding_ == Encoding::kBig5 || encoding_ == Encoding::kEucKr ||
       encoding_ == Encoding::kShiftJis)) {
    lead_ = 0;
  }
  // Room for the worst case, plus what held bytes and the end add, cut back to what was written
  // at the end: 4 bytes per input byte, 3 per unit of UTF-16 (2 bytes), 4 per surrogate pair.
  const bool utf16 = encoding_ == Encoding::kUtf16Le || encoding_ == Encoding::kUtf16Be;
  const std::size_t old = out.size();
  out.resize(old + (utf16 ? in.size() / 2 * 3 : 4 * in.size()) + 32);
  char* w = out.data() + old;
  if (bom_open_) {
    const std::string_view bom = encoding_ == Encoding::kUtf8      ? "\xEF\xBB\xBF"
                                 : encoding_ == Encoding::kUtf16Le ? "\xFF\xFE"
                                                                   : "\xFE\xFF";
    while (bom_open_ && !in.empty()) {
      if (in.front() != bom[bom_held_]) {
        bom_open_ = false;  // not a BOM: what was held is input
        break;
      }
      bom_bytes_[bom_held_++] = static_cast<std::uint8_t>(in.front());
      in.remove_prefix(1);
      if (bom_held_ == bom.size()) {
        bom_open_ = false;
        bom_held_ = 0;  // a BOM: dropped
      }
    }
    if (!bom_open_ || last) {
      bom_open_ = false;
      const std::uint8_t held = std::exchange(bom_held_, 0);
      for (std::uint8_t i = 0; i < held; ++i) {
        step(bom_bytes_[i], w);
        replay(w);
      }
    }
  }
  if (!bom_open_) {
    feed(in, w);
    if (last) finish(w);
  }
  out.resize(static_cast<std::size_t>(w - out.data()));
}

void Decoder::replay(char*& w) {
  while (pending_count_ > 0) step(pending_[--pending_count_], w);
}

void Decoder::feed(std::string_view in, char*& w) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(in.data());
  const auto* end = p + in.size();
  if (single_byte_ != nullptr) {  // no state at all
    while (p < end) {
      p = copy_ascii(p, end, w);
      for (; p < end && *p >= 0x80; ++p) {
        const std::uint32_t cp = single_byte_[*p - 0x80];
        put_utf8(w, cp == 0 ? kReplacement : cp);
      }
    }
    return;
  }
  const bool ascii = ascii_compatible(encoding_);
  const bool utf16 = encoding_ == Encoding::kUtf16Le || encoding_ == Encoding::kUtf16Be;
  const bool le = encoding_ == Encoding::kUtf16Le;
  const bool two_byte = encoding_ == Encoding::kShiftJis || encoding_ == Encoding::kEucKr ||
                        encoding_ == Encoding::kBig5 || encoding_ == Encoding::kGbk ||
                        encoding_ == Encoding::kGb18030 || encoding_ == Encoding::kEucJp;
  while (p < end) {
    if (ascii && idle() && second_ == 0) {
      // ASCII maps to itself while no sequence is open; so does well-formed UTF-8 in UTF-8.
      p = copy_ascii(p, end, w);
      if (encoding_ == Encoding::kUtf8) {
        while (p < end) {
          const std::size_t len = utf8_sequence(p, end);
          if (len == 0) break;
          std::memcpy(w, p, len);
          w += len;
          p += len;
          p = copy_ascii(p, end, w);
        }
      }
      // Well-formed two-byte characters of the CJK encodings, looked up without the state
      // machine (anything else goes through it).
      while (two_byte && end - p >= 2 && p[0] >= 0x81) {
        const std::uint32_t cp = two_byte_code_point(encoding_, p[0], p[1]);
        if (cp == 0) break;
        put_utf8(w, cp);
        p += 2;
        p = copy_ascii(p, end, w);
      }
      if (p == end) break;
    } else if (utf16 && lead_byte_ < 0 && lead_surrogate_ < 0 && pending_count_ == 0) {
      p = decode_utf16_bmp(p, end, le, w);
      if (p == end) break;
    }
    step(*p++, w);
    replay(w);
  }
}

void Decoder::step(std::uint8_t byte, char*& w) {
  auto emit = [&w](std::uint32_t cp) { put_utf8(w, cp); };
  auto error = [&w] { put_utf8(w, kReplacement); };
  // Puts `b` back in front of the input (after any byte put back by the same step first).
  auto prepend = [this](std::uint8_t b) { pending_[pending_count_++] = b; };
  auto is_ascii = [](std::uint8_t b) { return b < 0x80; };
  // The standard's last step for a lead byte and `byte` after it: the pair's code point if the
  // index has one (non-zero), else an error, `byte` being read again when it is ASCII.
  auto pair = [&](std::uint32_t cp) {
    if (cp != 0) {
      emit(cp);
      return;
    }
    if (is_ascii(byte)) prepend(byte);
    error();
  };
  switch (encoding_) {
    case Encoding::kUtf8: {
      if (needed_ == 0) {
        if (byte < 0x80) {
          emit(byte);
        } else if (byte >= 0xC2 && byte <= 0xDF) {
          needed_ = 1;
          code_point_ = byte & 0x1Fu;
        } else if (byte >= 0xE0 && byte <= 0xEF) {
          if (byte == 0xE0) lower_ = 0xA0;
          if (byte == 0xED) upper_ = 0x9F;
          needed_ = 2;
          code_point_ = byte & 0xFu;
        } else if (byte >= 0xF0 && byte <= 0xF4) {
          if (byte == 0xF0) lower_ = 0x90;
          if (byte == 0xF4) upper_ = 0x8F;
          needed_ = 3;
          code_point_ = byte & 0x7u;
        } else {
          error();
        }
        return;
      }
      if (byte < lower_ || byte > upper_) {
        code_point_ = 0;
        needed_ = seen_ = 0;
        lower_ = 0x80;
        upper_ = 0xBF;
        prepend(byte);
        error();
        return;
      }
      lower_ = 0x80;
      upper_ = 0xBF;
      code_point_ = (code_point_ << 6) | (byte & 0x3Fu);
      if (++seen_ != needed_) return;
      emit(code_point_);
      code_point_ = 0;
      needed_ = seen_ = 0;
      return;
    }
    case Encoding::kGbk:
    case Encoding::kGb18030: {
      if (third_ != 0) {
        if (byte < 0x30 || byte > 0x39) {
          // Put back second, third, byte (in that order).
          prepend(byte);
          prepend(third_);
          prepend(second_);
          lead_ = second_ = third_ = 0;
          error();
          return;
        }
        const std::uint32_t pointer = (std::uint32_t{lead_} - 0x81) * (10 * 126 * 10) +
                                      (std::uint32_t{second_} - 0x30) * (10 * 126) +
                                      (std::uint32_t{third_} - 0x81) * 10 + byte - 0x30;
        lead_ = second_ = third_ = 0;
        const std::uint32_t cp = gb18030_range(pointer);
        cp == 0 ? error() : emit(cp);
        return;
      }
      if (second_ != 0) {
        if (byte >= 0x81 && byte <= 0xFE) {
          third_ = byte;
          return;
        }
        prepend(byte);
        prepend(second_);
        lead_ = second_ = 0;
        error();
        return;
      }
      if (lead_ != 0) {
        if (byte >= 0x30 && byte <= 0x39) {
          second_ = byte;
          return;
        }
        const std::uint8_t lead = std::exchange(lead_, 0);
        std::uint32_t cp = 0;
        if ((byte >= 0x40 && byte <= 0x7E) || (byte >= 0x80 && byte <= 0xFE)) {
          const std::uint32_t offset = byte < 0x7F ? 0x40 : 0x41;
          cp = lookup(whatwg::gb18030(), (std::uint32_t{lead} - 0x81) * 190 + (byte - offset));
        }
        pair(cp);
        return;
      }
      if (is_ascii(byte)) {
        emit(byte);
      } else if (byte == 0x80) {
        emit(0x20AC);
      } else if (byte != 0xFF) {
        lead_ = byte;
      } else {
        error();
      }
      return;
    }
    case Encoding::kBig5: {
      if (lead_ != 0) {
        const std::uint8_t lead = std::exchange(lead_, 0);
        std::uint32_t cp = 0;
        if ((byte >= 0x40 && byte <= 0x7E) || (byte >= 0xA1 && byte <= 0xFE)) {
          const std::uint32_t offset = byte < 0x7F ? 0x40 : 0x62;
          const std::uint32_t pointer = (std::uint32_t{lead} - 0x81) * 157 + (byte - offset);
          switch (pointer) {
            case 1133:
              emit(0xCA);
              emit(0x304);
              return;
            case 1135:
              emit(0xCA);
              emit(0x30C);
              return;
            case 1164:
              emit(0xEA);
              emit(0x304);
              return;
            case 1166:
              emit(0xEA);
              emit(0x30C);
              return;
            default:
              cp = lookup(whatwg::big5(), pointer);
          }
        }
        pair(cp);
        return;
      }
      if (is_ascii(byte)) {
        emit(byte);
      } else if (byte >= 0x81 && byte <= 0xFE) {
        lead_ = byte;
      } else {
        error();
      }
      return;
    }
    case Encoding::kEucJp: {
      if (lead_ == 0x8E && byte >= 0xA1 && byte <= 0xDF) {
        lead_ = 0;
        emit(0xFF61 - 0xA1 + byte);
        return;
      }
      if (lead_ == 0x8F && byte >= 0xA1 && byte <= 0xFE) {
        flag_ = true;
        lead_ = byte;
        return;
      }
      if (lead_ != 0) {
        const std::uint8_t lead = std::exchange(lead_, 0);
        std::uint32_t cp = 0;
        if (lead >= 0xA1 && lead <= 0xFE && byte >= 0xA1 && byte <= 0xFE) {
          const std::size_t pointer = (std::size_t{lead} - 0xA1) * 94 + (byte - 0xA1);
          cp = lookup(flag_ ? whatwg::jis0212() : whatwg::jis0208(), pointer);
        }
        flag_ = false;
        pair(cp);
        return;
      }
      if (is_ascii(byte)) {
        emit(byte);
      } else if (byte == 0x8E || byte == 0x8F || (byte >= 0xA1 && byte <= 0xFE)) {
        lead_ = byte;
      } else {
        error();
      }
      return;
    }
    case Encoding::kShiftJis: {
      if (lead_ != 0) {
        const std::uint8_t lead = std::exchange(lead_, 0);
        std::uint32_t cp = 0;
        if ((byte >= 0x40 && byte <= 0x7E) || (byte >= 0x80 && byte <= 0xFC)) {
          const std::uint32_t offset = byte < 0x7F ? 0x40 : 0x41;
          const std::uint32_t lead_offset = lead < 0xA0 ? 0x81 : 0xC1;
          const std::uint32_t pointer = (lead - lead_offset) * 188 + byte - offset;
          if (pointer >= 8836 && pointer <= 10715) {
            emit(0xE000 - 8836 + pointer);
            return;
          }
          cp = lookup(whatwg::jis0208(), pointer);
        }
        pair(cp);
        return;
      }
      if (byte <= 0x80) {
        emit(byte);
      } else if (byte >= 0xA1 && byte <= 0xDF) {
        emit(0xFF61 - 0xA1 + byte);
      } else if ((byte >= 0x81 && byte <= 0x9F) || (byte >= 0xE0 && byte <= 0xFC)) {
        lead_ = byte;
      } else {
        error();
      }
      return;
    }
    case Encoding::kEucKr: {
      if (lead_ != 0) {
        const std::uint8_t lead = std::exchange(lead_, 0);
        std::uint32_t cp = 0;
        if (byte >= 0x41 && byte <= 0xFE) {
          cp = lookup(whatwg::euc_kr(), (std::size_t{lead} - 0x81) * 190 + (byte - 0x41));
        }
        pair(cp);
        return;
      }
      if (is_ascii(byte)) {
        emit(byte);
      } else if (byte >= 0x81 && byte <= 0xFE) {
        lead_ = byte;
      } else {
        error();
      }
      return;
    }
    case Encoding::kIso2022Jp: {
      switch (state_) {
        case kAscii:
        case kRoman:
          if (byte == 0x1B) {
            state_ = kEscapeStart;
            return;
          }
          flag_ = false;
          if (byte > 0x7F || byte == 0x0E || byte == 0x0F) {
            error();
          } else if (state_ == kRoman && byte == 0x5C) {
            emit(0xA5);
          } else if (state_ == kRoman && byte == 0x7E) {
            emit(0x203E);
          } else {
            emit(byte);
          }
          return;
        case kKatakana:
          if (byte == 0x1B) {
            state_ = kEscapeStart;
            return;
          }
          flag_ = false;
          (byte >= 0x21 && byte <= 0x5F) ? emit(0xFF61 - 0x21 + byte) : error();
          return;
        case kLeadByte:
          if (byte == 0x1B) {
            state_ = kEscapeStart;
            return;
          }
          flag_ = false;
          if (byte >= 0x21 && byte <= 0x7E) {
            lead_ = byte;
            state_ = kTrailByte;
            return;
          }
          error();
          return;
        case kTrailByte: {
          if (byte == 0x1B) {
            state_ = kEscapeStart;
            error();
            return;
          }
          state_ = kLeadByte;
          if (byte >= 0x21 && byte <= 0x7E) {
            const std::uint32_t cp = lookup(
                whatwg::jis0208(), (std::size_t{lead_} - 0x21) * 94 + (std::size_t{byte} - 0x21));
            cp == 0 ? error() : emit(cp);
            return;
          }
          error();
          return;
        }
        case kEscapeStart:
          if (byte == 0x24 || byte == 0x28) {
            lead_ = byte;
            state_ = kEscape;
            return;
          }
          prepend(byte);
          flag_ = false;
          state_ = output_state_;
          error();
          return;
        case kEscape: {
          const std::uint8_t lead = std::exchange(lead_, 0);
          std::uint8_t next = 0xFF;
          if (lead == 0x28 && byte == 0x42) next = kAscii;
          if (lead == 0x28 && byte == 0x4A) next = kRoman;
          if (lead == 0x28 && byte == 0x49) next = kKatakana;
          if (lead == 0x24 && (byte == 0x40 || byte == 0x42)) next = kLeadByte;
          if (next != 0xFF) {
            state_ = output_state_ = next;
            const bool output = std::exchange(flag_, true);
            if (output) error();
            return;
          }
          prepend(byte);
          prepend(lead);
          flag_ = false;
          state_ = output_state_;
          error();
          return;
        }
        default:
          return;
      }
    }
    case Encoding::kUtf16Be:
    case Encoding::kUtf16Le: {
      if (lead_byte_ < 0) {
        lead_byte_ = byte;
        return;
      }
      const auto lead = static_cast<std::uint32_t>(std::exchange(lead_byte_, std::int16_t{-1}));
      const std::uint32_t unit =
          encoding_ == Encoding::kUtf16Le ? (std::uint32_t{byte} << 8) | lead : (lead << 8) | byte;
      if (lead_surrogate_ >= 0) {
        const auto high = static_cast<std::uint32_t>(std::exchange(lead_surrogate_, -1));
        if (unit >= 0xDC00 && unit <= 0xDFFF) {
          emit(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00));
          return;
        }
        // Put the unit's two bytes back, in stream order.
        const auto b1 = static_cast<std::uint8_t>(unit >> 8);
        const auto b2 = static_cast<std::uint8_t>(unit & 0xFF);
        if (encoding_ == Encoding::kUtf16Le) {
          prepend(b1);
          prepend(b2);
        } else {
          prepend(b2);
          prepend(b1);
        }
        error();
        return;
      }
      if (unit >= 0xD800 && unit <= 0xDBFF) {
        lead_surrogate_ = static_cast<std::int32_t>(unit);
        return;
      }
      (unit >= 0xDC00 && unit <= 0xDFFF) ? error() : emit(unit);
      return;
    }
    case Encoding::kXUserDefined:
      emit(byte < 0x80 ? byte : 0xF780u + byte - 0x80);
      return;
    default:  // the single-byte encodings (feed decodes them)
      return;
  }
}

void Decoder::finish(char*& w) {
  // The end of the stream, repeated until an encoding says it is finished (an escape sequence
  // cut short puts bytes back first).
  for (;;) {
    replay(w);
    switch (encoding_) {
      case Encoding::kUtf8:
        if (needed_ == 0) return;
        needed_ = seen_ = 0;
        code_point_ = 0;
        lower_ = 0x80;
        upper_ = 0xBF;
        break;
      case Encoding::kGbk:
      case Encoding::kGb18030:
        if (lead_ == 0 && second_ == 0 && third_ == 0) return;
        lead_ = second_ = third_ = 0;
        break;
      case Encoding::kBig5:
      case Encoding::kShiftJis:
      case Encoding::kEucKr:
      case Encoding::kEucJp:
        if (lead_ == 0) return;
        lead_ = 0;
        flag_ = false;
        break;
      case Encoding::kUtf16Be:
      case Encoding::kUtf16Le:
        if (lead_byte_ < 0 && lead_surrogate_ < 0) return;
        lead_byte_ = -1;
        lead_surrogate_ = -1;
        break;
      case Encoding::kIso2022Jp:
        if (state_ == kTrailByte) {
          state_ = kLeadByte;  // and the end again
          break;
        }
        if (state_ == kEscapeStart) {
          flag_ = false;
          state_ = output_state_;
          break;
        }
        if (state_ == kEscape) {
          pending_[pending_count_++] = std::exchange(lead_, 0);
          flag_ = false;
          state_ = output_state_;
          break;
        }
        return;
      default:
        return;
    }
    put_utf8(w, kReplacement);
  }
}

DecodePlan plan_decoding(std::string_view head, std::optional<Encoding> explicit_encoding,
                         bool bom_sniffing) {
  DecodePlan plan;
  if (!bom_sniffing) return plan;  // -E none: the bytes as they are
  head = head.substr(0, 3);
  const bool utf16_bom =
      head.size() >= 2 && (head.substr(0, 2) == "\xFF\xFE" || head.substr(0, 2) == "\xFE\xFF");
  // encoding_rs_io's BomPeeker strips what looks like a BOM (a UTF-16 one even in a 2-byte
  // haystack, where it is not taken as one).
  if (utf16_bom) {
    plan.skip = 2;
  } else if (head == "\xEF\xBB\xBF") {
    plan.skip = 3;
  }
  plan.first_read = head.size() - plan.skip;
  plan.decoder = explicit_encoding;
  if (head.size() == 3 && utf16_bom) {
    plan.decoder = head[0] == '\xFF' ? Encoding::kUtf16Le : Encoding::kUtf16Be;
  }
  // A UTF-8 BOM keeps the decoder asked for (none: UTF-8 is passed through).
  return plan;
}

std::string decode_haystack(Encoding encoding, std::string_view in, std::size_t first_read,
                            std::size_t buffered_end, std::vector<std::size_t>* read_ends) {
  // encoding_rs_io's DecodeReaderBytes::read, as grep-searcher's line buffer calls it: each call
  // fills its 8 KiB buffer (from the BOM peek's leftover first) when it has used it up and
  // decodes it, filling again while that decodes to nothing; at the end of the input, a call
  // decodes nothing (not last), then ends the stream.
  Decoder decoder(encoding, true);
  std::string out;
  out.reserve(in.size() + in.size() / 2 + 4);
  auto mark = [&] {
    if (read_ends != nullptr && !out.empty() &&
        (read_ends->empty() || read_ends->back() < out.size())) {
      read_ends->push_back(out.size());
    }
  };
  std::size_t at = 0;
  bool produced = true;  // the last call returned something (the next one fills first)
  while (at < in.size()) {
    std::size_t n = std::min(buffered_end > at ? buffered_end - at : kDecoderRead, in.size() - at);
    if (at == 0 && first_read > 0) n = std::min(first_read, in.size());
    const std::size_t before = out.size();
    decoder.decode(in.substr(at, n), false, out);
    at += n;
    produced = out.size() > before;
    mark();
  }
  if (produced) decoder.decode({}, false, out);
  decoder.decode({}, true, out);
  mark();
  return out;
}

bool may_decode_to_nul(Encoding encoding, std::string_view in) {
  if (encoding != Encoding::kUtf16Le && encoding != Encoding::kUtf16Be) {
    return std::memchr(in.data(), '\0', in.size()) != nullptr;
  }
  // A zero 16-bit lane (either byte order): 32 code units at a time (SSE2; four at a time with
  // 64-bit words was 10% of a UTF-16 file's search), then four, then one.
  std::size_t i = 0;
  const __m128i zero = _mm_setzero_si128();
  for (; i + 64 <= in.size(); i += 64) {
    const char* p = in.data() + i;
    const __m128i a = _mm_cmpeq_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), zero);
    const __m128i b =
        _mm_cmpeq_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16)), zero);
    const __m128i c =
        _mm_cmpeq_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 32)), zero);
    const __m128i d =
        _mm_cmpeq_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 48)), zero);
    if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) != 0) return true;
  }
  constexpr std::uint64_t kLow = 0x0001000100010001ULL, kHigh = 0x8000800080008000ULL;
  for (; i + 8 <= in.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, in.data() + i, 8);
    if (((w - kLow) & ~w & kHigh) != 0) return true;
  }
  for (; i + 2 <= in.size(); i += 2) {
    if (in[i] == '\0' && in[i + 1] == '\0') return true;
  }
  return false;
}

}  // namespace ctx::engine
