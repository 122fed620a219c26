#include "tool_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "json_writer.hpp"

namespace ctx::agent {

ParamSpec max_tokens_param() {
  return ParamSpec{"max_tokens",
                   ParamType::kInteger,
                   "token budget for the returned text (default: a quarter of the context "
                   "window); the result says what did not fit and how to get it",
                   false,
                   {"budget", "token_budget"},
                   {},
                   kMinMaxTokens,
                   1'000'000};
}

ParamSpec max_results_param(bool alias_limit) {
  std::vector<std::string_view> aliases = {"max", "max_count", "max_entries"};
  if (alias_limit) aliases.push_back("limit");
  return ParamSpec{"max_results",
                   ParamType::kInteger,
                   "how many items to show at most (the next ones are reached with cursor); a "
                   "value above the maximum is taken as the maximum",
                   false,
                   aliases,
                   {},
                   1,
                   static_cast<std::int64_t>(Limits{}.max_results),
                   &Limits::max_results};
}

ParamSpec cursor_param() {
  return ParamSpec{"cursor",
                   ParamType::kString,
                   "next_cursor from the previous call with the same arguments, for the next page",
                   false,
                   {"next_cursor", "page_token"}};
}

std::size_t budget_tokens(const ToolArgs& args, const CallContext& context) {
  if (auto v = args.integer("max_tokens")) return static_cast<std::size_t>(*v);
  return std::max<std::size_t>(context.config.default_max_tokens(),
                               static_cast<std::size_t>(kMinMaxTokens));
}

std::size_t max_results(const ToolArgs& args, const CallContext& context,
                        std::size_t default_value) {
  std::size_t cap = std::max<std::size_t>(context.config.limits.max_results, 1);
  std::size_t n = default_value;
  if (auto v = args.integer("max_results")) n = static_cast<std::size_t>(*v);
  return std::min(n, cap);
}

std::string max_results_note(const ToolArgs& args, const CallContext& context) {
  const std::optional<std::string> asked = args.clamped("max_results");
  if (!asked) return {};
  return fmt::format("; max_results={} was taken as {}, this server's limit", *asked,
                     grouped(std::max<std::size_t>(context.config.limits.max_results, 1)));
}

ToolError not_found(std::string_view user_path) {
  // Two habits of small models get their own hints: Windows separators, and a glob as a path.
  if (user_path.find('\\') != std::string_view::npos &&
      user_path.find('/') == std::string_view::npos) {
    std::string slashed(user_path);
    std::replace(slashed.begin(), slashed.end(), '\\', '/');
    return ToolError{ToolErrorCode::kNotFound, fmt::format("'{}' does not exist", user_path),
                     fmt::format("paths here use '/': try path={}", quoted(slashed))};
  }
  if (user_path.find_first_of("*?") != std::string_view::npos) {
    const std::size_t slash = user_path.rfind('/');
    const std::string_view dir = slash == std::string_view::npos ? "." : user_path.substr(0, slash);
    return ToolError{
        ToolErrorCode::kNotFound, fmt::format("'{}' does not exist", user_path),
        fmt::format("path names one file or directory, not a glob: call find_files with "
                    "pattern={}, or search_files with path={} and glob={}",
                    quoted(user_path), quoted(dir),
                    quoted(user_path.substr(slash == std::string_view::npos ? 0 : slash + 1)))};
  }
  std::string_view base = user_path;
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  if (std::size_t slash = base.rfind('/'); slash != std::string_view::npos) {
    base.remove_prefix(slash + 1);
  }
  std::string hint = base.empty() || base == "." || base == ".."
                         ? std::string("call list_directory with path='.' to see what exists")
                         : fmt::format(
                               "call find_files with pattern={}, or list_directory to "
                               "see what exists",
                               quoted(fmt::format("**/{}", base)));
  return ToolError{ToolErrorCode::kNotFound, fmt::format("'{}' does not exist", user_path),
                   std::move(hint)};
}

namespace {

// Whether some prefix of `relative` (a normalized root-relative path) resolves, through an
// in-root symlink, to a path the policy hides. Then what the whole path's resolution says (its
// result, or why it failed: `link/config/x` is not_a_directory when `link -> .git` and
// .git/config exists) would tell of a hidden entry. Stops at the first prefix that does not
// open: the failure lies there, and the prefixes before it were checked.
bool resolves_through_hidden(const CallContext& context, std::string_view relative) {
  for (std::size_t end = relative.find('/');; end = relative.find('/', end + 1)) {
    const std::string_view prefix = relative.substr(0, end);
    auto opened = context.sandbox.open_beneath(prefix, Sandbox::OpenFor::kLookup);
    if (!opened.ok()) return false;
    if (!context.policy.visible(opened->canonical, opened->kind == EntryKind::kDirectory)) {
      return true;
    }
    if (end == std::string_view::npos) return false;
  }
}

// A failure to open a path that may be hidden, or that goes through a hidden one, must look like
// a missing path.
ToolError open_failure(const CallContext& context, std::string_view user_path,
                       std::string_view relative, ToolError error) {
  const bool may_be_hidden =
      !context.policy.visible(relative, false) || !context.policy.visible(relative, true);
  if (may_be_hidden || error.code == ToolErrorCode::kNotFound ||
      resolves_through_hidden(context, relative)) {
    return not_found(user_path);
  }
  return error;
}

}  // namespace

Expected<OpenedPath> open_visible(const CallContext& context, std::string_view user_path,
                                  Sandbox::OpenFor purpose) {
  CTX_TRY_ASSIGN(std::string relative, context.sandbox.normalize(user_path));
  const bool hidden_as_file = !context.policy.visible(relative, false);
  const bool hidden_as_dir = !context.policy.visible(relative, true);
  if (hidden_as_file && hidden_as_dir) return not_found(user_path);
  auto opened = context.sandbox.open_beneath(relative, purpose);
  if (!opened.ok()) return open_failure(context, user_path, relative, std::move(opened).error());
  const bool is_dir = opened->kind == EntryKind::kDirectory;
  if (!context.policy.visible(relative, is_dir) ||
      !context.policy.visible(opened->canonical, is_dir)) {
    return not_found(user_path);
  }
  // A symlink was followed: no step of the way may be hidden (`link/x` with `link -> .git/hooks`
  // and `.git/hooks/x -> ../../src`), else the result would show that the hidden step exists.
  if (opened->canonical != relative && resolves_through_hidden(context, relative)) {
    return not_found(user_path);
  }
  return opened;
}

ToolStatus reopen_visible(const CallContext& context, std::string_view user_path,
                          OpenedPath& opened) {
  if (opened.readable) return {};
  CTX_TRY_ASSIGN(std::string relative, context.sandbox.normalize(user_path));
  auto reopened = context.sandbox.reopen(opened, relative);
  if (!reopened.ok())
    return open_failure(context, user_path, relative, std::move(reopened).error());
  return {};
}

TextBudget::TextBudget(const CallContext& context, std::size_t max_tokens,
                       std::size_t reserve_tokens)
    : writer_(context.counter, max_tokens, reserve_tokens),
      max_bytes_(context.config.limits.max_output_bytes) {
  writer_.count_on_finish(context.count_tokens);
}

bool TextBudget::append(std::string_view piece) {
  if (body_bytes_ + piece.size() > max_bytes_) {
    writer_.mark_cut();
    byte_capped_ = true;
    return false;
  }
  if (!writer_.append(piece)) return false;
  body_bytes_ += piece.size();
  return true;
}

bool TextBudget::append_parts(std::span<const std::string_view> parts) {
  std::size_t bytes = 0;
  for (std::string_view part : parts) bytes += part.size();
  if (body_bytes_ + bytes > max_bytes_) {
    writer_.mark_cut();
    byte_capped_ = true;
    return false;
  }
  if (!writer_.append_parts(parts)) return false;
  body_bytes_ += bytes;
  return true;
}

std::string TextBudget::finish(std::string_view footer) { return writer_.finish(footer); }

std::size_t footer_reserve(const CallContext& context, std::string_view longest_footer) {
  // A little slack: counts need not be additive for a real tokenizer.
  return context.counter.count(longest_footer) + 2;
}

char* put_grouped(char* out, std::uint64_t n) {
  const fmt::format_int formatted(n);
  const std::string_view digits(formatted.data(), formatted.size());
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) *out++ = ',';
    *out++ = digits[i];
  }
  return out;
}

void append_grouped(std::string& out, std::uint64_t n) {
  char text[26];
  out.append(text, static_cast<std::size_t>(put_grouped(text, n) - text));
}

std::string grouped(std::uint64_t n) {
  std::string out;
  append_grouped(out, n);
  return out;
}

std::string quoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) {
      append_json_body(out, std::string_view(&c, 1));
      continue;
    }
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

bool has_control_byte(std::string_view s) {
  return std::ranges::any_of(s, [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7F;
  });
}

bool needs_quoting(std::string_view path) {
  if (path.starts_with('"') || path.starts_with(' ') || path.ends_with(' ')) return true;
  // One pass (every listed name goes through it): control bytes, and the lead bytes of U+0085
  // (C2 85) and U+2028/U+2029 (E2 80 A8/A9) looked at closer.
  for (std::size_t i = 0; i < path.size(); ++i) {
    const auto byte = static_cast<unsigned char>(path[i]);
    if (byte < 0x20 || byte == 0x7F) return true;
    if (byte == 0xC2 && path.substr(i + 1, 1) == "\x85") return true;
    if (byte == 0xE2 &&
        (path.substr(i + 1, 2) == "\x80\xA8" || path.substr(i + 1, 2) == "\x80\xA9")) {
      return true;
    }
  }
  return false;
}

std::string quoted_path(std::string_view path) {
  std::string out = "\"";
  append_json_body(out, path);
  out.push_back('"');
  return out;
}

std::string text_path(std::string_view path) { return shown_text_path(escape_path(path)); }

std::string shown_text_path(std::string_view shown) {
  return needs_quoting(shown) ? quoted_path(shown) : std::string(shown);
}

void write_path(JsonWriter& w, std::string_view path) {
  if (needs_path_escape(path)) {
    w.valid_string(escape_path(path));
  } else {
    w.valid_string(path);
  }
}

std::string rfc3339_utc(std::int64_t seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  if (::gmtime_r(&t, &tm) == nullptr) return "unknown";
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string_view expiry_reason(const CallContext& context) {
  if (context.cancelled != nullptr && context.cancelled->load(std::memory_order_relaxed)) {
    return kReasonCancelled;
  }
  return kReasonDeadline;
}

}  // namespace ctx::agent
