// find_files: gitignore-style globs over root-relative paths (basename patterns at any depth,
// '**' across directories), sorted results paged with cursors bound to their arguments, ignore
// rules, the budget, and the policy (hidden files never listed or counted).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "../../agent/src/cursor.hpp"
#include "tool_test_env.hpp"

using ctx::agent::CursorKey;
using ctx::agent::ToolErrorCode;
using ctx::agent::testing::field;
using ctx::agent::testing::parse;
using ctx::agent::testing::ToolEnv;

namespace {

std::vector<std::string> files_of(const std::string& structured) {
  simdjson::dom::parser parser;
  auto json = parse(parser, structured);
  std::vector<std::string> out;
  for (auto f : json["files"].get_array()) out.emplace_back(std::string_view(f));
  return out;
}

void make_tree(const ToolEnv& env) {
  env.file("README.md", "x");
  env.file("src/main.py", "x");
  env.file("src/util/helpers.py", "x");
  env.file("src/util/test_helpers.py", "x");
  env.file("tests/test_main.py", "x");
  env.file("docs/guide.md", "x");
  env.file("setup.py", "x");
}

}  // namespace

TEST_CASE("find_files matches a name pattern at any depth, sorted", "[agent][find_files]") {
  ToolEnv env;
  make_tree(env);
  auto out = env.ok("find_files", R"({"pattern":"*.py"})");
  CHECK(files_of(out.structured) ==
        std::vector<std::string>{"setup.py", "src/main.py", "src/util/helpers.py",
                                 "src/util/test_helpers.py", "tests/test_main.py"});
  CHECK(out.text ==
        "setup.py\nsrc/main.py\nsrc/util/helpers.py\nsrc/util/test_helpers.py\n"
        "tests/test_main.py\n(files 1–5 of 5)");
  CHECK(field(out.structured, "total") == "5");
  CHECK(field(out.structured, "truncated") == "false");
}

TEST_CASE("find_files matches path patterns with ** across directories", "[agent][find_files]") {
  ToolEnv env;
  make_tree(env);
  CHECK(files_of(env.ok("find_files", R"({"pattern":"src/**/test_*"})").structured) ==
        std::vector<std::string>{"src/util/test_helpers.py"});
  CHECK(files_of(env.ok("find_files", R"({"pattern":"**/test_*.py"})").structured) ==
        std::vector<std::string>{"src/util/test_helpers.py", "tests/test_main.py"});
  CHECK(files_of(env.ok("find_files", R"({"pattern":"src/*.py"})").structured) ==
        std::vector<std::string>{"src/main.py"});  // '*' does not cross '/'
  CHECK(files_of(env.ok("find_files", R"({"pattern":"/README.md"})").structured) ==
        std::vector<std::string>{"README.md"});
  CHECK(files_of(env.ok("find_files", R"({"pattern":"./docs/*.md"})").structured) ==
        std::vector<std::string>{"docs/guide.md"});
  CHECK(files_of(env.ok("find_files", R"({"pattern":"*.[mp][dy]"})").structured).size() == 7);
}

TEST_CASE("find_files under a path matches root-relative and path-relative patterns",
          "[agent][find_files]") {
  ToolEnv env;
  make_tree(env);
  auto a = env.ok("find_files", R"({"pattern":"util/*.py","path":"src"})");
  CHECK(files_of(a.structured) ==
        std::vector<std::string>{"src/util/helpers.py", "src/util/test_helpers.py"});
  auto b = env.ok("find_files", R"({"glob":"src/util/h*","directory":"src"})");
  CHECK(files_of(b.structured) == std::vector<std::string>{"src/util/helpers.py"});
  auto c = env.ok("find_files", R"({"query":"*.md","dir":"docs"})");
  CHECK(files_of(c.structured) == std::vector<std::string>{"docs/guide.md"});
  auto not_dir = env.error("find_files", R"({"pattern":"*","path":"setup.py"})");
  CHECK(not_dir.code == ToolErrorCode::kNotADirectory);
}

TEST_CASE("find_files says when nothing matches and suggests a wider pattern",
          "[agent][find_files]") {
  ToolEnv env;
  make_tree(env);
  auto out = env.ok("find_files", R"({"pattern":"helpers"})");
  CHECK(out.text == "(no files match 'helpers'; for names containing it use pattern='*helpers*')");
  CHECK(files_of(out.structured).empty());
  auto missing = env.error("find_files", R"({})");
  CHECK(missing.code == ToolErrorCode::kInvalidArgument);
  CHECK(missing.message == "missing required parameter 'pattern'");
  auto unknown = env.error("find_files", R"({"pattern":"*","type":"f"})");
  CHECK(unknown.message.find("pattern, path, include_ignored, max_results, cursor, max_tokens") !=
        std::string::npos);
}

TEST_CASE("find_files honours ignore rules unless include_ignored", "[agent][find_files]") {
  ToolEnv env;
  env.dir(".git");
  env.file(".gitignore", "dist/\n*.gen.py\n");
  env.file("a.py", "x");
  env.file("b.gen.py", "x");
  env.file("dist/bundle.py", "x");
  auto out = env.ok("find_files", R"({"pattern":"*.py"})");
  CHECK(files_of(out.structured) == std::vector<std::string>{"a.py"});
  CHECK(field(out.structured, "ignored") == "2");  // b.gen.py and dist/
  CHECK(out.text.find("2 ignored paths not searched (include_ignored=true searches them)") !=
        std::string::npos);
  auto all = env.ok("find_files", R"({"pattern":"*.py","include_ignored":"true"})");
  CHECK(files_of(all.structured) == std::vector<std::string>{"a.py", "b.gen.py", "dist/bundle.py"});
}

TEST_CASE("find_files never shows or counts policy-hidden files", "[agent][find_files][policy]") {
  ctx::agent::PolicyConfig policy;
  policy.deny = {"vendor/"};
  ToolEnv env(policy);
  env.dir(".git/refs");
  env.file(".git/config", "x");
  env.file(".gitignore", "*.tmp\n");
  env.file(".env", "x");
  env.file("app/.env.local", "x");
  env.file("app/id_rsa.pub", "x");
  env.file("app/main.go", "x");
  env.file("vendor/lib.go", "x");
  env.file("vendor/skip.tmp", "x");
  env.file("certs/ca.pem", "x");
  env.file("certs/readme.txt", "x");
  auto all = env.ok("find_files", R"({"pattern":"**"})");
  CHECK(files_of(all.structured) ==
        std::vector<std::string>{".gitignore", "app/main.go", "certs/readme.txt"});
  CHECK(field(all.structured, "total") == "3");
  CHECK(field(all.structured, "ignored") == "0");  // vendor/skip.tmp is hidden, not ignored
  for (const char* hidden : {".env", "id_rsa", "vendor", ".pem", ".git/"}) {
    INFO(hidden);
    CHECK(all.text.find(hidden) == std::string::npos);
    CHECK(all.structured.find(hidden) == std::string::npos);
  }
  CHECK(all.policy_hidden > 0);
  auto env_files = env.ok("find_files", R"({"pattern":".env*"})");
  CHECK(env_files.text == "(no files match '.env*')");
  // A hidden directory as path is not_found, as a missing one.
  auto hidden = env.error("find_files", R"({"pattern":"*","path":"vendor"})");
  std::filesystem::remove_all(env.root() / "vendor");
  auto missing = env.error("find_files", R"({"pattern":"*","path":"vendor"})");
  CHECK(hidden.code == ToolErrorCode::kNotFound);
  CHECK(to_json(hidden) == to_json(missing));
}

TEST_CASE("find_files pages with cursors and returns every file exactly once",
          "[agent][find_files]") {
  ToolEnv env;
  std::set<std::string> expected;
  for (int i = 0; i < 137; ++i) {
    std::string path = "m" + std::to_string(i % 5) + "/n" + std::to_string(i) + ".rs";
    env.file(path, "x");
    expected.insert(path);
    env.file("m" + std::to_string(i % 5) + "/other" + std::to_string(i) + ".txt", "x");
  }
  for (int page : {1, 10, 50, 136, 137, 1000}) {
    INFO(page);
    std::vector<std::string> seen;
    std::string cursor;
    for (int calls = 0; calls < 200; ++calls) {
      std::string args = R"({"pattern":"**/*.rs","max":)" + std::to_string(page);
      if (!cursor.empty()) args += R"(,"cursor":")" + cursor + "\"";
      args += "}";
      auto out = env.ok("find_files", args);
      auto files = files_of(out.structured);
      seen.insert(seen.end(), files.begin(), files.end());
      cursor = field(out.structured, "next_cursor");
      if (cursor == "null") break;
      CHECK(out.text.find("cursor='" + cursor + "'") != std::string::npos);
    }
    CHECK(seen.size() == expected.size());
    CHECK(std::set<std::string>(seen.begin(), seen.end()) == expected);
    CHECK(std::is_sorted(seen.begin(), seen.end()));
  }
}

TEST_CASE("find_files refuses cursors from other arguments and malformed ones",
          "[agent][find_files]") {
  ToolEnv env;
  for (int i = 0; i < 20; ++i) env.file("f" + std::to_string(i) + ".c", "x");
  auto first = env.ok("find_files", R"({"pattern":"*.c","max_results":5})");
  std::string cursor = field(first.structured, "next_cursor");
  REQUIRE(cursor != "null");
  // max_results and max_tokens may change between pages.
  auto next = env.ok("find_files", R"({"pattern":"*.c","max_results":2,"max_tokens":500,)"
                                   R"("cursor":")" +
                                       cursor + "\"}");
  CHECK(files_of(next.structured).size() == 2);
  for (std::string other :
       {R"({"pattern":"*.h","cursor":")", R"({"pattern":"*.c","path":".",)"
                                          R"("include_ignored":true,"cursor":")"}) {
    auto error = env.error("find_files", other + cursor + "\"}");
    CHECK(error.code == ToolErrorCode::kInvalidArgument);
    CHECK(error.hint.find("same arguments") != std::string::npos);
  }
  for (std::string junk : {"5", "c1.5", "c1.x.000000000000", "c1.5.zzzzzzzzzzzz", ""}) {
    auto out = env.call("find_files", R"({"pattern":"*.c","cursor":")" + junk + "\"}");
    if (junk.empty()) {  // "" means absent
      CHECK(out.ok());
      continue;
    }
    REQUIRE_FALSE(out.ok());
    CHECK(out.error().code == ToolErrorCode::kInvalidArgument);
  }
  // The same cursor given to list_directory is refused too.
  auto cross = env.error("list_directory", R"({"cursor":")" + cursor + "\"}");
  CHECK(cross.code == ToolErrorCode::kInvalidArgument);
}

TEST_CASE("cursors round-trip and bind to every list-defining argument", "[agent][cursor]") {
  CursorKey a("find_files");
  a.add("pattern", std::string_view("*.c")).add("path", std::string_view("")).add("x", false);
  CursorKey b("find_files");
  b.add("pattern", std::string_view("*.c")).add("path", std::string_view("")).add("x", true);
  CursorKey c("find_files");
  c.add("pattern", std::string_view("*.")).add("path", std::string_view("c")).add("x", false);
  for (std::uint64_t offset :
       {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{99999}, UINT64_MAX}) {
    auto cursor = ctx::agent::encode_cursor(a, offset);
    auto back = ctx::agent::decode_cursor(cursor, a, "find_files");
    REQUIRE(back.ok());
    CHECK(*back == offset);
    CHECK_FALSE(ctx::agent::decode_cursor(cursor, b, "find_files").ok());
    CHECK_FALSE(ctx::agent::decode_cursor(cursor, c, "find_files").ok());
  }
}

TEST_CASE("find_files never exceeds the budget", "[agent][find_files][property]") {
  ToolEnv env;
  std::mt19937 rng(99);
  for (int i = 0; i < 200; ++i) {
    std::string name = "d" + std::to_string(rng() % 7) + "/";
    int len = std::uniform_int_distribution<int>(1, 80)(rng);
    for (int j = 0; j < len; ++j) name.push_back(static_cast<char>('a' + rng() % 26));
    env.file(name + ".txt", "x");
  }
  for (int round = 0; round < 60; ++round) {
    const int budget = std::uniform_int_distribution<int>(32, 2000)(rng);
    std::string args =
        R"({"pattern":"**/*.txt","max_results":1000,"max_tokens":)" + std::to_string(budget) + "}";
    INFO(args);
    auto out = env.ok("find_files", args);
    CHECK(env.counter.count(out.text) <= static_cast<std::size_t>(budget));
    for (auto& f : files_of(out.structured)) CHECK(out.text.find(f + "\n") != std::string::npos);
    if (field(out.structured, "next_cursor") != "null") {
      CHECK(field(out.structured, "truncated_reason") == "max_tokens");
    }
  }
}

TEST_CASE("find_files's structured results match its published output schema",
          "[agent][find_files][schema]") {
  ToolEnv env;
  make_tree(env);
  for (const char* args :
       {R"({"pattern":"*.py"})", R"({"pattern":"*.py","max_results":1})", R"({"pattern":"zz"})"}) {
    INFO(args);
    ctx::agent::testing::check_output_schema("find_files", env.ok("find_files", args).structured);
  }
}

TEST_CASE("find_files lists exactly the files its text shows under a non-additive counter",
          "[agent][find_files][budget]") {
  ToolEnv env;
  ctx::agent::testing::LumpyCounter lumpy;
  env.counter_override = &lumpy;
  for (int i = 0; i < 150; ++i) env.file("src/f" + std::to_string(1000 + i) + ".c", "x");
  for (int budget : {32, 60, 300, 900, 2000}) {
    INFO(budget);
    auto out = env.ok("find_files", R"({"pattern":"*.c","max_results":1000,"max_tokens":)" +
                                        std::to_string(budget) + "}");
    CHECK(lumpy.count(out.text) <= static_cast<std::size_t>(budget));
    auto files = files_of(out.structured);
    for (auto& f : files) CHECK(out.text.find(f + "\n") != std::string::npos);
    if (files.size() < 150) CHECK(field(out.structured, "next_cursor") != "null");
  }
}

TEST_CASE("find_files stops at the output size cap whatever the budget", "[agent][find_files]") {
  ToolEnv env;
  env.config.limits.max_output_bytes = 200;
  for (int i = 0; i < 100; ++i) env.file("dir/file" + std::to_string(100 + i) + ".txt", "x");
  auto out = env.ok("find_files", R"({"pattern":"*.txt","max_results":1000,"max_tokens":100000})");
  CHECK(field(out.structured, "truncated_reason") == "output_cap");
  const auto files = files_of(out.structured);
  CHECK(files.size() < 20);
  CHECK(files.size() > 3);
  CHECK(field(out.structured, "next_cursor") != "null");
}

TEST_CASE("find_files reads {a,b} alternatives as search_files' glob does", "[agent][find_files]") {
  ToolEnv env;
  env.file("src/a.ts", "");
  env.file("src/b.tsx", "");
  env.file("src/c.js", "");
  env.file("lib/d.ts", "");
  env.file("README.md", "");
  auto found = env.ok("find_files", R"({"pattern":"**/*.{ts,tsx}"})");
  CHECK(found.text.starts_with("lib/d.ts\nsrc/a.ts\nsrc/b.tsx\n("));
  auto nested = env.ok("find_files", R"({"pattern":"{src/*.{js,tsx},README*}"})");
  CHECK(nested.text.starts_with("README.md\nsrc/b.tsx\nsrc/c.js\n("));
  auto escaped = env.error("find_files", R"({"pattern":"**/*.{ts"})");
  CHECK(escaped.code == ToolErrorCode::kInvalidPattern);
  CHECK(escaped.message.find("unbalanced") != std::string::npos);
  // {a,b} twenty times stands for a million globs: refused, not expanded.
  std::string many;
  for (int i = 0; i < 20; ++i) many += "{a,b}";
  auto huge = env.error("find_files", R"({"pattern":")" + many + R"("})");
  CHECK(huge.code == ToolErrorCode::kInvalidPattern);
  CHECK(huge.message.find("more than 1024 globs") != std::string::npos);
}

TEST_CASE(
    "max_results above the configured limit is taken as it, the text says so, the schema "
    "states it",
    "[agent][find_files][list_directory][search_files]") {
  ToolEnv env;
  env.config.limits.max_results = 3;
  for (int i = 0; i < 6; ++i) env.file("f" + std::to_string(i) + ".txt", "hit\n");
  struct Call {
    std::string_view tool;
    std::string_view args;
  };
  for (const Call& c : {Call{"find_files", R"("pattern":"*.txt")"}, Call{"list_directory", ""},
                        Call{"search_files", R"("pattern":"hit")"}}) {
    CAPTURE(c.tool);
    const std::string sep = c.args.empty() ? "" : ",";
    for (std::string_view asked : {"4", "5000", "99999999999999999999", "\"1e400\""}) {
      CAPTURE(asked);
      auto out = env.ok(c.tool, fmt::format("{{{}{}\"max_results\":{}}}", c.args, sep, asked));
      simdjson::dom::parser parser;
      auto json = parse(parser, out.structured);
      CHECK(int64_t(json["shown"]) == 3);
      CHECK(bool(json["truncated"]));
      std::string shown(asked);
      std::erase(shown, '"');
      CHECK(out.text.find(fmt::format("max_results={} was taken as 3, this server's limit",
                                      shown)) != std::string::npos);
    }
    // At or under the limit: no note; under the minimum: still an error naming the range.
    auto exact = env.ok(c.tool, fmt::format("{{{}{}\"max_results\":3}}", c.args, sep));
    CHECK(exact.text.find("this server's limit") == std::string::npos);
    auto zero = env.error(c.tool, fmt::format("{{{}{}\"max_results\":0}}", c.args, sep));
    CHECK(zero.code == ToolErrorCode::kInvalidArgument);
    CHECK(zero.message.find("between 1 and 3") != std::string::npos);
  }
  // The schemas a server with these limits publishes state its cap, not a nominal one.
  for (const ctx::agent::ToolSpec& spec : ctx::agent::tool_specs(env.config.limits)) {
    simdjson::dom::parser parser;
    auto schema = parse(parser, spec.input_schema);
    std::int64_t maximum = 0;
    if (schema["properties"]["max_results"]["maximum"].get(maximum) == simdjson::SUCCESS) {
      CHECK(maximum == 3);
    } else {
      CHECK((spec.name == "read_file" || spec.name == "file_info"));
    }
  }
}
