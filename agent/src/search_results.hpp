// search_files in three parts: `run_search` walks and searches the tree into a `SearchResults`
// (every visible match, sorted by path then line, deterministic whatever the thread timing),
// `render_search_page` cuts one page of it to the token budget, and the tool (search_files.cpp)
// ties them to the arguments, the cursor and the session cache, which keeps SearchResults
// between pages so paging does not search again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ctx/agent/tools.hpp"
#include "ctx/engine/pattern_set.hpp"
#include "cursor.hpp"

namespace ctx::agent {

enum class SearchMode : std::uint8_t { kContent, kFilesWithMatches, kCount };

// One stored line of a file: a matching line or a context line around one. `text` is valid UTF-8
// (invalid bytes became U+FFFD) and at most Limits::max_line_bytes of the line plus clip markers;
// `spans` (matching lines only) are byte offsets into `text`.
struct SearchLine {
  std::uint64_t number = 0;  // 1-based
  std::string text;
  std::vector<engine::MatchSpan> spans;
  bool is_match = false;
};

struct SearchFileHits {
  std::string path;                    // root-relative, canonical
  std::uint64_t count = 0;             // matching lines (content: those stored in `lines`)
  std::vector<SearchLine> lines;       // content mode: matches and context, in line order
  std::vector<std::uint32_t> matches;  // content mode: indices of the matching lines in `lines`
};

// Files left out, by reason, with a few example paths (the smallest, sorted).
struct SkipCount {
  static constexpr std::size_t kMaxExamples = 3;
  std::uint64_t count = 0;
  std::vector<std::string> examples;
  void add(std::string_view path);
  void merge(const SkipCount& other);
};

struct SearchResults {
  SearchMode mode = SearchMode::kContent;
  std::vector<SearchFileHits> files;  // files with at least one match, sorted by path
  std::uint64_t total_matches = 0;    // matching lines stored (count mode: all counted)
  // Text files searched; once the collected-match cap is reached, files it rules out count too
  // (read or not, which depends on thread timing).
  std::uint64_t files_searched = 0;
  // Why the search did not see everything: the collected-match cap (the totals are then lower
  // bounds), the deadline, cancellation, or the visit cap (then results are partial).
  bool capped = false;
  bool timed_out = false;
  bool cancelled = false;
  bool visit_capped = false;
  SkipCount binary;               // binary files that match (their text is not shown)
  SkipCount too_large;            // over Limits::max_search_file_bytes, not searched
  SkipCount timeout;              // reached after the deadline, not searched
  SkipCount unreadable;           // could not be opened or read
  SkipCount regex_limit;          // the regex hit PCRE2's backtracking limit: searched in part
  std::size_t policy_hidden = 0;  // never shown: for ToolOutput::policy_hidden only
  std::size_t memory_bytes = 0;   // roughly what this holds, for the session cache's bound

  bool partial() const {
    return capped || timed_out || cancelled || visit_capped || regex_limit.count > 0;
  }
  // Items a page slices: matches (content), files (files_with_matches, count).
  std::uint64_t item_count() const;
};

struct SearchQuery {
  std::vector<std::string> patterns;  // one pattern
  engine::PatternOptions pattern_options;
  std::string path;                // root-relative canonical start ("" is the root)
  std::vector<std::string> globs;  // rg -g globs
  std::size_t context = 0;         // lines before and after each match (content mode)
  SearchMode mode = SearchMode::kContent;
};

// Runs `query` (patterns already compiled into `patterns`) under the context's sandbox, policy,
// limits and deadline. Errors: a glob that does not compile (invalid_argument) or a walk that
// cannot start (io_error). A deadline is not an error: the results say timed_out.
Expected<SearchResults> run_search(const SearchQuery& query, const engine::PatternSet& patterns,
                                   const CallContext& context);

// What one page shows: the arguments the footer repeats and the paging state.
struct PageRequest {
  std::uint64_t offset = 0;  // into the canonical order (see render_search_page)
  std::size_t max_results = 50;
  std::size_t max_tokens = 0;
  std::string pattern;            // for texts ("no matches for ...")
  CursorKey key{"search_files"};  // next_cursor is encode_cursor(key, next offset)
  std::size_t context = 0;
  std::string max_results_note;  // max_results_note(): said when more results follow
};

// Renders one page of `results`. The canonical order of content matches is round-robin: the first
// match of every file in path order, then every file's second, and so on, so no one file eats a
// page and the pages of a list (offset 0, then each next_cursor) show every match exactly once. A
// page is the next contiguous slice of that order that fits max_results and the token budget
// (context lines are dropped before matches), shown grouped by file in path and line order. The
// text never costs more than max_tokens by the context's counter; its last line says what was cut
// and gives the exact next call. `truncated` is true when more results follow, context lines were
// left out, or the search stopped early (results.partial(): the list itself is incomplete).
// `paged`, when given, is set to whether a next page follows or context was left out (what a
// session keeps the results for).
ToolOutput render_search_page(const SearchResults& results, const PageRequest& request,
                              const CallContext& context, bool* paged = nullptr);

}  // namespace ctx::agent
