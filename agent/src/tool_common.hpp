// Pieces the agent tools share: the common parameters (max_tokens, max_results), opening a
// model's path through the sandbox and the policy with one not_found for missing and hidden
// paths, the token-and-byte budget every text goes through, and number formatting for texts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ctx/agent/budget.hpp"
#include "ctx/agent/sandbox.hpp"
#include "ctx/agent/tool_args.hpp"
#include "ctx/agent/tools.hpp"
#include "path_display.hpp"

namespace ctx::agent {

class JsonWriter;  // json_writer.hpp

// The smallest max_tokens a tool accepts (a footer that names the next call must fit).
inline constexpr std::int64_t kMinMaxTokens = 32;

// The max_tokens parameter every tool takes.
ParamSpec max_tokens_param();
// max_results with its aliases (max, limit unless the tool has a limit of its own).
ParamSpec max_results_param(bool alias_limit);
// The cursor parameter of the paging tools.
ParamSpec cursor_param();

// max_tokens if given, else the configured default.
std::size_t budget_tokens(const ToolArgs& args, const CallContext& context);
// max_results if given (capped at Limits::max_results), else `default_value`.
std::size_t max_results(const ToolArgs& args, const CallContext& context,
                        std::size_t default_value);
// "; max_results=5000 was taken as 1,000, this server's limit" when the max_results sent was
// above Limits::max_results, else "": a footer part, so the model learns the cap from the text.
std::string max_results_note(const ToolArgs& args, const CallContext& context);

// The one error for a path that does not exist and for one the policy hides: the same code,
// message and hint, so a hidden path's existence never shows.
ToolError not_found(std::string_view user_path);

// Normalises `user_path` and opens it beneath the root. A path the policy hides (as typed, or
// where an in-root symlink leads) gives not_found(user_path), as does a missing one; so does any
// failure to open a path that could be hidden. Other errors (outside_root, invalid_argument,
// io_error) are the sandbox's.
// With Sandbox::OpenFor::kLookup a regular file stays O_PATH (for a caller that may need only its
// stat): reopen_visible then makes it readable, with the errors open_visible would have given.
Expected<OpenedPath> open_visible(const CallContext& context, std::string_view user_path,
                                  Sandbox::OpenFor purpose = Sandbox::OpenFor::kReading);
ToolStatus reopen_visible(const CallContext& context, std::string_view user_path,
                          OpenedPath& opened);

// A BudgetWriter that also keeps the text under Limits::max_output_bytes.
class TextBudget {
 public:
  TextBudget(const CallContext& context, std::size_t max_tokens, std::size_t reserve_tokens);
  // Appends `piece` when it fits both limits; false (nothing appended) otherwise.
  bool append(std::string_view piece);
  // append() of the concatenation of `parts` (built only when the budget must count it).
  bool append_parts(std::span<const std::string_view> parts);
  // BudgetWriter::append_in_place within the byte limit too: nullptr when the piece must go
  // through append() or append_parts() instead (which may refuse it).
  char* append_in_place(std::size_t bytes) {
    if (body_bytes_ + bytes > max_bytes_) return nullptr;
    char* at = writer_.append_in_place(bytes);
    if (at != nullptr) body_bytes_ += bytes;
    return at;
  }
  void reserve(std::size_t bytes) { writer_.reserve(bytes); }
  bool cut() const { return writer_.cut(); }
  void mark_cut() { writer_.mark_cut(); }
  // The text with `footer` as its last line (always within the budget).
  std::string finish(std::string_view footer);
  // True when `finish` had to drop body text `append` accepted (a counter whose counts are not
  // additive): a renderer that recorded what it showed must render again with fewer items.
  bool trimmed() const { return writer_.trimmed(); }
  // True when a piece was refused for Limits::max_output_bytes (not the token budget).
  bool byte_capped() const { return byte_capped_; }
  // After `finish`: the counter's count of the text it returned (no need to count it again).
  std::size_t tokens() const { return writer_.used(); }

 private:
  BudgetWriter writer_;
  std::size_t body_bytes_ = 0;  // what append accepted
  std::size_t max_bytes_;
  bool byte_capped_ = false;
};

// Tokens held back for a footer shaped like `longest_footer` (give it the longest numbers and
// arguments it can hold).
std::size_t footer_reserve(const CallContext& context, std::string_view longest_footer);

// 1234567 -> "1,234,567".
std::string grouped(std::uint64_t n);
// Appends grouped(n) to `out`.
void append_grouped(std::string& out, std::uint64_t n);
// Writes grouped(n) at `out` (room for 26 bytes: 20 digits and 6 commas); returns its end.
char* put_grouped(char* out, std::uint64_t n);

// A string quoted for the next-call hints in texts: 'src/a b.c' (single quotes, escaped as JSON
// would escape them when needed; a control character as JSON writes it, \n or \u001b).
std::string quoted(std::string_view s);

// Whether `s` holds a control character (a byte below 0x20, or 0x7F).
bool has_control_byte(std::string_view s);
// Whether a text must show `path` quoted: it holds a control character or a Unicode line or
// paragraph separator (U+0085, U+2028, U+2029), starts with '"' (it would read as a quoted one),
// or starts or ends with a space.
bool needs_quoting(std::string_view path);
// A path as a text shows it when needs_quoting: JSON-quoted ("new\nline.txt"), so one name never
// reads as two lines, or as a match line or footer it forges. The structured result keeps the
// name itself.
std::string quoted_path(std::string_view path);
// The path as the text shows it: escape_path(path) (path_display.hpp: names that are not UTF-8
// as \xHH), JSON-quoted (quoted_path) when that needs quoting.
std::string text_path(std::string_view path);
// text_path of a path already escape_path'ed (not escaped again).
std::string shown_text_path(std::string_view shown);
// Writes `path` as every structured result holds it: escape_path(path), a valid UTF-8 string.
void write_path(JsonWriter& w, std::string_view path);

// Seconds since the epoch (and nanoseconds) as RFC 3339 UTC: 2026-11-22T06:07:24Z.
std::string rfc3339_utc(std::int64_t seconds);

// Why a result was cut short, for `truncated_reason`.
inline constexpr std::string_view kReasonBudget = "max_tokens";
inline constexpr std::string_view kReasonMaxResults = "max_results";
inline constexpr std::string_view kReasonDeadline = "deadline";
inline constexpr std::string_view kReasonCancelled = "cancelled";
inline constexpr std::string_view kReasonOutputCap = "output_cap";
inline constexpr std::string_view kReasonVisitCap = "visit_cap";

// kReasonCancelled when the call was cancelled, else kReasonDeadline (call when expired()).
std::string_view expiry_reason(const CallContext& context);

}  // namespace ctx::agent
