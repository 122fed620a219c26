// Which root-relative paths the tools may show at all. Three gitignore-style glob lists matched
// on the canonical root-relative path (and on every parent directory of it): `protected`
// (secrets: defaults below, never shown, never read), `deny` (configured), and `allow` (when
// non-empty, only these). A path hidden by the policy is invisible: no tool lists it, reads it,
// counts it or mentions it, so nothing reveals that it exists.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/agent/tool_error.hpp"

namespace ctx::agent {

struct PolicyConfig {
  std::vector<std::string> allow;
  std::vector<std::string> deny;
  std::vector<std::string> protect;  // added to the defaults unless no_default_protect
  bool no_default_protect = false;
};

// The default protected globs: .git/, .env, .env.*, *.pem, *.key, id_rsa*, id_ed25519*, *.p12,
// *.pfx, **/secrets*, .netrc, .npmrc, .pypirc.
const std::vector<std::string>& default_protected_globs();

enum class Visibility : std::uint8_t { kVisible, kDenied, kProtected };

class Policy {
 public:
  static Expected<Policy> build(const PolicyConfig& config);
  Policy(Policy&&) noexcept;
  Policy& operator=(Policy&&) noexcept;
  ~Policy();

  // `path` is root-relative ("" is the root, always visible); `is_dir` for directories.
  Visibility check(std::string_view path, bool is_dir) const;
  bool visible(std::string_view path, bool is_dir) const {
    return check(path, is_dir) == Visibility::kVisible;
  }
  // The same verdict as `check` for an entry whose parent directory is known to be visible (a
  // walk that never enters hidden directories): only the entry's own level is matched against
  // protect and deny, so a deep walk costs one match per entry instead of one per level.
  Visibility check_entry(std::string_view path, bool is_dir) const;
  bool visible_entry(std::string_view path, bool is_dir) const {
    return check_entry(path, is_dir) == Visibility::kVisible;
  }

 private:
  struct Impl;
  explicit Policy(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ctx::agent
