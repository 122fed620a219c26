// read_config_file: the project file `.ctxsearch.json`, parsed strictly (simdjson DOM). Every
// error names the file and the key, and unknown keys list the valid ones, so a typo never
// silently weakens the policy.
#include <fcntl.h>
#include <fmt/format.h>
#include <simdjson.h>

#include <cstdint>
#include <limits>
#include <set>

#include "ctx/agent/tools.hpp"
#include "ctx/base/file_buffer.hpp"

namespace ctx::agent {
namespace {

constexpr std::size_t kMaxConfigBytes = 1 << 20;

constexpr std::string_view kTopKeys =
    "allow, deny, protect, no_default_protect, context_window, limits";
constexpr std::string_view kLimitKeys =
    "deadline_ms, max_search_file_bytes, max_visited, max_results, max_collected_matches, "
    "max_line_bytes, max_output_bytes";

class ConfigReader {
 public:
  explicit ConfigReader(const std::string& path) : path_(path) {}

  ToolError invalid(std::string_view key, std::string_view why) const {
    return ToolError{
        ToolErrorCode::kInvalidArgument, fmt::format("config file '{}': '{}' {}", path_, key, why),
        fmt::format("fix '{}'; valid keys: {}; \"limits\" holds {}", path_, kTopKeys, kLimitKeys)};
  }

  ToolStatus strings(std::string_view key, simdjson::dom::element value,
                     std::vector<std::string>& out) const {
    simdjson::dom::array array;
    if (value.get_array().get(array) != simdjson::SUCCESS) {
      return invalid(key, "must be an array of glob strings");
    }
    for (simdjson::dom::element item : array) {
      std::string_view s;
      if (item.get_string().get(s) != simdjson::SUCCESS) {
        return invalid(key, "must hold strings only (globs in gitignore syntax)");
      }
      out.emplace_back(s);
    }
    return {};
  }

  // A positive integer no larger than `max`.
  template <typename T>
  ToolStatus positive(std::string_view key, simdjson::dom::element value, T& out) const {
    std::uint64_t n = 0;
    if (value.get_uint64().get(n) != simdjson::SUCCESS) {
      return invalid(key, "must be a positive integer");
    }
    if (n == 0) return invalid(key, "must be a positive integer, not 0");
    if (n > std::numeric_limits<T>::max()) {
      return invalid(key, fmt::format("must be at most {}", std::numeric_limits<T>::max()));
    }
    out = static_cast<T>(n);
    return {};
  }

  ToolStatus limits(simdjson::dom::element value, Limits& out) const {
    simdjson::dom::object object;
    if (value.get_object().get(object) != simdjson::SUCCESS) {
      return invalid("limits", fmt::format("must be an object with the keys {}", kLimitKeys));
    }
    std::set<std::string_view> seen;
    for (auto [key, v] : object) {
      if (!seen.insert(key).second) return invalid(fmt::format("limits.{}", key), "appears twice");
      const std::string name = fmt::format("limits.{}", key);
      if (key == "deadline_ms") {
        CTX_TRY(positive(name, v, out.deadline_ms));
      } else if (key == "max_search_file_bytes") {
        CTX_TRY(positive(name, v, out.max_search_file_bytes));
      } else if (key == "max_visited") {
        CTX_TRY(positive(name, v, out.max_visited));
      } else if (key == "max_results") {
        CTX_TRY(positive(name, v, out.max_results));
      } else if (key == "max_collected_matches") {
        CTX_TRY(positive(name, v, out.max_collected_matches));
      } else if (key == "max_line_bytes") {
        CTX_TRY(positive(name, v, out.max_line_bytes));
      } else if (key == "max_output_bytes") {
        CTX_TRY(positive(name, v, out.max_output_bytes));
      } else {
        return invalid(name, fmt::format("is not a known limit; valid limits: {}", kLimitKeys));
      }
    }
    return {};
  }

  Expected<AgentConfig> read(simdjson::dom::element root) const {
    simdjson::dom::object object;
    if (root.get_object().get(object) != simdjson::SUCCESS) {
      return ToolError{ToolErrorCode::kInvalidArgument,
                       fmt::format("config file '{}' must hold one JSON object", path_),
                       fmt::format("write {{\"deny\": [\"build/\"]}}; valid keys: {}", kTopKeys)};
    }
    AgentConfig config;
    std::set<std::string_view> seen;
    for (auto [key, value] : object) {
      if (!seen.insert(key).second) return invalid(key, "appears twice");
      if (key == "allow") {
        CTX_TRY(strings(key, value, config.policy.allow));
      } else if (key == "deny") {
        CTX_TRY(strings(key, value, config.policy.deny));
      } else if (key == "protect") {
        CTX_TRY(strings(key, value, config.policy.protect));
      } else if (key == "no_default_protect") {
        if (value.get_bool().get(config.policy.no_default_protect) != simdjson::SUCCESS) {
          return invalid(key, "must be true or false");
        }
      } else if (key == "context_window") {
        CTX_TRY(positive(key, value, config.context_window));
        if (config.context_window < kMinContextWindow ||
            config.context_window > kMaxContextWindow) {
          return invalid(key, fmt::format("must be a number of tokens from {} to {}",
                                          kMinContextWindow, kMaxContextWindow));
        }
      } else if (key == "limits") {
        CTX_TRY(limits(value, config.limits));
      } else {
        return invalid(key, fmt::format("is not a known key; valid keys: {}", kTopKeys));
      }
    }
    // Bad globs are reported now, naming the file, rather than at the first tool call.
    if (auto policy = Policy::build(config.policy); !policy.ok()) {
      ToolError error = std::move(policy).error();
      error.message = fmt::format("config file '{}': {}", path_, error.message);
      return error;
    }
    return config;
  }

 private:
  const std::string& path_;
};

}  // namespace

Expected<AgentConfig> read_config_file(const std::string& path) {
  auto text = read_small_file(AT_FDCWD, path.c_str(), kMaxConfigBytes);
  if (!text.ok()) {
    const Error& e = text.error();
    ToolErrorCode code = e.code == ErrorCode::kNotFound          ? ToolErrorCode::kNotFound
                         : e.code == ErrorCode::kInvalidArgument ? ToolErrorCode::kInvalidArgument
                                                                 : ToolErrorCode::kIoError;
    return ToolError{code, fmt::format("config file: {}", e.detail),
                     fmt::format("pass a readable JSON file of at most {} bytes", kMaxConfigBytes)};
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(simdjson::padded_string(*text)).get(root); error) {
    return ToolError{
        ToolErrorCode::kInvalidArgument,
        fmt::format("config file '{}' is not valid JSON: {}", path, simdjson::error_message(error)),
        fmt::format("write one JSON object; valid keys: {}", kTopKeys)};
  }
  return ConfigReader(path).read(root);
}

}  // namespace ctx::agent
