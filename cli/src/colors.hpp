// ripgrep's --colors: the ANSI escapes that start each kind of colored output, built from
// ripgrep's defaults and the user's specs ('{path,line,column,match}:{fg,bg,style,none}:VALUE'),
// written byte for byte as ripgrep's termcolor writes them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "ctx/base/result.hpp"

namespace ctx::cli {

// The escape sequence that starts each kind of output; every one begins with a reset, and a
// colored piece ends with kColorReset (ripgrep resets even for an empty spec).
struct ColorSpecs {
  std::string path;         // file paths (results, headings, -l/-c, --files)
  std::string line;         // line numbers
  std::string column;       // columns and byte offsets (-b)
  std::string match;        // matched text
  bool match_none = false;  // the match spec is empty (termcolor's is_none): matches print plain
};

inline constexpr std::string_view kColorReset = "\x1b[0m";

// --color: always, or auto with stdout a terminal and TERM set and not "dumb".
bool color_enabled(Args::Color when);

// Checks one --colors spec. The error is ripgrep's message, e.g. "unrecognized color name 'x'.
// Choose from: black, blue, green, red, cyan, magenta, yellow, white".
Status check_color_spec(std::string_view spec);

// ripgrep's defaults (path:fg:magenta, line:fg:green, match:fg:red, match:style:bold) with
// `specs` (already checked) merged in order.
ColorSpecs color_specs(const std::vector<std::string>& specs);

}  // namespace ctx::cli
