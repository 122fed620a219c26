// ^ and $ as ripgrep's regex reads them, for engines that read them differently.
//
// ripgrep compiles every regex in multi-line mode, so ^ and $ are line anchors unless the
// pattern turns the `m` flag off, and with --crlf they are Rust's CRLF-aware anchors:
//
//   (?m)^  after a line feed, or after a CR that no line feed follows, or at the start
//   (?m)$  before a CR, or before a line feed that no CR precedes, or at the end
//   (?-m)^ (?-m)$   the start and end of the haystack: a line (line by line), or the whole
//                   buffer under -U
//
// PCRE2's (*ANYCRLF) anchors also match between the CR and LF of a CRLF, and its non-multi-line
// $ also before a final line feed; Hyperscan ignores the inline m flag. The rewrites below give
// every engine patterns whose anchors mean what Rust's mean.
#pragma once

#include <string>
#include <string_view>

namespace ctx::engine::detail {

// Rust's (?m)^ and (?m)$ under --crlf, as PCRE2 look-arounds (they do not depend on PCRE2's
// newline convention).
inline constexpr std::string_view kCrlfLineStart = "(?:\\A|(?<=\\n)|(?<=\\r)(?!\\n))";
inline constexpr std::string_view kCrlfLineEnd = "(?:\\z|(?=\\r)|(?<!\\r)(?=\\n))";

struct MultiLineAnchors {
  std::string regex;
  bool anchors = false;         // `regex` holds a ^ or $ (outside classes and escapes)
  bool buffer_anchors = false;  // one of them was replaced by \A or \z
  bool unmultiline = false;     // one of them was in a scope where the pattern turned `m` off
  // Outside any group, with no '|' there (Rust's syntax; false when unsure): the last item is \z
  // or a $ where `m` is off (regex-syntax's look_set_suffix holds Look::End: every match ends at
  // the haystack's end); the first item is \A or such a ^.
  bool ends_at_haystack_end = false;
  bool starts_at_haystack_start = false;
};

enum class RegexSyntax {
  kRust,   // ripgrep's dialect: nested classes
  kPcre2,  // -P: flat classes, \Q..\E, (?#..) comments
};

// `regex` with the `m` flag taken out of every inline flag group (the engines then run it with
// multi-line mode on throughout), and ^ and $ of the scopes where the pattern had turned `m` off
// replaced: by \A and \z when `whole_buffer` (-U: the haystack is the buffer), else left as line
// anchors (the haystack is a line). Escapes, classes (nested ones in Rust's syntax) and (?x)
// comments are copied as they are. A pattern the syntax rejects comes back with whatever was
// rewritten: the caller's validation reports it.
// `crlf_pieces` (--crlf line by line, not with `whole_buffer`): the subjects are the CR-free
// pieces of a line, and the anchors of multi-line scopes become \A and \z (each piece's ends),
// while those of scopes without `m`, and \A and \z, become ^ and $ (`unmultiline` set), which the
// searcher keeps from matching at a piece's start or end inside the line (PCRE2_NOTBOL,
// PCRE2_NOTEOL; the regex compiled multi-line).
MultiLineAnchors multi_line_anchors(std::string_view regex, RegexSyntax syntax, bool whole_buffer,
                                    bool crlf_pieces = false);

// `regex` in PCRE2 syntax (as rust_to_pcre2 writes it, with multi-line mode on throughout) with
// every ^ and $ outside classes and escapes replaced by kCrlfLineStart and kCrlfLineEnd.
// `replaced` is set when there was one.
std::string crlf_line_anchors(std::string_view regex, bool& replaced);

}  // namespace ctx::engine::detail
