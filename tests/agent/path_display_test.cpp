// Names that are not UTF-8: escape_path/unescape_path round trips on any bytes, and every tool
// shows such a name the same way (text and structured result, valid UTF-8) and opens it by the
// name shown.
#include "../../agent/src/path_display.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "ctx/base/utf8.hpp"
#include "tool_test_env.hpp"

using ctx::agent::escape_path;
using ctx::agent::needs_path_escape;
using ctx::agent::unescape_path;
using ctx::agent::testing::parse;
using ctx::agent::testing::ToolEnv;

TEST_CASE("escape_path shows invalid bytes and backslashes as \\xHH only where needed",
          "[agent][path_display]") {
  CHECK(escape_path("src/main.c") == "src/main.c");
  CHECK(escape_path("caf\xC3\xA9/a\\b.txt") == "caf\xC3\xA9/a\\b.txt");  // valid, no "\x"
  CHECK(escape_path("n\xFFx.txt") == "n\\xFFx.txt");
  CHECK(escape_path("d\xFE/a\\b\xC3") == "d\\xFE/a\\x5Cb\\xC3");
  CHECK(escape_path("lit\\x41.txt") == "lit\\x5Cx41.txt");  // a real "\x" is escaped too
  CHECK(unescape_path("n\\xFFx.txt") == "n\xFFx.txt");
  CHECK(unescape_path("n\\xffx.txt") == "n\xFFx.txt");  // either case
  CHECK(unescape_path("a\\b\\x4") == "a\\b\\x4");       // no whole escape: as it is
  CHECK(unescape_path("src/main.c") == "src/main.c");
  CHECK_FALSE(needs_path_escape("caf\xC3\xA9"));
  CHECK(needs_path_escape("a\\xb"));
}

TEST_CASE("escape_path is valid UTF-8 and unescape_path undoes it for any bytes",
          "[agent][path_display][property]") {
  std::mt19937 rng(20261124);
  const std::string alphabet = std::string("ax\\/.\xC3\xA9\xE2\x80\xA8\xFF\xFE\x80\x01\0", 15);
  for (int round = 0; round < 20000; ++round) {
    std::string path;
    const int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      path.push_back(rng() % 7 == 0 ? static_cast<char>(rng() % 256)
                                    : alphabet[rng() % alphabet.size()]);
    }
    const std::string shown = escape_path(path);
    INFO(path);
    CHECK(ctx::is_valid_utf8(shown));
    CHECK(unescape_path(shown) == path);
  }
}

TEST_CASE("every tool shows a name that is not UTF-8 the same way and opens it by that name",
          "[agent][path_display][list_directory][find_files][search_files][read_file]") {
  ToolEnv env;
  env.file("n\xFFx.txt", "needle here\n");
  env.file("d\xFE/a\\xb.txt", "needle deep\n");
  const std::string top = "n\\xFFx.txt";
  const std::string deep = "d\\xFE/a\\x5Cxb.txt";
  struct Call {
    std::string tool;
    std::string args;
  };
  const std::vector<Call> calls = {
      {"list_directory", R"({"depth":3})"},
      {"find_files", R"({"pattern":"**/*.txt"})"},
      {"search_files", R"({"pattern":"needle"})"},
      {"search_files", R"({"pattern":"needle","output_mode":"files_with_matches"})"},
      {"search_files", R"({"pattern":"needle","output_mode":"count"})"},
  };
  for (const Call& c : calls) {
    INFO(c.tool << " " << c.args);
    auto out = env.ok(c.tool, c.args);
    CHECK(ctx::is_valid_utf8(out.text));
    CHECK(ctx::is_valid_utf8(out.structured));
    CHECK(out.text.find(top) != std::string::npos);
    CHECK(out.text.find(deep) != std::string::npos);
    // In JSON each backslash is doubled.
    CHECK(out.structured.find(R"(n\\xFFx.txt)") != std::string::npos);
    CHECK(out.structured.find(R"(d\\xFE/a\\x5Cxb.txt)") != std::string::npos);
    CHECK(out.structured.find("\xEF\xBF\xBD") == std::string::npos);  // nothing lossy
  }
  // The names shown open: read_file, file_info, and as a path of the walking tools.
  for (const std::string& shown : {top, deep}) {
    INFO(shown);
    std::string json_path;
    for (char c : shown) json_path += c == '\\' ? std::string("\\\\") : std::string(1, c);
    auto read = env.ok("read_file", R"({"path":")" + json_path + "\"}");
    CHECK(read.text.find("needle") != std::string::npos);
    simdjson::dom::parser parser;
    CHECK(std::string_view(parse(parser, read.structured)["path"]) == shown);
    auto info = env.ok("file_info", R"({"path":")" + json_path + "\"}");
    CHECK(info.text.find("path: " + shown + "\n") == 0);
    auto search = env.ok("search_files", R"({"pattern":"needle","path":")" + json_path + "\"}");
    CHECK(search.text.find(shown) != std::string::npos);
  }
  auto listed = env.ok("list_directory", R"({"path":"d\\xFE"})");
  CHECK(listed.text.find("d\\xFE/ (1 entry)") == 0);
  auto found = env.ok("find_files", R"({"pattern":"*.txt","path":"d\\xFE"})");
  CHECK(found.text.find(deep) != std::string::npos);
}
