#include "ctx/agent/tools.hpp"

#include <fmt/format.h>

#include <array>

#include "session.hpp"
#include "tool_impls.hpp"

namespace ctx::agent {

namespace {

const std::array<ToolImpl, 5>& tool_table() {
  static const std::array<ToolImpl, 5> table = {{
      {"search_files",
       "Search file contents for a regex (or literal) under the root. Returns matching lines "
       "grouped by file (the path, then line:text); use output_mode=files_with_matches or count "
       "for an overview, and cursor for more.",
       search_files_params, search_files_output_schema, run_search_files},
      {"read_file",
       "Read a text file with line numbers. Use offset (1-based line) and limit to read a window "
       "of a large file. A name shown with \\xHH escapes (bytes that are not UTF-8) opens as "
       "shown.",
       read_file_params, read_file_output_schema, run_read_file},
      {"find_files",
       "Find files whose root-relative path matches a glob such as '**/*.py' or 'src/**/test_*'.",
       find_files_params, find_files_output_schema, run_find_files},
      {"list_directory",
       "List a directory's entries (name, kind, size), sorted; depth > 1 lists subdirectories too.",
       list_directory_params, list_directory_output_schema, run_list_directory},
      {"file_info",
       "Size, modification time, line count, encoding and a short content hash of one file.",
       file_info_params, file_info_output_schema, run_file_info},
  }};
  return table;
}

std::string tool_names() {
  std::string names;
  for (const ToolImpl& t : tool_table()) {
    names += names.empty() ? "" : ", ";
    names += t.name;
  }
  return names;
}

}  // namespace

SessionState::SessionState() : impl_(std::make_unique<Impl>()) {}
SessionState::~SessionState() = default;

std::vector<ToolSpec> tool_specs(const Limits& limits) {
  std::vector<ToolSpec> out;
  for (const ToolImpl& t : tool_table()) {
    out.push_back(
        ToolSpec{t.name, t.description, input_schema(t.params(), &limits), t.output_schema()});
  }
  return out;
}

const std::vector<ToolSpec>& tool_specs() {
  static const std::vector<ToolSpec> specs = tool_specs(Limits{});
  return specs;
}

void CallContext::poll_if_due(std::chrono::steady_clock::time_point now) const {
  const std::int64_t ticks = now.time_since_epoch().count();
  std::int64_t due = next_poll.load(std::memory_order_relaxed);
  const std::int64_t interval =
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(CallPoller::kPollInterval)
          .count();
  if (due == 0) {  // the call's first check: the first turn comes one interval later
    next_poll.compare_exchange_strong(due, ticks + interval, std::memory_order_relaxed);
    return;
  }
  if (ticks < due) return;
  // One checker takes the turn; the others see the new due time.
  if (next_poll.compare_exchange_strong(due, ticks + interval, std::memory_order_relaxed)) {
    poller->poll();
  }
}

Expected<ToolOutput> call_tool(std::string_view name, std::string_view arguments_json,
                               const CallContext& context) {
  for (const ToolImpl& t : tool_table()) {
    if (t.name != name) continue;
    CTX_TRY_ASSIGN(ToolArgs args,
                   parse_tool_args(arguments_json, t.params(), &context.config.limits));
    return t.run(args, context);
  }
  return ToolError{ToolErrorCode::kInvalidArgument,
                   fmt::format("unknown tool '{}'; the tools are: {}", name, tool_names()),
                   "call one of the listed tools"};
}

}  // namespace ctx::agent
