// Tool parameters: one table per tool (`ParamSpec`) drives both argument validation and the JSON
// Schema that tools/list publishes, as the CLI's flag table drives parsing and --help.
//
// Validation accepts what small models actually send: parameter aliases (`query` for `pattern`,
// `file_path` for `path`), null / "" / "null" for an absent optional parameter, numbers sent as
// strings ("20"), booleans as "true"/"false"; it rejects unknown parameters with a message that
// lists the valid ones.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/agent/tool_error.hpp"

namespace ctx::agent {

struct Limits;  // tools.hpp

enum class ParamType : std::uint8_t { kString, kInteger, kBoolean };

struct ParamSpec {
  std::string_view name;
  ParamType type;
  std::string_view description;  // short; written for small models
  bool required = false;
  std::vector<std::string_view> aliases = {};
  std::vector<std::string_view> choices = {};  // allowed strings (a JSON Schema enum)
  std::int64_t min = 0;                        // integers only
  std::int64_t max = INT64_MAX;                // integers only
  // Integers only: when set, the maximum is this configured limit (given Limits; `max` without
  // them), as the schema publishes it, and a larger value is taken as that maximum instead of
  // refused (ToolArgs::clamped then gives what was asked, for the tool to say so).
  std::size_t Limits::*max_limit = nullptr;
};

class ToolArgs {
 public:
  std::optional<std::string> string(std::string_view name) const;
  std::optional<std::int64_t> integer(std::string_view name) const;
  std::optional<bool> boolean(std::string_view name) const;
  bool has(std::string_view name) const;
  // The value as sent when an integer parameter with a max_limit was above it (its integer() is
  // then the limit); nullopt otherwise.
  std::optional<std::string> clamped(std::string_view name) const;

 private:
  friend Expected<ToolArgs> parse_tool_args(std::string_view, std::span<const ParamSpec>,
                                            const Limits*);
  struct Value {
    std::string name;  // canonical parameter name
    ParamType type;
    std::string text;  // strings; for a clamped integer, the value as sent
    std::int64_t number = 0;
    bool flag = false;
    bool clamped = false;
  };
  const Value* find(std::string_view name) const;
  std::vector<Value> values_;
};

// `json` with each JSON number simdjson cannot hold (an integer past 64 bits, a number past a
// double's range) written as a string of its text, so the text can still be read (an argument
// then fails validation as out of range, a request id keeps its digits); nullopt when it holds no
// such number. Strings are skipped over; the text is otherwise left as it is.
std::optional<std::string> quote_huge_numbers(std::string_view json);

// Parses `json` (an object, or empty / "null" for no arguments) against `params`: numbers past
// what simdjson holds are read as quote_huge_numbers gives them. `limits` (may be null: each
// `max`) gives the maximum of parameters with a max_limit.
Expected<ToolArgs> parse_tool_args(std::string_view json, std::span<const ParamSpec> params,
                                   const Limits* limits = nullptr);

// {"type":"object","properties":{...},"required":[...],"additionalProperties":false}, with the
// maximum of parameters with a max_limit taken from `limits` (may be null: each `max`).
std::string input_schema(std::span<const ParamSpec> params, const Limits* limits = nullptr);

}  // namespace ctx::agent
