// search_files: the tool's parameters and output schema, and the call itself: arguments to a
// SearchQuery, the pattern compiled once by the engine, the cursor decoded against the
// fingerprint of the list-defining arguments, the results taken from the session cache when a
// cursor pages a search this session already ran (else searched), and one page rendered.
#include <fmt/format.h>

#include <memory>

#include "ctx/engine/pattern_set.hpp"
#include "cursor.hpp"
#include "json_writer.hpp"
#include "search_results.hpp"
#include "session.hpp"
#include "tool_common.hpp"
#include "tool_impls.hpp"

namespace ctx::agent {

namespace {

constexpr std::size_t kDefaultContentResults = 50;
constexpr std::size_t kDefaultFileResults = 200;
constexpr std::int64_t kMaxContext = 10;
// The longest pattern taken: a match never spans lines, so a longer one is a pasted file rather
// than a search, and the engine compiles any pattern but an ASCII literal through PCRE2, whose
// compiled code is at most 64 KiB (a non-ASCII literal of ~30 KB already overflows it).
constexpr std::size_t kMaxPatternBytes = 64 << 10;

const std::vector<ParamSpec>& params_table() {
  static const std::vector<ParamSpec> params = {
      {"pattern",
       ParamType::kString,
       "regular expression (Rust/PCRE-like syntax) to find in file contents; set literal=true to "
       "search for the text as is (at most 65,536 bytes)",
       true,
       {"query", "regex", "search", "search_pattern", "search_term", "text"}},
      {"path",
       ParamType::kString,
       "directory or file to search, relative to the project root (default: the whole project)",
       false,
       {"directory", "dir", "folder", "file_path", "search_path", "root", "path_prefix"}},
      {"glob",
       ParamType::kString,
       "only files matching this glob (as rg -g): '*.py', 'src/**/*.ts', '!*_test.go' "
       "excludes; several as '*.h,*.cpp'",
       false,
       {"file_pattern", "include", "files", "file_glob", "glob_pattern", "filter", "file_filter"}},
      {"literal",
       ParamType::kBoolean,
       "treat pattern as plain text, not a regex (default false)",
       false,
       {"fixed_strings", "fixed_string", "is_literal", "literal_text", "F"}},
      {"case_insensitive",
       ParamType::kBoolean,
       "ignore letter case (default false)",
       false,
       {"ignore_case", "insensitive", "i", "case_insensitive_search", "nocase"}},
      {"context",
       ParamType::kInteger,
       "lines of context before and after each match (0-10, default 0)",
       false,
       {"context_lines", "C", "-C", "lines_of_context", "num_context_lines", "context_size"},
       {},
       0,
       kMaxContext},
      {"output_mode",
       ParamType::kString,
       "content: matching lines (default); files_with_matches: paths only; count: matching lines "
       "per file",
       false,
       {"mode", "output", "output_format"},
       {"content", "files_with_matches", "count"}},
      max_results_param(true),
      cursor_param(),
      max_tokens_param(),
  };
  return params;
}

// Splits "*.h, *.cpp" at commas outside braces (so '*.{h,cpp}' stays one glob).
std::vector<std::string> split_globs(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  bool escaped = false;
  auto flush = [&] {
    std::size_t b = current.find_first_not_of(' ');
    std::size_t e = current.find_last_not_of(' ');
    if (b != std::string::npos) out.push_back(current.substr(b, e - b + 1));
    current.clear();
  };
  for (char c : text) {
    if (escaped) {
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      flush();
      continue;
    }
    current.push_back(c);
  }
  flush();
  return out;
}

SearchMode parse_mode(std::string_view mode) {
  if (mode == "files_with_matches") return SearchMode::kFilesWithMatches;
  if (mode == "count") return SearchMode::kCount;
  return SearchMode::kContent;
}

}  // namespace

std::span<const ParamSpec> search_files_params() { return params_table(); }

std::string search_files_output_schema() {
  return R"({"type":"object","properties":{)"
         R"("mode":{"type":"string","enum":["content","files_with_matches","count"]},)"
         R"("matches":{"type":"array","description":"content mode: the matches shown, by path then line","items":{"type":"object","properties":{)"
         R"("path":{"type":"string"},"line":{"type":"integer","minimum":1},)"
         R"("text":{"type":"string","description":"the line, clipped around its first match when long"},)"
         R"("submatches":{"type":"array","items":{"type":"object","properties":{)"
         R"("start":{"type":"integer","minimum":0},"end":{"type":"integer","minimum":0}},)"
         R"("required":["start","end"]},"description":"byte offsets of the matches in text"},)"
         R"("context_before":{"type":"array","items":{"type":"string"}},)"
         R"("context_after":{"type":"array","items":{"type":"string"}}},)"
         R"("required":["path","line","text"]}},)"
         R"("files":{"type":"array","items":{"type":"string"},"description":"files_with_matches mode"},)"
         R"("counts":{"type":"array","description":"count mode","items":{"type":"object","properties":{)"
         R"("path":{"type":"string"},"count":{"type":"integer","minimum":1}},)"
         R"("required":["path","count"]}},)"
         R"("total":{"type":"integer","description":"matching lines found; files_with_matches: files"},)"
         R"("total_files":{"type":"integer","description":"files with matches"},)"
         R"("total_is_lower_bound":{"type":"boolean","description":"the search stopped early, see partial_reason"},)"
         R"("offset":{"type":"integer","description":"position of this page in the result list"},)"
         R"("shown":{"type":"integer"},)"
         R"("truncated":{"type":"boolean","description":"more results follow (next_cursor), context was left out, or the search stopped early: see partial"},)"
         R"("next_cursor":{"type":["string","null"],"description":"pass as cursor, with the same arguments, for the next page"},)"
         R"("partial":{"type":"boolean","description":"the search stopped early, see partial_reason: some results were never found; truncated is then true"},)"
         R"("partial_reason":{"type":["string","null"],"enum":["deadline","cancelled","visit_cap","max_collected_matches","regex_limit",null]},)"
         R"("context_omitted":{"type":"integer","description":"matches shown without their context lines"},)"
         R"("files_searched":{"type":"integer"},)"
         R"("skipped":{"type":"object","properties":{)"
         R"("binary":{"$ref":"#/$defs/skip"},"too_large":{"$ref":"#/$defs/skip"},)"
         R"("timeout":{"$ref":"#/$defs/skip"},"unreadable":{"$ref":"#/$defs/skip"},)"
         R"("regex_limit":{"$ref":"#/$defs/skip"}},)"
         R"("required":["binary","too_large","timeout","unreadable","regex_limit"]}},)"
         R"("required":["mode","total","total_files","total_is_lower_bound","offset","shown",)"
         R"("truncated","next_cursor","partial","partial_reason","context_omitted",)"
         R"("files_searched","skipped"],)"
         R"("$defs":{"skip":{"type":"object","properties":{)"
         R"("count":{"type":"integer","minimum":0},)"
         R"("examples":{"type":"array","items":{"type":"string"}}},)"
         R"("required":["count","examples"]}}})";
}

namespace {

// The error for a pattern the engine refused (its `detail`), with the hint a small model needs:
// a line break (matches stay within a line here; the engine's text names CLI flags), a glob sent
// as a pattern (`*.py`, as the reference server's search takes), else how to fix a regex.
ToolError pattern_error(std::string_view pattern, bool literal, const std::string& detail) {
  if (pattern.find('\n') != std::string_view::npos ||
      detail.find("\\n\" is not allowed in a regex") != std::string::npos) {
    return ToolError{ToolErrorCode::kInvalidPattern,
                     "the pattern holds a line break (\\n), and a match never spans lines here",
                     "search for one line of it (the most distinctive), then read_file around the "
                     "matches"};
  }
  const bool glob_like = !literal && !pattern.empty() && (pattern[0] == '*' || pattern[0] == '?');
  if (glob_like) {
    return ToolError{ToolErrorCode::kInvalidPattern, detail,
                     fmt::format("search_files takes a regex; to find files by name call "
                                 "find_files with pattern={}, or search their contents with "
                                 "glob={} and a regex",
                                 quoted(pattern.starts_with("**") ? std::string(pattern)
                                                                  : "**/" + std::string(pattern)),
                                 quoted(pattern))};
  }
  if (detail.find("is too large") != std::string::npos ||
      detail.find("are too large") != std::string::npos) {
    return ToolError{ToolErrorCode::kInvalidPattern, detail,
                     literal ? "search for a shorter distinctive part of the text (a name or a few "
                               "words), then read_file around the matches"
                             : "simplify the regex (fewer alternatives or counted repetitions), "
                               "or search for a distinctive literal part of it with literal=true"};
  }
  return ToolError{ToolErrorCode::kInvalidPattern, detail,
                   literal ? "check the pattern"
                           : "fix the regex, or set literal=true to search for the text as is "
                             "(or escape special characters: \\( \\[ \\. \\*)"};
}

// A pattern longer than kMaxPatternBytes, refused before anything is compiled or walked.
ToolError oversized_pattern(std::string_view pattern) {
  return ToolError{
      ToolErrorCode::kInvalidPattern,
      fmt::format("the pattern is {} bytes; search_files takes patterns of at most {} bytes",
                  grouped(pattern.size()), grouped(kMaxPatternBytes)),
      "search for a short distinctive part of it (a name or one phrase, literal=true for plain "
      "text), then read_file around the matches"};
}

}  // namespace

Expected<ToolOutput> run_search_files(const ToolArgs& args, const CallContext& context) {
  SearchQuery query;
  const std::string pattern = args.string("pattern").value_or("");
  if (pattern.size() > kMaxPatternBytes) return oversized_pattern(pattern);
  query.patterns = {pattern};
  query.pattern_options.fixed_strings = args.boolean("literal").value_or(false);
  query.pattern_options.case_insensitive = args.boolean("case_insensitive").value_or(false);
  query.mode = parse_mode(args.string("output_mode").value_or("content"));
  query.context = static_cast<std::size_t>(args.integer("context").value_or(0));
  if (query.mode != SearchMode::kContent) query.context = 0;
  const std::string glob_text = args.string("glob").value_or("");
  query.globs = split_globs(glob_text);

  const std::string user_path = args.string("path").value_or("");
  CTX_TRY_ASSIGN(OpenedPath start, open_visible(context, user_path));
  if (start.kind == EntryKind::kSpecial) {
    return ToolError{ToolErrorCode::kSpecialFile,
                     fmt::format("'{}' is not a regular file or directory", user_path),
                     "search a directory or a regular file"};
  }
  query.path = start.canonical;
  start.fd = UniqueFd();

  auto compiled = engine::PatternSet::compile(query.patterns, query.pattern_options);
  if (!compiled.ok())
    return pattern_error(pattern, query.pattern_options.fixed_strings, compiled.error().detail);

  // The list-defining arguments: the cursor's fingerprint and the session cache's key.
  PageRequest request;
  request.key.add("pattern", pattern)
      .add("path", query.path)
      .add("glob", glob_text)
      .add("literal", query.pattern_options.fixed_strings)
      .add("case_insensitive", query.pattern_options.case_insensitive)
      .add("context", static_cast<std::int64_t>(query.context))
      .add("output_mode", args.string("output_mode").value_or("content"));
  const std::string cache_key = fmt::format("{:016x}", request.key.fingerprint()) + '\0' + pattern +
                                '\0' + query.path + '\0' + glob_text + '\0' +
                                fmt::format("{}{}{}{}", query.pattern_options.fixed_strings,
                                            query.pattern_options.case_insensitive, query.context,
                                            static_cast<int>(query.mode));
  request.pattern = pattern;
  request.context = query.context;
  request.max_tokens = budget_tokens(args, context);
  request.max_results = max_results(
      args, context,
      query.mode == SearchMode::kContent ? kDefaultContentResults : kDefaultFileResults);
  request.max_results_note = max_results_note(args, context);

  const std::optional<std::string> cursor = args.string("cursor");
  if (cursor) {
    CTX_TRY_ASSIGN(request.offset, decode_cursor(*cursor, request.key, "search_files"));
  }

  std::shared_ptr<const SearchResults> results;
  bool cached = false;
  if (cursor && context.session != nullptr) {
    results = context.session->impl().searches.find(cache_key);
    cached = results != nullptr;
  }
  if (!results) {
    CTX_TRY_ASSIGN(SearchResults fresh, run_search(query, *compiled, context));
    results = std::make_shared<const SearchResults>(std::move(fresh));
  }
  if (request.offset > results->item_count()) {
    return ToolError{ToolErrorCode::kInvalidArgument,
                     fmt::format("cursor '{}' points past the end of the {} results (the files "
                                 "changed since it was made)",
                                 *cursor, results->item_count()),
                     "call search_files again without cursor to start over"};
  }
  bool paged = false;
  ToolOutput out = render_search_page(*results, request, context, &paged);
  // Kept for the next pages (a search that fit in one page has none).
  if (!cached && context.session != nullptr && paged) {
    context.session->impl().searches.put(cache_key, results, results->memory_bytes);
  }
  return out;
}

}  // namespace ctx::agent
