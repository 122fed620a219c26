// The per-call wall-time deadline, forced in the middle of real work: a generated tree walked with
// a deadline already past when the call starts (search_files, find_files, list_directory: a 2 ms
// deadline proved flaky once walks got fast enough to finish within it), and a regex that
// backtracks for seconds per file while staying inside PCRE2's match limits. Every tool must come
// back soon after its deadline with the partial result flagged, saying what was cut and how to
// go on, never hang.
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <optional>
#include <string>

#include "tool_test_env.hpp"

namespace {

using ctx::agent::testing::ToolEnv;
using namespace std::chrono_literals;

// Generous: the machine running the tests may be loaded. The work the deadlines cut short takes
// far longer than this when the deadline is ignored (see each test).
constexpr auto kPromptly = 5s;

struct Timed {
  ctx::agent::Expected<ctx::agent::ToolOutput> out;
  std::chrono::milliseconds took;
};

Timed timed_call(const ToolEnv& env, std::string_view tool, std::string_view args,
                 std::chrono::milliseconds deadline) {
  const auto start = std::chrono::steady_clock::now();
  auto out = env.call(tool, args, deadline);
  return Timed{std::move(out), std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now() - start)};
}

// 40 directories of 100 files each, every file holding one "needle" line: built once for the
// tests that share it (file creation is the slow part on a loaded machine), removed at exit.
class BigTree {
 public:
  static const BigTree& get() {
    static const BigTree tree;
    return tree;
  }
  // Calls `tool` over the tree with a deadline `deadline` from now; `deadline_ms` is what the
  // texts quote.
  Timed call(std::string_view tool, std::string_view args, std::chrono::milliseconds deadline,
             std::uint32_t deadline_ms) const {
    ctx::agent::AgentConfig config;
    config.limits.deadline_ms = deadline_ms;
    ctx::agent::EstimatingCounter counter;
    const auto start = std::chrono::steady_clock::now();
    ctx::agent::CallContext context{*sandbox_,        *policy_, counter, config,
                                    start + deadline, nullptr,  nullptr};
    auto out = ctx::agent::call_tool(tool, args, context);
    return Timed{std::move(out), std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::steady_clock::now() - start)};
  }

 private:
  BigTree() {
    for (int d = 0; d < 40; ++d) {
      env_.dir("d" + std::to_string(d));
      for (int f = 0; f < 100; ++f) {
        std::ofstream(env_.root() / ("d" + std::to_string(d)) / ("f" + std::to_string(f) + ".txt"))
            << "first line\nneedle " << f << "\nlast line\n";
      }
    }
    auto sandbox = ctx::agent::Sandbox::open(env_.root().string());
    REQUIRE(sandbox.ok());
    sandbox_.emplace(std::move(sandbox).value());
    auto policy = ctx::agent::Policy::build({});
    REQUIRE(policy.ok());
    policy_.emplace(std::move(policy).value());
  }
  ToolEnv env_;
  std::optional<ctx::agent::Sandbox> sandbox_;
  std::optional<ctx::agent::Policy> policy_;
};

std::string_view string_at(simdjson::dom::element root, std::string_view key) {
  std::string_view v;
  INFO(key);
  REQUIRE(root[key].get(v) == simdjson::SUCCESS);
  return v;
}

std::uint64_t number_at(simdjson::dom::element value) {
  std::uint64_t n = 0;
  REQUIRE(value.get(n) == simdjson::SUCCESS);
  return n;
}

bool bool_at(simdjson::dom::element root, std::string_view key) {
  bool v = false;
  INFO(key);
  REQUIRE(root[key].get(v) == simdjson::SUCCESS);
  return v;
}

}  // namespace

TEST_CASE("search_files stops inside a file whose regex backtracks for seconds within PCRE2 limits",
          "[agent][deadline][search_files]") {
  ToolEnv env;
  // Each line costs (a|aa)+(?=b) about 10 ms of backtracking, none of which reaches PCRE2's match
  // limit: 3,000 lines are about 30 s of CPU when the deadline is not enforced inside the file.
  std::string text;
  for (int i = 0; i < 3000; ++i) text += std::string(26, 'a') + "\n";
  env.file("slow.txt", text);
  env.file("fast.txt", "b\n");
  // 1.5 s: far less than slow.txt's 30 s, and enough that a loaded machine (CI runs two test
  // processes on two cores) still starts searching it before the deadline: with 300 ms, a CI run
  // once saw the deadline pass before the first file was searched.
  env.config.limits.deadline_ms = 1500;  // what the text quotes; the context's deadline below
  Timed t = timed_call(env, "search_files", R"j({"pattern":"(a|aa)+(?=b)"})j", 1500ms);
  INFO("took " << t.took.count() << " ms");
  CHECK(t.took < kPromptly);
  REQUIRE(t.out.ok());
  simdjson::dom::parser parser;
  auto root = ctx::agent::testing::parse(parser, t.out->structured);
  CHECK(bool_at(root, "partial"));
  CHECK(string_at(root, "partial_reason") == "deadline");
  CHECK(number_at(root["skipped"]["timeout"]["count"]) >= 1);
  std::string_view example;
  REQUIRE(root["skipped"]["timeout"]["examples"].at(0).get(example) == simdjson::SUCCESS);
  CHECK(example == "slow.txt");
  CHECK(number_at(root["skipped"]["unreadable"]["count"]) == 0);  // not mistaken for a limit
  INFO(t.out->text);
  CHECK(t.out->text.find("file not searched before the deadline (slow.txt") != std::string::npos);
  CHECK(t.out->text.find("the search stopped at the 1,500 ms deadline, so results are partial: "
                         "narrow path or glob, or simplify the pattern") != std::string::npos);
  ctx::agent::testing::check_output_schema("search_files", t.out->structured);
}

TEST_CASE("a regex that hits PCRE2's backtracking limit is its own skip, not an unreadable file",
          "[agent][deadline][search_files]") {
  ToolEnv env;
  env.file("many_a.txt", std::string(60, 'a') + "\n");  // (a|aa)+(?=b): far past the match limit
  env.file("plain.txt", "b\n");
  auto out = env.ok("search_files", R"j({"pattern":"(a|aa)+(?=b)"})j");
  simdjson::dom::parser parser;
  auto root = ctx::agent::testing::parse(parser, out.structured);
  CHECK(number_at(root["skipped"]["regex_limit"]["count"]) == 1);
  CHECK(number_at(root["skipped"]["unreadable"]["count"]) == 0);
  // Matches in that file were never counted: the total is a lower bound.
  CHECK(bool_at(root, "partial"));
  CHECK(bool_at(root, "total_is_lower_bound"));
  CHECK(bool_at(root, "truncated"));  // partial: the list itself is incomplete
  CHECK(string_at(root, "partial_reason") == "regex_limit");
  INFO(out.text);
  CHECK(out.text.find("searched only in part: the regex backtracks too much there (simplify it, "
                      "or search with literal=true) (many_a.txt)") != std::string::npos);
  ctx::agent::testing::check_output_schema("search_files", out.structured);
}

TEST_CASE("search_files over a tree too large for its deadline returns what it found, flagged",
          "[agent][deadline][search_files]") {
  const BigTree& tree = BigTree::get();
  Timed t = tree.call("search_files", R"({"pattern":"needle","max_results":5})", 0ms, 2);
  INFO("took " << t.took.count() << " ms");
  CHECK(t.took < kPromptly);
  REQUIRE(t.out.ok());
  simdjson::dom::parser parser;
  auto root = ctx::agent::testing::parse(parser, t.out->structured);
  CHECK(bool_at(root, "partial"));
  CHECK(bool_at(root, "truncated"));
  CHECK(string_at(root, "partial_reason") == "deadline");
  CHECK(bool_at(root, "total_is_lower_bound"));
  CHECK(number_at(root["skipped"]["timeout"]["count"]) >= 1);
  CHECK(number_at(root["files_searched"]) < 4000);
  INFO(t.out->text);
  CHECK(t.out->text.find("the search stopped at the 2 ms deadline") != std::string::npos);
  CHECK(t.out->text.find("narrow path or glob") != std::string::npos);
  ctx::agent::testing::check_output_schema("search_files", t.out->structured);

  // The same call with time to spare finds every match: the deadline was what cut it.
  Timed full = tree.call("search_files", R"({"pattern":"needle","max_results":5})", 60s, 60'000);
  REQUIRE(full.out.ok());
  simdjson::dom::parser full_parser;
  auto full_root = ctx::agent::testing::parse(full_parser, full.out->structured);
  CHECK_FALSE(bool_at(full_root, "partial"));
  CHECK(bool_at(full_root, "truncated"));  // 4,000 matches, 5 shown: more pages follow
  CHECK(number_at(full_root["total"]) == 4000);
}

TEST_CASE("find_files over a tree too large for its deadline flags truncation and the next step",
          "[agent][deadline][find_files]") {
  const BigTree& tree = BigTree::get();
  Timed t = tree.call("find_files", R"({"pattern":"**/*.txt","max_results":1000})", 0ms, 2);
  INFO("took " << t.took.count() << " ms");
  CHECK(t.took < kPromptly);
  REQUIRE(t.out.ok());
  CHECK(t.out->truncated);
  simdjson::dom::parser parser;
  auto root = ctx::agent::testing::parse(parser, t.out->structured);
  CHECK(bool_at(root, "truncated"));
  CHECK_FALSE(bool_at(root, "total_exact"));
  // The reason names the deadline unless a page limit also cut what the walk found.
  if (root["next_cursor"].is_null()) CHECK(string_at(root, "truncated_reason") == "deadline");
  CHECK(number_at(root["total"]) < 4000);
  INFO(t.out->text);
  CHECK(t.out->text.find("the walk stopped early (deadline): narrow path or pattern") !=
        std::string::npos);
  ctx::agent::testing::check_output_schema("find_files", t.out->structured);

  Timed full = tree.call("find_files", R"({"pattern":"**/*.txt"})", 60s, 60'000);
  REQUIRE(full.out.ok());
  simdjson::dom::parser full_parser;
  auto full_root = ctx::agent::testing::parse(full_parser, full.out->structured);
  CHECK(bool_at(full_root, "total_exact"));
  CHECK(number_at(full_root["total"]) == 4000);
}

TEST_CASE(
    "list_directory over a tree too large for its deadline flags truncation and the next step",
    "[agent][deadline][list_directory]") {
  const BigTree& tree = BigTree::get();
  Timed t = tree.call("list_directory", R"({"depth":5,"max_results":1000})", 0ms, 2);
  INFO("took " << t.took.count() << " ms");
  CHECK(t.took < kPromptly);
  REQUIRE(t.out.ok());
  CHECK(t.out->truncated);
  simdjson::dom::parser parser;
  auto root = ctx::agent::testing::parse(parser, t.out->structured);
  CHECK(bool_at(root, "truncated"));
  CHECK_FALSE(bool_at(root, "total_exact"));
  if (root["next_cursor"].is_null()) CHECK(string_at(root, "truncated_reason") == "deadline");
  CHECK(number_at(root["total"]) < 4040);
  INFO(t.out->text);
  CHECK(t.out->text.find("the walk stopped early (deadline): narrow path or depth") !=
        std::string::npos);
  ctx::agent::testing::check_output_schema("list_directory", t.out->structured);

  Timed full = tree.call("list_directory", R"({"depth":5})", 60s, 60'000);
  REQUIRE(full.out.ok());
  simdjson::dom::parser full_parser;
  auto full_root = ctx::agent::testing::parse(full_parser, full.out->structured);
  CHECK(bool_at(full_root, "total_exact"));
  CHECK(number_at(full_root["total"]) == 4040);
}

TEST_CASE("file_info past its deadline describes the file without reading it and says why",
          "[agent][deadline][file_info]") {
  ToolEnv env;
  env.file("a.txt", "one\ntwo\n");
  Timed t = timed_call(env, "file_info", R"({"path":"a.txt"})", 0ms);
  REQUIRE(t.out.ok());
  simdjson::dom::parser parser;
  auto root = ctx::agent::testing::parse(parser, t.out->structured);
  CHECK(string_at(root, "skipped") == "the deadline passed before the file was read");
  CHECK(root["lines"].is_null());
  CHECK(root["hash"].is_null());
  CHECK(t.out->text.find("(the deadline passed before the file was read)") != std::string::npos);
  Timed full = timed_call(env, "file_info", R"({"path":"a.txt"})", 60s);
  REQUIRE(full.out.ok());
  CHECK(full.out->structured.find("\"lines\":2") != std::string::npos);
}

TEST_CASE("the windowed scan that keeps the deadline enforceable still finds every matching line",
          "[agent][deadline][search_files]") {
  ToolEnv env;
  // A look-ahead makes PCRE2 scan alone, window by window: matches on both sides of window
  // boundaries, next to lines that only almost match, in a line longer than the first window,
  // and on a last line without a line feed.
  std::string text;
  std::uint64_t expected = 0;
  for (int i = 0; i < 1000; ++i) {
    if (i % 7 == 0) {
      text += "x foobar " + std::to_string(i) + "\n";
      ++expected;
    } else if (i % 5 == 0) {
      text += "foobaz\n";
    } else {
      text += "plain line\n";
    }
  }
  text += std::string(100'000, 'y') + " foobar\n\n\nfoo\nbar\nfoobar";
  expected += 2;
  env.file("a.txt", text);
  simdjson::dom::parser parser;
  auto out = env.call("search_files", R"j({"pattern":"foo(?=bar)","max_results":1})j");
  REQUIRE(out.ok());
  auto root = ctx::agent::testing::parse(parser, out->structured);
  CHECK_FALSE(bool_at(root, "partial"));
  CHECK(number_at(root["total"]) == expected);
}

TEST_CASE("expired() gives a poller a turn once per poll interval, not on every check",
          "[agent][deadline][inline]") {
  ToolEnv env;
  struct Counting final : ctx::agent::CallPoller {
    int turns = 0;
    void poll() override { ++turns; }
  } poller;
  ctx::agent::EstimatingCounter counter;
  ctx::agent::CallContext context{
      env.sandbox(), env.policy(), counter, env.config, std::chrono::steady_clock::now() + 60s,
      nullptr,       nullptr,      &poller};
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t checks = 0;
  CHECK_FALSE(context.expired());
  CHECK(poller.turns == 0);  // the first check only starts the interval
  std::uint64_t expired_checks = 0;
  while (std::chrono::steady_clock::now() - start < 20ms) {
    expired_checks += context.expired() ? 1U : 0U;
    ++checks;
  }
  CHECK(expired_checks == 0);
  const auto interval = ctx::agent::CallPoller::kPollInterval;
  INFO("checks " << checks << ", turns " << poller.turns);
  CHECK(poller.turns >= 1);
  CHECK(poller.turns <= 20ms / interval);
  CHECK(static_cast<std::uint64_t>(poller.turns) < checks / 10);
}
