// The read-only tools a coding agent calls: read_file, list_directory, search_files, find_files,
// file_info. One registry serves the MCP server and the `ctxsearch tool` CLI, so both give the
// same results. Every path goes through the Sandbox, every result through the Policy, every text
// through a BudgetWriter.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/agent/budget.hpp"
#include "ctx/agent/policy.hpp"
#include "ctx/agent/sandbox.hpp"
#include "ctx/agent/tool_error.hpp"

namespace ctx::agent {

// Limits on every call (configurable in the project file and by flags).
struct Limits {
  std::uint32_t deadline_ms = 10'000;  // wall time per call; partial results are flagged
  std::uint64_t max_search_file_bytes = 16 << 20;  // larger files are skipped as too_large
  std::uint64_t max_visited = 2'000'000;           // entries a walk may visit per call
  std::size_t max_results = 1'000;                 // hard cap on max_results parameters
  std::size_t max_collected_matches = 50'000;      // matches kept per search before it stops
  std::size_t max_line_bytes = 500;                // longer lines are clipped with a marker
  std::size_t max_output_bytes = 1 << 20;          // of the rendered text, whatever the budget
};

// The context windows --context-window and a config's "context_window" accept, in tokens.
inline constexpr std::size_t kMinContextWindow = 512;
inline constexpr std::size_t kMaxContextWindow = 100'000'000;

struct AgentConfig {
  PolicyConfig policy;
  Limits limits;
  std::size_t context_window = 32'768;  // --context-window; the default budget is 25% of it
  std::size_t default_max_tokens() const { return context_window / 4; }
};

// Reads a project config file (`.ctxsearch.json`): {"allow": [...], "deny": [...],
// "protect": [...], "no_default_protect": bool, "context_window": N, "limits": {"deadline_ms": N,
// ...}}. Unknown keys are errors naming the valid ones.
Expected<AgentConfig> read_config_file(const std::string& path);

// State kept between calls by a long-lived server (cached search results behind cursors). The
// one-shot CLI passes none and re-runs work when given a cursor.
class SessionState {
 public:
  SessionState();
  ~SessionState();
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// What a call running on the thread that reads the client's messages (the MCP server's inline
// calls) hands its context, so that messages arriving meanwhile (notifications/cancelled, ping)
// are still read: CallContext::expired() calls poll() at most every kPollInterval of the call's
// time. poll() must not block; it may set the call's `cancelled` flag. Called from whichever
// thread checks the context (a walk's workers too, so a walk whose reading thread only waits is
// still polled): an implementation must be thread-safe and may skip a turn while another runs.
class CallPoller {
 public:
  static constexpr std::chrono::microseconds kPollInterval{1000};
  virtual ~CallPoller() = default;
  virtual void poll() = 0;
};

struct CallContext {
  const Sandbox& sandbox;
  const Policy& policy;
  const TokenCounter& counter;
  const AgentConfig& config;
  std::chrono::steady_clock::time_point deadline;
  const std::atomic<bool>* cancelled = nullptr;  // set by notifications/cancelled
  SessionState* session = nullptr;
  CallPoller* poller = nullptr;  // nullptr: nothing to poll (a worker thread's call, the CLI)
  // False when nothing reads ToolOutput::tokens (an MCP server without an audit log): a text
  // whose pieces' bounds already prove it fits its budget is then not counted again as a whole
  // (see BudgetWriter::count_on_finish), and its `tokens` is 0.
  bool count_tokens = true;

  // True once the call was cancelled or its deadline passed. With a poller, first gives it a
  // turn when kPollInterval has passed since its last one (or since the call began).
  bool expired() const {
    const auto now = std::chrono::steady_clock::now();
    if (poller != nullptr) poll_if_due(now);
    return (cancelled != nullptr && cancelled->load(std::memory_order_relaxed)) || now >= deadline;
  }
  void poll_if_due(std::chrono::steady_clock::time_point now) const;
  // Internal to expired(): steady_clock ticks of the next poll (0: the first check sets it);
  // atomic because a walk's workers check the context concurrently.
  mutable std::atomic<std::int64_t> next_poll{0};
};

struct ToolOutput {
  std::string structured;  // JSON object: the tool's result, with {truncated, total, shown,
                           // next_cursor} and only the items the text shows
  std::string text;        // what the model reads, within the token budget
  // Empty, or `text` escaped for a JSON string (append_json_body's output, no quotes), for a tool
  // that escaped its text's pieces anyway: the MCP server then sends it instead of escaping
  // `text` again (debug builds check the two agree).
  std::string text_json;
  bool truncated = false;
  std::size_t tokens = 0;  // of `text`, by the context's counter (0: see count_tokens)
  // Entries the policy hid from this call. For the operator's audit log only: never in `text` or
  // `structured`, so nothing the model sees reveals that a hidden file exists.
  std::size_t policy_hidden = 0;
  // True when `structured` was written by the tools' JsonWriter (a JSON object on one line by
  // construction): the MCP server then sends it without parsing it again (debug builds still do).
  bool structured_trusted = false;
};

struct ToolSpec {
  std::string_view name;
  std::string_view description;  // short, for small models: what it does, when to use it
  std::string input_schema;      // JSON Schema of the arguments
  std::string output_schema;     // JSON Schema of `structured`
};

// The tools with their schemas under `limits` (a parameter's maximum may be a configured limit,
// such as max_results' Limits::max_results), as a server with that config publishes them.
std::vector<ToolSpec> tool_specs(const Limits& limits);
// tool_specs of the default Limits, built once.
const std::vector<ToolSpec>& tool_specs();

// Runs tool `name` with `arguments_json`. Unknown tools and bad arguments are ToolErrors.
Expected<ToolOutput> call_tool(std::string_view name, std::string_view arguments_json,
                               const CallContext& context);

}  // namespace ctx::agent
