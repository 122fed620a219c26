// list_directory: a directory's entries (and with depth > 1 its subdirectories'), sorted so each
// directory's entries follow it, with kind and size, paged with a cursor, ignore-aware, and
// filtered by the policy (hidden entries are neither listed nor counted).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <cstring>

#include "append_cursor.hpp"
#include "ctx/base/json.hpp"
#include "ctx/base/utf8.hpp"
#include "cursor.hpp"
#include "json_writer.hpp"
#include "session.hpp"
#include "tool_common.hpp"
#include "tool_impls.hpp"
#include "tool_walk.hpp"

namespace ctx::agent {

namespace {

constexpr std::int64_t kMaxDepth = 5;
constexpr std::size_t kDefaultMaxResults = 200;

const std::vector<ParamSpec>& params_table() {
  static const std::vector<ParamSpec> params = {
      {"path",
       ParamType::kString,
       "directory to list, relative to the project root (default: the root)",
       false,
       {"dir", "directory", "dir_path", "folder", "file_path"}},
      {"depth",
       ParamType::kInteger,
       "levels to list: 1 (default) lists the directory's own entries, 2 adds its "
       "subdirectories' entries, up to 5",
       false,
       {"max_depth", "levels"},
       {},
       1,
       kMaxDepth},
      {"include_ignored",
       ParamType::kBoolean,
       "also list entries that .gitignore/.ignore rules exclude (default false)",
       false,
       {"show_ignored", "no_ignore", "all"}},
      max_results_param(true),
      cursor_param(),
      max_tokens_param(),
  };
  return params;
}

std::string_view kind_name(walker::EntryType type) {
  switch (type) {
    case walker::EntryType::kFile:
      return "file";
    case walker::EntryType::kDirectory:
      return "dir";
    case walker::EntryType::kSymlink:
      return "symlink";
    case walker::EntryType::kOther:
      return "special";
  }
  return "special";
}

// The stat of the listed `path` without following a final symlink: one fstatat on the listed
// directory's fd for its own entries (a name without '/': nothing to resolve, so nothing can
// lead out of the root), else stat_beneath.
std::optional<struct stat> stat_entry(const CallContext& context, const OpenedPath& dir,
                                      std::string_view path) {
  std::string_view name = path;
  if (!dir.canonical.empty()) {
    if (name.size() <= dir.canonical.size() + 1 ||
        name.substr(0, dir.canonical.size()) != std::string_view(dir.canonical) ||
        name[dir.canonical.size()] != '/') {
      return stat_beneath(context, path);
    }
    name.remove_prefix(dir.canonical.size() + 1);
  }
  if (name.find('/') != std::string_view::npos) return stat_beneath(context, path);
  struct stat st {};
  // `name` is a suffix of `path`, so it ends where path's NUL does (a WalkedEntry's path has one).
  if (::fstatat(dir.fd.get(), name.data(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return std::nullopt;
  }
  return st;
}

}  // namespace

std::span<const ParamSpec> list_directory_params() { return params_table(); }

std::string list_directory_output_schema() {
  return R"({"type":"object","properties":{)"
         R"("path":{"type":"string","description":"root-relative directory listed"},)"
         R"("depth":{"type":"integer"},)"
         R"("include_ignored":{"type":"boolean"},)"
         R"("total":{"type":"integer","description":"entries in the listing, over all pages"},)"
         R"("total_exact":{"type":"boolean","description":"false when the walk stopped early"},)"
         R"("offset":{"type":"integer","description":"index of the first entry shown"},)"
         R"("shown":{"type":"integer"},)"
         R"("ignored":{"type":"integer","description":"entries ignore rules left out"},)"
         R"("unreadable":{"type":"integer","description":"directories that could not be read"},)"
         R"("truncated":{"type":"boolean","description":"more entries exist than are shown"},)"
         R"("truncated_reason":{"type":["string","null"]},)"
         R"("next_cursor":{"type":["string","null"],"description":"cursor for the next page"},)"
         R"("entries":{"type":"array","items":{"type":"object","properties":{)"
         R"("path":{"type":"string"},"kind":{"type":"string","enum":["file","dir","symlink","special"]},)"
         R"("size":{"type":"integer"}},"required":["path","kind"]}}},)"
         R"("required":["path","total","shown","truncated","next_cursor","entries"]})";
}

Expected<ToolOutput> run_list_directory(const ToolArgs& args, const CallContext& context) {
  const std::string user_path = args.string("path").value_or(".");
  CTX_TRY_ASSIGN(OpenedPath dir, open_visible(context, user_path));
  const std::string shown_dir = dir.canonical.empty() ? "." : escape_path(dir.canonical);
  if (dir.kind != EntryKind::kDirectory) {
    return ToolError{
        ToolErrorCode::kNotADirectory, fmt::format("'{}' is not a directory", user_path),
        dir.kind == EntryKind::kFile ? fmt::format("call read_file with path={}", quoted(shown_dir))
                                     : std::string("call list_directory on its parent directory")};
  }
  const auto depth = static_cast<std::size_t>(args.integer("depth").value_or(1));
  const bool include_ignored = args.boolean("include_ignored").value_or(false);
  const std::size_t page = max_results(args, context, kDefaultMaxResults);
  const std::size_t max_tokens = budget_tokens(args, context);

  CursorKey key("list_directory");
  key.add("path", dir.canonical)
      .add("depth", static_cast<std::int64_t>(depth))
      .add("include_ignored", include_ignored);
  std::uint64_t offset = 0;
  if (auto cursor = args.string("cursor")) {
    CTX_TRY_ASSIGN(offset, decode_cursor(*cursor, key, "list_directory"));
  }

  // A listing kept for this directory and these arguments is given again while nothing it was
  // made from changed (its stamp), without walking or stat'ing anything.
  LruCache<Watched<ToolOutput>>* listings =
      context.session != nullptr ? &context.session->impl().listings : nullptr;
  std::string kept_key;
  std::optional<WatchStamp> stamp;
  if (listings != nullptr) {
    // The max_results asked for too: the text names it when it was above the limit.
    kept_key = fmt::format("{}:{}|{}|{}|{}|{}|{}|{}|{}|{}", dir.st.st_dev, dir.st.st_ino, offset,
                           depth, include_ignored, page, args.clamped("max_results").value_or(""),
                           max_tokens, context.count_tokens, dir.canonical);
    DirWatch& watch = context.session->impl().watch;
    if (auto kept = listings->find(kept_key); kept != nullptr && watch.unchanged(kept->stamp)) {
      context.session->impl().listing_hits.fetch_add(1, std::memory_order_relaxed);
      return kept->value;
    }
    stamp = watch.begin();
  }

  auto keep = [](std::string_view, walker::EntryType) { return true; };
  CTX_TRY_ASSIGN(VisibleWalk walk, walk_visible(context, dir.canonical, depth, include_ignored,
                                                keep, stamp ? &*stamp : nullptr));
  const std::size_t total = walk.entries.size();
  const bool total_exact = walk.stopped.empty();
  if (offset > total) {
    return ToolError{ToolErrorCode::kInvalidArgument,
                     fmt::format("the cursor points past the end of the listing ({} entries); "
                                 "the directory changed since",
                                 total),
                     "call list_directory again without cursor"};
  }

  auto next_call = [&](std::string_view cursor) {
    std::string call = fmt::format("call list_directory with path={}", quoted(shown_dir));
    if (depth != 1) call += fmt::format(" depth={}", depth);
    if (include_ignored) call += " include_ignored=true";
    call += fmt::format(" cursor={}", quoted(cursor));
    return call;
  };
  // The longest footer this listing can end with (its numbers are at most what the walk found;
  // 20-digit ones reserved room a small budget needed for its first entries).
  const std::string most = grouped(total + 1);
  std::string more_notes = max_results_note(args, context);
  const std::string longest_footer = fmt::format(
      "(entries {0}–{0} of at least {0}; cut at max_tokens=1000000{1}{2}{3}{5}; {4} for more)",
      most,
      walk.stopped.empty() ? "" : "; the walk stopped early (visit_cap): narrow path or depth",
      walk.ignored == 0 ? std::string()
                        : fmt::format("; {} ignored entries not listed (include_ignored=true "
                                      "lists them)",
                                      grouped(walk.ignored)),
      walk.unreadable == 0
          ? std::string()
          : fmt::format("; {} directories could not be read", grouped(walk.unreadable)),
      next_call(encode_cursor(key, total + 1)), more_notes);
  const std::size_t reserve = footer_reserve(context, longest_footer);

  const std::string header =
      fmt::format("{}/ ({} entr{}{}{})\n", shown_dir == "." ? "." : shown_dir, grouped(total),
                  total == 1 ? "y" : "ies", total_exact ? "" : " so far",
                  depth > 1 ? fmt::format(", depth {}", depth) : std::string());

  // What the page can show, worked out once per entry: its size, and its path as shown (valid
  // UTF-8: the path itself, or a lossy copy) and whether JSON escapes any of it. Each line is
  // written when the budget asks for it.
  struct Shown {
    std::optional<std::uint64_t> size;
    std::string_view path;
    bool plain;  // nothing in `path` that append_json_string escapes
  };
  std::vector<Shown> shown;
  std::vector<std::string> lossy_paths;  // the copies invalid paths are shown as
  const std::size_t end = std::min<std::size_t>(total, offset + page);
  // The page's file sizes, stated in the order the walk found the files when the page holds at
  // least half the listing: the kernel's lookups then follow the directory's own order, which
  // cost 7% less than path order (git/ of the combo tree, 528 files: 0.52 vs 0.56 ms).
  std::vector<std::optional<std::uint64_t>> sizes(end - offset);
  auto stat_size = [&](std::size_t i) {
    const WalkedEntry& e = walk.entries[i];
    if (e.type != walker::EntryType::kFile) return;
    if (auto st = stat_entry(context, dir, e.path); st && S_ISREG(st->st_mode)) {
      sizes[i - offset] = static_cast<std::uint64_t>(st->st_size);
      // A file with other links, or on another device (a bind mount), can be written through
      // a directory whose watch is not the stamp's: its size shown is not kept.
      if (stamp && (st->st_nlink > 1 || st->st_dev != dir.st.st_dev)) stamp->spoil();
    }
  };
  if (2 * (end - offset) >= total) {
    constexpr std::size_t kNone = SIZE_MAX;
    std::vector<std::size_t> by_visit(total, kNone);  // walk order -> index in walk.entries
    for (std::size_t i = offset; i < end; ++i) by_visit[walk.entries[i].visit] = i;
    for (std::size_t i : by_visit) {
      if (i != kNone) stat_size(i);
    }
  } else {
    for (std::size_t i = offset; i < end; ++i) stat_size(i);
  }
  shown.reserve(end - offset);
  for (std::size_t i = offset; i < end; ++i) {
    const WalkedEntry& e = walk.entries[i];
    const std::optional<std::uint64_t> size = sizes[i - offset];
    std::string_view path = e.path;
    if (needs_path_escape(path)) {        // shown as every tool shows it
      lossy_paths.reserve(end - offset);  // once: the views below must not move
      path = lossy_paths.emplace_back(escape_path(path));
    }
    shown.push_back(Shown{size, path, json_string_is_plain(path, false)});
  }
  auto line = [&](std::size_t i, std::string& text) {
    const WalkedEntry& e = walk.entries[offset + i];
    const Shown& s = shown[i];
    // The suffix after the path (ASCII, so writing the lossy path first is the same).
    char suffix[64];
    char* at = suffix;
    switch (e.type) {
      case walker::EntryType::kDirectory:
        *at++ = '/';
        break;
      case walker::EntryType::kFile:
        if (s.size) {
          std::memcpy(at, "  (", 3);
          at = put_grouped(at + 3, *s.size);
          std::memcpy(at, " bytes)", 7);
          at += 7;
        }
        break;
      case walker::EntryType::kSymlink:
        std::memcpy(at, "  (symlink)", 11);
        at += 11;
        break;
      case walker::EntryType::kOther:
        std::memcpy(at, "  (special)", 11);
        at += 11;
        break;
    }
    *at++ = '\n';
    if (needs_quoting(s.path)) {
      text.append(quoted_path(s.path));
    } else {
      text.append(s.path);
    }
    text.append(suffix, static_cast<std::size_t>(at - suffix));
  };

  std::string notes;
  if (walk.ignored > 0) {
    notes += fmt::format("; {} ignored entr{} not listed (include_ignored=true lists them)",
                         grouped(walk.ignored), walk.ignored == 1 ? "y" : "ies");
  }
  if (walk.unreadable > 0) {
    notes += fmt::format("; {} director{} could not be read", grouped(walk.unreadable),
                         walk.unreadable == 1 ? "y" : "ies");
  }
  const PageWords words{"entries",        "no entries",          "path or depth",
                        std::move(notes), std::move(more_notes), next_call};
  RenderedPage rendered = render_page(context, max_tokens, reserve, header, offset, shown.size(),
                                      total, walk.stopped, key, line, words);

  ToolOutput out;
  out.text = std::move(rendered.text);
  out.tokens = rendered.tokens;
  out.truncated = rendered.truncated;
  out.policy_hidden = walk.policy_hidden;

  JsonWriter w;
  w.begin_object().field("path", shown_dir).field("depth", static_cast<std::uint64_t>(depth));
  w.field("include_ignored", include_ignored);
  w.field("total", static_cast<std::uint64_t>(total)).field("total_exact", total_exact);
  w.field("offset", offset).field("shown", static_cast<std::uint64_t>(rendered.shown));
  w.field("ignored", static_cast<std::uint64_t>(walk.ignored));
  w.field("unreadable", static_cast<std::uint64_t>(walk.unreadable));
  write_page_fields(w, rendered);
  // The entries' objects, written as JsonWriter would write them, without its per-call work.
  std::string entries;
  {
    AppendCursor cursor(entries);
    cursor.reserve(rendered.shown * 64);
    for (std::size_t i = 0; i < rendered.shown; ++i) {
      const Shown& s = shown[i];
      const std::string_view kind = kind_name(walk.entries[offset + i].type);
      char* p = cursor.room((s.plain ? s.path.size() : json_body_room(s.path.size())) + 64);
      if (i != 0) *p++ = ',';
      p = put_literal(p, R"({"path":")");
      p = s.plain ? put_bytes(p, s.path.data(), s.path.size()) : put_json_body(p, s.path);
      p = put_literal(p, R"(","kind":")");
      p = put_bytes(p, kind.data(), kind.size());
      *p++ = '"';
      if (s.size) {
        const fmt::format_int digits(*s.size);
        p = put_literal(p, R"(,"size":)");
        p = put_bytes(p, digits.data(), digits.size());
      }
      *p++ = '}';
      cursor.advance_to(p);
    }
  }
  w.reserve(w.str().size() + entries.size() + 16);
  w.key("entries").begin_array().raw_elements(entries).end_array().end_object();
  out.structured = w.take();
  if (stamp && stamp->usable() && walk.stopped.empty() && walk.unreadable == 0 &&
      !context.expired()) {
    const std::size_t bytes = out.structured.size() + out.text.size() + out.text_json.size();
    listings->put(kept_key,
                  std::make_shared<const Watched<ToolOutput>>(Watched<ToolOutput>{out, *stamp}),
                  bytes);
  }
  return out;
}

}  // namespace ctx::agent
