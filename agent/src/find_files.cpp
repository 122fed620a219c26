// find_files: files whose path matches a gitignore-style glob (a pattern without '/' matches the
// file name at any depth, '**' spans directories), ignore-aware, sorted, paged with a cursor, and
// filtered by the policy.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>

#include "ctx/base/utf8.hpp"
#include "ctx/walker/glob.hpp"
#include "cursor.hpp"
#include "json_writer.hpp"
#include "session.hpp"
#include "tool_common.hpp"
#include "tool_impls.hpp"
#include "tool_walk.hpp"

namespace ctx::agent {

namespace {

constexpr std::size_t kDefaultMaxResults = 100;

const std::vector<ParamSpec>& params_table() {
  static const std::vector<ParamSpec> params = {
      {"pattern",
       ParamType::kString,
       "glob over root-relative paths: '*.py' matches the file name at any depth, "
       "'src/**/test_*.c' a path; '**' spans directories",
       true,
       {"query", "glob", "name", "file_pattern", "filename"}},
      {"path",
       ParamType::kString,
       "directory to search in, relative to the project root (default: the root)",
       false,
       {"dir", "directory", "dir_path", "folder", "root"}},
      {"include_ignored",
       ParamType::kBoolean,
       "also find files that .gitignore/.ignore rules exclude (default false)",
       false,
       {"show_ignored", "no_ignore"}},
      max_results_param(true),
      cursor_param(),
      max_tokens_param(),
  };
  return params;
}

using FindKeep = std::function<bool(std::string_view path, walker::EntryType type)>;

// The path relative to `dir` ("" is the root), or nullopt when it is not beneath it.
std::optional<std::string_view> relative_to(std::string_view path, std::string_view dir) {
  if (dir.empty()) return path;
  if (path.size() > dir.size() && path.substr(0, dir.size()) == dir && path[dir.size()] == '/') {
    return path.substr(dir.size() + 1);
  }
  return std::nullopt;
}

// The entries of `kept` that `keep` accepts, and what a walk with that `keep` would have counted
// as ignored and hidden (directories, and the files `keep` accepts), viewing kept's paths.
VisibleWalk filter_kept(const Watched<VisibleWalk>& kept, const FindKeep& keep) {
  VisibleWalk out;
  for (const WalkedEntry& e : kept.value.entries) {
    if (keep(e.path, e.type)) out.entries.push_back(e);
  }
  auto counted = [&](const WalkedEntry& e) {
    return e.type == walker::EntryType::kDirectory || keep(e.path, e.type);
  };
  out.ignored = static_cast<std::size_t>(
      std::count_if(kept.value.ignored_entries.begin(), kept.value.ignored_entries.end(), counted));
  out.policy_hidden = static_cast<std::size_t>(
      std::count_if(kept.value.hidden_entries.begin(), kept.value.hidden_entries.end(), counted));
  out.unreadable = kept.value.unreadable;
  return out;
}

constexpr int kFindsBeforeRetry = 8;

// The walk of find_files: from a kept walk of the tree while nothing it was made from changed;
// else, the second time a session searches this tree, a walk of all of it kept for the next
// finds; else a walk that takes only the files `keep` accepts (the cheapest walk: see
// walk_visible's `keep`). A whole walk cut short gives way to that selective walk.
Expected<VisibleWalk> find_walk(const CallContext& context, const std::string& dir,
                                const std::string& dir_id, bool include_ignored,
                                const FindKeep& keep,
                                std::shared_ptr<const Watched<VisibleWalk>>& kept) {
  if (context.session == nullptr) {
    return walk_visible(context, dir, std::nullopt, include_ignored, keep);
  }
  SessionState::Impl& session = context.session->impl();
  const std::string key = fmt::format("{}|{}|{}", dir_id, include_ignored, dir);
  kept = session.walks.find(key);
  if (kept != nullptr && session.watch.unchanged(kept->stamp)) {
    session.walk_hits.fetch_add(1, std::memory_order_relaxed);
    return filter_kept(*kept, keep);
  }
  kept = nullptr;
  const std::shared_ptr<const int> seen = session.walked_once.find(key);
  if (const int finds = seen != nullptr ? *seen : 0; finds < 1) {
    session.walked_once.put(key, std::make_shared<const int>(finds + 1), 1);
    return walk_visible(context, dir, std::nullopt, include_ignored, keep);
  }
  WatchStamp stamp = session.watch.begin(Shows::kEntries);
  auto every_file = [](std::string_view, walker::EntryType type) {
    return type == walker::EntryType::kFile;
  };
  CTX_TRY_ASSIGN(VisibleWalk whole, walk_visible(context, dir, std::nullopt, include_ignored,
                                                 every_file, &stamp, /*record_skipped=*/true));
  if (!whole.stopped.empty()) {
    // Cut short (the deadline, the visit cap): not every file the selective walk may reach.
    session.walked_once.put(key, std::make_shared<const int>(1 - kFindsBeforeRetry), 1);
    return walk_visible(context, dir, std::nullopt, include_ignored, keep);
  }
  const std::size_t bytes =
      whole.arena.size() +
      sizeof(WalkedEntry) *
          (whole.entries.size() + whole.ignored_entries.size() + whole.hidden_entries.size());
  const bool keepable =
      stamp.usable() && whole.unreadable == 0 && bytes <= SessionState::Impl::kWalkBytes;
  auto walked = std::make_shared<const Watched<VisibleWalk>>(
      Watched<VisibleWalk>{std::move(whole), std::move(stamp)});
  if (keepable) {
    session.walked_once.erase(key);
    session.walks.put(key, walked, bytes);
  } else {
    // This find is answered from the whole walk all the same. The tree is walked whole again only
    // after kFindsBeforeRetry more finds: too large to watch or keep, or holding a `.git` file,
    // it stays so.
    session.walked_once.put(key, std::make_shared<const int>(1 - kFindsBeforeRetry), 1);
  }
  kept = std::move(walked);
  return filter_kept(*kept, keep);
}

}  // namespace

std::span<const ParamSpec> find_files_params() { return params_table(); }

std::string find_files_output_schema() {
  return R"({"type":"object","properties":{)"
         R"("pattern":{"type":"string"},)"
         R"("path":{"type":"string","description":"root-relative directory searched"},)"
         R"("include_ignored":{"type":"boolean"},)"
         R"("total":{"type":"integer","description":"matching files, over all pages"},)"
         R"("total_exact":{"type":"boolean","description":"false when the walk stopped early"},)"
         R"("offset":{"type":"integer","description":"index of the first file shown"},)"
         R"("shown":{"type":"integer"},)"
         R"("ignored":{"type":"integer","description":"matching files and directories ignore rules left out"},)"
         R"("truncated":{"type":"boolean","description":"more files match than are shown"},)"
         R"("truncated_reason":{"type":["string","null"]},)"
         R"("next_cursor":{"type":["string","null"],"description":"cursor for the next page"},)"
         R"("files":{"type":"array","items":{"type":"string"}}},)"
         R"("required":["pattern","total","shown","truncated","next_cursor","files"]})";
}

Expected<ToolOutput> run_find_files(const ToolArgs& args, const CallContext& context) {
  const std::string pattern_arg = args.string("pattern").value_or("");
  std::string_view pattern = pattern_arg;
  while (pattern.substr(0, 2) == "./") pattern.remove_prefix(2);
  if (!pattern.empty() && pattern.front() == '/') pattern.remove_prefix(1);  // anchored: same
  if (pattern.empty()) {
    return ToolError{ToolErrorCode::kInvalidPattern,
                     fmt::format("pattern '{}' matches no file path", pattern_arg),
                     "use a glob such as '**/*.py' or 'README*'"};
  }
  // `{a,b}` alternatives (as search_files' glob and rg -g): a file matches when one of the globs
  // they stand for does.
  auto expanded = walker::expand_braces(pattern);
  if (!expanded.ok()) {
    return ToolError{ToolErrorCode::kInvalidPattern, expanded.error().detail,
                     "use a glob such as '**/*.{ts,tsx}' or 'src/**/*.py'"};
  }
  struct Alternative {
    bool name_only;  // matched on the last path component
    walker::Glob glob;
  };
  std::vector<Alternative> alternatives;
  for (std::string_view one : *expanded) {
    const bool basename_only = one.find('/') == std::string_view::npos;
    // '**/NAME' (NAME without '/') matches exactly the paths whose last component matches NAME,
    // as in gitignore: matched on the name alone, '**/*.c' takes the '*suffix' fast path and
    // '**/Makefile.am' the literal one instead of the NFA over whole paths.
    const bool any_depth_name =
        one.substr(0, 3) == "**/" && one.size() > 3 && one.find('/', 3) == std::string_view::npos;
    if (any_depth_name) one.remove_prefix(3);
    walker::Glob glob = walker::Glob::compile(one, walker::GlobOptions{});
    if (glob.shape() == walker::Glob::Shape::kNever) {
      return ToolError{ToolErrorCode::kInvalidPattern,
                       fmt::format("pattern '{}' is malformed and can match nothing", pattern_arg),
                       "check [...] classes and backslashes, e.g. '**/*.[ch]'"};
    }
    alternatives.push_back(Alternative{basename_only || any_depth_name, std::move(glob)});
  }

  std::string dir;     // root-relative directory searched
  std::string dir_id;  // its device and inode ("" for the root)
  const std::string user_dir = args.string("path").value_or(".");
  if (args.has("path")) {
    CTX_TRY_ASSIGN(OpenedPath opened, open_visible(context, user_dir));
    if (opened.kind != EntryKind::kDirectory) {
      return ToolError{ToolErrorCode::kNotADirectory,
                       fmt::format("'{}' is not a directory", user_dir),
                       "give a directory as path, or leave path out to search the whole root"};
    }
    dir = opened.canonical;
    dir_id = fmt::format("{}:{}", opened.st.st_dev, opened.st.st_ino);
  }
  const std::string shown_dir = dir.empty() ? "." : escape_path(dir);
  const bool include_ignored = args.boolean("include_ignored").value_or(false);
  const std::size_t page = max_results(args, context, kDefaultMaxResults);
  const std::size_t max_tokens = budget_tokens(args, context);

  CursorKey key("find_files");
  key.add("pattern", pattern).add("path", dir).add("include_ignored", include_ignored);
  std::uint64_t offset = 0;
  if (auto cursor = args.string("cursor")) {
    CTX_TRY_ASSIGN(offset, decode_cursor(*cursor, key, "find_files"));
  }

  auto matches = [&](std::string_view path) {
    for (const Alternative& a : alternatives) {
      if (a.name_only) {
        std::size_t slash = path.rfind('/');
        if (a.glob.matches(slash == std::string_view::npos ? path : path.substr(slash + 1))) {
          return true;
        }
        continue;
      }
      if (a.glob.matches(path)) return true;
      auto rel = relative_to(path, dir);  // also relative to the searched directory
      if (rel && !dir.empty() && a.glob.matches(*rel)) return true;
    }
    return false;
  };
  auto keep = [&](std::string_view path, walker::EntryType type) {
    return type == walker::EntryType::kFile && matches(path);
  };
  std::shared_ptr<const Watched<VisibleWalk>>
      kept;  // what `walk` views, when it comes from a kept walk
  CTX_TRY_ASSIGN(VisibleWalk walk, find_walk(context, dir, dir_id, include_ignored, keep, kept));
  const std::size_t total = walk.entries.size();
  const bool total_exact = walk.stopped.empty();
  if (offset > total) {
    return ToolError{ToolErrorCode::kInvalidArgument,
                     fmt::format("the cursor points past the end of the results ({} files); the "
                                 "tree changed since",
                                 total),
                     "call find_files again without cursor"};
  }

  auto next_call = [&](std::string_view cursor) {
    std::string call = fmt::format("call find_files with pattern={}", quoted(pattern_arg));
    if (!dir.empty()) call += fmt::format(" path={}", quoted(shown_dir));
    if (include_ignored) call += " include_ignored=true";
    call += fmt::format(" cursor={}", quoted(cursor));
    return call;
  };
  // The longest footer this result can end with (its numbers are at most what the walk found;
  // 20-digit ones reserved room a small budget needed for its first files).
  const std::string most = grouped(total + 1);
  std::string more_notes = max_results_note(args, context);
  const std::string longest_footer = fmt::format(
      "(files {0}–{0} of at least {0}; cut at max_tokens=1000000{1}{2}{4}; {3} for more)", most,
      walk.stopped.empty() ? "" : "; the walk stopped early (visit_cap): narrow path or pattern",
      walk.ignored == 0 ? std::string()
                        : fmt::format("; {} ignored paths not searched (include_ignored=true "
                                      "searches them)",
                                      grouped(walk.ignored)),
      next_call(encode_cursor(key, total + 1)), more_notes);
  const std::size_t reserve = footer_reserve(context, longest_footer);

  std::string empty =
      fmt::format("no files match {}{}", quoted(pattern_arg),
                  dir.empty() ? std::string() : fmt::format(" under {}", quoted(dir)));
  if (pattern.find_first_of("/*?[{") == std::string_view::npos) {
    empty += fmt::format("; for names containing it use pattern={}",
                         quoted(fmt::format("*{}*", pattern)));
  }
  std::string notes;
  if (walk.ignored > 0) {
    notes = fmt::format("; {} ignored path{} not searched (include_ignored=true searches them)",
                        grouped(walk.ignored), walk.ignored == 1 ? "" : "s");
  }
  const PageWords words{"files",          std::move(empty),      "path or pattern",
                        std::move(notes), std::move(more_notes), next_call};
  auto line = [&](std::size_t i, std::string& out) {
    const std::string_view path = walk.entries[offset + i].path;
    if (needs_path_escape(path) || needs_quoting(path)) {
      out.append(text_path(path));
    } else {
      out.append(path);
    }
    out.push_back('\n');
  };
  const std::size_t end = std::min<std::size_t>(total, offset + page);
  RenderedPage rendered = render_page(context, max_tokens, reserve, {}, offset, end - offset, total,
                                      walk.stopped, key, line, words);

  ToolOutput out;
  out.text = std::move(rendered.text);
  out.tokens = rendered.tokens;
  out.truncated = rendered.truncated;
  out.policy_hidden = walk.policy_hidden;

  JsonWriter w;
  w.begin_object().field("pattern", pattern_arg).field("path", shown_dir);
  w.field("include_ignored", include_ignored);
  w.field("total", static_cast<std::uint64_t>(total)).field("total_exact", total_exact);
  w.field("offset", offset).field("shown", static_cast<std::uint64_t>(rendered.shown));
  w.field("ignored", static_cast<std::uint64_t>(walk.ignored));
  write_page_fields(w, rendered);
  w.key("files").begin_array();
  for (std::size_t i = 0; i < rendered.shown; ++i) write_path(w, walk.entries[offset + i].path);
  w.end_array().end_object();
  out.structured = w.take();
  return out;
}

}  // namespace ctx::agent
