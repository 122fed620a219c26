// file_info: kind, size, time, line count, encoding and the git blob id of one path; large files
// skip the costly parts and say so; hidden paths fail exactly as missing ones.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <random>
#include <string>

#include "tool_test_env.hpp"

using ctx::agent::ToolErrorCode;
using ctx::agent::testing::parse;
using ctx::agent::testing::ToolEnv;

namespace {

// `git hash-object` of a file, or "" when git is not installed.
std::string git_hash_object(const std::filesystem::path& file) {
  std::string cmd = "git hash-object '" + file.string() + "' 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return {};
  char buf[128] = {};
  std::string out;
  if (std::fgets(buf, sizeof buf, p) != nullptr) out = buf;
  ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

void set_mtime(const std::filesystem::path& file, time_t seconds) {
  struct timeval times[2] = {{seconds, 0}, {seconds, 0}};
  REQUIRE(::utimes(file.c_str(), times) == 0);
}

}  // namespace

TEST_CASE("file_info reports size, time, lines, encoding and the git blob id",
          "[agent][file_info]") {
  ToolEnv env;
  env.file("src/main.c", "int main(void) {\n  return 0;\n}");
  set_mtime(env.root() / "src/main.c", 1'700'000'000);  // 2023-11-14T22:13:20Z
  auto out = env.ok("file_info", R"({"path":"src/main.c"})");
  simdjson::dom::parser parser;
  auto json = parse(parser, out.structured);
  CHECK(std::string_view(json["kind"]) == "file");
  CHECK(int64_t(json["size"]) == 30);
  CHECK(std::string_view(json["mtime"]) == "2023-11-14T22:13:20Z");
  CHECK(int64_t(json["lines"]) == 3);
  CHECK(std::string_view(json["encoding"]) == "utf-8");
  // `git hash-object` of the same bytes (computed by hand when git is missing).
  std::string expect = git_hash_object(env.root() / "src/main.c");
  if (expect.empty()) expect = "971f78904139fb87d01d4387b5a87a3761930fb1";
  CHECK(std::string_view(json["hash"]) == expect.substr(0, 12));
  CHECK(out.text.find("git blob id: " + expect.substr(0, 12)) != std::string::npos);
  CHECK(out.text.find("size: 30 bytes") != std::string::npos);
  CHECK(out.text.find("modified: 2023-11-14T22:13:20Z") != std::string::npos);
  CHECK(out.text.find("lines: 3") != std::string::npos);
}

TEST_CASE("file_info's hash is the git blob id of the empty file", "[agent][file_info]") {
  ToolEnv env;
  env.file("empty", "");
  auto out = env.ok("file_info", R"({"file_path":"empty"})");
  // e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 is git's empty blob.
  CHECK(out.structured.find("\"hash\":\"e69de29bb2d1\"") != std::string::npos);
  CHECK(out.structured.find("\"lines\":0") != std::string::npos);
}

TEST_CASE("file_info names encodings", "[agent][file_info]") {
  ToolEnv env;
  env.file("bom.txt", "\xEF\xBB\xBFhi\n");
  env.file("le.txt", std::string("\xFF\xFEh\0i\0\n\0x\0", 10));
  env.file("be.txt", std::string("\xFE\xFF\0h\0\n", 6));
  env.file("latin1.txt", "caf\xE9\n");
  env.file("bin", std::string("\x89PNG\0\0", 6));
  auto encoding = [&](const char* path) {
    auto out = env.ok("file_info", std::string(R"({"path":")") + path + "\"}");
    simdjson::dom::parser parser;
    auto json = parse(parser, out.structured);
    return std::pair(std::string(std::string_view(json["encoding"])),
                     json["lines"].is_null() ? int64_t{-1} : int64_t(json["lines"]));
  };
  CHECK(encoding("bom.txt") == std::pair(std::string("utf-8-bom"), int64_t{1}));
  CHECK(encoding("le.txt") == std::pair(std::string("utf-16le"), int64_t{2}));
  CHECK(encoding("be.txt") == std::pair(std::string("utf-16be"), int64_t{1}));
  CHECK(encoding("latin1.txt") == std::pair(std::string("non-utf8"), int64_t{1}));
  CHECK(encoding("bin") == std::pair(std::string("binary"), int64_t{-1}));
}

TEST_CASE("file_info describes directories and FIFOs without reading them", "[agent][file_info]") {
  ToolEnv env;
  env.dir("src/lib");
  REQUIRE(::mkfifo((env.root() / "src/fifo").c_str(), 0600) == 0);
  auto dir = env.ok("file_info", R"({"directory":"src/lib"})");
  CHECK(dir.structured.find("\"kind\":\"dir\"") != std::string::npos);
  CHECK(dir.structured.find("\"hash\":null") != std::string::npos);
  // Neither its size nor its mtime: both move with entries the policy hides.
  CHECK(dir.structured.find("\"mtime\":null") != std::string::npos);
  CHECK(dir.structured.find("\"size\":null") != std::string::npos);
  CHECK(dir.text.find("modified:") == std::string::npos);
  auto root = env.ok("file_info", R"({"path":"."})");
  CHECK(root.text.find("path: .\nkind: dir\n") == 0);
  auto fifo = env.ok("file_info", R"({"path":"src/fifo"})");  // must not hang
  CHECK(fifo.structured.find("\"kind\":\"special\"") != std::string::npos);
}

TEST_CASE("file_info skips line count and hash above its size cap and says so",
          "[agent][file_info]") {
  ToolEnv env;
  env.file("big.log", "first line\n");
  int fd = ::open((env.root() / "big.log").c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, off_t{5} << 30) == 0);  // 5 GiB, sparse
  ::close(fd);
  auto out = env.ok("file_info", R"({"path":"big.log"})");
  simdjson::dom::parser parser;
  auto json = parse(parser, out.structured);
  CHECK(int64_t(json["size"]) == int64_t{5} << 30);
  CHECK(json["lines"].is_null());
  CHECK(json["hash"].is_null());
  CHECK(std::string_view(json["skipped"]).find("larger than 64 MiB") != std::string_view::npos);
  CHECK(out.text.find("no line count or hash") != std::string::npos);
  // NUL bytes of the hole start after 11 bytes: the sniffed head says binary.
  CHECK(std::string_view(json["encoding"]) == "binary");
}

TEST_CASE("file_info shows where an in-root symlink leads", "[agent][file_info]") {
  ToolEnv env;
  env.file("real/target.txt", "x\n");
  env.symlink("real/target.txt", "alias.txt");
  auto out = env.ok("file_info", R"({"path":"alias.txt"})");
  CHECK(out.structured.find("\"path\":\"real/target.txt\"") != std::string::npos);
}

TEST_CASE("file_info of a hidden path fails exactly as for a missing path",
          "[agent][file_info][policy]") {
  ToolEnv env;
  env.file(".env.local", "A=1\n");
  env.file("certs/server.pem", "PEM\n");
  env.dir(".git/objects");
  for (std::string path : {".env.local", "certs/server.pem", ".git", ".git/objects"}) {
    INFO(path);
    std::string args = R"({"path":")" + path + "\"}";
    auto hidden = env.error("file_info", args);
    CHECK(hidden.code == ToolErrorCode::kNotFound);
    std::filesystem::remove_all(env.root() / path);
    CHECK(to_json(hidden) == to_json(env.error("file_info", args)));
  }
}

TEST_CASE("file_info keeps its text within max_tokens", "[agent][file_info][property]") {
  ToolEnv env;
  env.file("dir/some-file-with-a-long-name.txt", "a\nb\n");
  for (int budget = 32; budget <= 120; ++budget) {
    auto out = env.ok("file_info", R"({"path":"dir/some-file-with-a-long-name.txt","max_tokens":)" +
                                       std::to_string(budget) + "}");
    CHECK(env.counter.count(out.text) <= static_cast<std::size_t>(budget));
    // A cut text says so, whole (never a footer cut short).
    if (out.truncated) {
      CAPTURE(out.text);
      CHECK((out.text.ends_with("a larger max_tokens for the rest)") ||
             out.text.starts_with("(the next call does not fit in max_tokens=")));
    }
  }
  auto error = env.error("file_info", R"({"path":"x","max_tokens":31})");
  CHECK(error.code == ToolErrorCode::kInvalidArgument);
  CHECK(error.message.find("between 32 and") != std::string::npos);
}

TEST_CASE("file_info's structured results match its published output schema",
          "[agent][file_info][schema]") {
  ToolEnv env;
  env.file("a.txt", "a\n");
  env.file("bin", std::string("\0\1", 2));
  env.dir("d");
  for (const char* args : {R"({"path":"a.txt"})", R"({"path":"bin"})", R"({"path":"d"})"}) {
    INFO(args);
    ctx::agent::testing::check_output_schema("file_info", env.ok("file_info", args).structured);
  }
}
