// libFuzzer target for the MCP server's message handling: each input line goes through
// McpServer::handle_message (a fresh server per input; the first byte may initialize it with one
// of the protocol versions first, so version-dependent paths such as batches are reachable). It
// traps when a reply is not exactly one line of valid JSON, or is not a JSON-RPC 2.0 response (an
// object, or for a batch an array of objects, each with "jsonrpc":"2.0", an id that is a string,
// an integer or null, and exactly one of "result" and "error" whose code is an integer and
// message a string), or when a well-formed notification (no "id") gets a reply.
// The backend parses arguments against a parameter table as the real tools do and echoes them
// in its text, so arbitrary bytes reach the result rendering too.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/agent/mcp_server.hpp"
#include "ctx/agent/tool_args.hpp"

namespace {

using ctx::agent::Expected;
using ctx::agent::ParamSpec;
using ctx::agent::ParamType;
using ctx::agent::ToolError;
using ctx::agent::ToolErrorCode;
using ctx::agent::ToolOutput;
using ctx::agent::ToolSpec;

const std::vector<ParamSpec>& params() {
  static const std::vector<ParamSpec> table = {
      {"path", ParamType::kString, "a path", true, {"file_path"}},
      {"limit", ParamType::kInteger, "a count", false, {"max"}, {}, 1, 100},
      {"mode", ParamType::kString, "a mode", false, {}, {"a", "b"}},
      {"flag", ParamType::kBoolean, "a flag"},
  };
  return table;
}

class FuzzBackend final : public ctx::agent::ToolBackend {
 public:
  FuzzBackend() {
    specs_.push_back(
        ToolSpec{"echo", "echo", ctx::agent::input_schema(params()), "{\"type\":\"object\"}"});
    specs_.push_back(ToolSpec{"broken", "broken", "{", "not json"});
  }
  const std::vector<ToolSpec>& specs() const override { return specs_; }
  Expected<ToolOutput> call(std::string_view name, std::string_view arguments,
                            const std::atomic<bool>&, ctx::agent::CallPoller*) override {
    if (name == "broken") {
      ToolOutput out;
      out.structured = std::string(arguments);  // may be anything: the server must cope
      out.text = std::string(arguments);
      return out;
    }
    if (name != "echo") return ToolError{ToolErrorCode::kInvalidArgument, "unknown tool", ""};
    auto args = ctx::agent::parse_tool_args(arguments, params());
    if (!args.ok()) return args.error();
    ToolOutput out;
    out.structured = "{\"path\":1}";
    out.text = *args->string("path");
    return out;
  }

 private:
  std::vector<ToolSpec> specs_;
};

// A string, a number (any: MCP's RequestId) or null.
bool valid_id(simdjson::dom::element id) {
  return id.is_string() || id.is_number() || id.is_null();
}

bool valid_response(simdjson::dom::element response) {
  simdjson::dom::object object;
  if (response.get_object().get(object) != simdjson::SUCCESS) return false;
  std::string_view jsonrpc;
  if (object["jsonrpc"].get(jsonrpc) != simdjson::SUCCESS || jsonrpc != "2.0") return false;
  simdjson::dom::element id, result, error;
  if (object["id"].get(id) != simdjson::SUCCESS || !valid_id(id)) return false;
  const bool has_result = object["result"].get(result) == simdjson::SUCCESS;
  const bool has_error = object["error"].get(error) == simdjson::SUCCESS;
  if (has_result == has_error) return false;
  if (has_error) {
    std::int64_t code = 0;
    std::string_view message;
    if (error["code"].get(code) != simdjson::SUCCESS) return false;
    if (error["message"].get(message) != simdjson::SUCCESS) return false;
  } else if (!result.is_object()) {
    return false;
  }
  return true;
}

// True when `line` is a well-formed notification: a JSON object with "jsonrpc":"2.0", a string
// "method" and no "id". (A message without an id that is not well-formed is an invalid request,
// which JSON-RPC answers with id null.)
bool is_notification(std::string_view line) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(line.data(), line.size(), true).get(root) != simdjson::SUCCESS) return false;
  simdjson::dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS) return false;
  simdjson::dom::element ignored;
  std::string_view jsonrpc, method;
  return object["id"].get(ignored) != simdjson::SUCCESS &&
         object["jsonrpc"].get(jsonrpc) == simdjson::SUCCESS && jsonrpc == "2.0" &&
         object["method"].get(method) == simdjson::SUCCESS;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static FuzzBackend backend;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  ctx::agent::McpServerOptions options;
  options.max_message_bytes = 16 << 10;
  options.max_batch_elements = 8;
  ctx::agent::McpServer server(backend, options);
  if (!input.empty()) {
    const auto choice = static_cast<std::size_t>(static_cast<unsigned char>(input[0]) % 8);
    if (choice < std::size(ctx::agent::kMcpProtocolVersions)) {
      std::string init =
          "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
          "\"protocolVersion\":\"" +
          std::string(ctx::agent::kMcpProtocolVersions[choice]) + "\"}}";
      if (!server.handle_message(init)) __builtin_trap();
    }
  }
  simdjson::dom::parser parser;
  while (true) {
    const std::size_t nl = input.find('\n');
    const std::string_view line = input.substr(0, nl);
    std::optional<std::string> reply = server.handle_message(line);
    if (reply) {
      if (reply->find('\n') != std::string::npos) __builtin_trap();
      simdjson::dom::element root;
      // A number id comes back as written, past what simdjson holds too (valid JSON all the
      // same): read such a reply as the server reads such a request.
      auto parsed = parser.parse(*reply).get(root);
      if (parsed == simdjson::NUMBER_ERROR) {
        if (auto quoted = ctx::agent::quote_huge_numbers(*reply))
          parsed = parser.parse(*quoted).get(root);
      }
      if (parsed != simdjson::SUCCESS) __builtin_trap();
      if (root.is_array()) {
        simdjson::dom::array batch = root.get_array().value_unsafe();
        if (batch.size() == 0) __builtin_trap();
        for (simdjson::dom::element element : batch) {
          if (!valid_response(element)) __builtin_trap();
        }
      } else if (!valid_response(root)) {
        __builtin_trap();
      }
      if (is_notification(line)) __builtin_trap();
    }
    if (nl == std::string_view::npos) break;
    input.remove_prefix(nl + 1);
  }
  return 0;
}
