// libFuzzer target for parse_tool_args: the input is one arguments JSON text, parsed against each
// real tool's parameter table and against a synthetic table that has every feature (aliases,
// choices, integer ranges, booleans, a required parameter). It traps when a parse succeeds but
// the values break the table (a required parameter missing, a value of the wrong type, an integer
// out of range, a string outside its choices or holding a NUL, an unknown name accepted), when a
// JSON text that is not an object (nor empty / null) is accepted, when a failure is not
// invalid_argument or has no message, or when two parses of the same input disagree.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/agent/tool_args.hpp"
#include "tool_impls.hpp"

namespace {

using ctx::agent::ParamSpec;
using ctx::agent::ParamType;

const std::vector<ParamSpec>& synthetic() {
  static const std::vector<ParamSpec> table = {
      {"pattern", ParamType::kString, "p", true, {"query", "regex"}},
      {"path", ParamType::kString, "p", false, {"file_path", "dir"}},
      {"max_results", ParamType::kInteger, "n", false, {"limit"}, {}, 1, 1000},
      {"offset", ParamType::kInteger, "n", false, {}, {}, -5, 5},
      {"output_mode", ParamType::kString, "m", false, {"mode"}, {"content", "count"}},
      {"case_sensitive", ParamType::kBoolean, "b", false, {"cs"}},
  };
  return table;
}

std::vector<std::span<const ParamSpec>> tables() {
  return {ctx::agent::read_file_params(),    ctx::agent::list_directory_params(),
          ctx::agent::search_files_params(), ctx::agent::find_files_params(),
          ctx::agent::file_info_params(),    synthetic()};
}

// "" / "null" (after whitespace) mean no arguments; anything else must be a JSON object.
bool may_succeed(std::string_view json) {
  std::size_t start = json.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return true;
  std::string_view trimmed = json.substr(start);
  if (trimmed == "null") return true;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(trimmed.data(), trimmed.size(), true).get(root) != simdjson::SUCCESS) {
    return false;
  }
  return root.is_object();
}

void check_table(std::string_view json, std::span<const ParamSpec> params, bool object_ok) {
  auto args = ctx::agent::parse_tool_args(json, params);
  auto again = ctx::agent::parse_tool_args(json, params);
  if (args.ok() != again.ok()) __builtin_trap();
  if (!args.ok()) {
    if (args.error().code != ctx::agent::ToolErrorCode::kInvalidArgument) __builtin_trap();
    if (args.error().message.empty() || args.error().message != again.error().message) {
      __builtin_trap();
    }
    return;
  }
  if (!object_ok) __builtin_trap();
  for (const ParamSpec& p : params) {
    const bool has = args->has(p.name);
    if (p.required && !has) __builtin_trap();
    const auto s = args->string(p.name);
    const auto i = args->integer(p.name);
    const auto b = args->boolean(p.name);
    const int present = (s ? 1 : 0) + (i ? 1 : 0) + (b ? 1 : 0);
    if (present != (has ? 1 : 0)) __builtin_trap();
    if (!has) continue;
    switch (p.type) {
      case ParamType::kString: {
        if (!s || s->find('\0') != std::string::npos) __builtin_trap();
        if (!p.choices.empty()) {
          bool listed = false;
          for (std::string_view c : p.choices) listed = listed || c == *s;
          if (!listed) __builtin_trap();
        }
        if (*s != *again->string(p.name)) __builtin_trap();
        break;
      }
      case ParamType::kInteger:
        if (!i || *i < p.min || *i > p.max || *i != *again->integer(p.name)) __builtin_trap();
        break;
      case ParamType::kBoolean:
        if (!b || *b != *again->boolean(p.name)) __builtin_trap();
        break;
    }
  }
  if (args->has("no_such_parameter_name")) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool schemas_ok = [] {
    simdjson::dom::parser parser;
    for (std::span<const ParamSpec> table : tables()) {
      simdjson::dom::element root;
      if (parser.parse(ctx::agent::input_schema(table)).get(root) != simdjson::SUCCESS) {
        return false;
      }
    }
    return true;
  }();
  if (!schemas_ok) __builtin_trap();
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  const bool object_ok = may_succeed(json);
  for (std::span<const ParamSpec> table : tables()) check_table(json, table, object_ok);
  return 0;
}
