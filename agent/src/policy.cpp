#include "ctx/agent/policy.hpp"

#include <fmt/format.h>

#include "ctx/walker/glob.hpp"
#include "ctx/walker/ignore_rules.hpp"

namespace ctx::agent {
namespace {

using walker::IgnoreRules;
using walker::MatchKind;

// Refuses a glob that gitignore syntax would silently turn into nothing (a comment, a blank, a
// lone "!" or "/", a malformed class, a trailing backslash) or that holds bytes no line can.
ToolStatus validate_glob(std::string_view list, std::string_view glob) {
  auto bad = [&](std::string_view why) {
    return ToolError{
        ToolErrorCode::kInvalidArgument, fmt::format("the {} glob '{}' {}", list, glob, why),
        "fix the glob in the configuration; globs use gitignore syntax: 'name' matches at any "
        "depth, 'dir/' only directories, 'a/b' is anchored at the root, '**' spans directories"};
  };
  if (glob.find_first_of(std::string_view("\0\n\r", 3)) != std::string_view::npos) {
    return bad("contains a NUL byte or a line break");
  }
  if (glob.find_first_not_of(' ') == std::string_view::npos) return bad("is empty");
  if (glob[0] == '#') {
    return bad(
        "is a comment in gitignore syntax; write '\\#...' to match a name starting with '#'");
  }
  // The body IgnoreRules::add_line compiles (trailing spaces are trimmed there as in git).
  std::string_view body = glob;
  while (!body.empty() && body.back() == ' ' &&
         (body.size() < 2 || body[body.size() - 2] != '\\')) {
    body.remove_suffix(1);
  }
  if (!body.empty() && body[0] == '!') body.remove_prefix(1);
  if (!body.empty() && body.back() == '/') body.remove_suffix(1);
  if (!body.empty() && body[0] == '/') body.remove_prefix(1);
  if (body.empty()) return bad("matches nothing");
  walker::Glob compiled = walker::Glob::compile(body, walker::GlobOptions{});
  if (compiled.shape() == walker::Glob::Shape::kNever) {
    return bad("is malformed (an unknown [[:class:]] or a trailing backslash) and matches nothing");
  }
  return {};
}

Expected<IgnoreRules> compile_list(std::string_view list, const std::vector<std::string>& globs,
                                   bool case_insensitive) {
  IgnoreRules rules(IgnoreRules::Options{case_insensitive});
  for (const std::string& glob : globs) {
    CTX_TRY(validate_glob(list, glob));
    rules.add_line(glob);
  }
  return rules;
}

// Whether `rules` ignore `path` itself or any directory above it. As in git, a `!` line cannot
// re-include anything beneath an ignored directory.
bool ignored_at_any_level(const IgnoreRules& rules, std::string_view path, bool is_dir) {
  if (rules.empty()) return false;
  for (std::size_t slash = path.find('/'); slash != std::string_view::npos;
       slash = path.find('/', slash + 1)) {
    if (rules.match(path.substr(0, slash), true) == MatchKind::kIgnore) return true;
  }
  return rules.match(path, is_dir) == MatchKind::kIgnore;
}

// Whether the allow list selects the file `path`: the deepest level (the file, then its parent
// directories upward) that some line decides wins, so allow ["src/", "!src/gen/"] selects
// src/a.c but not src/gen/b.c.
bool allowed(const IgnoreRules& rules, std::string_view path) {
  std::size_t end = path.size();
  bool is_dir = false;
  for (;;) {
    MatchKind kind = rules.match(path.substr(0, end), is_dir);
    if (kind != MatchKind::kNone) return kind == MatchKind::kIgnore;
    std::size_t slash = path.rfind('/', end - 1);
    if (slash == std::string_view::npos || slash == 0) return false;
    end = slash;
    is_dir = true;
  }
}

}  // namespace

const std::vector<std::string>& default_protected_globs() {
  static const std::vector<std::string> globs = {
      ".git/", ".env",  ".env.*",      "*.pem",  "*.key",  "id_rsa*", "id_ed25519*",
      "*.p12", "*.pfx", "**/secrets*", ".netrc", ".npmrc", ".pypirc",
  };
  return globs;
}

struct Policy::Impl {
  IgnoreRules protect;
  IgnoreRules deny;
  IgnoreRules allow;
};

Policy::Policy(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Policy::Policy(Policy&&) noexcept = default;
Policy& Policy::operator=(Policy&&) noexcept = default;
Policy::~Policy() = default;

Expected<Policy> Policy::build(const PolicyConfig& config) {
  auto impl = std::make_unique<Impl>();
  std::vector<std::string> protect;
  if (!config.no_default_protect) protect = default_protected_globs();
  protect.insert(protect.end(), config.protect.begin(), config.protect.end());
  // Secrets are matched case-insensitively (ID_RSA, Server.PEM, .ENV are still secrets); deny and
  // allow are exact, as .gitignore is on Linux.
  CTX_TRY_ASSIGN(impl->protect, compile_list("protect", protect, true));
  CTX_TRY_ASSIGN(impl->deny, compile_list("deny", config.deny, false));
  CTX_TRY_ASSIGN(impl->allow, compile_list("allow", config.allow, false));
  return Policy(std::move(impl));
}

Visibility Policy::check(std::string_view path, bool is_dir) const {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.empty() || path == ".") return Visibility::kVisible;
  if (ignored_at_any_level(impl_->protect, path, is_dir)) return Visibility::kProtected;
  if (ignored_at_any_level(impl_->deny, path, is_dir)) return Visibility::kDenied;
  // Directories pass the allow list so the allowed files inside them can be reached.
  if (!impl_->allow.empty() && !is_dir && !allowed(impl_->allow, path)) {
    return Visibility::kDenied;
  }
  return Visibility::kVisible;
}

Visibility Policy::check_entry(std::string_view path, bool is_dir) const {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.empty() || path == ".") return Visibility::kVisible;
  // The parents are visible, so ignored_at_any_level reduces to the entry's own level.
  if (!impl_->protect.empty() && impl_->protect.match(path, is_dir) == MatchKind::kIgnore) {
    return Visibility::kProtected;
  }
  if (!impl_->deny.empty() && impl_->deny.match(path, is_dir) == MatchKind::kIgnore) {
    return Visibility::kDenied;
  }
  if (!impl_->allow.empty() && !is_dir && !allowed(impl_->allow, path)) {
    return Visibility::kDenied;
  }
  return Visibility::kVisible;
}

}  // namespace ctx::agent
