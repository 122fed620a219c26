// list_directory: sorted entries with kind and size, depth, ignore rules and their count, paging
// with cursors (every entry exactly once), the budget, and the policy (hidden entries appear
// nowhere, not even in counts; a hidden directory asked for is not_found like a missing one).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "../../agent/src/json_writer.hpp"
#include "../../agent/src/tool_walk.hpp"
#include "tool_test_env.hpp"

using ctx::agent::ToolErrorCode;
using ctx::agent::testing::field;
using ctx::agent::testing::parse;
using ctx::agent::testing::ToolEnv;

namespace {

std::vector<std::string> entry_paths(const std::string& structured) {
  simdjson::dom::parser parser;
  auto json = parse(parser, structured);
  std::vector<std::string> out;
  for (auto e : json["entries"].get_array()) out.emplace_back(std::string_view(e["path"]));
  return out;
}

}  // namespace

TEST_CASE("list_directory lists one level sorted with kind and size", "[agent][list_directory]") {
  ToolEnv env;
  env.file("src/main.c", "int main;\n");  // 10 bytes
  env.file("src/util/str.c", "x");
  env.file("README.md", "# hi\n");
  env.file(".editorconfig", "root = true\n");
  env.symlink("src/main.c", "main_link.c");
  REQUIRE(::mkfifo((env.root() / "pipe").c_str(), 0600) == 0);
  auto out = env.ok("list_directory", R"({})");
  CHECK(out.text.find("./ (5 entries)\n") == 0);
  CHECK(out.text.find(".editorconfig  (12 bytes)\nREADME.md  (5 bytes)\nmain_link.c  (symlink)\n"
                      "pipe  (special)\nsrc/\n") != std::string::npos);
  CHECK(out.text.find("src/main.c") == std::string::npos);  // depth 1 only
  CHECK(out.text.find("(entries 1–5 of 5)") != std::string::npos);
  CHECK_FALSE(out.truncated);
  simdjson::dom::parser parser;
  auto json = parse(parser, out.structured);
  CHECK(int64_t(json["total"]) == 5);
  CHECK(std::string_view(json["entries"].at(1)["kind"]) == "file");
  CHECK(int64_t(json["entries"].at(1)["size"]) == 5);
  CHECK(std::string_view(json["entries"].at(4)["kind"]) == "dir");
  CHECK(json["next_cursor"].is_null());
}

TEST_CASE("list_directory with depth lists subdirectories after their directory",
          "[agent][list_directory]") {
  ToolEnv env;
  env.file("a/b/c/d.txt", "d");
  env.file("a/b.txt", "b");
  env.file("a.txt", "a");
  auto two = env.ok("list_directory", R"({"path":"a","depth":2})");
  CHECK(entry_paths(two.structured) == std::vector<std::string>{"a/b", "a/b/c", "a/b.txt"});
  auto all = env.ok("list_directory", R"({"dir":".","max_depth":5})");
  CHECK(entry_paths(all.structured) ==
        std::vector<std::string>{"a", "a/b", "a/b/c", "a/b/c/d.txt", "a/b.txt", "a.txt"});
  auto error = env.error("list_directory", R"({"depth":6})");
  CHECK(error.code == ToolErrorCode::kInvalidArgument);
}

TEST_CASE("list_directory honours ignore rules and counts what they left out",
          "[agent][list_directory]") {
  ToolEnv env;
  env.dir(".git");  // a repository: .gitignore counts
  env.file(".gitignore", "*.log\nbuild/\n");
  env.file("app.log", "x");
  env.file("build/out.o", "x");
  env.file("src/keep.c", "x");
  env.file("src/debug.log", "x");
  auto out = env.ok("list_directory", R"({})");
  CHECK(entry_paths(out.structured) == std::vector<std::string>{".gitignore", "src"});
  CHECK(field(out.structured, "ignored") == "2");  // app.log and build/
  CHECK(out.text.find("2 ignored entries not listed (include_ignored=true lists them)") !=
        std::string::npos);
  // A subdirectory listed on its own still obeys the root's .gitignore.
  auto sub = env.ok("list_directory", R"({"path":"src"})");
  CHECK(entry_paths(sub.structured) == std::vector<std::string>{"src/keep.c"});
  CHECK(field(sub.structured, "ignored") == "1");
  auto all = env.ok("list_directory", R"({"include_ignored":true,"depth":2})");
  CHECK(entry_paths(all.structured) == std::vector<std::string>{".gitignore", "app.log", "build",
                                                                "build/out.o", "src",
                                                                "src/debug.log", "src/keep.c"});
  CHECK(field(all.structured, "ignored") == "0");
}

TEST_CASE("list_directory hides policy-hidden entries from text, structure and counts",
          "[agent][list_directory][policy]") {
  ctx::agent::PolicyConfig policy;
  policy.deny = {"internal/"};
  ToolEnv env(policy);
  env.dir(".git/objects");
  env.file(".gitignore", "*.tmp\n");
  env.file(".env", "SECRET=1\n");
  env.file("config/.env.production", "SECRET=2\n");
  env.file("keys/server.key", "KEY\n");
  env.file("internal/plan.md", "plan\n");
  env.file("internal/x.tmp", "ignored and hidden\n");
  env.file("secrets.yaml", "a: b\n");
  env.file("visible.txt", "ok\n");
  env.file("config/app.yaml", "ok\n");
  env.file("ignored.tmp", "x");
  auto out = env.ok("list_directory", R"({"depth":3,"include_ignored":false})");
  for (const char* hidden : {".env", "server.key", "internal", "plan.md", "secrets", ".git/"}) {
    INFO(hidden);
    CHECK(out.text.find(hidden) == std::string::npos);
    CHECK(out.structured.find(hidden) == std::string::npos);
  }
  CHECK(entry_paths(out.structured) ==
        std::vector<std::string>{".gitignore", "config", "config/app.yaml", "keys", "visible.txt"});
  CHECK(field(out.structured, "total") == "5");
  CHECK(field(out.structured, "ignored") == "1");  // ignored.tmp; not internal/x.tmp
  CHECK(out.policy_hidden > 0);                    // for the audit log only
  // Asking for a hidden directory or file directly looks exactly like asking for a missing one.
  for (std::string path : {"internal", ".git", "keys/server.key", "config/.env.production"}) {
    INFO(path);
    std::string args = R"({"path":")" + path + "\"}";
    auto hidden = env.error("list_directory", args);
    CHECK(hidden.code == ToolErrorCode::kNotFound);
    std::filesystem::remove_all(env.root() / path);
    CHECK(to_json(hidden) == to_json(env.error("list_directory", args)));
  }
}

TEST_CASE("list_directory pages with cursors and returns every entry exactly once",
          "[agent][list_directory]") {
  ToolEnv env;
  std::set<std::string> expected;
  for (int d = 0; d < 7; ++d) {
    std::string dir = "d" + std::to_string(d);
    expected.insert(dir);
    for (int f = 0; f < 1 + d * 5; ++f) {
      std::string path = dir + "/f" + std::to_string(f) + ".txt";
      env.file(path, "x");
      expected.insert(path);
    }
  }
  std::vector<std::string> seen;
  std::string cursor;
  int calls = 0;
  for (;;) {
    std::string args = R"({"depth":2,"max_results":13)";
    if (!cursor.empty()) args += R"(,"cursor":")" + cursor + "\"";
    args += "}";
    auto out = env.ok("list_directory", args);
    for (auto& p : entry_paths(out.structured)) seen.push_back(p);
    cursor = field(out.structured, "next_cursor");
    ++calls;
    if (cursor == "null") {
      CHECK_FALSE(out.truncated);
      break;
    }
    CHECK(out.truncated);
    CHECK(out.text.find("cursor='" + cursor + "'") != std::string::npos);
    REQUIRE(calls < 100);
  }
  CHECK(seen.size() == expected.size());
  CHECK(std::set<std::string>(seen.begin(), seen.end()) == expected);
  CHECK(calls == static_cast<int>((expected.size() + 12) / 13));
}

TEST_CASE("list_directory refuses a cursor made for other arguments", "[agent][list_directory]") {
  ToolEnv env;
  for (int i = 0; i < 10; ++i) env.file("f" + std::to_string(i), "x");
  env.dir("sub");
  auto first = env.ok("list_directory", R"({"max_results":3})");
  std::string cursor = field(first.structured, "next_cursor");
  REQUIRE(cursor != "null");
  auto ok = env.ok("list_directory", R"({"max_results":5,"cursor":")" + cursor + "\"}");
  CHECK(entry_paths(ok.structured).front() == "f3");
  auto other = env.error("list_directory", R"({"depth":2,"cursor":")" + cursor + "\"}");
  CHECK(other.code == ToolErrorCode::kInvalidArgument);
  CHECK(other.message.find("other arguments") != std::string::npos);
  auto junk = env.error("list_directory", R"({"cursor":"page2"})");
  CHECK(junk.code == ToolErrorCode::kInvalidArgument);
}

TEST_CASE("list_directory never exceeds the budget and pages what it cut",
          "[agent][list_directory][property]") {
  ToolEnv env;
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    std::string name = "dir" + std::to_string(i % 9) + "/";
    int len = std::uniform_int_distribution<int>(1, 60)(rng);
    for (int j = 0; j < len; ++j) name.push_back(static_cast<char>('a' + rng() % 26));
    env.file(name, std::string(rng() % 5000, 'x'));
  }
  for (int round = 0; round < 40; ++round) {
    const int budget = std::uniform_int_distribution<int>(32, 2500)(rng);
    std::set<std::string> seen;
    std::string cursor;
    std::size_t total = 0;
    for (int calls = 0; calls < 2000; ++calls) {
      std::string args = R"({"depth":2,"max_tokens":)" + std::to_string(budget);
      if (!cursor.empty()) args += R"(,"cursor":")" + cursor + "\"";
      args += "}";
      INFO(args);
      auto out = env.ok("list_directory", args);
      REQUIRE(env.counter.count(out.text) <= static_cast<std::size_t>(budget));
      auto page = entry_paths(out.structured);
      for (auto& p : page) {
        CHECK(seen.insert(p).second);  // never twice
        CHECK(out.text.find(p) != std::string::npos);
      }
      total = std::stoul(field(out.structured, "total"));
      cursor = field(out.structured, "next_cursor");
      if (cursor == "null") break;
      if (page.empty()) break;  // the budget holds no entry at all: the footer says so
    }
    if (cursor == "null") CHECK(seen.size() == total);
  }
}

TEST_CASE("list_directory of a file or a missing path says what to call instead",
          "[agent][list_directory]") {
  ToolEnv env;
  env.file("src/a.c", "x");
  auto file = env.error("list_directory", R"({"path":"src/a.c"})");
  CHECK(file.code == ToolErrorCode::kNotADirectory);
  CHECK(file.hint == "call read_file with path='src/a.c'");
  auto missing = env.error("list_directory", R"({"directory":"nope"})");
  CHECK(missing.code == ToolErrorCode::kNotFound);
  CHECK(missing.hint.find("find_files") != std::string::npos);
  auto outside = env.error("list_directory", R"({"path":"../.."})");
  CHECK(outside.code == ToolErrorCode::kOutsideRoot);
  auto unknown = env.error("list_directory", R"({"path":"src","recursive":true})");
  CHECK(unknown.message.find("path, depth, include_ignored, max_results, cursor, max_tokens") !=
        std::string::npos);
}

TEST_CASE("list_directory stops at the deadline and flags the partial listing",
          "[agent][list_directory]") {
  ToolEnv env;
  env.file("a/b.txt", "x");
  auto out = env.call("list_directory", R"({"depth":3})", std::chrono::milliseconds(0));
  REQUIRE(out.ok());
  CHECK(out->truncated);
  CHECK(field(out->structured, "total_exact") == "false");
  CHECK(field(out->structured, "truncated_reason") == "deadline");
  CHECK(out->text.find("the walk stopped early (deadline)") != std::string::npos);
}

TEST_CASE("list_directory's structured results match its published output schema",
          "[agent][list_directory][schema]") {
  ToolEnv env;
  env.file("a/b.txt", "x");
  env.symlink("a/b.txt", "link");
  for (const char* args : {R"({})", R"({"depth":3,"max_results":1})", R"({"path":"a"})"}) {
    INFO(args);
    ctx::agent::testing::check_output_schema("list_directory",
                                             env.ok("list_directory", args).structured);
  }
}

TEST_CASE("list_directory lists exactly the entries its text shows under a non-additive counter",
          "[agent][list_directory][budget]") {
  ToolEnv env;
  ctx::agent::testing::LumpyCounter lumpy;
  env.counter_override = &lumpy;
  for (int i = 0; i < 150; ++i) env.file("e" + std::to_string(1000 + i), "x");
  for (int budget : {32, 60, 300, 900, 2000}) {
    INFO(budget);
    auto out = env.ok("list_directory",
                      R"({"max_results":1000,"max_tokens":)" + std::to_string(budget) + "}");
    CHECK(lumpy.count(out.text) <= static_cast<std::size_t>(budget));
    auto paths = entry_paths(out.structured);
    for (auto& p : paths) CHECK(out.text.find(p + "  (1 bytes)\n") != std::string::npos);
    if (paths.size() < 150) {
      CHECK(field(out.structured, "next_cursor") != "null");
      CHECK(field(out.structured, "truncated_reason") == "max_tokens");
    }
  }
}

TEST_CASE("Policy::check_entry agrees with check for entries of visible directories",
          "[agent][list_directory][policy][property]") {
  using ctx::agent::Policy;
  using ctx::agent::PolicyConfig;
  const std::vector<std::string> names = {
      "a",          "src",   ".env",  ".env.local", "secrets",   "SECRETS.txt",
      "id_rsa.pub", "b.pem", "x.KEY", ".git",       "build",     "docs",
      "top",        "gen",   "c.md",  "keep.c",     "config.yml"};
  std::vector<PolicyConfig> configs(3);
  configs[1].deny = {"build/", "docs/*.md", "/top", "**/gen/**"};
  configs[2].allow = {"src/", "!src/gen/", "*.md"};
  configs[2].deny = {"a/b"};
  std::mt19937 rng(4242);
  for (const PolicyConfig& config : configs) {
    auto policy = Policy::build(config);
    REQUIRE(policy.ok());
    int compared = 0;
    for (int i = 0; i < 20000; ++i) {
      std::string path;
      const int depth = std::uniform_int_distribution<int>(1, 4)(rng);
      bool parents_visible = true;
      for (int d = 0; d < depth; ++d) {
        if (d > 0) {
          parents_visible = parents_visible && policy->visible(path, true);
          path += "/";
        }
        path += names[rng() % names.size()];
      }
      if (!parents_visible) continue;
      const bool is_dir = rng() % 2 == 0;
      INFO(path << (is_dir ? " (dir)" : ""));
      CHECK(policy->check_entry(path, is_dir) == policy->check(path, is_dir));
      ++compared;
    }
    CHECK(compared > 1000);
  }
}

TEST_CASE("list_directory writes odd names in its structured entries as the JSON writer would",
          "[agent][list_directory]") {
  ToolEnv env;
  const std::vector<std::string> names = {"plain.txt",   "quote\"d",           "back\\slash",
                                          "tab\there",   "ctl\x01x",           "bad\xFFutf8",
                                          "caf\xC3\xA9", "line\xE2\x80\xA8sep"};
  for (const std::string& name : names) env.file("d/" + name, name);
  env.dir("d/sub");
  auto out = env.ok("list_directory", R"({"path":"d"})");
  // The reference: the entries array written by JsonWriter, one call per field.
  simdjson::dom::parser parser;
  auto json = parse(parser, out.structured);
  ctx::agent::JsonWriter want;
  want.begin_array();
  for (auto entry : json["entries"].get_array()) {
    const std::string path{std::string_view(entry["path"])};
    want.begin_object().field("path", path).field("kind", std::string_view(entry["kind"]));
    if (entry["size"].error() == simdjson::SUCCESS) {
      want.field("size", static_cast<std::uint64_t>(int64_t(entry["size"])));
    }
    want.end_object();
  }
  want.end_array();
  const std::size_t at = out.structured.find(R"("entries":)");
  REQUIRE(at != std::string::npos);
  CHECK(out.structured.substr(at + 10, want.str().size()) == want.str());
  CHECK(json["entries"].get_array().size() == names.size() + 1);
  // A name that is not UTF-8 is shown escaped (path_display.hpp), as every tool shows it.
  CHECK(out.structured.find(R"("d/bad\\xFFutf8")") != std::string::npos);
}

TEST_CASE("compare_paths orders as its byte-by-byte definition on paths with long shared prefixes",
          "[agent][list_directory]") {
  auto reference = [](std::string_view a, std::string_view b) {
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (a[i] == b[i]) continue;
      if (a[i] == '/') return true;
      if (b[i] == '/') return false;
      return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
    }
    return a.size() < b.size();
  };
  std::mt19937 rng(5);
  const std::string alphabet = "ab/.-\xC3\xA9\x7f";
  const std::string prefix = "some/long/shared/directory/prefix/";
  for (int round = 0; round < 20000; ++round) {
    std::string a = prefix.substr(0, rng() % prefix.size());
    std::string b = a;
    const int na = static_cast<int>(rng() % 20);
    const int nb = static_cast<int>(rng() % 20);
    for (int i = 0; i < na; ++i) a += alphabet[rng() % alphabet.size()];
    for (int i = 0; i < nb; ++i) b += alphabet[rng() % alphabet.size()];
    if (rng() % 4 == 0) b = a;
    INFO(a << " | " << b);
    REQUIRE(ctx::agent::compare_paths(a, b) == reference(a, b));
    REQUIRE(ctx::agent::compare_paths(b, a) == reference(b, a));
  }
}

TEST_CASE("path_order_key never orders two paths against compare_paths",
          "[agent][list_directory]") {
  std::mt19937 rng(11);
  // '.' (0x2e) and '0' (0x30) sit on either side of '/', \x01 below it, \x7f and é above.
  const std::string alphabet = std::string("ab/.0-\x01\xC3\xA9\x7f", 10);
  for (int round = 0; round < 50000; ++round) {
    const std::size_t from = rng() % 3 == 0 ? 0 : 4;
    std::string a = "dir/";
    std::string b = "dir/";
    const int na = static_cast<int>(rng() % 12);
    const int nb = static_cast<int>(rng() % 12);
    for (int i = 0; i < na; ++i) a += alphabet[rng() % alphabet.size()];
    for (int i = 0; i < nb; ++i) b += alphabet[rng() % alphabet.size()];
    // Often a shared head of a past the directory, so keys tie and differ late.
    if (rng() % 3 == 0) b = a.substr(0, 4 + rng() % (a.size() - 3)) + b.substr(4);
    INFO(a << " | " << b);
    const std::uint64_t ka = ctx::agent::path_order_key(a, from);
    const std::uint64_t kb = ctx::agent::path_order_key(b, from);
    if (ka < kb) REQUIRE(ctx::agent::compare_paths(a, b));
    if (kb < ka) REQUIRE(ctx::agent::compare_paths(b, a));
  }
}

TEST_CASE("a name with a control character is quoted in every text, kept in the structure",
          "[agent][list_directory]") {
  // "new\nline.txt" shown raw reads as two names; "x\n1:KEY=..." could forge a match line.
  ToolEnv env;
  env.file("new\nline.txt", "hello\n");
  env.file("plain.txt", "hello\n");
  const std::string quoted = R"("new\nline.txt")";
  auto listed = env.ok("list_directory", "{}");
  CHECK(listed.text.find(quoted + "  (6 bytes)\n") != std::string::npos);
  CHECK(listed.structured.find(R"("path":"new\nline.txt")") != std::string::npos);
  auto found = env.ok("find_files", R"({"pattern":"*line*"})");
  CHECK(found.text.starts_with(quoted + "\n("));
  auto searched = env.ok("search_files", R"({"pattern":"hello"})");
  CHECK(searched.text.starts_with(quoted + "\n1:hello\n\nplain.txt\n1:hello\n"));
  auto counted = env.ok("search_files", R"({"pattern":"hello","output_mode":"count"})");
  CHECK(counted.text.starts_with(quoted + ":1\nplain.txt:1\n"));
  auto info = env.ok("file_info", R"({"path":"new\nline.txt"})");
  CHECK(info.text.starts_with("path: " + quoted + "\n"));
  // Names that would read as quoted, or whose edges or separators a text hides, are quoted too.
  env.file("\"nl\\nname.txt\"", "");
  env.file("del\x7F.txt", "");
  env.file("sep\xE2\x80\xA8x.txt", "");
  env.file(" lead.txt", "");
  auto more = env.ok("list_directory", "{}");
  CHECK(more.text.find(R"("\"nl\\nname.txt\"")") != std::string::npos);
  CHECK(more.text.find("\"del\x7F.txt\"") != std::string::npos);
  CHECK(more.text.find("\"sep\xE2\x80\xA8x.txt\"") != std::string::npos);
  CHECK(more.text.find(R"(" lead.txt")") != std::string::npos);
  // A hint that names it can be sent back as JSON.
  auto missing = env.error("read_file", R"({"path":"d/new\nx.txt"})");
  CHECK(missing.hint.find(R"('**/new\nx.txt')") != std::string::npos);
}
