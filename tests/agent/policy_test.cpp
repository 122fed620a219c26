// Which root-relative paths the policy hides: the default protected secrets, configured deny and
// allow lists, gitignore glob semantics, and hiding everything beneath a hidden directory.
#include "ctx/agent/policy.hpp"

#include <catch2/catch.hpp>
#include <string>

using ctx::agent::Policy;
using ctx::agent::PolicyConfig;
using ctx::agent::Visibility;

namespace {

Policy build(const PolicyConfig& config) {
  auto p = Policy::build(config);
  INFO((p.ok() ? std::string() : p.error().message));
  REQUIRE(p.ok());
  return std::move(p).value();
}

const char* name(Visibility v) {
  switch (v) {
    case Visibility::kVisible:
      return "visible";
    case Visibility::kDenied:
      return "denied";
    case Visibility::kProtected:
      return "protected";
  }
  return "?";
}

void expect(const Policy& policy, const std::string& path, bool is_dir, Visibility want) {
  INFO(path << (is_dir ? " (dir)" : "") << " is " << name(policy.check(path, is_dir)));
  CHECK(policy.check(path, is_dir) == want);
}

}  // namespace

TEST_CASE("default protection hides secrets at any depth", "[agent][policy]") {
  Policy p = build({});
  for (const char* path : {".env",
                           ".env.local",
                           "a/b/.env",
                           "a/b/server.pem",
                           "deploy/tls.key",
                           ".git/config",
                           ".git/objects/ab/cdef",
                           "config/secrets.yaml",
                           "secrets/x",
                           "a/secrets/b/c.txt",
                           "id_rsa",
                           "id_rsa.pub",
                           "home/.ssh/id_ed25519",
                           "cert.p12",
                           "cert.pfx",
                           ".netrc",
                           ".npmrc",
                           "sub/.pypirc",
                           "ID_RSA",
                           "Server.PEM"}) {
    expect(p, path, false, Visibility::kProtected);
  }
  expect(p, ".git", true, Visibility::kProtected);
  expect(p, "secrets", true, Visibility::kProtected);
  for (const char* path : {"src/main.c", "README.md", "env.txt", "keys/readme", "a/b/pem",
                           "environment", "sub/.gitignore", "docs/secret.md"}) {
    expect(p, path, false, Visibility::kVisible);
  }
  expect(p, "", true, Visibility::kVisible);
  expect(p, "src", true, Visibility::kVisible);
  // `.git/` names a directory: a file called .git (a worktree's gitfile) is an ordinary file.
  expect(p, "wt/.git", false, Visibility::kVisible);
}

TEST_CASE("the default protected list is the documented one", "[agent][policy]") {
  const auto& globs = ctx::agent::default_protected_globs();
  CHECK(globs.size() == 13);
  for (const char* g : {".git/", ".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*",
                        "*.p12", "*.pfx", "**/secrets*", ".netrc", ".npmrc", ".pypirc"}) {
    INFO(g);
    CHECK(std::find(globs.begin(), globs.end(), g) != globs.end());
  }
}

TEST_CASE("no_default_protect drops the defaults but keeps configured protection",
          "[agent][policy]") {
  PolicyConfig config;
  config.no_default_protect = true;
  config.protect = {"*.secret"};
  Policy p = build(config);
  expect(p, ".env", false, Visibility::kVisible);
  expect(p, ".git/config", false, Visibility::kVisible);
  expect(p, "a/b.secret", false, Visibility::kProtected);
}

TEST_CASE("a hidden directory hides everything beneath it", "[agent][policy]") {
  PolicyConfig config;
  config.deny = {"build/", "/vendor", "docs/internal"};
  Policy p = build(config);
  expect(p, "build", true, Visibility::kDenied);
  expect(p, "build/out/x.o", false, Visibility::kDenied);
  expect(p, "src/build/gen.c", false, Visibility::kDenied);  // no '/' inside: any depth
  expect(p, "build", false, Visibility::kVisible);           // trailing '/': directories only
  expect(p, "vendor/lib/a.c", false, Visibility::kDenied);
  expect(p, "src/vendor/a.c", false, Visibility::kVisible);  // leading '/': anchored
  expect(p, "docs/internal/plan.md", false, Visibility::kDenied);
  expect(p, "x/docs/internal/plan.md", false, Visibility::kVisible);
  expect(p, "docs/public.md", false, Visibility::kVisible);
}

TEST_CASE("deny globs use gitignore semantics with ** and negation", "[agent][policy]") {
  PolicyConfig config;
  config.deny = {"*.log", "!keep.log", "**/gen/**/*.c", "a/**/z"};
  Policy p = build(config);
  expect(p, "x.log", false, Visibility::kDenied);
  expect(p, "deep/er/x.log", false, Visibility::kDenied);
  expect(p, "keep.log", false, Visibility::kVisible);
  expect(p, "gen/a.c", false, Visibility::kDenied);
  expect(p, "src/gen/x/y/a.c", false, Visibility::kDenied);
  expect(p, "src/gen/a.h", false, Visibility::kVisible);
  expect(p, "a/z", false, Visibility::kDenied);
  expect(p, "a/b/c/z", false, Visibility::kDenied);
  expect(p, "b/a/z", false, Visibility::kVisible);
}

TEST_CASE("a negation cannot re-include a file beneath a hidden directory", "[agent][policy]") {
  PolicyConfig config;
  config.deny = {"out/", "!out/keep.txt"};
  config.protect = {"!.env.example"};
  Policy p = build(config);
  expect(p, "out/keep.txt", false, Visibility::kDenied);
  // A protected file can be re-included by a later protect line of its own level.
  expect(p, ".env.example", false, Visibility::kVisible);
  expect(p, ".env.local", false, Visibility::kProtected);
}

TEST_CASE("allow shows only matching files, and directories stay reachable", "[agent][policy]") {
  PolicyConfig config;
  config.allow = {"src/", "*.md", "!src/gen/"};
  Policy p = build(config);
  expect(p, "src/main.c", false, Visibility::kVisible);
  expect(p, "src/a/b/c.h", false, Visibility::kVisible);
  expect(p, "README.md", false, Visibility::kVisible);
  expect(p, "docs/guide.md", false, Visibility::kVisible);
  expect(p, "Makefile", false, Visibility::kDenied);
  expect(p, "tests/t.c", false, Visibility::kDenied);
  expect(p, "src/gen/out.c", false, Visibility::kDenied);
  expect(p, "tests", true, Visibility::kVisible);
  expect(p, "src/gen", true, Visibility::kVisible);
}

TEST_CASE("protection beats allow and deny beats allow", "[agent][policy]") {
  PolicyConfig config;
  config.allow = {"**"};
  config.deny = {"*.tmp"};
  Policy p = build(config);
  expect(p, "config/.env", false, Visibility::kProtected);
  expect(p, "a.tmp", false, Visibility::kDenied);
  expect(p, "a.c", false, Visibility::kVisible);
  PolicyConfig both;
  both.deny = {"*.env.*"};
  both.protect = {"x/"};
  Policy q = build(both);
  expect(q, "x/.env.prod", false, Visibility::kProtected);  // protected is reported first
}

TEST_CASE("bad globs are invalid arguments that name the glob and the list", "[agent][policy]") {
  struct Case {
    const char* list;
    std::string glob;
  };
  for (const Case& c :
       {Case{"deny", ""}, Case{"deny", "   "}, Case{"allow", "#comment"}, Case{"protect", "!"},
        Case{"deny", "/"}, Case{"deny", "[[:bogus:]]"}, Case{"allow", "abc\\"},
        Case{"deny", std::string("a\0b", 3)}, Case{"deny", "a\nb"}}) {
    PolicyConfig config;
    if (std::string(c.list) == "deny") config.deny = {c.glob};
    if (std::string(c.list) == "allow") config.allow = {c.glob};
    if (std::string(c.list) == "protect") config.protect = {c.glob};
    auto p = Policy::build(config);
    INFO(c.list << " glob '" << c.glob << "'");
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().code == ctx::agent::ToolErrorCode::kInvalidArgument);
    CHECK(p.error().message.find(c.list) != std::string::npos);
    if (c.glob.find('\0') == std::string::npos && !c.glob.empty()) {
      CHECK(p.error().message.find(c.glob) != std::string::npos);
    }
  }
}

TEST_CASE("a moved-from policy can be assigned again", "[agent][policy]") {
  Policy a = build({});
  PolicyConfig config;
  config.deny = {"*.c"};
  Policy b = build(config);
  a = std::move(b);
  expect(a, "x.c", false, Visibility::kDenied);
}
