// search_files end to end through call_tool: results by path then line, aliases small models
// send, invalid patterns, globs, skipped files by reason, the policy (hidden files appear nowhere),
// deadlines, and the budget properties: for random trees, budgets and page sizes the text never
// exceeds max_tokens, says when something was cut, and paging with the cursor (with and without a
// session, with the estimator and with a non-additive counter) shows every match exactly once.
#include <fmt/format.h>
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "../../agent/src/sandbox_detail.hpp"
#include "../../agent/src/session.hpp"
#include "../../agent/src/tool_common.hpp"
#include "ctx/agent/budget.hpp"
#include "ctx/agent/policy.hpp"
#include "ctx/agent/sandbox.hpp"
#include "ctx/agent/tools.hpp"

namespace fs = std::filesystem;
using namespace ctx::agent;

namespace {

class TempTree {
 public:
  TempTree() {
    std::string tmpl = (fs::temp_directory_path() / "ctxsearchXXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    root_ = tmpl;
  }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  void file(const std::string& rel, const std::string& text) const {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel, std::ios::binary) << text;
  }
  const fs::path& root() const { return root_; }

 private:
  fs::path root_;
};

// Charges the whole text more than the sum of its pieces (each line break costs 3 tokens in a
// text of several lines, none at the end of a one-line piece), like a tokenizer whose merges
// differ across piece boundaries.
class NonAdditiveCounter final : public TokenCounter {
 public:
  std::size_t count(std::string_view text) const override {
    std::size_t newlines = 0;
    for (char c : text) newlines += c == '\n' ? 1 : 0;
    const bool one_line = newlines == 1 && !text.empty() && text.back() == '\n';
    return (text.size() + 3) / 4 + (one_line ? 0 : 3 * newlines);
  }
  std::string_view name() const override { return "test-non-additive"; }
};

struct Env {
  explicit Env(const TempTree& tree, const PolicyConfig& policy_config = {}, Limits limits = {},
               const TokenCounter* counter_override = nullptr)
      : sandbox(open_sandbox(tree)), policy(build_policy(policy_config)) {
    config.limits = limits;
    counter = counter_override != nullptr ? counter_override : &estimator;
  }
  static Sandbox open_sandbox(const TempTree& tree) {
    auto s = Sandbox::open(tree.root().string());
    REQUIRE(s.ok());
    return std::move(s).value();
  }
  static Policy build_policy(const PolicyConfig& config) {
    auto p = Policy::build(config);
    REQUIRE(p.ok());
    return std::move(p).value();
  }
  CallContext context(SessionState* session = nullptr,
                      std::chrono::milliseconds deadline = std::chrono::seconds(60)) const {
    return CallContext{
        sandbox, policy, *counter, config, std::chrono::steady_clock::now() + deadline,
        nullptr, session};
  }
  Expected<ToolOutput> call(const std::string& args, SessionState* session = nullptr) const {
    return call_tool("search_files", args, context(session));
  }
  ToolOutput ok(const std::string& args, SessionState* session = nullptr) const {
    auto out = call(args, session);
    INFO(args << " -> " << (out.ok() ? std::string() : to_json(out.error())));
    REQUIRE(out.ok());
    return std::move(out).value();
  }

  Sandbox sandbox;
  Policy policy;
  AgentConfig config;
  EstimatingCounter estimator;
  const TokenCounter* counter;
};

// The structured output, parsed.
struct Parsed {
  std::vector<std::pair<std::string, std::uint64_t>> matches;  // (path, line)
  std::vector<std::string> texts;
  std::vector<std::string> files;
  std::vector<std::pair<std::string, std::uint64_t>> counts;
  std::uint64_t total = 0;
  std::uint64_t shown = 0;
  bool truncated = false;
  bool partial = false;
  std::string partial_reason;
  std::string next_cursor;  // "" when null
  std::map<std::string, std::uint64_t> skipped;
  std::map<std::string, std::vector<std::string>> skipped_examples;
};

Parsed parse(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  INFO(json);
  REQUIRE(parser.parse(simdjson::padded_string(json)).get(root) == simdjson::SUCCESS);
  Parsed p;
  simdjson::dom::array array;
  if (root["matches"].get(array) == simdjson::SUCCESS) {
    for (simdjson::dom::element m : array) {
      p.matches.emplace_back(std::string(m["path"].get_string().value()),
                             m["line"].get_uint64().value());
      p.texts.emplace_back(m["text"].get_string().value());
    }
  }
  if (root["files"].get(array) == simdjson::SUCCESS) {
    for (simdjson::dom::element f : array) p.files.emplace_back(f.get_string().value());
  }
  if (root["counts"].get(array) == simdjson::SUCCESS) {
    for (simdjson::dom::element c : array) {
      p.counts.emplace_back(std::string(c["path"].get_string().value()),
                            c["count"].get_uint64().value());
    }
  }
  p.total = root["total"].get_uint64().value();
  p.shown = root["shown"].get_uint64().value();
  p.truncated = root["truncated"].get_bool().value();
  p.partial = root["partial"].get_bool().value();
  if (root["partial_reason"].is_string()) {
    p.partial_reason = std::string(root["partial_reason"].get_string().value());
  }
  if (root["next_cursor"].is_string()) {
    p.next_cursor = std::string(root["next_cursor"].get_string().value());
  }
  simdjson::dom::object skipped = root["skipped"].get_object().value();
  for (auto [key, value] : skipped) {
    p.skipped[std::string(key)] = value["count"].get_uint64().value();
    const simdjson::dom::array examples = value["examples"].get_array().value();
    for (simdjson::dom::element e : examples) {
      p.skipped_examples[std::string(key)].emplace_back(e.get_string().value());
    }
  }
  return p;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A small JSON Schema check (type, enum, properties, required, additionalProperties, items,
// $ref to #/$defs): enough to hold structured output to the output schema the SDK validates.
bool conforms(simdjson::dom::element value, simdjson::dom::element schema,
              simdjson::dom::element root_schema, std::string& why, const std::string& at) {
  std::string_view ref;
  if (schema["$ref"].get(ref) == simdjson::SUCCESS) {
    std::string_view name = ref.substr(ref.rfind('/') + 1);
    return conforms(value, root_schema["$defs"][name].value(), root_schema, why, at);
  }
  auto type_ok = [&](std::string_view type) {
    if (type == "object") return value.is_object();
    if (type == "array") return value.is_array();
    if (type == "string") return value.is_string();
    if (type == "integer") return value.is_int64() || value.is_uint64();
    if (type == "boolean") return value.is_bool();
    if (type == "null") return value.is_null();
    return false;
  };
  simdjson::dom::element type;
  if (schema["type"].get(type) == simdjson::SUCCESS) {
    bool ok = false;
    if (type.is_string()) {
      ok = type_ok(type.get_string().value());
    } else {
      const simdjson::dom::array types = type.get_array().value();
      for (simdjson::dom::element t : types) {
        ok = ok || type_ok(t.get_string().value());
      }
    }
    if (!ok) {
      why = at + ": wrong type";
      return false;
    }
  }
  simdjson::dom::array choices;
  if (schema["enum"].get(choices) == simdjson::SUCCESS) {
    bool ok = false;
    for (simdjson::dom::element c : choices) {
      ok = ok || (c.is_null() && value.is_null()) ||
           (c.is_string() && value.is_string() &&
            c.get_string().value() == value.get_string().value());
    }
    if (!ok) {
      why = at + ": not in enum";
      return false;
    }
  }
  if (value.is_object()) {
    simdjson::dom::object props;
    const bool has_props = schema["properties"].get(props) == simdjson::SUCCESS;
    simdjson::dom::array required;
    if (schema["required"].get(required) == simdjson::SUCCESS) {
      for (simdjson::dom::element r : required) {
        if (value[r.get_string().value()].error() != simdjson::SUCCESS) {
          why = at + ": missing " + std::string(r.get_string().value());
          return false;
        }
      }
    }
    const simdjson::dom::object object = value.get_object().value();
    for (auto [key, v] : object) {
      simdjson::dom::element sub;
      if (!has_props || props[key].get(sub) != simdjson::SUCCESS) {
        why = at + ": property not in the schema: " + std::string(key);
        return false;
      }
      if (!conforms(v, sub, root_schema, why, at + "." + std::string(key))) return false;
    }
  }
  simdjson::dom::element items;
  if (value.is_array() && schema["items"].get(items) == simdjson::SUCCESS) {
    const simdjson::dom::array elements = value.get_array().value();
    for (simdjson::dom::element v : elements) {
      if (!conforms(v, items, root_schema, why, at + "[]")) return false;
    }
  }
  return true;
}

void require_schema(const std::string& structured) {
  std::string schema_text;
  for (const ToolSpec& t : tool_specs()) {
    if (t.name == "search_files") schema_text = t.output_schema;
  }
  simdjson::dom::parser p1, p2;
  simdjson::dom::element schema, value;
  REQUIRE(p1.parse(simdjson::padded_string(schema_text)).get(schema) == simdjson::SUCCESS);
  REQUIRE(p2.parse(simdjson::padded_string(structured)).get(value) == simdjson::SUCCESS);
  std::string why;
  INFO(structured);
  INFO(why);
  CHECK(conforms(value, schema, schema, why, "$"));
  INFO(why);
  CHECK(why.empty());
}

std::string with(const std::string& args, const std::string& extra) {
  if (extra.empty()) return args;
  return args.substr(0, args.size() - 1) + "," + extra + "}";
}

// Every page from the first through each next_cursor; the (path, line) of every match shown.
std::vector<std::pair<std::string, std::uint64_t>> all_pages(const Env& env,
                                                             const std::string& args,
                                                             SessionState* session,
                                                             std::size_t max_tokens,
                                                             int max_pages = 100000) {
  std::vector<std::pair<std::string, std::uint64_t>> seen;
  std::string cursor;
  for (int page = 0; page < max_pages; ++page) {
    std::string call = with(args, "\"max_tokens\":" + std::to_string(max_tokens));
    if (!cursor.empty()) call = with(call, "\"cursor\":" + json_string(cursor));
    ToolOutput out = env.ok(call, session);
    INFO(call << "\n" << out.text);
    REQUIRE(env.counter->count(out.text) <= max_tokens);
    Parsed p = parse(out.structured);
    seen.insert(seen.end(), p.matches.begin(), p.matches.end());
    if (p.next_cursor.empty()) return seen;
    REQUIRE(p.shown > 0);  // every page makes progress
    REQUIRE(out.text.find(p.next_cursor) != std::string::npos);
    cursor = p.next_cursor;
  }
  FAIL("too many pages");
  return seen;
}

}  // namespace

TEST_CASE("search_files shows matches grouped by file, sorted by path then line",
          "[agent][search_files]") {
  TempTree tree;
  tree.file("b.txt", "needle one\nnothing\nneedle two\n");
  tree.file("a/z.txt", "x\nneedle\n");
  tree.file("a/b.txt", "needle\n");
  tree.file("c.txt", "nothing here\n");
  Env env(tree);
  ToolOutput out = env.ok(R"({"pattern":"needle"})");
  CHECK(out.text ==
        "a/b.txt\n1:needle\n\na/z.txt\n2:needle\n\nb.txt\n1:needle one\n3:needle two\n\n"
        "[4 matches in 3 files]");
  Parsed p = parse(out.structured);
  CHECK(p.matches == std::vector<std::pair<std::string, std::uint64_t>>{
                         {"a/b.txt", 1}, {"a/z.txt", 2}, {"b.txt", 1}, {"b.txt", 3}});
  CHECK(p.total == 4);
  CHECK_FALSE(p.truncated);
  CHECK(p.next_cursor.empty());
  require_schema(out.structured);
  CHECK(out.tokens == env.estimator.count(out.text));
}

TEST_CASE("search_files reports submatch offsets into the text", "[agent][search_files]") {
  TempTree tree;
  tree.file("a.txt", "foo bar foo\n");
  Env env(tree);
  ToolOutput out = env.ok(R"({"pattern":"fo+"})");
  CHECK(out.structured.find(R"("submatches":[{"start":0,"end":3},{"start":8,"end":11}])") !=
        std::string::npos);
}

TEST_CASE("search_files accepts the parameter names small models send", "[agent][search_files]") {
  TempTree tree;
  tree.file("src/a.py", "Alpha\nbeta\nALPHA\n");
  tree.file("src/b.js", "alpha\n");
  Env env(tree);
  Parsed p = parse(env.ok(R"({"query":"alpha","include":"*.py","ignore_case":true})").structured);
  CHECK(p.matches ==
        std::vector<std::pair<std::string, std::uint64_t>>{{"src/a.py", 1}, {"src/a.py", 3}});
  p = parse(env.ok(R"({"regex":"alpha","file_pattern":"*.js","limit":"1"})").structured);
  CHECK(p.matches == std::vector<std::pair<std::string, std::uint64_t>>{{"src/b.js", 1}});
  ToolOutput ctx = env.ok(R"({"pattern":"beta","context_lines":1,"dir":"src"})");
  CHECK(ctx.text.find("1-Alpha\n2:beta\n3-ALPHA\n") != std::string::npos);
}

TEST_CASE("an invalid regex is invalid_pattern with the engine's message and a hint",
          "[agent][search_files]") {
  TempTree tree;
  tree.file("a.txt", "foo(\n");
  Env env(tree);
  auto out = env.call(R"({"pattern":"foo("})");
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().code == ToolErrorCode::kInvalidPattern);
  CHECK(out.error().message.find("foo(") != std::string::npos);
  CHECK(out.error().hint.find("literal=true") != std::string::npos);
  // As a literal it is found.
  Parsed p = parse(env.ok(R"({"pattern":"foo(","literal":true})").structured);
  CHECK(p.total == 1);
}

TEST_CASE(
    "an oversized pattern is refused up front naming the limit; a literal too large for "
    "the engine gets a literal's hint",
    "[agent][search_files]") {
  TempTree tree;
  const std::string line(70'000, 'q');
  tree.file("a.txt", line + "\n");
  Env env(tree);
  for (bool literal : {true, false}) {
    CAPTURE(literal);
    // 3 MB (what a host pasting a file sends) and just past the limit: refused before compiling.
    for (std::size_t bytes : {std::size_t{3'000'000}, std::size_t{65'537}}) {
      auto out = env.call(
          fmt::format(R"({{"pattern":"{}","literal":{}}})", std::string(bytes, 'q'), literal));
      REQUIRE_FALSE(out.ok());
      CHECK(out.error().code == ToolErrorCode::kInvalidPattern);
      CHECK(out.error().message ==
            fmt::format("the pattern is {} bytes; search_files takes patterns of at most 65,536 "
                        "bytes",
                        ctx::agent::grouped(bytes)));
      CHECK(out.error().hint.find("distinctive part") != std::string::npos);
    }
  }
  // At the limit an ASCII literal is searched.
  Parsed p = parse(
      env.ok(R"({"pattern":")" + std::string(65'536, 'q') + R"(","literal":true})").structured);
  CHECK(p.total == 1);
  // A non-ASCII literal under the limit that PCRE2 cannot compile: the hint fits a literal.
  std::string wide;
  for (int i = 0; i < 32'000; ++i) wide += "\xC3\xA9";
  auto out = env.call(R"({"pattern":")" + wide + R"(","literal":true})");
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().code == ToolErrorCode::kInvalidPattern);
  CHECK(out.error().message.find("too large") != std::string::npos);
  CHECK(out.error().hint.find("shorter distinctive part of the text") != std::string::npos);
}

TEST_CASE("bad paths and globs are structured errors", "[agent][search_files]") {
  TempTree tree;
  tree.file("a.txt", "x\n");
  Env env(tree);
  auto missing = env.call(R"({"pattern":"x","path":"nope"})");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ToolErrorCode::kNotFound);
  auto outside = env.call(R"({"pattern":"x","path":"../.."})");
  REQUIRE_FALSE(outside.ok());
  CHECK(outside.error().code == ToolErrorCode::kOutsideRoot);
  auto glob = env.call(R"({"pattern":"x","glob":"*.{a,b"})");
  REQUIRE_FALSE(glob.ok());
  CHECK(glob.error().code == ToolErrorCode::kInvalidArgument);
  auto mode = env.call(R"({"pattern":"x","output_mode":"lines"})");
  REQUIRE_FALSE(mode.ok());
  CHECK(mode.error().code == ToolErrorCode::kInvalidArgument);
  auto context = env.call(R"({"pattern":"x","context":11})");
  REQUIRE_FALSE(context.ok());
  CHECK(context.error().code == ToolErrorCode::kInvalidArgument);
}

TEST_CASE("a path narrows the search to a directory or one file", "[agent][search_files]") {
  TempTree tree;
  tree.file("src/a.c", "hit\n");
  tree.file("src/sub/b.c", "hit\n");
  tree.file("lib/c.c", "hit\n");
  Env env(tree);
  Parsed p = parse(env.ok(R"({"pattern":"hit","path":"src"})").structured);
  CHECK(p.matches ==
        std::vector<std::pair<std::string, std::uint64_t>>{{"src/a.c", 1}, {"src/sub/b.c", 1}});
  p = parse(env.ok(R"({"pattern":"hit","path":"./lib/c.c"})").structured);
  CHECK(p.matches == std::vector<std::pair<std::string, std::uint64_t>>{{"lib/c.c", 1}});
  p = parse(env.ok(with(R"({"pattern":"hit"})",
                        "\"path\":" + json_string((tree.root() / "src" / "sub").string())))
                .structured);
  CHECK(p.matches == std::vector<std::pair<std::string, std::uint64_t>>{{"src/sub/b.c", 1}});
}

TEST_CASE("globs select files as rg -g does, several at once with commas",
          "[agent][search_files]") {
  TempTree tree;
  tree.file("a.h", "hit\n");
  tree.file("a.cpp", "hit\n");
  tree.file("a_test.cpp", "hit\n");
  tree.file("d/e.py", "hit\n");
  Env env(tree);
  CHECK(parse(env.ok(R"({"pattern":"hit","glob":"*.h, *.cpp"})").structured).total == 3);
  CHECK(parse(env.ok(R"({"pattern":"hit","glob":"*.{h,py}"})").structured).total == 2);
  Parsed p = parse(env.ok(R"({"pattern":"hit","glob":"!*_test.cpp"})").structured);
  CHECK(p.total == 3);
  for (const auto& m : p.matches) CHECK(m.first != "a_test.cpp");
}

TEST_CASE("files_with_matches and count modes list files in path order", "[agent][search_files]") {
  TempTree tree;
  tree.file("b.txt", "x\nx\nx\n");
  tree.file("a.txt", "x\n");
  tree.file("c.txt", "y\n");
  Env env(tree);
  ToolOutput files = env.ok(R"({"pattern":"x","output_mode":"files_with_matches"})");
  CHECK(files.text == "a.txt\nb.txt\n\n[2 files with matches]");
  CHECK(parse(files.structured).files == std::vector<std::string>{"a.txt", "b.txt"});
  require_schema(files.structured);
  ToolOutput counts = env.ok(R"({"pattern":"x","output_mode":"count"})");
  CHECK(counts.text == "a.txt:1\nb.txt:3\n\n[2 files (4 matching lines)]");
  CHECK(parse(counts.structured).counts ==
        std::vector<std::pair<std::string, std::uint64_t>>{{"a.txt", 1}, {"b.txt", 3}});
  require_schema(counts.structured);
}

TEST_CASE("context lines are shown with '-' and blocks apart with '--'", "[agent][search_files]") {
  TempTree tree;
  tree.file("a.txt", "1\n2\nhit\n4\n5\n6\n7\nhit\n9\n");
  Env env(tree);
  ToolOutput out = env.ok(R"({"pattern":"hit","context":1})");
  CHECK(out.text == "a.txt\n2-2\n3:hit\n4-4\n--\n7-7\n8:hit\n9-9\n\n[2 matches in 1 file]");
  CHECK(out.structured.find(R"("context_before":["2"],"context_after":["4"])") !=
        std::string::npos);
  require_schema(out.structured);
}

TEST_CASE("very long lines are clipped around the match with markers", "[agent][search_files]") {
  TempTree tree;
  std::string line = std::string(5000, 'a') + "NEEDLE" + std::string(3000, 'b');
  tree.file("min.js", line + "\n");
  Env env(tree);
  ToolOutput out = env.ok(R"({"pattern":"NEEDLE"})");
  Parsed p = parse(out.structured);
  REQUIRE(p.texts.size() == 1);
  const std::string& text = p.texts[0];
  CHECK(text.find("NEEDLE") != std::string::npos);
  CHECK(text.find("bytes] ") != std::string::npos);      // the cut start
  CHECK(text.find("more bytes]") != std::string::npos);  // the cut end
  CHECK(text.size() < 600);
  CHECK(out.text.find("NEEDLE") != std::string::npos);
  // The submatch points at NEEDLE in the clipped text.
  std::size_t at = text.find("NEEDLE");
  CHECK(out.structured.find("{\"start\":" + std::to_string(at) +
                            ",\"end\":" + std::to_string(at + 6) + "}") != std::string::npos);
}

TEST_CASE("a hot file does not eat the first page: every matching file shows up",
          "[agent][search_files][fairness]") {
  TempTree tree;
  std::string hot;
  for (int i = 0; i < 10000; ++i) hot += "match " + std::to_string(i) + "\n";
  tree.file("aaa_hot.txt", hot);
  for (int i = 0; i < 20; ++i) tree.file("f" + std::to_string(100 + i) + ".txt", "one match\n");
  Env env(tree);
  ToolOutput out = env.ok(R"({"pattern":"match"})");
  Parsed p = parse(out.structured);
  std::set<std::string> files;
  for (const auto& m : p.matches) files.insert(m.first);
  CHECK(files.size() == 21);
  CHECK(p.total == 10020);
  CHECK(p.truncated);
  CHECK_FALSE(p.next_cursor.empty());
  CHECK(out.text.find("[shown 50 of 10,020 matches in 21 files; cut at max_results=50; more: "
                      "call search_files with the same arguments and cursor=\"" +
                      p.next_cursor + "\"]") != std::string::npos);
  // Grouped by file: the hot file's matches are its first 30, in line order.
  std::vector<std::uint64_t> hot_lines;
  for (const auto& m : p.matches) {
    if (m.first == "aaa_hot.txt") hot_lines.push_back(m.second);
  }
  REQUIRE(hot_lines.size() == 30);
  for (std::size_t i = 0; i < hot_lines.size(); ++i) CHECK(hot_lines[i] == i + 1);
  // With a small budget too.
  p = parse(env.ok(R"({"pattern":"match","max_tokens":300})").structured);
  files.clear();
  for (const auto& m : p.matches) files.insert(m.first);
  CHECK(files.size() == std::min<std::size_t>(21, p.shown));
}

TEST_CASE("paging with the cursor shows every match exactly once, with and without a session",
          "[agent][search_files][paging][property]") {
  std::mt19937 rng(42);
  for (int iteration = 0; iteration < 12; ++iteration) {
    TempTree tree;
    std::set<std::pair<std::string, std::uint64_t>> expected;
    const int files = std::uniform_int_distribution<int>(1, 25)(rng);
    for (int f = 0; f < files; ++f) {
      std::string path = (f % 3 == 0 ? "d" + std::to_string(f % 4) + "/" : std::string()) + "file" +
                         std::to_string(f) + ".txt";
      std::string text;
      const int lines = std::uniform_int_distribution<int>(1, 120)(rng);
      for (int l = 1; l <= lines; ++l) {
        if (rng() % 3 == 0) {
          text += "some KEY here " + std::string(rng() % 80, 'x') + "\n";
          expected.emplace(path, l);
        } else {
          text += "filler " + std::to_string(rng() % 1000) + "\n";
        }
      }
      tree.file(path, text);
    }
    Env env(tree);
    const std::size_t context = rng() % 3;
    const std::size_t max_results = std::uniform_int_distribution<std::size_t>(1, 60)(rng);
    const std::string args = "{\"pattern\":\"KEY\",\"context\":" + std::to_string(context) +
                             ",\"max_results\":" + std::to_string(max_results) + "}";
    const std::size_t budget = std::uniform_int_distribution<std::size_t>(120, 3000)(rng);
    for (bool use_session : {false, true}) {
      SessionState session;
      INFO("iteration " << iteration << " session " << use_session << " budget " << budget
                        << " args " << args);
      auto seen = all_pages(env, args, use_session ? &session : nullptr, budget);
      std::set<std::pair<std::string, std::uint64_t>> unique(seen.begin(), seen.end());
      CHECK(unique.size() == seen.size());  // nothing twice
      CHECK(unique == expected);            // nothing missed
    }
  }
}

TEST_CASE("random budgets: the text never exceeds max_tokens and says when it was cut",
          "[agent][search_files][budget][property]") {
  TempTree tree;
  std::mt19937 rng(9);
  for (int f = 0; f < 30; ++f) {
    std::string text;
    for (int l = 0; l < 40; ++l) {
      text += (rng() % 4 == 0 ? "token " : "other ") +
              std::string(rng() % 300, static_cast<char>('a' + rng() % 26)) +
              (rng() % 7 == 0 ? "\xE4\xB8\xAD\xE6\x96\x87 token" : "") + "\n";
    }
    tree.file("dir" + std::to_string(f % 5) + "/f" + std::to_string(f) + ".txt", text);
  }
  tree.file("bin.dat", std::string("token\0binary", 12));
  NonAdditiveCounter non_additive;
  for (bool additive : {true, false}) {
    Env env(tree, {}, {}, additive ? nullptr : &non_additive);
    for (int iteration = 0; iteration < 150; ++iteration) {
      const std::size_t budget = std::uniform_int_distribution<std::size_t>(32, 4000)(rng);
      const char* modes[] = {"content", "files_with_matches", "count"};
      const std::string mode = modes[rng() % 3];
      const std::string args = "{\"pattern\":\"token\",\"output_mode\":\"" + mode +
                               "\",\"context\":" + std::to_string(rng() % 4) +
                               ",\"max_tokens\":" + std::to_string(budget) + "}";
      ToolOutput out = env.ok(args);
      INFO(env.counter->name() << " " << args << "\n" << out.text);
      REQUIRE(env.counter->count(out.text) <= budget);
      REQUIRE(out.tokens == env.counter->count(out.text));
      Parsed p = parse(out.structured);
      require_schema(out.structured);
      CHECK(p.shown <= p.total);
      if (budget >= 200) {  // room for the whole footer and the skipped line
        if (p.truncated && !p.next_cursor.empty()) {
          CHECK(out.text.find("cursor=\"" + p.next_cursor + "\"") != std::string::npos);
          CHECK(out.text.find("[shown ") != std::string::npos);
        }
        if (!p.truncated) CHECK(out.text.find("[shown ") == std::string::npos);
        // The binary file is reported, never shown.
        CHECK(out.text.find("bin.dat") != std::string::npos);
      }
      CHECK(p.skipped["binary"] == 1);
    }
  }
}

TEST_CASE("paging stays exact when the counter is not additive",
          "[agent][search_files][paging][budget]") {
  TempTree tree;
  for (int f = 0; f < 8; ++f) {
    std::string text;
    for (int l = 0; l < 30; ++l)
      text += "hit " + std::string(static_cast<std::size_t>(l), 'z') + "\n";
    tree.file("f" + std::to_string(f) + ".txt", text);
  }
  NonAdditiveCounter counter;
  Env env(tree, {}, {}, &counter);
  auto seen = all_pages(env, R"({"pattern":"hit","context":1,"max_results":1000})", nullptr, 400);
  std::set<std::pair<std::string, std::uint64_t>> unique(seen.begin(), seen.end());
  CHECK(unique.size() == seen.size());
  CHECK(unique.size() == 240);
}

TEST_CASE("denied and protected files appear nowhere: not in text, structure, counts or skips",
          "[agent][search_files][policy]") {
  TempTree tree;
  tree.file("visible.txt", "MARKER\n");
  tree.file("deploy/tls.key", "MARKER\n");                            // default protected
  tree.file("config/secrets.yaml", "MARKER\n");                       // default protected
  tree.file("private/notes.txt", "MARKER\n");                         // denied
  tree.file("private/blob.bin", std::string("MARKER\0", 7));          // denied, binary
  tree.file("private/big.txt", std::string(5000, 'x') + "MARKER\n");  // denied, too large
  tree.file("deploy/huge.pem", std::string(5000, 'x') + "MARKER\n");  // protected, too large
  PolicyConfig policy;
  policy.deny = {"private/"};
  Limits limits;
  limits.max_search_file_bytes = 1000;
  Env env(tree, policy, limits);
  for (const char* mode : {"content", "files_with_matches", "count"}) {
    ToolOutput out = env.ok(std::string(R"({"pattern":"MARKER","output_mode":")") + mode + "\"}");
    INFO(out.text << "\n" << out.structured);
    for (const char* hidden : {"tls", "secrets", "private", "notes", "blob", "big", "huge"}) {
      CHECK(out.text.find(hidden) == std::string::npos);
      CHECK(out.structured.find(hidden) == std::string::npos);
    }
    Parsed p = parse(out.structured);
    CHECK(p.total == 1);
    for (const auto& [reason, count] : p.skipped) CHECK(count == 0);
    CHECK(out.policy_hidden >= 6);
  }
  // Named explicitly, a hidden path is not found, as a missing one is.
  auto denied = env.call(R"({"pattern":"MARKER","path":"private"})");
  REQUIRE_FALSE(denied.ok());
  CHECK(denied.error().code == ToolErrorCode::kNotFound);
  auto protected_file = env.call(R"({"pattern":"MARKER","path":"deploy/tls.key"})");
  REQUIRE_FALSE(protected_file.ok());
  CHECK(protected_file.error().code == ToolErrorCode::kNotFound);
}

TEST_CASE("skipped files are reported by reason with example paths", "[agent][search_files]") {
  TempTree tree;
  tree.file("text.txt", "needle\n");
  tree.file("image.png", std::string("\x89PNG\0\0needle", 13));
  tree.file("nomatch.bin", std::string("\0\0\0", 3));
  tree.file("big.log", std::string(3000, 'x') + "\nneedle\n");
  Limits limits;
  limits.max_search_file_bytes = 2000;
  Env env(tree, {}, limits);
  ToolOutput out = env.ok(R"({"pattern":"needle"})");
  Parsed p = parse(out.structured);
  CHECK(p.total == 1);
  CHECK(p.skipped["binary"] == 1);  // the binary file without a match is not worth a mention
  CHECK(p.skipped_examples["binary"] == std::vector<std::string>{"image.png"});
  CHECK(p.skipped["too_large"] == 1);
  CHECK(p.skipped_examples["too_large"] == std::vector<std::string>{"big.log"});
  CHECK(out.text.find("[skipped: 1 binary file that matches, not shown (image.png); 1 file over "
                      "2,000 bytes, not searched (big.log)]") != std::string::npos);
}

TEST_CASE("a deadline gives partial results, flagged in text and structure",
          "[agent][search_files][deadline]") {
  TempTree tree;
  for (int i = 0; i < 50; ++i) tree.file("f" + std::to_string(i) + ".txt", "hit\n");
  Env env(tree);
  auto out = call_tool("search_files", R"({"pattern":"hit"})",
                       env.context(nullptr, std::chrono::milliseconds(-1)));
  REQUIRE(out.ok());
  Parsed p = parse(out->structured);
  CHECK(p.partial);
  CHECK(p.partial_reason == "deadline");
  // Partial is truncated: a model that checks only `truncated` must not take it for the whole.
  CHECK(p.truncated);
  CHECK(out->truncated);
  CHECK(p.next_cursor.empty());
  CHECK(p.skipped["timeout"] >= 1);
  CHECK(out->text.find("deadline") != std::string::npos);
  CHECK(out->text.find("partial") != std::string::npos);
  CHECK(out->text.find("end of results") == std::string::npos);
  require_schema(out->structured);
}

TEST_CASE("the collected-match cap keeps the first matches in path order, the same every run",
          "[agent][search_files][cap]") {
  TempTree tree;
  for (int i = 0; i < 40; ++i) {
    std::string text;
    for (int l = 0; l < 25; ++l) text += "hit\n";
    tree.file("d" + std::to_string(i % 7) + "/f" + std::to_string(i) + ".txt", text);
  }
  Limits limits;
  limits.max_collected_matches = 100;
  Env env(tree, {}, limits);
  ToolOutput first = env.ok(R"({"pattern":"hit","max_results":1000})");
  Parsed p = parse(first.structured);
  CHECK(p.total == 100);
  CHECK(p.partial);
  CHECK(p.truncated);
  CHECK(p.next_cursor.empty());
  CHECK(p.partial_reason == "max_collected_matches");
  CHECK(first.text.find("at least 100 matches") != std::string::npos);
  // The kept matches are the first 100 in (path, line) order: the 4 smallest paths whole.
  std::set<std::string> files;
  for (const auto& m : p.matches) files.insert(m.first);
  CHECK(files == std::set<std::string>{"d0/f0.txt", "d0/f14.txt", "d0/f21.txt", "d0/f28.txt"});
  for (int run = 0; run < 5; ++run) {
    CHECK(env.ok(R"({"pattern":"hit","max_results":1000})").structured == first.structured);
  }
}

TEST_CASE("a session pages from the cached results; without one the search runs again",
          "[agent][search_files][session]") {
  TempTree tree;
  std::string text;
  for (int l = 0; l < 30; ++l) text += "hit\n";
  tree.file("a.txt", text);
  Env env(tree);
  SessionState session;
  const std::string args = R"({"pattern":"hit","max_results":10})";
  Parsed first = parse(env.ok(args, &session).structured);
  REQUIRE_FALSE(first.next_cursor.empty());
  CHECK(session.impl().searches.size() == 1);
  // The file changes: the session still pages the results the first call saw.
  tree.file("a.txt", "hit\n");
  const std::string next = with(args, "\"cursor\":" + json_string(first.next_cursor));
  Parsed cached = parse(env.ok(next, &session).structured);
  CHECK(cached.shown == 10);
  CHECK(cached.total == 30);
  // Without a session the search runs again and the cursor is past the new end.
  auto fresh = env.call(next, nullptr);
  REQUIRE_FALSE(fresh.ok());
  CHECK(fresh.error().code == ToolErrorCode::kInvalidArgument);
  // A call without a cursor always searches afresh.
  CHECK(parse(env.ok(args, &session).structured).total == 1);
}

TEST_CASE("a cursor from other arguments is refused", "[agent][search_files]") {
  TempTree tree;
  tree.file("a.txt", "hit\nhit\nhit\n");
  Env env(tree);
  Parsed p = parse(env.ok(R"({"pattern":"hit","max_results":1})").structured);
  REQUIRE_FALSE(p.next_cursor.empty());
  auto other = env.call(R"({"pattern":"hi","cursor":)" + json_string(p.next_cursor) + "}");
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().code == ToolErrorCode::kInvalidArgument);
  // max_results and max_tokens may change between pages.
  Parsed next = parse(env.ok(R"({"pattern":"hit","max_results":5,"max_tokens":500,"cursor":)" +
                             json_string(p.next_cursor) + "}")
                          .structured);
  CHECK(next.shown == 2);
  auto garbage = env.call(R"({"pattern":"hit","cursor":"zzz"})");
  REQUIRE_FALSE(garbage.ok());
  CHECK(garbage.error().code == ToolErrorCode::kInvalidArgument);
}

TEST_CASE("no matches says so, with how many files were searched", "[agent][search_files]") {
  TempTree tree;
  tree.file("a.txt", "nothing\n");
  Env env(tree);
  ToolOutput out = env.ok(R"({"pattern":"absent"})");
  CHECK(out.text == "[no matches for 'absent' (1 file searched)]");
  CHECK_FALSE(out.truncated);
  require_schema(out.structured);
}

TEST_CASE("Policy::check_entry agrees with check beneath visible directories",
          "[agent][search_files][policy]") {
  PolicyConfig config;
  config.deny = {"build/", "*.log", "docs/private/**", "/top.txt"};
  config.protect = {"**/creds*", "vault/"};
  PolicyConfig allow_config = config;
  allow_config.allow = {"src/", "!src/gen/", "*.md"};
  const std::vector<std::string> names = {"a",         "src",     "gen",     "build",     "x.log",
                                          "creds.txt", ".env",    "top.txt", "README.md", "key.pem",
                                          "docs",      "private", "vault",   "b.c"};
  std::mt19937 rng(5);
  for (const PolicyConfig* c : {&config, &allow_config}) {
    auto policy = Policy::build(*c);
    REQUIRE(policy.ok());
    int compared = 0;
    for (int i = 0; i < 20000; ++i) {
      std::string path;
      const int depth = 1 + static_cast<int>(rng() % 4);
      for (int d = 0; d < depth; ++d) {
        path += (d > 0 ? "/" : "") + names[rng() % names.size()];
      }
      const bool is_dir = rng() % 4 == 0;
      const std::size_t slash = path.rfind('/');
      const std::string parent = slash == std::string::npos ? "" : path.substr(0, slash);
      if (!policy->visible(parent, true)) continue;
      ++compared;
      INFO(path << (is_dir ? " (dir)" : ""));
      REQUIRE(policy->check_entry(path, is_dir) == policy->check(path, is_dir));
    }
    CHECK(compared > 5000);
  }
}

TEST_CASE("a budget too small for the next match names a max_tokens that fits it",
          "[agent][search_files][budget]") {
  TempTree tree;
  tree.file("a.txt", "needle " + std::string(450, 'q') + "\nneedle\n");
  Env env(tree);
  ToolOutput out = env.ok(R"({"pattern":"needle","max_tokens":120})");
  Parsed p = parse(out.structured);
  REQUIRE(p.shown == 0);
  REQUIRE_FALSE(p.next_cursor.empty());
  INFO(out.text);
  const std::string marker = "call again with max_tokens=";
  const std::size_t at = out.text.find(marker);
  REQUIRE(at != std::string::npos);
  const std::size_t needed = std::stoul(out.text.substr(at + marker.size()));
  CHECK(needed > 120);
  p = parse(env.ok(R"({"pattern":"needle","max_tokens":)" + std::to_string(needed) +
                   R"(,"cursor":)" + json_string(p.next_cursor) + "}")
                .structured);
  CHECK(p.shown >= 1);
}

TEST_CASE("without openat2 the search opens files the portable way, with the same results",
          "[agent][search_files][sandbox]") {
  TempTree tree;
  tree.file("src/a.c", "hit\nmiss\nhit\n");
  tree.file("src/deep/b.c", "hit\n");
  tree.file("deploy/tls.key", "hit\n");
  Env env(tree);
  const std::string args = R"({"pattern":"hit","context":1})";
  ToolOutput fast = env.ok(args);
  detail::set_force_openat2_fallback(true);
  auto portable = env.call(args);
  detail::set_force_openat2_fallback(false);
  REQUIRE(portable.ok());
  CHECK(portable->text == fast.text);
  CHECK(portable->structured == fast.structured);
  CHECK(portable->policy_hidden == fast.policy_hidden);
  CHECK(parse(fast.structured).total == 3);
}

TEST_CASE("symlinks are not followed into hidden files or out of the root",
          "[agent][search_files][sandbox]") {
  TempTree tree;
  tree.file("deploy/tls.key", "SECRET\n");
  tree.file("plain.txt", "nothing\n");
  TempTree outside;
  outside.file("far.txt", "SECRET\n");
  fs::create_symlink("deploy/tls.key", tree.root() / "link.txt");
  fs::create_symlink(outside.root() / "far.txt", tree.root() / "out.txt");
  fs::create_directory_symlink(outside.root(), tree.root() / "outdir");
  Env env(tree);
  ToolOutput out = env.ok(R"({"pattern":"SECRET"})");
  CHECK(parse(out.structured).total == 0);
  CHECK(out.text.find("link") == std::string::npos);
  CHECK(out.text.find("out") == std::string::npos);
  auto via_link = env.call(R"({"pattern":"SECRET","path":"link.txt"})");
  REQUIRE_FALSE(via_link.ok());
  CHECK(via_link.error().code == ToolErrorCode::kNotFound);
  auto via_out = env.call(R"({"pattern":"SECRET","path":"outdir"})");
  REQUIRE_FALSE(via_out.ok());
  CHECK(via_out.error().code == ToolErrorCode::kOutsideRoot);
}

TEST_CASE("search_files searches dotfiles as find_files lists them, never .git or secrets",
          "[agent][search_files]") {
  TempTree tree;
  tree.file(".github/ci.yml", "uses: lib\n");
  tree.file(".eslintrc", "lib\n");
  tree.file(".git/config", "lib\n");
  tree.file(".env", "lib=1\n");
  tree.file("src/a.c", "lib\n");
  Env env(tree);
  ToolOutput out = env.ok(R"({"pattern":"lib"})");
  CHECK(out.text ==
        ".eslintrc\n1:lib\n\n.github/ci.yml\n1:uses: lib\n\nsrc/a.c\n1:lib\n\n"
        "[3 matches in 3 files]");
  ToolOutput globbed = env.ok(R"({"pattern":"lib","glob":"**/*.yml"})");
  CHECK(globbed.text == ".github/ci.yml\n1:uses: lib\n\n[1 match in 1 file]");
}

TEST_CASE("search_files answers a line break or a glob in the pattern with the call to make",
          "[agent][search_files]") {
  TempTree tree;
  tree.file("a.py", "x\n");
  Env env(tree);
  for (const char* args : {R"({"pattern":"a\nb"})", R"({"pattern":"a\nb","literal":true})",
                           R"({"pattern":"a\\nb"})"}) {
    CAPTURE(args);
    auto error = env.call(args);
    REQUIRE_FALSE(error.ok());
    CHECK(error.error().code == ToolErrorCode::kInvalidPattern);
    CHECK(error.error().message.find("--multiline") == std::string::npos);  // no CLI flags
    CHECK(error.error().hint.find("search for one line of it") != std::string::npos);
  }
  auto glob = env.call(R"({"pattern":"*.py"})");
  REQUIRE_FALSE(glob.ok());
  CHECK(glob.error().hint.find("find_files with pattern='**/*.py'") != std::string::npos);
}

TEST_CASE(
    "search_files where nothing fits names the budget that does, not a cursor to the same page",
    "[agent][search_files]") {
  TempTree tree;
  tree.file("src/a.txt", "hello world, a line long enough not to fit the smallest budget\n");
  tree.file("src/b.txt", "hello there\n");
  Env env(tree);
  ToolOutput out = env.ok(R"({"pattern":"hello","max_tokens":32})");
  INFO(out.text);
  const std::size_t at = out.text.find("call again with max_tokens=");
  REQUIRE(at != std::string::npos);
  CHECK(out.text.find("cursor") == std::string::npos);
  const std::string budget = out.text.substr(at + 27, out.text.find(']', at) - at - 27);
  ToolOutput next = env.ok(R"({"pattern":"hello","max_tokens":)" + budget + "}");
  INFO(next.text);
  CHECK(next.text.starts_with("src/a.txt\n1:hello world"));
}
