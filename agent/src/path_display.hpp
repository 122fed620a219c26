// Names that are not valid UTF-8 in the tools' texts and JSON, reversibly: every tool shows such a
// path through escape_path, and Sandbox::normalize reads a path a model sends through
// unescape_path, so a name shown can be opened by the name shown.
//
// The scheme: a path is escaped when it is not valid UTF-8 or holds the two characters `\x`;
// then each byte that is not part of a valid UTF-8 sequence is written `\xHH` (two uppercase hex
// digits) and each backslash `\x5C`; other characters stay as they are. Any other path is shown
// as it is (`a\b.txt` stays `a\b.txt`). Reading undoes it: every `\xHH` (hex digits of either
// case) is the byte HH, and a path without one is taken as it is.
#pragma once

#include <string>
#include <string_view>

namespace ctx::agent {

// Whether `path` is shown escaped: not valid UTF-8, or holding `\x`.
bool needs_path_escape(std::string_view path);

// `path` as every tool shows it (valid UTF-8): itself, or escaped as above.
std::string escape_path(std::string_view path);

// A path as a model sends it, with each `\xHH` turned back into the byte HH (unchanged when it
// holds none). unescape_path(escape_path(p)) == p for every p.
std::string unescape_path(std::string_view path);

}  // namespace ctx::agent
