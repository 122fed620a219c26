// file_info: what one path is (kind, size, modification time) and, for files up to
// kHashMaxBytes, its line count, encoding and git blob id (as `git hash-object` prints it).
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <mutex>

#include "content_cache.hpp"
#include "ctx/base/file_buffer.hpp"
#include "ctx/base/json.hpp"
#include "ctx/base/sha1.hpp"
#include "ctx/engine/searcher.hpp"
#include "file_reading.hpp"
#include "json_writer.hpp"
#include "session.hpp"
#include "tool_common.hpp"
#include "tool_impls.hpp"

namespace ctx::agent {

namespace {

// Files above this size get kind, size and time only (no line count, hash or full UTF-8 check).
constexpr std::uint64_t kHashMaxBytes = 64ULL << 20;
constexpr std::size_t kHashHexChars = 12;

const std::vector<ParamSpec>& params_table() {
  static const std::vector<ParamSpec> params = {
      {"path",
       ParamType::kString,
       "file or directory, relative to the project root",
       true,
       {"file_path", "filepath", "file", "filename", "dir", "directory"}},
      max_tokens_param(),
  };
  return params;
}

// The git blob id of `data` (SHA-1 of "blob <size>\0" + data), first kHashHexChars hex digits.
std::string short_blob_id(std::string_view data) {
  return ctx::git_blob_id(data).substr(0, kHashHexChars);
}

// Lines as read_file numbers them: '\n'-terminated, plus a last line without one.
std::uint64_t count_lines(std::string_view text) {
  if (text.empty()) return 0;
  const std::uint64_t newlines = engine::count_newlines(text);
  return newlines + (text.back() != '\n' ? 1 : 0);
}

std::uint64_t count_utf16_lines(std::string_view units, bool little_endian) {
  std::uint64_t lines = 0;
  bool open_line = false;
  for (std::size_t i = 0; i + 1 < units.size(); i += 2) {
    const bool newline = little_endian ? (units[i] == '\n' && units[i + 1] == '\0')
                                       : (units[i] == '\0' && units[i + 1] == '\n');
    if (newline) {
      ++lines;
      open_line = false;
    } else {
      open_line = true;
    }
  }
  return lines + (open_line || units.size() % 2 == 1 ? 1 : 0);
}

}  // namespace

std::span<const ParamSpec> file_info_params() { return params_table(); }

std::string file_info_output_schema() {
  return R"({"type":"object","properties":{)"
         R"("path":{"type":"string","description":"root-relative path, where symlinks lead"},)"
         R"("kind":{"type":"string","enum":["file","dir","special"]},)"
         R"("size":{"type":["integer","null"],"description":"bytes; null for a directory"},)"
         R"("mtime":{"type":["string","null"],"description":"RFC 3339 UTC; null for a directory"},)"
         R"("lines":{"type":["integer","null"]},)"
         R"("encoding":{"type":["string","null"],"enum":["utf-8","utf-8-bom","utf-16le","utf-16be","binary","non-utf8",null]},)"
         R"("encoding_checked_bytes":{"type":["integer","null"]},)"
         R"("hash":{"type":["string","null"],"description":"first 12 hex digits of the git blob id"},)"
         R"("hash_algorithm":{"type":["string","null"]},)"
         R"("skipped":{"type":["string","null"],"description":"why lines/hash are missing"},)"
         R"("truncated":{"type":"boolean"},"total":{"type":"integer"},"shown":{"type":"integer"},)"
         R"("next_cursor":{"type":"null"}},)"
         R"("required":["path","kind","size","mtime","truncated","total","shown","next_cursor"]})";
}

Expected<ToolOutput> run_file_info(const ToolArgs& args, const CallContext& context) {
  // Before the file's stat is taken: what ContentCache::put judges raciness against.
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const std::int64_t started_ns = timestamp_ns(now);
  const std::string user_path = args.string("path").value_or("");
  // Looked up, not opened for reading: a file whose facts are cached is never read.
  CTX_TRY_ASSIGN(OpenedPath opened, open_visible(context, user_path, Sandbox::OpenFor::kLookup));
  const std::string shown_path = opened.canonical.empty() ? "." : escape_path(opened.canonical);
  const auto size = static_cast<std::uint64_t>(opened.st.st_size);
  const std::string mtime = rfc3339_utc(static_cast<std::int64_t>(opened.st.st_mtim.tv_sec));
  const std::string_view kind = to_string(opened.kind);

  std::optional<std::uint64_t> lines;
  std::optional<std::string> encoding;
  std::optional<std::uint64_t> checked_bytes;
  std::string hash;
  std::string skipped;
  ContentCache* cache =
      context.session != nullptr && opened.kind == EntryKind::kFile && size <= kHashMaxBytes
          ? &context.session->impl().contents
          : nullptr;
  std::optional<ContentFacts> cached = cache != nullptr ? cache->find(opened.st) : std::nullopt;
  if (cached) {
    // The same file, unchanged since a read in this session: its facts without reading it.
    hash = std::move(cached->hash);
    encoding = std::move(cached->encoding);
    lines = cached->lines;
    checked_bytes = cached->checked_bytes;
  } else if (opened.kind == EntryKind::kFile) {
    CTX_TRY(reopen_visible(context, user_path, opened));
    CTX_TRY_ASSIGN(TextEncoding sniffed, sniff_encoding(opened.fd.get(), user_path));
    encoding = std::string(to_string(sniffed));
    if (size > kHashMaxBytes) {
      skipped =
          fmt::format("the file is larger than {} MiB: no line count or hash", kHashMaxBytes >> 20);
      if (sniffed == TextEncoding::kUtf8) {
        // Judge by the first chunk, cut back to a whole UTF-8 sequence.
        std::string head(TextChunkReader::kChunkBytes, '\0');
        CTX_TRY_ASSIGN(std::size_t n,
                       pread_full(opened.fd.get(), head.data(), head.size(), 0, user_path));
        head.resize(n);
        std::size_t cut = head.size();
        for (std::size_t back = 0; back < 3 && cut > 0; ++back) {
          auto c = static_cast<unsigned char>(head[cut - 1]);
          if ((c & 0xC0) == 0x80) {
            --cut;
            continue;
          }
          if (c >= 0xC0) --cut;  // a lead byte whose sequence may continue past the chunk
          break;
        }
        if (!is_valid_utf8(std::string_view(head).substr(0, cut))) encoding = "non-utf8";
        checked_bytes = n;
      }
    } else if (context.expired()) {
      skipped = "the deadline passed before the file was read";
    } else {
      std::string data(static_cast<std::size_t>(size), '\0');
      CTX_TRY_ASSIGN(std::size_t n,
                     pread_full(opened.fd.get(), data.data(), data.size(), 0, user_path));
      data.resize(n);  // a file that shrank meanwhile
      hash = short_blob_id(data);
      std::string_view text = data;
      switch (sniffed) {
        case TextEncoding::kUtf8:
          if (!is_valid_utf8(text)) encoding = "non-utf8";
          lines = count_lines(text);
          break;
        case TextEncoding::kUtf8Bom:
          if (!is_valid_utf8(text.substr(3))) encoding = "non-utf8";
          lines = count_lines(text.substr(3));
          break;
        case TextEncoding::kUtf16Le:
        case TextEncoding::kUtf16Be:
          lines = count_utf16_lines(text.substr(2), sniffed == TextEncoding::kUtf16Le);
          break;
        case TextEncoding::kBinary:
          break;
      }
      checked_bytes = n;
      struct stat after {};
      if (cache != nullptr && ::fstat(opened.fd.get(), &after) == 0) {
        cache->put(opened.st, after, started_ns, ContentFacts{hash, *encoding, lines, n});
      }
    }
  }

  std::string body = fmt::format("path: {}\nkind: {}\n", shown_text_path(shown_path), kind);
  if (opened.kind != EntryKind::kDirectory) body += fmt::format("size: {} bytes\n", grouped(size));
  // A directory's mtime moves when an entry is added, removed or renamed, hidden ones too: a
  // model could watch it to learn that a protected file appeared. Never shown, as its size.
  if (opened.kind != EntryKind::kDirectory) body += fmt::format("modified: {}\n", mtime);
  if (encoding) body += fmt::format("encoding: {}\n", *encoding);
  if (lines) body += fmt::format("lines: {}\n", grouped(*lines));
  if (!hash.empty()) body += fmt::format("git blob id: {}\n", hash);
  const std::string footer = skipped.empty() ? std::string() : fmt::format("({})", skipped);
  const std::size_t max_tokens = budget_tokens(args, context);
  // What the text says when the budget cut it (the structured result holds every field).
  const std::string cut_footer = fmt::format(
      "(cut at max_tokens={}; call file_info with path={} and a larger max_tokens for the rest)",
      max_tokens, quoted(shown_path));

  TextBudget budget(
      context, max_tokens,
      footer_reserve(context, cut_footer.size() > footer.size() ? cut_footer : footer));
  bool cut = false;
  for_each_line(body, [&](std::string_view line) {
    if (cut) return;
    if (!budget.append(fmt::format("{}\n", lossy_utf8(line)))) cut = true;
  });
  ToolOutput out;
  out.text = budget.finish(cut ? cut_footer : footer);
  out.tokens = context.counter.count(out.text);
  out.truncated = cut;

  JsonWriter w;
  // A directory's own size counts its entries' names, hidden ones too: never shown.
  w.begin_object().field("path", shown_path).field("kind", kind).key("size");
  opened.kind == EntryKind::kDirectory ? w.null() : w.unsigned_integer(size);
  w.key("mtime");
  opened.kind == EntryKind::kDirectory ? w.null() : w.string(mtime);
  w.key("lines");
  lines ? w.unsigned_integer(*lines) : w.null();
  w.key("encoding");
  encoding ? w.string(*encoding) : w.null();
  w.key("encoding_checked_bytes");
  checked_bytes ? w.unsigned_integer(*checked_bytes) : w.null();
  w.key("hash");
  hash.empty() ? w.null() : w.string(hash);
  w.key("hash_algorithm");
  hash.empty() ? w.null() : w.string("git-blob-sha1");
  w.key("skipped");
  skipped.empty() ? w.null() : w.string(skipped);
  w.field("truncated", cut).field("total", std::uint64_t{1}).field("shown", std::uint64_t{1});
  w.key("next_cursor").null();
  w.end_object();
  out.structured = w.take();
  return out;
}

}  // namespace ctx::agent
