// read_file: numbered lines ("    12\tcode", as cat -n) of one text file, windowed by offset,
// limit and the token budget. The file is read with pread in chunks from its start only up to
// the window's end (then on to count its lines when it is at most kExactCountBytes), so a huge
// log costs what its window costs.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "ctx/base/json.hpp"
#include "ctx/engine/searcher.hpp"
#include "cursor.hpp"
#include "file_reading.hpp"
#include "json_writer.hpp"
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

// Appends a window line's text as shown to `out`: lossy UTF-8, NUL bytes as U+FFFD.
void append_shown_text(std::string& out, std::string_view bytes, bool& lossy) {
  // The usual line: valid UTF-8 without NUL bytes, shown as it is.
  if (bytes.find('\0') == std::string_view::npos && is_valid_utf8(bytes)) {
    out.append(bytes);
    return;
  }
  std::string text = lossy_utf8(bytes);
  lossy = lossy || text.size() != bytes.size() || text != bytes;
  for (char c : text) {
    if (c == '\0') {
      out.append("\xEF\xBF\xBD");
      lossy = true;
    } else {
      out.push_back(c);
    }
  }
}

// The longest prefix of `s` of at most `bytes` bytes that ends on a UTF-8 boundary.
std::string_view utf8_prefix(std::string_view s, std::size_t bytes) {
  if (bytes >= s.size()) return s;
  std::size_t cut = bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut);
}

struct ShownLine {
  std::uint64_t number;
  std::size_t text_at;  // the text shown: shown_texts.substr(text_at, text_bytes)
  std::size_t text_bytes;
  std::uint64_t clipped_bytes;
};

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

// One rendering of the window. `budget_cap` (a renderer's retry, see run_read_file) limits the
// lines shown as the budget would have; `trimmed` says the budget's finish dropped body text.
Expected<ToolOutput> render_read_file(const ToolArgs& args, const CallContext& context,
                                      std::optional<std::uint64_t> budget_cap, bool& trimmed,
                                      std::uint64_t& shown_count) {
  const std::string user_path = args.string("path").value_or("");
  CTX_TRY_ASSIGN(OpenedPath file, open_visible(context, user_path));
  const std::string& path = file.canonical;
  const std::string shown_path = path.empty() ? "." : path;
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
  CTX_TRY_ASSIGN(TextEncoding encoding, sniff_encoding(file.fd.get(), user_path));
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
  const std::string longest_footer = fmt::format(
      "(lines 18446744073709551615–18446744073709551615 of at least 18446744073709551615, not "
      "counted: the file has 18,446,744,073,709,551,615 bytes; cut at max_tokens=1000000; {} for "
      "more)",
      next_call(UINT64_MAX));
  TextBudget budget(context, max_tokens, footer_reserve(context, longest_footer));

  TextChunkReader reader(file.fd.get(), encoding, user_path);
  std::uint64_t newlines = 0;  // '\n' bytes consumed so far
  char last_byte = '\n';       // of the text consumed so far ('\n' before any)
  std::uint64_t line_no = 1;   // the line the next byte belongs to
  enum class Phase : std::uint8_t {
    kSkip,
    kWindow,
    kCount,
    kDone
  } phase = offset == 1 ? Phase::kWindow : Phase::kSkip;
  std::string current;              // kept prefix of the current window line
  std::uint64_t current_bytes = 0;  // its whole length
  char current_last = 0;
  bool in_line = false;
  std::vector<ShownLine> shown;
  std::string shown_texts;  // the shown lines' texts, one after the other
  bool lossy = false;
  std::size_t clipped_lines = 0;
  std::string_view stop_reason;  // empty: the window reached the end of the file
  bool reached_eof = false;      // every byte was consumed: the line count is exact
  bool nothing_fit = false;
  std::string rendered;  // the line as the text shows it; reused from line to line

  auto emit_line = [&]() {
    std::uint64_t bytes = current_bytes;
    if (current_last == '\r' && bytes > 0) {
      --bytes;
      if (current.size() > bytes) current.resize(bytes);
    }
    std::string_view kept = current;
    std::uint64_t clipped = 0;
    if (bytes > max_line_bytes) {
      kept = utf8_prefix(kept, max_line_bytes);
      clipped = bytes - kept.size();
    } else {
      kept = kept.substr(0, bytes);
    }
    const std::size_t text_at = shown_texts.size();
    append_shown_text(shown_texts, kept, lossy);
    const std::string_view text = std::string_view(shown_texts).substr(text_at);
    // "{:>6}\t{}" of the number and the text, without a format string parsed per line.
    const fmt::format_int number(line_no);
    rendered.assign(number.size() < 6 ? 6 - number.size() : 0, ' ');
    rendered.append(number.data(), number.size()).append(1, '\t').append(text);
    if (clipped > 0) rendered += fmt::format(" … [clipped {} bytes]", grouped(clipped));
    rendered.push_back('\n');
    current.clear();
    current_bytes = 0;
    current_last = 0;
    in_line = false;
    if ((budget_cap && shown.size() >= *budget_cap) || !budget.append(rendered)) {
      stop_reason = budget.byte_capped() ? kReasonOutputCap : kReasonBudget;
      nothing_fit = shown.empty();
      shown_texts.resize(text_at);
      return false;
    }
    if (clipped > 0) ++clipped_lines;
    shown.push_back(ShownLine{line_no, text_at, shown_texts.size() - text_at, clipped});
    if (limit && shown.size() >= *limit) stop_reason = kReasonLimit;
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
      if (phase == Phase::kWindow && in_line) emit_line();  // a last line without '\n'
      break;
    }
    std::size_t pos = 0;
    const std::size_t n = chunk.size();
    while (pos < n && phase != Phase::kDone) {
      if (phase == Phase::kCount) {
        newlines += engine::count_newlines(chunk.substr(pos));
        pos = n;
        break;
      }
      const void* nl = std::memchr(chunk.data() + pos, '\n', n - pos);
      const std::size_t end =
          nl == nullptr ? n : static_cast<std::size_t>(static_cast<const char*>(nl) - chunk.data());
      if (phase == Phase::kSkip) {
        pos = nl == nullptr ? n : end + 1;
        if (nl == nullptr) break;
        ++newlines;
        ++line_no;
        if (line_no == offset) phase = Phase::kWindow;
        continue;
      }
      // kWindow
      std::string_view piece = chunk.substr(pos, end - pos);
      if (!piece.empty()) {
        const std::size_t keep = max_line_bytes + 4;
        if (current.size() < keep) current.append(piece.substr(0, keep - current.size()));
        current_bytes += piece.size();
        current_last = piece.back();
      }
      in_line = true;
      if (nl == nullptr) {
        pos = n;
        break;
      }
      if (!emit_line()) {
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
  if (reached_eof && shown.empty() && stop_reason.empty() && offset > 1) {
    return ToolError{ToolErrorCode::kInvalidArgument,
                     fmt::format("offset {} is past the end of '{}' ({} lines)", offset, user_path,
                                 grouped(total_lines)),
                     total_lines == 0 ? std::string("the file is empty")
                                      : fmt::format("call read_file with path={} and an offset "
                                                    "from 1 to {}",
                                                    quoted(shown_path), total_lines)};
  }
  const std::uint64_t first = shown.empty() ? 0 : shown.front().number;
  const std::uint64_t last = shown.empty() ? 0 : shown.back().number;
  const std::uint64_t next_offset = shown.empty() ? offset : last + 1;
  const bool truncated = total_exact ? next_offset <= total_lines : true;
  const bool stopped_by_clock = stop_reason == kReasonDeadline || stop_reason == kReasonCancelled;
  const std::uint64_t at_least = total_exact        ? total_lines
                                 : stopped_by_clock ? std::max<std::uint64_t>(last, offset - 1)
                                                    : next_offset;
  std::string_view reason = truncated ? stop_reason : std::string_view();
  if (truncated && reason.empty()) reason = kReasonBudget;

  std::string footer;
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
    footer = fmt::format("(lines {}–{} {}, end of file)", first, last, total_text);
  } else {
    std::string why = reason == kReasonBudget  ? fmt::format("; cut at max_tokens={}", max_tokens)
                      : reason == kReasonLimit ? std::string()
                      : reason == kReasonOutputCap ? std::string("; cut at the output size cap")
                                                   : fmt::format("; stopped: {}", reason);
    footer = shown.empty() ? fmt::format("(no lines shown {}{}; {} to continue)", total_text, why,
                                         next_call(next_offset))
                           : fmt::format("(lines {}–{} {}{}; {} for more)", first, last, total_text,
                                         why, next_call(next_offset));
  }

  ToolOutput out;
  out.text = budget.finish(footer);
  trimmed = budget.trimmed();
  shown_count = shown.size();
  out.tokens = budget.tokens();
  out.truncated = truncated;

  JsonWriter w;
  // The texts (escaping adds a little) and about 32 bytes of fields a line, written once.
  w.reserve(shown_texts.size() + shown_texts.size() / 8 + shown.size() * 32 + 512);
  w.begin_object().field("path", shown_path).field("encoding", to_string(encoding));
  w.field("lossy", lossy);
  w.key("first_line");
  shown.empty() ? w.null() : w.unsigned_integer(first);
  w.key("last_line");
  shown.empty() ? w.null() : w.unsigned_integer(last);
  w.field("shown", static_cast<std::uint64_t>(shown.size()));
  w.key("total");
  total_exact ? w.unsigned_integer(total_lines) : w.null();
  w.field("total_exact", total_exact).field("total_at_least", at_least);
  w.field("truncated", truncated).key("truncated_reason");
  truncated ? w.string(reason) : w.null();
  w.key("next_offset");
  truncated ? w.unsigned_integer(next_offset) : w.null();
  w.key("next_cursor").null();
  w.field("clipped_lines", static_cast<std::uint64_t>(clipped_lines));
  w.key("lines").begin_array();
  for (const ShownLine& line : shown) {
    w.begin_object().field("line", line.number);
    // Valid UTF-8: append_shown_text made it so.
    w.key("text").valid_string(std::string_view(shown_texts).substr(line.text_at, line.text_bytes));
    if (line.clipped_bytes > 0) w.field("clipped_bytes", line.clipped_bytes);
    w.end_object();
  }
  w.end_array().end_object();
  out.structured = w.take();
  return out;
}

}  // namespace

Expected<ToolOutput> run_read_file(const ToolArgs& args, const CallContext& context) {
  // When the whole text had to be trimmed (a counter whose counts are not additive), render
  // again with fewer lines, so the structured result lists exactly the lines the text shows.
  std::optional<std::uint64_t> cap;
  for (;;) {
    bool trimmed = false;
    std::uint64_t shown = 0;
    CTX_TRY_ASSIGN(ToolOutput out, render_read_file(args, context, cap, trimmed, shown));
    if (!trimmed || shown == 0) return out;
    cap = shown - std::max<std::uint64_t>(1, shown / 4);
  }
}

}  // namespace ctx::agent
