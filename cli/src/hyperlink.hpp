// ripgrep 14's --hyperlink-format and --hostname-bin: a format (an alias such as `vscode`, or a
// string with {path} {host} {line} {column} {wslprefix}) parsed once into parts, and a Hyperlinker
// that turns a printed path into the OSC 8 escapes rg writes around it when colors are on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/base/result.hpp"

namespace ctx::cli {

struct HyperlinkFormat {
  enum class Kind : std::uint8_t { kText, kHost, kWslPrefix, kPath, kLine, kColumn };
  struct Part {
    Kind kind;
    std::string text;  // kText only
  };
  std::vector<Part> parts;      // empty: no hyperlinks (the `none` alias, or "")
  bool line_dependent = false;  // a {line} part: every printed line gets its own link

  bool empty() const { return parts.empty(); }
};

// Parses `text` as rg 14 does: an alias (default, file, grep+, kitty, macvim, none, textmate,
// vscode, vscode-insiders, vscodium) or a format string. Errors are rg's, after "error parsing
// flag --hyperlink-format: invalid hyperlink format: ", e.g. "unclosed variable: found '{'
// without a corresponding '}' following it".
Result<HyperlinkFormat> parse_hyperlink_format(std::string_view text);

// The {host} value: the trimmed standard output of `hostname_bin` run with no arguments and
// stdin from /dev/null (looked up in PATH) when it is non-empty, succeeds and prints non-empty
// UTF-8; otherwise gethostname(2). Nullopt when neither gives a UTF-8 name.
std::optional<std::string> hyperlink_hostname(const std::string& hostname_bin);

class Hyperlinker {
 public:
  // `host`: hyperlink_hostname's result; the {wslprefix} value comes from $WSL_DISTRO_NAME.
  Hyperlinker(HyperlinkFormat format, std::optional<std::string> host);

  bool line_dependent() const { return format_.line_dependent; }

  // The {path} value of `path` (relative to the working directory): its canonical absolute
  // form, percent-encoded as rg's. Nullopt when it cannot be canonicalized (a missing file,
  // <stdin>): such a path gets no link.
  static std::optional<std::string> link_path(std::string_view path);

  // Appends the escape that opens a link to `encoded_path` (a link_path result); a missing line
  // or column is written as 1.
  void open(std::string& out, std::string_view encoded_path, std::optional<std::uint64_t> line,
            std::optional<std::uint64_t> column) const;
  // Appends the escape that closes a link.
  static void close(std::string& out);

 private:
  HyperlinkFormat format_;
  std::optional<std::string> host_;
  std::optional<std::string> wsl_prefix_;
};

}  // namespace ctx::cli
