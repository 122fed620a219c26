// The tool walks judge each entry by its own level only (Policy::check_entry), never enter a
// hidden directory, and let find_files match its glob before the ignore rules and the policy. These
// randomized properties compare what list_directory, find_files and read_file show on random trees
// under random policies with the unpruned verdict: Policy::check of every path, all parents
// included. A pruned walk must never hide a visible path nor show a hidden one.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ctx/agent/policy.hpp"
#include "ctx/walker/glob.hpp"
#include "ctx/walker/walker.hpp"
#include "tool_test_env.hpp"

using ctx::agent::Policy;
using ctx::agent::PolicyConfig;
using ctx::agent::ToolErrorCode;
using ctx::agent::Visibility;
using ctx::agent::testing::parse;
using ctx::agent::testing::ToolEnv;

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kDirNames = {"src", "gen",  "vendor", "docs", "a",
                                            "x",   "deep", "inner",  "b",    ".cfg"};
const std::vector<std::string> kFileNames = {
    "a.c",     "b.c",  "x.c",     "keep.h",     "y.h",    "ok.md", "README.md",  "key.pem",
    "KEY.PEM", ".env", "top.txt", "secret.txt", "id_rsa", "b",     ".ENV.local", "bin"};
// Globs that prune (directories), re-include (negations), anchor, span directories, and match
// names at any depth; some can only be decided at a parent level.
const std::vector<std::string> kProtectGlobs = {"*.pem",      "secret*",  "inner/", "/top.txt",
                                                "**/deep/**", "a/**/b.c", "x/"};
const std::vector<std::string> kDenyGlobs = {
    "gen/", "vendor",   "*.h",  "!keep.h", "/src/gen", "docs/**", "!docs/ok.md",
    "b*",   "**/x/*.c", "!x.c", "src/*/",  "!src/a/",  ".cfg"};
const std::vector<std::string> kAllowGlobs = {"src/", "*.c",    "!gen/", "**/*.md",
                                              "a/",   "!a/b.c", "keep*", "/README.md"};

template <class Rng>
std::vector<std::string> pick(Rng& rng, const std::vector<std::string>& pool, int max_count) {
  std::vector<std::string> out;
  const int n = std::uniform_int_distribution<int>(0, max_count)(rng);
  for (int i = 0; i < n; ++i) {
    out.push_back(pool[std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng)]);
  }
  return out;
}

template <class Rng>
void grow(Rng& rng, const ToolEnv& env, const std::string& dir, int depth) {
  const std::string prefix = dir.empty() ? "" : dir + "/";
  for (const std::string& name : pick(rng, kFileNames, 4)) env.file(prefix + name, "x\n");
  if (depth >= 4) return;
  for (const std::string& name : pick(rng, kDirNames, 3)) {
    if (fs::exists(env.root() / (prefix + name))) continue;  // a file of that name exists
    env.dir(prefix + name);
    grow(rng, env, prefix + name, depth + 1);
  }
}

struct TreeEntry {
  std::string path;
  bool is_dir;
};

std::vector<TreeEntry> all_entries(const fs::path& root) {
  std::vector<TreeEntry> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    out.push_back({fs::relative(it->path(), root).generic_string(), it->is_directory()});
  }
  return out;
}

std::set<std::string> strings_of(const std::string& structured, const char* array,
                                 const char* key = nullptr) {
  simdjson::dom::parser parser;
  auto json = parse(parser, structured);
  std::set<std::string> out;
  for (auto item : json[array].get_array()) {
    out.emplace(std::string_view(key == nullptr ? item : item[key]));
  }
  return out;
}

// The files a plain walk (no report_all, no agent hook: what `ctxsearch --files --hidden` lists)
// finds under `root` with the ignore rules on, relative to `root`.
std::set<std::string> plain_walk(const fs::path& root) {
  class Collect final : public ctx::walker::WalkSink {
   public:
    explicit Collect(std::string prefix) : prefix_(std::move(prefix)) {}
    ctx::walker::Flow on_file(const ctx::walker::WalkEntry& entry) override {
      std::lock_guard lock(mutex_);
      if (entry.path.substr(0, prefix_.size()) == prefix_) {
        files.emplace(entry.path.substr(prefix_.size()));
      } else {
        files.emplace(std::string("(outside the root) ") + std::string(entry.path));
      }
      return ctx::walker::Flow::kContinue;
    }
    void on_error(const ctx::Error& error) override {
      std::lock_guard lock(mutex_);
      files.emplace("(error) " + error.detail);
    }
    std::set<std::string> files;

   private:
    std::string prefix_;
    std::mutex mutex_;
  };
  Collect sink(root.string() + "/");
  ctx::walker::WalkOptions options;
  options.paths = {root.string()};
  options.hidden = true;
  REQUIRE(ctx::walker::walk(options, sink).ok());
  return std::move(sink.files);
}

std::string describe(const PolicyConfig& config) {
  auto list = [](const std::vector<std::string>& globs) {
    std::string s = "[";
    for (const std::string& g : globs) s += "'" + g + "' ";
    return s + "]";
  };
  return "protect " + list(config.protect) + " deny " + list(config.deny) + " allow " +
         list(config.allow) + (config.no_default_protect ? " no_default_protect" : "");
}

}  // namespace

TEST_CASE("pruned tool walks show exactly the paths the full policy check shows",
          "[agent][policy][list_directory][find_files]") {
  std::size_t visible_seen = 0, hidden_seen = 0;
  for (std::uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937 rng(seed);
    PolicyConfig config;
    config.protect = pick(rng, kProtectGlobs, 2);
    config.deny = pick(rng, kDenyGlobs, 4);
    if (rng() % 3 == 0) config.allow = pick(rng, kAllowGlobs, 3);
    config.no_default_protect = rng() % 4 == 0;
    ToolEnv env(config);
    env.config.limits.max_results = 100'000;
    grow(rng, env, "", 0);
    auto policy = Policy::build(config);
    REQUIRE(policy.ok());

    std::set<std::string> want_all, want_files, want_c;
    std::vector<std::string> hidden_files;
    for (const TreeEntry& e : all_entries(env.root())) {
      if (policy->check(e.path, e.is_dir) == Visibility::kVisible) {
        want_all.insert(e.path);
        if (!e.is_dir) want_files.insert(e.path);
        const std::string base = fs::path(e.path).filename().string();
        if (!e.is_dir && base.size() >= 2 && base.substr(base.size() - 2) == ".c") {
          want_c.insert(e.path);
        }
        ++visible_seen;
      } else {
        if (!e.is_dir) hidden_files.push_back(e.path);
        ++hidden_seen;
      }
    }
    INFO("seed " << seed << ": " << describe(config));

    auto listed =
        env.ok("list_directory", R"({"depth":5,"include_ignored":true,"max_results":100000,)"
                                 R"("max_tokens":1000000})");
    CHECK(strings_of(listed.structured, "entries", "path") == want_all);
    auto found = env.ok("find_files", R"({"pattern":"**","include_ignored":true,)"
                                      R"("max_results":100000,"max_tokens":1000000})");
    CHECK(strings_of(found.structured, "files") == want_files);
    // A selective glob is matched before the policy: it must still never show a hidden file.
    auto c_files = env.ok("find_files", R"({"pattern":"*.c","include_ignored":true,)"
                                        R"("max_results":100000,"max_tokens":1000000})");
    CHECK(strings_of(c_files.structured, "files") == want_c);
    // Hidden == not found, for every hidden file; every visible file reads.
    for (const std::string& path : hidden_files) {
      INFO(path);
      auto err = env.error("read_file", "{\"path\":\"" + path + "\"}");
      CHECK(err.code == ToolErrorCode::kNotFound);
    }
    for (const std::string& path : want_files) {
      INFO(path);
      CHECK(env.call("read_file", "{\"path\":\"" + path + "\"}").ok());
    }
  }
  // The generator exercises both outcomes (else the property says nothing).
  CHECK(visible_seen > 200);
  CHECK(hidden_seen > 200);
}

TEST_CASE("find_files with a glob lists exactly the visible, unignored files it matches",
          "[agent][find_files][ignore]") {
  // The glob is matched before the ignore rules and the policy; the result must be the same as
  // filtering a plain walk (ignore rules on) by the full policy check and the glob.
  const std::vector<std::string> patterns = {
      "*.c",  "**/b.c",  "src/**",     "*.md",   "b",      "**/x/*", "a/**/*.h", ".env*",
      "KEY*", "*/*/a.c", "docs/ok.md", "[ab].c", "**/*.c", "**/**",  "**/[ab]*", "**/*b"};
  for (std::uint32_t seed = 100; seed < 130; ++seed) {
    std::mt19937 rng(seed);
    PolicyConfig config;
    config.deny = pick(rng, kDenyGlobs, 2);
    if (rng() % 4 == 0) config.allow = pick(rng, kAllowGlobs, 2);
    ToolEnv env(config);
    env.config.limits.max_results = 100'000;
    grow(rng, env, "", 0);
    env.dir(".git");  // the ignore files apply inside a repository
    std::string ignore;
    for (const std::string& line :
         pick(rng, {"*.h", "gen/", "!keep.h", "/a", "deep", "*.md", "!ok.md", "b", "src/*/x.c"},
              4)) {
      ignore += line + "\n";
    }
    env.file(".gitignore", ignore);
    INFO("seed " << seed << ": " << describe(config) << " .gitignore:\n" << ignore);
    // The oracle: the plain walker's files (ignore rules decided without the agent's hook) that
    // the full policy check shows.
    auto policy = Policy::build(config);
    REQUIRE(policy.ok());
    std::set<std::string> every;
    for (const std::string& path : plain_walk(env.root())) {
      if (policy->check(path, false) == Visibility::kVisible) every.insert(path);
    }
    auto all =
        env.ok("find_files", R"({"pattern":"**","max_results":100000,"max_tokens":1000000})");
    CHECK(strings_of(all.structured, "files") == every);
    for (const std::string& pattern : patterns) {
      INFO("pattern " << pattern);
      const bool basename_only = pattern.find('/') == std::string::npos;
      auto glob = ctx::walker::Glob::compile(pattern, ctx::walker::GlobOptions{});
      std::set<std::string> want;
      for (const std::string& path : every) {
        std::string_view text = path;
        if (basename_only && path.rfind('/') != std::string::npos) {
          text = std::string_view(path).substr(path.rfind('/') + 1);
        }
        if (glob.matches(text)) want.insert(path);
      }
      auto got = env.ok("find_files", "{\"pattern\":\"" + pattern +
                                          "\",\"max_results\":100000,\"max_tokens\":1000000}");
      CHECK(strings_of(got.structured, "files") == want);
    }
  }
}

TEST_CASE("a symlink into a hidden path tells nothing of what is there, through any tool",
          "[agent][policy]") {
  PolicyConfig config;
  config.deny = {"/config/secret.yaml"};
  ToolEnv env(config);
  env.file(".git/config", "[core]\n");
  env.file(".env", "S=1\n");
  env.file("config/secret.yaml", "k: v\n");
  env.file("src/f.txt", "hi\n");
  env.symlink(".git", "gitlink");
  env.symlink(".env", "envlink");
  env.symlink(".envX", "nolink");
  env.symlink("config", "cfg");
  env.symlink("../../src", ".git/hooks/vis");
  env.symlink(".git/hooks", "hooks");
  env.symlink("src", "srclink");
  // A failure below a hidden step would be not_a_directory where the hidden entry is a file, and
  // not_found where it is missing: both are not_found.
  for (const char* path : {"gitlink/config/x", "gitlink/missing/x", "envlink/x", "nolink/x",
                           "cfg/secret.yaml/x", "cfg/missing.yaml/x", "hooks/vis/f.txt"}) {
    for (const char* tool : {"read_file", "file_info", "list_directory"}) {
      CAPTURE(path, tool);
      CHECK(env.error(tool, fmt::format(R"({{"path":"{}"}})", path)).code ==
            ToolErrorCode::kNotFound);
    }
    CAPTURE(path);
    CHECK(env.error("find_files", fmt::format(R"({{"pattern":"*","path":"{}"}})", path)).code ==
          ToolErrorCode::kNotFound);
    CHECK(env.error("search_files", fmt::format(R"({{"pattern":"x","path":"{}"}})", path)).code ==
          ToolErrorCode::kNotFound);
  }
  // Through a visible symlink, the usual answers.
  CHECK(env.error("read_file", R"({"path":"srclink/f.txt/x"})").code ==
        ToolErrorCode::kNotADirectory);
  CHECK(env.error("read_file", R"({"path":"src/f.txt/x"})").code == ToolErrorCode::kNotADirectory);
  env.ok("read_file", R"({"path":"srclink/f.txt"})");
  env.file("config/other.yaml", "k: v\n");
  env.ok("read_file", R"({"path":"cfg/other.yaml"})");
}
