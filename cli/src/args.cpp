#include "args.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <span>
#include <string_view>

#include "colors.hpp"
#include "ctx/base/file_buffer.hpp"
#include "ctx/base/utf8.hpp"
#include "ctx/engine/encoding.hpp"

namespace ctx::cli {
namespace {

using Handler = Status (*)(Args&, std::string_view value);

struct Flag {
  std::string_view long_name;
  char short_name;              // 0 when none
  std::string_view value_name;  // empty for a switch
  std::string_view help;
  Handler handler;
  std::string_view choices = {};  // the values a flag takes, space-separated, for completions
};

Error usage(std::string message) { return Error{ErrorCode::kInvalidArgument, std::move(message)}; }

// As ripgrep 14: --help, --version and --pcre2-version win over every other mode (the last of
// them chooses); among the others (--files, --type-list, --generate and the search output flags
// -l, -c, --count-matches, --files-without-match, --json) the last one wins.
bool is_special(Args::Mode m) {
  return m == Args::Mode::kHelp || m == Args::Mode::kVersion || m == Args::Mode::kPcre2Version;
}
void set_mode(Args& a, Args::Mode m) {
  if (is_special(m) || !is_special(a.mode)) a.mode = m;
}
// A search output flag: it chooses the search mode over --files, --type-list and --generate.
void set_output(Args& a, Args::Output output, bool json) {
  a.output = output;
  a.json = json;
  set_mode(a, Args::Mode::kSearch);
}

// ripgrep 14 has one binary mode: -a, --binary and -uuu set it, --no-text and --no-binary reset
// it; the last one wins.
void set_binary_mode(Args& a, bool text, bool binary) {
  a.text = text;
  a.binary = binary;
}

// As ripgrep 14: --no-ignore (and -u) sets the five --no-ignore-* flags where it stands and
// --ignore clears them, so a later --ignore-vcs (or --no-ignore-dot) still acts on its own.
// --no-ignore-files is not among them (--ignore-file is explicit).
void set_no_ignore(Args& a, bool no) {
  a.walk.git_ignore = !no;
  a.walk.dot_ignore = !no;
  a.walk.git_exclude = !no;
  a.walk.git_global = !no;
  a.walk.parents = !no;
}

// A size as ripgrep reads one: digits and an optional K, M or G suffix (upper case only).
Result<std::uint64_t> parse_size(std::string_view flag, std::string_view v) {
  std::uint64_t n = 0;
  std::uint64_t mult = 1;
  std::string_view digits = v;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K':
        mult = 1ULL << 10;
        digits.remove_suffix(1);
        break;
      case 'M':
        mult = 1ULL << 20;
        digits.remove_suffix(1);
        break;
      case 'G':
        mult = 1ULL << 30;
        digits.remove_suffix(1);
        break;
      default:
        break;
    }
  }
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
      n > UINT64_MAX / mult) {
    return usage(
        fmt::format("invalid value '{}' for --{}: expected a number of bytes with an "
                    "optional K, M or G suffix, e.g. 10M",
                    v, flag));
  }
  return n * mult;
}

// rg's sizes for --regex-size-limit and --dfa-size-limit: digits and an optional K, M or G.
Result<std::uint64_t> parse_rg_size(std::string_view flag, std::string_view v) {
  const bool ok =
      !v.empty() &&
      std::all_of(v.begin(), v.end() - 1, [](char c) { return c >= '0' && c <= '9'; }) &&
      ((v.back() >= '0' && v.back() <= '9') ||
       ((v.back() == 'K' || v.back() == 'M' || v.back() == 'G') && v.size() > 1));
  if (!ok) {
    return usage(
        fmt::format("invalid value '{}' for --{}: expected digits and an optional K, M "
                    "or G suffix, e.g. 10M",
                    v, flag));
  }
  return parse_size(flag, v);
}

Result<std::size_t> parse_count(std::string_view flag, std::string_view v) {
  std::size_t n = 0;
  // Rust's integer parsing (rg's) takes one leading '+'.
  const std::string_view digits = v.starts_with('+') ? v.substr(1) : v;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    return usage(
        fmt::format("invalid value '{}' for --{}: expected a non-negative integer", v, flag));
  }
  return n;
}

// -A, -B, -C after --passthru: rg starts a fresh context (only the new value set).
void leave_passthru(Args& a) {
  if (!a.passthru) return;
  a.passthru = false;
  a.context_before.reset();
  a.context_after.reset();
  a.context_both.reset();
}

Status set_sort(Args& a, std::string_view v, bool reverse) {
  using walker::SortBy;
  SortBy by;
  if (v == "none")
    by = SortBy::kNone;
  else if (v == "path")
    by = SortBy::kPath;
  else if (v == "modified")
    by = SortBy::kModified;
  else if (v == "accessed")
    by = SortBy::kAccessed;
  else if (v == "created")
    by = SortBy::kCreated;
  else {
    return usage(
        fmt::format("invalid value '{}' for --sort{}: expected one of none, path, "
                    "modified, accessed, created",
                    v, reverse ? "r" : ""));
  }
  a.walk.sort = by;
  a.walk.sort_reverse = reverse && by != SortBy::kNone;
  return {};
}

// -E/--encoding: auto, none or an Encoding Standard label (rg 14's message for others).
Status set_encoding(Args& a, std::string_view v) {
  if (!is_valid_utf8(v)) return usage("error parsing flag --encoding: value is not valid UTF-8");
  a.search.encoding.reset();
  a.search.bom_sniffing = v != "none";
  if (v == "auto" || v == "none") return {};
  a.search.encoding = engine::encoding_for_label(v);
  if (!a.search.encoding) {
    return usage(
        fmt::format("error parsing flag --encoding: grep config error: unknown encoding: {}", v));
  }
  return {};
}

constexpr std::string_view kEncodingChoices =
    "auto none utf-8 utf-16le utf-16be latin1 windows-1250 windows-1251 windows-1252 "
    "windows-1253 windows-1254 windows-1255 windows-1256 windows-1257 windows-1258 windows-874 "
    "iso-8859-2 iso-8859-3 iso-8859-4 iso-8859-5 iso-8859-6 iso-8859-7 iso-8859-8 iso-8859-8-i "
    "iso-8859-10 iso-8859-13 iso-8859-14 iso-8859-15 iso-8859-16 koi8-r koi8-u ibm866 macintosh "
    "x-mac-cyrillic gbk gb18030 big5 euc-jp iso-2022-jp shift_jis euc-kr x-user-defined";

// clang-format off
constexpr Flag kFlags[] = {
  {"regexp", 'e', "PATTERN", "A pattern to search for (may repeat; useful for patterns starting with -).",
   [](Args& a, std::string_view v) -> Status { a.pattern_sources.push_back({false, std::string(v)}); return {}; }},
  {"file", 'f', "PATTERNFILE", "Search for the patterns in PATTERNFILE, one per line.",
   [](Args& a, std::string_view v) -> Status { a.pattern_sources.push_back({true, std::string(v)}); return {}; }},
  {"fixed-strings", 'F', "", "Treat patterns as literal strings.",
   [](Args& a, std::string_view) -> Status { a.pattern.fixed_strings = true; return {}; }},
  {"no-fixed-strings", 0, "", "Undo --fixed-strings.",
   [](Args& a, std::string_view) -> Status { a.pattern.fixed_strings = false; return {}; }},
  {"ignore-case", 'i', "", "Match case-insensitively.",
   [](Args& a, std::string_view) -> Status {
     a.pattern.case_insensitive = true; a.pattern.smart_case = false; return {}; }},
  {"case-sensitive", 's', "", "Match case-sensitively (the default).",
   [](Args& a, std::string_view) -> Status {
     a.pattern.case_insensitive = false; a.pattern.smart_case = false; return {}; }},
  {"smart-case", 'S', "", "Case-insensitive unless a pattern has an uppercase letter.",
   [](Args& a, std::string_view) -> Status {
     a.pattern.smart_case = true; a.pattern.case_insensitive = false; return {}; }},
  {"word-regexp", 'w', "", "Only match whole words.",
   [](Args& a, std::string_view) -> Status { a.pattern.word = true; a.pattern.line = false; return {}; }},
  {"line-regexp", 'x', "", "Only match whole lines.",
   [](Args& a, std::string_view) -> Status { a.pattern.line = true; a.pattern.word = false; return {}; }},
  {"pcre2", 'P', "", "Use PCRE2 alone (look-around, backreferences).",
   [](Args& a, std::string_view) -> Status { a.engine = Args::Engine::kPcre2; return {}; }},
  {"no-pcre2", 0, "", "Undo --pcre2.",
   [](Args& a, std::string_view) -> Status { a.engine = Args::Engine::kDefault; return {}; }},
  {"engine", 0, "ENGINE", "The regex engine: default (Hyperscan prefilter, PCRE2 confirm), pcre2 "
   "(as -P), auto (default, or pcre2 when a pattern needs it: look-around, backreferences).",
   [](Args& a, std::string_view v) -> Status {
     if (v == "default") a.engine = Args::Engine::kDefault;
     else if (v == "pcre2") a.engine = Args::Engine::kPcre2;
     else if (v == "auto") a.engine = Args::Engine::kAuto;
     else return usage(fmt::format("invalid value '{}' for --engine: expected default, pcre2 or "
                                   "auto", v));
     return {}; },
   "default pcre2 auto"},
  {"auto-hybrid-regex", 0, "", "Deprecated: use --engine auto.",
   [](Args& a, std::string_view) -> Status { a.engine = Args::Engine::kAuto; return {}; }},
  {"no-auto-hybrid-regex", 0, "", "Deprecated: use --engine default.",
   [](Args& a, std::string_view) -> Status { a.engine = Args::Engine::kDefault; return {}; }},
  {"pcre2-version", 0, "", "Print the version of PCRE2 in use and whether its JIT is available.",
   [](Args& a, std::string_view) -> Status { a.mode = Args::Mode::kPcre2Version; return {}; }},
  {"regex-size-limit", 0, "NUM+SUFFIX?", "The size limit of rg's compiled regex (rg's size "
   "syntax, e.g. 10M; default 100M): patterns rg's engine would compile into a larger NFA are an "
   "error, as in rg (e.g. x{4000000}); -P has none.",
   [](Args& a, std::string_view v) -> Status {
     CTX_TRY_ASSIGN(a.regex_size_limit, parse_rg_size("regex-size-limit", v));
     a.pattern.regex_size_limit = *a.regex_size_limit; return {}; }},
  {"dfa-size-limit", 0, "NUM+SUFFIX?", "Accepted for rg compatibility (its size syntax, e.g. "
   "10M, is checked); no effect: there is no lazy DFA cache to bound.",
   [](Args& a, std::string_view v) -> Status {
     CTX_TRY_ASSIGN(a.dfa_size_limit, parse_rg_size("dfa-size-limit", v)); return {}; }},
  {"after-context", 'A', "NUM", "Show NUM lines after each match (wins over -C; undoes --passthru).",
   [](Args& a, std::string_view v) -> Status {
     CTX_TRY_ASSIGN(auto n, parse_count("after-context", v));
     leave_passthru(a); a.context_after = n; return {}; }},
  {"before-context", 'B', "NUM", "Show NUM lines before each match (wins over -C; undoes --passthru).",
   [](Args& a, std::string_view v) -> Status {
     CTX_TRY_ASSIGN(auto n, parse_count("before-context", v));
     leave_passthru(a); a.context_before = n; return {}; }},
  {"context", 'C', "NUM", "Show NUM lines before and after each match.",
   [](Args& a, std::string_view v) -> Status {
     CTX_TRY_ASSIGN(auto n, parse_count("context", v));
     leave_passthru(a); a.context_both = n; return {}; }},
  {"passthru", 0, "", "Print both matching and non-matching lines (overrides -A, -B, -C; alias "
   "--passthrough).",
   [](Args& a, std::string_view) -> Status {
     a.passthru = true; a.context_before.reset(); a.context_after.reset(); a.context_both.reset();
     return {}; }},
  {"passthrough", 0, "", "Alias of --passthru.",
   [](Args& a, std::string_view) -> Status {
     a.passthru = true; a.context_before.reset(); a.context_after.reset(); a.context_both.reset();
     return {}; }},
  {"context-separator", 0, "SEPARATOR", "Print SEPARATOR between groups of context lines "
   "(default --; escapes such as \\t and \\x7F are decoded).",
   [](Args& a, std::string_view v) -> Status { a.context_separator = unescape(v); return {}; }},
  {"no-context-separator", 0, "", "Print nothing between groups of context lines.",
   [](Args& a, std::string_view) -> Status { a.context_separator.reset(); return {}; }},
  {"field-match-separator", 0, "SEPARATOR", "Separate the path, line number, column and offset of "
   "matching lines with SEPARATOR (default :; escapes decoded).",
   [](Args& a, std::string_view v) -> Status { a.field_match_separator = unescape(v); return {}; }},
  {"field-context-separator", 0, "SEPARATOR", "Separate the fields of context lines with SEPARATOR "
   "(default -; escapes decoded).",
   [](Args& a, std::string_view v) -> Status {
     a.field_context_separator = unescape(v); return {}; }},
  {"stop-on-nonmatch", 0, "", "Stop reading a file at the first non-matching line after a "
   "matching one (undoes -U).",
   [](Args& a, std::string_view) -> Status {
     a.search.stop_on_nonmatch = true; a.pattern.multiline = false; return {}; }},
  {"invert-match", 'v', "", "Print the lines that do not match.",
   [](Args& a, std::string_view) -> Status { a.search.invert = true; return {}; }},
  {"no-invert-match", 0, "", "Undo -v/--invert-match.",
   [](Args& a, std::string_view) -> Status { a.search.invert = false; return {}; }},
  {"max-count", 'm', "NUM", "Stop searching a file after NUM matching lines.",
   [](Args& a, std::string_view v) -> Status {
     CTX_TRY_ASSIGN(auto n, parse_count("max-count", v)); a.search.max_count = n; return {}; }},
  {"line-number", 'n', "", "Show line numbers (the default on a terminal).",
   [](Args& a, std::string_view) -> Status { a.line_numbers = true; return {}; }},
  {"no-line-number", 'N', "", "Do not show line numbers.",
   [](Args& a, std::string_view) -> Status { a.line_numbers = false; return {}; }},
  {"with-filename", 'H', "", "Show the file path of every match.",
   [](Args& a, std::string_view) -> Status { a.with_filename = true; return {}; }},
  {"no-filename", 'I', "", "Never show file paths.",
   [](Args& a, std::string_view) -> Status { a.with_filename = false; return {}; }},
  {"heading", 0, "", "Show the path above each file's matches (the default on a terminal).",
   [](Args& a, std::string_view) -> Status { a.heading = true; return {}; }},
  {"no-heading", 0, "", "Show the path on each matching line.",
   [](Args& a, std::string_view) -> Status { a.heading = false; return {}; }},
  {"files-with-matches", 'l', "", "Print only the paths of files with a match.",
   [](Args& a, std::string_view) -> Status {
     set_output(a, Args::Output::kFilesWithMatches, false); return {}; }},
  {"files-without-match", 0, "", "Print only the paths of files without a match.",
   [](Args& a, std::string_view) -> Status {
     set_output(a, Args::Output::kFilesWithoutMatch, false); return {}; }},
  {"count", 'c', "", "Print the number of matching lines per file.",
   [](Args& a, std::string_view) -> Status {
     set_output(a, Args::Output::kCount, false); return {}; }},
  {"count-matches", 0, "", "Print the number of matches per file.",
   [](Args& a, std::string_view) -> Status {
     set_output(a, Args::Output::kCountMatches, false); return {}; }},
  {"only-matching", 'o', "", "Print only the matched parts, each on its own line.",
   [](Args& a, std::string_view) -> Status { a.only_matching = true; return {}; }},
  {"replace", 'r', "REPLACEMENT", "Print each match replaced by REPLACEMENT ($1, ${name}; files are not changed).",
   [](Args& a, std::string_view v) -> Status { a.replace = std::string(v); return {}; }},
  {"json", 0, "", "Print results as JSON Lines (ripgrep's begin/match/context/end/summary messages).",
   // As rg 14, the last of --json, -c, -l, --count-matches, --files-without-match chooses.
   [](Args& a, std::string_view) -> Status {
     set_output(a, Args::Output::kLines, true); return {}; }},
  {"no-json", 0, "", "Undo --json.",
   [](Args& a, std::string_view) -> Status { a.json = false; return {}; }},
  {"vimgrep", 0, "", "Print path:line:column:text for every match (for editors' quickfix lists).",
   [](Args& a, std::string_view) -> Status { a.vimgrep = true; return {}; }},
  {"no-config", 0, "", "Ignore the config file named by CTXSEARCH_CONFIG_PATH.",
   [](Args& a, std::string_view) -> Status { a.no_config = true; return {}; }},
  {"column", 0, "", "Show the 1-based byte column of the first match (implies -n).",
   [](Args& a, std::string_view) -> Status { a.column = true; return {}; }},
  {"no-column", 0, "", "Undo --column.",
   [](Args& a, std::string_view) -> Status { a.column = false; return {}; }},
  {"byte-offset", 'b', "", "Show the 0-based byte offset of each line (or match, with -o).",
   [](Args& a, std::string_view) -> Status { a.byte_offset = true; return {}; }},
  {"no-byte-offset", 0, "", "Undo -b/--byte-offset.",
   [](Args& a, std::string_view) -> Status { a.byte_offset = false; return {}; }},
  {"text", 'a', "", "Search binary files as if they were text.",
   [](Args& a, std::string_view) -> Status { set_binary_mode(a, true, false); return {}; }},
  {"no-text", 0, "", "Undo --text (and --binary: binary files found by the walk are skipped).",
   [](Args& a, std::string_view) -> Status { set_binary_mode(a, false, false); return {}; }},
  {"encoding", 'E', "ENCODING", "Decode every file from ENCODING before searching: any label of "
   "the Encoding Standard (latin1, windows-1252, utf-16le, shift_jis, euc-jp, gbk, gb18030, big5, "
   "euc-kr, koi8-r, iso-8859-N, x-user-defined, ...); a UTF-8 or UTF-16 BOM still decides. auto "
   "(the default): only files with such a BOM are decoded; none: no BOM sniffing, the bytes as "
   "they are. Bytes that do not decode become U+FFFD.",
   [](Args& a, std::string_view v) -> Status { return set_encoding(a, v); }, kEncodingChoices},
  {"no-encoding", 0, "", "Undo --encoding (auto).",
   [](Args& a, std::string_view) -> Status { return set_encoding(a, "auto"); }},
  {"binary", 0, "", "Search binary files found by the walk too (reported as binary matches; "
   "overrides -a).",
   [](Args& a, std::string_view) -> Status { set_binary_mode(a, false, true); return {}; }},
  {"no-binary", 0, "", "Undo --binary (and -a).",
   [](Args& a, std::string_view) -> Status { set_binary_mode(a, false, false); return {}; }},
  {"multiline", 'U', "", "Let matches span lines (patterns may hold \\n; undoes "
   "--stop-on-nonmatch).",
   [](Args& a, std::string_view) -> Status {
     a.pattern.multiline = true; a.search.stop_on_nonmatch = false; return {}; }},
  {"no-multiline", 0, "", "Undo --multiline.",
   [](Args& a, std::string_view) -> Status { a.pattern.multiline = false; return {}; }},
  {"crlf", 0, "", "Treat CRLF as a line terminator: `$` also matches before \\r\\n (and any CR), `^` "
   "after it (never between CR and LF), `.` matches neither; printed lines end in \\r\\n.",
   [](Args& a, std::string_view) -> Status {
     a.pattern.crlf = true; a.pattern.line_terminator = '\n'; return {}; }},
  {"no-crlf", 0, "", "Undo --crlf.",
   [](Args& a, std::string_view) -> Status { a.pattern.crlf = false; return {}; }},
  // As rg 14: no negation; --crlf after it undoes it.
  {"null-data", 0, "", "Use NUL as the line terminator instead of \\n (for NUL-separated data, "
   "or binary files with huge lines): lines end at NUL, matches never span one (without -U), "
   "printed lines end in NUL; implies --text and overrides --crlf.",
   [](Args& a, std::string_view) -> Status {
     a.pattern.crlf = false; a.pattern.line_terminator = '\0'; return {}; }},
  {"multiline-dotall", 0, "", "With --multiline, let '.' match line feeds too.",
   [](Args& a, std::string_view) -> Status { a.pattern.multiline_dotall = true; return {}; }},
  {"no-multiline-dotall", 0, "", "Undo --multiline-dotall.",
   [](Args& a, std::string_view) -> Status { a.pattern.multiline_dotall = false; return {}; }},
  {"no-unicode", 0, "", "Disable Unicode mode for every pattern, as a leading (?-u): '.' and "
   "negated classes match any byte, \\xFF is the byte, \\w \\d \\s \\b and case folding are "
   "ASCII. With -P, PCRE2 without UTF and UCP.",
   [](Args& a, std::string_view) -> Status { a.pattern.no_unicode = true; return {}; }},
  {"unicode", 0, "", "Undo --no-unicode (Unicode mode is the default).",
   [](Args& a, std::string_view) -> Status { a.pattern.no_unicode = false; return {}; }},
  {"no-pcre2-unicode", 0, "", "(DEPRECATED) Alias of --no-unicode.",
   [](Args& a, std::string_view) -> Status { a.pattern.no_unicode = true; return {}; }},
  {"pcre2-unicode", 0, "", "(DEPRECATED) Alias of --unicode.",
   [](Args& a, std::string_view) -> Status { a.pattern.no_unicode = false; return {}; }},
  {"max-columns", 'M', "NUM", "Omit printed lines longer than NUM bytes (0: no limit).",
   [](Args& a, std::string_view v) -> Status {
     CTX_TRY_ASSIGN(auto n, parse_count("max-columns", v));
     a.max_columns = n == 0 ? std::nullopt : std::optional<std::uint64_t>(n); return {}; }},
  {"max-columns-preview", 0, "", "Print the first NUM columns of an omitted line instead.",
   [](Args& a, std::string_view) -> Status { a.max_columns_preview = true; return {}; }},
  {"no-max-columns-preview", 0, "", "Undo --max-columns-preview.",
   [](Args& a, std::string_view) -> Status { a.max_columns_preview = false; return {}; }},
  {"trim", 0, "", "Remove leading ASCII whitespace from printed lines.",
   [](Args& a, std::string_view) -> Status { a.trim = true; return {}; }},
  {"no-trim", 0, "", "Undo --trim.",
   [](Args& a, std::string_view) -> Status { a.trim = false; return {}; }},
  {"stats", 0, "", "Print totals (matches, files, bytes, time) after the results.",
   [](Args& a, std::string_view) -> Status { a.stats = true; return {}; }},
  {"no-stats", 0, "", "Undo --stats.",
   [](Args& a, std::string_view) -> Status { a.stats = false; return {}; }},
  {"color", 0, "WHEN", "When to color: never, auto (a terminal), always, ansi.",
   [](Args& a, std::string_view v) -> Status {
     if (v == "never") a.color = Args::Color::kNever;
     else if (v == "auto") a.color = Args::Color::kAuto;
     else if (v == "always" || v == "ansi") a.color = Args::Color::kAlways;
     else return usage(fmt::format("invalid value '{}' for --color: expected never, auto, always "
                                   "or ansi", v));
     return {}; }, "never auto always ansi"},
  {"colors", 0, "SPEC",
   "Colors: {path,line,column,match}:{fg,bg,style,none}:VALUE, as ripgrep (e.g. match:fg:red, "
   "line:style:bold, path:none). May repeat.",
   [](Args& a, std::string_view v) -> Status {
     if (Status s = check_color_spec(v); !s.ok()) {
       return usage(fmt::format("error parsing flag --colors: {}", s.error().detail));
     }
     a.colors.emplace_back(v); return {}; }},
  {"files", 0, "", "Print each file that would be searched, without searching.",
   [](Args& a, std::string_view) -> Status { set_mode(a, Args::Mode::kFiles); return {}; }},
  {"type-list", 0, "", "Show every known file type and its globs.",
   [](Args& a, std::string_view) -> Status { set_mode(a, Args::Mode::kTypeList); return {}; }},
  {"glob", 'g', "GLOB", "Include files matching GLOB; a leading '!' excludes. Overrides ignore files.",
   [](Args& a, std::string_view v) -> Status { a.globs.push_back({std::string(v), false}); return {}; }},
  {"iglob", 0, "GLOB", "Like --glob, matched case-insensitively.",
   [](Args& a, std::string_view v) -> Status { a.globs.push_back({std::string(v), true}); return {}; }},
  {"glob-case-insensitive", 0, "", "Match every --glob case-insensitively.",
   [](Args& a, std::string_view) -> Status { a.glob_case_insensitive = true; return {}; }},
  {"no-glob-case-insensitive", 0, "", "Undo --glob-case-insensitive.",
   [](Args& a, std::string_view) -> Status { a.glob_case_insensitive = false; return {}; }},
  {"type", 't', "TYPE", "Only search files of TYPE (see --type-list). May repeat.",
   [](Args& a, std::string_view v) -> Status { a.types.push_back({std::string(v), false}); return {}; }},
  {"type-not", 'T', "TYPE", "Do not search files of TYPE. May repeat.",
   [](Args& a, std::string_view v) -> Status { a.types.push_back({std::string(v), true}); return {}; }},
  {"type-add", 0, "SPEC", "Add a file type: 'name:glob[,glob]' or 'name:include:type[,type]'.",
   [](Args& a, std::string_view v) -> Status { a.type_defs.emplace_back('a', v); return {}; }},
  {"type-clear", 0, "TYPE", "Remove the globs of TYPE.",
   [](Args& a, std::string_view v) -> Status { a.type_defs.emplace_back('c', v); return {}; }},
  {"hidden", '.', "", "Search hidden files and directories (names starting with '.').",
   [](Args& a, std::string_view) -> Status { a.walk.hidden = true; return {}; }},
  {"no-hidden", 0, "", "Undo --hidden.",
   [](Args& a, std::string_view) -> Status { a.walk.hidden = false; return {}; }},
  {"follow", 'L', "", "Follow symbolic links (loops are detected and reported).",
   [](Args& a, std::string_view) -> Status { a.walk.follow_links = true; return {}; }},
  {"no-follow", 0, "", "Undo --follow.",
   [](Args& a, std::string_view) -> Status { a.walk.follow_links = false; return {}; }},
  {"max-depth", 'd', "NUM", "Descend at most NUM directories below each path given.",
   [](Args& a, std::string_view v) -> Status {
     CTX_TRY_ASSIGN(auto n, parse_count("max-depth", v)); a.walk.max_depth = n; return {}; }},
  {"maxdepth", 0, "NUM", "Alias of --max-depth.",
   [](Args& a, std::string_view v) -> Status {
     CTX_TRY_ASSIGN(auto n, parse_count("maxdepth", v)); a.walk.max_depth = n; return {}; }},
  {"max-filesize", 0, "NUM+SUFFIX?", "Skip files larger than NUM bytes (suffixes K, M, G).",
   [](Args& a, std::string_view v) -> Status {
     CTX_TRY_ASSIGN(auto n, parse_size("max-filesize", v)); a.walk.max_filesize = n; return {}; }},
  {"mmap", 0, "", "Search files named on the command line as memory maps, as ripgrep does for at "
   "most 10 named files by default (this decides where binary data is noticed). Files of 128 KiB or "
   "more are mapped anyway unless --no-mmap is given.",
   [](Args& a, std::string_view) -> Status { a.mmap = Args::Mmap::kAlways; return {}; }},
  {"no-mmap", 0, "", "Never memory-map files: read every one with read(2).",
   [](Args& a, std::string_view) -> Status { a.mmap = Args::Mmap::kNever; return {}; }},
  {"one-file-system", 0, "", "Do not descend into directories on other file systems.",
   [](Args& a, std::string_view) -> Status { a.walk.one_file_system = true; return {}; }},
  {"no-one-file-system", 0, "", "Undo --one-file-system.",
   [](Args& a, std::string_view) -> Status { a.walk.one_file_system = false; return {}; }},
  {"no-ignore", 0, "", "Ignore no files because of ignore files (implies the --no-ignore-* flags "
   "below, except --no-ignore-files).",
   [](Args& a, std::string_view) -> Status { set_no_ignore(a, true); return {}; }},
  {"ignore", 0, "", "Undo --no-ignore.",
   [](Args& a, std::string_view) -> Status { set_no_ignore(a, false); return {}; }},
  {"no-ignore-vcs", 0, "", "Do not respect .gitignore, .git/info/exclude or the global excludes.",
   [](Args& a, std::string_view) -> Status { a.walk.git_ignore = false; return {}; }},
  {"ignore-vcs", 0, "", "Undo --no-ignore-vcs.",
   [](Args& a, std::string_view) -> Status { a.walk.git_ignore = true; return {}; }},
  {"no-ignore-dot", 0, "", "Do not respect .ignore, .rgignore or .ctxignore files.",
   [](Args& a, std::string_view) -> Status { a.walk.dot_ignore = false; return {}; }},
  {"ignore-dot", 0, "", "Undo --no-ignore-dot.",
   [](Args& a, std::string_view) -> Status { a.walk.dot_ignore = true; return {}; }},
  {"no-ignore-exclude", 0, "", "Do not respect .git/info/exclude.",
   [](Args& a, std::string_view) -> Status { a.walk.git_exclude = false; return {}; }},
  {"ignore-exclude", 0, "", "Undo --no-ignore-exclude.",
   [](Args& a, std::string_view) -> Status { a.walk.git_exclude = true; return {}; }},
  {"no-ignore-global", 0, "", "Do not respect git's global excludes file (core.excludesFile).",
   [](Args& a, std::string_view) -> Status { a.walk.git_global = false; return {}; }},
  {"ignore-global", 0, "", "Undo --no-ignore-global.",
   [](Args& a, std::string_view) -> Status { a.walk.git_global = true; return {}; }},
  {"no-ignore-parent", 0, "", "Do not respect ignore files in parent directories of the paths.",
   [](Args& a, std::string_view) -> Status { a.walk.parents = false; return {}; }},
  {"ignore-parent", 0, "", "Undo --no-ignore-parent.",
   [](Args& a, std::string_view) -> Status { a.walk.parents = true; return {}; }},
  {"hyperlink-format", 0, "FORMAT", "Put an OSC 8 hyperlink on printed paths (only with colors "
   "on): an alias (default, none, file, grep+, kitty, macvim, textmate, vscode, vscode-insiders, "
   "vscodium) or a format with {path} and optionally {host}, {line}, {column}, {wslprefix}, e.g. "
   "file://{host}{path}. Empty: none.",
   [](Args& a, std::string_view v) -> Status {
     CTX_TRY_ASSIGN(a.hyperlink_format, parse_hyperlink_format(v)); return {}; },
   "default none file grep+ kitty macvim textmate vscode vscode-insiders vscodium"},
  {"hostname-bin", 0, "COMMAND", "The program whose output (trimmed) is the {host} of "
   "--hyperlink-format (default, or when it fails: gethostname).",
   [](Args& a, std::string_view v) -> Status { a.hostname_bin = std::string(v); return {}; }},
  {"no-ignore-files", 0, "", "Do not respect the files given with --ignore-file.",
   [](Args& a, std::string_view) -> Status { a.no_ignore_files = true; return {}; }},
  {"ignore-files", 0, "", "Undo --no-ignore-files.",
   [](Args& a, std::string_view) -> Status { a.no_ignore_files = false; return {}; }},
  {"ignore-file", 0, "PATH", "Also respect the ignore rules in PATH (gitignore syntax; lowest "
   "precedence).",
   [](Args& a, std::string_view v) -> Status { a.walk.ignore_files.emplace_back(v); return {}; }},
  {"ignore-file-case-insensitive", 0, "", "Match ignore files' globs case-insensitively.",
   [](Args& a, std::string_view) -> Status { a.walk.ignore_case_insensitive = true; return {}; }},
  {"no-ignore-file-case-insensitive", 0, "", "Undo --ignore-file-case-insensitive.",
   [](Args& a, std::string_view) -> Status { a.walk.ignore_case_insensitive = false; return {}; }},
  {"no-require-git", 0, "", "Respect .gitignore files even outside a git repository.",
   [](Args& a, std::string_view) -> Status { a.walk.require_git = false; return {}; }},
  {"require-git", 0, "", "Undo --no-require-git.",
   [](Args& a, std::string_view) -> Status { a.walk.require_git = true; return {}; }},
  {"unrestricted", 'u', "", "-u: --no-ignore; -uu: also --hidden; -uuu: also --binary.",
   [](Args& a, std::string_view) -> Status {
     // As ripgrep 14: each -u acts where it stands (a later flag may undo it).
     if (++a.unrestricted > 3) {
       return usage("error parsing flag -u: flag can only be repeated up to 3 times");
     }
     if (a.unrestricted == 1) set_no_ignore(a, true);
     if (a.unrestricted == 2) a.walk.hidden = true;
     if (a.unrestricted == 3) set_binary_mode(a, false, true);
     return {}; }},
  {"sort", 0, "SORTBY", "Sort results: none, path, modified, accessed, created. Stays parallel.",
   [](Args& a, std::string_view v) -> Status { return set_sort(a, v, false); },
   "none path modified accessed created"},
  {"sortr", 0, "SORTBY", "Like --sort, in reverse order.",
   [](Args& a, std::string_view v) -> Status { return set_sort(a, v, true); },
   "none path modified accessed created"},
  {"threads", 'j', "NUM", "Use NUM threads (0: one per core).",
   [](Args& a, std::string_view v) -> Status {
     CTX_TRY_ASSIGN(auto n, parse_count("threads", v));
     a.walk.threads = static_cast<unsigned>(std::min<std::size_t>(n, 1024)); return {}; }},
  {"null", '0', "", "Follow each printed path with a NUL byte instead of a newline.",
   [](Args& a, std::string_view) -> Status { a.null = true; return {}; }},
  {"quiet", 'q', "", "Print nothing; exit 0 when something was found.",
   [](Args& a, std::string_view) -> Status { a.quiet = true; return {}; }},
  {"include-zero", 0, "", "With -c or --count-matches, also print files with no match (count 0).",
   [](Args& a, std::string_view) -> Status { a.include_zero = true; return {}; }},
  {"no-include-zero", 0, "", "Undo --include-zero.",
   [](Args& a, std::string_view) -> Status { a.include_zero = false; return {}; }},
  {"no-messages", 0, "", "Do not print errors about files that cannot be opened or read (the "
   "exit status still says 2).",
   [](Args& a, std::string_view) -> Status { a.no_messages = true; return {}; }},
  {"messages", 0, "", "Undo --no-messages.",
   [](Args& a, std::string_view) -> Status { a.no_messages = false; return {}; }},
  {"no-ignore-messages", 0, "", "Do not print warnings about ignore files that cannot be read "
   "(--ignore-file's included).",
   [](Args& a, std::string_view) -> Status { a.no_ignore_messages = true; return {}; }},
  {"ignore-messages", 0, "", "Undo --no-ignore-messages.",
   [](Args& a, std::string_view) -> Status { a.no_ignore_messages = false; return {}; }},
  {"pretty", 'p', "", "Alias for --color always --heading --line-number.",
   [](Args& a, std::string_view) -> Status {
     a.color = Args::Color::kAlways; a.heading = true; a.line_numbers = true; return {}; }},
  {"sort-files", 0, "", "Deprecated: use --sort path.",
   [](Args& a, std::string_view) -> Status { return set_sort(a, "path", false); }},
  {"no-sort-files", 0, "", "Deprecated: undo --sort-files (no sorting).",
   [](Args& a, std::string_view) -> Status { return set_sort(a, "none", false); }},
  {"line-buffered", 0, "", "Write each line as soon as it is printed (default: per file).",
   [](Args& a, std::string_view) -> Status { a.buffer = Args::Buffer::kLine; return {}; }},
  {"no-line-buffered", 0, "", "Undo --line-buffered.",
   [](Args& a, std::string_view) -> Status { a.buffer = Args::Buffer::kAuto; return {}; }},
  {"block-buffered", 0, "", "Write in blocks: each file's output at once (the default).",
   [](Args& a, std::string_view) -> Status { a.buffer = Args::Buffer::kBlock; return {}; }},
  {"no-block-buffered", 0, "", "Undo --block-buffered.",
   [](Args& a, std::string_view) -> Status { a.buffer = Args::Buffer::kAuto; return {}; }},
  {"path-separator", 0, "SEPARATOR", "Print paths with this byte instead of / (escapes decoded; "
   "empty: the default).",
   [](Args& a, std::string_view v) -> Status {
     const std::string raw = unescape(v);
     if (raw.size() > 1) {
       return usage(fmt::format("invalid value '{}' for --path-separator: a path separator must "
                                "be exactly one byte, but it is {} bytes", v, raw.size()));
     }
     a.path_separator = raw.empty() ? std::nullopt : std::optional<char>(raw[0]);
     return {}; }},
  {"pre", 0, "COMMAND", "Search the output of COMMAND PATH (the file as its stdin) instead of "
   "each file; empty: none. Overrides -z.",
   [](Args& a, std::string_view v) -> Status {
     a.pre = std::string(v); if (!v.empty()) a.search_zip = false; return {}; }},
  {"no-pre", 0, "", "Undo --pre.",
   [](Args& a, std::string_view) -> Status { a.pre.clear(); return {}; }},
  {"pre-glob", 0, "GLOB", "Run --pre only on the files GLOB matches (-g syntax; may repeat).",
   [](Args& a, std::string_view v) -> Status { a.pre_globs.emplace_back(v); return {}; }},
  {"search-zip", 'z', "", "Search compressed files (gz, bz2, xz, lz4, lzma, br, zst, Z) through "
   "their decompressor when it is on PATH. Overrides --pre.",
   [](Args& a, std::string_view) -> Status { a.search_zip = true; a.pre.clear(); return {}; }},
  {"no-search-zip", 0, "", "Undo --search-zip.",
   [](Args& a, std::string_view) -> Status { a.search_zip = false; return {}; }},
  {"debug", 0, "", "Print debugging messages (what was chosen and why) on stderr.",
   [](Args& a, std::string_view) -> Status { a.debug = std::max(a.debug, 1); return {}; }},
  {"trace", 0, "", "Print more debugging messages than --debug (every file searched) on stderr.",
   [](Args& a, std::string_view) -> Status { a.debug = 2; return {}; }},
  {"generate", 0, "KIND", "Print a shell completion script or the man page: complete-bash, "
   "complete-zsh, complete-fish, man.",
   [](Args& a, std::string_view v) -> Status {
     a.generate = std::string(v); set_mode(a, Args::Mode::kGenerate); return {}; },
   "complete-bash complete-zsh complete-fish man"},
  {"help", 'h', "", "Show this help.",
   [](Args& a, std::string_view) -> Status { a.mode = Args::Mode::kHelp; return {}; }},
  {"version", 'V', "", "Show the version.",
   [](Args& a, std::string_view) -> Status { a.mode = Args::Mode::kVersion; return {}; }},
};
// clang-format on

const Flag* find_long(std::string_view name) {
  for (const Flag& f : kFlags) {
    if (f.long_name == name) return &f;
  }
  return nullptr;
}

const Flag* find_short(char c) {
  for (const Flag& f : kFlags) {
    if (f.short_name == c) return &f;
  }
  return nullptr;
}

// Flags whose value ripgrep reads as a String: a value that is not UTF-8 is its error
// "error parsing flag -e: value is not valid UTF-8" (paths and separators may hold any bytes).
bool takes_utf8(const Flag& f) {
  static constexpr std::string_view kNames[] = {
      "after-context",    "before-context", "color",       "colors",           "context",
      "dfa-size-limit",   "encoding",       "engine",      "generate",         "glob",
      "hyperlink-format", "iglob",          "max-columns", "max-count",        "max-depth",
      "max-filesize",     "path-separator", "pre-glob",    "regex-size-limit", "regexp",
      "replace",          "sort",           "sortr",       "threads",          "type",
      "type-add",         "type-clear",     "type-not"};
  return std::ranges::find(kNames, f.long_name) != std::end(kNames);
}

Status check_utf8(const Flag& f, std::string_view shown, std::string_view value) {
  if (is_valid_utf8(value)) return {};
  if (takes_utf8(f)) {
    return usage(fmt::format("error parsing flag {}: value is not valid UTF-8", shown));
  }
  if (f.long_name == "context-separator" || f.long_name == "field-match-separator" ||
      f.long_name == "field-context-separator") {
    return usage(fmt::format(
        "error parsing flag {}: separator must be valid UTF-8 (use escape sequences to provide a "
        "separator that is not valid UTF-8)",
        shown));
  }
  return {};
}

// A handler's "error parsing flag --NAME: ..." names the flag as given (-E for --encoding), as
// rg does.
Status as_given(Status status, const Flag& f, char short_name) {
  if (status.ok()) return status;
  Error e = status.error();
  const std::string prefix = fmt::format("error parsing flag --{}:", f.long_name);
  if (e.detail.starts_with(prefix)) {
    e.detail = fmt::format("error parsing flag -{}:{}", short_name, e.detail.substr(prefix.size()));
  }
  return e;
}

// The flag names closest to `name`, for "did you mean" hints.
// The hint after an unrecognized --NAME: the flag NAME negates (--no-null: --null), else the
// shortest flag holding NAME (--nul: --null), else the longest flag NAME holds.
std::string suggestion(std::string_view name) {
  auto hint = [](const Flag* f) { return fmt::format(" (did you mean --{}?)", f->long_name); };
  if (name.starts_with("no-")) {
    if (const Flag* f = find_long(name.substr(3))) return hint(f);
  }
  const Flag* best = nullptr;
  for (const Flag& f : kFlags) {
    if (f.long_name.find(name) != std::string_view::npos &&
        (best == nullptr || f.long_name.size() < best->long_name.size())) {
      best = &f;
    }
  }
  if (best == nullptr && name.size() >= 4) {
    for (const Flag& f : kFlags) {
      if (name.find(f.long_name) != std::string_view::npos &&
          (best == nullptr || f.long_name.size() > best->long_name.size())) {
        best = &f;
      }
    }
  }
  return best != nullptr ? hint(best) : " (see --help)";
}

void finish(Args& a) {
  a.search.before = a.context_before.value_or(a.context_both.value_or(0));
  a.search.after = a.context_after.value_or(a.context_both.value_or(0));
  a.search.passthru = a.passthru;
  if (a.passthru) a.search.before = a.search.after = 0;
  a.pattern.pcre2 = a.engine == Args::Engine::kPcre2;
  a.pattern.rust_syntax_errors = true;  // rg's dialect, rg's errors
  if (a.no_ignore_files) a.walk.ignore_files.clear();
  if (!a.walk.git_ignore) {  // as ripgrep: --no-ignore-vcs also drops exclude and global
    a.walk.git_exclude = false;
    a.walk.git_global = false;
  }
  // As rg 14: --json turns statistics on, and under -q its summary printer then searches every
  // file to the end to count them (the closing summary message is all that prints).
  if (a.json && a.quiet) a.stats = true;
  // As rg 14 (HiArgs): -v --count-matches counts lines as -c does, and -o -c counts matches as
  // --count-matches does, -v or not (the inverted lines hold none: `-c -o -v` prints 0).
  if (a.output == Args::Output::kCountMatches && a.search.invert) {
    a.output = Args::Output::kCount;
  } else if (a.output == Args::Output::kCount && a.only_matching) {
    a.output = Args::Output::kCountMatches;
  }
}

}  // namespace

std::string unescape(std::string_view text) {
  std::string out;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '\\' || i + 1 >= text.size()) {
      out.push_back(c);
      continue;
    }
    const char e = text[i + 1];
    char decoded = 0;
    switch (e) {
      case '\\':
        decoded = '\\';
        break;
      case '0':
        decoded = '\0';
        break;
      case 't':
        decoded = '\t';
        break;
      case 'n':
        decoded = '\n';
        break;
      case 'r':
        decoded = '\r';
        break;
      case 'x':
        if (i + 3 < text.size() && hex(text[i + 2]) >= 0 && hex(text[i + 3]) >= 0) {
          out.push_back(static_cast<char>(hex(text[i + 2]) * 16 + hex(text[i + 3])));
          i += 3;
          continue;
        }
        out.push_back(c);
        continue;
      default:
        out.push_back(c);
        continue;
    }
    out.push_back(decoded);
    ++i;
  }
  return out;
}

Result<Args> parse_args(const std::vector<std::string>& argv) {
  Args a;
  bool flags_done = false;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string_view arg = argv[i];
    auto take_value = [&](const Flag& f, std::string_view shown) -> Result<std::string_view> {
      if (i + 1 >= argv.size()) {
        return usage(fmt::format("flag {} needs a value ({}): e.g. {} {}", shown, f.value_name,
                                 shown, f.value_name));
      }
      return std::string_view(argv[++i]);
    };
    if (flags_done || arg.size() < 2 || arg[0] != '-') {
      a.positionals.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    if (arg.substr(0, 2) == "--") {
      std::string_view name = arg.substr(2);
      std::optional<std::string_view> inline_value;
      if (auto eq = name.find('='); eq != std::string_view::npos) {
        inline_value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      const Flag* f = find_long(name);
      if (f == nullptr) {
        return usage(fmt::format("unrecognized flag --{}{}", name, suggestion(name)));
      }
      std::string shown = fmt::format("--{}", name);
      std::string_view value;
      if (!f->value_name.empty()) {
        if (inline_value) {
          value = *inline_value;
        } else {
          CTX_TRY_ASSIGN(value, take_value(*f, shown));
        }
      } else if (inline_value) {
        return usage(fmt::format("flag {} takes no value, but got '{}'", shown, *inline_value));
      }
      CTX_TRY(check_utf8(*f, fmt::format("--{}", f->long_name), value));
      CTX_TRY(f->handler(a, value));
      continue;
    }
    // One or more short flags: -uu, -gGLOB, -g GLOB.
    for (std::size_t k = 1; k < arg.size(); ++k) {
      const Flag* f = find_short(arg[k]);
      if (f == nullptr) {
        return usage(fmt::format("unrecognized flag -{} in '{}' (see --help)", arg[k], arg));
      }
      std::string_view value;
      if (!f->value_name.empty()) {
        if (k + 1 < arg.size()) {
          value = arg.substr(k + 1);
          // As ripgrep's parser (lexopt): -C=2, -e=foo and -inC=2 attach the value after '='.
          if (value.front() == '=') value.remove_prefix(1);
        } else {
          CTX_TRY_ASSIGN(value, take_value(*f, fmt::format("-{}", arg[k])));
        }
        CTX_TRY(check_utf8(*f, fmt::format("-{}", arg[k]), value));
        CTX_TRY(as_given(f->handler(a, value), *f, arg[k]));
        break;
      }
      CTX_TRY(as_given(f->handler(a, value), *f, arg[k]));
    }
  }
  finish(a);
  return a;
}

Result<std::vector<std::string>> config_args(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (const std::string& a : argv) {
    if (a == "--") break;
    if (a == "--no-config") return out;
  }
  const char* path = std::getenv("CTXSEARCH_CONFIG_PATH");
  if (path == nullptr || *path == '\0') return out;
  constexpr std::size_t kMaxConfigBytes = 1 << 20;
  auto text = read_small_file(AT_FDCWD, path, kMaxConfigBytes);
  if (!text.ok()) {
    return usage(
        fmt::format("config file from CTXSEARCH_CONFIG_PATH: {} (fix the variable, or "
                    "pass --no-config)",
                    text.error().detail));
  }
  for_each_line(*text, [&](std::string_view line) {
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
      line.remove_suffix(1);
    }
    if (!line.empty() && line.front() != '#') out.emplace_back(line);
  });
  return out;
}

namespace {

constexpr std::string_view kSummary = "fast, ripgrep-compatible code search";

// Replaces every `from` character of `text` with `to`.
std::string replace_all(std::string_view text, char from, std::string_view to) {
  std::string out;
  for (char c : text) {
    if (c == from) {
      out.append(to);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Flags that take a file or directory path as their value.
bool takes_path(const Flag& f) { return f.value_name == "PATH" || f.value_name == "PATTERNFILE"; }
// Flags whose value is a file type name (completed from --type-list).
bool takes_type(const Flag& f) { return f.value_name == "TYPE"; }

std::string generate_bash() {
  std::string words;
  std::string cases;
  for (const Flag& f : kFlags) {
    words += fmt::format(" --{}", f.long_name);
    if (f.short_name != 0) words += fmt::format(" -{}", f.short_name);
    if (f.value_name.empty()) continue;
    std::string names = fmt::format("--{}", f.long_name);
    if (f.short_name != 0) names += fmt::format("|-{}", f.short_name);
    std::string action;
    if (!f.choices.empty()) {
      action = fmt::format("COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))", f.choices);
    } else if (takes_path(f)) {
      action = "COMPREPLY=($(compgen -f -- \"$cur\"))";
    } else if (takes_type(f)) {
      action =
          "COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" --type-list 2>/dev/null | "
          "cut -d: -f1)\" -- \"$cur\"))";
    } else {
      action = "COMPREPLY=()";
    }
    cases += fmt::format("    {})\n      {}\n      return 0\n      ;;\n", names, action);
  }
  return fmt::format(
      "# bash completion for ctxsearch (generated by `ctxsearch --generate complete-bash`)\n"
      "_ctxsearch() {{\n"
      "  local cur prev\n"
      "  cur=\"${{COMP_WORDS[COMP_CWORD]}}\"\n"
      "  prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\"\n"
      "  case \"$prev\" in\n{}  esac\n"
      "  if [[ \"$cur\" == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))\n"
      "    return 0\n"
      "  fi\n"
      "  COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "  return 0\n"
      "}}\n"
      "complete -F _ctxsearch -o bashdefault -o default ctxsearch\n",
      cases, words.substr(1));
}

std::string generate_zsh() {
  std::string specs;
  for (const Flag& f : kFlags) {
    // In a spec, the description sits in [...]: escape brackets; quote for single quotes.
    std::string help = replace_all(replace_all(f.help, '[', "\\["), ']', "\\]");
    help = replace_all(help, '\'', "'\\''");
    help = replace_all(help, ':', "\\:");
    std::string value;
    if (!f.value_name.empty()) {
      std::string action = !f.choices.empty() ? fmt::format("({})", f.choices)
                           : takes_path(f)    ? std::string("_files")
                           : takes_type(f)    ? std::string(
                                                    "{_values type ${(f)\"$(ctxsearch --type-list "
                                                       "2>/dev/null | cut -d: -f1)\"}}")
                                           : std::string(" ");
      value = fmt::format(":{}:{}", f.value_name, action);
    }
    const char* eq = f.value_name.empty() ? "" : "=";
    const char* plus = f.value_name.empty() ? "" : "+";
    if (f.short_name != 0) {
      specs += fmt::format("    '(-{0} --{1})'{{-{0}{2},--{1}{3}}}'[{4}]{5}'\n", f.short_name,
                           f.long_name, plus, eq, help, value);
    } else {
      specs += fmt::format("    '--{}{}[{}]{}'\n", f.long_name, eq, help, value);
    }
  }
  return fmt::format(
      "#compdef ctxsearch\n"
      "# zsh completion for ctxsearch (generated by `ctxsearch --generate complete-zsh`)\n"
      "_ctxsearch() {{\n"
      "  local -a args\n"
      "  args=(\n{}"
      "    '1:pattern: '\n"
      "    '*:path:_files'\n"
      "  )\n"
      "  _arguments -s -S $args\n"
      "}}\n"
      "_ctxsearch \"$@\"\n",
      specs);
}

std::string generate_fish() {
  std::string out =
      "# fish completion for ctxsearch (generated by `ctxsearch --generate complete-fish`)\n";
  for (const Flag& f : kFlags) {
    std::string line = "complete -c ctxsearch";
    if (f.short_name != 0) line += fmt::format(" -s {}", f.short_name);
    line += fmt::format(" -l {}", f.long_name);
    if (!f.value_name.empty()) {
      line += " -r";
      if (!f.choices.empty()) {
        line += fmt::format(" -f -a '{}'", f.choices);
      } else if (takes_type(f)) {
        line += " -f -a '(ctxsearch --type-list 2>/dev/null | string replace -r \":.*\" \"\")'";
      } else if (!takes_path(f)) {
        line += " -f";
      }
    }
    std::string help = replace_all(replace_all(f.help, '\\', "\\\\"), '\'', "\\'");
    line += fmt::format(" -d '{}'\n", help);
    out += line;
  }
  return out;
}

// Text for roff: backslashes and dashes escaped, no line starting with a control character.
std::string roff(std::string_view text) {
  std::string out = replace_all(replace_all(text, '\\', "\\e"), '-', "\\-");
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
  return out;
}

std::string generate_man() {
  std::string out = fmt::format(
      ".TH CTXSEARCH 1 \"\" \"ctxsearch 0.1.0\" \"User Commands\"\n"
      ".SH NAME\n"
      "ctxsearch \\- {}\n"
      ".SH SYNOPSIS\n"
      ".B ctxsearch\n"
      "[\\fIOPTIONS\\fR] \\fIPATTERN\\fR [\\fIPATH\\fR ...]\n"
      ".br\n"
      ".B ctxsearch\n"
      "[\\fIOPTIONS\\fR] \\fB\\-e\\fR \\fIPATTERN\\fR ... [\\fIPATH\\fR ...]\n"
      ".br\n"
      ".B ctxsearch\n"
      "\\fB\\-\\-files\\fR [\\fIOPTIONS\\fR] [\\fIPATH\\fR ...]\n"
      ".SH DESCRIPTION\n"
      "ctxsearch searches files for lines matching a regular expression, as ripgrep (rg) does:\n"
      "the same flags, output formats and exit codes. Paths default to the current directory.\n"
      "Ignore files (.gitignore at every level, .git/info/exclude, the global git excludes, "
      ".ignore, .rgignore, .ctxignore) are respected as git and ripgrep do; hidden files are "
      "skipped unless \\fB\\-\\-hidden\\fR.\n"
      ".SH OPTIONS\n",
      roff(kSummary));
  for (const Flag& f : kFlags) {
    out += ".TP\n";
    if (f.short_name != 0)
      out += fmt::format("\\fB\\-{}\\fR, ", roff(std::string(1, f.short_name)));
    out += fmt::format("\\fB\\-\\-{}\\fR", roff(f.long_name));
    if (!f.value_name.empty()) out += fmt::format(" \\fI{}\\fR", roff(f.value_name));
    out += fmt::format("\n{}\n", roff(f.help));
  }
  out +=
      ".SH ENVIRONMENT\n"
      ".TP\n"
      "\\fBCTXSEARCH_CONFIG_PATH\\fR\n"
      "A config file: one argument per line, read before the command line's "
      "(\\fB\\-\\-no\\-config\\fR ignores it).\n"
      ".SH EXIT STATUS\n"
      "0 when something was found, 1 when nothing was, 2 on an error (other paths are still\n"
      "searched; the error goes to standard error).\n"
      ".SH SEE ALSO\n"
      ".BR rg (1)\n";
  return out;
}

}  // namespace

Result<std::string> generate(std::string_view kind) {
  if (kind == "complete-bash") return generate_bash();
  if (kind == "complete-zsh") return generate_zsh();
  if (kind == "complete-fish") return generate_fish();
  if (kind == "man") return generate_man();
  return usage(fmt::format(
      "invalid value '{}' for --generate: expected complete-bash, complete-zsh, complete-fish or "
      "man",
      kind));
}

std::string help_text() {
  std::string out =
      "ctxsearch: fast, ripgrep-compatible code search.\n\n"
      "USAGE:\n    ctxsearch [OPTIONS] PATTERN [PATH ...]\n    ctxsearch [OPTIONS] -e PATTERN ... "
      "[PATH ...]\n"
      "    ctxsearch --files [OPTIONS] [PATH ...]\n    ctxsearch --type-list\n\n"
      "Paths default to the current directory. Ignore files (.gitignore at every level,\n"
      ".git/info/exclude, the global git excludes, .ignore, .rgignore, .ctxignore) are\n"
      "respected as git and ripgrep do; hidden files are skipped unless --hidden.\n\n"
      "Exit status: 0 when something was found, 1 when nothing was, 2 on an error.\n\nOPTIONS:\n";
  for (const Flag& f : kFlags) {
    std::string names = f.short_name != 0 ? fmt::format("-{}, --{}", f.short_name, f.long_name)
                                          : fmt::format("    --{}", f.long_name);
    if (!f.value_name.empty()) names += fmt::format(" {}", f.value_name);
    out += fmt::format("    {:<36} {}\n", names, f.help);
  }
  return out;
}

}  // namespace ctx::cli
