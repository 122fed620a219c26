// McpServer: every method, every JSON-RPC error class, version negotiation, batches,
// cancellation (through handle_message on two threads and through the stdio loop; of a finished
// request; of one still queued), hostile input (oversized lines, deep nesting, invalid UTF-8, a
// flood past the queue bound, end of input while calls run), real tools on every worker at once
// (the ThreadSanitizer target), and the audit log. A scripted backend stands in for the tools so
// each outcome (success, tool error, bad structured result, exception, a call that blocks until
// cancelled, a call that sleeps) is exact; the registry backend is checked over a real Sandbox.
#include "ctx/agent/mcp_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <simdjson.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../../agent/src/json_writer.hpp"
#include "../proc_status.hpp"
#include "ctx/agent/audit_log.hpp"

namespace {

using ctx::agent::AuditLog;
using ctx::agent::AuditRecord;
using ctx::agent::Expected;
using ctx::agent::McpServer;
using ctx::agent::McpServerOptions;
using ctx::agent::ToolError;
using ctx::agent::ToolErrorCode;
using ctx::agent::ToolOutput;
using ctx::agent::ToolSpec;
using namespace std::chrono_literals;

// Tools whose behaviour is fixed by their name.
class ScriptedBackend final : public ctx::agent::ToolBackend {
 public:
  ScriptedBackend() {
    specs_.push_back(
        ToolSpec{"echo", "Returns its arguments.",
                 "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}",
                 "{\"type\":\"object\",\n \"properties\":{\"echo\":{\"type\":\"object\"}}}"});
    specs_.push_back(ToolSpec{"block", "Waits until cancelled.", "{\"type\":\"object\"}",
                              "{\"type\":\"object\"}"});
  }
  const std::vector<ToolSpec>& specs() const override { return specs_; }
  // "quick" and "block_inline" may run on the reading thread.
  bool runs_inline(std::string_view name) const override {
    return name == "quick" || name == "block_inline";
  }

  Expected<ToolOutput> call(std::string_view name, std::string_view arguments,
                            const std::atomic<bool>& cancelled,
                            ctx::agent::CallPoller* poller) override {
    calls.fetch_add(1);
    if (poller != nullptr) inline_calls.fetch_add(1);
    if (name == "quick") {
      ToolOutput out;
      out.structured = poller != nullptr ? "{\"inline\":true}" : "{\"inline\":false}";
      out.text = "quick";
      return out;
    }
    if (name == "block_inline") {
      // As "block", giving the poller a turn every millisecond as CallContext::expired() does.
      {
        std::lock_guard lock(mutex_);
        ++started_;
      }
      started_cv_.notify_all();
      const auto give_up = std::chrono::steady_clock::now() + 10s;
      while (!cancelled.load() && std::chrono::steady_clock::now() < give_up) {
        if (poller != nullptr) poller->poll();
        std::this_thread::sleep_for(1ms);
      }
      saw_cancel.store(cancelled.load());
      ToolOutput out;
      out.structured = "{\"partial\":true}";
      out.text = "partial";
      return out;
    }
    if (name == "echo") {
      ToolOutput out;
      // Pretty-printed on purpose: the server must still write one line.
      out.structured = "{\n  \"echo\": " + std::string(arguments) + "\n}";
      out.text = "line one\nline two";
      return out;
    }
    if (name == "escaped" || name == "escaped_json") {
      // A text JSON escapes in many ways; "escaped_json" also hands over its escaped form.
      ToolOutput out;
      out.structured = "{}";
      out.text = "a\"b\\c\td\r\n\x01\x1f\x7f caf\xC3\xA9 \xE2\x80\xA8 end";
      if (name == "escaped_json") ctx::agent::append_json_body(out.text_json, out.text);
      return out;
    }
    if (name == "fail") {
      return ToolError{ToolErrorCode::kNotFound, "'x.c' does not exist",
                       "call find_files with pattern='**/x.c'"};
    }
    if (name == "bad_structured") {
      ToolOutput out;
      out.structured = "[1, 2";
      out.text = "t";
      return out;
    }
    if (name == "throw") throw std::runtime_error("boom");
    if (name == "sleep") {
      // 100 ms unless cancelled sooner; records how many calls ran at once.
      const int now = running.fetch_add(1) + 1;
      int seen = max_running.load();
      while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
      }
      const auto until = std::chrono::steady_clock::now() + 100ms;
      while (!cancelled.load() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(1ms);
      }
      running.fetch_sub(1);
      sleeps_done.fetch_add(1);
      ToolOutput out;
      out.structured = "{\"slept\":true}";
      out.text = "slept";
      return out;
    }
    if (name == "block") {
      {
        std::lock_guard lock(mutex_);
        ++started_;
      }
      started_cv_.notify_all();
      const auto give_up = std::chrono::steady_clock::now() + 10s;
      while (!cancelled.load() && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(1ms);
      }
      saw_cancel.store(cancelled.load());
      ToolOutput out;
      out.structured = "{\"partial\":true}";
      out.text = "partial";
      return out;
    }
    return ToolError{ToolErrorCode::kInvalidArgument, "unknown tool", "use echo"};
  }

  // Waits until `n` block calls have started.
  bool wait_started(int n) {
    std::unique_lock lock(mutex_);
    return started_cv_.wait_for(lock, 10s, [&] { return started_ >= n; });
  }

  std::atomic<int> calls{0};
  std::atomic<int> inline_calls{0};  // calls given a poller (run on the reading thread)
  std::atomic<bool> saw_cancel{false};
  std::atomic<int> running{0};      // sleep calls running now
  std::atomic<int> max_running{0};  // the most sleep calls that ever ran at once
  std::atomic<int> sleeps_done{0};

 private:
  std::vector<ToolSpec> specs_;
  std::mutex mutex_;
  std::condition_variable started_cv_;
  int started_ = 0;
};

std::string init_line(std::string_view version, int id = 1) {
  return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) +
         ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" + std::string(version) +
         "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
}

std::string call_line(std::string_view id_json, std::string_view tool, std::string_view args) {
  return "{\"jsonrpc\":\"2.0\",\"id\":" + std::string(id_json) +
         ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + std::string(tool) +
         "\",\"arguments\":" + std::string(args) + "}}";
}

std::string cancel_line(std::string_view id_json) {
  return "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" +
         std::string(id_json) + ",\"reason\":\"user\"}}";
}

// A parsed response that owns its parser.
struct Parsed {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
};

std::unique_ptr<Parsed> parse(const std::string& text) {
  INFO(text);
  REQUIRE(text.find('\n') == std::string::npos);
  auto p = std::make_unique<Parsed>();
  REQUIRE(p->parser.parse(text).get(p->root) == simdjson::SUCCESS);
  return p;
}

// The error code of a JSON-RPC error response (0 when it is not one).
std::int64_t error_code(const std::string& response) {
  auto p = parse(response);
  std::int64_t code = 0;
  if (p->root["error"]["code"].get(code) != simdjson::SUCCESS) return 0;
  std::string_view jsonrpc;
  REQUIRE(p->root["jsonrpc"].get(jsonrpc) == simdjson::SUCCESS);
  CHECK(jsonrpc == "2.0");
  return code;
}

std::string id_of(const std::string& response) {
  auto p = parse(response);
  simdjson::dom::element id;
  REQUIRE(p->root["id"].get(id) == simdjson::SUCCESS);
  return simdjson::minify(id);
}

std::string respond(McpServer& server, std::string_view line) {
  std::optional<std::string> r = server.handle_message(line);
  INFO(line);
  REQUIRE(r.has_value());
  return *r;
}

}  // namespace

TEST_CASE("initialize answers the client's protocol version when the server speaks it",
          "[agent][mcp]") {
  for (std::string_view version : ctx::agent::kMcpProtocolVersions) {
    ScriptedBackend backend;
    McpServer server(backend, {});
    auto p = parse(respond(server, init_line(version)));
    std::string_view got;
    REQUIRE(p->root["result"]["protocolVersion"].get(got) == simdjson::SUCCESS);
    CHECK(got == version);
    CHECK(server.protocol_version() == version);
  }
}

TEST_CASE("a second initialize is refused and the first negotiation stands", "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  respond(server, init_line("2025-11-25"));
  CHECK(error_code(respond(server, init_line("2024-11-05", 2))) == -32600);
  CHECK(server.protocol_version() == "2025-11-25");
  // Batches stay refused, as 2025-11-25 says.
  CHECK(error_code(respond(server, R"([{"jsonrpc":"2.0","id":3,"method":"ping"}])")) == -32600);
}

TEST_CASE("initialize answers the latest version to a client version it does not know",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  auto p = parse(respond(server, init_line("1999-01-01")));
  std::string_view got;
  REQUIRE(p->root["result"]["protocolVersion"].get(got) == simdjson::SUCCESS);
  CHECK(got == "2025-11-25");
}

TEST_CASE("initialize reports the tools capability, server info and instructions", "[agent][mcp]") {
  ScriptedBackend backend;
  McpServerOptions options;
  options.server_version = "9.8.7";
  McpServer server(backend, options);
  auto p = parse(respond(server, init_line("2025-06-18")));
  bool list_changed = true;
  REQUIRE(p->root["result"]["capabilities"]["tools"]["listChanged"].get(list_changed) ==
          simdjson::SUCCESS);
  CHECK_FALSE(list_changed);
  std::string_view name, version, instructions;
  REQUIRE(p->root["result"]["serverInfo"]["name"].get(name) == simdjson::SUCCESS);
  REQUIRE(p->root["result"]["serverInfo"]["version"].get(version) == simdjson::SUCCESS);
  REQUIRE(p->root["result"]["instructions"].get(instructions) == simdjson::SUCCESS);
  CHECK(name == "ctxsearch");
  CHECK(version == "9.8.7");
  CHECK(instructions.find("read_file") != std::string_view::npos);
  CHECK(id_of(respond(server, init_line("2025-06-18", 42))) == "42");
}

TEST_CASE("initialize without a protocol version is invalid params", "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  CHECK(error_code(respond(server, R"({"jsonrpc":"2.0","id":1,"method":"initialize"})")) == -32602);
  CHECK(error_code(respond(
            server,
            R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}})")) ==
        -32602);
  CHECK(server.protocol_version().empty());
}

TEST_CASE("notifications and client responses get no reply", "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  CHECK_FALSE(server.handle_message(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  CHECK_FALSE(server.handle_message(
      R"({"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{}})"));
  CHECK_FALSE(server.handle_message(cancel_line("99")));
  CHECK_FALSE(server.handle_message(R"({"jsonrpc":"2.0","method":"notifications/x","params":3})"));
  CHECK_FALSE(server.handle_message(R"({"jsonrpc":"2.0","id":5,"result":{}})"));
  CHECK_FALSE(
      server.handle_message(R"({"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"}})"));
  CHECK_FALSE(server.handle_message(""));
  CHECK_FALSE(server.handle_message("   \r"));
}

TEST_CASE("ping answers an empty result and echoes string, integer and large ids exactly",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  for (std::string id :
       {"1", "-3", "\"abc\"", "\"\"", "18446744073709551615", "\"q\\\"uote\\u00e9\""}) {
    std::string response = respond(server, R"({"jsonrpc":"2.0","method":"ping","id":)" + id + "}");
    auto p = parse(response);
    simdjson::dom::object result;
    REQUIRE(p->root["result"].get(result) == simdjson::SUCCESS);
    CHECK(result.size() == 0);
    simdjson::dom::element sent_parsed;
    simdjson::dom::parser sent_parser;
    REQUIRE(sent_parser.parse(id).get(sent_parsed) == simdjson::SUCCESS);
    CHECK(id_of(response) == simdjson::minify(sent_parsed));
  }
}

TEST_CASE("ids that are fractions, exponents or past 64 bits are answered, not dropped",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  // MCP's RequestId is a string or any number: it comes back as it was written (simdjson holds
  // 1e-400 as 0, which another request may use, and no integer past 64 bits).
  for (const char* id :
       {"1.5", "1e3", "1e-400", "99999999999999999999", "-0", "123456789012345678901234567890.5"}) {
    CAPTURE(id);
    const std::string response =
        respond(server, std::string(R"({"jsonrpc":"2.0","method":"ping","id":)") + id +
                            R"(,"params":{"id":3}})");
    CHECK(response.find(std::string(R"("id":)") + id + ",") != std::string::npos);
  }
}

TEST_CASE("a number past 64 bits or past a double's range in the arguments is a tool error",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  // The message is still read (the number becomes its text), so the call gets its own answer
  // with its id, not a parse error with a null id that leaves the client waiting.
  for (const char* huge : {"99999999999999999999", "-99999999999999999999", "1e400", "-1e400"}) {
    INFO(huge);
    const std::string line =
        std::string(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo",)") +
        R"("arguments":{"n":)" + huge + R"(,"s":"1e400 \" 99999999999999999999"}}})";
    const std::string response = respond(server, line);
    CHECK(id_of(response) == "7");
    CHECK(response.find("\"error\"") == std::string::npos);
    // "echo" gives its arguments back: the number as a string, the string as it was.
    CHECK(response.find(std::string("\"") + huge + "\"") != std::string::npos);
    CHECK(response.find(R"("1e400 \" 99999999999999999999")") != std::string::npos);
  }
}

TEST_CASE("tools/list publishes every backend tool with schemas and read-only annotations",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  std::string response = respond(server, R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
  auto p = parse(response);
  simdjson::dom::array tools;
  REQUIRE(p->root["result"]["tools"].get(tools) == simdjson::SUCCESS);
  REQUIRE(tools.size() == 2);
  std::vector<std::string> names;
  for (simdjson::dom::element tool : tools) {
    std::string_view name, title, description, type;
    REQUIRE(tool["name"].get(name) == simdjson::SUCCESS);
    REQUIRE(tool["title"].get(title) == simdjson::SUCCESS);
    REQUIRE(tool["description"].get(description) == simdjson::SUCCESS);
    REQUIRE(tool["inputSchema"]["type"].get(type) == simdjson::SUCCESS);
    CHECK(type == "object");
    REQUIRE(tool["outputSchema"]["type"].get(type) == simdjson::SUCCESS);
    CHECK(type == "object");
    bool read_only = false, open_world = true;
    REQUIRE(tool["annotations"]["readOnlyHint"].get(read_only) == simdjson::SUCCESS);
    REQUIRE(tool["annotations"]["openWorldHint"].get(open_world) == simdjson::SUCCESS);
    CHECK(read_only);
    CHECK_FALSE(open_world);
    names.emplace_back(name);
  }
  CHECK(names == std::vector<std::string>{"echo", "block"});
  CHECK(error_code(
            respond(server, R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}})")) == 0);
}

TEST_CASE("tools/list refuses a cursor it never issued", "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  CHECK(
      error_code(respond(
          server, R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"abc"}})")) ==
      -32602);
  CHECK(error_code(respond(
            server, R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":7}})")) ==
        -32602);
}

TEST_CASE("tools/call returns text content, structuredContent and isError false", "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  std::string response = respond(server, call_line("\"c1\"", "echo", R"({"text": "hi\nthere"})"));
  CHECK(id_of(response) == "\"c1\"");
  auto p = parse(response);
  std::string_view type, text, echoed;
  REQUIRE(p->root["result"]["content"].at(0)["type"].get(type) == simdjson::SUCCESS);
  REQUIRE(p->root["result"]["content"].at(0)["text"].get(text) == simdjson::SUCCESS);
  REQUIRE(p->root["result"]["structuredContent"]["echo"]["text"].get(echoed) == simdjson::SUCCESS);
  bool is_error = true;
  REQUIRE(p->root["result"]["isError"].get(is_error) == simdjson::SUCCESS);
  CHECK(type == "text");
  CHECK(text == "line one\nline two");
  CHECK(echoed == "hi\nthere");
  CHECK_FALSE(is_error);
}

TEST_CASE("tools/call passes missing, null and JSON-text arguments on as an object text",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  auto echoed = [&](std::string_view line) {
    auto p = parse(respond(server, line));
    simdjson::dom::element e;
    REQUIRE(p->root["result"]["structuredContent"]["echo"].get(e) == simdjson::SUCCESS);
    return simdjson::minify(e);
  };
  CHECK(echoed(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}})") ==
        "{}");
  CHECK(echoed(call_line("2", "echo", "null")) == "{}");
  CHECK(echoed(call_line("3", "echo", R"("{\"text\":\"s\"}")")) == R"({"text":"s"})");
}

TEST_CASE("a tool error is a result with isError true, the error JSON as text, no structure",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  auto p = parse(respond(server, call_line("7", "fail", "{}")));
  bool is_error = false;
  REQUIRE(p->root["result"]["isError"].get(is_error) == simdjson::SUCCESS);
  CHECK(is_error);
  simdjson::dom::element structured;
  CHECK(p->root["result"]["structuredContent"].get(structured) != simdjson::SUCCESS);
  std::string_view text;
  REQUIRE(p->root["result"]["content"].at(0)["text"].get(text) == simdjson::SUCCESS);
  simdjson::dom::parser inner;
  simdjson::dom::element error;
  REQUIRE(inner.parse(std::string(text)).get(error) == simdjson::SUCCESS);
  std::string_view code, message, hint;
  REQUIRE(error["code"].get(code) == simdjson::SUCCESS);
  REQUIRE(error["message"].get(message) == simdjson::SUCCESS);
  REQUIRE(error["hint"].get(hint) == simdjson::SUCCESS);
  CHECK(code == "not_found");
  CHECK(message == "'x.c' does not exist");
  CHECK(hint == "call find_files with pattern='**/x.c'");
}

TEST_CASE("arguments that are not an object are a tool error, not a protocol error",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  for (std::string_view args : {"[1]", "5", "true"}) {
    auto p = parse(respond(server, call_line("1", "echo", args)));
    bool is_error = false;
    REQUIRE(p->root["result"]["isError"].get(is_error) == simdjson::SUCCESS);
    CHECK(is_error);
  }
  CHECK(backend.calls.load() == 0);
}

TEST_CASE("a tool that throws or returns a malformed structure yields an io_error result",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  for (std::string_view tool : {"throw", "bad_structured"}) {
    auto p = parse(respond(server, call_line("1", tool, "{}")));
    bool is_error = false;
    REQUIRE(p->root["result"]["isError"].get(is_error) == simdjson::SUCCESS);
    CHECK(is_error);
    std::string_view text;
    REQUIRE(p->root["result"]["content"].at(0)["text"].get(text) == simdjson::SUCCESS);
    CHECK(text.find("\"io_error\"") != std::string_view::npos);
  }
}

TEST_CASE("tools/call without a tool name is invalid params", "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  CHECK(error_code(respond(server, R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})")) == -32602);
  CHECK(error_code(respond(
            server, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}})")) == -32602);
  CHECK(error_code(respond(
            server, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3}})")) ==
        -32602);
  CHECK(error_code(respond(
            server, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]})")) == -32602);
  CHECK(backend.calls.load() == 0);
}

TEST_CASE("malformed messages get the JSON-RPC error of their class", "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  struct Row {
    std::string line;
    std::int64_t code;
    std::string id;
  };
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  const std::vector<Row> rows = {
      {"{", -32700, "null"},
      {"not json", -32700, "null"},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} trailing", -32700, "null"},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xff\"}", -32700, "null"},  // invalid UTF-8
      {"{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}", -32700, "null"},
      {"5", -32600, "null"},
      {"\"ping\"", -32600, "null"},
      {"null", -32600, "null"},
      {R"({"jsonrpc":"1.0","id":4,"method":"ping"})", -32600, "4"},
      {R"({"id":4,"method":"ping"})", -32600, "4"},
      {R"({"jsonrpc":"2.0","id":4})", -32600, "4"},
      {R"({"jsonrpc":"2.0","id":4,"method":7})", -32600, "4"},
      {R"({"jsonrpc":"2.0","id":null,"method":"ping"})", -32600, "null"},
      {R"({"jsonrpc":"2.0","id":true,"method":"ping"})", -32600, "null"},
      {R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})", -32600, "null"},
      {R"({"jsonrpc":"2.0","id":9,"method":"resources/list"})", -32601, "9"},
      {R"({"jsonrpc":"2.0","id":9,"method":""})", -32601, "9"},
      {R"({"jsonrpc":"2.0","id":9,"method":"ping","params":"x"})", -32602, "9"},
      // Duplicate keys: JSON.parse keeps the last, this server read the first.
      {R"({"jsonrpc":"2.0","id":10,"method":"ping","id":11})", -32600, "null"},
      {R"({"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{},)"
       R"("name":"block"}})",
       -32602, "12"},
  };
  CHECK(deep.size() == 200);
  for (const Row& row : rows) {
    INFO(row.line);
    std::string response = respond(server, row.line);
    CHECK(error_code(response) == row.code);
    CHECK(id_of(response) == row.id);
  }
}

TEST_CASE("a message over the size limit is answered with an error and not parsed",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServerOptions options;
  options.max_message_bytes = 1024;
  McpServer server(backend, options);
  std::string big = call_line("1", "echo", "{\"text\":\"" + std::string(2000, 'x') + "\"}");
  CHECK(error_code(respond(server, big)) == -32600);
  CHECK(backend.calls.load() == 0);
  CHECK(error_code(respond(server, call_line("2", "echo", "{}"))) == 0);
}

TEST_CASE("batches are refused from protocol 2025-06-18 on and before initialize", "[agent][mcp]") {
  const std::string batch = R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])";
  {
    ScriptedBackend backend;
    McpServer server(backend, {});
    CHECK(error_code(respond(server, batch)) == -32600);
  }
  for (std::string_view version : {"2025-11-25", "2025-06-18"}) {
    ScriptedBackend backend;
    McpServer server(backend, {});
    respond(server, init_line(version));
    std::string response = respond(server, batch);
    CHECK(error_code(response) == -32600);
    CHECK(id_of(response) == "null");
  }
}

TEST_CASE("batches under 2025-03-26 and 2024-11-05 answer each request in order", "[agent][mcp]") {
  for (std::string_view version : {"2025-03-26", "2024-11-05"}) {
    ScriptedBackend backend;
    McpServer server(backend, {});
    respond(server, init_line(version));
    std::string response =
        respond(server, "[" + call_line("\"a\"", "echo", R"({"text":"1"})") +
                            R"(,{"jsonrpc":"2.0","method":"notifications/initialized"},)"
                            R"({"jsonrpc":"2.0","id":"b","method":"ping"},5,)"
                            R"({"jsonrpc":"2.0","id":"c","method":"nope"}])");
    auto p = parse(response);
    simdjson::dom::array replies;
    REQUIRE(p->root.get(replies) == simdjson::SUCCESS);
    REQUIRE(replies.size() == 4);  // the notification has no reply
    std::vector<std::string> ids;
    for (simdjson::dom::element r : replies) ids.push_back(simdjson::minify(r["id"]));
    CHECK(ids == std::vector<std::string>{"\"a\"", "\"b\"", "null", "\"c\""});
    std::int64_t code = 0;
    REQUIRE(replies.at(2)["error"]["code"].get(code) == simdjson::SUCCESS);
    CHECK(code == -32600);
    REQUIRE(replies.at(3)["error"]["code"].get(code) == simdjson::SUCCESS);
    CHECK(code == -32601);

    CHECK_FALSE(
        server.handle_message(R"([{"jsonrpc":"2.0","method":"notifications/initialized"}])"));
    CHECK(error_code(respond(server, "[]")) == -32600);
    std::string init_batch = "[" + init_line(version, 8) + "]";
    auto q = parse(respond(server, init_batch));
    std::int64_t init_code = 0;
    REQUIRE(q->root.at(0)["error"]["code"].get(init_code) == simdjson::SUCCESS);
    CHECK(init_code == -32600);
  }
}

TEST_CASE("number ids in a batch come back as written, as they do for a message alone",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  respond(server, init_line("2025-03-26"));
  // simdjson reads 1.0 as 1, 1e2 as 100, 1e-400 as 0 and 2^53 + 1 as a double when it is not an
  // int64; an integer past 64 bits not at all.
  const std::vector<std::string> ids = {"1.0",
                                        "1e2",
                                        "1E+2",
                                        "1e-400",
                                        "9007199254740993",
                                        "-0",
                                        "99999999999999999999",
                                        "123456789012345678901234567890.5"};
  std::string batch = "[";
  for (const std::string& id : ids) {
    if (batch.size() > 1) batch += " , ";
    // Spaces, nested params and a string holding brackets around each id.
    batch += R"({ "jsonrpc" : "2.0", "params" : {"a":[1,{"b":"]}"}]}, "id" : )" + id +
             R"( , "method":"ping"})";
  }
  batch += ",\n" + call_line("7.50", "echo", R"({"text":"x"})") + "]";
  const std::string response = respond(server, batch);
  for (const std::string& id : ids) {
    CAPTURE(id);
    CHECK(response.find("\"id\":" + id + ",") != std::string::npos);
  }
  CHECK(response.find("\"id\":7.50,") != std::string::npos);
  // A cancellation inside a batch names its request by the id as written too.
  ScriptedBackend blocking;
  McpServer second(blocking, {});
  respond(second, init_line("2025-03-26"));
  std::optional<std::string> blocked;
  std::thread call([&] { blocked = second.handle_message(call_line("1.0", "block", "{}")); });
  REQUIRE(blocking.wait_started(1));
  CHECK_FALSE(second.handle_message("[" + cancel_line("1.0") + "]"));
  call.join();
  CHECK(blocking.saw_cancel.load());
  CHECK_FALSE(blocked.has_value());
}

TEST_CASE("protocol versions before 2025-06-18 get no outputSchema, titles or structuredContent",
          "[agent][mcp]") {
  struct Expect {
    std::string_view version;
    bool annotations;
    bool newest_fields;  // Tool.title, Implementation.title, outputSchema, structuredContent
  };
  for (const Expect& e : {Expect{"2024-11-05", false, false}, Expect{"2025-03-26", true, false},
                          Expect{"2025-06-18", true, true}, Expect{"2025-11-25", true, true}}) {
    CAPTURE(e.version);
    ScriptedBackend backend;
    McpServer server(backend, {});
    // A tools/list before initialize must not decide the fields of the one after it.
    respond(server, R"({"jsonrpc":"2.0","id":9,"method":"tools/list"})");
    auto init = parse(respond(server, init_line(e.version)));
    simdjson::dom::element ignored;
    CHECK((init->root["result"]["serverInfo"]["title"].get(ignored) == simdjson::SUCCESS) ==
          e.newest_fields);
    auto list = parse(respond(server, R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"));
    simdjson::dom::array tools;
    REQUIRE(list->root["result"]["tools"].get(tools) == simdjson::SUCCESS);
    for (simdjson::dom::element tool : tools) {
      CHECK(tool["name"].get(ignored) == simdjson::SUCCESS);
      CHECK(tool["description"].get(ignored) == simdjson::SUCCESS);
      CHECK(tool["inputSchema"].get(ignored) == simdjson::SUCCESS);
      CHECK((tool["annotations"].get(ignored) == simdjson::SUCCESS) == e.annotations);
      CHECK((tool["title"].get(ignored) == simdjson::SUCCESS) == e.newest_fields);
      CHECK((tool["outputSchema"].get(ignored) == simdjson::SUCCESS) == e.newest_fields);
    }
    for (std::string_view tool : {"echo", "escaped_json"}) {
      auto call = parse(respond(server, call_line("3", tool, R"({"text":"hi"})")));
      std::string_view text;
      REQUIRE(call->root["result"]["content"].at(0)["text"].get(text) == simdjson::SUCCESS);
      CHECK_FALSE(text.empty());
      bool is_error = true;
      REQUIRE(call->root["result"]["isError"].get(is_error) == simdjson::SUCCESS);
      CHECK_FALSE(is_error);
      CHECK((call->root["result"]["structuredContent"].get(ignored) == simdjson::SUCCESS) ==
            e.newest_fields);
    }
  }
}

TEST_CASE("a batch larger than the element limit is refused whole", "[agent][mcp]") {
  ScriptedBackend backend;
  McpServerOptions options;
  options.max_batch_elements = 3;
  McpServer server(backend, options);
  respond(server, init_line("2025-03-26"));
  std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  CHECK(error_code(respond(server, "[" + ping + "," + ping + "," + ping + "," + ping + "]")) ==
        -32600);
}

TEST_CASE("notifications/cancelled stops the running call and suppresses its response",
          "[agent][mcp][cancel]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  std::optional<std::string> blocked_reply = std::string("unset");
  std::thread caller([&] { blocked_reply = server.handle_message(call_line("7", "block", "{}")); });
  REQUIRE(backend.wait_started(1));
  // While it runs, its id is taken; a cancel for another id (or "7" as a string) does nothing.
  CHECK(error_code(respond(server, call_line("7", "echo", "{}"))) == -32600);
  CHECK_FALSE(server.handle_message(cancel_line("\"7\"")));
  CHECK_FALSE(server.handle_message(cancel_line("8")));
  std::this_thread::sleep_for(20ms);
  CHECK_FALSE(backend.saw_cancel.load());
  CHECK_FALSE(server.handle_message(cancel_line("7")));
  caller.join();
  CHECK(backend.saw_cancel.load());
  CHECK_FALSE(blocked_reply.has_value());
  // The id is free again once the call is over.
  CHECK(error_code(respond(server, call_line("7", "echo", "{}"))) == 0);
  // A number id written otherwise than simdjson reads it is found by its text.
  std::thread exponent(
      [&] { blocked_reply = server.handle_message(call_line("1e3", "block", "{}")); });
  REQUIRE(backend.wait_started(2));
  CHECK_FALSE(server.handle_message(cancel_line("1e3")));
  exponent.join();
  CHECK_FALSE(blocked_reply.has_value());
}

// ------------------------------------------------------------------------------------------------
// The stdio loop

namespace {

struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  void close_read() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
  // Writes all of `text`; false when a write fails. Safe on any thread (no Catch2 assertion:
  // Catch2 is not thread-safe).
  [[nodiscard]] bool try_send(std::string_view text) const {
    while (!text.empty()) {
      ssize_t n = ::write(write, text.data(), text.size());
      if (n <= 0) return false;
      text.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  void send(std::string_view text) const { REQUIRE(try_send(text)); }
};

// McpServer::run on its own thread between two pipes: a test writes to `in` and reads `out`.
// finish() ends the input, waits for the loop and closes the output's write end (so reading
// `out` sees the end), and returns run's status; the destructor finishes a loop a failed REQUIRE
// left running.
class StdioLoop {
 public:
  explicit StdioLoop(McpServer& server)
      : thread_([this, &server] { status_ = server.run(in.read, out.write); }) {}
  ~StdioLoop() { finish(); }
  StdioLoop(const StdioLoop&) = delete;
  StdioLoop& operator=(const StdioLoop&) = delete;

  int finish() {
    if (thread_.joinable()) {
      in.close_write();
      thread_.join();
      out.close_write();
    }
    return status_;
  }

  Pipe in, out;

 private:
  int status_ = -1;
  std::thread thread_;
};

// Lines from a descriptor, one at a time, each within a time limit.
class LineSource {
 public:
  explicit LineSource(int fd) : fd_(fd) {}
  // The next line (without '\n'), or "" when none arrived within `limit` or the input ended.
  std::string next(std::chrono::milliseconds limit) {
    const auto give_up = std::chrono::steady_clock::now() + limit;
    while (true) {
      if (std::size_t nl = buf_.find('\n'); nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          give_up - std::chrono::steady_clock::now());
      if (left.count() <= 0) return {};
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char chunk[65536];
      const ssize_t n = ::read(fd_, chunk, sizeof chunk);
      if (n <= 0) return {};
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buf_;
};

// Reads lines from `fd` until `count` lines arrived or 10 s passed.
std::vector<std::string> read_lines(int fd, std::size_t count) {
  std::vector<std::string> lines;
  std::string buf;
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  while (lines.size() < count && std::chrono::steady_clock::now() < give_up) {
    char chunk[4096];
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0) break;
    buf.append(chunk, static_cast<std::size_t>(n));
    std::size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      lines.push_back(buf.substr(0, nl));
      buf.erase(0, nl + 1);
    }
  }
  return lines;
}

}  // namespace

TEST_CASE("the stdio loop reads a cancellation while a call runs and answers the rest",
          "[agent][mcp][cancel]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  StdioLoop loop(server);
  Pipe& in = loop.in;
  Pipe& out = loop.out;
  in.send(init_line("2025-11-25") + "\n");
  in.send(call_line("10", "block", "{}") + "\n");
  REQUIRE(backend.wait_started(1));
  in.send(R"({"jsonrpc":"2.0","id":11,"method":"ping"})"
          "\n");
  in.send(cancel_line("10") + "\n" + call_line("12", "echo", "{}") + "\n");
  CHECK(loop.finish() == 0);
  std::vector<std::string> lines = read_lines(out.read, 10);
  std::vector<std::string> ids;
  for (const std::string& line : lines) ids.push_back(id_of(line));
  std::sort(ids.begin(), ids.end());
  CHECK(ids == std::vector<std::string>{"1", "11", "12"});  // nothing for the cancelled 10
  CHECK(backend.saw_cancel.load());
}

// Whether the tools/call response `line` came from the scripted "quick" tool run inline.
bool ran_inline(const std::string& line) {
  auto p = parse(line);
  bool value = false;
  REQUIRE(p->root["result"]["structuredContent"]["inline"].get(value) == simdjson::SUCCESS);
  return value;
}

TEST_CASE("a quick call runs on the reading thread when nothing is queued behind it",
          "[agent][mcp][inline]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  StdioLoop loop(server);
  LineSource source(loop.out.read);
  loop.in.send(call_line("1", "quick", "{}") + "\n");
  const std::string first = source.next(10s);
  REQUIRE_FALSE(first.empty());
  CHECK(id_of(first) == "1");
  CHECK(ran_inline(first));
  // A tool the backend does not mark quick goes to a worker as before.
  loop.in.send(call_line("2", "echo", "{}") + "\n");
  CHECK(id_of(source.next(10s)) == "2");
  CHECK(backend.inline_calls.load() == 1);
  CHECK(loop.finish() == 0);
}

TEST_CASE("pipelined quick calls run side by side on the workers, not one by one inline",
          "[agent][mcp][inline]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  StdioLoop loop(server);
  std::string batch;
  for (int id = 1; id <= 8; ++id) batch += call_line(std::to_string(id), "quick", "{}") + "\n";
  REQUIRE(batch.size() < PIPE_BUF);  // one write the loop reads at once
  loop.in.send(batch);
  std::vector<std::string> lines = read_lines(loop.out.read, 8);
  REQUIRE(lines.size() == 8);
  int on_workers = 0;
  for (const std::string& line : lines) on_workers += ran_inline(line) ? 0 : 1;
  // Each of the first seven had another call buffered behind it; the last may run inline.
  CHECK(on_workers >= 7);
  CHECK(loop.finish() == 0);
}

TEST_CASE("with inline_quick_calls off every call goes to a worker", "[agent][mcp][inline]") {
  ScriptedBackend backend;
  McpServerOptions options;
  options.inline_quick_calls = false;
  McpServer server(backend, options);
  StdioLoop loop(server);
  LineSource source(loop.out.read);
  loop.in.send(call_line("1", "quick", "{}") + "\n");
  const std::string first = source.next(10s);
  REQUIRE_FALSE(first.empty());
  CHECK_FALSE(ran_inline(first));
  CHECK(backend.inline_calls.load() == 0);
  CHECK(loop.finish() == 0);
}

TEST_CASE(
    "an inline call is cancelled through its poller, and a ping and a call sent meanwhile "
    "are answered while it runs",
    "[agent][mcp][inline][cancel]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  StdioLoop loop(server);
  LineSource source(loop.out.read);
  loop.in.send(call_line("10", "block_inline", "{}") + "\n");
  REQUIRE(backend.wait_started(1));
  // The reading thread is inside the call: only its poller can read these.
  loop.in.send(R"({"jsonrpc":"2.0","id":11,"method":"ping"})"
               "\n");
  CHECK(id_of(source.next(10s)) == "11");
  loop.in.send(call_line("12", "echo", "{}") + "\n");
  CHECK(id_of(source.next(10s)) == "12");  // run by a worker while 10 still blocks
  CHECK_FALSE(backend.saw_cancel.load());
  loop.in.send(cancel_line("10") + "\n" +
               R"({"jsonrpc":"2.0","id":13,"method":"ping"})"
               "\n");
  CHECK(id_of(source.next(10s)) == "13");
  CHECK(loop.finish() == 0);
  CHECK(backend.saw_cancel.load());
  CHECK(backend.inline_calls.load() == 1);
  CHECK(source.next(200ms).empty());  // nothing for the cancelled 10
}

TEST_CASE("end of input read by an inline call's poller ends the loop once the call returns",
          "[agent][mcp][inline]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  StdioLoop loop(server);
  loop.in.send(call_line("10", "block_inline", "{}") + "\n");
  REQUIRE(backend.wait_started(1));
  loop.in.send(cancel_line("10") + "\n");
  CHECK(loop.finish() == 0);  // closes the input while the poller may still be reading
  CHECK(backend.saw_cancel.load());
  CHECK(read_lines(loop.out.read, 1).empty());
}

TEST_CASE("the stdio loop skips an oversized line without buffering it and carries on",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServerOptions options;
  options.max_message_bytes = 4096;
  McpServer server(backend, options);
  StdioLoop loop(server);
  Pipe& in = loop.in;
  Pipe& out = loop.out;
  std::atomic<bool> sent_all{true};
  std::thread writer([&] {
    // 1 MiB on one line, in pieces, then a normal message and a last line without '\n'.
    std::string piece(64 << 10, 'x');
    bool ok = in.try_send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"p\":\"");
    for (int i = 0; i < 16; ++i) ok = ok && in.try_send(piece);
    ok = ok && in.try_send("\"}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\n");
    ok = ok && in.try_send(R"({"jsonrpc":"2.0","id":3,"method":"ping"})");
    sent_all = ok;
    in.close_write();
  });
  std::vector<std::string> lines = read_lines(out.read, 3);
  writer.join();
  CHECK(sent_all);
  CHECK(loop.finish() == 0);
  REQUIRE(lines.size() == 3);
  CHECK(error_code(lines[0]) == -32600);
  CHECK(id_of(lines[0]) == "null");
  CHECK(id_of(lines[1]) == "2");
  CHECK(error_code(lines[1]) == 0);
  CHECK(id_of(lines[2]) == "3");
}

TEST_CASE("the stdio loop ends with status 2 when its output is closed", "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  ::signal(SIGPIPE, SIG_IGN);  // as ctxsearch's main does: a closed pipe is EPIPE, not death
  Pipe in, out;
  out.close_read();
  std::string pings;
  for (int i = 0; i < 100; ++i)
    pings += R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
             "\n";
  in.send(pings);
  in.close_write();
  CHECK(server.run(in.read, out.write) == 2);
}

TEST_CASE("the stdio loop answers many concurrent calls exactly once each", "[agent][mcp]") {
  ScriptedBackend backend;
  McpServerOptions options;
  options.max_queued_calls = 4;  // calls beyond 8 in flight are refused, never queued
  McpServer server(backend, options);
  StdioLoop loop(server);
  Pipe& in = loop.in;
  Pipe& out = loop.out;
  std::atomic<bool> sent_all{true};
  std::thread writer([&] {
    for (int i = 0; i < 200 && sent_all; ++i) {
      sent_all = in.try_send(call_line(std::to_string(i), "echo", "{}") + "\n");
    }
    in.close_write();
  });
  std::vector<std::string> lines = read_lines(out.read, 200);
  writer.join();
  CHECK(sent_all);
  CHECK(loop.finish() == 0);
  REQUIRE(lines.size() == 200);
  std::vector<int> seen(200, 0);
  for (const std::string& line : lines) {
    ++seen[static_cast<std::size_t>(std::stoi(id_of(line)))];
    const std::int64_t code = error_code(line);
    CHECK((code == 0 || code == ctx::agent::kServerBusy));
  }
  CHECK(std::count(seen.begin(), seen.end(), 1) == 200);
}

TEST_CASE("a cancellation for a request that already finished is ignored; its id can be reused",
          "[agent][mcp][cancel]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  CHECK(error_code(respond(server, call_line("7", "echo", "{}"))) == 0);
  CHECK_FALSE(server.handle_message(cancel_line("7")));
  CHECK_FALSE(server.handle_message(cancel_line("\"never-sent\"")));
  CHECK_FALSE(server.handle_message(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[1]}})"));
  CHECK_FALSE(server.handle_message(R"({"jsonrpc":"2.0","method":"notifications/cancelled"})"));
  // The stale cancellation does not cancel the next request that uses the same id.
  std::string again = respond(server, call_line("7", "echo", "{}"));
  CHECK(error_code(again) == 0);
  CHECK(id_of(again) == "7");
  CHECK(backend.calls.load() == 2);
}

TEST_CASE("a call cancelled while it waits in the queue never runs and gets no response",
          "[agent][mcp][cancel]") {
  ScriptedBackend backend;
  McpServerOptions options;
  options.workers = 1;
  McpServer server(backend, options);
  StdioLoop loop(server);
  Pipe& in = loop.in;
  Pipe& out = loop.out;
  in.send(call_line("20", "block", "{}") + "\n");
  REQUIRE(backend.wait_started(1));
  // The only worker is busy: 21 waits in the queue, is cancelled there, then 20 is cancelled.
  in.send(call_line("21", "echo", "{}") + "\n" + cancel_line("21") + "\n" + cancel_line("20") +
          "\n" + R"({"jsonrpc":"2.0","id":22,"method":"ping"})" + "\n");
  CHECK(loop.finish() == 0);
  std::vector<std::string> lines = read_lines(out.read, 10);
  REQUIRE(lines.size() == 1);
  CHECK(id_of(lines[0]) == "22");
  CHECK(backend.calls.load() == 1);  // only the blocking call reached the backend
}

TEST_CASE("a cancellation and a ping behind a full queue of slow calls are handled at once",
          "[agent][mcp][cancel][flood]") {
  ScriptedBackend backend;
  McpServerOptions options;
  options.workers = 1;
  options.max_queued_calls = 2;  // at most 3 calls in flight: 1 running, 2 queued
  McpServer server(backend, options);
  StdioLoop loop(server);
  Pipe& in = loop.in;
  Pipe& out = loop.out;
  in.send(call_line("1", "block", "{}") + "\n");
  REQUIRE(backend.wait_started(1));
  in.send(call_line("2", "block", "{}") + "\n" + call_line("3", "block", "{}") + "\n");
  // The queue is full of calls that end only when cancelled (or after 10 s). Behind them: a call
  // with no room, a ping and the cancellation of the running call.
  const auto sent = std::chrono::steady_clock::now();
  in.send(call_line("4", "block", "{}") + "\n" + R"({"jsonrpc":"2.0","id":5,"method":"ping"})" +
          "\n" + cancel_line("1") + "\n");
  LineSource replies(out.read);
  const std::string refused = replies.next(5s);
  const std::string pong = replies.next(5s);
  // The cancellation reached the running call: the worker let it go and took call 2.
  REQUIRE(backend.wait_started(2));
  const auto took = std::chrono::steady_clock::now() - sent;
  INFO("ms from sending the cancellation to the worker taking the next call: "
       << std::chrono::duration_cast<std::chrono::milliseconds>(took).count());
  CHECK(took < 3s);  // generous for a loaded machine; the old blocking reader took 10 s
  CHECK(backend.saw_cancel.load());
  CHECK(id_of(refused) == "4");
  CHECK(error_code(refused) == ctx::agent::kServerBusy);
  auto r = parse(refused);
  std::string_view message;
  REQUIRE(r->root["error"]["message"].get(message) == simdjson::SUCCESS);
  CHECK(message.find("server busy: 3 tool calls in flight") != std::string_view::npos);
  CHECK(message.find("Retry") != std::string_view::npos);
  std::uint64_t in_flight = 0, max_in_flight = 0;
  bool retry = false;
  CHECK(r->root["error"]["data"]["in_flight"].get(in_flight) == simdjson::SUCCESS);
  CHECK(r->root["error"]["data"]["max_in_flight"].get(max_in_flight) == simdjson::SUCCESS);
  CHECK(r->root["error"]["data"]["retry"].get(retry) == simdjson::SUCCESS);
  CHECK(in_flight == 3);
  CHECK(max_in_flight == 3);
  CHECK(retry);
  CHECK(id_of(pong) == "5");
  CHECK(error_code(pong) == 0);
  // Room again (2 running, 3 queued): a new call is taken (its id 4 is free to reuse) and runs
  // once 3 is cancelled in the queue and 2 where it runs.
  in.send(call_line("4", "echo", "{}") + "\n" + cancel_line("3") + "\n" + cancel_line("2") + "\n");
  const std::string echoed = replies.next(5s);
  CHECK(id_of(echoed) == "4");
  CHECK(error_code(echoed) == 0);
  CHECK(loop.finish() == 0);
  CHECK(replies.next(1s).empty());   // nothing for the cancelled 1, 2 and 3
  CHECK(backend.calls.load() == 3);  // 1, 2 and the echo: 4 was refused, 3 never ran
}

TEST_CASE("a flood of calls past the in-flight bound gets busy errors at once, in bounded memory",
          "[agent][mcp][flood]") {
  ScriptedBackend backend;
  McpServerOptions options;
  options.workers = 2;
  options.max_queued_calls = 3;
  McpServer server(backend, options);
  StdioLoop loop(server);
  Pipe& in = loop.in;
  Pipe& out = loop.out;
  // Five calls that block fill the workers and the queue.
  for (int i = 0; i < 5; ++i) in.send(call_line(std::to_string(i), "block", "{}") + "\n");
  REQUIRE(backend.wait_started(2));
  // Then 2,000 calls of 32 KiB each (62.5 MiB): a server that queued them would hold them all.
  constexpr int kFlood = 2000;
  const std::string padding(32 << 10, 'p');
  const long rss_before = ctx::testing::proc_status_kib("VmRSS");
  std::atomic<bool> sent_all{true};
  std::thread sender([&] {
    for (int i = 0; i < kFlood && sent_all; ++i) {
      if (!in.try_send(
              call_line(std::to_string(100 + i), "echo", R"({"pad":")" + padding + R"("})") +
              "\n")) {
        sent_all = false;
      }
    }
  });
  LineSource replies(out.read);
  std::vector<int> seen(kFlood, 0);
  int busy = 0;
  for (int i = 0; i < kFlood; ++i) {
    const std::string line = replies.next(20s);
    if (line.empty()) break;
    const int id = std::stoi(id_of(line));
    if (id < 100 || id >= 100 + kFlood) continue;
    ++seen[static_cast<std::size_t>(id - 100)];
    if (error_code(line) == ctx::agent::kServerBusy) ++busy;
  }
  const long rss_after = ctx::testing::proc_status_kib("VmRSS");
  // Every flood call was refused while the five blocked: none finished, none was queued.
  CHECK(busy == kFlood);
  CHECK(std::count(seen.begin(), seen.end(), 1) == kFlood);
  CHECK_FALSE(backend.saw_cancel.load());
  CHECK(backend.calls.load() == 2);
  sender.join();
  CHECK(sent_all);
  std::string cancels;
  for (int i = 0; i < 5; ++i) cancels += cancel_line(std::to_string(i)) + "\n";
  in.send(cancels);
  CHECK(loop.finish() == 0);
  CHECK(replies.next(1s).empty());  // the cancelled five get no response
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  // The sanitizers keep freed memory in quarantine, so RSS means something only without them.
  INFO("RSS before the flood " << rss_before << " KiB, after " << rss_after << " KiB");
  CHECK(rss_after - rss_before < 24L * 1024);
#else
  (void)rss_before;
  (void)rss_after;
#endif
}

TEST_CASE("end of input while calls run: the loop finishes them, answers, and returns 0",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  Pipe in, out;
  in.send(init_line("2025-11-25") + "\n");
  for (int i = 2; i <= 4; ++i) in.send(call_line(std::to_string(i), "sleep", "{}") + "\n");
  in.close_write();  // end of input right away, before the calls are done
  const auto start = std::chrono::steady_clock::now();
  const int status = server.run(in.read, out.write);
  const auto took = std::chrono::steady_clock::now() - start;
  out.close_write();
  CHECK(status == 0);
  CHECK(took >= 90ms);  // it waited for the sleeping calls
  CHECK(took < 5s);
  CHECK(backend.sleeps_done.load() == 3);
  std::vector<std::string> lines = read_lines(out.read, 10);
  std::vector<std::string> ids;
  for (const std::string& line : lines) {
    CHECK(error_code(line) == 0);
    ids.push_back(id_of(line));
  }
  std::sort(ids.begin(), ids.end());
  CHECK(ids == std::vector<std::string>{"1", "2", "3", "4"});
}

TEST_CASE("hostile bytes and nesting get a JSON-RPC error or a clean result, always valid UTF-8",
          "[agent][mcp][hostile]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  struct Row {
    std::string line;
    std::int64_t code;  // the expected JSON-RPC error, 0: a result
  };
  const std::string call = R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":)";
  const std::vector<Row> rows = {
      {call + "{\"name\":\"echo\",\"arguments\":{\"text\":\"\xff\xfe\"}}}", -32700},
      {call + "{\"name\":\"echo\",\"arguments\":{\"\xc3\":1}}}", -32700},          // cut sequence
      {call + "{\"name\":\"echo\",\"arguments\":{\"t\":\"\xc0\xaf\"}}}", -32700},  // overlong
      {call + "{\"name\":\"echo\",\"arguments\":{\"t\":\"\xed\xa0\x80\"}}}", -32700},  // surrogate
      {call + "{\"name\":\"ec\xf0\x9fho\"}}", -32700},
      {std::string("{\"jsonrpc\":\"2.0\",\0\"id\":1,\"method\":\"ping\"}", 41), -32700},
      {call + "{\"name\":\"echo\",\"arguments\":" + std::string(1000, '[') +
           std::string(1000, ']') + "}}",
       -32700},
      {std::string(1 << 20, '['), -32700},
      {std::string(1 << 20, '{'), -32700},
      // Escapes are fine: a lone surrogate escape is refused by the parser or passed on, and
      // either way the reply is valid UTF-8.
      {call + R"({"name":"echo","arguments":{"t":"\u0000\u00e9\ud83d\ude00"}}})", 0},
  };
  for (const Row& row : rows) {
    INFO(row.line.substr(0, 120));
    std::string response = respond(server, row.line);
    CHECK(simdjson::validate_utf8(response.data(), response.size()));
    CHECK(error_code(response) == row.code);
  }
  std::string lone = respond(server, call + R"({"name":"echo","arguments":{"t":"\ud800x"}}})");
  CHECK(simdjson::validate_utf8(lone.data(), lone.size()));
  const std::int64_t lone_code = error_code(lone);
  CHECK((lone_code == 0 || lone_code == -32700));
  // The server is still healthy after all of it.
  CHECK(error_code(respond(server, R"({"jsonrpc":"2.0","id":9,"method":"ping"})")) == 0);
}

// ------------------------------------------------------------------------------------------------
// The registry backend and the audit log

namespace {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ctx-mcp-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

std::vector<std::string> file_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("the registry backend serves the real tool list and reports unknown tools as results",
          "[agent][mcp]") {
  TempDir dir;
  auto sandbox = ctx::agent::Sandbox::open(dir.path.string());
  REQUIRE(sandbox.ok());
  auto policy = ctx::agent::Policy::build({});
  REQUIRE(policy.ok());
  ctx::agent::AgentConfig config;
  ctx::agent::SessionState session;
  auto log = AuditLog::open((dir.path / "audit.jsonl").string());
  REQUIRE(log.ok());
  ctx::agent::RegistryBackend backend(*sandbox, *policy, config, &session, log->get());
  McpServer server(backend, {});

  auto p = parse(respond(server, R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"));
  simdjson::dom::array tools;
  REQUIRE(p->root["result"]["tools"].get(tools) == simdjson::SUCCESS);
  std::vector<std::string> names;
  for (simdjson::dom::element tool : tools) {
    names.emplace_back(tool["name"].get_string().value());
  }
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"file_info", "find_files", "list_directory", "read_file",
                                          "search_files"});

  auto q = parse(respond(server, call_line("2", "no_such_tool", R"({"a": [1, 2]})")));
  bool is_error = false;
  REQUIRE(q->root["result"]["isError"].get(is_error) == simdjson::SUCCESS);
  CHECK(is_error);
  std::string_view text;
  REQUIRE(q->root["result"]["content"].at(0)["text"].get(text) == simdjson::SUCCESS);
  CHECK(text.find("invalid_argument") != std::string_view::npos);
  CHECK(text.find("read_file") != std::string_view::npos);  // the valid names are listed

  std::vector<std::string> lines = file_lines(dir.path / "audit.jsonl");
  REQUIRE(lines.size() == 1);
  auto r = parse(lines[0]);
  std::string_view tool, error;
  bool ok = true;
  REQUIRE(r->root["tool"].get(tool) == simdjson::SUCCESS);
  REQUIRE(r->root["ok"].get(ok) == simdjson::SUCCESS);
  REQUIRE(r->root["error"].get(error) == simdjson::SUCCESS);
  CHECK(tool == "no_such_tool");
  CHECK_FALSE(ok);
  CHECK(error == "invalid_argument");
  CHECK(simdjson::minify(r->root["arguments"]) == R"({"a":[1,2]})");
}

TEST_CASE(
    "the registry backend runs the one-file tools inline and gives a long read's poller "
    "turns, which can cancel it",
    "[agent][mcp][inline][cancel]") {
  TempDir dir;
  {
    // 1M short lines: skipping to the last one takes far longer than a poll interval.
    std::ofstream out(dir.path / "long.txt", std::ios::binary);
    const std::string lines(8 << 20, '\n');
    out.write(lines.data(), static_cast<std::streamsize>(lines.size()));
  }
  auto sandbox = ctx::agent::Sandbox::open(dir.path.string());
  REQUIRE(sandbox.ok());
  auto policy = ctx::agent::Policy::build({});
  REQUIRE(policy.ok());
  ctx::agent::AgentConfig config;
  ctx::agent::RegistryBackend backend(*sandbox, *policy, config, nullptr, nullptr);
  CHECK(backend.runs_inline("read_file"));
  CHECK(backend.runs_inline("file_info"));
  CHECK(backend.runs_inline("list_directory"));
  CHECK_FALSE(backend.runs_inline("search_files"));
  CHECK_FALSE(backend.runs_inline("find_files"));

  // Cancels the call on its first turn, as a notifications/cancelled read by a poll would.
  struct CancellingPoller final : ctx::agent::CallPoller {
    std::atomic<bool> cancelled{false};
    int turns = 0;
    void poll() override {
      ++turns;
      cancelled.store(true);
    }
  } poller;
  auto outcome = backend.call("read_file", R"({"path":"long.txt","offset":8388608})",
                              poller.cancelled, &poller);
  CHECK(poller.turns >= 1);
  REQUIRE_FALSE(outcome.ok());  // stopped while skipping to the offset
  CHECK(outcome.error().code == ToolErrorCode::kTimeout);

  // Without the cancellation the same read reaches its line (and took longer than the
  // cancelled one had to).
  std::atomic<bool> never{false};
  const auto start2 = std::chrono::steady_clock::now();
  auto whole = backend.call("read_file", R"({"path":"long.txt","offset":8388608})", never, nullptr);
  const auto took2 = std::chrono::steady_clock::now() - start2;
  REQUIRE(whole.ok());
  CHECK(whole->text.find("8388608") != std::string::npos);
  CHECK(took2 > ctx::agent::CallPoller::kPollInterval);
}

TEST_CASE("the stdio loop runs real tools on every worker at once, with cancellations",
          "[agent][mcp][tsan]") {
  // The configuration ThreadSanitizer should see: the reader parsing while four workers run the
  // registry's tools (argument parsing, walks, searches, the shared session's cursor cache, the
  // audit log) and cancellations land mid-call.
  TempDir dir;
  for (int d = 0; d < 8; ++d) {
    for (int f = 0; f < 25; ++f) {
      std::ofstream(dir.path / ("d" + std::to_string(d) + "_" + std::to_string(f) + ".txt"))
          << "alpha " << f << "\nneedle " << d << "\nomega\n";
    }
  }
  auto sandbox = ctx::agent::Sandbox::open(dir.path.string());
  REQUIRE(sandbox.ok());
  auto policy = ctx::agent::Policy::build({});
  REQUIRE(policy.ok());
  ctx::agent::AgentConfig config;
  ctx::agent::SessionState session;
  TempDir log_dir;
  auto log = AuditLog::open((log_dir.path / "audit.jsonl").string());
  REQUIRE(log.ok());
  ctx::agent::RegistryBackend backend(*sandbox, *policy, config, &session, log->get());
  McpServer server(backend, {});
  StdioLoop loop(server);
  Pipe& in = loop.in;
  Pipe& out = loop.out;
  const std::vector<std::pair<std::string, std::string>> calls = {
      {"search_files", R"({"pattern":"needle","max_results":3})"},
      {"search_files", R"({"pattern":"alpha \\d+","output_mode":"count"})"},
      {"find_files", R"({"pattern":"*.txt","max_results":5})"},
      {"list_directory", R"({"max_results":7})"},
      {"read_file", R"({"path":"d1_1.txt"})"},
      {"file_info", R"({"path":"d2_2.txt"})"},
  };
  constexpr int kRounds = 60;
  std::string script = init_line("2025-11-25") + "\n";
  for (int i = 0; i < kRounds; ++i) {
    const auto& [tool, args] = calls[static_cast<std::size_t>(i) % calls.size()];
    script += call_line(std::to_string(100 + i), tool, args) + "\n";
    if (i % 5 == 4) script += cancel_line(std::to_string(100 + i - 1)) + "\n";
  }
  std::atomic<bool> sent_all{true};
  std::thread sender([&] {
    sent_all = in.try_send(script);
    in.close_write();
  });
  // Read until the loop is done (cancelled calls may get no answer, so the count is unknown).
  std::vector<std::string> lines;
  std::thread reader([&] { lines = read_lines(out.read, kRounds + 10); });
  sender.join();
  CHECK(sent_all);
  const int status = loop.finish();
  reader.join();
  CHECK(status == 0);
  // Every call is answered once, except that a cancelled one may go unanswered.
  std::vector<int> seen(kRounds, 0);
  for (const std::string& line : lines) {
    CHECK(error_code(line) == 0);
    const int id = std::stoi(id_of(line));
    if (id >= 100) ++seen[static_cast<std::size_t>(id - 100)];
  }
  for (int i = 0; i < kRounds; ++i) {
    INFO("call " << 100 + i);
    CHECK(seen[static_cast<std::size_t>(i)] <= 1);
    if (i % 5 != 3) CHECK(seen[static_cast<std::size_t>(i)] == 1);
  }
  // One audit line per call that ran: all but those cancelled before a worker took them.
  const std::size_t logged = file_lines(log_dir.path / "audit.jsonl").size();
  CHECK(logged >= static_cast<std::size_t>(kRounds - kRounds / 5));
  CHECK(logged <= static_cast<std::size_t>(kRounds));
}

TEST_CASE("an audit record holds time, tool, arguments, outcome, sizes and duration",
          "[agent][mcp][audit]") {
  ToolOutput out;
  out.structured = "{\"x\":1}";
  out.text = "hello";
  out.tokens = 2;
  out.truncated = true;
  out.policy_hidden = 3;
  const Expected<ToolOutput> outcome = out;
  const auto time =
      std::chrono::system_clock::time_point(std::chrono::milliseconds(1'700'000'000'123));
  std::string line =
      AuditLog::format(AuditRecord{time, "read_file", "{\"path\": \"a\"}", &outcome, false, 1.5});
  REQUIRE(!line.empty());
  CHECK(line.back() == '\n');
  line.pop_back();
  CHECK(line == R"({"time":"2023-11-14T22:13:20.123Z","tool":"read_file","arguments":{"path":"a"},)"
                R"("ok":true,"error":null,"result_bytes":12,"tokens":2,"truncated":true,)"
                R"("policy_hidden":3,"cancelled":false,"duration_ms":1.500})");

  const Expected<ToolOutput> failed = ToolError{ToolErrorCode::kTimeout, "m", "h"};
  std::string bad_args = AuditLog::format(AuditRecord{time, "t", "not json\n", &failed, true, 2});
  CHECK(bad_args.find(R"("arguments":"not json\n")") != std::string::npos);
  CHECK(bad_args.find(R"("ok":false,"error":"timeout")") != std::string::npos);
  CHECK(bad_args.find(R"("cancelled":true)") != std::string::npos);
  CHECK(std::count(bad_args.begin(), bad_args.end(), '\n') == 1);
}

TEST_CASE("the audit log appends one line per record and never truncates", "[agent][mcp][audit]") {
  TempDir dir;
  const auto path = dir.path / "log.jsonl";
  { std::ofstream(path) << "earlier line\n"; }
  const Expected<ToolOutput> outcome = ToolOutput{};
  {
    auto log = AuditLog::open(path.string());
    REQUIRE(log.ok());
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < 50; ++i) {
          (*log)->record(AuditRecord{std::chrono::system_clock::now(), "find_files", "{}", &outcome,
                                     false, 0.1});
        }
      });
    }
    for (std::thread& t : threads) t.join();
  }
  std::vector<std::string> lines = file_lines(path);
  REQUIRE(lines.size() == 201);
  CHECK(lines[0] == "earlier line");
  for (std::size_t i = 1; i < lines.size(); ++i) parse(lines[i]);
  CHECK_FALSE(AuditLog::open((dir.path / "missing" / "x").string()).ok());
  CHECK_FALSE(AuditLog::open(dir.path.string()).ok());
}

TEST_CASE("a tool's text_json is sent as its text, byte for byte what escaping the text gives",
          "[agent][mcp]") {
  ScriptedBackend backend;
  McpServer server(backend, {});
  const std::string escaped = respond(server, call_line("7", "escaped", "{}"));
  const std::string handed = respond(server, call_line("7", "escaped_json", "{}"));
  CHECK(handed == escaped);
  auto p = parse(handed);
  std::string_view text;
  REQUIRE(p->root["result"]["content"].at(0)["text"].get(text) == simdjson::SUCCESS);
  CHECK(text == "a\"b\\c\td\r\n\x01\x1f\x7f caf\xC3\xA9 \xE2\x80\xA8 end");
}
