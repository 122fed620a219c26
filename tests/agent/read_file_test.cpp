// read_file: numbered windows of text files within the token budget, without reading past the
// window (a sparse multi-GB file), encodings (UTF-16, BOM, invalid UTF-8, CRLF), refusals
// (binary, directories, FIFOs), and policy-hidden files indistinguishable from missing ones.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../../agent/src/content_cache.hpp"
#include "../../agent/src/json_writer.hpp"
#include "../../agent/src/session.hpp"
#include "ctx/base/utf8.hpp"
#include "open_watch.hpp"
#include "tool_test_env.hpp"

using ctx::agent::ToolErrorCode;
using ctx::agent::testing::parse;
using ctx::agent::testing::ToolEnv;

namespace {

std::string numbered(int from, int to) {
  std::string s;
  for (int i = from; i <= to; ++i) s += "line " + std::to_string(i) + "\n";
  return s;
}

// Bytes this process has read so far (/proc/self/io rchar), or -1 where it cannot be known.
long long bytes_read_so_far() {
  std::ifstream io("/proc/self/io");
  std::string key;
  long long value = -1;
  while (io >> key >> value) {
    if (key == "rchar:") return value;
  }
  return -1;
}

}  // namespace

TEST_CASE("read_file shows numbered lines and says it reached the end", "[agent][read_file]") {
  ToolEnv env;
  env.file("src/a.txt", "alpha\nbeta\ngamma\n");
  auto out = env.ok("read_file", R"({"path":"src/a.txt"})");
  CHECK(out.text == "     1\talpha\n     2\tbeta\n     3\tgamma\n(lines 1–3 of 3, end of file)");
  CHECK_FALSE(out.truncated);
  CHECK(out.tokens == env.counter.count(out.text));
  simdjson::dom::parser parser;
  auto json = parse(parser, out.structured);
  CHECK(int64_t(json["total"]) == 3);
  CHECK(int64_t(json["shown"]) == 3);
  CHECK(bool(json["truncated"]) == false);
  CHECK(json["next_cursor"].is_null());
  CHECK(json["next_offset"].is_null());
  CHECK(std::string_view(json["lines"].at(1)["text"]) == "beta");
  CHECK(int64_t(json["lines"].at(1)["line"]) == 2);
}

TEST_CASE("read_file windows by offset and limit and names the next call", "[agent][read_file]") {
  ToolEnv env;
  env.file("log.txt", numbered(1, 100));
  auto out = env.ok("read_file", R"({"path":"log.txt","offset":10,"limit":5})");
  CHECK(out.text.find("    10\tline 10\n") == 0);
  CHECK(out.text.find("    14\tline 14\n") != std::string::npos);
  CHECK(out.text.find("line 15") == std::string::npos);
  CHECK(out.text.find("lines 10–14 of 100") != std::string::npos);
  CHECK(out.text.find("call read_file with path='log.txt' offset=15") != std::string::npos);
  CHECK(out.truncated);
  simdjson::dom::parser parser;
  auto json = parse(parser, out.structured);
  CHECK(int64_t(json["next_offset"]) == 15);
  CHECK(std::string_view(json["truncated_reason"]) == "limit");
  CHECK(int64_t(json["first_line"]) == 10);
  CHECK(int64_t(json["last_line"]) == 14);
  CHECK(json["lines"].get_array().size() == 5);
}

TEST_CASE("read_file accepts the aliases small models send", "[agent][read_file]") {
  ToolEnv env;
  env.file("a.txt", numbered(1, 20));
  auto a = env.ok("read_file", R"({"file_path":"a.txt","start_line":"3","max_lines":2})");
  auto b = env.ok("read_file", R"({"path":"a.txt","offset":3,"limit":2})");
  CHECK(a.text == b.text);
  auto c = env.ok("read_file", R"({"filepath":"./a.txt","line":3,"count":2,"budget":null})");
  CHECK(c.text == b.text);
  auto d = env.ok("read_file", R"({"file":"a.txt","lines":2,"start_line":3})");
  CHECK(d.text == b.text);
}

TEST_CASE("\"null\", \"None\" and \"undefined\" are absent only for optional parameters",
          "[agent][read_file]") {
  ToolEnv env;
  env.file("null", "x = null;\n");
  env.file("None", "y = None\n");
  env.file("a.txt", numbered(1, 5));
  // A required parameter keeps the word: a file named null, a search for None.
  CHECK(env.ok("read_file", R"({"path":"null"})").text.find("x = null;") != std::string::npos);
  CHECK(env.ok("search_files", R"({"pattern":"None","literal":true})").text.find("y = None") !=
        std::string::npos);
  CHECK(env.ok("search_files", R"({"pattern":"undefined"})").text.find("no matches") !=
        std::string::npos);
  // An optional one takes it for "no value".
  auto plain = env.ok("read_file", R"({"path":"a.txt"})");
  for (const char* none : {"null", "None", "undefined", ""}) {
    CAPTURE(none);
    CHECK(env.ok("read_file",
                 fmt::format(R"({{"path":"a.txt","offset":"{}","limit":"{}"}})", none, none))
              .text == plain.text);
  }
  CHECK(env.error("read_file", R"({"path":null})").code == ToolErrorCode::kInvalidArgument);
}

TEST_CASE("an integer past the parameter's range is out of range, not of the wrong type",
          "[agent][read_file]") {
  ToolEnv env;
  env.file("a.txt", "x\n");
  for (const char* value : {"9223372036854775808", "99999999999999999999", "1e19", "1e400",
                            "\"99999999999999999999\"", "\"-99999999999999999999\"", "0"}) {
    CAPTURE(value);
    auto error = env.error("read_file", fmt::format(R"({{"path":"a.txt","offset":{}}})", value));
    CHECK(error.code == ToolErrorCode::kInvalidArgument);
    CHECK(error.message.find("it must be between 1 and") != std::string::npos);
  }
  auto error = env.error("read_file", R"({"path":"a.txt","offset":"abc"})");
  CHECK(error.message == "parameter 'offset' must be an integer");
}

TEST_CASE("read_file rejects an unknown parameter and lists the valid ones", "[agent][read_file]") {
  ToolEnv env;
  env.file("a.txt", "x\n");
  auto error = env.error("read_file", R"({"path":"a.txt","encoding":"latin1"})");
  CHECK(error.code == ToolErrorCode::kInvalidArgument);
  CHECK(error.message.find("'encoding'") != std::string::npos);
  CHECK(error.message.find("path, offset, limit, max_tokens") != std::string::npos);
}

TEST_CASE("read_file drops CR of CRLF lines and strips a UTF-8 BOM", "[agent][read_file]") {
  ToolEnv env;
  env.file("crlf.txt", "\xEF\xBB\xBFone\r\ntwo\r\nthree");
  auto out = env.ok("read_file", R"({"path":"crlf.txt"})");
  CHECK(out.text == "     1\tone\n     2\ttwo\n     3\tthree\n(lines 1–3 of 3, end of file)");
  CHECK(out.structured.find("\"encoding\":\"utf-8-bom\"") != std::string::npos);
}

TEST_CASE("read_file clips long lines with a marker naming the clipped bytes",
          "[agent][read_file]") {
  ToolEnv env;
  env.config.limits.max_line_bytes = 100;
  env.file("long.txt", "short\n" + std::string(12'445, 'x') + "\nafter\n");
  auto out = env.ok("read_file", R"({"path":"long.txt"})");
  CHECK(out.text.find("     2\t" + std::string(100, 'x') + " … [clipped 12,345 bytes]\n") !=
        std::string::npos);
  CHECK(out.text.find("     3\tafter\n") != std::string::npos);
  simdjson::dom::parser parser;
  auto json = parse(parser, out.structured);
  CHECK(int64_t(json["clipped_lines"]) == 1);
  CHECK(int64_t(json["lines"].at(1)["clipped_bytes"]) == 12'345);
}

TEST_CASE("read_file clips at a UTF-8 boundary and shows invalid UTF-8 lossily",
          "[agent][read_file]") {
  ToolEnv env;
  env.config.limits.max_line_bytes = 20;
  std::string euro_line;
  for (int i = 0; i < 10; ++i) euro_line += "\xE2\x82\xAC";  // 30 bytes, 3 per character
  env.file("u.txt", euro_line + "\nbad \xFF\xFE byte\n");
  auto out = env.ok("read_file", R"({"path":"u.txt"})");
  // 20 bytes cut back to 18 (six whole characters); 12 bytes clipped.
  CHECK(out.text.find("\t" + euro_line.substr(0, 18) + " … [clipped 12 bytes]") !=
        std::string::npos);
  CHECK(out.text.find("bad \xEF\xBF\xBD\xEF\xBF\xBD byte") != std::string::npos);
  CHECK(out.structured.find("\"lossy\":true") != std::string::npos);
  // The text says so too: a model reads the text, not the structured result.
  CHECK(out.text.ends_with(
      "(lines 1–2 of 2, end of file; \xEF\xBF\xBD marks invalid UTF-8 or NUL bytes)"));
  auto clean = env.ok("read_file", R"({"path":"u.txt","limit":1})");
  CHECK(clean.structured.find("\"lossy\":false") != std::string::npos);
  CHECK(clean.text.find("marks invalid") == std::string::npos);
}

TEST_CASE("read_file's lossy note stays within the budget and is there whenever lossy is",
          "[agent][read_file][property]") {
  ToolEnv env;
  std::mt19937 rng(20261124);
  for (int round = 0; round < 80; ++round) {
    std::string content;
    const int n = std::uniform_int_distribution<int>(1, 200)(rng);
    for (int i = 0; i < n; ++i) {
      const int len = std::uniform_int_distribution<int>(0, 80)(rng);
      for (int j = 0; j < len; ++j) {
        const int pick = std::uniform_int_distribution<int>(0, 60)(rng);
        content += pick == 0   ? std::string("\xFF")
                   : pick == 1 ? std::string("\xC3")
                               : std::string(1, static_cast<char>('a' + j % 26));
      }
      content += '\n';
    }
    env.file("l.txt", content);
    const int offset = std::uniform_int_distribution<int>(1, n)(rng);
    const int budget = std::uniform_int_distribution<int>(32, 1500)(rng);
    const std::string args = R"({"path":"l.txt","offset":)" + std::to_string(offset) +
                             R"(,"max_tokens":)" + std::to_string(budget) + "}";
    INFO(args);
    auto out = env.ok("read_file", args);
    CHECK(env.counter.count(out.text) <= static_cast<std::size_t>(budget));
    simdjson::dom::parser parser;
    auto json = parse(parser, out.structured);
    const bool noted = out.text.find("marks invalid UTF-8") != std::string::npos;
    CHECK(noted == (bool(json["lossy"]) && int64_t(json["shown"]) > 0));
    if (noted) CHECK(out.text.find("\xEF\xBF\xBD") < out.text.find("marks invalid UTF-8"));
  }
}

TEST_CASE("read_file transcodes UTF-16 files with a BOM", "[agent][read_file]") {
  ToolEnv env;
  auto utf16le = [](std::string_view ascii) {
    std::string s = "\xFF\xFE";
    for (char c : ascii) {
      s.push_back(c);
      s.push_back('\0');
    }
    return s;
  };
  env.file("w.txt", utf16le("hello\r\nworld\r\n"));
  std::string be = "\xFE\xFF";
  be += std::string("\0h\0i\0\n", 6);
  be += std::string("\xD8\x3D\xDE\x00", 4);  // U+1F600 as a surrogate pair
  env.file("be.txt", be);
  auto out = env.ok("read_file", R"({"path":"w.txt"})");
  CHECK(out.text == "     1\thello\n     2\tworld\n(lines 1–2 of 2, end of file)");
  CHECK(out.structured.find("\"encoding\":\"utf-16le\"") != std::string::npos);
  auto out_be = env.ok("read_file", R"({"path":"be.txt"})");
  CHECK(out_be.text == "     1\thi\n     2\t\xF0\x9F\x98\x80\n(lines 1–2 of 2, end of file)");
}

TEST_CASE("read_file transcodes a UTF-16 file across chunk boundaries", "[agent][read_file]") {
  ToolEnv env;
  // 40,000 lines of an emoji (a surrogate pair) plus a digit: chunks of 64 KiB split pairs.
  std::string s = "\xFF\xFE";
  std::string expect_line =
      "\xF0\x9F\x98\x80"
      "7";
  for (int i = 0; i < 40'000; ++i)
    s += std::string(
        "\x3D\xD8\x00\xDE"
        "7\0\n\0",
        8);
  env.file("big16.txt", s);
  auto out = env.ok("read_file", R"({"path":"big16.txt","offset":39990,"max_tokens":100000})");
  CHECK(out.text.find(" 39990\t" + expect_line + "\n") != std::string::npos);
  CHECK(out.text.find(" 40000\t" + expect_line + "\n") != std::string::npos);
  CHECK(out.text.find("\xEF\xBF\xBD") == std::string::npos);  // no pair was broken
  CHECK(out.text.find("of 40,000, end of file") != std::string::npos);
}

TEST_CASE("read_file refuses binary files, directories and FIFOs with the next call",
          "[agent][read_file]") {
  ToolEnv env;
  env.file("bin.dat", std::string("\x7F"
                                  "ELF\0\0\x01",
                                  7));
  env.dir("src/sub");
  REQUIRE(::mkfifo((env.root() / "pipe").c_str(), 0600) == 0);
  auto binary = env.error("read_file", R"({"path":"bin.dat"})");
  CHECK(binary.code == ToolErrorCode::kBinary);
  CHECK(binary.hint.find("file_info") != std::string::npos);
  auto dir = env.error("read_file", R"({"path":"src/sub"})");
  CHECK(dir.code == ToolErrorCode::kNotAFile);
  CHECK(dir.hint == "call list_directory with path='src/sub'");
  auto fifo = env.error("read_file", R"({"path":"pipe"})");  // must not hang
  CHECK(fifo.code == ToolErrorCode::kSpecialFile);
}

TEST_CASE("read_file of an empty file and past the end", "[agent][read_file]") {
  ToolEnv env;
  env.file("empty.txt", "");
  env.file("three.txt", "a\nb\nc\n");
  auto empty = env.ok("read_file", R"({"path":"empty.txt"})");
  CHECK(empty.text == "(empty file: 0 lines)");
  CHECK_FALSE(empty.truncated);
  auto past = env.error("read_file", R"({"path":"three.txt","offset":4})");
  CHECK(past.code == ToolErrorCode::kInvalidArgument);
  CHECK(past.message == "offset 4 is past the end of 'three.txt' (3 lines)");
  CHECK(past.hint.find("from 1 to 3") != std::string::npos);
  auto last = env.ok("read_file", R"({"path":"three.txt","offset":3})");
  CHECK(last.text == "     3\tc\n(lines 3–3 of 3, end of file)");
}

TEST_CASE("read_file says when not even one line fits the budget", "[agent][read_file]") {
  ToolEnv env;
  env.file("wide.txt", std::string(400, 'w') + "\n");
  auto out = env.ok("read_file", R"({"path":"wide.txt","max_tokens":40})");
  CHECK(out.tokens <= 40);
  CHECK(out.truncated);
  CHECK(out.text.find("does not fit") != std::string::npos);
  CHECK(out.structured.find("\"next_offset\":1") != std::string::npos);
}

TEST_CASE("read_file never exceeds the budget and shows a gapless prefix of the window",
          "[agent][read_file][property]") {
  ToolEnv env;
  std::mt19937 rng(20261122);
  env.config.limits.max_line_bytes = 300;
  for (int round = 0; round < 60; ++round) {
    // A random file: lines of random length (some past the clip limit), some non-ASCII.
    std::vector<std::string> lines;
    std::string content;
    const int n = std::uniform_int_distribution<int>(1, 400)(rng);
    for (int i = 0; i < n; ++i) {
      int len = std::uniform_int_distribution<int>(0, 20)(rng) == 0
                    ? std::uniform_int_distribution<int>(300, 2000)(rng)
                    : std::uniform_int_distribution<int>(0, 120)(rng);
      std::string line;
      for (int j = 0; j < len; ++j) {
        line += std::uniform_int_distribution<int>(0, 30)(rng) == 0
                    ? "\xC3\xA9"
                    : std::string(1, static_cast<char>('a' + j % 26));
      }
      lines.push_back(line);
      content += line + (i + 1 < n || line.empty() || rng() % 2 ? "\n" : "");
    }
    env.file("r.txt", content);
    const int offset = std::uniform_int_distribution<int>(1, n)(rng);
    const int budget = std::uniform_int_distribution<int>(32, 3000)(rng);
    std::string args = R"({"path":"r.txt","offset":)" + std::to_string(offset) +
                       R"(,"max_tokens":)" + std::to_string(budget) + "}";
    INFO(args);
    auto out = env.ok("read_file", args);
    CHECK(env.counter.count(out.text) <= static_cast<std::size_t>(budget));
    CHECK(out.tokens <= static_cast<std::size_t>(budget));
    simdjson::dom::parser parser;
    auto json = parse(parser, out.structured);
    int expect = offset;
    for (auto line : json["lines"].get_array()) {
      REQUIRE(int64_t(line["line"]) == expect);
      std::string_view text = line["text"];
      const std::string& want = lines[static_cast<std::size_t>(expect - 1)];
      if (line["clipped_bytes"].error() == simdjson::SUCCESS) {
        CHECK(want.substr(0, text.size()) == text);
        CHECK(text.size() + static_cast<std::size_t>(int64_t(line["clipped_bytes"])) ==
              want.size());
      } else {
        CHECK(text == want);
      }
      // The text shows the line the structured result lists.
      CHECK(out.text.find(std::to_string(expect) + "\t" + std::string(text)) != std::string::npos);
      ++expect;
    }
    CHECK(int64_t(json["total"]) == n);
    if (expect <= n) {
      CHECK(bool(json["truncated"]));
      CHECK(int64_t(json["next_offset"]) == expect);
      CHECK(out.text.find("offset=" + std::to_string(expect)) != std::string::npos);
    } else {
      CHECK_FALSE(bool(json["truncated"]));
    }
  }
}

TEST_CASE("read_file windows a sparse multi-gigabyte file without reading it",
          "[agent][read_file]") {
  ToolEnv env;
  const std::string head = numbered(1, 3000);  // ~30 KB of text before the hole
  env.file("huge.log", head);
  {
    int fd = ::open((env.root() / "huge.log").c_str(), O_WRONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, off_t{3} << 30) == 0);  // 3 GiB, sparse
    ::close(fd);
  }
  const long long before = bytes_read_so_far();
  auto out = env.ok("read_file", R"({"path":"huge.log","offset":1,"limit":20})");
  const long long after = bytes_read_so_far();
  if (before >= 0 && after >= 0) {
    CHECK(after - before < (1 << 20));  // a few 64 KiB chunks, not 3 GiB
  }
  CHECK(out.text.find("     1\tline 1\n") == 0);
  CHECK(out.text.find("    20\tline 20\n") != std::string::npos);
  CHECK(out.text.find("not counted: the file has 3,221,225,472 bytes") != std::string::npos);
  CHECK(out.text.find("offset=21") != std::string::npos);
  simdjson::dom::parser parser;
  auto json = parse(parser, out.structured);
  CHECK(json["total"].is_null());
  CHECK(bool(json["total_exact"]) == false);
  CHECK(int64_t(json["total_at_least"]) == 21);
  // A window deeper in the text: still no reading of the 3 GiB hole.
  auto deep = env.ok("read_file", R"({"path":"huge.log","offset":2990,"limit":5})");
  CHECK(deep.text.find("  2990\tline 2990\n") == 0);
  CHECK(deep.structured.find("\"total\":null") != std::string::npos);
}

TEST_CASE("read_file of a policy-hidden file fails exactly as for a missing file",
          "[agent][read_file][policy]") {
  ctx::agent::PolicyConfig policy;
  policy.deny = {"private/"};
  ToolEnv env(policy);
  env.file(".env", "TOKEN=hunter2\n");
  env.file("private/notes.txt", "secret\n");
  env.file("src/id_rsa", "KEY\n");
  env.symlink("../.env", "src/env_link");
  for (std::string path : {".env", "private/notes.txt", "src/id_rsa", "./.env", "private"}) {
    std::string args = R"({"path":")" + path + "\"}";
    INFO(path);
    auto hidden = env.error("read_file", args);
    CHECK(hidden.code == ToolErrorCode::kNotFound);
    std::filesystem::remove_all(env.root() / path);
    auto missing = env.error("read_file", args);
    CHECK(to_json(hidden) == to_json(missing));
  }
  // A symlink that leads to a hidden file hides it too.
  env.file(".env", "TOKEN=hunter2\n");
  auto via_link = env.error("read_file", R"({"path":"src/env_link"})");
  CHECK(via_link.code == ToolErrorCode::kNotFound);
  CHECK(via_link.message.find("hunter2") == std::string::npos);
}

TEST_CASE("read_file stops at the deadline or on cancellation and says so", "[agent][read_file]") {
  ToolEnv env;
  env.file("a.txt", numbered(1, 50));
  std::atomic<bool> cancelled{true};
  auto out = env.call("read_file", R"({"path":"a.txt"})", std::chrono::seconds(30), &cancelled);
  REQUIRE(out.ok());
  CHECK(out->truncated);
  CHECK(out->structured.find("\"truncated_reason\":\"cancelled\"") != std::string::npos);
  CHECK(out->text.find("offset=1") != std::string::npos);
  auto deep = env.call("read_file", R"({"path":"a.txt","offset":20})", std::chrono::seconds(0));
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.error().code == ToolErrorCode::kTimeout);
}

TEST_CASE("read_file's structured results match its published output schema",
          "[agent][read_file][schema]") {
  ToolEnv env;
  env.config.limits.max_line_bytes = 50;
  env.file("a.txt", numbered(1, 30) + std::string(200, 'z') + "\n");
  env.file("empty.txt", "");
  for (const char* args : {R"({"path":"a.txt"})", R"({"path":"a.txt","offset":5,"limit":3})",
                           R"({"path":"a.txt","max_tokens":32})", R"({"path":"empty.txt"})"}) {
    INFO(args);
    ctx::agent::testing::check_output_schema("read_file", env.ok("read_file", args).structured);
  }
}

TEST_CASE("read_file lists exactly the lines its text shows under a non-additive counter",
          "[agent][read_file][budget]") {
  ToolEnv env;
  ctx::agent::testing::LumpyCounter lumpy;
  env.counter_override = &lumpy;
  env.file("a.txt", numbered(1, 500));
  for (int budget : {32, 50, 200, 400, 1000, 3000}) {
    INFO(budget);
    auto out =
        env.ok("read_file", R"({"path":"a.txt","max_tokens":)" + std::to_string(budget) + "}");
    CHECK(lumpy.count(out.text) <= static_cast<std::size_t>(budget));
    simdjson::dom::parser parser;
    auto json = parse(parser, out.structured);
    int64_t last = 0;
    for (auto line : json["lines"].get_array()) {
      last = int64_t(line["line"]);
      CHECK(out.text.find(std::to_string(last) + "\tline " + std::to_string(last) + "\n") !=
            std::string::npos);
    }
    CHECK(int64_t(json["next_offset"]) == last + 1);
    // (16 tokens cannot hold a footer naming the next call; the structured result still does.)
    if (budget > 16) {
      CHECK(out.text.find("offset=" + std::to_string(last + 1)) != std::string::npos);
    }
  }
}

TEST_CASE("read_file stops at the output size cap whatever the budget", "[agent][read_file]") {
  ToolEnv env;
  env.config.limits.max_output_bytes = 300;
  env.file("a.txt", numbered(1, 200));
  auto out = env.ok("read_file", R"({"path":"a.txt","max_tokens":100000})");
  simdjson::dom::parser parser;
  auto json = parse(parser, out.structured);
  CHECK(std::string_view(json["truncated_reason"]) == "output_cap");
  CHECK(out.text.find("cut at the output size cap") != std::string::npos);
  const auto shown = static_cast<std::size_t>(int64_t(json["shown"]));
  CHECK(shown > 5);
  CHECK(shown < 30);
  CHECK(int64_t(json["next_offset"]) == static_cast<int64_t>(shown) + 1);
}

TEST_CASE("read_file shows a NUL byte past the first 8 KiB as U+FFFD", "[agent][read_file]") {
  ToolEnv env;
  std::string text = numbered(1, 1000);  // ~9 KB of text before the NUL
  text += std::string("tail\0end\n", 9);
  env.file("late_nul.txt", text);
  auto out = env.ok("read_file", R"({"path":"late_nul.txt","offset":1001})");
  CHECK(out.text.find("  1001\ttail\xEF\xBF\xBD"
                      "end\n") == 0);
  CHECK(out.structured.find("\"lossy\":true") != std::string::npos);
}

TEST_CASE("read_file's text_json is its text escaped for a JSON string, whatever the lines hold",
          "[agent][read_file][property]") {
  ToolEnv env;
  ctx::agent::testing::LumpyCounter lumpy;
  std::mt19937 rng(20261123);
  env.config.limits.max_line_bytes = 200;
  // Bytes that JSON escapes or that make a line lossy, among plain ones.
  const std::vector<std::string> odd = {
      "\"",   "\\",   "\t",       "\r",           "\x01",
      "\x1f", "\x7f", "\xC3\xA9", "\xE2\x80\xA8", "\xFF",
      "\xC3", "'",    "\f",       "\b",           "\xF0\x9F\x98\x80",
      "\r\n"};
  int with_json = 0;
  for (int round = 0; round < 80; ++round) {
    std::string content;
    const int n = std::uniform_int_distribution<int>(1, 120)(rng);
    for (int i = 0; i < n; ++i) {
      const int len = std::uniform_int_distribution<int>(0, 12)(rng) == 0
                          ? std::uniform_int_distribution<int>(200, 600)(rng)
                          : std::uniform_int_distribution<int>(0, 60)(rng);
      for (int j = 0; j < len; ++j) {
        content += std::uniform_int_distribution<int>(0, 6)(rng) == 0
                       ? odd[std::uniform_int_distribution<std::size_t>(0, odd.size() - 1)(rng)]
                       : std::string(1, static_cast<char>('a' + j % 26));
      }
      if (i + 1 < n || rng() % 2) content += "\n";
    }
    env.file("e.txt", content);
    env.counter_override = round % 4 == 3 ? &lumpy : nullptr;
    env.count_tokens = round % 2 == 0;
    std::string args = R"({"path":"e.txt","offset":)" +
                       std::to_string(std::uniform_int_distribution<int>(1, n)(rng)) +
                       R"(,"max_tokens":)" +
                       std::to_string(std::uniform_int_distribution<int>(32, 4000)(rng));
    if (rng() % 3 == 0) args += R"(,"limit":)" + std::to_string(rng() % 50 + 1);
    args += "}";
    INFO(args << " round " << round);
    auto out = env.ok("read_file", args);
    if (out.text_json.empty()) continue;  // the server escapes `text` itself
    ++with_json;
    std::string want;
    ctx::agent::append_json_body(want, ctx::agent::lossy_utf8(out.text));
    REQUIRE(out.text_json == want);
  }
  CHECK(with_json >= 60);  // the usual call escapes its lines once
}

TEST_CASE("read_file without count_tokens returns the same text and structure",
          "[agent][read_file][budget]") {
  ToolEnv env;
  env.file("a.txt", numbered(1, 300));
  for (int budget : {32, 100, 1000, 1000000}) {
    const std::string args = R"({"path":"a.txt","max_tokens":)" + std::to_string(budget) + "}";
    INFO(args);
    env.count_tokens = true;
    auto counted = env.ok("read_file", args);
    env.count_tokens = false;
    auto uncounted = env.ok("read_file", args);
    CHECK(uncounted.text == counted.text);
    CHECK(uncounted.text_json == counted.text_json);
    CHECK(uncounted.structured == counted.structured);
    CHECK(counted.tokens == env.counter.count(counted.text));
    // Skipped only where the pieces' bounds already proved the whole fits.
    CHECK((uncounted.tokens == counted.tokens || uncounted.tokens == 0));
    if (budget == 1000000) CHECK(uncounted.tokens == 0);
  }
}

TEST_CASE("read_file shows NUL bytes, invalid UTF-8 and escaped bytes right on lines across chunks",
          "[agent][read_file][property]") {
  // Lines shown whole from a read chunk are judged by where they lie in it (the chunk's next NUL,
  // next byte to escape, validated UTF-8 prefix); a wrong judgement would put a NUL or invalid
  // UTF-8 in the text, or a raw control byte in the structured result.
  ToolEnv env;
  std::mt19937 rng(77);
  env.config.limits.max_line_bytes = 300;
  const std::vector<std::string> odd = {
      std::string(1, '\0'), "\t",           "\"", "\\", "\x01", "\xFF", "\xC3",
      "\xC3\xA9",           "\xE6\xBC\xA2", "\r"};
  for (int round = 0; round < 12; ++round) {
    std::string content;
    const int lines = 2000 + static_cast<int>(rng() % 4000);  // 2-5 chunks of 64 KiB
    const unsigned odd_every = round % 3 == 0 ? 400 : round % 3 == 1 ? 40 : 4;
    for (int i = 0; i < lines; ++i) {
      const int len = static_cast<int>(rng() % 60);
      for (int j = 0; j < len; ++j) {
        content += rng() % odd_every == 0 ? odd[rng() % odd.size()]
                                          : std::string(1, static_cast<char>('a' + j % 26));
      }
      if (rng() % 50 == 0) content += std::string(400, 'L');  // clipped
      content += "\n";
    }
    // No NUL in the first 8 KiB, which would make the file binary.
    for (std::size_t i = 0; i < 8192 && i < content.size(); ++i) {
      if (content[i] == '\0') content[i] = '0';
    }
    env.file("m.txt", content);
    const std::string args =
        R"({"path":"m.txt","max_tokens":1000000,"offset":)" + std::to_string(1 + rng() % 100) + "}";
    INFO(args << " round " << round);
    auto out = env.ok("read_file", args);
    REQUIRE(out.text.find('\0') == std::string::npos);
    REQUIRE(ctx::is_valid_utf8(out.text));
    if (!out.text_json.empty()) {
      std::string want;
      ctx::agent::append_json_body(want, out.text);
      REQUIRE(out.text_json == want);
    }
    simdjson::dom::parser parser;
    auto json = parse(parser, out.structured);  // fails on a raw control byte in a string
    std::size_t at = 0;
    std::size_t shown = 0;
    for (auto line : json["lines"].get_array()) {
      const std::size_t tab = out.text.find('\t', at);
      const std::size_t end = out.text.find('\n', tab);
      REQUIRE(end != std::string::npos);
      const std::string_view shown_text = std::string_view(out.text).substr(tab + 1, end - tab - 1);
      REQUIRE(shown_text.substr(0, std::string_view(line["text"]).size()) ==
              std::string_view(line["text"]));
      at = end + 1;
      ++shown;
    }
    CHECK(shown > 1000);
  }
}

TEST_CASE("read_file numbers lines right across digit boundaries and past six columns",
          "[agent][read_file]") {
  // The renderer increments the number's text from line to line; check it against formatting
  // each number anew, where a carry adds a digit and where numbers outgrow the 6 columns.
  ToolEnv env;
  std::string content;
  constexpr int kLines = 1'000'012;
  content.reserve(kLines * 2);
  for (int i = 1; i <= kLines; ++i) content += i % 2 ? "x\n" : "y\n";
  env.file("n.txt", content);
  for (const auto& [offset, limit] : std::vector<std::pair<int, int>>{
           {1, 120}, {95, 10}, {998, 5}, {99'990, 20}, {999'990, 22}, {1'000'000, 12}}) {
    const std::string args = R"({"path":"n.txt","max_tokens":1000000,"offset":)" +
                             std::to_string(offset) + R"(,"limit":)" + std::to_string(limit) + "}";
    INFO(args);
    auto out = env.ok("read_file", args);
    std::string want;
    std::string want_lines;
    for (int i = offset; i < offset + limit && i <= kLines; ++i) {
      char line[64];
      std::snprintf(line, sizeof line, "%6d\t%s\n", i, i % 2 ? "x" : "y");
      want += line;
      std::snprintf(line, sizeof line, R"(%s{"line":%d,"text":"%s"})", i == offset ? "" : ",", i,
                    i % 2 ? "x" : "y");
      want_lines += line;
    }
    REQUIRE(out.text.substr(0, want.size()) == want);
    REQUIRE(out.text.find('(', want.size()) == want.size());  // the footer follows
    REQUIRE(out.structured.find(R"("lines":[)" + want_lines + "]") != std::string::npos);
    std::string escaped;
    ctx::agent::append_json_body(escaped, out.text);
    if (!out.text_json.empty()) REQUIRE(out.text_json == escaped);
  }
}

TEST_CASE("read_file in a session keeps a result for an unchanged file, and never a racy one",
          "[agent][read_file][content_cache]") {
  ToolEnv env;
  ctx::agent::SessionState session;
  env.session = &session;
  const std::string args = R"({"path":"a.txt"})";
  // Fresh files are racy (a write within the same timestamp tick could leave the stat as it
  // was): rewritten in place with the same size right after each call, each read sees the new
  // bytes, and nothing is kept.
  for (const char* version : {"version 1\n", "version 2\n", "version 3\n"}) {
    env.file("a.txt", version);
    CHECK(env.ok("read_file", args).text.find(version) != std::string::npos);
  }
  CHECK(session.impl().reads.size() == 0);
  // Once its stat is older than the racy window, a read is kept and the next identical call is
  // served without opening the file.
  env.file("old.txt", "one\ntwo\nthree\n");
  const auto racy_window = std::chrono::nanoseconds(ctx::agent::ContentCache::kRacyWindowNs);
  std::this_thread::sleep_for(racy_window + std::chrono::milliseconds(100));
  const std::string old_args = R"({"path":"old.txt","offset":2})";
  const ctx::agent::ToolOutput first = env.ok("read_file", old_args);
  CHECK(session.impl().reads.size() == 1);
  ctx::testing::OpenWatch watch(env.root().string());
  const ctx::agent::ToolOutput again = env.ok("read_file", old_args);
  CHECK(watch.opened().count("old.txt") == 0);
  CHECK(again.text == first.text);
  CHECK(again.structured == first.structured);
  CHECK(again.text_json == first.text_json);
  CHECK(again.tokens == first.tokens);
  // Other arguments: another result, read from the file.
  CHECK(env.ok("read_file", R"({"path":"old.txt"})").text.find("one") != std::string::npos);
  CHECK(watch.opened().count("old.txt") == 1);
  CHECK(session.impl().reads.size() == 2);
  // Changed (another size, a new ctime): read again, and the new (racy) version is not kept.
  env.file("old.txt", "one\nTWO\nthree\nfour\n");
  const ctx::agent::ToolOutput changed = env.ok("read_file", old_args);
  CHECK(changed.text.find("TWO") != std::string::npos);
  CHECK(watch.opened().count("old.txt") == 1);
  CHECK(session.impl().reads.size() == 2);
  // A read cut short by the deadline is not kept either.
  env.file("slow.txt", "x\n");
  std::this_thread::sleep_for(racy_window + std::chrono::milliseconds(100));
  static_cast<void>(env.call("read_file", R"({"path":"slow.txt"})", std::chrono::milliseconds(0)));
  CHECK(session.impl().reads.size() == 2);
}

TEST_CASE("a missing path written with backslashes or as a glob gets the call to make",
          "[agent][read_file]") {
  ToolEnv env;
  env.file("src/a.py", "x\n");
  auto windows = env.error("read_file", R"({"path":"src\\a.py"})");
  CHECK(windows.code == ToolErrorCode::kNotFound);
  CHECK(windows.hint == "paths here use '/': try path='src/a.py'");
  auto glob = env.error("read_file", R"({"path":"src/*.py"})");
  CHECK(glob.code == ToolErrorCode::kNotFound);
  CHECK(glob.hint.find("find_files with pattern='src/*.py'") != std::string::npos);
  CHECK(glob.hint.find("path='src' and glob='*.py'") != std::string::npos);
}
