// git_config: core.excludesFile read as git reads it. Every case is also checked against
// `git config --get core.excludesFile` run with the same HOME, so the goldens are git's.
#include "../../walker/src/git_config.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace {

namespace fs = std::filesystem;
using ctx::walker::detail::configured_excludes_file;

// A private HOME with no system or XDG configuration leaking in; restores the environment after.
class FakeHome {
 public:
  FakeHome() {
    char tmpl[] = "/tmp/ctx_git_config_XXXXXX";
    dir_ = mkdtemp(tmpl);
    for (const char* name : kVars) {
      const char* v = getenv(name);
      saved_.emplace_back(name, v ? std::optional<std::string>(v) : std::nullopt);
    }
    setenv("HOME", dir_.c_str(), 1);
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("GIT_CONFIG_GLOBAL");
    unsetenv("GIT_CONFIG_COUNT");
  }
  ~FakeHome() {
    for (auto& [name, value] : saved_) {
      if (value) {
        setenv(name, value->c_str(), 1);
      } else {
        unsetenv(name);
      }
    }
    fs::remove_all(dir_);
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::path p = fs::path(dir_) / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  const std::string& dir() const { return dir_; }

 private:
  static constexpr const char* kVars[] = {"HOME", "GIT_CONFIG_NOSYSTEM", "XDG_CONFIG_HOME",
                                          "GIT_CONFIG_GLOBAL", "GIT_CONFIG_COUNT"};
  std::string dir_;
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

// What git itself says, with ~/ expanded as git's --path type does. nullopt when unset.
std::optional<std::string> git_says() {
  FILE* pipe = popen("git config --path --get core.excludesFile 2>/dev/null", "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[512];
  std::size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  int status = pclose(pipe);
  if (status != 0) return std::nullopt;
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

void check_against_git(const FakeHome& home) {
  (void)home;
  std::optional<std::string> ours = configured_excludes_file();
  std::optional<std::string> git = git_says();
  INFO("git: " << git.value_or("<unset>") << "  ours: " << ours.value_or("<unset>"));
  CHECK(ours == git);
}

}  // namespace

TEST_CASE("core.excludesFile is read as git reads it", "[walker][git_config]") {
  const char* cases[] = {
      "[core]\n\texcludesFile = /x/ignore\n",
      "[core]\nexcludesfile=/x/a\n[core]\nEXCLUDESFILE = /x/b\n",  // last wins, any case
      "[CORE]\n  excludesFile = \"/x/with space\"  ; comment\n",
      "[core]\n excludesFile = /x/a # comment\n",
      "[core]\n excludesFile = \"/x/semi;colon\"\n",
      "[core]\n excludesFile = /x/esc\\\"aped\n",
      "[core]\n excludesFile = /x/contin\\\nued\n",
      "[core] excludesFile = /x/same-line\n",
      "[core \"sub\"]\n excludesFile = /x/not-this\n",
      "[core]\n excludesFile = ~/global-ignore\n",
      "[user]\n name = a\n[core]\n bare\n excludesFile = /x/after-bare\n",
      "# only a comment\n",
      "[core]\n excludesFile = /x/trailing-blanks   \n",
      "[core]\r\n excludesFile = /x/crlf\r\n",
  };
  for (const char* text : cases) {
    FakeHome home;
    home.write(".gitconfig", text);
    INFO("config: " << text);
    check_against_git(home);
  }
}

TEST_CASE("include.path is followed relative to the including file", "[walker][git_config]") {
  FakeHome home;
  home.write(".gitconfig", "[include]\n path = conf/more\n[core]\n excludesFile = /x/before\n");
  home.write("conf/more", "[include]\n path = ../deeper\n");
  home.write("deeper", "[core]\n excludesFile = /x/from-include\n");
  check_against_git(home);
  // The include comes first, so the later value in .gitconfig wins.
  CHECK(configured_excludes_file() == std::optional<std::string>("/x/before"));
}

TEST_CASE("XDG config is read before ~/.gitconfig, which wins", "[walker][git_config]") {
  FakeHome home;
  home.write(".config/git/config", "[core]\n excludesFile = /x/xdg\n");
  check_against_git(home);
  CHECK(configured_excludes_file() == std::optional<std::string>("/x/xdg"));
  home.write(".gitconfig", "[core]\n excludesFile = /x/home\n");
  check_against_git(home);
  CHECK(configured_excludes_file() == std::optional<std::string>("/x/home"));
  setenv("XDG_CONFIG_HOME", (home.dir() + "/xdg").c_str(), 1);
  home.write("xdg/git/config", "[core]\n excludesFile = /x/xdg-env\n");
  home.write(".gitconfig", "[user]\n name = n\n");
  check_against_git(home);
  CHECK(configured_excludes_file() == std::optional<std::string>("/x/xdg-env"));
}

TEST_CASE("GIT_CONFIG_GLOBAL replaces the global files and GIT_CONFIG_COUNT overrides all",
          "[walker][git_config]") {
  FakeHome home;
  home.write(".gitconfig", "[core]\n excludesFile = /x/home\n");
  home.write("other", "[core]\n excludesFile = /x/other\n");
  setenv("GIT_CONFIG_GLOBAL", (home.dir() + "/other").c_str(), 1);
  check_against_git(home);
  CHECK(configured_excludes_file() == std::optional<std::string>("/x/other"));
  setenv("GIT_CONFIG_COUNT", "1", 1);
  setenv("GIT_CONFIG_KEY_0", "core.excludesFile", 1);
  setenv("GIT_CONFIG_VALUE_0", "/x/env", 1);
  check_against_git(home);
  CHECK(configured_excludes_file() == std::optional<std::string>("/x/env"));
  unsetenv("GIT_CONFIG_KEY_0");
  unsetenv("GIT_CONFIG_VALUE_0");
}
