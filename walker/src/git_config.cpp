#include "git_config.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "ctx/base/file_buffer.hpp"

namespace ctx::walker::detail {
namespace {

constexpr std::size_t kMaxConfigBytes = 1 << 20;
constexpr int kMaxIncludeDepth = 10;

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string getenv_string(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::string expand_home(const std::string& path) {
  if (path.size() >= 2 && path[0] == '~' && path[1] == '/') {
    std::string home = getenv_string("HOME");
    if (!home.empty()) return home + path.substr(1);
  }
  return path;
}

std::string directory_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash == 0 ? 1 : slash);
}

// A cursor over config text that decodes values as git's parser does.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}
  bool done() const { return pos_ >= text_.size(); }

  void skip_line() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    if (pos_ < text_.size()) ++pos_;
  }
  void skip_blanks() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\n'; }

  // After '[': the section name (lowercase kept as written) and whether it has a subsection.
  // Leaves the cursor after ']'. Returns false on a malformed header.
  bool section_header(std::string& name, bool& has_subsection) {
    ++pos_;  // '['
    name.clear();
    has_subsection = false;
    while (pos_ < text_.size() && text_[pos_] != ']' && text_[pos_] != '\n') {
      char c = text_[pos_];
      if (is_space(c) || c == '"') {
        has_subsection = true;
        // Skip the quoted subsection, honouring escapes.
        while (pos_ < text_.size() && text_[pos_] != ']' && text_[pos_] != '\n') {
          if (text_[pos_] == '\\') ++pos_;
          ++pos_;
        }
        break;
      }
      if (c == '.') has_subsection = true;  // deprecated [section.sub]
      name.push_back(c);
      ++pos_;
    }
    if (peek() != ']') return false;
    ++pos_;
    return true;
  }

  // A variable name, then an optional `= value`. `value` is nullopt for a bare boolean key.
  bool variable(std::string& name, std::optional<std::string>& value) {
    name.clear();
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      bool word =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
      if (!word) break;
      name.push_back(c);
      ++pos_;
    }
    if (name.empty()) return false;
    skip_blanks();
    if (peek() != '=') {
      value.reset();
      return peek() == '\n' || peek() == ';' || peek() == '#';
    }
    ++pos_;
    value = decode_value();
    return true;
  }

 private:
  // git's parse_value: leading blanks dropped, trailing blanks outside quotes dropped, comments
  // end the value outside quotes, escapes \\ \" \n \t \b, backslash-newline continues.
  std::string decode_value() {
    std::string out;
    bool quoted = false;
    std::size_t keep = 0;  // length of `out` up to the last character that is not trailing space
    skip_blanks();
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == '\n') break;
      if (!quoted && (c == ';' || c == '#')) {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
        break;
      }
      if (c == '"') {
        quoted = !quoted;
        keep = out.size();
        continue;
      }
      if (c == '\\') {
        if (pos_ >= text_.size()) break;
        char e = text_[pos_++];
        if (e == '\n') continue;
        if (e == '\r' && pos_ < text_.size() && text_[pos_] == '\n') {
          ++pos_;
          continue;
        }
        out.push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'b' ? '\b' : e);
        keep = out.size();
        continue;
      }
      out.push_back(c);
      if (quoted || !is_space(c)) keep = out.size();
    }
    out.resize(keep);
    return out;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

void scan_file(const std::string& path, GitConfigLookup& lookup, int depth) {
  if (path.empty()) return;
  // The identity before the read: a change after it shows as another identity later.
  if (lookup.files_tried != nullptr) lookup.files_tried->emplace_back(path, file_identity(path));
  auto text = read_small_file(AT_FDCWD, path.c_str(), kMaxConfigBytes);
  if (text.ok()) scan_git_config(*text, path, lookup, depth);
}

bool env_true(const char* name) {
  std::string v = getenv_string(name);
  return iequals(v, "1") || iequals(v, "true") || iequals(v, "yes") || iequals(v, "on");
}

}  // namespace

void scan_git_config(std::string_view text, const std::string& file_path, GitConfigLookup& lookup,
                     int depth) {
  Parser p(text);
  std::string section, name;
  bool subsection = false;
  std::optional<std::string> value;
  while (!p.done()) {
    p.skip_blanks();
    char c = p.peek();
    if (c == '[') {
      if (!p.section_header(section, subsection)) section.clear();
      continue;  // a variable may follow on the same line
    }
    if (c == '\n' || c == ';' || c == '#') {
      p.skip_line();
      continue;
    }
    if (!p.variable(name, value)) {
      p.skip_line();  // malformed: git would refuse the file; we skip the line
      continue;
    }
    if (subsection) continue;
    if (iequals(section, "include") && iequals(name, "path") && value && depth < kMaxIncludeDepth) {
      std::string target = expand_home(*value);
      if (!target.empty() && target[0] != '/')
        target = directory_of(file_path).append("/").append(target);
      scan_file(target, lookup, depth + 1);
    } else if (iequals(section, lookup.section) && iequals(name, lookup.key)) {
      lookup.value = value.value_or(std::string());
    }
  }
}

std::string file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return fmt::format("{}:{}:{}:{}.{}:{}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec,
                     st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

std::optional<std::string> configured_excludes_file(
    std::vector<std::pair<std::string, std::string>>* files_tried) {
  GitConfigLookup lookup{"core", "excludesfile", std::nullopt, files_tried};
  if (!env_true("GIT_CONFIG_NOSYSTEM")) {
    std::string system = getenv_string("GIT_CONFIG_SYSTEM");
    scan_file(system.empty() ? "/etc/gitconfig" : system, lookup, 0);
  }
  if (const char* global = std::getenv("GIT_CONFIG_GLOBAL"); global != nullptr) {
    scan_file(global, lookup, 0);
  } else {
    std::string home = getenv_string("HOME");
    std::string xdg = getenv_string("XDG_CONFIG_HOME");
    if (!xdg.empty()) {
      scan_file(xdg + "/git/config", lookup, 0);
    } else if (!home.empty()) {
      scan_file(home + "/.config/git/config", lookup, 0);
    }
    if (!home.empty()) scan_file(home + "/.gitconfig", lookup, 0);
  }
  if (std::string count = getenv_string("GIT_CONFIG_COUNT"); !count.empty()) {
    long n = std::strtol(count.c_str(), nullptr, 10);
    for (long i = 0; i < n && i < 1000; ++i) {
      std::string key = getenv_string(("GIT_CONFIG_KEY_" + std::to_string(i)).c_str());
      if (iequals(key, "core.excludesfile")) {
        lookup.value = getenv_string(("GIT_CONFIG_VALUE_" + std::to_string(i)).c_str());
      }
    }
  }
  if (!lookup.value || lookup.value->empty()) return std::nullopt;
  return expand_home(*lookup.value);
}

}  // namespace ctx::walker::detail
