// read_file: numbered lines ("    12\tcode", as cat -n) of one text file, windowed by offset,
// limit and the token budget. The file is read with pread in chunks from its start only up to
// the window's end (then on to count its lines when it is at most kExactCountBytes), so a huge
// log costs what its window costs.
#include <fmt/format.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>

#include "append_cursor.hpp"
#include "content_cache.hpp"
#include "ctx/base/json.hpp"
#include "ctx/engine/searcher.hpp"
#include "cursor.hpp"
#include "file_reading.hpp"
#include "json_writer.hpp"
#include "session.hpp"
#include "tool_common.hpp"
#include "tool_impls.hpp"

namespace ctx::agent {

namespace {

// Files up to this size get an exact line count; larger ones are counted only up to the window.
constexpr std::uint64_t kExactCountBytes = 64ULL << 20;
constexpr std::string_view kReasonLimit = "limit";

const std::vector<ParamSpec>& params_table() {
  static const std::vector<ParamSpec> params = {
      {"path",
       ParamType::kString,
       "file to read, relative to the project root",
       true,
       {"file_path", "filepath", "file", "filename", "file_name"}},
      {"offset",
       ParamType::kInteger,
       "first line to show (1-based; default 1)",
       false,
       {"start_line", "line", "start", "from_line", "line_start"},
       {},
       1},
      {"limit",
       ParamType::kInteger,
       "most lines to show (default: as many as fit max_tokens)",
       false,
       {"lines", "max_lines", "count", "num_lines", "line_count"},
       {},
       1},
      max_tokens_param(),
  };
  return params;
}

// What a footer adds when shown lines hold U+FFFD for bytes that are not text.
constexpr std::string_view kLossyNote = "; \xEF\xBF\xBD marks invalid UTF-8 or NUL bytes";

// A window line's text as shown: lossy UTF-8, NUL bytes as U+FFFD. The usual line (valid UTF-8
// without NUL bytes) is `bytes` itself; any other is converted into `scratch`, which the result
// then views.
std::string_view shown_text(std::string_view bytes, std::string& scratch, bool& lossy) {
  if (bytes.find('\0') == std::string_view::npos && is_valid_utf8(bytes)) return bytes;
  std::string text = lossy_utf8(bytes);
  lossy = lossy || text.size() != bytes.size() || text != bytes;
  scratch.clear();
  for (char c : text) {
    if (c == '\0') {
      scratch.append("\xEF\xBF\xBD");
      lossy = true;
    } else {
      scratch.push_back(c);
    }
  }
  return scratch;
}

// The line breaks of a chunk, found in order 64 bytes at a time (one bit per byte), so that the
// next line's end costs a bit scan rather than a memchr call per line.
class NewlineScanner {
 public:
  explicit NewlineScanner(std::string_view text) : text_(text) {}

  // The offset of the first '\n' at or after `from`, or npos.
  std::size_t find(std::size_t from) {
    if (from >= text_.size()) return std::string_view::npos;
    std::size_t block = from & ~std::size_t{63};
    if (block != block_) load(block);
    std::uint64_t bits = mask_ & (~std::uint64_t{0} << (from & 63));
    while (bits == 0) {
      block += 64;
      if (block >= text_.size()) return std::string_view::npos;
      load(block);
      bits = mask_;
    }
    return block + static_cast<std::size_t>(__builtin_ctzll(bits));
  }

 private:
  void load(std::size_t block) {
    block_ = block;
    const char* p = text_.data() + block;
    std::uint64_t mask = 0;
    if (block + 64 <= text_.size()) {
#if defined(__SSE2__)
      const __m128i newline = _mm_set1_epi8('\n');
      for (unsigned k = 0; k < 4; ++k) {
        const __m128i v =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + std::size_t{16} * k));
        const auto bits = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, newline)));
        mask |= std::uint64_t{bits} << (16 * k);
      }
      mask_ = mask;
      return;
#endif
    }
    const std::size_t n = std::min<std::size_t>(64, text_.size() - block);
    for (std::size_t i = 0; i < n; ++i) {
      if (p[i] == '\n') mask |= std::uint64_t{1} << i;
    }
    mask_ = mask;
  }

  std::string_view text_;
  std::size_t block_ = std::string_view::npos;  // where the block `mask_` describes starts
  std::uint64_t mask_ = 0;
};

// The number of the line being shown, written as the text's column ("{:>6}": right-aligned in 6
// columns, wider numbers taking more) and as the structured result's digits. Kept from line to
// line: the window's lines are numbered one after another, so the next number is usually its
// last digit plus one. A number under a million is kept as one 8-byte word (the six columns with
// two spaces before them, in memory order) and written with single 8-byte stores: loading bytes
// just stored one at a time (an incremented digit) stalls the CPU, which per line cost more than
// the rest of the line's writing.
class LineNumberText {
 public:
  void set(std::uint64_t n) {
    if (n == value_ + 1 && n < kNarrowLimit && value_ != 0 && (word_ >> 56) != '9') {
      word_ += std::uint64_t{1} << 56;  // the last digit, not a 9: no carry
    } else {
      const fmt::format_int formatted(n);
      digits_ = formatted.size();
      std::memset(buf_, ' ', kEnd);
      std::memcpy(buf_ + kEnd - digits_, formatted.data(), digits_);
      std::memcpy(&word_, buf_ + kEnd - 8, 8);
    }
    value_ = n;
  }

  // Bytes of the column (at least 6).
  std::size_t column_bytes() const { return std::max<std::size_t>(digits_, 6); }
  // The column and a tab at `at`, which must have 8 bytes of room past them; returns their end.
  char* put_column_tab(char* at) const { return put_column(at, std::uint64_t{'\t'} << 48, 1); }
  // The column and "\\t" (a tab as a JSON string escapes it), room as put_column_tab.
  char* put_column_json_tab(char* at) const {
    return put_column(at, std::uint64_t{'\\'} << 48 | std::uint64_t{'t'} << 56, 2);
  }
  // {"line":N at `at`, which must have 32 bytes of room; returns its end.
  char* put_line_key(char* at) const {
    if (value_ < kNarrowLimit) {
      // The word ends with the digits: stored so that they land after the 8-byte key, whose
      // store then covers the spaces before them.
      std::memcpy(at + digits_, &word_, 8);
    } else {
      std::memcpy(at + 8, buf_ + kEnd - digits_, 20);
    }
    put_literal(at, R"({"line":)");
    return at + 8 + digits_;
  }

 private:
  static constexpr std::uint64_t kNarrowLimit = 1'000'000;
  static constexpr std::size_t kEnd = 24;  // where the digits end in buf_

  // The column at `at` followed by `after_bytes` bytes of `after` (its bytes 6 and 7).
  char* put_column(char* at, std::uint64_t after, std::size_t after_bytes) const {
    if (value_ < kNarrowLimit) {
      const std::uint64_t column = word_ >> 16 | after;  // the last 6 bytes, then `after`
      std::memcpy(at, &column, 8);
      return at + 6 + after_bytes;
    }
    std::memcpy(at, buf_ + kEnd - digits_, digits_);
    std::memcpy(at + digits_, reinterpret_cast<const char*>(&after) + 6, after_bytes);
    return at + digits_ + after_bytes;
  }

  char buf_[kEnd + 16] = {};  // room for put_line_key's 20-byte copy of the digits
  std::uint64_t word_ = 0;    // the 8 bytes of buf_ before kEnd, kept current for narrow numbers
  std::size_t digits_ = 0;
  std::uint64_t value_ = 0;
};

// The longest prefix of `s` of at most `bytes` bytes that ends on a UTF-8 boundary.
std::string_view utf8_prefix(std::string_view s, std::size_t bytes) {
  if (bytes >= s.size()) return s;
  std::size_t cut = bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut);
}

}  // namespace

std::span<const ParamSpec> read_file_params() { return params_table(); }

std::string read_file_output_schema() {
  return R"({"type":"object","properties":{)"
         R"("path":{"type":"string","description":"root-relative path read"},)"
         R"("encoding":{"type":"string","enum":["utf-8","utf-8-bom","utf-16le","utf-16be"]},)"
         R"("lossy":{"type":"boolean","description":"invalid UTF-8 or NUL shown as U+FFFD"},)"
         R"("first_line":{"type":["integer","null"]},"last_line":{"type":["integer","null"]},)"
         R"("shown":{"type":"integer","description":"lines shown"},)"
         R"("total":{"type":["integer","null"],"description":"lines in the file; null when not counted"},)"
         R"("total_exact":{"type":"boolean"},)"
         R"("total_at_least":{"type":"integer","description":"lines known to exist"},)"
         R"("truncated":{"type":"boolean","description":"more lines follow the window"},)"
         R"("truncated_reason":{"type":["string","null"]},)"
         R"("next_offset":{"type":["integer","null"],"description":"offset for the next call"},)"
         R"("next_cursor":{"type":"null"},)"
         R"("clipped_lines":{"type":"integer"},)"
         R"("lines":{"type":"array","items":{"type":"object","properties":{)"
         R"("line":{"type":"integer"},"text":{"type":"string"},"clipped_bytes":{"type":"integer"}},)"
         R"("required":["line","text"]}}},)"
         R"("required":["path","shown","total","truncated","next_cursor","lines"]})";
}

namespace {

// read_file's refusal of what open_visible found at `user_path` when it is no regular file.
ToolStatus regular_file_only(const OpenedPath& file, std::string_view user_path) {
  const std::string shown_path = file.canonical.empty() ? "." : escape_path(file.canonical);
  if (file.kind == EntryKind::kDirectory) {
    return ToolError{ToolErrorCode::kNotAFile, fmt::format("'{}' is a directory", user_path),
                     fmt::format("call list_directory with path={}", quoted(shown_path))};
  }
  if (file.kind != EntryKind::kFile) {
    return ToolError{
        ToolErrorCode::kSpecialFile,
        fmt::format("'{}' is not a regular file (a FIFO, socket or device)", user_path),
        "read regular files only; call list_directory to see the files here"};
  }
  return {};
}

// One rendering of the window of `file` (a regular file open for reading). `budget_cap` (a
// renderer's retry, see run_read_file) limits the lines shown as the budget would have;
// `trimmed` says the budget's finish dropped body text.
Expected<ToolOutput> render_read_file(const ToolArgs& args, const CallContext& context,
                                      const OpenedPath& file,
                                      std::optional<std::uint64_t> budget_cap, bool& trimmed,
                                      std::uint64_t& shown_count) {
  const std::string user_path = args.string("path").value_or("");
  const std::string& path = file.canonical;
  const std::string shown_path = path.empty() ? "." : escape_path(path);  // as every tool shows it
  // One read for the sniff and the first chunk.
  TextChunkReader reader(file.fd.get(), user_path);
  CTX_TRY_ASSIGN(TextEncoding encoding, reader.sniff());
  if (encoding == TextEncoding::kBinary) {
    return ToolError{
        ToolErrorCode::kBinary,
        fmt::format("'{}' is a binary file (a NUL byte in its first 8 KiB)", user_path),
        fmt::format("call file_info with path={} for its size and type", quoted(shown_path))};
  }

  const std::uint64_t offset = static_cast<std::uint64_t>(args.integer("offset").value_or(1));
  const std::optional<std::uint64_t> limit =
      args.integer("limit")
          ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*args.integer("limit")))
          : std::nullopt;
  const std::size_t max_tokens = budget_tokens(args, context);
  const std::size_t max_line_bytes =
      std::max<std::size_t>(context.config.limits.max_line_bytes, 16);
  const auto file_size = static_cast<std::uint64_t>(file.st.st_size);
  const bool count_all = file_size <= kExactCountBytes;

  auto next_call = [&](std::uint64_t next) {
    return fmt::format("call read_file with path={} offset={}", quoted(shown_path), next);
  };
  // The longest footer this file can end with: its line numbers and offsets are at most its size
  // plus 2 (or the offset asked for), and "cut at max_tokens=1000000" is the longest reason. (The
  // worst case of any file, 20-digit numbers, left no room for a short line under ~100 tokens.)
  // With the lossy note, which any window may need.
  const std::uint64_t most = std::max(file_size + 2, offset);
  const std::string longest_footer = fmt::format(
      "(lines {0}–{0} of at least {1}, not counted: the file has {1} bytes; cut at "
      "max_tokens=1000000{3}; {2} for more)",
      most, grouped(most), next_call(most), kLossyNote);
  TextBudget budget(context, max_tokens, footer_reserve(context, longest_footer));

  std::uint64_t newlines = 0;  // '\n' bytes consumed so far
  char last_byte = '\n';       // of the text consumed so far ('\n' before any)
  std::uint64_t line_no = 1;   // the line the next byte belongs to
  enum class Phase : std::uint8_t {
    kSkip,
    kWindow,
    kCount,
    kDone
  } phase = offset == 1 ? Phase::kWindow : Phase::kSkip;
  std::string current;              // kept prefix of a window line that spans chunks
  std::uint64_t current_bytes = 0;  // its whole length
  char current_last = 0;
  bool in_line = false;
  std::uint64_t shown = 0;  // lines shown
  std::uint64_t first = 0;  // the first and last of them (0 when none)
  std::uint64_t last = 0;
  bool lossy = false;
  std::size_t clipped_lines = 0;
  std::string_view stop_reason;  // empty: the window reached the end of the file
  bool reached_eof = false;      // every byte was consumed: the line count is exact
  bool nothing_fit = false;
  std::string scratch;         // a line's text made valid UTF-8, when it was not
  std::size_t body_bytes = 0;  // of the text, what the budget accepted
  // Each shown line is escaped once, into the structured result's "lines" (`lines_json`, the
  // array's elements); the same escaped bytes make the text's JSON form (`text_json`, see
  // ToolOutput::text_json), so neither the server nor this renderer escapes a line twice.
  // Both are written through cursors (AppendCursor), finished once the window is done.
  std::string lines_json;
  std::string text_json;
  AppendCursor lines_out(lines_json);
  AppendCursor text_out(text_json);
  {
    // Room for the usual window without regrowth; a window past 256 KiB grows as it goes.
    const std::size_t expect = static_cast<std::size_t>(std::min<std::uint64_t>(
        {file_size, context.config.limits.max_output_bytes, std::uint64_t{256} << 10}));
    lines_out.reserve(expect + expect / 4 + 256);
    text_out.reserve(expect + expect / 4 + 256);
    budget.reserve(expect + expect / 8 + 256);
  }
  LineNumberText number;

  // What is known of the chunk being read (`window`), so a line shown from it whole is checked by
  // where it lies instead of being scanned again: no NUL byte in [nul_from, nul_at), no byte that
  // JSON escapes but '\n' in [escape_from, escape_at), and [utf8_start, utf8_end) is valid UTF-8
  // (from a line start, as the window's lines are checked in order, to after a line break or
  // the window's end, never inside a character). Each is extended lazily, by lines, at least
  // kWindowScanBytes at a time, so a short window scans little more than itself.
  constexpr std::size_t kWindowScanBytes = 4096;
  std::string_view window;
  std::size_t nul_from = 0;
  std::size_t nul_at = 0;
  std::size_t escape_from = 0;
  std::size_t escape_at = 0;
  std::size_t utf8_start = 0;
  std::size_t utf8_end = 0;  // 0: nothing validated yet
  bool utf8_broken = false;  // bytes from utf8_end on to a line break are not valid UTF-8
  auto new_window = [&](std::string_view chunk) {
    window = chunk;
    nul_from = nul_at = escape_from = escape_at = utf8_start = utf8_end = 0;
    utf8_broken = false;
  };
  auto scan_limit = [&](std::size_t at, std::size_t end) {
    return std::min(window.size(), std::max(end, at + kWindowScanBytes));
  };
  // Whether window[at, end) holds no NUL byte and is valid UTF-8 (a whole line of it).
  auto clean_in_window = [&](std::size_t at, std::size_t end) {
    if (at < nul_from || end > nul_at) {
      const std::size_t scan_end = scan_limit(at, end);
      const void* nul = std::memchr(window.data() + at, '\0', scan_end - at);
      nul_from = at;
      nul_at = nul == nullptr
                   ? scan_end
                   : static_cast<std::size_t>(static_cast<const char*>(nul) - window.data());
    }
    if (end > nul_at) return false;
    if (utf8_end == 0) utf8_start = utf8_end = at;  // the first line start validation needs
    if (at >= utf8_start && end <= utf8_end) return true;
    if (utf8_broken || at < utf8_start) return false;
    // Validate on to the line break that ends the line at or past the scan limit.
    const std::size_t scan_end = scan_limit(utf8_end, end);
    const void* nl =
        std::memchr(window.data() + scan_end - 1, '\n', window.size() - (scan_end - 1));
    const std::size_t cut =
        nl == nullptr ? window.size()
                      : static_cast<std::size_t>(static_cast<const char*>(nl) - window.data()) + 1;
    if (!is_valid_utf8(window.substr(utf8_end, cut - utf8_end))) {
      utf8_broken = true;
      return false;
    }
    utf8_end = cut;
    return end <= utf8_end;
  };
  // Whether window[at, end) holds no byte append_json_string would escape.
  auto plain_in_window = [&](std::size_t at, std::size_t end) {
    if (at < escape_from || end > escape_at) {
      const std::size_t scan_end = scan_limit(at, end);
      escape_from = at;
      escape_at = find_json_escape_except_newline(window.substr(0, scan_end), at);
    }
    return end <= escape_at;
  };

  // Shows the line of `bytes` bytes ending in `last_of_line` whose first bytes (at least
  // max_line_bytes + 4 of them, or all) are `held`; false when the budget refused it. `held`
  // views the window at `in_window` when that is not npos.
  auto emit_line = [&](std::string_view held, std::uint64_t bytes, char last_of_line,
                       std::size_t in_window) {
    if (last_of_line == '\r' && bytes > 0) --bytes;
    std::string_view kept =
        held.substr(0, static_cast<std::size_t>(std::min<std::uint64_t>(held.size(), bytes)));
    std::uint64_t clipped = 0;
    if (bytes > max_line_bytes) {
      kept = utf8_prefix(kept, max_line_bytes);
      clipped = bytes - kept.size();
    }
    const bool from_window =
        in_window != std::string_view::npos && clean_in_window(in_window, in_window + kept.size());
    const std::string_view text = from_window ? kept : shown_text(kept, scratch, lossy);
    // "{:>6}\t{}" of the number and the text, without a format string parsed per line.
    number.set(line_no);
    const std::size_t head_bytes = number.column_bytes() + 1;  // with the tab
    std::string clip_note;
    if (clipped > 0) clip_note = fmt::format(" … [clipped {} bytes]", grouped(clipped));
    // `text` may view `current`: the line is done with it only once the line is written.
    auto done_with_line = [&] {
      current.clear();
      current_bytes = 0;
      current_last = 0;
      in_line = false;
    };
    // The line as the text shows it: the number with a real tab, the text, the clip note, the
    // line break. Written into the budget's text in place when its bound shows it fits, else
    // given to the budget in its pieces to count.
    const std::size_t line_bytes = head_bytes + text.size() + clip_note.size() + 1;
    const bool capped = budget_cap && shown >= *budget_cap;
    if (char* at = capped ? nullptr : budget.append_in_place(line_bytes); at != nullptr) {
      at = number.put_column_tab(at);  // within kInPlaceSlack past the line
      at = put_bytes(at, text.data(), text.size());
      at = put_bytes(at, clip_note.data(), clip_note.size());
      *at = '\n';
    } else {
      char head[40];
      number.put_column_tab(head);
      const std::array<std::string_view, 4> line_parts = {std::string_view(head, head_bytes), text,
                                                          clip_note, "\n"};
      if (capped || !budget.append_parts(line_parts)) {
        done_with_line();
        stop_reason = budget.byte_capped() ? kReasonOutputCap : kReasonBudget;
        nothing_fit = shown == 0;
        return false;
      }
    }
    body_bytes += line_bytes;
    if (clipped > 0) ++clipped_lines;
    const bool comma = shown++ != 0;
    if (!comma) first = line_no;
    last = line_no;
    const bool plain = from_window ? plain_in_window(in_window, in_window + text.size())
                                   : json_string_is_plain(text, false);
    // The element, {"line":N,"text":"..."} (with "clipped_bytes":K before its '}' when clipped).
    const std::size_t text_room = plain ? text.size() : json_body_room(text.size());
    char* p = lines_out.room(text_room + 96);
    if (comma) *p++ = ',';
    p = number.put_line_key(p);
    p = put_literal(p, R"(,"text":")");
    const char* const escaped = p;
    if (plain) {
      p = put_bytes(p, text.data(), text.size());
    } else {
      p = put_json_body(p, text);
    }
    const auto escaped_bytes = static_cast<std::size_t>(p - escaped);
    *p++ = '"';
    if (clipped > 0) {
      const fmt::format_int clipped_digits(clipped);
      p = put_literal(p, R"(,"clipped_bytes":)");
      std::memcpy(p, clipped_digits.data(), clipped_digits.size());
      p += clipped_digits.size();
    }
    *p++ = '}';
    lines_out.advance_to(p);
    // The same line in the text's JSON form: the number, "\t", the escaped text (copied from
    // the element just written), the clip note, "\n".
    char* q = text_out.room(head_bytes + 1 + escaped_bytes + json_body_room(clip_note.size()) + 8);
    q = number.put_column_json_tab(q);
    q = put_bytes(q, escaped, escaped_bytes);
    if (clipped > 0) q = put_json_body(q, clip_note);
    q = put_literal(q, "\\n");
    text_out.advance_to(q);
    done_with_line();
    if (limit && shown >= *limit) stop_reason = kReasonLimit;
    return true;
  };

  while (phase != Phase::kDone) {
    if (context.expired()) {
      if (phase == Phase::kSkip) {
        return ToolError{ToolErrorCode::kTimeout,
                         fmt::format("reading '{}' up to line {} took longer than the deadline",
                                     user_path, offset),
                         "use a smaller offset, or search_files to find the line you want"};
      }
      if (phase == Phase::kWindow) stop_reason = expiry_reason(context);
      break;  // the total stays unknown
    }
    CTX_TRY_ASSIGN(std::string_view chunk, reader.next());
    if (chunk.empty()) {
      reached_eof = true;
      if (phase == Phase::kWindow && in_line) {  // a last line without '\n'
        emit_line(current, current_bytes, current_last, std::string_view::npos);
      }
      break;
    }
    new_window(chunk);
    NewlineScanner newline(chunk);
    std::size_t pos = 0;
    const std::size_t n = chunk.size();
    while (pos < n && phase != Phase::kDone) {
      if (phase == Phase::kCount) {
        newlines += engine::count_newlines(chunk.substr(pos));
        pos = n;
        break;
      }
      const std::size_t found = newline.find(pos);
      const bool nl = found != std::string_view::npos;
      const std::size_t end = nl ? found : n;
      if (phase == Phase::kSkip) {
        pos = !nl ? n : end + 1;
        if (!nl) break;
        ++newlines;
        ++line_no;
        if (line_no == offset) phase = Phase::kWindow;
        continue;
      }
      // kWindow
      std::string_view piece = chunk.substr(pos, end - pos);
      bool emitted;
      if (!in_line && nl) {
        // The usual line, whole in this chunk: shown from the chunk, not copied first.
        emitted = emit_line(piece, piece.size(), piece.empty() ? '\0' : piece.back(), pos);
      } else {
        if (!piece.empty()) {
          const std::size_t keep = max_line_bytes + 4;
          if (current.size() < keep) current.append(piece.substr(0, keep - current.size()));
          current_bytes += piece.size();
          current_last = piece.back();
        }
        in_line = true;
        if (!nl) {
          pos = n;
          break;
        }
        emitted = emit_line(current, current_bytes, current_last, std::string_view::npos);
      }
      if (!emitted) {
        // Refused by the budget: the line is still to count, its '\n' included.
        pos = end;
      } else {
        pos = end + 1;
        ++newlines;
        ++line_no;
      }
      if (!stop_reason.empty()) phase = count_all ? Phase::kCount : Phase::kDone;
    }
    last_byte = pos > 0 ? chunk[pos - 1] : last_byte;
    if (phase == Phase::kDone && pos == n) {
      // Stopped exactly at a chunk's end: is there anything after it?
      CTX_TRY_ASSIGN(std::string_view peek, reader.next());
      reached_eof = peek.empty();
    }
  }

  const std::uint64_t total_lines = newlines + (last_byte != '\n' ? 1 : 0);
  const bool total_exact = reached_eof;
  if (reached_eof && shown == 0 && stop_reason.empty() && offset > 1) {
    return ToolError{ToolErrorCode::kInvalidArgument,
                     fmt::format("offset {} is past the end of '{}' ({} lines)", offset, user_path,
                                 grouped(total_lines)),
                     total_lines == 0 ? std::string("the file is empty")
                                      : fmt::format("call read_file with path={} and an offset "
                                                    "from 1 to {}",
                                                    quoted(shown_path), total_lines)};
  }
  const std::uint64_t next_offset = shown == 0 ? offset : last + 1;
  const bool truncated = total_exact ? next_offset <= total_lines : true;
  const bool stopped_by_clock = stop_reason == kReasonDeadline || stop_reason == kReasonCancelled;
  const std::uint64_t at_least = total_exact        ? total_lines
                                 : stopped_by_clock ? std::max<std::uint64_t>(last, offset - 1)
                                                    : next_offset;
  std::string_view reason = truncated ? stop_reason : std::string_view();
  if (truncated && reason.empty()) reason = kReasonBudget;

  std::string footer;
  // The text says what the structured result's `lossy` says, where it shows lines.
  const std::string_view note = lossy && shown > 0 ? kLossyNote : std::string_view();
  std::string total_text = total_exact
                               ? fmt::format("of {}", grouped(total_lines))
                               : fmt::format("of at least {}, not counted: the file has {} bytes",
                                             grouped(at_least), grouped(file_size));
  if (file_size == 0 || (total_exact && total_lines == 0)) {
    footer = "(empty file: 0 lines)";
  } else if (nothing_fit) {
    footer = fmt::format(
        "(line {} does not fit in max_tokens={}; call read_file with path={} offset={} "
        "max_tokens={})",
        offset, max_tokens, quoted(shown_path), offset, std::max<std::size_t>(max_tokens * 2, 400));
  } else if (!truncated) {
    footer = fmt::format("(lines {}–{} {}, end of file{})", first, last, total_text, note);
  } else {
    std::string why = reason == kReasonBudget  ? fmt::format("; cut at max_tokens={}", max_tokens)
                      : reason == kReasonLimit ? std::string()
                      : reason == kReasonOutputCap ? std::string("; cut at the output size cap")
                                                   : fmt::format("; stopped: {}", reason);
    footer = shown == 0 ? fmt::format("(no lines shown {}{}; {} to continue)", total_text, why,
                                      next_call(next_offset))
                        : fmt::format("(lines {}–{} {}{}{}; {} for more)", first, last, total_text,
                                      why, note, next_call(next_offset));
  }

  lines_out.finish();
  text_out.finish();
  ToolOutput out;
  out.text = budget.finish(footer);
  trimmed = budget.trimmed();
  shown_count = shown;
  out.tokens = budget.tokens();
  out.truncated = truncated;
  // The text is the accepted lines and the footer unless the budget trimmed or clipped it (then
  // it is shorter, and the server escapes `text` itself).
  if (!trimmed && out.text.size() == body_bytes + footer.size()) {
    append_json_body(text_json, footer);
    out.text_json = std::move(text_json);
  }

  JsonWriter w;
  w.reserve(lines_json.size() + 512);
  w.begin_object().field("path", shown_path).field("encoding", to_string(encoding));
  w.field("lossy", lossy);
  w.key("first_line");
  shown == 0 ? w.null() : w.unsigned_integer(first);
  w.key("last_line");
  shown == 0 ? w.null() : w.unsigned_integer(last);
  w.field("shown", shown);
  w.key("total");
  total_exact ? w.unsigned_integer(total_lines) : w.null();
  w.field("total_exact", total_exact).field("total_at_least", at_least);
  w.field("truncated", truncated).key("truncated_reason");
  truncated ? w.string(reason) : w.null();
  w.key("next_offset");
  truncated ? w.unsigned_integer(next_offset) : w.null();
  w.key("next_cursor").null();
  w.field("clipped_lines", static_cast<std::uint64_t>(clipped_lines));
  // The lines' objects were written as they were shown (their texts are valid UTF-8: shown_text
  // made them so).
  w.key("lines").begin_array().raw_elements(lines_json);
  w.end_array().end_object();
  out.structured = w.take();
  return out;
}

// What a read_file result depends on besides the file's bytes: its version (while that is
// unchanged, so are the bytes: see cacheable_version), the path shown and the arguments.
std::string read_key(const ToolArgs& args, const CallContext& context, const OpenedPath& file) {
  const std::optional<std::int64_t> limit = args.integer("limit");
  return fmt::format("{}|{}|{}|{}|{}|{}|{}", file_version(file.st),
                     args.integer("offset").value_or(1), limit ? std::to_string(*limit) : "-",
                     budget_tokens(args, context), context.config.limits.max_line_bytes,
                     context.count_tokens, file.canonical);
}

}  // namespace

Expected<ToolOutput> run_read_file(const ToolArgs& args, const CallContext& context) {
  // Before the file's stat is taken: what cacheable_version judges raciness against.
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const std::int64_t started_ns = timestamp_ns(now);
  const std::string user_path = args.string("path").value_or("");
  // Looked up first: a result kept for this version of the file is given without reading it.
  CTX_TRY_ASSIGN(OpenedPath file, open_visible(context, user_path, Sandbox::OpenFor::kLookup));
  CTX_TRY(regular_file_only(file, user_path));
  LruCache<ToolOutput>* cache =
      context.session != nullptr ? &context.session->impl().reads : nullptr;
  const struct stat looked_up = file.st;
  std::string key;
  if (cache != nullptr) {
    key = read_key(args, context, file);
    if (std::shared_ptr<const ToolOutput> kept = cache->find(key)) return *kept;
  }
  CTX_TRY(reopen_visible(context, user_path, file));
  // When the whole text had to be trimmed (a counter whose counts are not additive), render
  // again with fewer lines, so the structured result lists exactly the lines the text shows.
  std::optional<std::uint64_t> cap;
  for (;;) {
    bool trimmed = false;
    std::uint64_t shown = 0;
    CTX_TRY_ASSIGN(ToolOutput out, render_read_file(args, context, file, cap, trimmed, shown));
    if (trimmed && shown > 0) {
      cap = shown - std::max<std::uint64_t>(1, shown / 4);
      continue;
    }
    // Kept only when the file read was the version looked up, not changing meanwhile nor
    // racily clean, and the deadline did not cut the reading short.
    struct stat after {};
    if (cache != nullptr && !context.expired() && ::fstat(file.fd.get(), &after) == 0 &&
        cacheable_version(looked_up, after, started_ns)) {
      const std::size_t bytes = out.structured.size() + out.text.size() + out.text_json.size();
      cache->put(key, std::make_shared<const ToolOutput>(out), bytes);
    }
    return out;
  }
}

}  // namespace ctx::agent
