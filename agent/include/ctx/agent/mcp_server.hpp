// The Model Context Protocol server over stdio: JSON-RPC 2.0, one message per line. `McpServer`
// turns one incoming line into at most one outgoing line (`handle_message`, what tests and the
// fuzzer drive) and `run` is the stdio loop around it: a reader that keeps reading and never
// waits for the workers (so notifications/cancelled and ping are handled while calls run or
// queue, and a call beyond the in-flight bound is refused at once), tool calls on worker
// threads, except quick ones (ToolBackend::runs_inline) that the reader runs itself while its
// CallPoller goes on reading, and whole response lines written under a lock. Tools are reached
// through a `ToolBackend`; the real one, `RegistryBackend`, runs the registry of tools.hpp inside
// a Sandbox and Policy.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/agent/audit_log.hpp"
#include "ctx/agent/budget.hpp"
#include "ctx/agent/tools.hpp"

namespace ctx::agent {

// What the server calls tools through.
class ToolBackend {
 public:
  virtual ~ToolBackend() = default;
  // The tools tools/list publishes; the reference stays valid for the backend's lifetime.
  virtual const std::vector<ToolSpec>& specs() const = 0;
  // Runs tool `name` with `arguments_json` (a JSON object text). `cancelled` becomes true when the
  // client cancels the request; the backend should return soon after. Called from several
  // threads at once. `poller` is non-null when the call runs on the thread that reads the
  // client's messages (see runs_inline): the backend must give it turns while it runs (through
  // CallContext::expired(), or by calling poll() itself), or no message is read meanwhile, the
  // cancellation of this very call included.
  virtual Expected<ToolOutput> call(std::string_view name, std::string_view arguments_json,
                                    const std::atomic<bool>& cancelled, CallPoller* poller) = 0;
  // Whether a call of tool `name` may run inline on the reading thread, with a poller, instead
  // of being handed to a worker thread (which costs a wake-up and two context switches): true
  // for tools that are quick and check their context often. Default: none.
  virtual bool runs_inline(std::string_view /*name*/) const { return false; }
};

// The registry of tools.hpp: each call gets a CallContext whose deadline is
// `config.limits.deadline_ms` from its start, the shared SessionState (cursor cache) when
// `session` is non-null, and, when `audit` is non-null, one audit record. Every reference must
// outlive the backend.
class RegistryBackend final : public ToolBackend {
 public:
  RegistryBackend(const Sandbox& sandbox, const Policy& policy, const AgentConfig& config,
                  SessionState* session, AuditLog* audit);
  // tool_specs of the config's limits.
  const std::vector<ToolSpec>& specs() const override { return specs_; }
  Expected<ToolOutput> call(std::string_view name, std::string_view arguments_json,
                            const std::atomic<bool>& cancelled, CallPoller* poller) override;
  // read_file, file_info and list_directory: one file or one directory's walk, checking the
  // context per chunk or entry. search_files and find_files walk the tree on worker threads.
  bool runs_inline(std::string_view name) const override;

 private:
  const Sandbox& sandbox_;
  const Policy& policy_;
  const AgentConfig& config_;
  SessionState* session_;
  AuditLog* audit_;
  EstimatingCounter counter_;
  std::vector<ToolSpec> specs_;
};

// Protocol revisions the server speaks, newest first. initialize answers with the client's
// version when it is one of these, else with the newest.
inline constexpr std::string_view kMcpProtocolVersions[] = {"2025-11-25", "2025-06-18",
                                                            "2025-03-26", "2024-11-05"};

// What a protocol revision's schema has that older ones lack: a field a revision does not define
// is never sent under it (an older client's strict validator would refuse it).
struct McpRevisionFields {
  bool annotations = true;  // Tool.annotations (ToolAnnotations): 2025-03-26 on
  bool titles = true;       // Tool.title, Implementation.title: 2025-06-18 on
  // Tool.outputSchema, CallToolResult.structuredContent: 2025-06-18 on
  bool structured_output = true;
};
// The fields of `protocol_version` (one of kMcpProtocolVersions; "" before initialize: the newest).
McpRevisionFields mcp_revision_fields(std::string_view protocol_version);

// The `tools` array of a tools/list result for `specs` under `fields`: name, title, description,
// inputSchema, outputSchema and annotations (read-only, closed world), schemas minified; each of
// title, outputSchema and annotations only where `fields` has it.
std::string mcp_tools_json(const std::vector<ToolSpec>& specs, McpRevisionFields fields = {});

struct McpServerOptions {
  std::string server_version = "0.1.0";
  std::string instructions;  // empty: a short default written for small models
  // A line longer than this is not parsed: it is drained and answered with -32600.
  std::size_t max_message_bytes = std::size_t{8} << 20;
  std::size_t max_batch_elements = 256;  // batches (2024-11-05 and 2025-03-26 only)
  unsigned workers = 4;                  // threads running tool calls in `run`
  // In `run`, a call of a tool the backend `runs_inline` is run on the reading thread itself,
  // when no further message is buffered behind it: no hand-off to a worker (a wake-up and two
  // context switches per call). Messages that arrive meanwhile are read and handled through the
  // call's poller (CallContext::expired() gives it a turn every CallPoller::kPollInterval), so a
  // notifications/cancelled still reaches the call and a ping is still answered; a tools/call
  // read then goes to a worker. False: every call goes to a worker.
  bool inline_quick_calls = true;
  // Admission: a tools/call is taken while fewer than workers + max_queued_calls calls are in
  // flight (queued or running) and, unless none is, their arguments stay within
  // max_in_flight_bytes; any other is answered at once with kServerBusy (the reader never waits,
  // so cancellations and pings are read behind a full queue, and memory stays bounded).
  std::size_t max_queued_calls = 256;
  std::size_t max_in_flight_bytes = std::size_t{64} << 20;
};

// JSON-RPC error codes the server answers with.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// A tools/call refused because the server is full (implementation-defined server error range);
// `data` holds in_flight, max_in_flight, in_flight_bytes, max_in_flight_bytes and retry: true.
inline constexpr int kServerBusy = -32000;

class McpServer {
 public:
  // `backend` must outlive the server.
  McpServer(ToolBackend& backend, McpServerOptions options);
  ~McpServer();
  McpServer(const McpServer&) = delete;
  McpServer& operator=(const McpServer&) = delete;

  // Handles one message (a line without its '\n') to completion, tool calls included, and
  // returns the response line (no '\n' in it), or nullopt for notifications, responses, and
  // requests cancelled while they ran. Thread-safe: a notifications/cancelled passed on another
  // thread cancels a tools/call running here.
  std::optional<std::string> handle_message(std::string_view line);

  // Serves `in_fd` -> `out_fd` until end of input (then waits for the calls in flight and writes
  // their responses) or until output fails. Returns 0 at end of input, 2 on an I/O error (named
  // on stderr). Logs go to stderr only. SIGPIPE must be ignored (ctxsearch's main does) so that
  // a client that goes away shows up as EPIPE.
  int run(int in_fd, int out_fd);

  // The version initialize settled on ("" before initialize).
  std::string protocol_version() const;

  struct Impl;  // defined in mcp_server.cpp, and used there only

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ctx::agent
