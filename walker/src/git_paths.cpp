#include "git_paths.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string_view>

#include "ctx/base/file_buffer.hpp"
#include "git_config.hpp"

namespace ctx::walker::detail {
namespace {

constexpr std::size_t kMaxGitPointerBytes = 64 << 10;

std::string trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
    s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return std::string(s);
}

std::string join(const std::string& base, const std::string& rel) {
  if (!rel.empty() && rel[0] == '/') return rel;
  if (base.empty()) return rel;
  return base.back() == '/' ? base + rel : base + "/" + rel;
}

}  // namespace

std::optional<std::string> info_exclude_path(const std::string& dir) {
  std::string dot_git = join(dir, ".git");
  struct stat st {};
  if (::stat(dot_git.c_str(), &st) != 0) return std::nullopt;
  std::string git_dir = dot_git;
  if (!S_ISDIR(st.st_mode)) {
    auto text = read_small_file(AT_FDCWD, dot_git.c_str(), kMaxGitPointerBytes);
    if (!text.ok()) return std::nullopt;
    std::string_view body = *text;
    constexpr std::string_view kPrefix = "gitdir:";
    if (body.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
    git_dir = join(dir, trim(body.substr(kPrefix.size())));
  }
  std::string common = git_dir;
  std::string commondir_file = join(git_dir, "commondir");
  if (auto text = read_small_file(AT_FDCWD, commondir_file.c_str(), kMaxGitPointerBytes);
      text.ok()) {
    common = join(git_dir, trim(*text));
  }
  return join(common, "info/exclude");
}

std::optional<std::string> global_excludes_path(
    std::vector<std::pair<std::string, std::string>>* files_tried) {
  if (auto configured = configured_excludes_file(files_tried)) return configured;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/git/ignore";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.config/git/ignore";
  }
  return std::nullopt;
}

}  // namespace ctx::walker::detail
