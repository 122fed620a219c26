#include "ctx/engine/pattern_set.hpp"

#include <fmt/format.h>
#include <hs/hs.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <span>

#include "bit_matcher.hpp"
#include "byte_mode.hpp"
#include "byte_prefilter.hpp"
#include "ctx/base/utf8.hpp"
#include "hashed_literals.hpp"
#include "large_repeats.hpp"
#include "line_anchors.hpp"
#include "pair_literal.hpp"
#include "required_literals.hpp"
#include "rust_hir.hpp"
#include "rust_syntax.hpp"
#include "unicode_props.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace ctx::engine {
namespace {

constexpr std::uint32_t kMatchLimit = 50'000'000;  // PCRE2 backtracking steps per match attempt
constexpr std::uint32_t kDepthLimit = 1'000'000;
constexpr std::size_t kJitStackMax = std::size_t{8} << 20;
constexpr std::uint32_t kMaxLookAhead = 256;  // matching lines one find_line scan queues at most
// Candidate lines of the required-literal prefilter closer than this on average (bytes) drop it
// (Impl::required_spacing); one literal taken for its rarity alone needs sparser ones, since
// Hyperscan would anchor on it too: with one on every 1 KB line each cost ~70 ns more than
// Hyperscan's own pass (100 MB of logs, `-c '\d+ ERROR'`: 33.7 -> 40.1 ms at 512).
constexpr std::size_t kRequiredLineSpacing = 512;
constexpr std::size_t kRequiredRareLineSpacing = 4096;

using HsDatabase = std::unique_ptr<hs_database_t, decltype(&hs_free_database)>;
using HsScratchPtr = std::unique_ptr<hs_scratch_t, decltype(&hs_free_scratch)>;
using Pcre2Code = std::unique_ptr<pcre2_code, decltype(&pcre2_code_free)>;

bool is_regex_meta(char c) { return std::strchr(".^$|?*+()[]{}\\", c) != nullptr && c != '\0'; }

// True when the UTF-8 character at s[i] (of `len` bytes) is an uppercase letter (\p{Lu}).
bool is_upper_char(std::string_view s, std::size_t i, std::size_t len) {
  if (len == 1) return s[i] >= 'A' && s[i] <= 'Z';
  static const pcre2_code* upper = [] {
    int error = 0;
    PCRE2_SIZE offset = 0;
    return pcre2_compile(reinterpret_cast<PCRE2_SPTR>("^\\p{Lu}$"), PCRE2_ZERO_TERMINATED,
                         PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &error, &offset, nullptr);
  }();
  if (upper == nullptr) return false;
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(upper, nullptr);
  int rc = pcre2_match(upper, reinterpret_cast<PCRE2_SPTR>(s.data() + i), len, 0, 0, md, nullptr);
  pcre2_match_data_free(md);
  return rc >= 0;
}

std::size_t utf8_length(unsigned char c) {
  return c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

// Smart case (-S), as ripgrep: does the pattern hold an uppercase *literal* character? Escapes
// (\W, \p{Greek}, \x{..}) and group names are not literals; under -F everything is.
// `hex_literals`: a hex escape counts as its character (Rust's syntax; not under -P).
bool has_uppercase(std::string_view s, bool literal, bool hex_literals) {
  for (std::size_t i = 0; i < s.size();) {
    if (!literal && s[i] == '\\') {
      // A hex escape is a literal of its character (rg 14: -S '\\x41' is case-sensitive), and its
      // digits are none (-S '[^\\x00-\\x7F]' stays case-insensitive).
      const char kind = i + 1 < s.size() ? s[i + 1] : '\0';
      if (hex_literals && i + 2 < s.size() && (kind == 'x' || kind == 'u' || kind == 'U')) {
        const bool braced = s[i + 2] == '{';
        const std::size_t digits = braced ? i + 3 : i + 2;
        const std::size_t width = kind == 'x' ? 2 : kind == 'u' ? 4 : 8;
        const std::size_t end = braced ? s.find('}', digits) : std::min(digits + width, s.size());
        if (end != std::string_view::npos && end > digits && end - digits <= 8) {
          std::uint32_t cp = 0;
          bool hex = true;
          for (std::size_t k = digits; k < end && hex; ++k) {
            const auto h = static_cast<unsigned char>(s[k]);
            hex = std::isxdigit(h) != 0;
            cp = cp * 16 +
                 static_cast<std::uint32_t>(std::isdigit(h) != 0 ? h - '0' : (h | 0x20) - 'a' + 10);
          }
          if (hex && cp < 0x80 && cp >= 'A' && cp <= 'Z') return true;
          if (hex && cp >= 0x80 && cp <= 0x10FFFF) {
            const std::string ch = ctx::utf8_of(cp);
            if (is_upper_char(ch, 0, ch.size())) return true;
          }
          if (hex) {
            i = braced ? end + 1 : end;
            continue;
          }
        }
      }
      const bool property = i + 1 < s.size() && (s[i + 1] == 'p' || s[i + 1] == 'P');
      i += 2;
      if (i < s.size() && s[i] == '{') {
        std::size_t close = s.find('}', i);
        i = close == std::string_view::npos ? s.size() : close + 1;
      } else if (hex_literals && property && i < s.size()) {
        // Rust's one-letter \pL: the letter names a class, it is no literal (rg 14: -S '\pL'
        // stays case-insensitive). -P counts it (rg 14's -P rule).
        i += std::min(utf8_length(static_cast<unsigned char>(s[i])), s.size() - i);
      }
      continue;
    }
    const bool named_group =
        s.substr(i, 4) == "(?P<" ||
        (s.substr(i, 3) == "(?<" && i + 3 < s.size() && s[i + 3] != '=' && s[i + 3] != '!');
    if (!literal && named_group) {  // skip the group's name
      std::size_t close = s.find('>', i);
      i = close == std::string_view::npos ? s.size() : close + 1;
      continue;
    }
    // Rust's inline flags ((?U), (?R), (?x-U:) are no literals either (rg 14: -S '(?U)a+' stays
    // case-insensitive); -P counts them (rg 14's -P rule reads the pattern as text).
    if (!literal && hex_literals && s.substr(i, 2) == "(?") {
      const std::size_t end = s.find_first_not_of("imsUuxR-", i + 2);
      if (end != std::string_view::npos && end > i + 2 && (s[end] == ')' || s[end] == ':')) {
        i = end + 1;
        continue;
      }
    }
    if (i >= s.size()) break;
    std::size_t len = std::min(utf8_length(static_cast<unsigned char>(s[i])), s.size() - i);
    if (is_upper_char(s, i, len)) return true;
    i += len;
  }
  return false;
}

// Smart case also needs a literal character somewhere (ripgrep's AstAnalysis::any_literal):
// `-S '[[:upper:]]+'` and `-S '\\w+'` stay case-sensitive. Literals are characters outside
// syntax, escaped punctuation and character escapes (\\n, \\x41); classes (\\w, \\p{..},
// [:name:]), assertions, group syntax and counted repetitions are not.
bool has_literal(std::string_view s) {
  std::size_t class_depth = 0;  // inside [..]: `--`, `&&` and `~~` are set operations
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (class_depth > 0 && i + 1 < s.size() && s[i + 1] == c && std::strchr("-&~", c) != nullptr) {
      i += 2;
      continue;
    }
    if (class_depth > 0 && c == ']') {
      --class_depth;
      ++i;
      continue;
    }
    if (c == '\\') {
      if (i + 1 >= s.size()) return false;
      const char e = s[i + 1];
      if (std::isalnum(static_cast<unsigned char>(e)) == 0 ||
          std::strchr("xuUntrfvae", e) != nullptr) {
        return true;
      }
      i += 2;
      if (i < s.size() && s[i] == '{') {  // \p{..}
        const std::size_t close = s.find('}', i);
        i = close == std::string_view::npos ? s.size() : close + 1;
      }
      continue;
    }
    if (c == '[' && s.substr(i, 2) == "[:") {  // a POSIX class
      const std::size_t close = s.find(":]", i + 2);
      if (close != std::string_view::npos) {
        i = close + 2;
        continue;
      }
    }
    if (c == '[') {  // the class's negation is syntax; a `]` right after `[` or `[^` is not
      i += s.substr(i, 2) == "[^" ? std::size_t{2} : std::size_t{1};
      ++class_depth;
      if (i < s.size() && s[i] == ']') return true;
      continue;
    }
    if (c == '(' && s.substr(i, 2) == "(?") {  // flags, group names
      const std::size_t end = s.find_first_of(":)>", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 1;
      continue;
    }
    if (c == '{') {  // a counted repetition {n}, {n,}, {n,m}
      std::size_t j = i + 1;
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) != 0 || s[j] == ','))
        ++j;
      if (j < s.size() && s[j] == '}' && j > i + 1) {
        i = j + 1;
        continue;
      }
    }
    if (std::strchr(".^$|?*+()[]{}", c) == nullptr) return true;
    ++i;
  }
  return false;
}

bool is_literal(std::string_view p) {
  for (char c : p) {
    if (is_regex_meta(c)) return false;
  }
  return true;
}

// Escapes every ASCII punctuation byte, which PCRE2 and Hyperscan both read as a literal then,
// but `<` and `>`: Rust's regex-syntax (the byte-mode translator) reads `\<` and `\>` as word
// boundaries, and unescaped they are literals everywhere.
std::string escape_literal(std::string_view p) {
  std::string out;
  out.reserve(p.size() * 2);
  for (char c : p) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && !std::isalnum(u) && c != ' ' && c != '<' && c != '>') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string pcre2_error_text(int code) {
  PCRE2_UCHAR buf[256];
  pcre2_get_error_message(code, buf, sizeof buf);
  return reinterpret_cast<const char*>(buf);
}

// While an interrupt is set, PCRE2 scans whole buffers a window of whole lines at a time, checking
// the interrupt between windows, so a regex that backtracks for long on every line still stops
// soon. The window (at least the given bytes, to the end of the line they reach) adapts to take
// about a millisecond: it doubles after a call that took less than a quarter of that and halves
// after one that took more than twice, from one line up to kMaxWindowBytes.
constexpr std::size_t kFirstWindowBytes = std::size_t{16} << 10;
constexpr std::size_t kMaxWindowBytes = std::size_t{1} << 20;
// The largest count Hyperscan gets in a counted repetition: beyond it, {n,m} becomes the superset
// {min(n, kHsRepeatMax),} (Hyperscan refuses bounded repeats above 32767 and takes seconds to
// compile large ones: `ab{0,32000}c` 0.8 s, `ab{1000,}c` 25 ms, `ab*c` well under 1 ms).
constexpr std::uint32_t kHsRepeatMax = 1000;
// -x: the most regexes Hyperscan gets anchored at both line ends (see build_exprs in compile).
constexpr std::size_t kAnchoredLineMax = 64;

constexpr auto kWindowTarget = std::chrono::microseconds(1000);

// What a Scratch's interrupt is (Scratch::set_interrupt).
struct InterruptState {
  const std::function<bool()>* stop = nullptr;
  std::uint32_t confirms = 0;  // candidate lines PCRE2 rejected, for the check every 16
  std::size_t window_bytes = kFirstWindowBytes;
};

// How Hyperscan's literal API decides a set of plain ASCII literals alone (no PCRE2): kSubstring,
// a match is where a literal occurs (exact spans: PatternSet::each_match); kWord (-w), where a
// literal occurs with ripgrep 14's half word boundaries around it (rust_word_start_half,
// rust_word_end_half); kWholeLine (-x), a line matches when it equals a literal that occurs in it.
enum class LiteralMode { kNone, kSubstring, kWord, kWholeLine };

constexpr std::string_view kKelvinSign = "\xE2\x84\xAA";  // U+212A, folds to k
constexpr std::string_view kLongS = "\xC5\xBF";           // U+017F, folds to s

// Whether byte `a` is ASCII character `c` (without case when `caseless`).
bool same_ascii_char(char a, char c, bool caseless) {
  return a == c || (caseless && std::tolower(static_cast<unsigned char>(a)) ==
                                    std::tolower(static_cast<unsigned char>(c)));
}

// The non-ASCII character that `c` also matches under `caseless` (U+212A for k, U+017F for s),
// or "".
std::string_view unicode_fold_of(char c, bool caseless) {
  const int lower = std::tolower(static_cast<unsigned char>(c));
  return !caseless ? "" : lower == 'k' ? kKelvinSign : lower == 's' ? kLongS : "";
}

// Whether the character that literal byte `c` stands for (ASCII letters without case when
// `caseless`, k and s also as U+212A and U+017F then) starts at text[at]: moves `at` past it.
bool literal_char_at(std::string_view text, std::size_t& at, char c, bool caseless) {
  if (at < text.size() && same_ascii_char(text[at], c, caseless)) {
    ++at;
    return true;
  }
  const std::string_view fold = unicode_fold_of(c, caseless);
  if (fold.empty() || text.substr(at, fold.size()) != fold) return false;
  at += fold.size();
  return true;
}

// Like literal_char_at, for the character that ends at text[at - 1]: moves `at` before it.
bool literal_char_before(std::string_view text, std::size_t& at, char c, bool caseless) {
  if (at > 0 && same_ascii_char(text[at - 1], c, caseless)) {
    --at;
    return true;
  }
  const std::string_view fold = unicode_fold_of(c, caseless);
  if (fold.empty() || at < fold.size() || text.substr(at - fold.size(), fold.size()) != fold) {
    return false;
  }
  at -= fold.size();
  return true;
}

bool is_continuation_byte(unsigned char b) { return (b & 0xC0) == 0x80; }

bool is_ascii_word_byte(unsigned char b) {
  return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '_';
}

// Whether `ch`, one valid UTF-8 character, is a word character of Rust's Unicode \w
// (detail::kRustWordItems).
bool is_rust_word_char(std::string_view ch) {
  if (ch.size() == 1) return is_ascii_word_byte(static_cast<unsigned char>(ch[0]));
  static const pcre2_code* word = [] {
    const std::string re = fmt::format("[{}]", detail::kRustWordItems);
    int error = 0;
    PCRE2_SIZE offset = 0;
    return pcre2_compile(reinterpret_cast<PCRE2_SPTR>(re.data()), re.size(),
                         PCRE2_UTF | PCRE2_UCP | PCRE2_ANCHORED, &error, &offset, nullptr);
  }();
  if (word == nullptr) return false;
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(word, nullptr);
  const bool is_word =
      pcre2_match(word, reinterpret_cast<PCRE2_SPTR>(ch.data()), ch.size(), 0, 0, md, nullptr) >= 0;
  pcre2_match_data_free(md);
  return is_word;
}

// Rust regex's utf8::decode of the character at text[at] (at < text.size()): its length in
// bytes, or 0 when the bytes there are not one valid character (a lone continuation byte, a
// sequence cut by the end of `text`, overlong, a surrogate, past U+10FFFF).
std::size_t rust_decode_length(std::string_view text, std::size_t at) {
  const auto b = static_cast<unsigned char>(text[at]);
  const std::size_t len = b < 0x80   ? 1
                          : b < 0xC0 ? 0
                          : b < 0xE0 ? 2
                          : b < 0xF0 ? 3
                          : b < 0xF8 ? 4
                                     : 0;
  if (len == 0 || at + len > text.size()) return 0;
  if (len > 1 && !ctx::is_valid_utf8(text.substr(at, len))) return 0;
  return len;
}

// Rust's \b{start-half} (ripgrep 14's -w start) at text[at] when `text` is searched from `floor`
// on (a line; `after_line_break`: a line terminator precedes text[floor]): true at `floor`, else
// true when the character before is valid and not a word character. That character is Rust's
// utf8::decode_last of the (at most 4) bytes before `at`: back over continuation bytes to a
// leading byte, then the first character there, even when stray continuation bytes follow it.
bool rust_word_start_half(std::string_view text, std::size_t floor, std::size_t at,
                          bool after_line_break) {
  if (at == floor) return true;
  const auto before = static_cast<unsigned char>(text[at - 1]);
  if (before < 0x80) return !is_ascii_word_byte(before);
  const std::size_t n = at - floor;
  const std::size_t limit = floor + (n >= 4 ? n - 4 : 0);
  std::size_t start = at - 1;
  while (start > limit && is_continuation_byte(static_cast<unsigned char>(text[start]))) --start;
  if (is_continuation_byte(static_cast<unsigned char>(text[start]))) {
    // Continuation bytes back to the line's start: the line terminator before it, when within
    // the 4 bytes looked at, is the character before (not a word character).
    return start == floor && n <= 3 && after_line_break;
  }
  const std::string_view head = text.substr(0, at);
  const std::size_t len = rust_decode_length(head, start);
  return len != 0 && !is_rust_word_char(head.substr(start, len));
}

// Rust's \b{end-half} (ripgrep 14's -w end) at text[at], `text` ending where the line does: true
// at the end, else true when a valid character that is not a word character starts at `at`.
bool rust_word_end_half(std::string_view text, std::size_t at) {
  if (at >= text.size()) return true;
  const auto after = static_cast<unsigned char>(text[at]);
  if (after < 0x80) return !is_ascii_word_byte(after);
  const std::size_t len = rust_decode_length(text, at);
  return len != 0 && !is_rust_word_char(text.substr(at, len));
}

// The plain ASCII literals Hyperscan's literal API searches (LiteralMode): each pattern by id,
// and the piece of it that Hyperscan looks for (the whole literal, or under -i, when it holds
// k or s, its longest piece without them).
struct LiteralTable {
  LiteralMode mode = LiteralMode::kNone;
  bool caseless = false;
  bool cut = false;  // some piece is not its whole literal
  std::vector<std::string> literals;
  // By Hyperscan id (a piece): its pattern, where the piece starts in it and how many of its
  // bytes it stands for, and the piece's own length in bytes (U+212A for k: 3).
  std::vector<std::uint32_t> piece_pattern;
  std::vector<std::uint32_t> piece_start;
  std::vector<std::uint32_t> piece_chars;
  std::vector<std::uint32_t> piece_bytes;

  // The occurrence of the literal of piece `id` whose piece ends at `to` in `text`, if there is
  // one: true with it in [start, end).
  bool occurrence(std::string_view text, std::size_t to, unsigned id, std::size_t& start,
                  std::size_t& end) const {
    const std::string& literal = literals[piece_pattern[id]];
    const std::size_t first = piece_start[id], chars = piece_chars[id];
    start = to - piece_bytes[id];
    end = to;
    if (chars == literal.size()) return true;
    for (std::size_t i = first; i-- > 0;) {
      if (!literal_char_before(text, start, literal[i], caseless)) return false;
    }
    for (std::size_t i = first + chars; i < literal.size(); ++i) {
      if (!literal_char_at(text, end, literal[i], caseless)) return false;
    }
    return true;
  }
};

// A thread's PCRE2 matching state (in a Scratch).
struct MatchState {
  pcre2_match_data* md = nullptr;     // the match search() found last
  pcre2_match_data* spare = nullptr;  // where a chunked search tries the next chunk
  pcre2_match_context* mctx = nullptr;
  std::uint32_t chunk = 0;  // the chunk of the Alternation that found the match in md
  // pcre2_match options of search() (PCRE2_NOTBOL: the subject does not start a line, for `^`).
  std::uint32_t options = 0;
};

// How a search error caused by PCRE2's match, depth or JIT stack limit starts (is_regex_limit).
constexpr std::string_view kRegexLimitHit = "regex engine limit hit";

Error interrupted_error() {
  return Error{ErrorCode::kIo,
               "the search was interrupted (its deadline passed or it was cancelled)"};
}

// The most compiled code PCRE2 allows in one regex, for messages: 64 KiB with Debian's LINK_SIZE 2.
std::string pcre2_size_limit() {
  std::uint32_t link_size = 2;
  pcre2_config(PCRE2_CONFIG_LINKSIZE, &link_size);
  return link_size == 2 ? "64 KiB" : link_size == 3 ? "16 MiB" : "4 GiB";
}

// The message for PCRE2 compile error `error` at `offset` of the regex shown as `shown`.
std::string compile_error_message(std::string_view shown, PCRE2_SIZE offset, int error) {
  // A combined regex of thousands of patterns is shown by its start and size only.
  constexpr std::size_t kShownMax = 200;
  const std::string text = shown.size() <= kShownMax
                               ? std::string(shown)
                               : fmt::format("{}... ({} bytes)", shown.substr(0, 80), shown.size());
  // A regex too large has no place to point at (PCRE2 names where it stopped compiling).
  std::string message =
      error == PCRE2_ERROR_PATTERN_TOO_LARGE
          ? fmt::format("regex parse error in '{}': {}", text, pcre2_error_text(error))
          : fmt::format("regex parse error in '{}' at offset {}: {}", text, offset,
                        pcre2_error_text(error));
  if (error == PCRE2_ERROR_PATTERN_TOO_LARGE) {
    message += fmt::format(
        " (PCRE2 compiles a regex into at most {}: simplify the pattern, e.g. "
        "fewer or smaller counted repetitions)",
        pcre2_size_limit());
  }
  return message;
}

// The error for byte-mode `regex` (byte_mode.hpp), the translation of `typed`, that PCRE2 refuses
// to compile with `flags`: its offsets would point into the translation, so none is named.
Error byte_mode_compile_error(std::string_view typed, const std::string& regex,
                              std::uint32_t flags) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  if (pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(regex.data()), regex.size(),
                                       flags, &error, &offset, nullptr)) {
    pcre2_code_free(code);  // not expected
  }
  std::string message = fmt::format(
      "regex parse error in '{}': {} (in its translation to a regex over bytes, which Unicode "
      "mode off needs)",
      typed, pcre2_error_text(error));
  if (error == PCRE2_ERROR_PATTERN_TOO_LARGE) {
    message += fmt::format(
        ": PCRE2 compiles a regex into at most {}, and Unicode classes (\\w, \\p{{..}}, `.`) "
        "become alternations of UTF-8 byte sequences there: repeat them less, or use ASCII "
        "classes",
        pcre2_size_limit());
  }
  return Error{ErrorCode::kInvalidArgument, std::move(message)};
}

// The error for `regex`, `typed` with counts above 65535 split into pieces (large_repeats.hpp),
// that PCRE2 refuses with `flags`: its offsets would point into the pieces, so none is named.
Error split_repeat_compile_error(std::string_view typed, const std::string& regex,
                                 std::uint32_t flags) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  if (pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(regex.data()), regex.size(),
                                       flags, &error, &offset, nullptr)) {
    pcre2_code_free(code);  // not expected
  }
  std::string message =
      fmt::format("regex parse error in '{}': {}", typed, pcre2_error_text(error));
  if (error == PCRE2_ERROR_PATTERN_TOO_LARGE) {
    message += fmt::format(
        " (PCRE2 counts repetitions up to 65535 and compiles a regex into at most {}: a larger "
        "count of a group needs its copies, which take more; repeat a single character or class, "
        "or the group fewer times)",
        pcre2_size_limit());
  }
  return Error{ErrorCode::kInvalidArgument, std::move(message)};
}

// `jit`: also JIT-compile (each JIT compile maps executable memory: skip it for a code that only
// validates a pattern or reports its properties).
// The end of the PCRE2 character class that opens at `at` (its `]`), or npos: escapes, POSIX
// classes ([:alpha:]) and a `]` first (after an optional `^`) are members.
std::size_t pcre2_class_end(std::string_view re, std::size_t at) {
  std::size_t i = at + 1;
  if (i < re.size() && re[i] == '^') ++i;
  if (i < re.size() && re[i] == ']') ++i;
  while (i < re.size()) {
    if (re[i] == '\\') {
      i += 2;
    } else if (re.substr(i, 2) == "[:") {
      const std::size_t close = re.find(":]", i + 2);
      i = close == std::string_view::npos ? i + 1 : close + 2;
    } else if (re[i] == ']') {
      return i;
    } else {
      ++i;
    }
  }
  return std::string_view::npos;
}

// `regex` (PCRE2 syntax) with each large character class that occurs more than once written
// once, as a group defined at the end and called where the class was: `(?&ctx_class_N)` and
// `(?(DEFINE)(?<ctx_class_N>[...]))`. The exact Unicode ranges of \p{L} are large enough that
// 14 of them overflowed PCRE2's 64 KiB. A call of a one-character group
// matches what the class matches (nothing to backtrack into). `shared` gets the number of groups
// added (the last capture groups). nullopt when no large class repeats, or when the regex sets
// options inline (a called group takes the options at its definition, not at the call), quotes
// with \Q or holds a comment.
std::optional<std::string> with_shared_classes(std::string_view regex, std::uint32_t& shared) {
  constexpr std::size_t kLargeClass = 256;  // bytes of class text
  if (regex.find("\\Q") != std::string_view::npos) return std::nullopt;
  struct Class {
    std::size_t start, end;  // [start, end]
  };
  std::vector<Class> classes;
  for (std::size_t i = 0; i < regex.size(); ++i) {
    if (regex[i] == '\\') {
      ++i;
    } else if (regex[i] == '(' && regex.substr(i + 1, 1) == "?" && i + 2 < regex.size() &&
               std::string_view("imnsxJU^-#").find(regex[i + 2]) != std::string_view::npos) {
      return std::nullopt;
    } else if (regex[i] == '[') {
      const std::size_t end = pcre2_class_end(regex, i);
      if (end == std::string_view::npos) return std::nullopt;
      if (end - i + 1 >= kLargeClass) classes.push_back({i, end});
      i = end;
    }
  }
  std::vector<std::string_view> texts;
  texts.reserve(classes.size());
  for (const Class& c : classes) texts.push_back(regex.substr(c.start, c.end - c.start + 1));
  std::vector<std::string_view> defined;  // the classes that repeat, in order of first use
  std::string out;
  std::size_t copied = 0;
  for (std::size_t k = 0; k < classes.size(); ++k) {
    if (std::count(texts.begin(), texts.end(), texts[k]) < 2) continue;
    auto it = std::find(defined.begin(), defined.end(), texts[k]);
    if (it == defined.end()) it = defined.insert(defined.end(), texts[k]);
    out.append(regex.substr(copied, classes[k].start - copied));
    out += fmt::format("(?&ctx_class_{})", it - defined.begin());
    copied = classes[k].end + 1;
  }
  if (defined.empty()) return std::nullopt;
  out.append(regex.substr(copied));
  out += "(?(DEFINE)";
  for (std::size_t k = 0; k < defined.size(); ++k) {
    out += fmt::format("(?<ctx_class_{}>{})", k, defined[k]);
  }
  out += ')';
  shared = static_cast<std::uint32_t>(defined.size());
  return out;
}

// pcre2_compile, and when `regex` is too large, again with its repeated classes shared
// (with_shared_classes); `error` and `offset` are the first compile's. `shared`: the capture
// groups that added (0 if none), the last ones of the code.
pcre2_code* compile_fitting(const std::string& regex, std::uint32_t flags, int& error,
                            PCRE2_SIZE& offset, std::uint32_t& shared) {
  shared = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(regex.data()), regex.size(), flags,
                                   &error, &offset, nullptr);
  if (code != nullptr || error != PCRE2_ERROR_PATTERN_TOO_LARGE) return code;
  std::uint32_t groups = 0;
  const std::optional<std::string> compact = with_shared_classes(regex, groups);
  if (!compact) return nullptr;
  int compact_error = 0;
  PCRE2_SIZE compact_offset = 0;
  code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(compact->data()), compact->size(), flags,
                       &compact_error, &compact_offset, nullptr);
  if (code != nullptr) shared = groups;
  return code;
}

Result<Pcre2Code> compile_pcre2(const std::string& regex, std::uint32_t flags,
                                std::string_view shown, bool jit = true) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  std::uint32_t shared = 0;
  pcre2_code* code = compile_fitting(regex, flags, error, offset, shared);
  if (code == nullptr) {
    return Error{ErrorCode::kInvalidArgument, compile_error_message(shown, offset, error)};
  }
  if (jit) pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // without JIT (unsupported CPU) it works
  return Pcre2Code(code, &pcre2_code_free);
}

// True when `re` may refer to a capture group by number or name (\1, \g{-1}, \k<x>, (?P=x),
// (?1), (?-1), (?R), (?&x), (?P>x)): in the combined regex of all patterns such a reference can
// reach another pattern's group. Errs on the side of "may".
bool refers_to_groups(std::string_view re) {
  auto digit = [&](std::size_t i) {
    return i < re.size() && std::isdigit(static_cast<unsigned char>(re[i])) != 0;
  };
  for (std::size_t i = 0; i + 1 < re.size(); ++i) {
    if (re[i] == '\\') {
      const char c = re[i + 1];
      if ((c >= '1' && c <= '9') || c == 'g' || c == 'k') return true;
      ++i;  // the escaped character
    } else if (re[i] == '(' && re[i + 1] == '?' && i + 2 < re.size()) {
      const char c = re[i + 2];
      if (digit(i + 2) || c == 'R' || c == '&' || ((c == '+' || c == '-') && digit(i + 3)) ||
          (c == 'P' && i + 3 < re.size() && (re[i + 3] == '=' || re[i + 3] == '>'))) {
        return true;
      }
    }
  }
  return false;
}

// All patterns as the alternatives of one PCRE2 regex, `(?:p0)|(?:p1)|...` inside the -w/-x
// wrappers, or, when that is too large for PCRE2 (pcre2_size_limit()), the same alternatives cut
// into chunks of consecutive patterns, each wrapped alike and compiled alone (with
// PCRE2_USE_OFFSET_LIMIT). A search takes the leftmost match over the chunks, the earliest chunk
// on a tie (search()): at the leftmost start the first alternative in pattern order wins, which
// is the combined regex's leftmost-first match. The combined regex's capture group N is group
// N - group_offset of the chunk that holds it.
struct Alternation {
  struct Chunk {
    Pcre2Code code{nullptr, &pcre2_code_free};
    std::uint32_t first = 0;         // the index of its first pattern
    std::uint32_t group_offset = 0;  // capture groups of the patterns before it
    std::uint32_t groups = 0;        // its own capture groups
  };
  std::vector<Chunk> chunks;  // empty: not compiled
  // Its codes may hold what PCRE2 10.42's JIT misreads in invalid UTF-8 (see run_pcre2).
  bool jit_misreads_invalid_utf = false;

  bool compiled() const { return !chunks.empty(); }
  bool chunked() const { return chunks.size() > 1; }
  // The chunk that holds pattern `pattern`.
  std::uint32_t chunk_of(std::size_t pattern) const {
    auto after = std::upper_bound(chunks.begin() + 1, chunks.end(), pattern,
                                  [](std::size_t p, const Chunk& c) { return p < c.first; });
    return static_cast<std::uint32_t>(after - chunks.begin() - 1);
  }
  std::uint32_t max_groups() const {
    std::uint32_t most = 0;
    for (const Chunk& c : chunks) most = std::max(most, c.groups);
    return most;
  }
};

// Compiles the alternation of `bodies` (one regex per pattern, in order) with `flags` into an
// Alternation; `wrap` makes the regex to compile from the alternation `(?:a)|(?:b)` of some of
// them. `typed`: the patterns as given, for messages. Errors: the combined regex's compile error
// (as compile_pcre2 words it), except that a regex too large for PCRE2 is cut into chunks, each
// as large as fits; then an error only when one pattern alone does not fit (naming it) or when
// some pattern refers to capture groups (refers_to_groups: it could mean another chunk's).
// Duplicate group names need no check here: PCRE2 reports them before it measures the size.
// `chunk_patterns` (0: none): chunks of at most this many patterns even where the whole fits,
// unless some pattern may refer to a capture group.
constexpr std::size_t kSpanChunkPatterns = 32;
Result<Alternation> compile_alternation(const std::vector<std::string>& bodies,
                                        const std::vector<std::string>& typed,
                                        const std::function<std::string(std::string)>& wrap,
                                        std::uint32_t flags, std::size_t chunk_patterns = 0) {
  auto alternatives = [&](std::size_t from, std::size_t to) {
    std::size_t size = 0;
    for (std::size_t i = from; i < to; ++i) size += bodies[i].size() + 5;
    std::string out;
    out.reserve(size);
    for (std::size_t i = from; i < to; ++i) {
      if (i > from) out += '|';
      out += "(?:";
      out += bodies[i];
      out += ')';
    }
    return out;
  };
  int error = 0;
  PCRE2_SIZE offset = 0;
  std::uint32_t shared = 0;  // of the last compile
  auto compile = [&](const std::string& regex, std::uint32_t f) {
    return compile_fitting(regex, f, error, offset, shared);
  };
  Alternation alt;
  alt.jit_misreads_invalid_utf =
      (flags & PCRE2_UTF) != 0 && std::any_of(bodies.begin(), bodies.end(), [&](const auto& b) {
        return ((flags & PCRE2_CASELESS) != 0 || b.find("(?") != std::string::npos) &&
               detail::may_negate_one_char(b);
      });
  auto add_chunk = [&alt, &shared](pcre2_code* code, std::size_t first) {
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // without JIT (unsupported CPU) it works
    Alternation::Chunk chunk;
    chunk.code.reset(code);
    chunk.first = static_cast<std::uint32_t>(first);
    if (!alt.chunks.empty()) {
      chunk.group_offset = alt.chunks.back().group_offset + alt.chunks.back().groups;
    }
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &chunk.groups);
    chunk.groups -= shared;  // the shared classes' groups are no pattern's
    alt.chunks.push_back(std::move(chunk));
  };
  const bool forced = chunk_patterns > 0 && bodies.size() > chunk_patterns &&
                      std::none_of(bodies.begin(), bodies.end(), refers_to_groups);
  if (!forced) {
    const std::string whole = wrap(alternatives(0, bodies.size()));
    if (pcre2_code* code = compile(whole, flags)) {
      add_chunk(code, 0);
      return alt;
    }
    if (error != PCRE2_ERROR_PATTERN_TOO_LARGE) {
      return Error{ErrorCode::kInvalidArgument, compile_error_message(whole, offset, error)};
    }
  }
  auto shown = [&](std::size_t i) -> std::string_view {
    constexpr std::size_t kShownMax = 200;
    std::string_view p = i < typed.size() ? typed[i] : bodies[i];
    return p.substr(0, kShownMax);
  };
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    if (refers_to_groups(bodies[i])) {
      return Error{ErrorCode::kInvalidArgument,
                   fmt::format("regex parse error in '{}': the {} patterns together are too large "
                               "for one PCRE2 regex (at most {} compiled), so they are searched in "
                               "groups, but this one may refer to a capture group by number or "
                               "name, which could be another pattern's: search with fewer "
                               "patterns at a time",
                               shown(i), bodies.size(), pcre2_size_limit())};
    }
  }
  // The regex text of the first chunk aims at kFirstBytes; each next one at what the compiled
  // size per regex byte so far says fills kTargetSize (under the 64 KiB that LINK_SIZE 2 allows;
  // with a larger link size the whole alternation compiles unless it is huge).
  constexpr std::size_t kFirstBytes = std::size_t{24} << 10;
  constexpr std::size_t kTargetSize = std::size_t{56} << 10;
  std::size_t budget = kFirstBytes;
  for (std::size_t i = 0; i < bodies.size();) {
    std::size_t j = i + 1;
    std::size_t bytes = bodies[i].size() + 5;
    while (j < bodies.size() && bytes + bodies[j].size() + 5 <= budget &&
           (!forced || j - i < chunk_patterns)) {
      bytes += bodies[j++].size() + 5;
    }
    while (true) {
      const std::string regex = wrap(alternatives(i, j));
      if (pcre2_code* code = compile(regex, flags | PCRE2_USE_OFFSET_LIMIT)) {
        std::size_t size = 0;
        pcre2_pattern_info(code, PCRE2_INFO_SIZE, &size);
        budget = std::clamp(regex.size() * kTargetSize / std::max<std::size_t>(size, 1),
                            std::size_t{1} << 10, std::size_t{1} << 20);
        add_chunk(code, i);
        break;
      }
      if (error != PCRE2_ERROR_PATTERN_TOO_LARGE) {
        return Error{ErrorCode::kInvalidArgument, compile_error_message(regex, offset, error)};
      }
      if (j == i + 1) {
        return Error{ErrorCode::kInvalidArgument,
                     fmt::format("regex parse error in '{}': {} (PCRE2 compiles a regex into at "
                                 "most {}, and this pattern alone, with what -w or -x add, takes "
                                 "more: simplify it, e.g. fewer or smaller counted repetitions)",
                                 shown(i), pcre2_error_text(error), pcre2_size_limit())};
      }
      j = i + (j - i) / 2;
    }
    i = j;
  }
  return alt;
}

// True when PCRE2 knows `name` as a script (so `\p{sc:name}` compiles).
bool is_script_name(std::string_view name) {
  if (name.empty() || name.find_first_of(":=}") != std::string_view::npos) return false;
  const std::string probe = "\\p{sc:" + std::string(name) + "}";
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(probe.data()), probe.size(),
                                   PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (code == nullptr) return false;
  pcre2_code_free(code);
  return true;
}

// Rust's (ripgrep's) `\p{Greek}` is the Script property, but PCRE2 10.40+ reads a bare script
// name as Script_Extensions, which also holds shared characters (U+0342, a combining mark of script
// Inherited, counts as Greek there). Every `\p{Name}`/`\P{Name}` whose Name is a script becomes
// PCRE2's Script-only `\p{sc:Name}`; categories and binary properties stay as written.
std::string scripts_as_in_rust(std::string_view re) {
  if (re.find("p{") == std::string_view::npos && re.find("P{") == std::string_view::npos) {
    return std::string(re);
  }
  std::string out;
  out.reserve(re.size() + 8);
  for (std::size_t i = 0; i < re.size(); ++i) {
    if (re[i] != '\\' || i + 1 >= re.size()) {
      out.push_back(re[i]);
      continue;
    }
    const char kind = re[i + 1];
    if ((kind == 'p' || kind == 'P') && i + 2 < re.size() && re[i + 2] == '{') {
      const std::size_t close = re.find('}', i + 3);
      if (close != std::string_view::npos) {
        const std::string_view name = re.substr(i + 3, close - (i + 3));
        if (is_script_name(name)) {
          out += '\\';
          out += kind;
          out += "{sc:";
          out.append(name);
          out += '}';
          i = close;
          continue;
        }
      }
    }
    out.push_back(re[i]);  // any other escape: both characters, so `\\p{..}` stays literal
    out.push_back(kind);
    ++i;
  }
  return out;
}

// A literal under -i as a Hyperscan expression over bytes that matches exactly what Rust's
// simple case folding matches: each character as the alternation of the UTF-8 bytes of its fold
// closure (`(?:\xD0\xB7|\xD0\x97)` for з; k and s with U+212A and U+017F). No UTF-8 mode, so it
// scans invalid UTF-8 too. nullopt when `literal` is not valid UTF-8.
std::optional<std::string> caseless_literal_bytes(std::string_view literal) {
  if (!ctx::is_valid_utf8(literal)) return std::nullopt;
  std::string out;
  auto bytes_of = [&](std::uint32_t cp) {
    std::string utf8;
    ctx::append_utf8(utf8, cp);
    for (char b : utf8) out += fmt::format("\\x{:02X}", static_cast<unsigned char>(b));
  };
  for (std::size_t at = 0; at < literal.size();) {
    const auto lead = static_cast<unsigned char>(literal[at]);
    const std::size_t len = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    std::uint32_t cp = len == 1 ? lead : lead & (0xFFU >> (len + 1));
    for (std::size_t k = 1; k < len; ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(literal[at + k]) & 0x3FU);
    }
    at += len;
    const detail::CodepointRanges folds = detail::case_fold_closure({{cp, cp}});
    std::vector<std::uint32_t> members;
    for (const auto& [lo, hi] : folds) {
      for (std::uint32_t c = lo; c <= hi; ++c) members.push_back(c);
    }
    if (members.size() <= 1) {
      bytes_of(cp);
      continue;
    }
    out += "(?:";
    for (std::size_t m = 0; m < members.size(); ++m) {
      if (m > 0) out += '|';
      bytes_of(members[m]);
    }
    out += ')';
  }
  return out;
}

// `regex` (as typed; `line`: -x) as a superset for Hyperscan's UTF-8 mode (rust_syntax.hpp).
std::string superset_for_hyperscan(const std::string& regex, bool caseless, bool line) {
  const std::string re = line ? "^(?:" + regex + ")$" : regex;
  auto rewritten = detail::rust_to_pcre2(re, caseless, true, detail::WordMode::kSuperset);
  // Not expected: the same regex passed the kRust rewrite. Hyperscan then refuses or reads it.
  return rewritten.ok() ? std::move(rewritten).value() : re;
}

// Hyperscan folds case in ASCII only, but Unicode simple case folding (PCRE2 with UCP, ripgrep)
// also maps k to U+212A KELVIN SIGN and s to U+017F LATIN SMALL LETTER LONG S. This adds those
// to every k/K/s/S literal of a Hyperscan expression (outside escapes and group syntax), making a
// superset that PCRE2 then confirms. `utf8`: the expression is compiled with HS_FLAG_UTF8 (code
// points) rather than as bytes. `changed` tells whether anything was added.
std::string add_unicode_case_folds(std::string_view re, bool utf8, bool& changed) {
  auto extra = [utf8](char c) -> std::string_view {
    bool k = c == 'k' || c == 'K';
    if (utf8) return k ? "\\x{212A}" : "\\x{17F}";
    return k ? "\\xE2\\x84\\xAA" : "\\xC5\\xBF";
  };
  auto is_ks = [](char c) { return c == 'k' || c == 'K' || c == 's' || c == 'S'; };
  // And the other way (UTF-8 expressions): U+017F and U+212A, as UTF-8 or as \x{..}, gain the
  // ASCII letters they fold to; so does a class with anything non-ASCII in it (a superset).
  auto folds_to_ascii = [](std::string_view piece) -> std::string_view {
    if (piece == kLongS) return "s";
    if (piece == kKelvinSign) return "k";
    if (!piece.starts_with("\\x{") || !piece.ends_with('}')) return "";
    unsigned long cp = 0;
    for (char h : piece.substr(3, piece.size() - 4)) {
      const int v = std::isxdigit(static_cast<unsigned char>(h)) == 0 ? -1
                    : h <= '9'                                        ? h - '0'
                                                                      : (h | 0x20) - 'a' + 10;
      if (v < 0 || cp > 0x10FFFF) return "";
      cp = cp * 16 + static_cast<unsigned long>(v);
    }
    return cp == 0x17F ? "s" : cp == 0x212A ? "k" : "";
  };
  std::string out;
  out.reserve(re.size() + 16);
  for (std::size_t i = 0; i < re.size(); ++i) {
    char c = re[i];
    const std::string_view two = re.substr(i, 2), three = re.substr(i, 3);
    if (utf8 && (two == kLongS || three == kKelvinSign)) {
      const std::string_view ch = two == kLongS ? two : three;
      changed = true;
      out += fmt::format("(?:{}|{})", ch, folds_to_ascii(ch));
      i += ch.size() - 1;
    } else if (c == '\\') {  // an escape, with its {...} argument if any (\x{..}, \p{..})
      std::size_t end = std::min(i + 2, re.size());
      if (end < re.size() && re[end] == '{') {
        std::size_t close = re.find('}', end);
        end = close == std::string_view::npos ? re.size() : close + 1;
      }
      const std::string_view escape = re.substr(i, end - i);
      if (std::string_view fold = utf8 ? folds_to_ascii(escape) : ""; !fold.empty()) {
        changed = true;
        out += fmt::format("(?:{}|{})", escape, fold);
      } else {
        out.append(escape);
      }
      i = end - 1;
    } else if (c == '(' && i + 1 < re.size() && re[i + 1] == '?') {  // (?i) (?P<name> (?:
      std::size_t end = re.find_first_of(":)>", i + 2);
      end = end == std::string_view::npos ? re.size() : end + 1;
      out.append(re.substr(i, end - i));
      i = end - 1;
    } else if (c == '[') {  // a class: positive ones gain the extra letters as alternatives
      std::size_t j = i + 1;
      bool negated = j < re.size() && re[j] == '^';
      if (negated) ++j;
      if (j < re.size() && re[j] == ']') ++j;
      std::string extras;
      for (; j < re.size() && re[j] != ']'; ++j) {
        const bool high = static_cast<unsigned char>(re[j]) >= 0x80 || re.substr(j, 3) == "\\x{";
        if (utf8 && !negated && high && extras.find("|[KSks]") == std::string::npos) {
          extras += "|[KSks]";
        }
        if (re[j] == '\\') {
          ++j;
          continue;
        }
        if (re[j] == '[' && j + 1 < re.size() && re[j + 1] == ':') {
          std::size_t close = re.find(":]", j + 2);
          if (close != std::string_view::npos) j = close + 1;
          continue;
        }
        // A range of plain characters (a-z) adds the extras of the k/s it covers.
        const bool range = j + 2 < re.size() && re[j + 1] == '-' && re[j + 2] != ']' &&
                           re[j + 2] != '\\' && re[j + 2] != '[';
        for (char ks : {'k', 'K', 's', 'S'}) {
          const bool covered = range ? re[j] <= ks && ks <= re[j + 2] : re[j] == ks;
          if (covered && !negated && extras.find(extra(ks)) == std::string::npos) {
            extras += "|";
            extras += extra(ks);
          }
        }
        if (range) j += 2;
      }
      std::string_view klass = re.substr(i, std::min(j + 1, re.size()) - i);
      if (extras.empty()) {
        out.append(klass);
      } else {
        changed = true;
        out += "(?:";
        out.append(klass);
        out += extras;
        out += ")";
      }
      i = std::min(j, re.size() - 1);
    } else if (is_ks(c)) {
      changed = true;
      out += "(?:";
      out.push_back(c);
      out += "|";
      out += extra(c);
      out += ")";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// ripgrep's NUL ban (PatternOptions::ban_nul): whether `patterns` are to be refused for a NUL that
// their HIRs (`hirs`, rust_hir.hpp) hold as ripgrep's ban::check finds it (a literal holding it,
// or a class of it alone). rg builds patterns it reads as plain literals (its is_fixed_strings)
// without the check.
bool nul_banned(const std::vector<std::string>& patterns,
                const std::vector<detail::HirSummary>& hirs, const PatternOptions& options) {
  if (!options.ban_nul || options.pcre2 || options.line_terminator != '\n') return false;
  const auto is_meta = [](char c) {
    return std::string_view("\\.+*?()|[]{}^$#&-~").find(c) != std::string_view::npos;
  };
  const auto has_terminator = [&](std::string_view p) {
    if (options.multiline) return false;
    return p.find('\n') != std::string_view::npos ||
           (options.crlf && p.find('\r') != std::string_view::npos);
  };
  bool plain = !options.case_insensitive && !options.smart_case;
  for (const std::string& p : patterns) {
    if (!plain) break;
    plain = !has_terminator(p) && (options.fixed_strings || std::ranges::none_of(p, is_meta));
  }
  if (plain) return false;
  return detail::holds_literal_byte(hirs, '\0');
}

// What Rust's LookMatcher sees on one side of a position: no character (the haystack's edge), an
// invalid one, a word character or another character.
enum class Side { kNone, kInvalid, kWord, kNonWord };

Side side_of(std::string_view ch) { return is_rust_word_char(ch) ? Side::kWord : Side::kNonWord; }

// regex-automata's utf8::decode_last of the subject before `at` (a line terminator precedes the
// subject when `after_line_break`, within the 4 bytes Rust looks back).
Side rust_side_before(std::string_view subject, std::size_t at, bool after_line_break) {
  if (at == 0) return after_line_break ? Side::kNonWord : Side::kNone;
  std::size_t start = at - 1;
  const std::size_t limit = at >= 4 ? at - 4 : 0;
  while (start > limit && is_continuation_byte(static_cast<unsigned char>(subject[start]))) --start;
  if (is_continuation_byte(static_cast<unsigned char>(subject[start]))) {
    return start == 0 && at <= 3 && after_line_break ? Side::kNonWord : Side::kInvalid;
  }
  const std::string_view head = subject.substr(0, at);
  const std::size_t len = rust_decode_length(head, start);
  return len == 0 ? Side::kInvalid : side_of(head.substr(start, len));
}

// regex-automata's utf8::decode of the subject from `at`.
Side rust_side_after(std::string_view subject, std::size_t at) {
  if (at >= subject.size()) return Side::kNone;
  const std::size_t len = rust_decode_length(subject, at);
  return len == 0 ? Side::kInvalid : side_of(subject.substr(at, len));
}

// The byte-mode callouts (byte_mode.hpp): regex-automata 0.4's Unicode word look-arounds at the
// current position, 0 when it holds, 1 when not.
int rust_look_callout(std::uint32_t number, std::string_view subject, std::size_t at,
                      bool after_line_break) {
  const Side before = rust_side_before(subject, at, after_line_break);
  const Side after = rust_side_after(subject, at);
  const bool word_before = before == Side::kWord, word_after = after == Side::kWord;
  bool holds = false;
  switch (number) {
    case detail::kCalloutWordBoundary:
      holds = word_before != word_after;
      break;
    case detail::kCalloutNotWordBoundary:  // neither side may be invalid UTF-8
      holds = before != Side::kInvalid && after != Side::kInvalid && word_before == word_after;
      break;
    case detail::kCalloutWordStart:
      holds = !word_before && word_after;
      break;
    case detail::kCalloutWordEnd:
      holds = word_before && !word_after;
      break;
    case detail::kCalloutWordStartHalf:
      holds = before != Side::kInvalid && !word_before;
      break;
    default:  // kCalloutWordEndHalf
      holds = after != Side::kInvalid && !word_after;
      break;
  }
  return holds ? 0 : 1;
}

// The PCRE2 callout of rust_syntax.hpp's kCalloutWordBefore / kCalloutNonWordBefore: 0 (go on)
// when the bytes before the current position end in stray continuation bytes after a valid
// character that Rust's decode_last reads as the character before, and that character is (is
// not) a word character; 1 (fail here) otherwise. The byte-mode callouts (byte_mode.hpp) go to
// rust_look_callout; other callout numbers (none are generated) pass.
int rust_word_callout(pcre2_callout_block* block, void* after_line_break) {
  const std::uint32_t number = block->callout_number;
  if (number >= detail::kCalloutWordBoundary && number <= detail::kCalloutWordEndHalf) {
    const std::string_view subject(reinterpret_cast<const char*>(block->subject),
                                   block->subject_length);
    return rust_look_callout(number, subject, block->current_position,
                             *static_cast<const bool*>(after_line_break));
  }
  if (number != detail::kCalloutWordBefore && number != detail::kCalloutNonWordBefore) return 0;
  const auto* bytes = reinterpret_cast<const unsigned char*>(block->subject);
  const std::size_t at = block->current_position;
  auto continuation = [](unsigned char b) { return (b & 0xC0) == 0x80; };
  if (at == 0 || !continuation(bytes[at - 1])) return 1;  // no stray byte: the look-behinds decide
  std::size_t start = at - 1;
  const std::size_t limit = at >= 4 ? at - 4 : 0;
  while (start > limit && continuation(bytes[start])) --start;
  std::string_view ch;
  if (continuation(bytes[start])) {
    // Only continuation bytes back to the subject's start: a line terminator before it (within
    // Rust's 4-byte look-back) is the character before.
    if (start != 0 || at > 3 || !*static_cast<const bool*>(after_line_break)) return 1;
    ch = "\n";
  } else {
    const std::size_t len = utf8_length(bytes[start]);
    if (start + len >= at) return 1;  // ends at `at` (the look-behinds decided) or past it
    ch = std::string_view(reinterpret_cast<const char*>(bytes) + start, len);
    if (!ctx::is_valid_utf8(ch)) return 1;
  }
  return is_rust_word_char(ch) == (number == detail::kCalloutWordBefore) ? 0 : 1;
}

// How a line is matched under --crlf (line mode; -U searches the buffer as it is).
enum class CrlfLines : std::uint8_t {
  kOff,     // no --crlf: the line as it is
  kPieces,  // rg's dialect (and -F): each CR-free piece of it without its CRLF's CR: a CR is never
            // matched, `^` and `$` match at it (for_each_piece)
  kPcre2,   // -P, as rg's PCRE2 searcher: without its CRLF, or with its LF when it ends in LF alone
  // kPieces where some pattern has ^ or $ in a scope without `m`: those are the line's ends
  // (ripgrep's haystack is the line without its CRLF), so a piece after the line's first is
  // searched with PCRE2_NOTBOL and one before its last with PCRE2_NOTEOL (multi_line_anchors'
  // crlf_pieces: the multi-line anchors are \A and \z then).
  kPiecesUnmultiline,
};

// The PCRE2 options for the piece [offset, offset + size) of a line of `line_size` bytes.
std::uint32_t piece_options(CrlfLines crlf, std::size_t offset, std::size_t size,
                            std::size_t line_size) {
  if (crlf != CrlfLines::kPiecesUnmultiline) return 0;
  return (offset > 0 ? PCRE2_NOTBOL : 0U) | (offset + size < line_size ? PCRE2_NOTEOL : 0U);
}

// Whether the alternation of `bodies` (wrapped by `wrap`, compiled with `flags`, as line_re is)
// matches the empty string where ripgrep's --crlf regex over a buffer meets the position between
// a CRLF's CR and LF: two non-word characters around it, neither a line start nor a line end for
// Rust's CRLF-aware anchors, not the haystack's start or end. The stand-in for it is offset 1 of
// "\x01\x01" (no newline for PCRE2 either), the match anchored there and kept empty by a
// look-ahead. No match where the probe does not compile (then nothing changes).
bool matches_empty_in_crlf_gap(const std::vector<std::string>& bodies,
                               const std::vector<std::string>& typed,
                               const std::function<std::string(std::string)>& wrap,
                               std::uint32_t flags) {
  auto probe_wrap = [&wrap](std::string alternation) {
    return wrap(std::move(alternation)) + "(?=\\x01\\z)";
  };
  auto probe = compile_alternation(bodies, typed, probe_wrap, flags);
  if (!probe.ok()) return false;
  std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)> mctx(
      pcre2_match_context_create(nullptr), &pcre2_match_context_free);
  bool after_line_break = false;
  pcre2_set_callout(mctx.get(), rust_word_callout, &after_line_break);
  constexpr std::string_view kSubject = "\x01\x01";
  for (const Alternation::Chunk& chunk : probe->chunks) {
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> md(
        pcre2_match_data_create_from_pattern(chunk.code.get(), nullptr), &pcre2_match_data_free);
    const int rc = pcre2_match(chunk.code.get(), reinterpret_cast<PCRE2_SPTR>(kSubject.data()),
                               kSubject.size(), 1, PCRE2_ANCHORED, md.get(), mctx.get());
    if (rc >= 0) return true;
  }
  return false;
}

// The required-literal prefilter's database (PatternSet::Impl::required_hs) for `set`; null
// when Hyperscan does not compile it.
HsDatabase required_literals_database(const detail::RequiredSet& set) {
  HsDatabase none{nullptr, &hs_free_database};
  std::vector<const char*> texts;
  std::vector<std::size_t> lengths;
  std::vector<unsigned> flags, ids;
  for (const detail::RequiredLiteral& literal : set) {
    texts.push_back(literal.bytes.data());
    lengths.push_back(literal.bytes.size());
    flags.push_back(literal.caseless ? HS_FLAG_CASELESS : 0U);
    ids.push_back(static_cast<unsigned>(ids.size()));
  }
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  if (hs_compile_lit_multi(texts.data(), flags.data(), ids.data(), lengths.data(),
                           static_cast<unsigned>(texts.size()), HS_MODE_BLOCK, nullptr, &db,
                           &err) != HS_SUCCESS) {
    hs_free_compile_error(err);
    return none;  // not expected; Hyperscan alone then
  }
  return HsDatabase{db, &hs_free_database};
}

// The search for the literals of `set`: PairLiteral for one (into `pair`), else Hyperscan's
// literal database (into `hs`; none if Hyperscan does not compile it), its scratch space added to
// `proto`.
Status literal_search(const detail::RequiredSet& set, std::optional<detail::PairLiteral>& pair,
                      HsDatabase& hs, HsScratchPtr& proto) {
  if (set.size() == 1) {
    pair.emplace(set.front().bytes, set.front().caseless);
    return {};
  }
  hs = required_literals_database(set);
  if (hs == nullptr) return {};
  hs_scratch_t* scratch = proto.release();
  const bool allocated = hs_alloc_scratch(hs.get(), &scratch) == HS_SUCCESS;
  proto.reset(scratch);
  if (!allocated) return Error{ErrorCode::kIo, "could not allocate Hyperscan scratch space"};
  return {};
}

// Scans `hay` for candidates with the matcher that stands in for a Hyperscan database (`hashed`
// or `pair`, when given) or with the database `hs` (scratch `scratch`): HS_SUCCESS when the scan
// ran to the end, HS_SCAN_TERMINATED when on_match stopped it, else Hyperscan's error.
// `useless_below`: see PairLiteral::scan (Hyperscan reports every candidate).
hs_error_t scan_candidates(const hs_database_t* hs, const detail::HashedLiterals* hashed,
                           const detail::PairLiteral* pair, std::string_view hay,
                           match_event_handler on_match, void* context, hs_scratch_t* scratch,
                           const std::size_t* useless_below = nullptr) {
  if (hashed != nullptr || pair != nullptr) {
    const bool stopped = hashed != nullptr ? hashed->scan(hay, on_match, context)
                                           : pair->scan(hay, on_match, context, useless_below);
    return stopped ? HS_SCAN_TERMINATED : HS_SUCCESS;
  }
  return hs_scan(hs, hay.data(), static_cast<unsigned>(hay.size()), 0, scratch, on_match, context);
}

}  // namespace

struct PatternSet::Impl {
  PatternOptions options;
  bool caseless = false;
  bool exact = false;  // Hyperscan's verdict is final for a line
  HsDatabase hs{nullptr, &hs_free_database};
  HsScratchPtr hs_proto{nullptr, &hs_free_scratch};
  Alternation line_re;  // all patterns, for one line at a time
  // line_re for pure-ASCII lines (not -P, not -F): PCRE2's own \w \b without UCP, which agree
  // with Rust's on ASCII and cost less than rust_syntax.hpp's classes and look-arounds.
  Alternation ascii_re;
  Alternation scan_re;  // multiline, for whole buffers without Hyperscan
  // Some pattern can match empty (not -P): look for empty matches where PCRE2 skips invalid UTF-8
  // (empty_match_in_invalid_utf8).
  bool empty_in_invalid_utf8 = false;
  bool hs_utf8 = false;    // some Hyperscan expression is UTF-8: invalid UTF-8 input must avoid it
  bool byte_mode = false;  // the regexes are over bytes (byte_mode.hpp), PCRE2 without UTF
  bool multiline = false;  // -U and some pattern can match a line feed
  bool buffer_search = false;  // see PatternSet::searches_buffer; scan_re is its regex
  // --null-data without anchors (^ $ \A \z, -x) or -P: scan_re over the buffer finds every line
  // that matches alone (a NUL is no word character, as a line's ends are not), so it serves as
  // a prefilter; PCRE2 confirms each candidate line alone.
  bool nul_scan = false;
  CrlfLines crlf_lines = CrlfLines::kOff;  // what confirm_line and each_match run line_re on
  // --crlf line by line (kPieces, kPiecesUnmultiline): some pattern matches the empty string
  // between the CR and LF of a CRLF (matches_empty_in_crlf_gap). ripgrep's fast line search runs
  // its regex over the buffer (no inner literals can be had from such a set), so it reports every
  // line that ends in a CRLF, with no match in it (its printer searches the line without it).
  bool crlf_gap = false;
  // Line mode, and some pattern may hold \A or \z (a line's ends, as ripgrep searches lines):
  // lines are confirmed one by one, since scan_re over the buffer reads them as its ends.
  bool line_by_line = false;
  // Line mode, and some pattern matches in every line (see matches_every_line): find_line
  // reports the line at `from` without a search (`rg -c ''` counts lines).
  bool every_line = false;
  Alternation ml_re;                             // multiline mode: the whole-buffer regex
  HsDatabase ml_hs{nullptr, &hs_free_database};  // multiline mode: a prefilter (superset)
  bool ml_hs_utf8 = false;  // ml_hs has a UTF-8 expression: invalid UTF-8 input must avoid it
  // Line mode: the required-literal prefilter (required_literals.hpp), Hyperscan's literal search
  // for a set of literals that every match holds, much rarer than what the regex starts with.
  HsDatabase required_hs{nullptr, &hs_free_database};
  // ... or, for a set of one literal, the matcher keyed on its rarest bytes (pair_literal.hpp;
  // Hyperscan's `_SUSPEND` took 36% of `-c '[A-Z]+_SUSPEND'` over 100 MB of C).
  std::optional<detail::PairLiteral> required_pair;
  // The prefilter is dropped for the rest of a haystack where its candidate lines come closer
  // than this on average (see kRequiredLinesTried).
  std::size_t required_spacing = 0;
  // Line mode: decides lines of pure-ASCII haystacks alone, ahead of Hyperscan (bit_matcher.hpp).
  std::optional<detail::BitMatcher> bits;
  // Multiline mode: where matches may start, so that PCRE2 tries only there (ml_re is compiled
  // with PCRE2_USE_OFFSET_LIMIT then).
  std::optional<detail::BitMatcher> ml_bits;
  // ... or, where every match starts with one of a few literals (leading_prefilter), Hyperscan's
  // search for them (PairLiteral for one): PCRE2 tries a match at each occurrence only. (The
  // BitMatcher runs over every byte of a reversed copy of the buffer: -U 'struct\s+\w+\s*\{\n'
  // on 100 MB of C took 0.17 s and 214 MB, rg 0.02 s and 104 MB.)
  HsDatabase ml_leading_hs{nullptr, &hs_free_database};
  std::optional<detail::PairLiteral> ml_leading_pair;
  std::vector<std::uint32_t> ml_leading_lengths;  // by id: each literal's length
  bool ml_leading() const { return ml_leading_hs != nullptr || ml_leading_pair; }
  // Literals Hyperscan decides alone (then no Alternation is compiled).
  LiteralTable literals;
  // Literal sets for which detail::prefer_hashed_literals holds: the matcher that stands in for
  // Hyperscan's database `hs` (then null), reporting the same pieces by the same ids.
  std::optional<detail::HashedLiterals> hashed;
  // A set of one literal (one piece, PairLiteral::suits): the matcher that stands in for `hs`
  // (then null), keyed on the literal's rarest bytes where Hyperscan's is not.
  std::optional<detail::PairLiteral> pair;
  // When Hyperscan's ids are pieces of literals (LiteralTable), the pattern of each; else empty
  // (ids are pattern indices).
  std::vector<std::uint32_t> hs_pattern_of;
  // Regex route (ids are pattern indices), set not `exact`: per pattern, whether Hyperscan's
  // expression is the pattern itself (an ASCII literal, its case folded by Hyperscan alone), so
  // that its match decides the line without PCRE2 (empty: none is). A set of 1,000 -i
  // identifiers and one Cyrillic word confirmed every candidate line with the whole alternation.
  std::vector<char> hs_exact_ids;
  // The most capture groups of a chunk of any Alternation above (match data hold them all) and the
  // most chunks.
  std::uint32_t max_groups = 0;
  std::size_t max_chunks = 1;

  // Whether Hyperscan or a literal matcher standing in for it finds candidates.
  bool scans() const { return hs != nullptr || hashed || pair; }
  // scan_candidates with that matcher.
  hs_error_t scan(std::string_view hay, match_event_handler on_match, void* context,
                  hs_scratch_t* scratch, const std::size_t* useless_below = nullptr) const {
    return scan_candidates(hs.get(), hashed ? &*hashed : nullptr, pair ? &*pair : nullptr, hay,
                           on_match, context, scratch, useless_below);
  }
  // Whether the required-literal prefilter is on, and scan_candidates with its matcher.
  bool requires_literals() const { return required_hs != nullptr || required_pair; }
  hs_error_t scan_required(std::string_view hay, match_event_handler on_match, void* context,
                           hs_scratch_t* scratch) const {
    return scan_candidates(required_hs.get(), nullptr, required_pair ? &*required_pair : nullptr,
                           hay, on_match, context, scratch);
  }
};

struct PatternSet::Scratch::Impl {
  // The haystack last seen by find_line and whether Hyperscan may scan it (valid UTF-8, or no
  // UTF-8 expression). A new haystack at the same address must be announced: see find_line.
  const char* hay_data = nullptr;
  std::size_t hay_size = 0;
  bool hs_ok = true;
  bool utf8_checked = false;  // hs_ok is known
  bool bits_ok = false;       // the BitMatcher may take the haystack from where it was left
  // Hyperscan scans (find_line) look ahead: the matching lines of the haystack from
  // `ahead_from` on, in order. No line from ahead_from up to the last one queued holds a match
  // that is not queued, nor one past it when `ahead_to_end`. Each scan of a haystack queues up
  // to twice as many lines as the one before (1 at first, so -q, -l and -m 1 scan no further):
  // a line-by-line search of many matching lines pays one scan per `ahead_want` lines, not one
  // per line.
  std::vector<LineSpan> ahead;
  std::size_t ahead_from = 0;
  std::size_t ahead_next = 0;  // the queued line after the last one given (a hint)
  bool ahead_valid = false;
  bool ahead_to_end = false;
  std::uint32_t ahead_want = 1;

  enum class Queued : std::uint8_t { kLine, kNone, kScan };
  // The queue's answer for the line at or after `from` (a line start) of the haystack it was
  // filled for: kLine (in `line`), kNone (no match there), or kScan (the queue does not know).
  Queued queued_line(std::size_t from, LineSpan& line) {
    if (!ahead_valid || from < ahead_from) return Queued::kScan;
    // Mostly the line after the last one given; callers may step back (after-context lines are
    // looked up one by one).
    std::size_t next = ahead_next;
    if (next >= ahead.size() || ahead[next].start < from ||
        (next > 0 && ahead[next - 1].start >= from)) {
      next = static_cast<std::size_t>(
          std::lower_bound(ahead.begin(), ahead.end(), from,
                           [](const LineSpan& l, std::size_t at) { return l.start < at; }) -
          ahead.begin());
    }
    if (next < ahead.size()) {
      ahead_next = next + 1;
      line = ahead[next];
      return Queued::kLine;
    }
    return ahead_to_end ? Queued::kNone : Queued::kScan;
  }
  // The required-literal prefilter on this haystack: where it started, the candidate lines it
  // gave, and whether it is off (they came too densely: Hyperscan over the rest costs less).
  std::size_t required_start = 0;
  std::size_t required_lines = 0;
  bool required_off = false;
  // Multiline mode: the haystack whose match starts (BitMatcher::match_starts) are in ml_starts,
  // or whose leading literals' starts in [ml_window_from, ml_window_to) are in ml_leading_starts
  // (ascending, each once).
  const char* ml_data = nullptr;
  std::size_t ml_size = 0;
  std::vector<std::uint64_t> ml_starts;
  std::vector<char> reversed;
  std::size_t ml_window_from = 0, ml_window_to = 0;
  std::vector<std::size_t> ml_leading_starts;
  hs_scratch_t* hs = nullptr;
  MatchState m;
  pcre2_jit_stack* jit_stack = nullptr;
  // Chunked alternations: chunk c is marked when marks[c] == mark (find_line: tried on the
  // candidate line; each_match: may match in the line), and the marked chunks, ascending.
  std::vector<std::uint32_t> marks;
  std::uint32_t mark = 0;
  std::vector<std::uint32_t> chunks;
  bool restrict_chunks = false;  // each_match_in searches only `chunks`
  // LiteralMode: the literals Hyperscan reports in a line, as (start, pattern id).
  std::vector<std::pair<std::size_t, std::uint32_t>> literal_hits;
  // Unmarks every chunk.
  void clear_marks() {
    if (++mark == 0) {
      std::fill(marks.begin(), marks.end(), 0);
      mark = 1;
    }
  }
  InterruptState interrupt;  // see set_interrupt
  // The subject of the current search follows a line terminator (find_spans' after_line_break):
  // rust_word_callout reads it.
  bool after_line_break = false;
  ~Impl() {
    if (hs != nullptr) hs_free_scratch(hs);
    if (m.md != nullptr) pcre2_match_data_free(m.md);
    if (m.spare != nullptr) pcre2_match_data_free(m.spare);
    if (m.mctx != nullptr) pcre2_match_context_free(m.mctx);
    if (jit_stack != nullptr) pcre2_jit_stack_free(jit_stack);
  }
};

namespace {

// Whether the PCRE2 pattern `p` may decide a match by what lies past the line's ends, as a scan
// of the whole buffer shows them but ripgrep's line-by-line search of -P (each line alone, its
// terminator cut) does not: lookaround, \A \z \Z \G, backtracking verbs and alpha assertions
// ("(*"), and an inline flag group that turns multi-line mode off; also \R and \X, which take a
// CRLF as one unit that cannot be given back (over the buffer, `\R` or `\X$` at a CRLF takes its
// LF too and then fails where the line's CR alone matches). (A textual look: a false "true" only
// costs the scan.)
bool pcre2_may_look_past_line(std::string_view p) {
  for (const std::string_view token :
       {"(?=", "(?!", "(?<=", "(?<!", "(*", "\\A", "\\z", "\\Z", "\\G", "(?^", "\\R", "\\X"}) {
    if (p.find(token) != std::string_view::npos) return true;
  }
  for (std::size_t at = p.find("(?"); at != std::string_view::npos; at = p.find("(?", at + 2)) {
    const std::size_t flags_end = p.find_first_not_of("imnsxJU-", at + 2);
    const std::string_view flags = p.substr(at + 2, flags_end - (at + 2));
    const std::size_t minus = flags.find('-');
    if (minus != std::string_view::npos && flags.find('m', minus) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

// Whether some pattern of a Rust-syntax set (without -w, -x, -P; -F: a literal) matches in every
// line, whatever it holds: one that may match the empty string and has no assertion (``, `a*`,
// `.*`), or a lone line anchor (`^`, `$`), as the idioms for counting lines are written. (`^$` may
// match the empty string too, but only in an empty line.)
bool matches_every_line(const std::vector<std::string>& patterns,
                        const std::vector<detail::HirSummary>& hirs, bool fixed_strings) {
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const bool anchor = !fixed_strings && (patterns[i] == "^" || patterns[i] == "$");
    if ((hirs[i].nullable && !hirs[i].looks) || anchor) {
      return true;
    }
  }
  return false;
}

// Rust's syntax has no \Z. Where such a pattern is read as PCRE2 reads it (rust_syntax_errors
// off: the agent's search_files), \Z is the end of the subject or the place before a final line
// feed, which on a line is \z: the patterns with it written \z (line mode only), so that the
// rules for haystack anchors take it as \z. (Left as it was, a line's match depended on where
// the haystack ended: a window's end or the buffer's, found by the pattern fuzzer.) nullopt
// when no pattern holds one.
std::optional<std::vector<std::string>> with_text_end_as_z(const std::vector<std::string>& patterns,
                                                           const PatternOptions& options) {
  if (options.pcre2 || options.fixed_strings || options.rust_syntax_errors || options.multiline) {
    return std::nullopt;
  }
  if (std::ranges::none_of(
          patterns, [](const std::string& p) { return p.find("\\Z") != std::string::npos; })) {
    return std::nullopt;  // (no copy of the patterns for every set)
  }
  std::vector<std::string> out = patterns;
  bool any = false;
  for (std::string& p : out) {
    for (std::size_t i = 0; i + 1 < p.size(); ++i) {
      if (p[i] != '\\') continue;
      if (p[i + 1] == 'Q') {  // a PCRE2 quotation, up to \E
        const std::size_t end = p.find("\\E", i + 2);
        if (end == std::string::npos) break;
        i = end + 1;
        continue;
      }
      if (p[i + 1] == 'Z') {
        p[i + 1] = 'z';
        any = true;
      }
      ++i;  // the escaped character
    }
  }
  if (!any) return std::nullopt;
  return out;
}

// The patterns of a Rust-syntax regex set with the x flag read away (detail::
// without_extended_syntax) where a pattern had it and could lose it; nullopt when none did (the
// set then runs as typed). Under --no-unicode or (?-u) the set is in byte mode anyway.
std::optional<std::vector<std::string>> without_extended_syntax(
    const std::vector<std::string>& patterns, const PatternOptions& options, bool caseless) {
  if (options.pcre2 || options.fixed_strings || options.no_unicode) return std::nullopt;
  const detail::ByteRegexOptions exact{caseless,     true,  options.multiline_dotall,
                                       options.crlf, false, {}};
  std::optional<std::vector<std::string>> plain;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    if (detail::disables_unicode(patterns[i])) return std::nullopt;
    std::optional<std::string> rewritten = detail::without_extended_syntax(patterns[i], exact);
    if (!rewritten) continue;
    if (!plain) plain = patterns;
    (*plain)[i] = std::move(*rewritten);
  }
  return plain;
}

}  // namespace

bool is_regex_limit(const Error& error) { return error.detail.starts_with(kRegexLimitHit); }

PatternSet::PatternSet(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PatternSet::PatternSet(PatternSet&&) noexcept = default;
PatternSet& PatternSet::operator=(PatternSet&&) noexcept = default;
PatternSet::~PatternSet() = default;
PatternSet::Scratch::Scratch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PatternSet::Scratch::Scratch(Scratch&&) noexcept = default;
PatternSet::Scratch::~Scratch() = default;

bool PatternSet::hyperscan_exact() const { return impl_->exact; }
bool PatternSet::uses_required_literals() const { return impl_->requires_literals(); }
bool PatternSet::multiline() const { return impl_->multiline; }
bool PatternSet::searches_buffer() const { return impl_->buffer_search; }
char PatternSet::line_terminator() const { return impl_->options.line_terminator; }

Result<PatternSet> PatternSet::compile(const std::vector<std::string>& typed_patterns,
                                       const PatternOptions& options) {
  if (options.line_terminator != '\n' && (options.line_terminator != '\0' || options.crlf)) {
    return Error{ErrorCode::kInvalidArgument,
                 "the line terminator must be '\\n', or NUL without CRLF mode"};
  }
  // --null-data: lines end at NUL (see PatternOptions::line_terminator).
  const bool nul = options.line_terminator == '\0';
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->caseless = options.case_insensitive;
  if (options.smart_case && !options.case_insensitive) {
    bool upper = false;
    bool literal = false;
    for (const std::string& p : typed_patterns) {
      upper = upper || has_uppercase(p, options.fixed_strings, !options.pcre2);
      literal = literal || (options.fixed_strings ? !p.empty() : has_literal(p));
    }
    impl->caseless = !upper && (literal || options.pcre2);
  }
  // Rust's x flag read away where that is all that kept a pattern off the UTF-8 path
  // (without_extended_syntax); the typed patterns otherwise.
  const std::optional<std::vector<std::string>> text_end =
      with_text_end_as_z(typed_patterns, options);
  const std::vector<std::string>& as_read = text_end ? *text_end : typed_patterns;
  const std::optional<std::vector<std::string>> plain =
      without_extended_syntax(as_read, options, impl->caseless);
  const std::vector<std::string>& patterns = plain ? *plain : as_read;

  // The regex of each pattern, validated alone so errors point into what the user typed.
  // Rust's non-Unicode mode ((?-u), --no-unicode): every pattern of the set becomes a regex over
  // bytes (byte_mode.hpp) for PCRE2 without UTF and Hyperscan without HS_FLAG_UTF8. Sets without
  // it keep the UTF-8 path untouched, and so do --no-unicode sets of plain literals that neither
  // case nor word boundaries make differ.
  // Every regex is first parsed as Rust's regex-syntax parses it (the byte-mode translator), so
  // that what Rust refuses is an error here too (rust_syntax_errors), never PCRE2's reading of it;
  // sets with syntax that PCRE2 with UTF reads otherwise (rust_to_bytes' `differs`) run in byte
  // mode.
  // The same parse summarizes each pattern's HIR as regex-syntax builds it (rust_hir.hpp), for
  // ripgrep's checks on the alternation of all patterns below.
  bool byte_mode = false;
  std::vector<detail::HirSummary> hirs;
  // What ripgrep strips from the classes it compiles: its line terminator(s), without -U.
  const std::string_view strip = options.multiline                 ? std::string_view()
                                 : options.line_terminator == '\0' ? std::string_view("\0", 1)
                                 : options.crlf                    ? std::string_view("\r\n")
                                                                   : std::string_view("\n");
  if (!options.pcre2) {
    bool turns_off = false, literals = true;
    hirs.reserve(patterns.size());
    for (const std::string& p : patterns) {
      turns_off = turns_off || (!options.fixed_strings && detail::disables_unicode(p));
      literals = literals && (options.fixed_strings || is_literal(p));
      if (options.fixed_strings || is_literal(p)) {
        hirs.push_back(detail::hir_of_literal(p, impl->caseless));
      } else {
        const detail::ByteRegexOptions check{
            impl->caseless, !options.no_unicode, options.multiline_dotall, options.crlf, true,
            strip};
        detail::RustFacts facts;
        auto checked = detail::rust_to_bytes(p, check, &facts);
        if (!checked.ok() && options.rust_syntax_errors) return std::move(checked).error();
        turns_off = turns_off || (checked.ok() && facts.differs);
        hirs.push_back(std::move(facts.hir));
      }
    }
    byte_mode =
        turns_off || (options.no_unicode && !(literals && !impl->caseless && !options.word));
  }
  impl->byte_mode = byte_mode;
  std::uint32_t pcre_flags =
      PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | (impl->caseless ? PCRE2_CASELESS : 0U);
  // Byte mode: case folding is spelled out in the regexes; its word boundaries are callouts, which
  // PCRE2's auto-possessification would skip (`-w '(?-u)[^a-z]+'` never backtracking from ", "
  // to "," in ", o").
  if (byte_mode) pcre_flags = PCRE2_NO_AUTO_POSSESS;
  if (options.pcre2 && options.no_unicode) pcre_flags &= PCRE2_CASELESS;
  // originals: as typed (-F: escaped); regexes: rust_to_pcre2's kKeep form of each.
  std::vector<std::string> originals, regexes, pcre_regexes;
  const bool crlf_pieces = options.crlf && !options.multiline && !options.pcre2;
  bool unmultiline_anchors = false;
  bool piece_anchors = false;  // crlf_pieces made some anchor \A or \z
  bool all_literal = true;
  bool any_empty = false;
  std::vector<std::size_t> may_be_empty;  // the patterns whose PCRE2 minimum length is 0
  // multi_line_anchors' verdicts, over all patterns (see nul_over_buffer below).
  bool all_end_anchored = !options.fixed_strings && !patterns.empty();
  bool all_start_anchored = true, some_unmultiline = false;
  if (nul_banned(patterns, hirs, options)) {  // before the line terminator's errors, as in rg
    return Error{ErrorCode::kInvalidArgument,
                 "pattern contains \"\\0\" but it is impossible to match\n\n"
                 "Consider enabling text mode with the --text flag (or -a for short). Otherwise,\n"
                 "binary detection is enabled and matching a NUL byte is impossible."};
  }
  // The line terminator's errors look at the alternation of all patterns' HIRs, as ripgrep's
  // strip_from_match (CRLF: the CR first). -F patterns: any line terminator byte in them (rg's
  // has_line_terminator).
  if (!options.multiline && !options.pcre2) {
    const std::string_view terminators = nul            ? std::string_view("\0", 1)
                                         : options.crlf ? std::string_view("\r\n")
                                                        : std::string_view("\n");
    for (const char t : terminators) {
      const auto in = [t](const std::string& p) { return p.find(t) != std::string::npos; };
      const bool held = options.fixed_strings ? std::ranges::any_of(patterns, in)
                                              : detail::holds_literal_byte(hirs, t);
      if (held) {
        return Error{ErrorCode::kInvalidArgument,
                     fmt::format("the literal \"\\{}\" is not allowed in a regex\n\n"
                                 "Consider enabling multiline mode with the --multiline flag (or "
                                 "-U for short).\nWhen multiline mode is enabled, new line "
                                 "characters can be matched.",
                                 t == '\n'   ? 'n'
                                 : t == '\r' ? 'r'
                                             : '0')};
      }
    }
  }
  // ripgrep's regex size limit, where the NFA of its engine is known to exceed it.
  if (!options.pcre2 && detail::nfa_bytes_lower_bound(hirs, strip, options.word || options.line) >
                            options.regex_size_limit) {
    return Error{ErrorCode::kInvalidArgument,
                 fmt::format("compiled regex exceeds size limit of {}", options.regex_size_limit)};
  }
  for (std::size_t index = 0; index < patterns.size(); ++index) {
    const std::string& p = patterns[index];
    std::string regex = options.fixed_strings ? escape_literal(p) : p;
    // ripgrep's regexes run in multi-line mode: an inline `m` flag is taken out, and where the
    // pattern turned it off, ^ and $ mean the haystack's ends (line_anchors.hpp).
    // -P -U keeps PCRE2's own reading, as rg -P does. A --null-data line (a record) may hold line
    // feeds: there too they are the haystack's ends (\A, \z), each record being searched alone.
    // --crlf line by line: see CrlfLines::kPiecesUnmultiline.
    detail::MultiLineAnchors anchors;
    if (!options.fixed_strings && !(options.pcre2 && options.multiline)) {
      anchors = detail::multi_line_anchors(
          regex, options.pcre2 ? detail::RegexSyntax::kPcre2 : detail::RegexSyntax::kRust,
          options.multiline || nul, crlf_pieces);
      regex = std::move(anchors.regex);
      all_end_anchored = all_end_anchored && anchors.ends_at_haystack_end;
      all_start_anchored = all_start_anchored && anchors.starts_at_haystack_start;
      some_unmultiline = some_unmultiline || anchors.unmultiline;
      unmultiline_anchors = unmultiline_anchors || (crlf_pieces && anchors.unmultiline);
      piece_anchors = piece_anchors || (crlf_pieces && anchors.anchors);
    }
    // -P and -x (which adds anchors, a line feed's for ripgrep) always search in multiline mode
    // under -U, as in ripgrep; so do anchors that only the whole buffer has (a --null-data record
    // has them too), and (--crlf) Rust's CRLF-aware ones; and so does a pattern whose HIR may
    // match the line terminator (ripgrep's non_matching_bytes, which counts anchors as matching
    // a line feed).
    const auto matches_terminator = [&] {
      return (hirs[index].matches & detail::terminator_bit(options.line_terminator)) != 0;
    };
    if (options.multiline && (options.pcre2 || ((options.line || anchors.buffer_anchors) && !nul) ||
                              (options.crlf && anchors.anchors) || matches_terminator())) {
      impl->multiline = true;
    }
    // What PCRE2 runs: in ripgrep's own dialect (not -P) rewritten where Rust and PCRE2 read the
    // syntax differently (rust_syntax.hpp). Hyperscan (a prefilter for these) and the BitMatcher
    // get `regex` with ASCII POSIX classes, \w \W \b \B as written: they read those as
    // supersets of Rust's.
    std::string pcre_regex = regex;
    originals.push_back(regex);
    if (byte_mode) {
      detail::ByteRegexOptions bytes{
          impl->caseless, !options.no_unicode, options.multiline_dotall, options.crlf, false,
          strip};
      CTX_TRY_ASSIGN(pcre_regex, detail::rust_to_bytes(regex, bytes));
      bytes.superset = true;
      CTX_TRY_ASSIGN(regex, detail::rust_to_bytes(regex, bytes));
    } else if (!options.fixed_strings && !options.pcre2) {
      CTX_TRY_ASSIGN(std::string rust,
                     detail::rust_to_pcre2(regex, impl->caseless, true, detail::WordMode::kRust));
      pcre_regex = scripts_as_in_rust(rust);
      if (options.crlf && options.multiline) {
        bool replaced = false;
        pcre_regex = detail::crlf_line_anchors(pcre_regex, replaced);
      }
      CTX_TRY_ASSIGN(regex,
                     detail::rust_to_pcre2(regex, impl->caseless, true, detail::WordMode::kKeep));
    }
    // Counts above PCRE2's 65535 (rg takes any u32 its size limit allows) as pieces of at most
    // that (large_repeats.hpp); -P keeps PCRE2's error, as rg -P.
    bool split = false;
    if (!options.pcre2) {
      std::string pieces = detail::split_large_repeats(pcre_regex);
      split = pieces != pcre_regex;
      pcre_regex = std::move(pieces);
    }
    // Validated alone (PCRE2 is the reference syntax), except a non-empty ASCII literal, which
    // always compiles and matches exactly its own bytes: thousands of -f identifiers then cost
    // no compile each.
    std::uint32_t min_length = 0;
    if (!p.empty() && ctx::is_ascii_text(p) && (options.fixed_strings || is_literal(p))) {
      min_length = static_cast<std::uint32_t>(std::min<std::size_t>(p.size(), UINT32_MAX));
    } else {
      auto alone_or = compile_pcre2(pcre_regex, pcre_flags, p, /*jit=*/false);
      if (!alone_or.ok() && byte_mode) {  // the translation parsed: PCRE2 refuses what it made
        return byte_mode_compile_error(p, pcre_regex, pcre_flags);
      }
      if (!alone_or.ok() && split) return split_repeat_compile_error(p, pcre_regex, pcre_flags);
      if (!alone_or.ok() && pcre_regex != p) {  // the offset should point into what was typed
        if (auto typed = compile_pcre2(p, pcre_flags, p, /*jit=*/false); !typed.ok())
          return std::move(typed).error();
      }
      CTX_TRY_ASSIGN(Pcre2Code alone, std::move(alone_or));
      pcre2_pattern_info(alone.get(), PCRE2_INFO_MINLENGTH, &min_length);
    }
    pcre_regexes.push_back(std::move(pcre_regex));
    if (min_length == 0) may_be_empty.push_back(pcre_regexes.size() - 1);
    any_empty = any_empty || min_length == 0;
    all_literal = all_literal && !byte_mode && (options.fixed_strings || is_literal(p)) &&
                  !p.empty() && p.find('\n') == std::string::npos &&
                  (!impl->caseless || ctx::is_ascii_text(p));
    regexes.push_back(std::move(regex));
  }
  // Without UTF, PCRE2 tries every byte position itself.
  impl->empty_in_invalid_utf8 = any_empty && !options.pcre2 && !byte_mode;
  // --null-data: ripgrep's regex (not -P's) names no line terminator under -U; NUL being a byte it
  // never matches, ripgrep's fast line search then runs it over its buffer (grep-searcher's
  // is_line_by_line_fast), taking its matches as they are (no inner literals without a line
  // terminator).
  // Without -U, a haystack anchor (\A, \z, ^ or $ where `m` is off) makes ripgrep's matcher name
  // no line terminator, and NUL being a byte its regex never matches, the fast line search runs
  // it over the buffer too, confirming a candidate line alone only where grep-regex extracts
  // inner literals (literal.rs). It cannot where some pattern matches empty (an empty literal
  // spoils the set); it does not where regex-automata's meta regex is accelerated and no Unicode
  // word boundary is in it: every pattern ends at \z (a reverse anchored search) and not all
  // start at \A. Other sets with haystack anchors are still searched line by line here.
  // (Without -U, the matcher of a set with a haystack anchor names no line terminator: rg's
  // grep-regex ConfiguredHIR::line_terminator. --crlf then steps line by line, see crlf_gap.)
  const bool haystack_anchor =
      !options.fixed_strings &&
      (some_unmultiline || std::ranges::any_of(patterns, [](const std::string& p) {
         return p.find("\\A") != std::string::npos || p.find("\\z") != std::string::npos;
       }));
  const bool word_boundary =
      options.word || std::ranges::any_of(patterns, [](const std::string& p) {
        return p.find("\\b") != std::string::npos || p.find("\\B") != std::string::npos;
      });
  // (No pattern may match a NUL: ripgrep's non_matching_bytes, from the HIR summaries; -P has
  // none, and never searches over the buffer.)
  const bool nul_over_buffer =
      nul && !options.multiline && !options.pcre2 && haystack_anchor &&
      (!may_be_empty.empty() || (all_end_anchored && !all_start_anchored && !word_boundary)) &&
      std::ranges::none_of(
          hirs, [](const detail::HirSummary& h) { return (h.matches & detail::kHoldsNul) != 0; });
  impl->buffer_search =
      nul && !impl->multiline && !options.pcre2 && (options.multiline || nul_over_buffer);
  impl->nul_scan = nul && !impl->multiline && !impl->buffer_search && !options.pcre2 &&
                   !options.line && std::ranges::none_of(patterns, [&](const std::string& p) {
                     return !options.fixed_strings && (p.find_first_of("^$") != std::string::npos ||
                                                       p.find("\\A") != std::string::npos ||
                                                       p.find("\\z") != std::string::npos);
                   });
  if (options.crlf && !options.multiline) {
    impl->crlf_lines = options.pcre2         ? CrlfLines::kPcre2
                       : unmultiline_anchors ? CrlfLines::kPiecesUnmultiline
                                             : CrlfLines::kPieces;
  }
  impl->line_by_line = piece_anchors || (!impl->multiline && !nul && !options.fixed_strings &&
                                         std::ranges::any_of(patterns, [&](const std::string& p) {
                                           return options.pcre2
                                                      ? pcre2_may_look_past_line(p)
                                                      : p.find("\\A") != std::string::npos ||
                                                            p.find("\\z") != std::string::npos;
                                         }));
  if (patterns.empty()) {
    regexes.emplace_back("(*FAIL)");
    pcre_regexes.emplace_back("(*FAIL)");
  }

  // Hyperscan for everything it accepts; the rest of the set runs on PCRE2 alone.
  // (Not one literal: PairLiteral takes it without a compile.)
  const bool small_input_set =
      (options.small_haystacks || options.tiny_haystacks) &&
      patterns.size() <= PatternOptions::kFewLiterals &&
      (options.tiny_haystacks || std::ranges::all_of(patterns,
                                                     [&](const std::string& p) {
                                                       return options.fixed_strings ||
                                                              is_literal(p);
                                                     })) &&
      !(patterns.size() == 1 && (options.fixed_strings || is_literal(patterns[0])));
  bool use_hs = !options.pcre2 && !options.pcre2_only && !small_input_set && !options.crlf &&
                !nul && !any_empty && !patterns.empty();
  // Every expression Hyperscan got is the regex itself over bytes: a literal or its byte-mode
  // rewrite (no UTF-8 superset, no prefilter mode), as plain_ascii below needs.
  bool hs_same_regex = true;
  // Multiline mode never looks for lines (find_line): only its own prefilter is compiled below.
  if (use_hs && !impl->multiline) {
    std::vector<const char*> exprs;
    std::vector<unsigned> flags;
    std::vector<unsigned> ids(regexes.size());
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<unsigned>(i);
    std::vector<std::string> hs_patterns;
    std::vector<char> exact_ids;  // Impl::hs_exact_ids, as build_exprs finds them
    // Plain ASCII literals go through Hyperscan's literal API: the same database, built without
    // parsing 1,000 regexes (a quarter less compile time for 1,000 -f identifiers), and in
    // seconds less for thousands under -i. It reports exact spans (literal_mode); under -w an
    // occurrence counts when ripgrep 14's half word boundaries hold around it (checked here, in
    // C++); under -x a line is a match when it equals a literal reported in it.
    // Under -i, k and s also match U+212A and U+017F, which ASCII caseless matching misses: a
    // literal with them is searched by its longest piece without them (a superset), and PCRE2
    // confirms every candidate line.
    bool plain_literals = !byte_mode && std::ranges::all_of(patterns, [&](const auto& p) {
      return !p.empty() && ctx::is_ascii_text(p) && (options.fixed_strings || is_literal(p)) &&
             p.find('\n') == std::string::npos;
    });
    // The pieces Hyperscan searches (its ids index them): a literal of only k and s has two,
    // its first character in ASCII and as its fold.
    struct Piece {
      std::string_view text;
      std::uint32_t pattern, start, chars;
    };
    std::vector<Piece> pieces;
    bool cut_literals = false;
    for (std::size_t i = 0; plain_literals && i < patterns.size(); ++i) {
      const std::string_view p = patterns[i];
      const auto index = static_cast<std::uint32_t>(i);
      if (!impl->caseless || p.find_first_of("kKsS") == std::string_view::npos) {
        pieces.push_back({p, index, 0, static_cast<std::uint32_t>(p.size())});
        continue;
      }
      cut_literals = true;
      std::string_view longest;
      for (std::size_t at = 0; at <= p.size();) {
        std::size_t end = p.find_first_of("kKsS", at);
        if (end == std::string_view::npos) end = p.size();
        if (end - at > longest.size()) longest = p.substr(at, end - at);
        at = end + 1;
      }
      if (longest.empty()) {
        const bool k = p[0] == 'k' || p[0] == 'K';
        pieces.push_back({p.substr(0, 1), index, 0, 1});
        pieces.push_back({k ? kKelvinSign : kLongS, index, 0, 1});
      } else {
        pieces.push_back({longest, index, static_cast<std::uint32_t>(longest.data() - p.data()),
                          static_cast<std::uint32_t>(longest.size())});
      }
    }
    // The regex route's expressions, built when the literal API is not used.
    auto build_exprs = [&] {
      if (!exprs.empty()) return;
      // Under -x Hyperscan gets each regex anchored at both line ends, ^(?:re)$ with
      // HS_FLAG_MULTILINE (lines end at '\n', as ripgrep's without --crlf), so only lines that
      // may equal a match are candidates; PCRE2 confirms each whole line. Beyond
      // kAnchoredLineMax regexes Hyperscan looks for each anywhere instead (a superset still):
      // anchored ones cost superlinear compile time (for -f lines mixing identifiers and regexes
      // 64 took 0.03 s more, 128 0.13 s, 256 0.45 s, thousands minutes), which 64 earned back on
      // a 549 MB tree (1.5 s CPU unanchored, 1.05 s anchored) and 128 no longer did.
      const bool anchored = options.line && regexes.size() <= kAnchoredLineMax;
      hs_patterns = regexes;
      exact_ids.assign(regexes.size(), 0);
      // Where a literal's hit alone can decide its line (no word, whole-line or CRLF check after
      // it; lines end at '\n').
      const bool hit_decides = !options.line && !options.word && !options.crlf && !nul;
      if (options.line) all_literal = false;
      for (std::size_t i = 0; i < hs_patterns.size(); ++i) {
        unsigned f = HS_FLAG_MULTILINE;
        if (impl->caseless) f |= HS_FLAG_CASELESS;
        if (anchored) hs_patterns[i] = "^(?:" + regexes[i] + ")$";
        if (byte_mode) {  // a superset over bytes, case folding spelled out
          flags.push_back(HS_FLAG_MULTILINE);
          continue;
        }
        // A literal under -i that Hyperscan's ASCII case folding misses matches of (non-ASCII,
        // or k and s, which U+212A and U+017F fold to): its folds spelled out over bytes, exact.
        const bool literal = options.fixed_strings || is_literal(regexes[i]);
        const std::string& text = options.fixed_strings ? patterns[i] : regexes[i];
        if (impl->caseless && literal && !text.empty() && !byte_mode &&
            (!ctx::is_ascii_text(text) || text.find_first_of("kKsS") != std::string::npos)) {
          if (auto bytes = caseless_literal_bytes(text)) {
            hs_patterns[i] = anchored ? "^(?:" + *bytes + ")$" : std::move(*bytes);
            exact_ids[i] = hit_decides ? 1 : 0;
            flags.push_back(f);
            continue;
          }
        }
        // A regex runs on Hyperscan as its byte-mode superset (byte_prefilter.hpp: compiles in
        // milliseconds where UCP classes take seconds, and scans invalid UTF-8 too); PCRE2
        // confirms. What the rewriter does not model runs as UTF-8 with UCP (haystacks that are
        // not valid UTF-8 then go to PCRE2: see find_line).
        if (!options.fixed_strings && !is_literal(regexes[i])) {
          if (auto bytes = detail::byte_prefilter(hs_patterns[i], impl->caseless)) {
            // Widened for non-ASCII characters (the rewriter's [\x80-\xff] alternatives, even
            // where the class is ASCII only, as [^a[:^alpha:]]): not the regex, PCRE2 confirms.
            if (detail::widened_for_non_ascii(*bytes)) hs_same_regex = false;
            hs_patterns[i] = std::move(*bytes);
            all_literal = false;
            flags.push_back(f);
            continue;
          }
        }
        const bool utf8 = !ctx::is_ascii_text(regexes[i]) || !is_literal(regexes[i]);
        if (!is_literal(regexes[i])) hs_same_regex = false;
        if (utf8 && !options.fixed_strings) {  // Hyperscan's Unicode tables are older: supersets
          hs_patterns[i] = superset_for_hyperscan(originals[i], impl->caseless, anchored);
        }
        if (utf8) {
          f |= HS_FLAG_UTF8 | HS_FLAG_UCP;
          impl->hs_utf8 = true;
        }
        bool changed = false;
        if (impl->caseless || hs_patterns[i].find("(?i") != std::string::npos) {
          hs_patterns[i] = add_unicode_case_folds(hs_patterns[i], utf8, changed);
          if (changed) all_literal = false;  // a superset now: PCRE2 confirms
        }
        if (hit_decides && !utf8 && !changed && !regexes[i].empty() && is_literal(regexes[i])) {
          exact_ids[i] = 1;
        }
        flags.push_back(f);
      }
      for (std::string& p : hs_patterns) p = detail::widen_large_repeats(p, kHsRepeatMax);
      exprs.reserve(hs_patterns.size());
      for (const std::string& p : hs_patterns) exprs.push_back(p.c_str());
    };
    std::size_t shortest_piece = pieces.empty() ? 0 : pieces[0].text.size();
    for (const Piece& piece : pieces) shortest_piece = std::min(shortest_piece, piece.text.size());
    hs_database_t* db = nullptr;
    hs_compile_error_t* err = nullptr;
    auto try_compile = [&] {
      bool ok;
      if (plain_literals && detail::prefer_hashed_literals(pieces.size(), shortest_piece)) {
        // Hyperscan's literal compile grows to seconds and hundreds of MB for big sets (0.4 s
        // for 10,000 identifiers, 4.4 s and 250 MB for 100,000); the hashed matcher takes
        // milliseconds, and when it samples it scans faster too (hashed_literals.hpp).
        std::vector<std::string_view> texts;
        texts.reserve(pieces.size());
        for (const Piece& piece : pieces) texts.push_back(piece.text);
        impl->hashed.emplace(texts, impl->caseless);
        return true;
      }
      if (plain_literals && pieces.size() == 1 &&
          detail::PairLiteral::suits(pieces[0].text.size())) {
        // One literal: keyed on its rarest bytes where Hyperscan keys on an adjacent pair
        // (pair_literal.hpp; 100 MB of C, `-j1 -c statiq`: 19.8 -> 9.7 ms).
        impl->pair.emplace(pieces[0].text, impl->caseless);
        return true;
      }
      if (plain_literals) {
        std::vector<const char*> literals;
        std::vector<std::size_t> lengths;
        std::vector<unsigned> literal_flags(pieces.size(), impl->caseless ? HS_FLAG_CASELESS : 0U);
        std::vector<unsigned> piece_ids(pieces.size());
        literals.reserve(pieces.size());
        lengths.reserve(pieces.size());
        for (std::size_t i = 0; i < pieces.size(); ++i) {
          literals.push_back(pieces[i].text.data());
          lengths.push_back(pieces[i].text.size());
          piece_ids[i] = static_cast<unsigned>(i);
        }
        ok = hs_compile_lit_multi(literals.data(), literal_flags.data(), piece_ids.data(),
                                  lengths.data(), static_cast<unsigned>(literals.size()),
                                  HS_MODE_BLOCK, nullptr, &db, &err) == HS_SUCCESS;
      } else {
        build_exprs();
        ok = hs_compile_multi(exprs.data(), flags.data(), ids.data(),
                              static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK, nullptr, &db,
                              &err) == HS_SUCCESS;
      }
      if (!ok) hs_free_compile_error(err);
      return ok;
    };
    bool compiled = try_compile();
    if (!compiled && plain_literals) {  // not expected; the regex route then decides
      plain_literals = false;
      compiled = try_compile();
    }
    if (!compiled) {
      // Prefilter mode accepts what exact mode cannot (e.g. \b under UCP, back-references) and
      // never drops a true match; PCRE2 confirms every candidate line, as for any regex.
      build_exprs();
      for (unsigned& f : flags) f |= HS_FLAG_PREFILTER;
      exact_ids.clear();  // prefilter mode decides nothing
      hs_same_regex = false;
      all_literal = false;
      compiled = try_compile();
    }
    if (compiled && db != nullptr) {
      impl->hs.reset(db);
      hs_scratch_t* proto = nullptr;
      if (hs_alloc_scratch(db, &proto) != HS_SUCCESS) {
        return Error{ErrorCode::kIo, "could not allocate Hyperscan scratch space"};
      }
      impl->hs_proto.reset(proto);
    }
    if (compiled && !plain_literals && std::ranges::find(exact_ids, 1) != exact_ids.end()) {
      impl->hs_exact_ids = std::move(exact_ids);
    }
    if (compiled) {
      if (plain_literals && cut_literals) all_literal = false;  // pieces: verified or confirmed
      if (plain_literals && cut_literals) {                     // Hyperscan's ids are pieces
        impl->hs_pattern_of.reserve(pieces.size());
        for (const Piece& piece : pieces) impl->hs_pattern_of.push_back(piece.pattern);
      }
      if (plain_literals) {
        LiteralTable& table = impl->literals;
        // -x wins over -w (a whole line has word boundaries around it), as in ripgrep.
        table.mode = options.line   ? LiteralMode::kWholeLine
                     : options.word ? LiteralMode::kWord
                                    : LiteralMode::kSubstring;
        table.caseless = impl->caseless;
        table.cut = cut_literals;
        table.literals = patterns;
        for (const Piece& piece : pieces) {
          table.piece_pattern.push_back(piece.pattern);
          table.piece_start.push_back(piece.start);
          table.piece_chars.push_back(piece.chars);
          table.piece_bytes.push_back(static_cast<std::uint32_t>(piece.text.size()));
        }
      }
    }  // else unsupported by Hyperscan even as a prefilter: PCRE2 scans alone
  }
  impl->exact = (impl->literals.mode == LiteralMode::kSubstring && !impl->literals.cut) ||
                (impl->scans() && all_literal && !options.word &&
                 impl->literals.mode != LiteralMode::kWholeLine);
  if (!impl->multiline && !options.pcre2 && !options.pcre2_only && !small_input_set &&
      !options.crlf && !byte_mode && !nul && !options.fixed_strings && !options.word &&
      !any_empty && !patterns.empty() && !impl->exact &&
      impl->literals.mode == LiteralMode::kNone) {
    impl->bits = detail::BitMatcher::compile(regexes, impl->caseless, options.line);
  }
  // Regexes of ASCII literals and classes, line anchors and small counts (plain_ascii), where the
  // BitMatcher does not take them: Hyperscan's expression for them is the same regex over bytes,
  // so its match decides the line without PCRE2 confirming it (every line of a dense match was
  // a PCRE2 call). Not under -w (PCRE2's wrapping), nor -x past kAnchoredLineMax regexes (then
  // unanchored in Hyperscan), nor with an inline (?i), which the byte-mode rewrite takes as
  // folding the whole regex (`k(?i)abc` matched a line with U+212A "abc").
  if (!impl->exact && !impl->bits && impl->hs != nullptr && hs_same_regex && !byte_mode &&
      !options.pcre2 && !options.crlf && !nul && !impl->multiline && !options.word &&
      !options.fixed_strings && impl->literals.mode == LiteralMode::kNone &&
      !(options.line && patterns.size() > kAnchoredLineMax) && hirs.size() == patterns.size() &&
      std::ranges::all_of(hirs, [](const detail::HirSummary& h) { return h.plain_ascii; }) &&
      std::ranges::none_of(patterns, detail::folds_case_inline)) {
    impl->exact = true;
  }
  impl->every_line = !options.pcre2 && !options.word && !options.line && !impl->multiline &&
                     !impl->buffer_search && hirs.size() == patterns.size() &&
                     matches_every_line(patterns, hirs, options.fixed_strings);
  if (impl->hs != nullptr && !impl->bits && impl->literals.mode == LiteralMode::kNone &&
      !impl->multiline && hirs.size() == patterns.size()) {
    bool by_rarity = false;
    const std::optional<detail::RequiredSet> set =
        detail::required_prefilter(hirs, options.required_literals, &by_rarity);
    impl->required_spacing = by_rarity ? kRequiredRareLineSpacing : kRequiredLineSpacing;
    if (set) CTX_TRY(literal_search(*set, impl->required_pair, impl->required_hs, impl->hs_proto));
  }
  // Literals that Hyperscan's literal API matches (impl->literals) need no PCRE2 at all.
  if (impl->literals.mode == LiteralMode::kNone) {
    // -w: ripgrep 14's half word boundaries (Rust's \b{start-half}, \b{end-half}): no word
    // character before and after, and no invalid UTF-8 there either. -P: PCRE2's \w, as rg -P,
    // whose PCRE2 (10.43) counts marks (Mn) and connector punctuation (Pc) as word characters
    // under UCP where Debian's 10.42 does not.
    std::string word_start = "(?<!\\w)", word_end = "(?!\\w)";
    if (options.pcre2 && (pcre_flags & PCRE2_UCP) != 0) {
      constexpr std::string_view kPcre2WordClass = "[\\p{L}\\p{N}_\\p{Mn}\\p{Pc}]";
      word_start = fmt::format("(?<!{})", kPcre2WordClass);
      word_end = fmt::format("(?!{})", kPcre2WordClass);
    }
    if (byte_mode && options.no_unicode) {  // regex-automata's WordStartHalfAscii and so on
      word_start = "(?<![0-9A-Za-z_])";
      word_end = "(?![0-9A-Za-z_])";
    } else if (byte_mode) {
      word_start = fmt::format("(?C{})", detail::kCalloutWordStartHalf);
      word_end = fmt::format("(?C{})", detail::kCalloutWordEndHalf);
    } else if (!options.pcre2) {
      const std::string non_word = fmt::format("[^{}]", detail::kRustWordItems);
      word_start = fmt::format("(?:\\A|(?<={})|(?C{}))", non_word, detail::kCalloutNonWordBefore);
      word_end = "(?:\\z|(?=" + non_word + "))";
    }
    // --crlf: PCRE2's ANYCRLF newline convention, set by the regex itself.
    const std::string newline = options.crlf ? "(*ANYCRLF)" : "";
    // -x: (?m) anchors, \A and \z on the pieces of a --crlf line (multi_line_anchors).
    const std::string x_start = crlf_pieces ? "\\A" : "^", x_end = crlf_pieces ? "\\z" : "$";
    auto line_wrap = [&](const std::string& alternation) {
      std::string regex = "(?:" + alternation + ")";
      if (options.word) regex = word_start + regex + word_end;
      if (options.line) regex = x_start + regex + x_end;
      return newline + regex;
    };
    // Searches for empty matches inside invalid UTF-8 stop at one position: the offset limit.
    const std::uint32_t limit_flag = impl->empty_in_invalid_utf8 ? PCRE2_USE_OFFSET_LIMIT : 0U;
    // A line holds no LF, but under --crlf it may hold a CR, where `^` and `$` match too; under
    // --null-data it may hold a LF, where Rust's (?m)^ matches also at the line's end.
    const std::uint32_t line_flags = options.crlf           ? PCRE2_MULTILINE
                                     : nul && options.pcre2 ? PCRE2_MULTILINE
                                     : nul                  ? PCRE2_MULTILINE | PCRE2_ALT_CIRCUMFLEX
                                                            : 0U;
    // Many patterns with Hyperscan: line_re (and ascii_re) in chunks of kSpanChunkPatterns, of
    // which a line's spans and confirmations search only those of the patterns Hyperscan found in
    // it (the whole caseless alternation of 1,000 -i identifiers and a Cyrillic word per line
    // made --json 5.6x rg's time).
    const std::size_t chunk_patterns =
        impl->hs != nullptr && patterns.size() > kSpanChunkPatterns ? kSpanChunkPatterns : 0;
    CTX_TRY_ASSIGN(impl->line_re,
                   compile_alternation(pcre_regexes, patterns, line_wrap,
                                       pcre_flags | limit_flag | line_flags, chunk_patterns));
    // ripgrep searches line by line where a pattern has a haystack anchor (haystack_anchor).
    if (crlf_pieces && !may_be_empty.empty() && !haystack_anchor) {
      std::vector<std::string> bodies, typed;
      for (std::size_t i : may_be_empty) {
        bodies.push_back(pcre_regexes[i]);
        typed.push_back(i < patterns.size() ? patterns[i] : std::string());
      }
      impl->crlf_gap = matches_empty_in_crlf_gap(bodies, typed, line_wrap, pcre_flags | line_flags);
    }
    if (!options.pcre2 && !options.fixed_strings && !byte_mode && !patterns.empty()) {
      std::vector<std::string> ascii_regexes;
      ascii_regexes.reserve(regexes.size());
      for (const std::string& r : regexes) {
        ascii_regexes.push_back(detail::split_large_repeats(scripts_as_in_rust(r)));
      }
      auto ascii_wrap = [&](const std::string& alternation) {
        std::string regex = "(?:" + alternation + ")";
        if (options.word) regex = "(?<!\\w)" + regex + "(?!\\w)";
        if (options.line) regex = x_start + regex + x_end;
        return newline + regex;
      };
      auto ascii = compile_alternation(ascii_regexes, patterns, ascii_wrap,
                                       (pcre_flags & ~PCRE2_UCP) | line_flags, chunk_patterns);
      if (ascii.ok()) impl->ascii_re = std::move(*ascii);  // else line_re serves ASCII lines too
    }
    // PCRE2 over whole buffers: when Hyperscan is not used, or cannot read a haystack.
    // Under ANYCRLF PCRE2 never starts a match at the LF of a CRLF unless the pattern names a CR
    // or LF itself (pcre2_match's bumpalong); Rust may start there (`--crlf -U -w '[^a-z]+'`
    // matches the LF of `o\r\n`). A branch that never matches names one.
    const std::string names_newline = options.crlf ? "(?:(?!)\\n)?" : "";
    // -x under --crlf -U: Rust's CRLF-aware line anchors, as in the patterns themselves.
    const bool crlf_buffer = options.crlf && impl->multiline;
    const std::string line_start{crlf_buffer ? detail::kCrlfLineStart : "^"};
    const std::string line_end{crlf_buffer ? detail::kCrlfLineEnd : "$"};
    auto scan_wrap = [&](std::string alternation) {
      std::string regex =
          options.line ? line_start + "(?:" + alternation + ")" + line_end : std::move(alternation);
      if (options.word) regex = word_start + "(?:" + regex + ")" + word_end;
      return newline + regex + names_newline;
    };
    // (Under --null-data it is the regex of searches_buffer: Rust's (?m)^ after a final LF too.)
    CTX_TRY_ASSIGN(impl->scan_re,
                   compile_alternation(pcre_regexes, patterns, scan_wrap,
                                       pcre_flags | PCRE2_MULTILINE | limit_flag |
                                           (nul && !options.pcre2 ? PCRE2_ALT_CIRCUMFLEX : 0U)));
    if (impl->multiline) {
      if (!options.pcre2 && !options.pcre2_only && !options.crlf && !nul &&
          !options.fixed_strings && !byte_mode && !options.word && !options.line && !any_empty &&
          !patterns.empty()) {
        // The search for the literals every match starts with, when there are such.
        const std::optional<detail::RequiredSet> leading =
            hirs.size() == patterns.size() ? detail::leading_prefilter(hirs) : std::nullopt;
        if (leading) {
          CTX_TRY(
              literal_search(*leading, impl->ml_leading_pair, impl->ml_leading_hs, impl->hs_proto));
        }
        if (impl->ml_leading()) {
          for (const detail::RequiredLiteral& literal : *leading) {
            impl->ml_leading_lengths.push_back(static_cast<std::uint32_t>(literal.bytes.size()));
          }
        }
        if (!impl->ml_leading()) {
          impl->ml_bits = detail::BitMatcher::compile_multiline(regexes, impl->caseless,
                                                                options.multiline_dotall);
        }
      }
      const bool starts_known = impl->ml_bits || impl->ml_leading();
      // Rust's (?m)^ also matches after a line feed that ends the haystack (an empty match
      // there is ripgrep's "empty block": its before-context prints); PCRE2's only with
      // ALT_CIRCUMFLEX. -P keeps PCRE2's own reading, as rg -P does.
      const std::uint32_t circumflex = options.pcre2 ? 0U : PCRE2_ALT_CIRCUMFLEX;
      CTX_TRY_ASSIGN(
          impl->ml_re,
          compile_alternation(pcre_regexes, patterns, scan_wrap,
                              pcre_flags | PCRE2_MULTILINE | circumflex |
                                  (options.multiline_dotall ? PCRE2_DOTALL : 0U) |
                                  (starts_known ? PCRE2_USE_OFFSET_LIMIT : 0U) | limit_flag));
      if (use_hs && !any_empty && !starts_known) {
        // A prefilter over the whole buffer: files it finds nothing in are done at Hyperscan's
        // speed. Prefilter mode only ever adds matches, so it never hides one from PCRE2.
        std::vector<std::string> ml_patterns;
        std::vector<const char*> exprs;
        std::vector<unsigned> flags, ids;
        bool utf8 = false;
        for (std::size_t i = 0; i < regexes.size(); ++i) {
          std::string re = options.line ? "^(?:" + regexes[i] + ")$" : regexes[i];
          unsigned f = HS_FLAG_MULTILINE | HS_FLAG_PREFILTER;
          // The byte-mode superset (byte_prefilter.hpp) compiles in milliseconds where UCP takes
          // seconds; its classes keep '\n' but its `.` never matches one: not under dot-all.
          std::optional<std::string> bytes;
          if (byte_mode) {
            bytes = re;  // already over bytes, case folding and dot-all spelled out
          } else if (!options.multiline_dotall && !options.fixed_strings) {
            bytes = detail::byte_prefilter(re, impl->caseless);
          }
          if (bytes) {
            re = std::move(*bytes);
          } else {
            bool changed = false;
            if (!options.fixed_strings) {  // Hyperscan's Unicode tables are older: supersets
              re = superset_for_hyperscan(originals[i], impl->caseless, options.line);
            }
            re = add_unicode_case_folds(re, true, changed);
            f |= HS_FLAG_UTF8 | HS_FLAG_UCP;
            utf8 = true;
          }
          ml_patterns.push_back(detail::widen_large_repeats(re, kHsRepeatMax));
          if (impl->caseless && !byte_mode) f |= HS_FLAG_CASELESS;
          if (options.multiline_dotall) f |= HS_FLAG_DOTALL;
          flags.push_back(f);
          ids.push_back(static_cast<unsigned>(i));
        }
        exprs.reserve(ml_patterns.size());
        for (const std::string& p : ml_patterns) exprs.push_back(p.c_str());
        hs_database_t* db = nullptr;
        hs_compile_error_t* err = nullptr;
        if (hs_compile_multi(exprs.data(), flags.data(), ids.data(),
                             static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK, nullptr, &db,
                             &err) == HS_SUCCESS) {
          hs_scratch_t* proto = impl->hs_proto.release();
          if (hs_alloc_scratch(db, &proto) == HS_SUCCESS) {
            impl->ml_hs.reset(db);
            impl->ml_hs_utf8 = utf8;
          } else {
            hs_free_database(db);
          }
          impl->hs_proto.reset(proto);
        } else {
          hs_free_compile_error(err);
        }  // else PCRE2 alone
      }
    }
  }
  for (const Alternation* alt : {&impl->line_re, &impl->ascii_re, &impl->scan_re, &impl->ml_re}) {
    impl->max_groups = std::max(impl->max_groups, alt->max_groups());
    impl->max_chunks = std::max(impl->max_chunks, alt->chunks.size());
  }
  return PatternSet(std::move(impl));
}

void PatternSet::Scratch::new_haystack() {
  impl_->hay_data = nullptr;
  impl_->ml_data = nullptr;
}

bool PatternSet::Scratch::required_literals_dropped() const { return impl_->required_off; }

void PatternSet::Scratch::set_interrupt(const std::function<bool()>* stop) {
  impl_->interrupt.stop = stop;
}

PatternSet::Scratch PatternSet::make_scratch() const {
  auto s = std::make_unique<Scratch::Impl>();
  if (impl_->hs_proto != nullptr) hs_clone_scratch(impl_->hs_proto.get(), &s->hs);
  const std::uint32_t pairs = std::max<std::uint32_t>(16, impl_->max_groups + 1);
  s->m.md = pcre2_match_data_create(pairs, nullptr);
  s->m.spare = pcre2_match_data_create(pairs, nullptr);
  s->m.mctx = pcre2_match_context_create(nullptr);
  pcre2_set_match_limit(s->m.mctx, kMatchLimit);
  pcre2_set_depth_limit(s->m.mctx, kDepthLimit);
  s->jit_stack = pcre2_jit_stack_create(32 << 10, kJitStackMax, nullptr);
  pcre2_jit_stack_assign(s->m.mctx, nullptr, s->jit_stack);
  if (!impl_->options.pcre2) {
    pcre2_set_callout(s->m.mctx, rust_word_callout, &s->after_line_break);
  }
  if (impl_->max_chunks > 1) s->marks.assign(impl_->max_chunks, 0);
  return Scratch(std::move(s));
}

namespace {

// The line of `hay` holding `pos`, not starting before `floor`; lines end at `lt`.
LineSpan line_around(std::string_view hay, std::size_t pos, std::size_t floor, char lt = '\n') {
  const void* before = pos > floor ? ::memrchr(hay.data() + floor, lt, pos - floor) : nullptr;
  const std::size_t start =
      before == nullptr
          ? std::min(pos, floor)
          : static_cast<std::size_t>(static_cast<const char*>(before) - hay.data()) + 1;
  const void* nl = std::memchr(hay.data() + pos, lt, hay.size() - pos);
  std::size_t end = nl == nullptr
                        ? hay.size()
                        : static_cast<std::size_t>(static_cast<const char*>(nl) - hay.data());
  return LineSpan{start, end};
}

// Whether `subject` ends in invalid or incomplete UTF-8 within its last 8 bytes (from the
// first of them that starts a character).
bool ends_in_invalid_utf8(std::string_view subject) {
  std::size_t from = subject.size() - std::min<std::size_t>(subject.size(), 8);
  while (from < subject.size() && (static_cast<unsigned char>(subject[from]) & 0xC0) == 0x80) {
    ++from;
  }
  return !ctx::is_valid_utf8(subject.substr(from));
}

// Runs `code` on `subject` from `offset`; 1 match, 0 none, or a limit error.
// `jit_misreads`: the code may hold a negated class of one character whose caseless set has
// three members or more ([^k] under (?i): k, K and U+212A). PCRE2 10.42's JIT reads an invalid
// UTF-8 byte there as the lead of a whole character: the match covers invalid UTF-8, which
// PCRE2_MATCH_INVALID_UTF never matches, and can end past the subject, whose bytes it reads
// (ripgrep 14's -P panics on it). Such a code runs in the interpreter on a subject that ends in
// invalid UTF-8, and again there when its JIT match covers some.
Result<bool> run_pcre2(const pcre2_code* code, std::string_view subject, std::size_t offset,
                       pcre2_match_data* md, pcre2_match_context* mctx, std::uint32_t options = 0,
                       bool jit_misreads = false) {
  if (jit_misreads && ends_in_invalid_utf8(subject)) options |= PCRE2_NO_JIT;
  int rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), offset,
                       options, md, mctx);
  if (rc >= 0 && jit_misreads && (options & PCRE2_NO_JIT) == 0) {
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    if (ov[1] > subject.size() ||
        !ctx::is_valid_utf8(subject.substr(ov[0], std::max(ov[0], ov[1]) - ov[0]))) {
      rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), offset,
                       options | PCRE2_NO_JIT, md, mctx);
    }
  }
  if (rc >= 0) return true;
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  return Error{ErrorCode::kIo, fmt::format("{} ({}); the file was searched only partly: simplify "
                                           "the pattern",
                                           kRegexLimitHit, pcre2_error_text(rc))};
}

// run_pcre2 with a match that must start at or before `limit` (PCRE2_UNSET: anywhere; the code
// allows an offset limit). PCRE2 10.42's JIT can miss the limit when the subject holds invalid
// UTF-8 before the match and the regex is large (a chunk of 1,000 -i literals: the match past
// the limit comes back): its match is the leftmost, so none starts within the limit then.
Result<bool> run_pcre2_limited(const pcre2_code* code, std::string_view subject, std::size_t offset,
                               pcre2_match_data* md, pcre2_match_context* mctx,
                               std::uint32_t options, PCRE2_SIZE limit, bool jit_misreads) {
  if (limit == PCRE2_UNSET) {
    return run_pcre2(code, subject, offset, md, mctx, options, jit_misreads);
  }
  pcre2_set_offset_limit(mctx, limit);
  auto hit = run_pcre2(code, subject, offset, md, mctx, options, jit_misreads);
  pcre2_set_offset_limit(mctx, PCRE2_UNSET);
  if (hit.ok() && *hit && pcre2_get_startchar(md) > limit) return false;
  return hit;
}

// A search that needs a regex the set did not compile (a bug: LiteralMode never asks for one).
Error not_compiled_error() {
  return Error{ErrorCode::kIo, "internal error: a search asked for a regex that was not compiled"};
}

// The leftmost match of `alt` in `subject` that starts at or after `offset` and, unless `limit`
// is PCRE2_UNSET, at or before `limit` (the codes must allow an offset limit then): true with
// the match in m.md and its chunk in m.chunk, false when there is none, or a resource limit's
// error. `only` (ascending chunk indices), when given, are the only chunks that may match.
// Leaves the match context without an offset limit.
Result<bool> search(const Alternation& alt, std::string_view subject, std::size_t offset,
                    MatchState& m, PCRE2_SIZE limit = PCRE2_UNSET,
                    std::span<const std::uint32_t> only = {}, bool use_only = false) {
  if (!alt.compiled()) return not_compiled_error();
  if (!alt.chunked()) {
    m.chunk = 0;
    return run_pcre2_limited(alt.chunks[0].code.get(), subject, offset, m.md, m.mctx, m.options,
                             limit, alt.jit_misreads_invalid_utf);
  }
  bool found = false;
  std::size_t best = 0;  // where the best match's attempt started (before any \K)
  const std::size_t n = use_only ? only.size() : alt.chunks.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t c = use_only ? only[k] : static_cast<std::uint32_t>(k);
    PCRE2_SIZE chunk_limit = limit;
    if (found) {  // a later chunk wins only with an earlier start
      if (best <= offset) break;
      chunk_limit = std::min<PCRE2_SIZE>(limit, best - 1);
    }
    auto hit = run_pcre2_limited(alt.chunks[c].code.get(), subject, offset, m.spare, m.mctx,
                                 m.options, chunk_limit, alt.jit_misreads_invalid_utf);
    if (!hit.ok()) return hit;
    if (*hit) {
      std::swap(m.md, m.spare);
      best = pcre2_get_startchar(m.md);
      m.chunk = c;
      found = true;
    }
  }
  pcre2_set_offset_limit(m.mctx, PCRE2_UNSET);
  return found;
}

// Whether some chunk of `alt` (of `only` when `use_only`) matches in `text`, from its start.
Result<bool> any_match(const Alternation& alt, std::string_view text, MatchState& m,
                       std::span<const std::uint32_t> only = {}, bool use_only = false) {
  if (!alt.compiled()) return not_compiled_error();
  const std::size_t n = use_only ? only.size() : alt.chunks.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t c = use_only ? only[k] : static_cast<std::uint32_t>(k);
    CTX_TRY_ASSIGN(bool hit, run_pcre2(alt.chunks[c].code.get(), text, 0, m.md, m.mctx, m.options,
                                       alt.jit_misreads_invalid_utf));
    if (hit) {
      m.chunk = c;
      return true;
    }
  }
  return false;
}

// PCRE2 10.42 with PCRE2_MATCH_INVALID_UTF starts match attempts only at the start offset and at
// valid UTF-8 characters, so it never finds an empty match inside a run of invalid bytes past the
// start offset (`\b` between "b" and "\xAF", `^` after a line feed before "\xAF"); Rust regex
// (ripgrep) does. After a search from `offset` whose match starts at `found` (subject.size() + 1
// for none), this tries each such position in (offset, found), left to right (`alt` needs
// PCRE2_USE_OFFSET_LIMIT).
enum class Probe { kNone, kMissed, kHit };  // kHit: the match is in m.md; kMissed: m.md clobbered
Result<Probe> empty_match_in_invalid_utf8(const Alternation& alt, std::string_view subject,
                                          std::size_t offset, std::size_t found, MatchState& m) {
  const std::size_t to = std::min(found, subject.size());
  Probe result = Probe::kNone;
  for (std::size_t i = offset; i < to;) {
    const auto c = static_cast<unsigned char>(subject[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    const std::size_t len = utf8_length(c);
    if (c >= 0xC2 && i + len <= subject.size() && ctx::is_valid_utf8(subject.substr(i, len))) {
      i += len;
      continue;
    }
    if (i > offset) {
      // Not PCRE2_ANCHORED: the interpreter it needs never matches at an invalid byte, JIT does.
      // The offset limit (PCRE2_USE_OFFSET_LIMIT) keeps it at `i`.
      CTX_TRY_ASSIGN(bool hit, search(alt, subject, i, m, i));
      if (hit) return Probe::kHit;
      result = Probe::kMissed;
    }
    ++i;
  }
  return result;
}

// Whether line [line.start, line.end) of `hay` holds a match of `alt`, searched on the line
// alone (as ripgrep confirms a candidate line: its word boundaries then see no line terminator
// before the line), with (`probe_empty`) the empty matches PCRE2 skips inside invalid UTF-8.
// `ascii` (when compiled) runs instead on a pure-ASCII line (PatternSet::Impl::ascii_re).
// Calls each(offset, piece) for the pieces of `line` between its CRs, in order, until it returns
// true (then returns true). The caller drops the CR of a line's CRLF first.
template <typename Each>
bool for_each_piece(std::string_view line, Each&& each) {
  std::size_t at = 0;
  for (;;) {
    const std::size_t cr = line.find('\r', at);
    const std::size_t end = cr == std::string_view::npos ? line.size() : cr;
    if (each(at, line.substr(at, end - at))) return true;
    if (cr == std::string_view::npos) return false;
    at = cr + 1;
  }
}

// `crlf_gap` (kPieces, kPiecesUnmultiline): a line that ends in a CRLF matches (Impl::crlf_gap).
Result<bool> confirm_line(const Alternation& alt, const Alternation& ascii, std::string_view hay,
                          LineSpan line, MatchState& m, bool probe_empty,
                          CrlfLines crlf = CrlfLines::kOff, bool crlf_gap = false) {
  std::string_view text = hay.substr(line.start, line.end - line.start);
  const bool terminated = line.end < hay.size();
  // kPiecesUnmultiline: a line that ends in a LF alone keeps it in ripgrep's haystack (only a
  // CRLF is its terminator), so the line's end is past the LF, where no match reaches.
  bool lone_lf = false;
  if (crlf != CrlfLines::kOff && terminated) {
    if (!text.empty() && text.back() == '\r') {
      if (crlf_gap && crlf != CrlfLines::kPcre2) return true;
      text.remove_suffix(1);
    } else if (crlf == CrlfLines::kPcre2) {
      text = hay.substr(line.start, text.size() + 1);
    } else {
      lone_lf = crlf == CrlfLines::kPiecesUnmultiline;
    }
  }
  if ((crlf == CrlfLines::kPieces || crlf == CrlfLines::kPiecesUnmultiline) &&
      (lone_lf || text.find('\r') != std::string_view::npos)) {
    std::optional<Error> error;
    const std::uint32_t options = m.options;
    const std::size_t end = lone_lf ? text.size() + 1 : text.size();
    bool hit = for_each_piece(text, [&](std::size_t offset, std::string_view piece) {
      m.options = options | piece_options(crlf, offset, piece.size(), end);
      auto r = confirm_line(alt, ascii, piece, LineSpan{0, piece.size()}, m, probe_empty);
      m.options = options;
      if (r.ok()) return *r;
      error = std::move(r).error();
      return true;
    });
    if (error) return std::move(*error);
    if (!hit && lone_lf) {  // an empty match at the haystack's end, past the LF ((?-m)$ alone)
      const std::string_view with_lf = hay.substr(line.start, text.size() + 1);
      m.options = options | PCRE2_NOTBOL;
      auto r = search(alt, with_lf, with_lf.size(), m);
      m.options = options;
      CTX_TRY_ASSIGN(hit, std::move(r));
    }
    return hit;
  }
  if (ascii.compiled() && ctx::is_ascii_text(text)) return any_match(ascii, text, m);
  CTX_TRY_ASSIGN(bool hit, any_match(alt, text, m));
  if (!hit && probe_empty) {
    CTX_TRY_ASSIGN(Probe probe, empty_match_in_invalid_utf8(alt, text, 0, text.size() + 1, m));
    hit = probe == Probe::kHit;
  }
  return hit;
}

struct ScanContext {
  const Alternation* line_re;
  const Alternation* ascii_re;
  bool exact;
  const std::vector<char>* exact_ids;  // Impl::hs_exact_ids (null: none)
  std::string_view hay;
  std::size_t base;
  std::size_t rejected_until;  // candidates ending before this were already confirmed absent
  std::optional<LineSpan> found;
  std::optional<Error> error;
  MatchState* m;
  InterruptState* interrupt;
  bool probe_empty;
  bool interrupted = false;
  // Chunked alternations: the candidate line, the alternation that confirms it and the chunks
  // of that tried on it (marked in `marks`, a Scratch's).
  std::vector<std::uint32_t>* marks = nullptr;
  std::uint32_t* mark = nullptr;
  std::optional<LineSpan> line = std::nullopt;
  const Alternation* line_alt = nullptr;
  // LiteralMode::kWholeLine, or pieces of literals: each occurrence is verified.
  const LiteralTable* literals = nullptr;
  const std::vector<std::uint32_t>* pattern_of = nullptr;  // Impl::hs_pattern_of
  // Scans that look ahead (Scratch::Impl::ahead): every matching line goes here, in order, and
  // the scan stops when it holds `ahead_want` lines (or when a report comes out of order).
  std::vector<LineSpan>* ahead = nullptr;
  std::uint32_t ahead_want = 1;
  bool out_of_order = false;
  // Occurrences whose last byte lies below this offset (of the scanned bytes) are of no use: their
  // line is queued or was rejected. PairLiteral skips them (a dense literal cost a call each).
  std::size_t useless_below = 0;
};

// A matching line: the scan's answer, or one more line queued ahead. Hyperscan's verdict: 1 stops
// the scan.
int report_line(ScanContext* ctx, LineSpan line) {  // by value: in registers
  if (ctx->ahead == nullptr) {
    ctx->found = line;
    return 1;
  }
  ctx->ahead->push_back(line);
  ctx->useless_below = line.end + 1 - ctx->base;
  return ctx->ahead->size() >= ctx->ahead_want ? 1 : 0;
}

// A scan that cannot go on (an error, an interrupt): with lines queued ahead it just stops, so
// they are served first and the next scan, from past them, meets the cause again. Whether the
// cause is to be reported now.
bool stop_scan_here(const ScanContext* ctx) { return ctx->ahead == nullptr || ctx->ahead->empty(); }

// Hyperscan's report of pattern `id` ending at `to`: confirms the line it ends in, or with
// chunked alternations, the chunk that holds the pattern on that line (unless tried already).
int on_hs_match(unsigned id, unsigned long long /*from*/, unsigned long long to, unsigned /*flags*/,
                void* raw) {
  auto* ctx = static_cast<ScanContext*>(raw);
  std::size_t end = ctx->base + static_cast<std::size_t>(to);
  std::size_t pos = end > ctx->base ? end - 1 : end;  // the match's last byte
  if (pos < ctx->rejected_until) return 0;
  if (pos >= ctx->hay.size()) pos = ctx->hay.size() - (ctx->hay.empty() ? 0 : 1);
  if (ctx->ahead != nullptr && !ctx->ahead->empty() && pos <= ctx->ahead->back().end) {
    if (pos >= ctx->ahead->back().start) return 0;  // the line is queued already
    ctx->out_of_order = true;  // both matchers report line by line: not expected
    return 1;
  }
  if (ctx->exact || (ctx->exact_ids != nullptr && (*ctx->exact_ids)[id] != 0)) {
    return report_line(ctx, line_around(ctx->hay, pos, ctx->base));
  }
  if (ctx->literals != nullptr) {
    std::size_t start = 0, stop = 0;
    if (!ctx->literals->occurrence(ctx->hay, end, id, start, stop)) return 0;
    if (ctx->literals->mode == LiteralMode::kWord) {
      // The candidate line is searched alone (as confirm_line does): nothing precedes it. Most
      // neighbours are ASCII: the line's start is looked for only past a non-ASCII byte.
      const std::string_view hay = ctx->hay;
      const unsigned char before = start > ctx->base ? static_cast<unsigned char>(hay[start - 1])
                                                     : static_cast<unsigned char>('\n');
      const bool start_ok =
          before == '\n' ||
          (before < 0x80
               ? !is_ascii_word_byte(before)
               : rust_word_start_half(hay, line_around(hay, start, ctx->base).start, start, false));
      // The end half looks at most at the character after, which a line feed cuts as the end of
      // the line would.
      if (!start_ok || !rust_word_end_half(hay, stop)) return 0;
    }
    const LineSpan line = line_around(ctx->hay, pos, ctx->base);
    if (ctx->literals->mode == LiteralMode::kWholeLine &&
        (start != line.start || stop != line.end)) {
      return 0;
    }
    return report_line(ctx, line);
  }
  Result<bool> ok = false;
  LineSpan line;
  if (ctx->marks == nullptr) {
    line = line_around(ctx->hay, pos, ctx->base);
    ok = confirm_line(*ctx->line_re, *ctx->ascii_re, ctx->hay, line, *ctx->m, ctx->probe_empty);
  } else {
    if (!ctx->line || pos > ctx->line->end) {  // a new candidate line
      ctx->line = line_around(ctx->hay, pos, ctx->base);
      const std::string_view text =
          ctx->hay.substr(ctx->line->start, ctx->line->end - ctx->line->start);
      ctx->line_alt =
          ctx->ascii_re->compiled() && ctx::is_ascii_text(text) ? ctx->ascii_re : ctx->line_re;
      if (++*ctx->mark == 0) {
        std::fill(ctx->marks->begin(), ctx->marks->end(), 0);
        *ctx->mark = 1;
      }
    }
    line = *ctx->line;
    const std::uint32_t chunk =
        ctx->line_alt->chunk_of(ctx->pattern_of->empty() ? id : (*ctx->pattern_of)[id]);
    if ((*ctx->marks)[chunk] == *ctx->mark) return 0;
    (*ctx->marks)[chunk] = *ctx->mark;
    const std::string_view text = ctx->hay.substr(line.start, line.end - line.start);
    ok = any_match(*ctx->line_alt, text, *ctx->m, std::span<const std::uint32_t>(&chunk, 1), true);
  }
  if (!ok.ok()) {
    if (stop_scan_here(ctx)) ctx->error = std::move(ok).error();
    return 1;
  }
  if (*ok) return report_line(ctx, line);
  if (ctx->marks == nullptr) {
    ctx->rejected_until = line.end + 1;
    ctx->useless_below = ctx->rejected_until - ctx->base;
  }
  // Many rejected candidates can take long when the confirming regex backtracks.
  InterruptState& interrupt = *ctx->interrupt;
  if (interrupt.stop != nullptr && (++interrupt.confirms & 15) == 0 && (*interrupt.stop)()) {
    ctx->interrupted = stop_scan_here(ctx);
    return 1;
  }
  return 0;
}

// The end of the PCRE2 scan window that starts at `from`: just after the line terminator `lt` that
// ends the line holding byte from + bytes - 1, or the end of `hay`. A line boundary.
std::size_t window_end(std::string_view hay, std::size_t from, std::size_t bytes, char lt = '\n') {
  const std::size_t at = from + bytes - 1;
  if (at >= hay.size()) return hay.size();
  const void* nl = std::memchr(hay.data() + at, lt, hay.size() - at);
  return nl == nullptr ? hay.size()
                       : static_cast<std::size_t>(static_cast<const char*>(nl) - hay.data()) + 1;
}

// The required-literal prefilter's report: the end of the first literal found (never 0, literals
// not being empty), and the scan stops.
int on_required_hit(unsigned /*id*/, unsigned long long /*from*/, unsigned long long to,
                    unsigned /*flags*/, void* end) {
  *static_cast<std::size_t*>(end) = static_cast<std::size_t>(to);
  return 1;
}

// The required-literal prefilter is dropped for the rest of a haystack once kRequiredLinesTried
// candidate lines have come on average closer than Impl::required_spacing bytes apart: each costs
// two scans started, which Hyperscan's own pass over such bytes costs less than.
constexpr std::size_t kRequiredLinesTried = 32;

}  // namespace

Result<std::optional<LineSpan>> PatternSet::find_line(std::string_view hay, std::size_t from,
                                                      Scratch& scratch, std::size_t until) const {
  Scratch::Impl& s = *scratch.impl_;
  if (from > hay.size()) return std::optional<LineSpan>{};
  if (impl_->buffer_search && until != std::string_view::npos) {
    // ripgrep's find_by_line_fast: its regex over buffer[from, until), the line of the first
    // match (none when it starts at `until`).
    const std::size_t end = std::min(until, hay.size());
    if (from >= end) return std::optional<LineSpan>{};
    if (s.interrupt.stop != nullptr && (*s.interrupt.stop)()) return interrupted_error();
    const std::string_view sub = hay.substr(from, end - from);
    CTX_TRY_ASSIGN(bool hit, search(impl_->scan_re, sub, 0, s.m));
    std::size_t at = hit ? pcre2_get_ovector_pointer(s.m.md)[0] : sub.size() + 1;
    if (impl_->empty_in_invalid_utf8) {
      CTX_TRY_ASSIGN(Probe probe, empty_match_in_invalid_utf8(impl_->scan_re, sub, 0, at, s.m));
      if (probe == Probe::kHit) at = pcre2_get_ovector_pointer(s.m.md)[0];
    }
    if (at > sub.size()) return std::optional<LineSpan>{};
    const LineSpan line = line_around(hay, from + at, from, impl_->options.line_terminator);
    if (line.start >= end) return std::optional<LineSpan>{};
    return std::optional<LineSpan>{line};
  }
  if (impl_->every_line) {
    if (from >= hay.size()) return std::optional<LineSpan>{};
    return std::optional<LineSpan>{line_around(hay, from, from, impl_->options.line_terminator)};
  }
  if (s.hay_data != hay.data() || s.hay_size != hay.size() || from == 0) {
    s.hay_data = hay.data();
    s.hay_size = hay.size();
    s.utf8_checked = false;
    s.bits_ok = impl_->bits.has_value();
    s.ahead_valid = false;
    s.ahead_want = 1;
    s.required_start = from;
    s.required_lines = 0;
    s.required_off = false;
  }
  // The next line of the queue a scan of this haystack filled (see `general` below; its scans
  // run only where Hyperscan or the hashed literals do, and queue only then).
  LineSpan queued;
  switch (s.queued_line(from, queued)) {
    case Scratch::Impl::Queued::kLine:
      return std::optional<LineSpan>{queued};
    case Scratch::Impl::Queued::kNone:
      return std::optional<LineSpan>{};
    case Scratch::Impl::Queued::kScan:
      break;
  }
  // ripgrep's fast line search (`until` given) finds the empty match in a CRLF (Impl::crlf_gap).
  const bool crlf_gap = impl_->crlf_gap && until != std::string_view::npos;
  // Hyperscan (PCRE2 confirming) or PCRE2 alone, over `view` (a prefix of `hay` that ends at a
  // line end) from `start`.
  auto general = [&](std::string_view view, std::size_t start) -> Result<std::optional<LineSpan>> {
    if (impl_->hs_utf8 && !s.utf8_checked) {
      s.hs_ok = ctx::is_valid_utf8(hay);  // Hyperscan's UTF-8 mode is undefined on invalid input
      s.utf8_checked = true;
    }
    if (impl_->scans() && (!impl_->hs_utf8 || s.hs_ok)) {
      ScanContext ctx{&impl_->line_re,
                      &impl_->ascii_re,
                      impl_->exact,
                      impl_->hs_exact_ids.empty() ? nullptr : &impl_->hs_exact_ids,
                      view,
                      start,
                      start,
                      std::nullopt,
                      std::nullopt,
                      &s.m,
                      &s.interrupt,
                      impl_->empty_in_invalid_utf8};
      if (!impl_->exact && (impl_->line_re.chunked() || impl_->ascii_re.chunked())) {
        ctx.marks = &s.marks;
        ctx.mark = &s.mark;
      }
      if (impl_->literals.mode == LiteralMode::kWholeLine ||
          impl_->literals.mode == LiteralMode::kWord || impl_->literals.cut) {
        ctx.literals = &impl_->literals;
      }
      ctx.pattern_of = &impl_->hs_pattern_of;
      s.ahead.clear();
      s.ahead_from = start;
      ctx.ahead = &s.ahead;
      ctx.ahead_want = s.ahead_want;
      s.ahead_want = std::min<std::uint32_t>(s.ahead_want * 2, kMaxLookAhead);
      std::string_view rest = view.substr(start);
      // Whether the scan ran to the end (no callback stopped it).
      const bool to_end =
          impl_->scan(rest, on_hs_match, &ctx, s.hs, &ctx.useless_below) == HS_SUCCESS;
      s.ahead_valid = false;
      if (ctx.error) return std::move(*ctx.error);
      if (ctx.interrupted) return interrupted_error();
      s.ahead_valid = !ctx.out_of_order;
      s.ahead_to_end = to_end;
      if (ctx.out_of_order) {
        return std::optional<LineSpan>{*std::min_element(
            s.ahead.begin(), s.ahead.end(),
            [](const LineSpan& a, const LineSpan& b) { return a.start < b.start; })};
      }
      if (s.ahead.empty()) return std::optional<LineSpan>{};
      s.ahead_next = 1;
      return std::optional<LineSpan>{s.ahead.front()};
    }
    if (impl_->options.line_terminator != '\n' && !impl_->nul_scan) {
      // --null-data: each line alone, as ripgrep's line-by-line search (PCRE2 on the buffer would
      // see `^` and `$` at line feeds only, not at the NULs that end lines).
      std::uint32_t lines = 0;
      for (std::size_t cur = start; cur < view.size(); ++lines) {
        if (s.interrupt.stop != nullptr && (lines & 63) == 0 && (*s.interrupt.stop)()) {
          return interrupted_error();
        }
        const LineSpan line = line_around(view, cur, cur, impl_->options.line_terminator);
        CTX_TRY_ASSIGN(bool confirmed, confirm_line(impl_->line_re, impl_->ascii_re, view, line,
                                                    s.m, impl_->empty_in_invalid_utf8));
        if (confirmed) return std::optional<LineSpan>{line};
        cur = line.end + 1;
      }
      return std::optional<LineSpan>{};
    }
    if (impl_->crlf_lines == CrlfLines::kPcre2 || impl_->line_by_line) {
      // Line by line: a scan of the buffer can miss a line whose subject keeps its LF (see
      // CrlfLines::kPcre2), as `\s+$` misses `a` in "a\nb\n", or (line_by_line) where \A or \z
      // match.
      for (std::size_t cur = start; cur < view.size();) {
        if (s.interrupt.stop != nullptr && (*s.interrupt.stop)()) return interrupted_error();
        const LineSpan line = line_around(view, cur, cur);
        CTX_TRY_ASSIGN(bool confirmed,
                       confirm_line(impl_->line_re, impl_->ascii_re, view, line, s.m,
                                    impl_->empty_in_invalid_utf8, impl_->crlf_lines, crlf_gap));
        if (confirmed) return std::optional<LineSpan>{line};
        cur = line.end + 1;
      }
      return std::optional<LineSpan>{};
    }
    std::size_t cur = start;
    while (cur <= view.size()) {
      // Without an interrupt, one PCRE2 call scans the rest of the buffer; with one, a window at a
      // time (windows end at line boundaries, and matches are confirmed per line anyway).
      std::size_t limit = view.size();
      std::chrono::steady_clock::time_point window_start;
      InterruptState& interrupt = s.interrupt;
      if (interrupt.stop != nullptr) {
        if ((*interrupt.stop)()) return interrupted_error();
        limit = window_end(view, cur, interrupt.window_bytes, impl_->options.line_terminator);
        window_start = std::chrono::steady_clock::now();
      }
      CTX_TRY_ASSIGN(bool hit, search(impl_->scan_re, view.substr(0, limit), cur, s.m));
      if (interrupt.stop != nullptr) {
        const auto took = std::chrono::steady_clock::now() - window_start;
        if (took < kWindowTarget / 4 && interrupt.window_bytes < kMaxWindowBytes) {
          interrupt.window_bytes *= 2;
        } else if (took > kWindowTarget * 2 && interrupt.window_bytes > 1) {
          interrupt.window_bytes /= 2;
        }
      }
      if (impl_->empty_in_invalid_utf8) {  // an empty match PCRE2 skipped comes first
        const std::string_view window = view.substr(0, limit);
        const std::size_t found = hit ? pcre2_get_ovector_pointer(s.m.md)[0] : window.size() + 1;
        CTX_TRY_ASSIGN(Probe probe,
                       empty_match_in_invalid_utf8(impl_->scan_re, window, cur, found, s.m));
        if (probe == Probe::kHit) {
          hit = true;
        } else if (probe == Probe::kMissed && hit) {
          CTX_TRY_ASSIGN(hit, search(impl_->scan_re, window, cur, s.m));
        }
      }
      if (!hit && limit == view.size()) return std::optional<LineSpan>{};
      std::size_t at = hit ? pcre2_get_ovector_pointer(s.m.md)[0] : limit;
      if (at >= limit && limit < view.size()) {  // nothing in this window
        cur = limit;
        continue;
      }
      LineSpan line =
          line_around(view, std::min(at, view.size()), cur, impl_->options.line_terminator);
      CTX_TRY_ASSIGN(bool confirmed,
                     confirm_line(impl_->line_re, impl_->ascii_re, view, line, s.m,
                                  impl_->empty_in_invalid_utf8, impl_->crlf_lines, crlf_gap));
      if (confirmed) return std::optional<LineSpan>{line};
      cur = line.end + 1;
    }
    return std::optional<LineSpan>{};
  };
  while (s.bits_ok) {
    using Found = detail::BitMatcher::Found;
    const Found found = impl_->bits->find_line(hay, from);
    if (found.kind == Found::kLine)
      return std::optional<LineSpan>{LineSpan{found.start, found.end}};
    if (found.kind == Found::kNone) return std::optional<LineSpan>{};
    // A line that is not ASCII: the BitMatcher's superset for it, then PCRE2 confirms.
    InterruptState& interrupt = s.interrupt;
    if (interrupt.stop != nullptr && (++interrupt.confirms & 15) == 0 && (*interrupt.stop)()) {
      return interrupted_error();
    }
    const std::string_view line = hay.substr(found.start, found.end - found.start);
    if (impl_->bits->line_may_match(line)) {
      CTX_TRY_ASSIGN(bool hit, confirm_line(impl_->line_re, impl_->ascii_re, hay,
                                            LineSpan{found.start, found.end}, s.m,
                                            impl_->empty_in_invalid_utf8));
      if (hit) return std::optional<LineSpan>{LineSpan{found.start, found.end}};
    }
    if (found.end >= hay.size()) return std::optional<LineSpan>{};
    from = found.end + 1;
  }
  // The required-literal prefilter: the next line that holds a required literal, searched alone
  // (as every line is), while such lines come sparsely.
  while (impl_->requires_literals() && !s.required_off) {
    if (from >= hay.size()) return std::optional<LineSpan>{};  // no match is empty
    InterruptState& interrupt = s.interrupt;
    if (interrupt.stop != nullptr && (s.required_lines & 15) == 15 && (*interrupt.stop)()) {
      return interrupted_error();
    }
    const std::string_view rest = hay.substr(from);
    std::size_t to = 0;  // the end of the first literal found, relative to `from`; 0: none
    impl_->scan_required(rest, on_required_hit, &to, s.hs);
    if (to == 0) return std::optional<LineSpan>{};
    const LineSpan line = line_around(hay, from + to - 1, from);
    const std::size_t next = std::min(line.end + 1, hay.size());
    ++s.required_lines;
    CTX_TRY_ASSIGN(std::optional<LineSpan> found, general(hay.substr(0, next), line.start));
    s.ahead_valid = false;  // what it queued ends at that line
    // (Decided whether the line matched or not: lines that all match came one per call, and a
    // prefilter that only a rejected line could drop stayed on through every line of a log.)
    s.required_off = impl_->options.required_literals == RequiredLiterals::kAuto &&
                     s.required_lines >= kRequiredLinesTried &&
                     next - s.required_start < s.required_lines * impl_->required_spacing;
    if (found) return found;
    from = next;
  }
  return general(hay, from);
}

namespace {

bool is_name_byte(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// True when the group name of a replacement ($0, ${00}) is the whole match.
bool is_group_zero(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c == '0'; });
}

// Appends `replacement` to `out` with $N, ${N}, $name and ${name} expanded by
// append_group(name) and $$ as '$', as ripgrep's -r.
template <typename AppendGroup>
void expand(std::string& out, std::string_view replacement, AppendGroup&& append_group) {
  for (std::size_t i = 0; i < replacement.size(); ++i) {
    char c = replacement[i];
    if (c != '$' || i + 1 >= replacement.size()) {
      out.push_back(c);
      continue;
    }
    char next = replacement[i + 1];
    if (next == '$') {
      out.push_back('$');
      ++i;
    } else if (next == '{') {
      // ${name}: a non-empty run of name bytes right before the '}'; anything else (`${}`,
      // `${a b}`, no '}') leaves the '$' literal, as grep-matcher's interpolate.
      std::size_t close = i + 2;
      while (close < replacement.size() && is_name_byte(replacement[close])) ++close;
      if (close == i + 2 || close >= replacement.size() || replacement[close] != '}') {
        out.push_back(c);
        continue;
      }
      append_group(replacement.substr(i + 2, close - i - 2));
      i = close;
    } else if (is_name_byte(next)) {
      std::size_t end = i + 1;
      while (end < replacement.size() && is_name_byte(replacement[end])) ++end;
      append_group(replacement.substr(i + 1, end - i - 1));
      i = end - 1;
    } else {
      out.push_back(c);
    }
  }
}

// Appends capture group `name` (digits: a number, counted over all patterns) of the match in
// m.md, found by chunk m.chunk of `alt`, if it took part.
void append_group(std::string& out, const Alternation& alt, const MatchState& m,
                  std::string_view subject, std::string_view name);

// Collects the chunks of `alt` that hold the patterns Hyperscan reports (each once, in `out`).
struct ChunkCollector {
  const Alternation* alt;
  const std::vector<std::uint32_t>* pattern_of;  // Impl::hs_pattern_of
  std::vector<std::uint32_t>* marks;
  std::uint32_t mark;
  std::vector<std::uint32_t>* out;
};

int on_chunk_hs_match(unsigned id, unsigned long long /*from*/, unsigned long long /*to*/,
                      unsigned /*flags*/, void* raw) {
  auto* c = static_cast<ChunkCollector*>(raw);
  const std::uint32_t chunk = c->alt->chunk_of(c->pattern_of->empty() ? id : (*c->pattern_of)[id]);
  if ((*c->marks)[chunk] != c->mark) {
    (*c->marks)[chunk] = c->mark;
    c->out->push_back(chunk);
  }
  return c->out->size() == c->alt->chunks.size() ? 1 : 0;  // all of them: nothing more to learn
}

}  // namespace

// Calls on_match(match_state) for each match of the Alternation `alternation` in `subject` that
// starts in [start, end), left to right, as Rust regex iterates: an empty match moves on by one
// byte, and none is reported where a match just ended. While s.restrict_chunks, only the chunks
// in s.chunks are searched.
template <typename OnMatch>
Status PatternSet::each_match_in(const void* alternation, std::string_view subject,
                                 std::size_t start, std::size_t end, Scratch& scratch,
                                 OnMatch&& on_match) const {
  Scratch::Impl& s = *scratch.impl_;
  const auto& alt = *static_cast<const Alternation*>(alternation);
  const std::span<const std::uint32_t> only(s.chunks);
  std::size_t offset = start;
  std::size_t last_end = std::string_view::npos;  // end of the last non-empty match
  while (offset <= subject.size() && offset < end) {
    CTX_TRY_ASSIGN(bool hit,
                   search(alt, subject, offset, s.m, PCRE2_UNSET, only, s.restrict_chunks));
    if (impl_->empty_in_invalid_utf8) {
      const std::size_t found = hit ? pcre2_get_ovector_pointer(s.m.md)[0] : subject.size() + 1;
      CTX_TRY_ASSIGN(Probe probe, empty_match_in_invalid_utf8(alt, subject, offset, found, s.m));
      if (probe == Probe::kHit) {
        hit = true;
      } else if (probe == Probe::kMissed && hit) {
        CTX_TRY_ASSIGN(hit, search(alt, subject, offset, s.m));
      }
    }
    if (!hit) break;
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(s.m.md);
    if (ov[0] >= end) break;
    if (ov[0] == ov[1] && ov[0] == last_end) {
      offset = ov[0] + 1;
      continue;
    }
    if (ov[1] > ov[0]) last_end = ov[1];
    on_match(s.m);
    offset = ov[1] > ov[0] ? ov[1] : ov[1] + 1;
  }
  return {};
}

namespace {

struct LiteralCollector {
  const LiteralTable* table;
  std::string_view line;
  std::vector<std::pair<std::size_t, std::uint32_t>>* hits;
};

int on_literal_hs_match(unsigned id, unsigned long long /*from*/, unsigned long long to,
                        unsigned /*flags*/, void* raw) {
  auto* c = static_cast<LiteralCollector*>(raw);
  std::size_t start = 0, end = 0;
  if (c->table->occurrence(c->line, static_cast<std::size_t>(to), id, start, end)) {
    c->hits->emplace_back(start, c->table->piece_pattern[id]);
  }
  return 0;
}

}  // namespace

// Calls on_match(span, match state, alternation) for each match in `line`, left to right; the
// match state and its Alternation are null for a literal that Hyperscan found (LiteralMode).
template <typename OnMatch>
Status PatternSet::each_match(std::string_view line, bool after_line_break, Scratch& scratch,
                              OnMatch&& on_match) const {
  Scratch::Impl& s = *scratch.impl_;
  if (impl_->literals.mode != LiteralMode::kNone) {
    // Every occurrence of every literal, by start and then pattern order: the leftmost-first
    // match is the first that starts at or after where the last one ended.
    s.literal_hits.clear();
    LiteralCollector collector{&impl_->literals, line, &s.literal_hits};
    const hs_error_t rc = impl_->scan(line, on_literal_hs_match, &collector, s.hs);
    if (rc != HS_SUCCESS) {
      return Error{ErrorCode::kIo, fmt::format("Hyperscan failed to scan a line (error {})", rc)};
    }
    std::sort(s.literal_hits.begin(), s.literal_hits.end());
    std::size_t at = 0;
    for (const auto& [start, id] : s.literal_hits) {
      std::size_t end = start + impl_->literals.literals[id].size();
      if (impl_->literals.cut) {  // the occurrence's own length (U+212A is 3 bytes, k is 1)
        std::size_t pos = start;
        for (char c : impl_->literals.literals[id]) {
          literal_char_at(line, pos, c, impl_->literals.caseless);
        }
        end = pos;
      }
      if (impl_->literals.mode == LiteralMode::kWholeLine) {
        if (start != 0 || end != line.size()) continue;
        on_match(MatchSpan{start, end}, nullptr, nullptr);
        break;
      }
      if (start < at) continue;
      // -w: the first occurrence in pattern order at the leftmost start whose boundaries hold
      // (Rust's look-arounds see the whole line, also before the last match's end).
      if (impl_->literals.mode == LiteralMode::kWord &&
          (!rust_word_start_half(line, 0, start, after_line_break) ||
           !rust_word_end_half(line, end))) {
        continue;
      }
      on_match(MatchSpan{start, end}, nullptr, nullptr);
      at = end;
    }
    return {};
  }
  const Alternation& alt =
      impl_->ascii_re.compiled() && ctx::is_ascii_text(line) ? impl_->ascii_re : impl_->line_re;
  if (alt.chunked() && impl_->hs != nullptr && s.hs != nullptr &&
      (!impl_->hs_utf8 || ctx::is_valid_utf8(line))) {
    // Hyperscan reports every pattern that may match in the line (a superset of each): only
    // their chunks are searched.
    s.clear_marks();
    s.chunks.clear();
    ChunkCollector collector{&alt, &impl_->hs_pattern_of, &s.marks, s.mark, &s.chunks};
    const hs_error_t rc = hs_scan(impl_->hs.get(), line.data(), static_cast<unsigned>(line.size()),
                                  0, s.hs, on_chunk_hs_match, &collector);
    if (rc == HS_SUCCESS || rc == HS_SCAN_TERMINATED) {
      if (s.chunks.empty()) return {};
      std::sort(s.chunks.begin(), s.chunks.end());
      s.restrict_chunks = true;
    }
  }
  s.after_line_break = after_line_break;
  // --null-data: a line after a NUL is no line start for `^` (ripgrep's printer searches it in its
  // buffer, where `^` matches after a line feed only).
  if (after_line_break && impl_->options.line_terminator != '\n') s.m.options = PCRE2_NOTBOL;
  Status status;
  if ((impl_->crlf_lines == CrlfLines::kPieces ||
       impl_->crlf_lines == CrlfLines::kPiecesUnmultiline) &&
      line.find('\r') != std::string_view::npos) {
    // Matches in each CR-free piece, at their offsets in the line (a CR before a piece reads as
    // a line break to rust_word_callout).
    // The CLI gives terminated lines without their CR (the printer's subject, as rg's).
    for_each_piece(line, [&](std::size_t offset, std::string_view piece) {
      if (offset > 0) s.after_line_break = true;
      s.m.options = piece_options(impl_->crlf_lines, offset, piece.size(), line.size());
      status = each_match_in(&alt, piece, 0, piece.size() + 1, scratch, [&](const MatchState& m) {
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(m.md);
        on_match(MatchSpan{offset + ov[0], offset + ov[1]}, &m, &alt);
      });
      return !status.ok();
    });
  } else {
    status = each_match_in(&alt, line, 0, line.size() + 1, scratch, [&](const MatchState& m) {
      const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(m.md);
      on_match(MatchSpan{ov[0], ov[1]}, &m, &alt);
    });
  }
  s.after_line_break = false;
  s.m.options = 0;
  s.restrict_chunks = false;
  return status;
}

namespace {

int on_any_hs_match(unsigned, unsigned long long, unsigned long long, unsigned, void* found) {
  *static_cast<bool*>(found) = true;
  return 1;  // one is enough
}

// Collects the starts of the leading literals' occurrences (PatternSet::Impl::ml_leading_hs) in a
// window of the haystack: those before `limit` (in the scanned bytes) at `base` + start.
struct LeadingCollector {
  const std::vector<std::uint32_t>* lengths;
  std::size_t base;
  std::size_t limit;
  std::vector<std::size_t>* starts;
};

int on_leading_match(unsigned id, unsigned long long /*from*/, unsigned long long to,
                     unsigned /*flags*/, void* raw) {
  auto* c = static_cast<LeadingCollector*>(raw);
  const std::size_t start = static_cast<std::size_t>(to) - (*c->lengths)[id];
  if (start < c->limit) c->starts->push_back(c->base + start);
  return 0;
}

}  // namespace

Result<std::optional<MatchSpan>> PatternSet::find_multiline(std::string_view hay, std::size_t from,
                                                            Scratch& scratch) const {
  Scratch::Impl& s = *scratch.impl_;
  if (from > hay.size() || !impl_->ml_re.compiled()) return std::optional<MatchSpan>{};
  std::string_view rest = hay.substr(from);
  if (impl_->ml_leading()) {
    // The leading literals' occurrences, a window of the haystack at a time, left to right:
    // PCRE2 tries a match starting at each only (the offset limit), as its own scan would have.
    constexpr std::size_t kWindow = std::size_t{1} << 20;
    if (from == 0 || s.ml_data != hay.data() || s.ml_size != hay.size() ||
        from < s.ml_window_from) {
      s.ml_data = hay.data();
      s.ml_size = hay.size();
      s.ml_window_from = s.ml_window_to = from;
      s.ml_leading_starts.clear();
    }
    const std::size_t longest =
        *std::max_element(impl_->ml_leading_lengths.begin(), impl_->ml_leading_lengths.end());
    while (true) {
      for (auto it = std::lower_bound(s.ml_leading_starts.begin(), s.ml_leading_starts.end(), from);
           it != s.ml_leading_starts.end(); ++it) {
        const std::size_t at = *it - from;
        CTX_TRY_ASSIGN(bool hit, search(impl_->ml_re, rest, at, s.m, at));
        if (hit) {
          const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(s.m.md);
          return std::optional<MatchSpan>{MatchSpan{from + ov[0], from + std::max(ov[0], ov[1])}};
        }
      }
      if (s.ml_window_to >= hay.size()) return std::optional<MatchSpan>{};
      const std::size_t window_from = std::max(s.ml_window_to, from);
      const std::size_t window_to = std::min(hay.size(), window_from + kWindow);
      const std::size_t scan_to = std::min(hay.size(), window_to + longest - 1);
      s.ml_leading_starts.clear();
      LeadingCollector collector{&impl_->ml_leading_lengths, window_from, window_to - window_from,
                                 &s.ml_leading_starts};
      const hs_error_t rc = scan_candidates(
          impl_->ml_leading_hs.get(), nullptr,
          impl_->ml_leading_pair ? &*impl_->ml_leading_pair : nullptr,
          hay.substr(window_from, scan_to - window_from), on_leading_match, &collector, s.hs);
      if (rc != HS_SUCCESS) {
        return Error{ErrorCode::kIo,
                     fmt::format("Hyperscan failed to scan a buffer (error {})", rc)};
      }
      std::sort(s.ml_leading_starts.begin(), s.ml_leading_starts.end());
      s.ml_leading_starts.erase(std::unique(s.ml_leading_starts.begin(), s.ml_leading_starts.end()),
                                s.ml_leading_starts.end());
      s.ml_window_from = window_from;
      s.ml_window_to = window_to;
    }
  }
  if (impl_->ml_bits) {
    if (from == 0 || s.ml_data != hay.data() || s.ml_size != hay.size()) {
      impl_->ml_bits->match_starts(hay, s.reversed, s.ml_starts);
      s.ml_data = hay.data();
      s.ml_size = hay.size();
    }
    // Each position where a match may start, left to right (bit j of ml_starts is hay.size()-j):
    // PCRE2 tries a match starting there only (the offset limit), as its own scan would have.
    const std::size_t n = hay.size();
    std::size_t j = n - from;  // the highest bit to look at
    while (true) {
      std::size_t word = j / 64;
      std::uint64_t bits = s.ml_starts[word] &
                           (j % 64 == 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << (j % 64)) - 1);
      while (bits == 0 && word > 0) bits = s.ml_starts[--word];
      if (bits == 0) return std::optional<MatchSpan>{};
      j = word * 64 + static_cast<std::size_t>(63 - __builtin_clzll(bits));
      const std::size_t at = n - j - from;  // offset in `rest`
      CTX_TRY_ASSIGN(bool hit, search(impl_->ml_re, rest, at, s.m, at));
      if (hit) {
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(s.m.md);
        return std::optional<MatchSpan>{MatchSpan{from + ov[0], from + std::max(ov[0], ov[1])}};
      }
      if (j == 0) return std::optional<MatchSpan>{};
      --j;
    }
  }
  if (from == 0 && impl_->ml_hs != nullptr && s.hs != nullptr &&
      (!impl_->ml_hs_utf8 || ctx::is_valid_utf8(hay))) {
    bool found = false;
    hs_scan(impl_->ml_hs.get(), hay.data(), static_cast<unsigned>(hay.size()), 0, s.hs,
            on_any_hs_match, &found);
    if (!found) return std::optional<MatchSpan>{};
  }
  // As ripgrep, the rest of the buffer is searched as a haystack of its own.
  CTX_TRY_ASSIGN(bool hit, search(impl_->ml_re, rest, 0, s.m));
  if (impl_->empty_in_invalid_utf8) {
    const std::size_t found = hit ? pcre2_get_ovector_pointer(s.m.md)[0] : rest.size() + 1;
    CTX_TRY_ASSIGN(Probe probe, empty_match_in_invalid_utf8(impl_->ml_re, rest, 0, found, s.m));
    if (probe == Probe::kHit) {
      hit = true;
    } else if (probe == Probe::kMissed && hit) {
      CTX_TRY_ASSIGN(hit, search(impl_->ml_re, rest, 0, s.m));
    }
  }
  if (!hit) return std::optional<MatchSpan>{};
  const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(s.m.md);
  return std::optional<MatchSpan>{MatchSpan{from + ov[0], from + std::max(ov[0], ov[1])}};
}

Status PatternSet::find_spans_in(std::string_view hay, std::size_t start, std::size_t end,
                                 Scratch& scratch, std::vector<MatchSpan>& out,
                                 const std::string* replacement,
                                 std::vector<std::string>* expansions) const {
  constexpr std::size_t kLookAhead = 128;  // ripgrep's MAX_LOOK_AHEAD
  const Alternation& alt = impl_->ml_re.compiled() ? impl_->ml_re : impl_->scan_re;
  std::string_view subject = hay.substr(0, std::min(hay.size(), end + kLookAhead));
  return each_match_in(&alt, subject, start, end, scratch, [&](const MatchState& m) {
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(m.md);
    out.push_back(MatchSpan{ov[0] - start, std::max(ov[0], ov[1]) - start});
    if (replacement != nullptr && expansions != nullptr) {
      expansions->emplace_back();
      std::string& expansion = expansions->back();
      expand(expansion, *replacement,
             [&](std::string_view name) { append_group(expansion, alt, m, subject, name); });
    }
  });
}

Status PatternSet::find_spans(std::string_view line, Scratch& scratch, std::vector<MatchSpan>& out,
                              bool after_line_break) const {
  return each_match(
      line, after_line_break, scratch,
      [&](MatchSpan span, const MatchState*, const Alternation*) { out.push_back(span); });
}

namespace {

// Appends capture group `name` (digits: a number, counted over all patterns) of the match in
// m.md, found by chunk m.chunk of `alt`, if it took part.
void append_group(std::string& out, const Alternation& alt, const MatchState& m,
                  std::string_view subject, std::string_view name) {
  const Alternation::Chunk& chunk = alt.chunks[m.chunk];
  int number = -1;
  if (!name.empty() &&
      std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    number = name.size() > 6 ? -1 : std::stoi(std::string(name));
    if (number > 0) {  // the chunk's own number, if the group is the chunk's
      const auto global = static_cast<std::uint32_t>(number);
      const bool in_chunk =
          global > chunk.group_offset && global - chunk.group_offset <= chunk.groups;
      number = in_chunk ? static_cast<int>(global - chunk.group_offset) : -1;
    }
  } else if (!name.empty()) {  // a name another chunk holds did not take part
    std::string key(name);
    number = pcre2_substring_number_from_name(chunk.code.get(),
                                              reinterpret_cast<PCRE2_SPTR>(key.c_str()));
  }
  // A group the pattern lacks expands to nothing (the match data may hold more pairs than the
  // chunk has groups: it is sized for the largest, and those pairs are stale).
  if (number < 0 || static_cast<std::uint32_t>(number) > chunk.groups ||
      static_cast<std::uint32_t>(number) >= pcre2_get_ovector_count(m.md)) {
    return;
  }
  const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(m.md);
  const auto group = static_cast<std::size_t>(number);
  PCRE2_SIZE start = ov[2 * group], end = ov[2 * group + 1];
  if (start == PCRE2_UNSET || end < start) return;
  out.append(subject.substr(start, end - start));
}

}  // namespace

Status PatternSet::expand_matches(std::string_view line, std::string_view replacement,
                                  Scratch& scratch, std::vector<MatchSpan>& spans,
                                  std::vector<std::string>& expansions,
                                  bool after_line_break) const {
  return each_match(line, after_line_break, scratch,
                    [&](MatchSpan span, const MatchState* m, const Alternation* alt) {
                      spans.push_back(span);
                      expansions.emplace_back();
                      std::string& out = expansions.back();
                      if (m != nullptr) {
                        expand(out, replacement, [&](std::string_view name) {
                          // The subject the match was found in: the line, or (--crlf) the piece
                          // of it that starts span.start - ovector[0] bytes in.
                          const std::size_t base = span.start - pcre2_get_ovector_pointer(m->md)[0];
                          append_group(out, *alt, *m, line.substr(base), name);
                        });
                      } else {  // a literal: group 0 only
                        expand(out, replacement, [&](std::string_view name) {
                          if (is_group_zero(name)) {
                            out.append(line.substr(span.start, span.end - span.start));
                          }
                        });
                      }
                    });
}

}  // namespace ctx::engine

namespace ctx::engine {

namespace {

// One extended grapheme cluster, as ripgrep's bstr finds it (its regex from UAX #29's Table 1c,
// over Unicode 15 properties). PCRE2 10.42's \X joins any run of Extended_Pictographic
// characters (no ZWJ needed) and never pairs regional indicators.
constexpr std::string_view kGraphemeCluster =
    "\\p{gcb=CR}\\p{gcb=LF}"
    "|\\p{gcb=Control}"
    "|\\p{gcb=Prepend}*"
    "("
    "(\\p{gcb=L}*(\\p{gcb=V}+|\\p{gcb=LV}\\p{gcb=V}*|\\p{gcb=LVT})\\p{gcb=T}*|\\p{gcb=L}+|\\p{gcb="
    "T}+)"
    "|\\p{gcb=RI}\\p{gcb=RI}"
    "|\\p{Extended_Pictographic}(\\p{gcb=Extend}*\\p{gcb=ZWJ}\\p{Extended_Pictographic})*"
    "|[^\\p{gcb=Control}\\p{gcb=CR}\\p{gcb=LF}]"
    ")"
    "[\\p{gcb=Extend}\\p{gcb=ZWJ}\\p{gcb=SpacingMark}]*"
    "|\\p{any}";

// kGraphemeCluster compiled, anchored; nullptr if that failed (then every character is one).
const pcre2_code* grapheme_cluster_code() {
  static const pcre2_code* code = [] {
    auto regex = detail::rust_to_pcre2(kGraphemeCluster, false, true, detail::WordMode::kRust);
    if (!regex.ok()) return static_cast<pcre2_code*>(nullptr);
    int error = 0;
    PCRE2_SIZE offset = 0;
    std::uint32_t shared = 0;
    pcre2_code* c = compile_fitting(*regex, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_ANCHORED,
                                    error, offset, shared);
    if (c != nullptr) pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);
    return c;
  }();
  return code;
}

}  // namespace

std::size_t grapheme_prefix(std::string_view text, std::size_t count) {
  const pcre2_code* cluster = grapheme_cluster_code();
  std::size_t at = 0;
  pcre2_match_data* md =
      cluster != nullptr ? pcre2_match_data_create_from_pattern(cluster, nullptr) : nullptr;
  for (std::size_t n = 0; n < count && at < text.size(); ++n) {
    int rc = md == nullptr ? -1
                           : pcre2_match(cluster, reinterpret_cast<PCRE2_SPTR>(text.data()),
                                         text.size(), at, 0, md, nullptr);
    std::size_t next = at + 1;
    if (rc >= 0) {
      next = std::max(next, pcre2_get_ovector_pointer(md)[1]);
    } else {
      // Invalid UTF-8: the longest prefix of a valid sequence counts as one character (the
      // "maximal subpart" that becomes one U+FFFD), as ripgrep's bstr does.
      const auto c = static_cast<unsigned char>(text[at]);
      const std::size_t len = c >= 0xF0 ? (c <= 0xF4 ? 4 : 1) : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 1;
      for (std::size_t k = 1; k < len && at + k < text.size(); ++k) {
        const auto b = static_cast<unsigned char>(text[at + k]);
        unsigned char lo = 0x80, hi = 0xBF;
        if (k == 1) {
          if (c == 0xE0) lo = 0xA0;
          if (c == 0xED) hi = 0x9F;
          if (c == 0xF0) lo = 0x90;
          if (c == 0xF4) hi = 0x8F;
        }
        if (b < lo || b > hi) break;
        next = at + k + 1;
      }
    }
    at = next;
  }
  if (md != nullptr) pcre2_match_data_free(md);
  return at;
}

}  // namespace ctx::engine
