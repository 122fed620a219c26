// A temporary project tree with a Sandbox, a Policy and a CallContext around it, for the tool
// tests (read_file, list_directory, find_files, file_info): build files, call a tool by name
// with JSON arguments, and look into the structured result with simdjson.
#pragma once

#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "ctx/agent/tools.hpp"

namespace ctx::agent::testing {

namespace fs = std::filesystem;

class ToolEnv {
 public:
  explicit ToolEnv(PolicyConfig policy = {}) {
    std::string tmpl = (fs::temp_directory_path() / "ctxtoolsXXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    root_ = tmpl;
    config.policy = std::move(policy);
    rebuild();
  }
  ~ToolEnv() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  ToolEnv(const ToolEnv&) = delete;
  ToolEnv& operator=(const ToolEnv&) = delete;

  // Re-reads config.policy (call after changing it).
  void rebuild() {
    auto sandbox = Sandbox::open(root_.string());
    REQUIRE(sandbox.ok());
    sandbox_.emplace(std::move(sandbox).value());
    auto policy = Policy::build(config.policy);
    REQUIRE(policy.ok());
    policy_.emplace(std::move(policy).value());
  }

  const fs::path& root() const { return root_; }
  const Sandbox& sandbox() const { return *sandbox_; }
  const Policy& policy() const { return *policy_; }

  void file(const std::string& rel, std::string_view content) const {
    fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
  }
  void dir(const std::string& rel) const { fs::create_directories(root_ / rel); }
  void symlink(const std::string& target, const std::string& rel) const {
    fs::create_directories((root_ / rel).parent_path());
    fs::create_symlink(target, root_ / rel);
  }

  Expected<ToolOutput> call(std::string_view tool, std::string_view args,
                            std::chrono::milliseconds deadline = std::chrono::seconds(30),
                            const std::atomic<bool>* cancelled = nullptr) const {
    CallContext context{*sandbox_,
                        *policy_,
                        counter_override != nullptr ? *counter_override : counter,
                        config,
                        std::chrono::steady_clock::now() + deadline,
                        cancelled,
                        session};
    context.count_tokens = count_tokens;
    return call_tool(tool, args, context);
  }

  // The call must succeed; its output.
  ToolOutput ok(std::string_view tool, std::string_view args) const {
    auto out = call(tool, args);
    if (!out.ok()) FAIL_CHECK(tool << " " << args << " failed: " << to_json(out.error()));
    REQUIRE(out.ok());
    return std::move(out).value();
  }
  // The call must fail; its error.
  ToolError error(std::string_view tool, std::string_view args) const {
    auto out = call(tool, args);
    if (out.ok()) FAIL_CHECK(tool << " " << args << " succeeded: " << out->text);
    REQUIRE(!out.ok());
    return out.error();
  }

  AgentConfig config;
  EstimatingCounter counter;
  const TokenCounter* counter_override = nullptr;  // used instead of `counter` when set
  SessionState* session = nullptr;                 // the calls' session (none by default)
  bool count_tokens = true;                        // the calls' CallContext::count_tokens

 private:
  fs::path root_;
  std::optional<Sandbox> sandbox_;
  std::optional<Policy> policy_;
};

// Parses a structured result (which must be valid JSON).
inline simdjson::dom::element parse(simdjson::dom::parser& parser, const std::string& json) {
  simdjson::dom::element root;
  auto error = parser.parse(json).get(root);
  INFO(json);
  REQUIRE(error == simdjson::SUCCESS);
  return root;
}

// A top-level field of a structured result as text: a string as is, null, true, false, or an
// integer's digits.
inline std::string field(const std::string& structured, const char* name) {
  simdjson::dom::parser parser;
  auto json = parse(parser, structured);
  auto v = json[name];
  if (v.is_null()) return "null";
  if (v.is_string()) return std::string(std::string_view(v));
  if (v.is_bool()) return bool(v) ? "true" : "false";
  return std::to_string(int64_t(v));
}

// A counter whose counts are far from additive: a text costs more than its pieces (as a real
// tokenizer's can), so BudgetWriter::finish must trim and renderers must render again.
class LumpyCounter final : public TokenCounter {
 public:
  std::size_t count(std::string_view text) const override {
    std::size_t lines = 0;
    for (char c : text) lines += c == '\n' ? 1 : 0;
    return (text.size() + 3) / 4 + lines * lines / 40;
  }
  std::string_view name() const override { return "lumpy"; }
};

namespace detail {

inline bool has_type(simdjson::dom::element value, std::string_view type) {
  if (type == "null") return value.is_null();
  if (type == "boolean") return value.is_bool();
  if (type == "integer") return value.is_int64() || value.is_uint64();
  if (type == "number") return value.is_number();
  if (type == "string") return value.is_string();
  if (type == "array") return value.is_array();
  if (type == "object") return value.is_object();
  return false;
}

// The subset of JSON Schema the tools' output schemas use: type (a name or a list), properties,
// required, items, enum. Failures name the JSON path.
inline void check_schema(simdjson::dom::element schema, simdjson::dom::element value,
                         const std::string& where) {
  INFO("at " << where);
  simdjson::dom::element type;
  if (schema["type"].get(type) == simdjson::SUCCESS) {
    bool ok = false;
    if (type.is_string()) {
      ok = has_type(value, std::string_view(type));
    } else {
      for (auto t : type.get_array()) ok = ok || has_type(value, std::string_view(t));
    }
    CHECK(ok);
    if (!ok) return;
  }
  simdjson::dom::array choices;
  if (schema["enum"].get(choices) == simdjson::SUCCESS) {
    bool ok = false;
    for (auto c : choices) {
      ok = ok || (c.is_null() && value.is_null()) ||
           (c.is_string() && value.is_string() && std::string_view(c) == std::string_view(value));
    }
    CHECK(ok);
  }
  if (value.is_object()) {
    simdjson::dom::array required;
    if (schema["required"].get(required) == simdjson::SUCCESS) {
      for (auto r : required) {
        INFO("required key " << std::string_view(r));
        CHECK(value[std::string_view(r)].error() == simdjson::SUCCESS);
      }
    }
    simdjson::dom::object properties;
    if (schema["properties"].get(properties) == simdjson::SUCCESS) {
      for (auto [key, sub] : properties) {
        simdjson::dom::element v;
        if (value[key].get(v) == simdjson::SUCCESS) {
          check_schema(sub, v, where + "." + std::string(key));
        }
      }
    }
  }
  simdjson::dom::element items;
  if (value.is_array() && schema["items"].get(items) == simdjson::SUCCESS) {
    std::size_t i = 0;
    for (auto v : value.get_array())
      check_schema(items, v, where + "[" + std::to_string(i++) + "]");
  }
}

}  // namespace detail

// Checks a tool's structured result against the output schema tools/list publishes for it.
inline void check_output_schema(std::string_view tool, const std::string& structured) {
  const ToolSpec* spec = nullptr;
  for (const ToolSpec& s : tool_specs()) {
    if (s.name == tool) spec = &s;
  }
  REQUIRE(spec != nullptr);
  simdjson::dom::parser schema_parser;
  simdjson::dom::parser value_parser;
  auto schema = parse(schema_parser, spec->output_schema);
  auto value = parse(value_parser, structured);
  detail::check_schema(schema, value, "$");
}

}  // namespace ctx::agent::testing
