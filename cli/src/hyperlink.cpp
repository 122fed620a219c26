#include "hyperlink.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <memory>

#include "ctx/base/utf8.hpp"

extern char** environ;

namespace ctx::cli {
namespace {

// rg 14's aliases (hyperlink_aliases.rs, Unix), sorted by name as rg lists them.
struct Alias {
  std::string_view name;
  std::string_view format;
};
constexpr Alias kAliases[] = {
    {"default", "file://{host}{path}"},
    {"file", "file://{host}{path}"},
    {"grep+", "grep+://{path}:{line}"},
    {"kitty", "file://{host}{path}#{line}"},
    {"macvim", "mvim://open?url=file://{path}&line={line}&column={column}"},
    {"none", ""},
    {"textmate", "txmt://open?url=file://{path}&line={line}&column={column}"},
    {"vscode", "vscode://file{path}:{line}:{column}"},
    {"vscode-insiders", "vscode-insiders://file{path}:{line}:{column}"},
    {"vscodium", "vscodium://file{path}:{line}:{column}"},
};

Error format_error(std::string_view why) {
  return Error{
      ErrorCode::kInvalidArgument,
      fmt::format("error parsing flag --hyperlink-format: invalid hyperlink format: {}", why)};
}

bool has(const HyperlinkFormat& f, HyperlinkFormat::Kind kind) {
  for (const auto& p : f.parts) {
    if (p.kind == kind) return true;
  }
  return false;
}

// rg's FormatBuilder::validate.
Status validate(const HyperlinkFormat& f) {
  using Kind = HyperlinkFormat::Kind;
  if (f.parts.empty()) return {};
  bool all_text = true;
  for (const auto& p : f.parts) all_text = all_text && p.kind == Kind::kText;
  if (all_text) {
    std::string names;
    for (const Alias& a : kAliases) names += fmt::format("{}{}", names.empty() ? "" : ", ", a.name);
    return format_error(fmt::format(
        "at least a {{path}} variable is required in a hyperlink format, or otherwise use a valid "
        "alias: {}",
        names));
  }
  if (!has(f, Kind::kPath)) {
    return format_error("the {path} variable is required in a hyperlink format");
  }
  if (has(f, Kind::kColumn) && !has(f, Kind::kLine)) {
    return format_error(
        "the hyperlink format contains a {column} variable, but no {line} variable is present");
  }
  const std::string_view first =
      f.parts.front().kind == Kind::kText ? std::string_view(f.parts.front().text) : "";
  const std::size_t colon = first.find(':');
  bool scheme_ok = colon != std::string_view::npos && colon > 0;
  for (std::size_t i = 0; scheme_ok && i < colon; ++i) {
    const char c = first[i];
    scheme_ok = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                c == '+' || c == '-' || c == '.';
  }
  if (!scheme_ok) {
    return format_error(
        "the hyperlink format must start with a valid URL scheme, i.e., [0-9A-Za-z+-.]+:");
  }
  return {};
}

// Runs `bin` as rg's hostname() does; nullopt on any failure.
std::optional<std::string> run_hostname_bin(const std::string& bin) {
  std::array<int, 2> pipe_fds{};
  if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::string program = bin;
  std::array<char*, 2> argv{program.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  std::string out;
  if (rc == 0) {
    std::array<char, 4096> buf{};
    for (;;) {
      const ssize_t n = ::read(pipe_fds[0], buf.data(), buf.size());
      if (n > 0) {
        out.append(buf.data(), static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        break;
      }
    }
  }
  ::close(pipe_fds[0]);
  if (rc != 0) return std::nullopt;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !is_valid_utf8(out)) return std::nullopt;
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  std::size_t a = 0, b = out.size();
  while (a < b && space(out[a])) ++a;
  while (b > a && space(out[b - 1])) --b;
  if (a == b) return std::nullopt;
  return out.substr(a, b - a);
}

}  // namespace

Result<HyperlinkFormat> parse_hyperlink_format(std::string_view text) {
  using Kind = HyperlinkFormat::Kind;
  std::string_view input = text;
  for (const Alias& a : kAliases) {
    if (a.name == text) input = a.format;
  }
  HyperlinkFormat f;
  auto append_text = [&](char c) {
    if (f.parts.empty() || f.parts.back().kind != Kind::kText) f.parts.push_back({Kind::kText, {}});
    f.parts.back().text.push_back(c);
  };
  auto append_var = [&](std::string_view name) -> Status {
    Kind kind;
    if (name == "host") {
      kind = Kind::kHost;
    } else if (name == "wslprefix") {
      kind = Kind::kWslPrefix;
    } else if (name == "path") {
      kind = Kind::kPath;
    } else if (name == "line") {
      kind = Kind::kLine;
    } else if (name == "column") {
      kind = Kind::kColumn;
    } else {
      return format_error(fmt::format(
          "invalid hyperlink format variable: '{}', choose from: path, line, column, host, "
          "wslprefix",
          name));
    }
    f.parts.push_back({kind, {}});
    return {};
  };
  enum class State : std::uint8_t { kVerbatim, kVerbatimClose, kOpen, kInVariable };
  State state = State::kVerbatim;
  std::string name;
  for (const char c : input) {
    switch (state) {
      case State::kVerbatim:
        if (c == '{') {
          state = State::kOpen;
        } else if (c == '}') {
          state = State::kVerbatimClose;
        } else {
          append_text(c);
        }
        break;
      case State::kVerbatimClose:
        if (c != '}') {
          return format_error(
              "unopened variable: found '}' without a corresponding '{' preceding it");
        }
        append_text('}');
        state = State::kVerbatim;
        break;
      case State::kOpen:
        if (c == '{') {
          append_text('{');
          state = State::kVerbatim;
        } else if (c == '}') {
          CTX_TRY(append_var(""));
          state = State::kVerbatim;
        } else {
          name.assign(1, c);
          state = State::kInVariable;
        }
        break;
      case State::kInVariable:
        if (c == '}') {
          CTX_TRY(append_var(name));
          state = State::kVerbatim;
        } else {
          name.push_back(c);
        }
        break;
    }
  }
  if (state == State::kVerbatimClose) {
    return format_error("unopened variable: found '}' without a corresponding '{' preceding it");
  }
  if (state != State::kVerbatim) {
    return format_error("unclosed variable: found '{' without a corresponding '}' following it");
  }
  CTX_TRY(validate(f));
  f.line_dependent = has(f, Kind::kLine);
  return f;
}

std::optional<std::string> hyperlink_hostname(const std::string& hostname_bin) {
  if (!hostname_bin.empty()) {
    if (auto name = run_hostname_bin(hostname_bin)) return name;
  }
  std::array<char, HOST_NAME_MAX + 1> buf{};
  if (::gethostname(buf.data(), buf.size()) != 0) return std::nullopt;
  std::string name(buf.data());
  if (!is_valid_utf8(name)) return std::nullopt;
  return name;
}

Hyperlinker::Hyperlinker(HyperlinkFormat format, std::optional<std::string> host)
    : format_(std::move(format)), host_(std::move(host)) {
  const char* distro = std::getenv("WSL_DISTRO_NAME");
  if (distro != nullptr && is_valid_utf8(distro)) wsl_prefix_ = fmt::format("wsl$/{}", distro);
}

std::optional<std::string> Hyperlinker::link_path(std::string_view path) {
  const std::string owned(path);
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(owned.c_str(), nullptr), &std::free);
  if (real == nullptr || real.get()[0] != '/') return std::nullopt;
  std::string out;
  for (const char* p = real.get(); *p != '\0'; ++p) {
    const auto b = static_cast<unsigned char>(*p);
    if ((b >= '0' && b <= '9') || (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || b == '/' ||
        b == ':' || b == '-' || b == '.' || b == '_' || b == '~' || b >= 128) {
      out.push_back(*p);
    } else {
      out += fmt::format("%{:02X}", b);
    }
  }
  return out;
}

void Hyperlinker::open(std::string& out, std::string_view encoded_path,
                       std::optional<std::uint64_t> line,
                       std::optional<std::uint64_t> column) const {
  using Kind = HyperlinkFormat::Kind;
  out.append("\x1b]8;;");
  for (const auto& p : format_.parts) {
    switch (p.kind) {
      case Kind::kText:
        out.append(p.text);
        break;
      case Kind::kHost:
        if (host_) out.append(*host_);
        break;
      case Kind::kWslPrefix:
        if (wsl_prefix_) out.append(*wsl_prefix_);
        break;
      case Kind::kPath:
        out.append(encoded_path);
        break;
      case Kind::kLine:
        out += fmt::format("{}", line.value_or(1));
        break;
      case Kind::kColumn:
        out += fmt::format("{}", column.value_or(1));
        break;
    }
  }
  out.append("\x1b\\");
}

void Hyperlinker::close(std::string& out) { out.append("\x1b]8;;\x1b\\"); }

}  // namespace ctx::cli
