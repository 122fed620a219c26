// The project config file (.ctxsearch.json): every key read into AgentConfig, and strict errors
// that name the file and the key for unknown keys, wrong types, bad globs and oversized files.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "ctx/agent/tools.hpp"

namespace fs = std::filesystem;
using ctx::agent::ToolErrorCode;

namespace {

class ConfigFile {
 public:
  explicit ConfigFile(const std::string& text) {
    std::string tmpl = (fs::temp_directory_path() / "ctxcfgXXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    dir_ = tmpl;
    path_ = (dir_ / ".ctxsearch.json").string();
    std::ofstream(path_) << text;
  }
  ~ConfigFile() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  ConfigFile(const ConfigFile&) = delete;
  ConfigFile& operator=(const ConfigFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  fs::path dir_;
  std::string path_;
};

// The error of reading `text`, checked to be invalid_argument naming the file and `key`.
std::string error_for(const std::string& text, const std::string& key) {
  ConfigFile f(text);
  auto r = ctx::agent::read_config_file(f.path());
  INFO(text);
  REQUIRE_FALSE(r.ok());
  INFO(r.error().message);
  CHECK(r.error().code == ToolErrorCode::kInvalidArgument);
  CHECK(r.error().message.find(f.path()) != std::string::npos);
  CHECK(r.error().message.find(key) != std::string::npos);
  return r.error().message + " | " + r.error().hint;
}

}  // namespace

TEST_CASE("a config file sets the policy lists, the context window and the limits",
          "[agent][config]") {
  ConfigFile f(R"({
    "allow": ["src/", "*.md"],
    "deny": ["build/"],
    "protect": ["*.secret"],
    "no_default_protect": true,
    "context_window": 200000,
    "limits": {"deadline_ms": 2500, "max_search_file_bytes": 1048576, "max_visited": 5000,
               "max_results": 50, "max_collected_matches": 700, "max_line_bytes": 120,
               "max_output_bytes": 65536}
  })");
  auto r = ctx::agent::read_config_file(f.path());
  INFO((r.ok() ? std::string() : r.error().message));
  REQUIRE(r.ok());
  CHECK(r->policy.allow == std::vector<std::string>{"src/", "*.md"});
  CHECK(r->policy.deny == std::vector<std::string>{"build/"});
  CHECK(r->policy.protect == std::vector<std::string>{"*.secret"});
  CHECK(r->policy.no_default_protect);
  CHECK(r->context_window == 200000);
  CHECK(r->default_max_tokens() == 50000);
  CHECK(r->limits.deadline_ms == 2500);
  CHECK(r->limits.max_search_file_bytes == 1048576);
  CHECK(r->limits.max_visited == 5000);
  CHECK(r->limits.max_results == 50);
  CHECK(r->limits.max_collected_matches == 700);
  CHECK(r->limits.max_line_bytes == 120);
  CHECK(r->limits.max_output_bytes == 65536);
}

TEST_CASE("an empty config object keeps every default", "[agent][config]") {
  ConfigFile f("{}\n");
  auto r = ctx::agent::read_config_file(f.path());
  REQUIRE(r.ok());
  ctx::agent::AgentConfig defaults;
  CHECK(r->context_window == defaults.context_window);
  CHECK(r->limits.deadline_ms == defaults.limits.deadline_ms);
  CHECK(r->limits.max_results == defaults.limits.max_results);
  CHECK_FALSE(r->policy.no_default_protect);
  CHECK(r->policy.allow.empty());
}

TEST_CASE("unknown keys are errors that list the valid keys", "[agent][config]") {
  std::string top = error_for(R"({"denny": ["x"]})", "denny");
  CHECK(top.find("allow, deny, protect") != std::string::npos);
  std::string limit = error_for(R"({"limits": {"deadline": 5}})", "limits.deadline");
  CHECK(limit.find("deadline_ms") != std::string::npos);
}

TEST_CASE("wrong types and values name the key", "[agent][config]") {
  error_for(R"({"allow": "src/"})", "allow");
  error_for(R"({"deny": ["a", 3]})", "deny");
  error_for(R"({"no_default_protect": "yes"})", "no_default_protect");
  error_for(R"({"context_window": -5})", "context_window");
  error_for(R"({"context_window": 1.5})", "context_window");
  error_for(R"({"context_window": 1})", "context_window");  // below 512, as --context-window
  error_for(R"({"context_window": 100000001})", "context_window");
  error_for(R"({"context_window": 0})", "context_window");
  error_for(R"({"limits": []})", "limits");
  error_for(R"({"limits": {"deadline_ms": 5000000000}})", "limits.deadline_ms");
  error_for(R"({"deny": ["a"], "deny": ["b"]})", "deny");
}

TEST_CASE("bad globs in the config are reported with the file", "[agent][config]") {
  error_for(R"({"deny": ["[[:bogus:]]"]})", "[[:bogus:]]");
  error_for(R"({"protect": ["#x"]})", "#x");
}

TEST_CASE("invalid JSON, a non-object, a missing file and a huge file are refused",
          "[agent][config]") {
  error_for("{\"deny\": [", "valid JSON");
  error_for("[1, 2]", "one JSON object");
  auto missing = ctx::agent::read_config_file("/nonexistent/dir/.ctxsearch.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ToolErrorCode::kNotFound);
  CHECK(missing.error().message.find("/nonexistent/dir/.ctxsearch.json") != std::string::npos);
  ConfigFile big("{\"deny\": [\"" + std::string(2 << 20, 'a') + "\"]}");
  auto huge = ctx::agent::read_config_file(big.path());
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.error().code == ToolErrorCode::kInvalidArgument);
  CHECK(huge.error().message.find(big.path()) != std::string::npos);
}
