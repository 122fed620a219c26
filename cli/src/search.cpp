#include "search.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include "chunked.hpp"
#include "colors.hpp"
#include "ctx/base/file_buffer.hpp"
#include "ctx/base/json.hpp"
#include "ctx/base/utf8.hpp"
#include "ctx/engine/pattern_set.hpp"
#include "ctx/engine/searcher.hpp"
#include "ctx/walker/overrides.hpp"
#include "ctx/walker/per_thread.hpp"
#include "ctx/walker/types.hpp"
#include "ctx/walker/walker.hpp"
#include "hyperlink.hpp"
#include "ordered_run.hpp"
#include "output.hpp"
#include "preprocess.hpp"
#include "stdin_entry.hpp"

namespace ctx::cli {
namespace {

constexpr std::size_t kMaxPatternFileBytes = std::size_t{1} << 30;
constexpr std::size_t kStreamThreshold = std::size_t{1} << 20;  // bytes of one file's output
// Block buffering: a pipe's capacity, and a bound on how long a match waits for company (so a
// reader watching a slow search, or stdin fed slowly, still sees results as they are found).
constexpr std::size_t kBlockBytes = std::size_t{64} << 10;
// What Search::search_stream asks its reader for at a time (StdinReader reads that much).
constexpr std::size_t kStreamReadBytes = std::size_t{64} << 10;
constexpr std::chrono::milliseconds kBlockMaxDelay{100};
// Sorted searches: how many files per thread may wait for their output to be written (a few
// hundred bytes each; a small window costs a wake-up of the walk every few files).
constexpr std::size_t kOrderedWindowPerThread = 256;

constexpr std::string_view kReset = kColorReset;

// --debug (level 1) and --trace (level 2) lines on stderr.
template <typename... T>
void debug_line(const Args& args, int level, fmt::format_string<T...> format, T&&... values) {
  if (args.debug < level) return;
  print_error(fmt::format("{}: {}", level == 1 ? "DEBUG" : "TRACE",
                          fmt::format(format, std::forward<T>(values)...)));
}

struct PrintOptions {
  bool with_filename;
  bool line_numbers;
  bool heading;
  bool column;
  bool byte_offset;
  bool only_matching;
  bool vimgrep;
  const std::string* replace;  // -r, or null
  bool json;
  bool color;                     // ANSI colors, as ripgrep's (--colors) in `colors`
  const ColorSpecs* colors;       // outlives the search
  const Hyperlinker* hyperlinks;  // --hyperlink-format with colors on, or null; outlives the search
  bool null;
  Args::Output output;
  bool multiline;                            // the patterns run in multiline mode (-U)
  std::optional<std::uint64_t> max_columns;  // -M
  bool max_columns_preview;
  bool trim;
  bool stats;  // --stats (needs every match found, as in ripgrep)
  bool quiet;  // -q: count, print nothing
  // ripgrep would search with one thread (--sort, one file, -j1), so its printer, not its
  // buffer writer, writes the separators between files.
  bool rg_one_thread;
  bool include_zero;                   // --include-zero
  std::string_view context_separator;  // with its line terminator; empty: none
  // Between two files' output: with context lines, and under --heading (see group_separator).
  std::string_view files_context_separator, files_heading_separator;
  bool crlf;                   // --crlf: lines end in "\r\n" (a CR before the LF is no content)
  std::string_view line_term;  // what ends a printed line rg writes itself: "\n", "\r\n" or NUL
  char term;                   // what ends a line in the haystack: '\n', or NUL (--null-data)
  std::string_view field_match_separator;  // ":" unless --field-match-separator
  std::string_view field_context_separator;
  std::optional<char> path_separator;  // --path-separator
  // Output past this many bytes is written at once (1 under --line-buffered).
  std::size_t stream_threshold;
};

// Totals for --json's end and summary messages.
struct Stats {
  std::uint64_t searches = 0, searches_with_match = 0, bytes_searched = 0, bytes_printed = 0,
                matched_lines = 0, matches = 0, color_bytes = 0;
  // --stats: bytes written for files whose statistics do not count (their --pre program failed)
  std::uint64_t uncounted_bytes = 0;
  std::chrono::nanoseconds elapsed{0};
};

// ripgrep writes "secs, nanos, human" in end messages and sorted keys in the summary.
void append_elapsed(std::string& out, std::chrono::nanoseconds ns, bool sorted_keys) {
  auto n = static_cast<std::uint64_t>(ns.count());
  const double seconds = static_cast<double>(n) / 1e9;
  if (sorted_keys) {
    out += fmt::format("{{\"human\":\"{:.6f}s\",\"nanos\":{},\"secs\":{}}}", seconds,
                       n % 1'000'000'000, n / 1'000'000'000);
  } else {
    out += fmt::format("{{\"secs\":{},\"nanos\":{},\"human\":\"{:.6f}s\"}}", n / 1'000'000'000,
                       n % 1'000'000'000, seconds);
  }
}

// Everything one thread needs to search one file after another.
struct Worker {
  engine::PatternSet::Scratch scratch;
  std::optional<engine::PatternSet::Scratch> plain_scratch;  // of Search::plain_, made when used
  engine::FileBuffer buffer;
  std::string out;
  std::vector<engine::MatchSpan> spans;
  std::vector<std::string> expansions;            // -r: one per span
  std::string replaced;                           // -r: the printed unit with its matches replaced
  std::vector<engine::MatchSpan> replaced_spans;  // -r: the replacements' spans in it
  std::string stream;       // stdin searched as it arrives: unread lines (decoding: bytes)
  std::string stream_text;  // stdin decoded as it arrives: unread lines
  std::string piped;        // --pre / -z: the program's output
  std::unique_ptr<char[]> stdin_reads;  // StdinReader's buffer (made when used)
};

// A printed unit, as ripgrep's printer sees it: a matching line (or, in multiline mode, a block of
// lines), or a context line. `bytes` keeps its line terminator when the file has one there.
struct Unit {
  std::string_view bytes;
  std::uint64_t offset;
  std::uint64_t line_number;
  bool context;
  const std::vector<engine::MatchSpan>* matches;   // in `bytes` (after -r replacement)
  const std::vector<engine::MatchSpan>* original;  // in the searched text, before -r
};

// A byte range [start, end) of a unit's bytes.
struct Range {
  std::size_t start;
  std::size_t end;
  bool empty() const { return start >= end; }
  std::size_t size() const { return end > start ? end - start : 0; }
};

// Formats one file's results into `out` in ripgrep's standard format: a port of ripgrep's
// standard printer (sink_fast / sink_slow and their multiline forms, --max-columns, --trim).
class FilePrinter final : public engine::LineSink {
 public:
  // `patterns` and `scratch` (one of its) are what the file is searched with.
  FilePrinter(const PrintOptions& p, const engine::PatternSet& patterns,
              engine::PatternSet::Scratch& scratch, Worker& w, std::string_view path,
              OutputStream& stream)
      : p_(p),
        patterns_(patterns),
        scratch_(scratch),
        w_(w),
        path_(path),
        printed_path_(path),
        stream_(stream) {
    if (p_.path_separator) {  // --path-separator: the printed path only (not --json's)
      shown_path_.assign(path);
      std::replace(shown_path_.begin(), shown_path_.end(), '/', *p_.path_separator);
      printed_path_ = shown_path_;
    }
  }

  void on_haystack(std::string_view hay) override {
    hay_ = hay;
    buffer_start_ = 0;
  }
  void on_buffer(std::size_t start) override { buffer_start_ = start; }
  // A mapped file's pages behind the search leave this process (peak memory: a window, not the
  // file; they read back from the page cache if a context line or the printer looks back).
  void on_progress(std::size_t offset) override { w_.buffer.release_before(hay_.data() + offset); }

  engine::Flow on_line(std::uint64_t line_number, std::uint64_t offset,
                       std::string_view line) override {
    // Nothing counts after a stop (stdin searched as it arrives goes on to its next piece).
    if (stopped_) return engine::Flow::kStop;
    return noted(line_flow(line_number, offset, line));
  }

  engine::Flow on_context(std::uint64_t line_number, std::uint64_t offset,
                          std::string_view line) override {
    if (stopped_) return engine::Flow::kStop;
    return noted(context_flow(line_number, offset, line));
  }

  // Whether this printer stopped the search (or the searcher's -m or binary data did): ripgrep
  // then never reads the end of the file (what matters for a --pre / -z program's failure).
  bool stopped(const engine::SearchOptions& options) const {
    return stopped_ || (options.max_count && lines_ >= *options.max_count) ||
           (binary_offset_ && !convert_);
  }

  // What on_line and on_context do (public only to stay where they were).
  engine::Flow line_flow(std::uint64_t line_number, std::uint64_t offset, std::string_view line) {
    ++lines_;
    if (binary_stops_printing()) {
      // ripgrep's standard printer after binary data under BinaryMode::convert: the line counts
      // (and its matches, for --stats), is not printed, and the search stops.
      matched_lines_ += multi() ? 1 + engine::count_byte(line, p_.term) : 1;
      if (p_.stats && !invert_) count_matches(line);
      return engine::Flow::kStop;
    }
    matched_lines_ += multi() ? 1 + engine::count_byte(line, p_.term) : 1;
    if (p_.output != Args::Output::kLines || p_.quiet) {
      const bool counting =
          p_.output == Args::Output::kCount || p_.output == Args::Output::kCountMatches;
      // In multiline mode ripgrep's summaries (-c, -l, -q, ...) count matches, not lines.
      if (p_.output == Args::Output::kCountMatches || p_.stats || multi()) count_matches(line);
      // ripgrep's summary printer holds -m: it counts lines, or in multiline mode the matches of
      // each block (the lines of an inverted search hold none).
      if (limit_reached()) return engine::Flow::kStop;
      if (multi()) {
        // -l and -q quit at the first block unless --stats.
        const bool quit_early = p_.output == Args::Output::kFilesWithMatches || p_.quiet;
        return quit_early && !p_.stats ? engine::Flow::kStop : engine::Flow::kContinue;
      }
      // ripgrep's --files-without-match reads on (binary data found later drops the file).
      const bool read_on =
          counting || p_.stats ||
          (p_.output == Args::Output::kFilesWithoutMatch && !convert_ && !p_.quiet);
      return read_on ? engine::Flow::kContinue : engine::Flow::kStop;
    }
    if (p_.json) return json_line("match", line_number, offset, line, !invert_);
    heading_once();
    w_.spans.clear();
    w_.expansions.clear();
    const bool need_spans = p_.only_matching || p_.column || p_.vimgrep || color_matches() ||
                            p_.replace != nullptr || p_.stats;
    const std::string_view bytes = with_terminator(line);
    // An inverted line holds no match, except where ripgrep's searcher ran its regex over its
    // buffer and its printer finds one in the line (--null-data -U: `foo$` before a NUL).
    if (need_spans && (!invert_ || patterns_.searches_buffer())) record_matches(line, bytes);
    matches_ += w_.spans.size();
    sink(bytes, offset, line_number, false);
    if (w_.out.size() >= p_.stream_threshold) stream_.stream(w_.out);
    // Nobody reads any more (EPIPE): stop, as ripgrep does.
    return stream_.broken_pipe() ? engine::Flow::kStop : engine::Flow::kContinue;
  }

  engine::Flow context_flow(std::uint64_t line_number, std::uint64_t offset,
                            std::string_view line) {
    if (p_.output != Args::Output::kLines || p_.quiet) return engine::Flow::kContinue;
    if (binary_stops_printing()) return engine::Flow::kStop;
    // As ripgrep, under -v the context lines are the matching ones and show their submatches.
    if (p_.json) return json_line("context", line_number, offset, line, invert_);
    heading_once();
    w_.spans.clear();
    w_.expansions.clear();
    const std::string_view bytes = with_terminator(line);
    // As ripgrep: under -v context lines are the matching ones, and their matches are shown
    // when the output needs them.
    if (invert_ && (p_.only_matching || p_.column || p_.vimgrep || color_matches() ||
                    p_.replace != nullptr || p_.stats)) {
      record_matches(line, bytes, true);
    }
    sink(bytes, offset, line_number, true);
    if (w_.out.size() >= p_.stream_threshold) stream_.stream(w_.out);
    return stream_.broken_pipe() ? engine::Flow::kStop : engine::Flow::kContinue;
  }

  void on_context_break() override {
    if (p_.output == Args::Output::kLines && !p_.json) w_.out.append(p_.context_separator);
  }

  void on_binary(std::uint64_t offset, bool /*matched*/) override {
    if (!binary_offset_) binary_offset_ = offset;
  }
  void on_finish(std::uint64_t bytes_searched) override { bytes_searched_ = bytes_searched; }

  // This file's share of the totals (--stats, --json).
  void fill_stats(std::uint64_t bytes_searched, std::chrono::nanoseconds elapsed,
                  Stats& file) const {
    file.searches = 1;
    file.searches_with_match = has_match() ? 1 : 0;
    file.bytes_searched = bytes_searched;
    file.matched_lines = matched_lines_;
    file.matches = matches_;
    file.elapsed = elapsed;
    file.bytes_printed = p_.json ? json_bytes_ : 0;
  }

  // --json: the file's end message.
  void finish_json(const Stats& file) {
    if (!began_) return;
    std::string& o = w_.out;
    o += "{\"type\":\"end\",\"data\":{\"path\":";
    append_json_data(o, path_);
    o += binary_offset_ ? fmt::format(",\"binary_offset\":{}", *binary_offset_)
                        : std::string(",\"binary_offset\":null");
    o += ",\"stats\":{\"elapsed\":";
    append_elapsed(o, file.elapsed, false);
    o += fmt::format(
        ",\"searches\":1,\"searches_with_match\":{},\"bytes_searched\":{},\"bytes_printed\":{},"
        "\"matched_lines\":{},\"matches\":{}}}}}}}\n",
        file.searches_with_match, file.bytes_searched, json_bytes_, matched_lines_, matches_);
  }

  // Writes the per-file summary forms (-l, -c, ...), or the standard printer's binary message,
  // once the file is done.
  void finish() {
    const std::string_view sep = p_.null ? std::string_view("\0", 1) : std::string_view(":");
    if (p_.output == Args::Output::kLines && !p_.quiet && !p_.json && binary_offset_ &&
        lines_ > 0) {
      // ripgrep's printer writes no file separator (or heading) before a binary message alone;
      // with several threads its buffer writer puts one before every file's output.
      if (w_.out.empty() && p_.rg_one_thread) stream_.drop_separator();
      if (p_.with_filename) {
        append_linked_path();
        w_.out.append(": ");
      }
      w_.out.append(convert_ ? "binary file matches"
                             : "WARNING: stopped searching binary file after match");
      w_.out += fmt::format(" (found \"\\0\" byte around offset {})\n", *binary_offset_);
    }
    // ripgrep's summary printer drops a file in which BinaryMode::quit saw binary data.
    if (summary_squashed()) return;
    switch (p_.output) {
      case Args::Output::kFilesWithMatches:
        if (has_match()) append_path_line();
        break;
      case Args::Output::kFilesWithoutMatch:
        if (!has_match()) append_path_line();
        break;
      case Args::Output::kCount:
      case Args::Output::kCountMatches:
        if (!has_match() && !p_.include_zero) break;
        if (p_.with_filename) {
          append_linked_path();
          w_.out.append(sep);
        }
        // In multiline mode ripgrep's -c counts matches, not lines (--count-matches -v is -c:
        // see finish() in args.cpp).
        w_.out +=
            fmt::format("{}", p_.output == Args::Output::kCount && !multi() ? lines_ : matches_);
        w_.out.append(p_.line_term);
        break;
      case Args::Output::kLines:
        break;
    }
  }

  void set_convert(bool c) { convert_ = c; }
  void set_invert(bool v) { invert_ = v; }
  // -m when this printer counts it (the summaries: -c, -l, -q, ...), not the searcher.
  void set_limit(std::optional<std::uint64_t> limit) { limit_ = limit; }
  // The summary's -m is reached (see set_limit): the search of the file is over.
  bool limit_reached() const { return limit_ && (multi() ? matches_ : lines_) >= *limit_; }
  std::uint64_t lines() const { return lines_; }
  // --json: a begin message was written (a match, or --passthru's context lines).
  bool json_began() const { return began_; }
  // Whether the file counts as matching: a reported line, or in multiline mode under -c, -l, -q
  // and the like, a match (an inverted block has none), as ripgrep's summary printer.
  bool has_match() const {
    return multi() && (p_.output != Args::Output::kLines || p_.quiet) ? matches_ > 0 : lines_ > 0;
  }
  // Whether the file makes the search succeed (exit 0), as ripgrep's printers say: a summary
  // dropped for binary data has no match, except that --files-without-match then counts it.
  bool succeeded() const {
    // Under -q ripgrep reports whether a match was found, whatever the output mode.
    if (p_.output == Args::Output::kFilesWithoutMatch && !p_.quiet) {
      return summary_squashed() || !has_match();
    }
    return has_match() && !summary_squashed();
  }
  // The bytes searched as ripgrep counts them (after a BOM is dropped, UTF-16 transcoded; where
  // the search stopped), or `file_bytes` when the searcher did not say.
  std::uint64_t searched_bytes(std::uint64_t file_bytes) const {
    return bytes_searched_.value_or(file_bytes);
  }
  const std::optional<Error>& error() const { return error_; }
  // The bytes of color escapes in this file's output (ripgrep's bytes printed leave them out).
  std::uint64_t color_bytes() const { return color_bytes_; }

 private:
  bool multi() const { return p_.multiline; }

  engine::Flow noted(engine::Flow flow) {
    if (flow == engine::Flow::kStop) stopped_ = true;
    return flow;
  }
  // As ripgrep, matches are colored unless the match spec is empty (--colors match:none).
  bool color_matches() const { return p_.color && !p_.colors->match_none; }
  // The summary printer's (-c, -l, -q, ...) squash: BinaryMode::quit saw binary data.
  bool summary_squashed() const {
    return (p_.output != Args::Output::kLines || p_.quiet) && binary_offset_ && !convert_;
  }
  // The standard printer under BinaryMode::convert once binary data was seen.
  bool binary_stops_printing() const {
    return binary_offset_ && convert_ && p_.output == Args::Output::kLines && !p_.quiet && !p_.json;
  }

  // Whether a line terminator precedes `line` where rg's printer searches it: in the haystack,
  // or under --null-data in its buffer (where `^` then cannot match at the line's start), except
  // a context line, which it searches alone.
  bool after_break(std::string_view line, bool context = false) const {
    if (p_.term == '\n') return line.data() != hay_.data();
    return !context && line.data() != hay_.data() + buffer_start_;
  }

  // `line` (a view into the haystack) with its terminator when the haystack has one right after it.
  std::string_view with_terminator(std::string_view line) const {
    const char* end = line.data() + line.size();
    if (!hay_.empty() && end >= hay_.data() && end < hay_.data() + hay_.size() && *end == p_.term) {
      return std::string_view(line.data(), line.size() + 1);
    }
    return line;
  }

  // What rg's printer finds matches in: the line without its terminator, which under --crlf
  // takes the CR before the LF too.
  std::string_view subject(std::string_view line) const {
    if (p_.crlf && !line.empty() && line.back() == '\r' &&
        with_terminator(line).size() != line.size()) {
      line.remove_suffix(1);
    }
    return line;
  }

  // ripgrep searches a line together with its terminator and reports no match at the very end of
  // that: on the last line of a file without a newline, an empty match after the text is dropped.
  void drop_match_at_end(std::string_view line) {
    if (w_.spans.empty() || line.empty() || with_terminator(line).size() != line.size()) return;
    const engine::MatchSpan& last = w_.spans.back();
    if (last.start != line.size() || last.end != line.size()) return;
    w_.spans.pop_back();
    if (w_.expansions.size() > w_.spans.size()) w_.expansions.pop_back();
  }

  // Finds the matches of a unit into w_.spans (and -r's expansions), then builds the replaced
  // bytes and their match spans into w_.replaced / w_.replaced_spans.
  // In multiline mode a context line is searched alone (as ripgrep: its bytes are the haystack).
  void record_matches(std::string_view line, std::string_view bytes, bool context = false) {
    Status s;
    if (multi() && context) {
      s = patterns_.find_spans_in(bytes, 0, bytes.size(), scratch_, w_.spans, p_.replace,
                                  &w_.expansions);
    } else if (multi()) {
      const auto start = static_cast<std::size_t>(bytes.data() - hay_.data());
      s = patterns_.find_spans_in(hay_, start, start + bytes.size(), scratch_, w_.spans, p_.replace,
                                  &w_.expansions);
    } else if (p_.replace != nullptr) {
      s = patterns_.expand_matches(subject(line), *p_.replace, scratch_, w_.spans, w_.expansions,
                                   after_break(line, context));
      drop_match_at_end(line);
    } else {
      s = patterns_.find_spans(subject(line), scratch_, w_.spans, after_break(line, context));
      drop_match_at_end(line);
    }
    if (!s.ok()) error_ = s.error();
    if (p_.replace == nullptr) return;
    w_.replaced.clear();
    w_.replaced_spans.clear();
    std::size_t at = 0;
    for (std::size_t i = 0; i < w_.spans.size(); ++i) {
      const engine::MatchSpan& m = w_.spans[i];
      if (m.start < at || m.end > bytes.size()) continue;
      w_.replaced.append(bytes.substr(at, m.start - at));
      const std::size_t from = w_.replaced.size();
      w_.replaced.append(w_.expansions[i]);
      w_.replaced_spans.push_back(engine::MatchSpan{from, w_.replaced.size()});
      at = m.end;
    }
    // Line by line, the line terminator after the last match is not part of the replaced text,
    // as in ripgrep's replacer (so -M measures the replaced text alone); the writers add it back.
    std::string_view rest = bytes.substr(std::min(at, bytes.size()));
    if (!multi() && !rest.empty() && rest.back() == p_.term) {
      rest.remove_suffix(1);
      if (p_.crlf && !rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
    }
    w_.replaced.append(rest);
  }

  void sink(std::string_view bytes, std::uint64_t offset, std::uint64_t line_number, bool context) {
    const bool replaced = p_.replace != nullptr && !w_.spans.empty();
    Unit u{replaced ? std::string_view(w_.replaced) : bytes, offset,   line_number, context,
           replaced ? &w_.replaced_spans : &w_.spans,        &w_.spans};
    in_color_ = false;
    if (u.matches->empty()) {
      if (multi() && !context) {
        sink_fast_multi_line(u);
      } else {
        sink_fast(u);
      }
    } else if (multi() && !context) {
      sink_slow_multi_line(u);
    } else {
      sink_slow(u);
    }
  }

  void sink_fast(const Unit& u) {
    prefix(u, u.line_number, std::nullopt, u.offset);
    write_line(u, u.bytes);
  }

  void sink_fast_multi_line(const Unit& u) {
    std::uint64_t offset = u.offset;
    std::uint64_t n = 0;
    for (Range line : lines_of(u.bytes)) {
      prefix(u, u.line_number + n, std::nullopt, offset);
      ++n;
      offset += line.size();
      write_line(u, u.bytes.substr(line.start, line.size()));
      maybe_stream();
    }
  }

  void sink_slow(const Unit& u) {
    const std::vector<engine::MatchSpan>& ms = *u.matches;
    if (p_.only_matching) {
      for (const engine::MatchSpan& m : ms) {
        prefix(u, u.line_number, m.start + 1, u.offset + m.start);
        std::string_view buf = u.bytes.substr(m.start, m.end - m.start);
        const std::vector<engine::MatchSpan> whole{engine::MatchSpan{0, buf.size()}};
        write_colored_line(u, whole, buf);
        maybe_stream();
      }
    } else if (p_.vimgrep) {
      for (const engine::MatchSpan& m : ms) {
        prefix(u, u.line_number, m.start + 1, u.offset + m.start);
        const std::vector<engine::MatchSpan> one{m};
        write_colored_line(u, one, u.bytes);
        maybe_stream();
      }
    } else {
      prefix(u, u.line_number, ms.front().start + 1, u.offset);
      write_colored_line(u, ms, u.bytes);
    }
  }

  void sink_slow_multi_line(const Unit& u) {
    if (p_.only_matching) return sink_slow_multi_line_only_matching(u);
    if (p_.vimgrep) return sink_slow_multi_per_match(u);
    const std::vector<engine::MatchSpan>& ms = *u.matches;
    std::size_t midx = 0;
    std::uint64_t n = 0;
    for (Range line : lines_of(u.bytes)) {
      prefix(u, u.line_number + n, ms.front().start + 1, u.offset + line.start);
      ++n;
      trim_ascii_prefix(u.bytes, line);
      // ripgrep measures each line of the block with its terminator, -r's replaced text too
      // (its replacer keeps the block's last line terminator).
      if (exceeds(line.size())) {
        write_exceeded_line(u, u.bytes, line, ms, midx);
      } else {
        write_colored_matches(u.bytes, line, ms, midx);
        w_.out.append(p_.line_term);
      }
      maybe_stream();
    }
  }

  void sink_slow_multi_line_only_matching(const Unit& u) {
    const std::vector<engine::MatchSpan>& ms = *u.matches;
    std::size_t midx = 0;
    std::uint64_t n = 0;
    for (Range line : lines_of(u.bytes)) {
      trim_line_terminator(u.bytes, line);
      trim_ascii_prefix(u.bytes, line);
      while (!line.empty()) {
        if (ms[midx].end <= line.start) {
          if (midx + 1 < ms.size()) {
            ++midx;
            continue;
          }
          break;
        }
        const engine::MatchSpan m = ms[midx];
        if (line.start < m.start) {
          line.start = std::min(line.end, m.start);
        } else {
          const std::size_t upto = std::min(line.end, m.end);
          prefix(u, u.line_number + n, m.start + 1, u.offset + m.start);
          Range this_line{line.start, upto};
          line.start = upto;
          if (exceeds(this_line.size())) {
            write_exceeded_line(u, u.bytes, this_line, ms, midx);
          } else {
            append_match(u.bytes.substr(this_line.start, this_line.size()));
            w_.out.append(p_.line_term);
          }
          maybe_stream();
        }
      }
      ++n;
    }
  }

  // --vimgrep in multiline mode: one line per match, its first.
  void sink_slow_multi_per_match(const Unit& u) {
    for (const engine::MatchSpan& m : *u.matches) {
      std::uint64_t n = 0;
      for (Range line : lines_of(u.bytes)) {
        if (line.start >= m.end) break;
        if (line.end <= m.start) {
          ++n;
          continue;
        }
        prefix(u, u.line_number + n, (m.start > line.start ? m.start - line.start : 0) + 1,
               u.offset + line.start);
        ++n;
        trim_line_terminator(u.bytes, line);
        trim_ascii_prefix(u.bytes, line);
        if (exceeds(line.size())) {
          std::size_t zero = 0;
          const std::vector<engine::MatchSpan> one{m};
          write_exceeded_line(u, u.bytes, line, one, zero);
          continue;
        }
        while (!line.empty()) {
          if (m.end <= line.start) {
            w_.out.append(u.bytes.substr(line.start, line.size()));
            line.start = line.end;
          } else if (line.start < m.start) {
            const std::size_t upto = std::min(line.end, m.start);
            w_.out.append(u.bytes.substr(line.start, upto - line.start));
            line.start = upto;
          } else {
            const std::size_t upto = std::min(line.end, m.end);
            append_match(u.bytes.substr(line.start, upto - line.start));
            line.start = upto;
          }
        }
        w_.out.append(p_.line_term);
        maybe_stream();
        break;  // vimgrep wants one line per match
      }
    }
  }

  // The lines of `bytes`, each with its terminator.
  std::vector<Range> lines_of(std::string_view bytes) const {
    std::vector<Range> out;
    std::size_t at = 0;
    while (at < bytes.size()) {
      std::size_t nl = bytes.find(p_.term, at);
      std::size_t end = nl == std::string_view::npos ? bytes.size() : nl + 1;
      out.push_back(Range{at, end});
      at = end;
    }
    return out;
  }

  // Writes what is buffered once it passes the threshold, so one line with a million matches
  // (-o, --vimgrep) never holds its whole output in memory.
  void maybe_stream() {
    if (w_.out.size() >= p_.stream_threshold) stream_.stream(w_.out);
  }

  bool exceeds(std::size_t len) const { return p_.max_columns && len > *p_.max_columns; }

  void trim_ascii_prefix(std::string_view bytes, Range& r) const {
    if (!p_.trim) return;
    while (r.start < r.end) {
      const char c = bytes[r.start];
      // As rg, a byte of the line terminator (--crlf's CR) is never trimmed; a LF is under
      // --null-data.
      if (c != '\t' && c != '\x0B' && c != '\x0C' && (c != '\r' || p_.crlf) && c != ' ' &&
          (c != '\n' || p_.term == '\n')) {
        break;
      }
      ++r.start;
    }
  }
  void trim_line_terminator(std::string_view bytes, Range& r) const {
    if (r.end > r.start && bytes[r.end - 1] == p_.term) {
      --r.end;
      if (p_.crlf && r.end > r.start && bytes[r.end - 1] == '\r') --r.end;
    }
  }

  void write_line(const Unit& u, std::string_view line) {
    Range r{0, line.size()};
    trim_ascii_prefix(line, r);
    line = line.substr(r.start);
    if (exceeds(line.size())) {
      std::size_t zero = 0;
      write_exceeded_line(u, line, Range{0, line.size()}, *u.matches, zero);
      return;
    }
    w_.out.append(line);
    if (line.empty() || line.back() != p_.term) w_.out.append(p_.line_term);
  }

  void write_colored_line(const Unit& u, const std::vector<engine::MatchSpan>& matches,
                          std::string_view bytes) {
    if (!color_matches()) return write_line(u, bytes);
    Range line{0, bytes.size()};
    trim_ascii_prefix(bytes, line);
    std::size_t zero = 0;
    if (exceeds(bytes.size())) return write_exceeded_line(u, bytes, line, matches, zero);
    write_colored_matches(bytes, line, matches, zero);
    w_.out.append(p_.line_term);
  }

  // The `line` part of `bytes` with its matches colored (never a line terminator).
  void write_colored_matches(std::string_view bytes, Range line,
                             const std::vector<engine::MatchSpan>& matches, std::size_t& idx) {
    trim_line_terminator(bytes, line);
    if (matches.empty()) {
      w_.out.append(bytes.substr(line.start, line.size()));
      return;
    }
    while (!line.empty()) {
      if (matches[idx].end <= line.start) {
        if (idx + 1 < matches.size()) {
          ++idx;
          continue;
        }
        end_color();
        w_.out.append(bytes.substr(line.start, line.size()));
        break;
      }
      const engine::MatchSpan m = matches[idx];
      if (line.start < m.start) {
        const std::size_t upto = std::min(line.end, m.start);
        end_color();
        w_.out.append(bytes.substr(line.start, upto - line.start));
        line.start = upto;
      } else {
        const std::size_t upto = std::min(line.end, m.end);
        start_color();
        w_.out.append(bytes.substr(line.start, upto - line.start));
        line.start = upto;
      }
    }
    end_color();
  }

  // A line longer than --max-columns: a preview of its start, or a one-line note.
  void write_exceeded_line(const Unit& u, std::string_view bytes, Range line,
                           const std::vector<engine::MatchSpan>& matches, std::size_t& idx) {
    if (p_.max_columns_preview) {
      const Range original = line;
      line.end = line.start + engine::grapheme_prefix(bytes.substr(line.start, line.size()),
                                                      static_cast<std::size_t>(*p_.max_columns));
      write_colored_matches(bytes, line, matches, idx);
      if (matches.empty()) {
        w_.out.append(" [... omitted end of long line]");
      } else {
        const auto remaining = std::count_if(matches.begin(), matches.end(), [&](const auto& m) {
          return m.start >= line.end && m.start < original.end;
        });
        w_.out += fmt::format(" [... {} more {}]", remaining, remaining == 1 ? "match" : "matches");
      }
      w_.out.append(p_.line_term);
      return;
    }
    if (u.original->empty() || p_.only_matching) {
      w_.out.append(u.context ? "[Omitted long context line]" : "[Omitted long matching line]");
    } else {
      w_.out += fmt::format("[Omitted long line with {} matches]", u.original->size());
    }
    w_.out.append(p_.line_term);
  }

  void start_color() {
    if (!p_.color || in_color_) return;
    w_.out.append(p_.colors->match);
    color_bytes_ += p_.colors->match.size();
    in_color_ = true;
  }
  void end_color() {
    if (!in_color_) return;
    w_.out.append(kReset);
    color_bytes_ += kReset.size();
    in_color_ = false;
  }

  // One --json match or context message (a begin message first, once), with the submatches
  // when `spans`.
  engine::Flow json_line(std::string_view type, std::uint64_t line_number, std::uint64_t offset,
                         std::string_view line, bool spans) {
    std::string& o = w_.out;
    const std::size_t before = o.size();
    if (!began_) {
      began_ = true;
      o += "{\"type\":\"begin\",\"data\":{\"path\":";
      append_json_data(o, path_);
      o += "}}\n";
    }
    // ripgrep's "lines" keep the line terminator when the file has one there.
    const std::string_view with_end = with_terminator(line);
    w_.spans.clear();
    if (spans) {
      Status st;
      if (multi() && type == "context") {  // searched alone, as in ripgrep
        st = patterns_.find_spans_in(with_end, 0, with_end.size(), scratch_, w_.spans);
      } else if (multi()) {
        const auto start = static_cast<std::size_t>(line.data() - hay_.data());
        st = patterns_.find_spans_in(hay_, start, start + with_end.size(), scratch_, w_.spans);
      } else {
        st = patterns_.find_spans(subject(line), scratch_, w_.spans,
                                  after_break(line, type == "context"));
        drop_match_at_end(line);
      }
      if (!st.ok()) error_ = st.error();
      if (type == "match") matches_ += w_.spans.size();
    }
    o += fmt::format("{{\"type\":\"{}\",\"data\":{{\"path\":", type);
    append_json_data(o, path_);
    o += ",\"lines\":";
    append_json_data(o, with_end);
    // As rg, null under -N.
    if (p_.line_numbers) {
      o += fmt::format(",\"line_number\":{}", line_number);
    } else {
      o += ",\"line_number\":null";
    }
    o += fmt::format(",\"absolute_offset\":{},\"submatches\":[", offset);
    for (std::size_t i = 0; i < w_.spans.size(); ++i) {
      const engine::MatchSpan& m = w_.spans[i];
      o += i > 0 ? ",{\"match\":" : "{\"match\":";
      append_json_data(o, with_end.substr(std::min(m.start, with_end.size()), m.end - m.start));
      o += fmt::format(",\"start\":{},\"end\":{}}}", m.start, m.end);
    }
    o += "]}}\n";
    json_bytes_ += o.size() - before;
    if (o.size() >= p_.stream_threshold) stream_.stream(o);
    return stream_.broken_pipe() ? engine::Flow::kStop : engine::Flow::kContinue;
  }

  void append_colored(std::string_view color, std::string_view text) {
    if (!p_.color) {
      w_.out.append(text);
      return;
    }
    w_.out.append(color);
    w_.out.append(text);
    w_.out.append(kReset);
    color_bytes_ += color.size() + kReset.size();
  }
  void append_path() { append_colored(p_.colors->path, printed_path_); }
  // The {path} of this file's links (computed once), or null when it gets none.
  const std::string* link_path() {
    if (p_.hyperlinks == nullptr) return nullptr;
    // As rg, the path as printed (--path-separator included) is what gets canonicalized.
    if (!link_path_) link_path_ = Hyperlinker::link_path(printed_path_);
    return *link_path_ ? &**link_path_ : nullptr;
  }
  // Opens a link (rg's start_hyperlink); false when the file gets none.
  bool open_link(std::optional<std::uint64_t> line, std::optional<std::uint64_t> column) {
    const std::string* target = link_path();
    if (target == nullptr) return false;
    const std::size_t before = w_.out.size();
    p_.hyperlinks->open(w_.out, *target, line, column);
    color_bytes_ += w_.out.size() - before;  // escapes, as colors: not in --stats' bytes printed
    return true;
  }
  void close_link() {
    const std::size_t before = w_.out.size();
    Hyperlinker::close(w_.out);
    color_bytes_ += w_.out.size() - before;
  }
  // The path alone in its link (rg's write_path_hyperlink: headings, -l, -c, binary messages).
  void append_linked_path() {
    const bool linked = open_link(std::nullopt, std::nullopt);
    append_path();
    if (linked) close_link();
  }
  void append_match(std::string_view text) { append_colored(p_.colors->match, text); }
  void append_path_line() {
    append_linked_path();
    if (p_.null) {
      w_.out.push_back('\0');
    } else {
      w_.out.append(p_.line_term);
    }
  }
  void heading_once() {
    if (!p_.heading || !p_.with_filename || heading_done_) return;
    heading_done_ = true;
    append_path_line();
  }
  // "path:line:column:offset:" for matches, "path-line-offset-" for context lines (which have
  // no column).
  // As rg's PreludeWriter, a link (--hyperlink-format) spans the fields, not the last separator;
  // under --heading only a format with {line} links each line.
  void prefix(const Unit& u, std::uint64_t line_number, std::optional<std::size_t> column,
              std::uint64_t offset) {
    const std::string_view sep = u.context ? p_.field_context_separator : p_.field_match_separator;
    const bool linked =
        p_.hyperlinks != nullptr && p_.with_filename &&
        (p_.hyperlinks->line_dependent() || !p_.heading) &&
        open_link(p_.line_numbers ? std::optional<std::uint64_t>(line_number) : std::nullopt,
                  column);
    std::string_view owed;  // the separator that goes before the next field
    if (p_.with_filename && !p_.heading) {
      append_path();
      owed = p_.null ? std::string_view("\0", 1) : sep;
    }
    if (p_.line_numbers) {
      w_.out.append(owed);
      append_colored(p_.colors->line, fmt::format("{}", line_number));
      owed = sep;
    }
    if (p_.column && column) {
      w_.out.append(owed);
      append_colored(p_.colors->column, fmt::format("{}", *column));
      owed = sep;
    }
    if (p_.byte_offset) {
      w_.out.append(owed);
      append_colored(p_.colors->column, fmt::format("{}", offset));
      owed = sep;
    }
    if (linked) close_link();
    w_.out.append(owed);
  }
  void count_matches(std::string_view line) {
    if (invert_) return;  // an inverted line has no match (--count-matches -v counts lines)
    w_.spans.clear();
    Status s;
    if (multi()) {
      const auto start = static_cast<std::size_t>(line.data() - hay_.data());
      s = patterns_.find_spans_in(hay_, start, start + with_terminator(line).size(), scratch_,
                                  w_.spans);
    } else {
      s = patterns_.find_spans(subject(line), scratch_, w_.spans, after_break(line));
      drop_match_at_end(line);
    }
    if (!s.ok()) error_ = s.error();
    matches_ += w_.spans.size();
  }

  const PrintOptions& p_;
  const engine::PatternSet& patterns_;
  engine::PatternSet::Scratch& scratch_;
  Worker& w_;
  std::string_view path_;          // as --json and messages show it
  std::string_view printed_path_;  // as the standard and summary printers show it
  std::string shown_path_;         // --path-separator's copy
  std::optional<std::optional<std::string>> link_path_;  // link_path() once known
  OutputStream& stream_;
  std::string_view hay_;
  std::size_t buffer_start_ = 0;     // see on_buffer
  std::uint64_t lines_ = 0;          // reported lines (blocks, in multiline mode)
  std::uint64_t matched_lines_ = 0;  // lines in them
  std::uint64_t matches_ = 0;
  bool convert_ = false;  // BinaryMode::kConvert (else kQuit or kText)
  bool invert_ = false;
  std::optional<std::uint64_t> limit_;
  bool heading_done_ = false;
  bool in_color_ = false;
  std::uint64_t color_bytes_ = 0;  // escape sequences written (not in --stats' bytes printed)
  bool began_ = false;             // --json: the begin message was written
  bool stopped_ = false;           // a line said stop
  std::uint64_t json_bytes_ = 0;
  std::optional<std::uint64_t> binary_offset_;
  std::optional<std::uint64_t> bytes_searched_;
  std::optional<Error> error_;
};

// Search::search_stream's reader of `bytes`, the file `buffer` holds (mapped, or filled as it is
// read): each read gives a view of the next bytes, and the buffer drops what the last view held.
class HeldReader {
 public:
  HeldReader(engine::FileBuffer& buffer, std::string_view bytes) : buffer_(buffer), bytes_(bytes) {}

  Result<std::string_view> operator()(std::size_t n) {
    buffer_.release_before(bytes_.data() + at_);
    n = std::min(n, bytes_.size() - at_);
    if (n == 0) return std::string_view();
    if (buffer_.filling()) CTX_TRY(buffer_.fill_to(at_ + n));
    const std::string_view next = bytes_.substr(at_, n);
    at_ += n;
    return next;
  }

 private:
  engine::FileBuffer& buffer_;
  std::string_view bytes_;
  std::size_t at_ = 0;
};

// Search::search_stream's reader of stdin: each read gives a view of what one read(2) into
// `reads` (kStreamReadBytes, made at the first read) brought.
class StdinReader {
 public:
  explicit StdinReader(std::unique_ptr<char[]>& reads) : reads_(reads) {}

  Result<std::string_view> operator()(std::size_t n) {
    if (reads_ == nullptr) reads_ = std::make_unique_for_overwrite<char[]>(kStreamReadBytes);
    for (;;) {
      const ssize_t got = ::read(STDIN_FILENO, reads_.get(), std::min(n, kStreamReadBytes));
      if (got >= 0) return std::string_view(reads_.get(), static_cast<std::size_t>(got));
      if (errno != EINTR) return Error::from_errno(errno, "<stdin>");
    }
  }

 private:
  std::unique_ptr<char[]>& reads_;
};

class Search {
 public:
  static constexpr std::size_t kWindowBytes = std::size_t{1} << 20;  // see SearchOptions

  Search(const Args& args, engine::PatternSet patterns, PrintOptions print)
      : args_(args), patterns_(std::move(patterns)), print_(print), workers_([this] {
          return Worker{patterns_.make_scratch(), {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
        }) {
    out_.set_messages(!args.no_messages);
  }

  // Searches one file; the output is written (whole, or streamed past a threshold) before return.
  // With `dir_fd` >= 0 the file is opened as the NUL-terminated `name` in that directory
  // (`short_read_is_end`: see WalkEntry).
  void search_file(std::string_view path, bool explicit_file, Worker& w, int dir_fd = -1,
                   std::string_view name = {}, bool short_read_is_end = false) {
    w.out.clear();
    debug_line(args_, 2, "searching {}", path);
    OutputStream stream(out_, group_separator());
    std::string owned(path);
    const bool is_stdin = path == "-";
    // stdin from a pipe, socket or terminal is searched as it arrives (see search_stream), context
    // lines too, unless multiline mode needs it whole. (Nor where ripgrep's regex runs over its
    // roll buffer, whose rounds pieces would not be, or with --stop-on-nonmatch.)
    const bool streamed = is_stdin && stdin_is_stream() && !print_.multiline &&
                          !args_.search.stop_on_nonmatch && !patterns_.searches_buffer();
    // Multiline mode reads whole files: ripgrep looks for binary data in their first 64 KiB only.
    // (-E: the NUL bytes that count are the decoded ones, so files are read whole.)
    // --null-data implies --text, as in rg.
    const bool text = args_.text || print_.term == '\0';
    const bool quit_on_binary =
        !text && !explicit_file && !args_.binary && !print_.multiline && !args_.search.encoding;
    Result<std::string_view> bytes = std::string_view();
    // --pre and -z: the output of a program is searched instead (never for stdin), as ripgrep
    // reads it: through its roll buffer.
    bool piped = false;
    std::optional<ProgramFailure> program_failed;  // --pre / -z: the program ran and failed
    if (!is_stdin && (!args_.pre.empty() || args_.search_zip)) {
      std::optional<Status> ran = run_filter(owned, dir_fd, name, w.piped, program_failed);
      if (ran) {
        if (!ran->ok()) {
          out_.error(fmt::format("{}: {}", path, ran->error().detail));
          return;
        }
        piped = true;
        bytes = std::string_view(w.piped);
      }
    }
    if (!streamed && !piped) {
      w.buffer.allow_mapping(args_.mmap != Args::Mmap::kNever);
      // --no-mmap: a large file arrives as the search goes (not with --crlf, whose check for a
      // CR byte below reads the whole file).
      w.buffer.allow_filling(!plain_);
      // A large file named among more than 10 paths is searched as ripgrep reads it, through its
      // roll buffer, which converts NUL bytes as they come: it arrives a window at a time (still
      // mapped, unless --no-mmap), not looked through whole for a NUL first. So is a walked file
      // under --binary (ripgrep converts its NULs as they come too): converted whole first, a
      // 500 MB pack cost a second for `--binary -l e`, which stops at its first match.
      const bool converts = explicit_file || (args_.binary && !text);
      w.buffer.prefer_filling(converts && !(explicit_file && whole_files_));
      bytes =
          is_stdin ? w.buffer.read_fd(STDIN_FILENO, "<stdin>", false)
          : dir_fd >= 0
              ? w.buffer.read_at(dir_fd, name.data(), path, quit_on_binary, short_read_is_end)
              : w.buffer.read_at(AT_FDCWD, owned.c_str(), path, quit_on_binary, short_read_is_end);
    }
    if (!bytes.ok()) {
      out_.error(bytes.error().detail);
      return;
    }
    // A large file that ripgrep decodes (a UTF-16 BOM, -E) it reads through its decoder and roll
    // buffer, never whole: it is searched as a stream of decoded pieces too (search_stream), so it
    // costs a piece of memory, not its size (decoded whole, a 118 MB UTF-16 file took 182 MB).
    const bool held_stream = !streamed && !piped && decodes_held_file(w.buffer, *bytes, text);
    // Summaries (-c, -l, -q, ...) keep the context options: they print no context line, but
    // ripgrep's searcher still steps over those lines (which decides where it notices binary
    // data), and its printer ignores them.
    engine::SearchOptions options = args_.search;
    options.binary = text                              ? engine::BinaryMode::kText
                     : (explicit_file || args_.binary) ? engine::BinaryMode::kConvert
                                                       : engine::BinaryMode::kQuit;
    options.line_numbers = print_.line_numbers;
    // ripgrep memory-maps the files named on the command line when they are all it searches.
    options.whole_file = whole_files_ && explicit_file && !is_stdin && !piped;
    // --null-data: ripgrep's regex names NUL as its line terminator, for which its searcher steps
    // line by line too (unless the regex runs over its buffer: PatternSet::searches_buffer).
    options.slow_lines = args_.pattern.pcre2 || args_.search.passthru ||
                         (print_.term == '\0' && !patterns_.searches_buffer());
    options.stdin_reader = is_stdin;
    // A large mapped file is searched a window at a time, its pages dropped behind the search; a
    // large file read without a map arrives a window at a time.
    // (The searches of a stream see its pieces, not the buffer.)
    const bool streams = streamed || held_stream;
    const bool buffer_searched = !piped && !streams;
    const bool filling = buffer_searched && w.buffer.filling();
    options.window_bytes = (buffer_searched && w.buffer.mapped()) || filling ? kWindowBytes : 0;
    options.fill = filling ? &w.buffer : nullptr;
    std::string_view shown = is_stdin ? std::string_view("<stdin>") : path;
    const auto started = std::chrono::steady_clock::now();
    // --crlf on a file without a CR byte matches as without --crlf (except -P, whose lines keep
    // their LF): the set without it keeps the Hyperscan and BitMatcher prefilters.
    const bool plain =
        plain_ && !streams && std::string_view(*bytes).find('\r') == std::string_view::npos;
    if (plain && !w.plain_scratch) w.plain_scratch.emplace(plain_->make_scratch());
    const engine::PatternSet& set = plain ? *plain_ : patterns_;
    engine::PatternSet::Scratch& scratch = plain ? *w.plain_scratch : w.scratch;
    // Room for a file's output up to where it is streamed (and a long line past it): grown by
    // doubling, it touched more pages (-j1 ERROR printing 1.3 MB of a 128 MB log: 2,893 -> 2,538
    // page faults). Untouched room costs no memory.
    if (print_.stream_threshold == kStreamThreshold && w.out.capacity() < kStreamThreshold) {
      w.out.reserve(kStreamThreshold + (std::size_t{64} << 10));
    }
    FilePrinter printer(print_, set, scratch, w, shown, stream);
    printer.set_convert(options.binary == engine::BinaryMode::kConvert);
    printer.set_invert(options.invert);
    // ripgrep's summary printers (-c, -l, -q, ...) hold -m and decide when to quit: they count
    // lines, or the matches of each block when a pattern can match a line feed; -q and -l quit
    // at the first one unless --stats wants the totals of a whole search.
    const bool printer_limits = print_.output != Args::Output::kLines || args_.quiet;
    if (printer_limits) {
      printer.set_limit(options.max_count);
      options.max_count.reset();
    }
    std::uint64_t total_bytes = bytes->size();
    // A large named file is searched in chunks on several threads, where its output allows it
    // (the printer sees the same calls; --stats and --json count what one search would).
    const bool chunked = buffer_searched && !printer_limits_quit() && !args_.stats &&
                         !print_.json && !options.max_count &&
                         can_search_in_chunks(set, options, *bytes, chunk_limits());
    if (chunked) debug_line(args_, 2, "{}: searched in chunks on several threads", shown);
    Status searched = [&]() -> Status {
      if (streamed)
        return search_stream(printer, options, w, stream, total_bytes, StdinReader(w.stdin_reads));
      if (held_stream) {
        return search_stream(printer, options, w, stream, total_bytes,
                             HeldReader(w.buffer, *bytes));
      }
      if (chunked) {
        return search_in_chunks(set, plain ? plain_chunk_scratches_ : chunk_scratches_, options,
                                *bytes, w.buffer, printer, chunk_limits());
      }
      CTX_TRY(engine::search_buffer(set, scratch, options, *bytes, printer));
      return {};
    }();
    if (!searched.ok()) out_.error(fmt::format("{}: {}", shown, searched.error().detail));
    if (w.buffer.truncated()) {
      out_.error(
          fmt::format("{}: the file shrank while it was searched; what it held past its new "
                      "end was not searched (search it again)",
                      shown));
    }
    if (printer.error()) out_.error(fmt::format("{}: {}", shown, printer.error()->detail));
    const ProgramEnd program_end =
        end_of_program(program_failed, printer.stopped(options),
                       w.piped.size() - std::min(w.piped.size(), printer.searched_bytes(0)), shown);
    if (program_end != ProgramEnd::kFailedAtEnd) printer.finish();
    // As ripgrep, --json's summary counts only the files it printed (a begin message); --stats all,
    // and so does --json -q (ripgrep's summary printer then counts, with its statistics on).
    const bool json_counts_all = print_.json && args_.quiet;
    if ((print_.json && !json_counts_all && printer.json_began()) ||
        (args_.stats && (!print_.json || json_counts_all))) {
      Stats file;
      // A search cut short (-m, binary data) says where it stopped, as ripgrep counts.
      const std::uint64_t searched_bytes =
          streams ? total_bytes : printer.searched_bytes(total_bytes);
      printer.fill_stats(searched_bytes, std::chrono::steady_clock::now() - started, file);
      if (print_.json && program_end != ProgramEnd::kFailedAtEnd) printer.finish_json(file);
      std::lock_guard lock(stats_mutex_);
      if (program_end != ProgramEnd::kOk) {
        stats_.uncounted_bytes += w.out.size();
        return finish_stream(stream, w);
      }
      stats_.searches += file.searches;
      stats_.searches_with_match += file.searches_with_match;
      stats_.bytes_searched += file.bytes_searched;
      stats_.bytes_printed += file.bytes_printed;
      stats_.color_bytes += printer.color_bytes();
      stats_.matched_lines += file.matched_lines;
      stats_.matches += file.matches;
      stats_.elapsed += file.elapsed;
    }
    if (printer.succeeded() && program_end == ProgramEnd::kOk) {
      matched_.store(true, std::memory_order_relaxed);
      if (args_.quiet && !args_.stats) quit_run();
    }
    finish_stream(stream, w);
  }

  // -q found its match: the search stops (and the ordered run drops what comes after).
  void quit_run() {
    stop_.store(true, std::memory_order_relaxed);
    quit_on_this_thread = true;
  }

  void finish_stream(OutputStream& stream, Worker& w) {
    if (out_.broken_pipe()) stop_.store(true, std::memory_order_relaxed);
    if (args_.quiet) w.out.clear();
    stream.finish(w.out);
  }

  // A --pre / -z program that started and failed: what ripgrep says where the search reads the
  // end of its output (`at_end`), or when it closes the program (`own`: the program's stderr).
  struct ProgramFailure {
    std::string at_end;
    std::string own;
    bool stderr_empty = false;
  };

  // How the search of a --pre / -z program's output ends, as ripgrep's CommandReader: a program
  // that failed fails the read of the end of its output (reported as such, the file's summary,
  // statistics and match left out), or, when the search stopped before that end, the closing of
  // the program, where only a failure that wrote to stderr is reported (the file's output
  // stays, its statistics and match do not count).
  enum class ProgramEnd { kOk, kFailedAtEnd, kFailedAfterStop };
  // (`unread`: the bytes of output past where the search stopped.)
  ProgramEnd end_of_program(const std::optional<ProgramFailure>& failed, bool stopped,
                            std::size_t unread, std::string_view shown) {
    if (!failed) return ProgramEnd::kOk;
    // Past what ripgrep reads ahead (its 64 KiB buffer) and the pipe holds (64 KiB), a program
    // is still writing when ripgrep closes it, and SIGPIPE ends it: no error. (Closer to the end,
    // whether it finished first is a race in ripgrep.)
    if (stopped && unread > (std::size_t{128} << 10)) return ProgramEnd::kOk;
    if (!stopped) {
      out_.error(fmt::format("{}: {}", shown, failed->at_end));
      return ProgramEnd::kFailedAtEnd;
    }
    if (failed->stderr_empty) return ProgramEnd::kOk;
    out_.error(fmt::format("{}: {}", shown, failed->own));
    return ProgramEnd::kFailedAfterStop;
  }

  // --pre / -z for `path` (opened as `name` in `dir_fd` when dir_fd >= 0): nullopt when no program
  // applies (the file is searched as it is); else its output went to `out`, and the status says
  // whether it could be searched (rg's messages); `failed` is set when the program ran and failed
  // (its output is still searched: see end_of_program).
  std::optional<Status> run_filter(const std::string& path, int dir_fd, std::string_view name,
                                   std::string& out, std::optional<ProgramFailure>& failed) {
    std::vector<std::string> argv;
    const bool pre = !args_.pre.empty() && pre_wanted(path);
    if (pre) {
      argv = {args_.pre, path};
    } else if (args_.search_zip) {
      argv = decompressor_for(path);
    }
    if (argv.empty()) return std::nullopt;
    debug_line(args_, 2, "{}: searching the output of {}", path, quoted_command(argv));
    // --pre's program reads the file on its stdin; a decompressor gets the path alone.
    int fd = -1;
    if (pre) {
      fd = dir_fd >= 0 ? ::openat(dir_fd, name.data(), O_RDONLY | O_CLOEXEC)
                       : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return Status(Error::from_errno(errno, path));
    }
    RunEnd how = RunEnd::kSucceeded;
    Status ran = run_and_capture(argv, fd, out, &how);
    if (fd >= 0) ::close(fd);
    if (ran.ok()) return ran;
    if (how == RunEnd::kNotStarted) {
      // As ripgrep: a decompressor that cannot start leaves the file searched as it is.
      if (!pre) return std::nullopt;
      return Status(
          Error{ran.error().code, fmt::format("preprocessor command could not start: '{}': {}",
                                              quoted_command(argv), ran.error().detail)});
    }
    if (how == RunEnd::kTooLarge) return ran;  // not searched
    ProgramFailure& f = failed.emplace();
    f.own = ran.error().detail;
    f.stderr_empty = f.own == kEmptyStderr;
    f.at_end =
        pre ? fmt::format("preprocessor command failed: '{}': {}", quoted_command(argv), f.own)
            : f.own;
    return Status();
  }

  // --pre-glob: whether --pre runs on `path` (all files without globs), as rg's override globs.
  bool pre_wanted(std::string_view path) const {
    if (pre_globs_.empty()) return true;
    if (path.substr(0, 2) == "./") path.remove_prefix(2);
    return pre_globs_.match(path, false) != walker::MatchKind::kIgnore;
  }

  // The --pre-glob globs (checked by the caller).
  void set_pre_globs(walker::Overrides globs) { pre_globs_ = std::move(globs); }
  // --crlf: the patterns compiled without it, used for files without a CR byte.
  void set_plain_patterns(engine::PatternSet plain) { plain_.emplace(std::move(plain)); }

  // Whether ripgrep would memory-map the files named on the command line (then it has each whole
  // in memory, which decides where it notices binary data): when they are all it searches.
  void set_whole_files(bool whole) { whole_files_ = whole; }
  void set_block_buffering() { out_.set_block_buffering(kBlockBytes, kBlockMaxDelay); }

  static bool stdin_is_stream() {
    struct stat st {};
    return ::fstat(STDIN_FILENO, &st) == 0 && !S_ISREG(st.st_mode);
  }

  // Searches stdin as it arrives: each read's complete lines are searched (line numbers and
  // offsets continue from the last piece; context lines carry over, see engine::PieceSearch) and
  // their output written at once, so `tail -f | ...` prints as lines come and `yes | ... | head
  // -1` ends when the reader leaves. Memory holds one piece, the unfinished line and the -B lines
  // kept. Text in another encoding (-E, a UTF-16 BOM) is decoded as it
  // arrives and its lines searched as UTF-8 (offsets count the UTF-8, as ripgrep's). A NUL byte
  // (binary data; under decoding a decoded one) makes the rest be read whole and searched as one
  // piece, as a file would be: the raw bytes, decoded by the search itself, when nothing was
  // searched yet. `total` gets the bytes searched, as the searches counted them (decoded ones).
  //
  // `read` gives the stream's next bytes: read(n) returns a view of up to n of them (empty: the
  // end; valid until the next call), or an error (see StdinReader, HeldReader).
  template <class Read>
  Status search_stream(FilePrinter& printer, const engine::SearchOptions& options, Worker& w,
                       OutputStream& stream, std::uint64_t& total, Read read) {
    std::string& buf = w.stream;        // bytes read and not yet searched (decoding: fed)
    std::string& text = w.stream_text;  // decoding: decoded and not yet searched
    buf.clear();
    text.clear();
    std::uint64_t base = 0, line = 1, reported = 0, searched = 0;
    bool eof = false, whole = false;
    bool planned = false;  // the first bytes decided whether to decode (plan_decoding)
    std::optional<engine::Decoder> decoder;
    std::size_t fed = 0;  // decoding: the bytes of `buf` given to the decoder
    engine::PieceSearch pieces;
    engine::SearchOptions decoded_options = options;  // its pieces are UTF-8 already
    decoded_options.encoding.reset();
    decoded_options.bom_sniffing = false;
    total = 0;
    while (!eof) {
      const std::size_t old = buf.size();
      CTX_TRY_ASSIGN(const std::string_view arrived, read(kStreamReadBytes));
      eof = arrived.empty();
      // Decoding past the first search, the raw bytes are not kept: decoded where they are.
      const bool decode_in_place = decoder && base > 0 && buf.empty();
      if (!decode_in_place) buf.append(arrived);
      if (!planned) {
        // A BOM (or -E's encoding) decides; up to 3 bytes are needed where one may start.
        const bool bom_lead =
            !buf.empty() && (buf[0] == '\xEF' || buf[0] == '\xFF' || buf[0] == '\xFE');
        if (buf.size() < 3 && !eof && options.bom_sniffing && (bom_lead || buf.empty())) continue;
        planned = true;
        const engine::DecodePlan plan = engine::plan_decoding(
            std::string_view(buf).substr(0, 3), options.encoding, options.bom_sniffing);
        if (plan.decoder) {
          decoder.emplace(*plan.decoder, true);
          fed = plan.skip;
        }
      }
      const bool searched_any = base > 0;
      if (decoder) {
        const std::size_t from = text.size();
        decoder->decode(decode_in_place ? arrived : std::string_view(buf).substr(fed), eof, text);
        fed = buf.size();
        if (!whole && options.binary != engine::BinaryMode::kText &&
            text.find('\0', from) != std::string::npos) {
          whole = true;
          if (!searched_any) {  // the raw bytes, searched whole as a file would be
            decoder.reset();
            text.clear();
          }
        }
        if (decoder && searched_any) {  // the raw bytes are only kept for that
          buf.clear();
          fed = 0;
        }
      } else if (!whole && options.binary != engine::BinaryMode::kText &&
                 std::string_view(buf).find('\0', old) != std::string_view::npos) {
        whole = true;  // read the rest, then search it as one piece
      }
      if (whole && !eof) continue;
      std::string& pending = decoder ? text : buf;
      std::size_t cut = pending.size();
      if (!eof) {
        // (memrchr: std::string::rfind steps a byte at a time, through the whole of a long line.)
        const void* nl = ::memrchr(pending.data(), print_.term, pending.size());
        if (nl == nullptr) continue;  // no complete line yet
        cut = static_cast<std::size_t>(static_cast<const char*>(nl) - pending.data()) + 1;
      }
      const std::string_view piece(pending.data(), cut);
      if (!piece.empty()) {
        engine::SearchOptions o = decoder ? decoded_options : options;
        o.base_offset = base;
        o.first_line_number = line;
        if (options.max_count) o.max_count = *options.max_count - reported;
        CTX_TRY_ASSIGN(std::uint64_t got, pieces.search(patterns_, w.scratch, o, piece, printer));
        reported += got;
        // (The bytes kept from earlier pieces were counted with them.)
        const std::size_t kept = pieces.kept();
        searched +=
            std::max<std::uint64_t>(printer.searched_bytes(kept + piece.size()), kept) - kept;
        if (options.line_numbers) line += engine::count_byte(piece, print_.term);
        // Offsets count from after a UTF-8 BOM, as for files.
        const bool utf8_bom =
            !decoder && base == 0 && options.bom_sniffing && piece.substr(0, 3) == "\xEF\xBB\xBF";
        base += piece.size() - (utf8_bom ? 3 : 0);
        pending.erase(0, cut);
        if (decoder) {  // the raw bytes were kept until the first search
          buf.clear();
          fed = 0;
        }
      }
      if (!args_.quiet && !w.out.empty()) stream.stream(w.out);
      const bool done_with_file = !args_.stats && printer.has_match() && printer_limits_quit();
      // (Past -m, the after-context lines still due come from the next pieces.)
      // (A summary's -m held by the printer ends it too: a later piece would count on.)
      if (out_.broken_pipe() || done_with_file || printer.limit_reached() ||
          (options.max_count && reported >= *options.max_count && !pieces.after_context_due())) {
        break;
      }
    }
    total = searched;
    return {};
  }

  // Whether the file `buffer` holds as `bytes` is one to search as a stream of decoded pieces
  // (see search_file): large enough to be windowed, mapped or filled, decoded (its first bytes,
  // -E), searched line by line without ripgrep's regex over its roll buffer (as stdin is
  // streamed), and without a decoded NUL unless searched as `text`.
  bool decodes_held_file(engine::FileBuffer& buffer, std::string_view bytes, bool text) const {
    if (bytes.size() / 2 <= kWindowBytes || !(buffer.mapped() || buffer.filling()) ||
        print_.multiline || args_.search.stop_on_nonmatch || patterns_.searches_buffer()) {
      return false;
    }
    if (buffer.filling() && !buffer.fill_to(3).ok()) return false;  // the search reports it
    const engine::DecodePlan plan =
        engine::plan_decoding(bytes.substr(0, 3), args_.search.encoding, args_.search.bom_sniffing);
    if (!plan.decoder) return false;
    if (text) return true;
    // Binary data: where ripgrep notices a decoded NUL depends on its decoder's and roll
    // buffer's reads, which the whole-file search models and pieces would not: such a file is
    // searched whole (looked for first, without keeping the bytes).
    bool nul = false;
    const Status scanned = buffer.scan(plan.skip, [&](std::string_view piece) {
      nul = engine::may_decode_to_nul(*plan.decoder, piece);
      return !nul;
    });
    return scanned.ok() && !nul;
  }

  // Searches the paths in argument order: "-" is stdin; the others are walked, in runs.
  int run(const walker::WalkOptions& walk_options, const std::vector<std::string>& paths,
          bool search_stdin) {
    if (search_stdin) {
      search_file("-", true, workers_.local());
      return exit_code();
    }
    if (walk_options.sort != walker::SortBy::kNone &&
        (walk_options.sort != walker::SortBy::kPath || walk_options.sort_reverse) &&
        std::ranges::find(paths, "-") != paths.end()) {
      return run_sorted_with_stdin(walk_options, paths);
    }
    std::vector<std::string> run_paths;
    for (const std::string& p : paths) {
      if (p != "-") {
        run_paths.push_back(p);
        continue;
      }
      if (!run_paths.empty()) walk_paths(walk_options, run_paths);
      run_paths.clear();
      if (!stop_.load()) search_file("-", true, workers_.local());
    }
    if (!run_paths.empty() || paths.empty()) walk_paths(walk_options, run_paths);
    // As rg: the current directory searched for want of a path, and the walk found nothing to
    // search (an error; for an explicit path, nothing found is just no match).
    if (paths.empty() && !searched_.load()) {
      out_.error(
          "No files were searched, which means ctxsearch probably applied a filter you didn't "
          "expect.\nRunning with --debug will show why files are being skipped.");
    }
    return exit_code();
  }

  // `-` among the paths of a walk sorted by a time or by path reversed, placed as rg 14 places it
  // (see stdin_entry.hpp).
  int run_sorted_with_stdin(const walker::WalkOptions& walk_options,
                            const std::vector<std::string>& paths) {
    std::vector<std::string> rest;
    std::ranges::copy_if(paths, std::back_inserter(rest), [](const auto& p) { return p != "-"; });
    const std::size_t stdins = paths.size() - rest.size();
    auto search_stdin = [&](std::size_t n) {
      for (std::size_t i = 0; i < n && !stop_.load(); ++i) search_file("-", true, workers_.local());
    };
    if (walk_options.sort == walker::SortBy::kPath) {  // reversed
      if (rest.empty()) {
        search_stdin(stdins);
      } else {
        walk_paths(walk_options, rest, stdins);
      }
      return exit_code();
    }
    // By a time: after the files, as stdin has none; reversed, before them.
    if (walk_options.sort_reverse) search_stdin(stdins);
    if (!rest.empty()) walk_paths(walk_options, rest);
    if (!walk_options.sort_reverse) search_stdin(stdins);
    return exit_code();
  }

  // Whether `paths` are a few named files (2 up to walker::kParallelRootFiles, which the walk
  // gives one after the other in the order given), to be searched in parallel and written in
  // that order (OrderedRun) instead of one by one: rg searches named files on all threads (11
  // named 30 MB logs took 1.75x rg's time on one).
  static bool named_files_in_order(const walker::WalkOptions& walk_options,
                                   const std::vector<std::string>& paths) {
    const unsigned threads = walk_options.threads != 0 ? walk_options.threads : walker::cores();
    if (threads < 2 || paths.size() < 2 || paths.size() >= walker::kParallelRootFiles) return false;
    return std::ranges::all_of(paths, [](const std::string& p) {
      struct stat st {};
      return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
    });
  }

  // Walks `paths` (none: the current directory) and searches what it finds. `stdins`: under
  // --sortr path, how many `-` paths to search where "<stdin>" sorts among the files.
  void walk_paths(walker::WalkOptions walk_options, const std::vector<std::string>& paths,
                  std::size_t stdins = 0) {
    if (stop_.load()) return;
    walk_options.paths = paths;
    walk_options.probe_file_systems = true;  // for FileBuffer::read_at
    if (walk_options.sort == walker::SortBy::kNone && !named_files_in_order(walk_options, paths)) {
      Sink sink(*this);
      if (Status s = walker::walk(walk_options, sink); !s.ok()) out_.error(s.error().detail);
      return;
    }
    // Sorted: the walk hands files over in order (by path as it goes; by a time at its end), and
    // they are searched in parallel meanwhile, their results written strictly in that order.
    const unsigned threads = walk_options.threads != 0 ? walk_options.threads : walker::cores();
    OrderedRun ordered(
        out_, threads, kOrderedWindowPerThread * threads,
        [this](const OrderedJob& job) {
          quit_on_this_thread = false;
          search_file(job.path, job.explicit_file, workers_.local(), -1, {}, job.short_read_is_end);
          return quit_on_this_thread;
        },
        [this] { return stop_.load(std::memory_order_relaxed); });
    Sink sink(*this, &ordered, stdins);
    if (Status s = walker::walk(walk_options, sink); !s.ok()) out_.error(s.error().detail);
    sink.add_stdin();
    ordered.finish();
  }

 private:
  // Searches what the walk finds, or (sorted) hands it to `ordered` in the walk's order.
  struct Sink final : walker::WalkSink {
    explicit Sink(Search& s, OrderedRun* run = nullptr, std::size_t stdins = 0)
        : search(s), ordered(run), stdin_pending(stdins) {}
    walker::Flow on_file(const walker::WalkEntry& e) override {
      search.searched_.store(true, std::memory_order_relaxed);
      if (stdin_pending > 0 && !sorts_after_stdin_name(e.path)) add_stdin();
      if (ordered != nullptr) {
        ordered->add(OrderedJob{std::string(e.path), e.depth == 0, e.short_read_is_end, {}});
      } else {
        search.search_file(e.path, e.depth == 0, search.workers_.local(), e.dir_fd, e.name,
                           e.short_read_is_end);
      }
      return search.stop_.load(std::memory_order_relaxed) ? walker::Flow::kStop
                                                          : walker::Flow::kContinue;
    }
    // Sorted, errors take their place in the order too (a walk by path meets them in order).
    void on_error(const Error& e) override {
      if (ordered != nullptr) {
        ordered->add(OrderedJob{{}, false, false, e.detail});
      } else {
        search.out_.error(e.detail);
      }
    }
    void on_ignore_error(const Error& e) override {
      if (!search.args_.no_ignore_messages) search.out_.warn(e.detail);
    }
    // Adds the pending stdin searches to the ordered run.
    void add_stdin() {
      for (; stdin_pending > 0; --stdin_pending) ordered->add(OrderedJob{"-", true, false, {}});
    }
    Search& search;
    OrderedRun* ordered;
    std::size_t stdin_pending;
  };

  // What goes between two files' output: a blank line under headings, the context separator
  // ("--") with context lines (not --passthru's).
  std::string_view group_separator() const {
    if (print_.output != Args::Output::kLines || print_.json) return {};
    if (print_.heading) return print_.files_heading_separator;
    if (args_.search.before > 0 || args_.search.after > 0) return print_.files_context_separator;
    return {};
  }

  // --json's closing summary message, or --stats' block.
  void write_summary() {
    const auto total = std::chrono::steady_clock::now() - started_;
    if (!print_.json) {
      if (!args_.stats) return;
      // ripgrep counts the bytes of matching and context lines only (not -c, -l output).
      const std::uint64_t printed =
          print_.output == Args::Output::kLines && !args_.quiet
              ? out_.bytes_written() -
                    std::min(out_.bytes_written(), stats_.color_bytes + stats_.uncounted_bytes)
              : 0;
      auto seconds = [](std::chrono::nanoseconds ns) {
        return static_cast<double>(ns.count()) / 1e9;
      };
      std::string o = fmt::format(
          "\n{} matches\n{} matched lines\n{} files contained matches\n{} files searched\n"
          "{} bytes printed\n{} bytes searched\n{:.6f} seconds spent searching\n"
          "{:.6f} seconds\n",
          stats_.matches, stats_.matched_lines, stats_.searches_with_match, stats_.searches,
          printed, stats_.bytes_searched, seconds(stats_.elapsed),
          seconds(std::chrono::duration_cast<std::chrono::nanoseconds>(total)));
      out_.write_raw(o);
      return;
    }
    std::string o = "{\"data\":{\"elapsed_total\":";
    append_elapsed(o, total, true);
    o += fmt::format(",\"stats\":{{\"bytes_printed\":{},\"bytes_searched\":{},\"elapsed\":",
                     stats_.bytes_printed, stats_.bytes_searched);
    append_elapsed(o, stats_.elapsed, true);
    o += fmt::format(
        ",\"matched_lines\":{},\"matches\":{},\"searches\":{},\"searches_with_match\":{}}}}},"
        "\"type\":\"summary\"}}\n",
        stats_.matched_lines, stats_.matches, stats_.searches, stats_.searches_with_match);
    out_.write_group(o, {});
  }

  int exit_code() {
    write_summary();
    out_.flush();
    const bool matched = matched_.load();
    if (matched && (args_.quiet || !out_.errored())) return 0;
    return out_.errored() ? 2 : 1;
  }

  ChunkedLimits chunk_limits() const {
    ChunkedLimits limits;
    limits.threads = static_cast<int>(args_.walk.threads);
    return limits;
  }

  // -q, -l, --files-without-match: the printer quits at the first reported line.
  bool printer_limits_quit() const {
    return args_.quiet || print_.output == Args::Output::kFilesWithMatches ||
           print_.output == Args::Output::kFilesWithoutMatch;
  }

  const Args& args_;
  engine::PatternSet patterns_;
  // --crlf (not -P): the same patterns compiled without it, for files without a CR byte.
  std::optional<engine::PatternSet> plain_;
  PrintOptions print_;
  Output out_;
  std::atomic<bool> matched_{false}, stop_{false};
  // This thread's search called quit_run().
  static inline thread_local bool quit_on_this_thread = false;
  std::atomic<bool> searched_{false};  // the walk gave some file to search
  bool whole_files_ = false;
  walker::Overrides pre_globs_;
  walker::PerThread<Worker> workers_;
  ChunkScratches chunk_scratches_, plain_chunk_scratches_;  // search_in_chunks' (per set)
  std::mutex stats_mutex_;
  Stats stats_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// ripgrep 14's smart case under -P (grep-pcre2's has_uppercase_literal): case-sensitive when the
// patterns hold an uppercase character (Unicode's Uppercase property) not right after a
// backslash, so `\p{Han}` counts its `H`; under -F every character counts (ripgrep escapes the
// literals, which only puts backslashes before punctuation).
Result<bool> pcre2_smart_case_sensitive(const std::vector<std::string>& patterns, bool fixed) {
  std::string candidates;  // the characters that count
  auto char_len = [](unsigned char lead) -> std::size_t {
    return lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  };
  for (const std::string& p : patterns) {
    for (std::size_t i = 0; i < p.size();) {
      if (!fixed && p[i] == '\\') {
        i += 1;
        if (i < p.size()) i += char_len(static_cast<unsigned char>(p[i]));
        continue;
      }
      const std::size_t n = std::min(char_len(static_cast<unsigned char>(p[i])), p.size() - i);
      candidates.append(p, i, n);
      i += n;
    }
  }
  engine::PatternOptions options;
  options.pcre2 = true;
  CTX_TRY_ASSIGN(engine::PatternSet upper,
                 engine::PatternSet::compile({"\\p{Uppercase}"}, options));
  engine::PatternSet::Scratch scratch = upper.make_scratch();
  CTX_TRY_ASSIGN(std::optional<engine::LineSpan> hit, upper.find_line(candidates, 0, scratch));
  return hit.has_value();
}

// The text of a -f pattern file: `-` is stdin; anything open(2) opens (a regular file, a pipe or
// FIFO such as `-f <(cmd)`, /dev/null) is read to its end, waiting for a writer as ripgrep does.
// Errors are ripgrep's: "PATH: ERROR" when opening fails, "PATH:ERROR" (no space) when reading does
// (a directory: "d:Is a directory (os error 21)").
Result<std::string> read_pattern_file(const std::string& file) {
  const bool std_in = file == "-";
  const std::string shown = std_in ? "<stdin>" : file;
  const int fd = std_in ? STDIN_FILENO : ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::from_errno(errno, shown);
  std::string out;
  int err = 0;
  for (char chunk[1 << 16];;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) err = errno;
    if (n <= 0) break;
    out.append(chunk, static_cast<std::size_t>(n));
    if (out.size() > kMaxPatternFileBytes) {
      err = EFBIG;
      break;
    }
  }
  if (!std_in) ::close(fd);
  if (err != 0) {
    return Error{ErrorCode::kIo,
                 fmt::format("{}:{} (os error {})", shown, std::strerror(err), err)};
  }
  return out;
}

// A pattern's bytes as ripgrep shows them in errors (bstr's escape_bytes): ASCII graphic
// characters as themselves, \0 \t \n \r \\ escaped, valid non-ASCII characters as themselves,
// any other byte (a space, a control, invalid UTF-8) as \xHH.
std::string rg_escape(std::string_view bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size();) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    if (b >= 0x80) {
      const std::size_t len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
      const std::string_view ch = bytes.substr(i, len);
      if (ch.size() == len && utf8_valid_prefix(ch) == len) {
        out += ch;
        i += len;
        continue;
      }
    }
    if (b == 0 || b == '\t' || b == '\n' || b == '\r' || b == '\\') {
      out += b == 0 ? "\\0" : b == '\t' ? "\\t" : b == '\n' ? "\\n" : b == '\r' ? "\\r" : "\\\\";
    } else if (b >= 0x21 && b <= 0x7E) {
      out.push_back(static_cast<char>(b));
    } else {
      out += fmt::format("\\x{:02X}", b);
    }
    ++i;
  }
  return out;
}

bool stdin_is_readable() {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) != 0) return false;
  return S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
}

// Calls fn for each line of a -f file as ripgrep reads them (bstr's for_byte_line): a line ends at
// '\n', which goes with a '\r' before it; an unterminated last line keeps a trailing '\r'.
template <typename Fn>
void for_each_pattern_line(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) {
      fn(text);
      return;
    }
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(line);
    text.remove_prefix(nl + 1);
  }
}

}  // namespace

namespace {

// The bytes of the files named in `paths` when the search reads only a few small regular files
// (what an editor's search of one file is): at most kSmallFiles of them, kSmallFilesBytes in
// all, as they are on disk (no --pre, no -z); else nullopt. Then a few plain literals skip
// Hyperscan's compile (PatternOptions::small_haystacks), and under kTinyHaystackBytes any few
// patterns do (tiny_haystacks).
std::optional<std::uint64_t> small_files_bytes(const Args& args,
                                               const std::vector<std::string>& paths) {
  constexpr std::size_t kSmallFiles = 8;
  constexpr std::uint64_t kSmallFilesBytes = std::uint64_t{1} << 20;
  if (paths.empty() || paths.size() > kSmallFiles || !args.pre.empty() || args.search_zip) {
    return std::nullopt;
  }
  std::uint64_t bytes = 0;
  for (const std::string& path : paths) {
    struct stat st {};
    if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    bytes += static_cast<std::uint64_t>(st.st_size);
    if (bytes > kSmallFilesBytes) return std::nullopt;
  }
  return bytes;
}

}  // namespace

int run_search(Args& args) {
  // Patterns: -e and -f in their order, each kept once (as ripgrep: a pattern repeated with a
  // named group would otherwise name it twice), else the first positional.
  std::vector<std::string> patterns;
  std::unordered_set<std::string> seen;
  auto add = [&](std::string_view pattern) {
    if (seen.emplace(pattern).second) patterns.emplace_back(pattern);
  };
  bool stdin_consumed = false;  // by `-f -`: then stdin is never searched, as in ripgrep
  for (const Args::PatternSource& source : args.pattern_sources) {
    const std::string& file = source.value;
    if (!source.file) {
      add(file);
      continue;
    }
    if (file == "-" && std::exchange(stdin_consumed, true)) {
      print_error("error reading -f/--file from stdin: stdin has already been consumed");
      return 2;
    }
    auto text = read_pattern_file(file);
    if (!text.ok()) {
      print_error(text.error().detail);
      return 2;
    }
    std::size_t line_number = 0;
    std::string invalid;  // rg's error for the first line that is not UTF-8
    for_each_pattern_line(*text, [&](std::string_view line) {
      ++line_number;
      const std::size_t valid = utf8_valid_prefix(line);
      if (valid != line.size() && invalid.empty()) {
        invalid = fmt::format(
            "{}:{}: found invalid UTF-8 in pattern at byte offset {}: {} (disable Unicode mode and "
            "use hex escape sequences to match arbitrary bytes in a pattern, e.g., '(?-u)\\xFF')",
            file == "-" ? "<stdin>" : file, line_number, valid, rg_escape(line));
      }
      add(line);
    });
    if (!invalid.empty()) {
      print_error(invalid);
      return 2;
    }
  }
  std::vector<std::string> paths = args.positionals;
  if (args.pattern_sources.empty()) {
    if (paths.empty()) {
      print_error("no pattern given: usage is 'ctxsearch PATTERN [PATH ...]' (see --help)");
      return 2;
    }
    if (!is_valid_utf8(paths.front())) {
      print_error("pattern given is not valid UTF-8");
      return 2;
    }
    patterns.push_back(paths.front());
    paths.erase(paths.begin());
  }
  if (stdin_consumed && std::ranges::find(paths, "-") != paths.end()) {
    print_error("error: attempted to read patterns from stdin while also searching stdin");
    return 2;
  }
  // No match is possible, so nothing is searched (as ripgrep's matches_possible): -m 0, or no
  // pattern at all (-f of empty files), even under -v, --files-without-match or --passthru.
  if (args.search.max_count == std::optional<std::uint64_t>(0) || patterns.empty()) return 1;
  engine::PatternOptions pattern_options = args.pattern;
  pattern_options.ban_nul = !args.text;  // binary detection on (--null-data: see ban_nul)
  const std::optional<std::uint64_t> small_bytes = small_files_bytes(args, paths);
  pattern_options.small_haystacks = small_bytes.has_value();
  pattern_options.tiny_haystacks =
      small_bytes && *small_bytes <= engine::PatternOptions::kTinyHaystackBytes;
  if (pattern_options.pcre2 && pattern_options.smart_case && !pattern_options.case_insensitive) {
    auto sensitive = pcre2_smart_case_sensitive(patterns, pattern_options.fixed_strings);
    if (!sensitive.ok()) {
      print_error(sensitive.error().detail);
      return 2;
    }
    pattern_options.smart_case = false;
    pattern_options.case_insensitive = !*sensitive;
  }
  auto compiled = engine::PatternSet::compile(patterns, pattern_options);
  if (!compiled.ok() && args.engine == Args::Engine::kAuto && !pattern_options.pcre2) {
    // --engine auto: PCRE2 when the default engine cannot take the patterns (look-around,
    // backreferences); when PCRE2 cannot either, the default engine's error is the one shown.
    engine::PatternOptions pcre2_options = args.pattern;
    pcre2_options.pcre2 = true;
    if (pcre2_options.smart_case && !pcre2_options.case_insensitive) {
      auto sensitive = pcre2_smart_case_sensitive(patterns, pcre2_options.fixed_strings);
      if (sensitive.ok()) {
        pcre2_options.smart_case = false;
        pcre2_options.case_insensitive = !*sensitive;
      }
    }
    auto fallback = engine::PatternSet::compile(patterns, pcre2_options);
    if (fallback.ok()) {
      debug_line(args, 1,
                 "--engine auto: the default engine cannot compile the patterns "
                 "({}); using PCRE2",
                 compiled.error().detail);
      compiled = std::move(fallback);
      args.pattern.pcre2 = true;
    }
  }
  if (!compiled.ok()) {
    // As ripgrep: the default engine's refusals that PCRE2 lifts name the flag that lifts them.
    std::string detail = compiled.error().detail;
    if (!args.pattern.pcre2 &&
        (detail.find("look-around, including") != std::string::npos ||
         detail.find("backreferences are not supported") != std::string::npos)) {
      detail += " (use -P/--pcre2, which can handle backreferences and look-around)";
    }
    print_error(detail);
    return 2;
  }
  auto filters = build_filters(args);
  if (!filters.ok()) {
    print_error(filters.error().detail);
    return 2;
  }
  const bool tty = ::isatty(STDOUT_FILENO) != 0;
  const bool search_stdin = paths.empty() && !stdin_consumed && stdin_is_readable();
  const bool one_file = rg_is_one_file(paths, search_stdin);
  const ColorSpecs colors = color_specs(args.colors);
  PrintOptions print{};
  print.colors = &colors;
  print.with_filename = args.with_filename.value_or(!one_file);
  print.column = args.column.value_or(false);
  print.line_numbers = args.line_numbers.value_or(tty) || print.column;
  if (args.line_numbers == std::optional<bool>(false)) print.line_numbers = false;
  print.heading = args.heading.value_or(tty);
  print.byte_offset = args.byte_offset;
  print.only_matching = args.only_matching;
  print.vimgrep = args.vimgrep;
  print.replace = args.replace ? &*args.replace : nullptr;
  print.json = args.json;
  if (args.json) {  // as rg 14, --json wins over -o and --vimgrep
    print.only_matching = false;
    print.vimgrep = false;
    print.with_filename = true;
    print.line_numbers = args.line_numbers.value_or(true);  // -N: "line_number":null
    print.heading = false;
  }
  print.color = color_enabled(args.color);
  // As rg 14, links only with colors on, and never in --json.
  std::optional<Hyperlinker> hyperlinker;
  if (print.color && !args.json && !args.hyperlink_format.empty()) {
    hyperlinker.emplace(args.hyperlink_format, hyperlink_hostname(args.hostname_bin));
  }
  print.hyperlinks = hyperlinker ? &*hyperlinker : nullptr;
  // As ripgrep: path, line and column on every match (unless -N, --no-column or --no-filename
  // says otherwise), no headings.
  if (args.vimgrep && !args.json) {
    print.with_filename = args.with_filename.value_or(true);
    print.line_numbers = args.line_numbers.value_or(true);
    print.column = args.column.value_or(true);
    print.heading = false;
  }
  print.null = args.null;
  print.output = args.output;
  print.max_columns = args.max_columns;
  print.max_columns_preview = args.max_columns_preview;
  print.trim = args.trim;
  print.stats = args.stats;
  print.quiet = args.quiet;
  print.rg_one_thread = rg_one_thread(args.walk, one_file);
  print.include_zero = args.include_zero;
  // As rg 14 under --crlf: the lines it ends itself end in "\r\n"; so do the separators between
  // files when one thread prints them all (its printer), not those of its parallel buffer writer.
  print.crlf = args.pattern.crlf;
  print.term = args.pattern.line_terminator;
  print.line_term = print.crlf           ? std::string_view("\r\n")
                    : print.term == '\0' ? std::string_view("\0", 1)
                                         : std::string_view("\n");
  const std::string_view files_term = print.rg_one_thread ? print.line_term : "\n";
  const std::string context_separator = args.context_separator
                                            ? *args.context_separator + std::string(print.line_term)
                                            : std::string();
  const std::string files_context_separator =
      args.context_separator ? *args.context_separator + std::string(files_term) : std::string();
  print.context_separator = context_separator;
  print.files_context_separator = files_context_separator;
  print.files_heading_separator = files_term;
  print.field_match_separator = args.field_match_separator;
  print.field_context_separator = args.field_context_separator;
  print.path_separator = args.path_separator;
  print.stream_threshold = args.buffer == Args::Buffer::kLine ? 1 : kStreamThreshold;
  walker::WalkOptions walk = args.walk;
  walk.overrides = &filters->overrides;
  walk.types = &filters->types;
  walk.walkdir_errors = print.rg_one_thread;
  walk.walk_order = print.rg_one_thread;
  print.multiline = compiled->multiline();
  debug_line(args, 1, "{} pattern(s), engine {}, multiline {}; {} path(s){}; threads {}",
             patterns.size(), args.pattern.pcre2 ? "PCRE2" : "default (Hyperscan + PCRE2)",
             print.multiline, paths.size(), search_stdin ? " (stdin)" : "", args.walk.threads);
  Search search(args, std::move(*compiled), print);
  // Not where a pattern may name the haystack's ends (\A, \z, ^ or $ without the `m` flag): under
  // --crlf a line ending in a LF alone keeps it in ripgrep's haystack, where they never match
  // before it.
  const bool haystack_anchors = std::ranges::any_of(patterns, [](const std::string& p) {
    return p.find("\\A") != std::string::npos || p.find("\\z") != std::string::npos ||
           p.find("-m") != std::string::npos;
  });
  if (args.pattern.crlf && !args.pattern.pcre2 && (args.pattern.multiline || !haystack_anchors)) {
    engine::PatternOptions plain = pattern_options;
    plain.crlf = false;
    if (auto set = engine::PatternSet::compile(patterns, plain); set.ok()) {
      search.set_plain_patterns(std::move(*set));
    }
  }
  // As ripgrep 14 (hiargs.rs, mmap_choice): named files are searched as maps under --mmap, never
  // under --no-mmap, and by default when there are at most 10 paths, all of them files.
  const bool few_files = !paths.empty() && paths.size() <= 10 &&
                         std::all_of(paths.begin(), paths.end(), [](const std::string& p) {
                           struct stat ps {};
                           return ::stat(p.c_str(), &ps) == 0 && S_ISREG(ps.st_mode);
                         });
  walker::Overrides pre_globs;
  for (const std::string& g : args.pre_globs) {
    if (Status s = pre_globs.add(g, false); !s.ok()) {
      print_error(s.error().detail);
      return 2;
    }
  }
  search.set_pre_globs(std::move(pre_globs));
  search.set_whole_files(args.mmap == Args::Mmap::kAlways ||
                         (args.mmap == Args::Mmap::kAuto && few_files));
  if (args.buffer == Args::Buffer::kBlock || (args.buffer == Args::Buffer::kAuto && !tty)) {
    search.set_block_buffering();
  }
  return search.run(walk, paths, search_stdin);
}

}  // namespace ctx::cli
