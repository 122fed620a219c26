// Command-line arguments: one flag table (args.cpp) drives parsing, --help and, later, shell
// completions; `Args` is what it produces. Parsing follows ripgrep: combined short flags (-uu),
// attached values (-gGLOB, -g=GLOB, --glob=GLOB), `--` ending flags, the last of two conflicting
// flags wins.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ctx/base/result.hpp"
#include "ctx/engine/pattern_set.hpp"
#include "ctx/engine/searcher.hpp"
#include "ctx/walker/types.hpp"
#include "ctx/walker/walker.hpp"
#include "hyperlink.hpp"

namespace ctx::cli {

struct GlobArg {
  std::string glob;
  bool case_insensitive;  // --iglob
};

struct Args {
  enum class Mode : std::uint8_t {
    kSearch,
    kFiles,
    kTypeList,
    kHelp,
    kVersion,
    kPcre2Version,
    kGenerate
  };
  Mode mode = Mode::kSearch;
  std::vector<std::string> positionals;  // PATTERN then PATH... (only PATHs with --files)

  walker::WalkOptions walk;
  std::vector<GlobArg> globs;
  bool glob_case_insensitive = false;
  std::vector<walker::TypeSelection> types;  // -t / -T in command-line order (the last match wins)
  // Type flags in command-line order: 'a' add, 'c' clear (they must apply in order).
  std::vector<std::pair<char, std::string>> type_defs;
  int unrestricted = 0;  // -u count
  bool no_ignore_files = false;
  bool null = false;  // -0/--null: NUL after each path instead of a newline
  bool quiet = false;

  // Searching.
  // -e PATTERN and -f PATTERNFILE, in the order given (the order of the alternation).
  struct PatternSource {
    bool file = false;  // -f: `value` names a file of patterns, one per line
    std::string value;
  };
  std::vector<PatternSource> pattern_sources;
  engine::PatternOptions pattern;
  engine::SearchOptions search;
  enum class Output : std::uint8_t {
    kLines,
    kFilesWithMatches,
    kFilesWithoutMatch,
    kCount,
    kCountMatches
  };
  Output output = Output::kLines;
  std::optional<bool> line_numbers;   // -n / -N; default: on when stdout is a terminal
  std::optional<bool> with_filename;  // -H / -I; default: unless one file path is given
  std::optional<bool> heading;        // default: on when stdout is a terminal
  bool only_matching = false;         // -o
  enum class Color : std::uint8_t { kNever, kAuto, kAlways };
  Color color = Color::kAuto;
  std::vector<std::string> colors;     // --colors specs, in order (checked)
  std::optional<std::string> replace;  // -r: print matches replaced by this (output only)
  bool json = false;                   // --json: ripgrep's JSON Lines messages
  bool vimgrep = false;                // --vimgrep: path:line:column:text for every match
  bool no_config = false;              // --no-config
  std::optional<bool> column;          // --column / --no-column (unset: off but under --vimgrep)
  bool byte_offset = false;            // -b
  bool text = false;                   // -a
  bool binary = false;                 // --binary: walked binary files as if named (-uuu)
  enum class Mmap : std::uint8_t { kAuto, kAlways, kNever };
  Mmap mmap = Mmap::kAuto;                   // --mmap / --no-mmap
  std::optional<std::uint64_t> max_columns;  // -M: longer printed lines are omitted (0: no limit)
  bool max_columns_preview = false;          // --max-columns-preview: print their start instead
  bool trim = false;                         // --trim: drop leading ASCII whitespace of lines
  bool stats = false;                        // --stats: totals after the results
  std::string generate;                      // --generate KIND (Mode::kGenerate)

  // Context as rg 14's ContextMode: -A/-B win over -C whatever their order; --passthru and any
  // of them override each other (the last wins). finish() turns them into search.before/after.
  std::optional<std::size_t> context_before, context_after, context_both;
  bool passthru = false;
  // The separators of the standard printer, escapes (\t, \xHH, ...) already decoded.
  std::optional<std::string> context_separator = std::string("--");  // nullopt: none
  std::string field_match_separator = ":";
  std::string field_context_separator = "-";
  std::optional<char> path_separator;  // --path-separator: replaces '/' in printed paths
  bool include_zero = false;           // --include-zero: -c/--count-matches print zero counts
  bool no_messages = false;            // --no-messages: file errors are not printed
  bool no_ignore_messages = false;     // --no-ignore-messages: nor ignore-file errors
  enum class Buffer : std::uint8_t { kAuto, kLine, kBlock };
  Buffer buffer = Buffer::kAuto;  // --line-buffered / --block-buffered
  enum class Engine : std::uint8_t { kDefault, kPcre2, kAuto };
  // --engine; -P/--pcre2 is --engine pcre2 (pattern.pcre2 says what was chosen last).
  Engine engine = Engine::kDefault;
  std::optional<std::uint64_t> regex_size_limit;  // --regex-size-limit (checked, see --help)
  std::optional<std::uint64_t> dfa_size_limit;    // --dfa-size-limit (checked, see --help)
  int debug = 0;                                  // 1: --debug, 2: --trace (stderr only)
  std::string pre;                                // --pre COMMAND (empty: none)
  std::vector<std::string> pre_globs;  // --pre-glob: which files --pre runs on (none: all)
  bool search_zip = false;             // -z/--search-zip
  HyperlinkFormat hyperlink_format;    // --hyperlink-format (empty: no links)
  std::string hostname_bin;            // --hostname-bin (empty: gethostname)
};

// rg's escapes in separator values (bstr's unescape_bytes): \\, \0, \t, \n, \r and \xHH; any
// other backslash stays as it is.
std::string unescape(std::string_view text);

// Parses argv (without argv[0]). Errors name the flag and the fix.
Result<Args> parse_args(const std::vector<std::string>& argv);

// The arguments of the config file named by $CTXSEARCH_CONFIG_PATH (ripgrep's format: one argument
// per line, leading and trailing whitespace trimmed, blank lines and lines starting with '#'
// skipped), to be parsed before the command line's. Empty when the variable is unset or empty, or
// when `argv` holds --no-config. An unreadable file is an error naming it.
Result<std::vector<std::string>> config_args(const std::vector<std::string>& argv);

// The --help text, generated from the flag table.
std::string help_text();

// The --generate output for `kind` (complete-bash, complete-zsh, complete-fish, man), generated
// from the same flag table. An unknown kind is an error listing the known ones.
Result<std::string> generate(std::string_view kind);

}  // namespace ctx::cli
