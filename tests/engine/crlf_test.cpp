// Tests for PatternOptions::crlf (rg's --crlf): `$` before a CR and `^` after one, never between
// CR and LF; in rg's own dialect a CR is never matched (classes, `.`, \s skip it) and a literal one
// is rg's error; -P keeps a line's LF in its subject unless the line ends in CRLF.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "ctx/engine/searcher.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::MatchSpan;
using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::testing::compile_ok;

PatternOptions crlf(bool pcre2 = false) {
  PatternOptions o;
  o.crlf = true;
  o.pcre2 = pcre2;
  return o;
}

// The lines the searcher reports, as "NUMBER:TEXT".
class Lines final : public ctx::engine::LineSink {
 public:
  std::vector<std::string> seen;
  ctx::engine::Flow on_line(std::uint64_t n, std::uint64_t, std::string_view line) override {
    seen.push_back(std::to_string(n) + ":" + std::string(line));
    return ctx::engine::Flow::kContinue;
  }
  ctx::engine::Flow on_context(std::uint64_t, std::uint64_t, std::string_view) override {
    return ctx::engine::Flow::kContinue;
  }
  void on_context_break() override {}
  void on_binary(std::uint64_t, bool) override {}
};

std::vector<std::string> lines(const PatternSet& set, std::string_view hay) {
  ctx::engine::SearchOptions options;
  options.line_numbers = true;
  auto scratch = set.make_scratch();
  Lines sink;
  REQUIRE(ctx::engine::search_buffer(set, scratch, options, hay, sink).ok());
  return sink.seen;
}

std::vector<std::pair<std::size_t, std::size_t>> spans(const PatternSet& set,
                                                       std::string_view line) {
  auto scratch = set.make_scratch();
  std::vector<MatchSpan> out;
  REQUIRE(set.find_spans(line, scratch, out).ok());
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  pairs.reserve(out.size());
  for (const MatchSpan& m : out) pairs.emplace_back(m.start, m.end);
  return pairs;
}

}  // namespace

TEST_CASE("--crlf: $ matches before CRLF and a lone CR, ^ after a lone CR", "[engine][crlf]") {
  const std::string hay = "foo\r\nbar\r\nfoo\rbaz\r\n\r\nlast foo";
  CHECK(lines(compile_ok({"foo$"}, crlf()), hay) ==
        std::vector<std::string>{"1:foo\r", "3:foo\rbaz\r", "5:last foo"});
  CHECK(lines(compile_ok({"^baz"}, crlf()), hay) == std::vector<std::string>{"3:foo\rbaz\r"});
  CHECK(lines(compile_ok({"^$"}, crlf()), hay) == std::vector<std::string>{"4:\r"});
  // Without crlf, $ sees the CR as text.
  CHECK(lines(compile_ok({"foo$"}), hay) == std::vector<std::string>{"5:last foo"});
}

TEST_CASE("--crlf: rg's dialect never matches a CR", "[engine][crlf]") {
  // The printer's subject: the line without its CRLF (ripgrep trims it before finding matches).
  CHECK(spans(compile_ok({"[^,]+"}, crlf()), "x\ry,z") ==
        std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {2, 3}, {4, 5}});
  CHECK(spans(compile_ok({"\\s"}, crlf()), "a\rb").empty());
  CHECK(spans(compile_ok({"a.b"}, crlf()), "a\rb").empty());
  CHECK(spans(compile_ok({"$"}, crlf()), "a\rb") ==
        std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {3, 3}});
  CHECK(lines(compile_ok({"\\s"}, crlf()), "a\r\nb c\r\n") == std::vector<std::string>{"2:b c\r"});
  // -F: a CR is no text either.
  PatternOptions fixed = crlf();
  fixed.fixed_strings = true;
  CHECK(lines(compile_ok({"b"}, fixed), "a\rb\r\nb\r\n") ==
        std::vector<std::string>{"1:a\rb\r", "2:b\r"});
  fixed.line = true;
  CHECK(lines(compile_ok({"b"}, fixed), "a\rb\r\nb\r\n") ==
        std::vector<std::string>{"1:a\rb\r", "2:b\r"});  // -x: a piece between CRs is a line
}

TEST_CASE("--crlf: ^ $ without the m flag, \\A and \\z are the line's ends, not a piece's",
          "[engine][crlf]") {
  // rg 14: its haystack is the line without its CRLF; a line ending in a LF alone keeps the LF.
  const std::string hay = "x\rfoo\r\nfoo\rx\r\na\r\nx\r\nyo\r\nx\rfoo\n";
  CHECK(lines(compile_ok({"(?-m:^f)"}, crlf()), hay) == std::vector<std::string>{"2:foo\rx\r"});
  CHECK(lines(compile_ok({"(?-m:^x)"}, crlf()), hay) ==
        std::vector<std::string>{"1:x\rfoo\r", "4:x\r", "6:x\rfoo"});
  CHECK(lines(compile_ok({"(?-m:o$)"}, crlf()), hay) ==
        std::vector<std::string>{"1:x\rfoo\r", "5:yo\r"});
  CHECK(lines(compile_ok({"x\\z"}, crlf()), hay) ==
        std::vector<std::string>{"2:foo\rx\r", "4:x\r"});
  CHECK(lines(compile_ok({"\\Ax"}, crlf()), hay) ==
        std::vector<std::string>{"1:x\rfoo\r", "4:x\r", "6:x\rfoo"});
  // The multi-line anchors of the same set still match at every CR.
  CHECK(lines(compile_ok({"(?-m:^x)|^f"}, crlf()), hay) ==
        std::vector<std::string>{"1:x\rfoo\r", "2:foo\rx\r", "4:x\r", "6:x\rfoo"});
  CHECK(lines(compile_ok({"(?-m)\\w$|\\Ay"}, crlf()), hay) ==
        std::vector<std::string>{"1:x\rfoo\r", "2:foo\rx\r", "3:a\r", "4:x\r", "5:yo\r"});
  // An empty match past a lone LF: (?-m)$ alone matches every line.
  CHECK(lines(compile_ok({"(?-m)$"}, crlf()), "a\r\nb\n").size() == 2);
}

TEST_CASE("--crlf: a literal CR is ripgrep's error unless -U", "[engine][crlf]") {
  const std::string want =
      "the literal \"\\r\" is not allowed in a regex\n\nConsider enabling multiline mode with the "
      "--multiline flag (or -U for short).\nWhen multiline mode is enabled, new line characters "
      "can be matched.";
  for (const char* p : {"a\\rb", "\\x0d", "\\x0D", "\\x{d}", "\\u000D", "[\\r]", "a\rb"}) {
    INFO(p);
    auto set = PatternSet::compile({p}, crlf());
    REQUIRE_FALSE(set.ok());
    CHECK(set.error().detail == want);
    CHECK(PatternSet::compile({p}, {}).ok());  // no error without --crlf
  }
  for (const char* p : {"[\\rx]", "[^\\r]", "\\\\r", "[\\x0d-\\x0e]"}) {
    INFO(p);
    CHECK(PatternSet::compile({p}, crlf()).ok());
  }
  PatternOptions fixed = crlf();
  fixed.fixed_strings = true;  // rg -F too
  CHECK_FALSE(PatternSet::compile({"a\rb"}, fixed).ok());
  CHECK(PatternSet::compile({"a\\rb"}, fixed).ok());
  PatternOptions multi = crlf();
  multi.multiline = true;
  CHECK(PatternSet::compile({"a\\rb"}, multi).ok());
}

TEST_CASE("--crlf -P: an LF-only line keeps its LF in the subject, a CRLF line does not",
          "[engine][crlf]") {
  auto set = compile_ok({"\\s+$"}, crlf(true));
  // As rg -P --crlf: `a` (LF) matches through its LF; `b` (CRLF) does not; `c ` does.
  CHECK(lines(set, "a\nb\r\nc \r\n") == std::vector<std::string>{"1:a", "3:c \r"});
  CHECK(lines(compile_ok({"^\\w"}, crlf(true)), "x\ry\r\n") ==
        std::vector<std::string>{"1:x\ry\r"});
}
