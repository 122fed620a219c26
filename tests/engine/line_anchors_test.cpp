// Tests for line_anchors.hpp: ^ and $ as Rust reads them in ripgrep's always-multi-line regexes,
// (?-m) scopes (the haystack's ends: a line, or the buffer under -U) and --crlf -U (never between
// the CR and LF of a CRLF). Expected values are rg 14.1.1's.
#include "../../engine/src/line_anchors.hpp"

#include <catch2/catch.hpp>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::engine::detail::crlf_line_anchors;
using ctx::engine::detail::kCrlfLineEnd;
using ctx::engine::detail::kCrlfLineStart;
using ctx::engine::detail::multi_line_anchors;
using ctx::engine::detail::RegexSyntax;
using ctx::testing::compile_ok;

std::string crlf(std::string_view regex) {
  bool replaced = false;
  return crlf_line_anchors(regex, replaced);
}

// Every match find_multiline reports in `hay`, as [start, end) pairs, each search from the end
// of the last match (the rest of the buffer is a haystack of its own there, as in ripgrep: use
// patterns whose matches do not start with an anchor).
std::vector<std::pair<std::size_t, std::size_t>> buffer_matches(const PatternSet& set,
                                                                std::string_view hay) {
  auto scratch = set.make_scratch();
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t pos = 0;
  while (pos <= hay.size()) {
    auto m = set.find_multiline(hay, pos, scratch);
    REQUIRE(m.ok());
    if (!*m) break;
    out.emplace_back((*m)->start, (*m)->end);
    pos = (*m)->end == (*m)->start ? (*m)->end + 1 : (*m)->end;
  }
  return out;
}

ctx::engine::detail::MultiLineAnchors rust_multi_line_anchors(std::string_view regex,
                                                              bool whole_buffer) {
  return multi_line_anchors(regex, RegexSyntax::kRust, whole_buffer);
}

PatternOptions multiline(bool crlf_mode) {
  PatternOptions o;
  o.multiline = true;
  o.crlf = crlf_mode;
  return o;
}

using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;

}  // namespace

TEST_CASE("the m flag is taken out of inline flag groups, other flags kept", "[engine][anchors]") {
  CHECK(rust_multi_line_anchors("(?m)^a", false).regex == "^a");
  CHECK(rust_multi_line_anchors("(?-m)^a", false).regex == "^a");
  CHECK(rust_multi_line_anchors("(?im-s)a", false).regex == "(?i-s)a");
  CHECK(rust_multi_line_anchors("(?i-m)a", false).regex == "(?i)a");
  CHECK(rust_multi_line_anchors("(?-m:a)b", false).regex == "(?:a)b");
  CHECK(rust_multi_line_anchors("(?P<m>a)(?:b)", false).regex == "(?P<m>a)(?:b)");
}

TEST_CASE("(?-m) anchors become the buffer's ends only under -U", "[engine][anchors]") {
  auto line = rust_multi_line_anchors("(?-m)^a$", false);
  CHECK(line.regex == "^a$");
  CHECK(line.anchors);
  CHECK_FALSE(line.buffer_anchors);
  auto buffer = rust_multi_line_anchors("(?-m)^a$", true);
  CHECK(buffer.regex == "\\Aa\\z");
  CHECK(buffer.buffer_anchors);
  // Only inside the scope that turned m off.
  CHECK(rust_multi_line_anchors("(?-m:^a)|^b$", true).regex == "(?:\\Aa)|^b$");
  CHECK(rust_multi_line_anchors("(^a(?-m)$)$", true).regex == "(^a\\z)$");
  CHECK(rust_multi_line_anchors("(?-m)x(?m)$", true).regex == "x$");
}

TEST_CASE("haystack anchors at the top level's ends are found", "[engine][anchors]") {
  auto both = rust_multi_line_anchors("(?i)(?-m)^a[$]b$", true);
  CHECK(both.starts_at_haystack_start);
  CHECK(both.ends_at_haystack_end);
  CHECK(rust_multi_line_anchors("\\Aa\\z", false).ends_at_haystack_end);
  CHECK(rust_multi_line_anchors("(?x-m) a $ # c\n", true).ends_at_haystack_end);
  // Multi-line anchors, groups, alternation and quantifiers: not (or not surely) at the ends.
  CHECK_FALSE(rust_multi_line_anchors("a$", true).ends_at_haystack_end);
  CHECK_FALSE(rust_multi_line_anchors("^a", true).starts_at_haystack_start);
  CHECK_FALSE(rust_multi_line_anchors("(?-m:a$)", true).ends_at_haystack_end);
  CHECK_FALSE(rust_multi_line_anchors("a\\z|b\\z", true).ends_at_haystack_end);
  CHECK_FALSE(rust_multi_line_anchors("\\Aa|b", true).starts_at_haystack_start);
  CHECK_FALSE(rust_multi_line_anchors("a\\z?", true).ends_at_haystack_end);
  CHECK_FALSE(rust_multi_line_anchors("a\\\\z", true).ends_at_haystack_end);
  CHECK_FALSE(rust_multi_line_anchors("(a|b)(?-m)[x]", true).ends_at_haystack_end);
  CHECK(rust_multi_line_anchors("(a|b)\\z", true).ends_at_haystack_end);
}

TEST_CASE("anchors inside classes, escapes and (?x) comments are not anchors",
          "[engine][anchors]") {
  auto none = rust_multi_line_anchors("(?-m)[$^]\\^\\$[a[^$]][[:^alpha:]$]\\x{24}", true);
  CHECK(none.regex == "[$^]\\^\\$[a[^$]][[:^alpha:]$]\\x{24}");
  CHECK_FALSE(none.anchors);
  CHECK(rust_multi_line_anchors("(?x-m) ^ # $ not an anchor\n $", true).regex ==
        "(?x) \\A # $ not an anchor\n \\z");
  CHECK(rust_multi_line_anchors("[]$]$", true).regex == "[]$]$");
}

TEST_CASE("-P line by line: the m flag is taken out, \\Q..\\E and comments kept",
          "[engine][anchors]") {
  CHECK(multi_line_anchors("(?i-m)^a\\Q(?-m)\\E(?#-m)", RegexSyntax::kPcre2, false).regex ==
        "(?i)^a\\Q(?-m)\\E(?#-m)");
  // PCRE2's classes do not nest: the first ] ends it.
  CHECK(multi_line_anchors("(?-m)[[]$", RegexSyntax::kPcre2, true).regex == "[[]\\z");
}

TEST_CASE("--crlf anchors are look-arounds, verbs and comments left alone", "[engine][anchors]") {
  CHECK(crlf("^a$") == std::string(kCrlfLineStart) + "a" + std::string(kCrlfLineEnd));
  CHECK(crlf("(*ANYCRLF)[$^]\\Q^$\\E(?#^$)") == "(*ANYCRLF)[$^]\\Q^$\\E(?#^$)");
  CHECK(crlf("[[:alpha:]$]") == "[[:alpha:]$]");
  bool replaced = true;
  crlf_line_anchors("\\$", replaced);
  CHECK_FALSE(replaced);
}

TEST_CASE("--crlf -U: ^ and $ never match between a CR and its LF", "[engine][anchors]") {
  const std::string_view hay = "x\rfoo\r\nbar\r\n\r\nend";
  // PCRE2's (*ANYCRLF) anchors also match between the CR and LF of each CRLF here.
  CHECK(buffer_matches(compile_ok({"\\r^"}, multiline(true)), hay) == Pairs{{1, 2}});
  CHECK(buffer_matches(compile_ok({"$\\n"}, multiline(true)), hay).empty());
  CHECK(buffer_matches(compile_ok({"$\\r"}, multiline(true)), hay) ==
        Pairs{{1, 2}, {5, 6}, {10, 11}, {12, 13}});
  CHECK(buffer_matches(compile_ok({"^bar$"}, multiline(true)), hay) == Pairs{{7, 10}});
  CHECK(buffer_matches(compile_ok({"\\r$"}, multiline(true)), hay).empty());
  CHECK(buffer_matches(compile_ok({"^foo"}, multiline(true)), hay) == Pairs{{2, 5}});
  // -x wraps the pattern in the same anchors.
  PatternOptions whole = multiline(true);
  whole.line = true;
  CHECK(buffer_matches(compile_ok({"bar"}, whole), hay) == Pairs{{7, 10}});
}

TEST_CASE("-U with (?-m): ^ and $ are the buffer's ends", "[engine][anchors]") {
  // rg 14: `-U '(?-m)o$'` finds nothing in "foo\n" ($ is the end, past the line feed).
  CHECK(buffer_matches(compile_ok({"(?-m)o$"}, multiline(false)), "foo\n").empty());
  CHECK(buffer_matches(compile_ok({"(?-m)o$"}, multiline(false)), "foo") == Pairs{{2, 3}});
  CHECK(buffer_matches(compile_ok({"(?-m)^b"}, multiline(false)), "a\nb\n").empty());
  CHECK(buffer_matches(compile_ok({"^b"}, multiline(false)), "a\nb\n") == Pairs{{2, 3}});
}

TEST_CASE("line by line, (?-m) anchors are the line's ends", "[engine][anchors]") {
  // rg 14 `-n '(?-m)o$'` on "foo\nbar\n" prints 1:foo (ctxsearch found nothing before).
  const PatternSet set = compile_ok({"(?-m)o$", "(?-m)^b"});
  auto scratch = set.make_scratch();
  std::string_view hay = "foo\nbar\nxob\n";
  auto first = set.find_line(hay, 0, scratch);
  REQUIRE(first.ok());
  REQUIRE(first->has_value());
  CHECK((*first)->start == 0);
  auto second = set.find_line(hay, 4, scratch);
  REQUIRE(second.ok());
  REQUIRE(second->has_value());
  CHECK((*second)->start == 4);
  auto none = set.find_line(hay, 8, scratch);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
}
