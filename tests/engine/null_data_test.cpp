// --null-data in the engine (PatternOptions::line_terminator = '\0'): lines end at NUL, a line feed
// is an ordinary byte that Rust's (?m) anchors still see, binary detection is off, and -U
// searches in multiline mode only for patterns that can match a NUL. Expected results are
// ripgrep 14.1.1's (`rg --null-data ...`).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "ctx/engine/searcher.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::testing::compile_ok;
using namespace std::string_literals;
using namespace std::string_view_literals;

PatternOptions nul_options() {
  PatternOptions options;
  options.line_terminator = '\0';
  return options;
}

using Recorder = ctx::testing::LineRecorder;

std::vector<std::string> search(const PatternSet& set, std::string_view hay,
                                ctx::engine::SearchOptions options = {}) {
  options.line_numbers = true;
  auto scratch = set.make_scratch();
  Recorder r;
  REQUIRE(ctx::engine::search_buffer(set, scratch, options, hay, r).ok());
  return r.seen;
}

std::vector<std::string> search_nul(const std::vector<std::string>& patterns, std::string_view hay,
                                    PatternOptions options = nul_options(),
                                    ctx::engine::SearchOptions search_options = {}) {
  return search(compile_ok(patterns, options), hay, search_options);
}

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("null data: lines end at NUL, numbered by NULs, and a line feed is inside a line",
          "[engine][null_data]") {
  const auto hay = "foo\0bar baz\nqux\0foo bar\0\0last foo"sv;
  CHECK(search_nul({"foo"}, hay) == Lines{"1@0:foo", "3@16:foo bar", "5@25:last foo"});
  CHECK(search_nul({"qux"}, hay) == Lines{"2@4:bar baz\nqux"});
  CHECK(search_nul({"^$"}, hay) == Lines{"4@24:"});
  CHECK(PatternSet::compile({"x"}, nul_options()).value().line_terminator() == '\0');
  CHECK(compile_ok({"x"}).line_terminator() == '\n');
}

TEST_CASE("null data: no match spans a NUL, \\n matches a line feed, . does not",
          "[engine][null_data]") {
  const auto hay = "a\0b\0c\nb\0xb\0"sv;
  CHECK(search_nul({"a.b"}, hay).empty());
  CHECK(search_nul({"[^x]b"}, hay) == Lines{"3@4:c\nb"});
  CHECK(search_nul({"c\\nb"}, hay) == Lines{"3@4:c\nb"});
  CHECK(search_nul({"c.b"}, hay).empty());
  CHECK(search_nul({"(?s)c.b"}, hay) == Lines{"3@4:c\nb"});
  CHECK(search_nul({"c\\sb"}, hay) == Lines{"3@4:c\nb"});
}

TEST_CASE("null data: ^ and $ match at the ends of a line and next to its line feeds",
          "[engine][null_data]") {
  const auto hay = "a\0b\0c\nb\0xb$\0"sv;
  CHECK(search_nul({"^b"}, hay) == Lines{"2@2:b", "3@4:c\nb"});
  CHECK(search_nul({"b$"}, hay) == Lines{"2@2:b", "3@4:c\nb"});
  CHECK(search_nul({"c$"}, hay) == Lines{"3@4:c\nb"});
  CHECK(search_nul({"^c"}, hay) == Lines{"3@4:c\nb"});
  // Rust's (?m)^ matches after a line feed that ends the line too.
  CHECK(search_nul({"\\n^"}, "x\n\0y\0"sv).size() == 1);
  auto line_opts = nul_options();
  line_opts.line = true;
  CHECK(search_nul({"b"}, hay, line_opts) == Lines{"2@2:b", "3@4:c\nb"});
}

TEST_CASE("null data: a literal NUL is an error without -U, and allowed with -P or -U",
          "[engine][null_data]") {
  for (const char* p : {"\\x00", "a\\x00b", "[\\x00]", "\\x{0}"}) {
    auto set = PatternSet::compile({p}, nul_options());
    REQUIRE_FALSE(set.ok());
    CHECK(set.error().detail.find("the literal \"\\0\" is not allowed") != std::string::npos);
  }
  auto fixed = nul_options();
  fixed.fixed_strings = true;
  CHECK_FALSE(PatternSet::compile({std::string("a\0b", 3)}, fixed).ok());
  // A class with more than the NUL only drops it; \n is no error any more.
  CHECK(search_nul({"[\\x00a]"}, "a\0b\0"sv) == Lines{"1@0:a"});
  CHECK(PatternSet::compile({"a\\nb"}, nul_options()).ok());
  auto pcre = nul_options();
  pcre.pcre2 = true;
  CHECK(search_nul({"\\x00"}, "a\0b\0"sv, pcre).empty());
  auto ml = nul_options();
  ml.multiline = true;
  CHECK(search_nul({"a\\x00b"}, "a\0b\0c\0"sv, ml) == Lines{"1@0:a\0b"s});
}

TEST_CASE("null data: -U is multiline only for patterns that can match a NUL",
          "[engine][null_data]") {
  auto ml = nul_options();
  ml.multiline = true;
  CHECK(compile_ok({"a[^x]b"}, ml).multiline());  // a negated class holds NUL
  CHECK(compile_ok({"a.b"}, ml).multiline());     // `.` matches NUL (not a line feed)
  CHECK(compile_ok({"\\W"}, ml).multiline());
  CHECK(compile_ok({"\\S"}, ml).multiline());
  CHECK(compile_ok({"[\\x00-\\x1f]"}, ml).multiline());
  CHECK(compile_ok({"[[:cntrl:]]"}, ml).multiline());
  CHECK_FALSE(compile_ok({"a\\nb"}, ml).multiline());  // a line feed is inside a line
  CHECK_FALSE(compile_ok({"^foo$"}, ml).multiline());  // the anchors are a line feed's
  CHECK_FALSE(compile_ok({"\\s+"}, ml).multiline());
  CHECK_FALSE(compile_ok({"[[:space:]]"}, ml).multiline());
  CHECK_FALSE(compile_ok({"\\w+"}, ml).multiline());
  auto whole = ml;
  whole.line = true;
  CHECK_FALSE(compile_ok({"foo"}, whole).multiline());
  // Without --null-data the same patterns decide by line feeds.
  PatternOptions lf;
  lf.multiline = true;
  CHECK_FALSE(compile_ok({"a.b"}, lf).multiline());
  CHECK(compile_ok({"a\\nb"}, lf).multiline());
  // In multiline mode a match spans NULs: the block is every line it touches.
  CHECK(search_nul({"o.b"}, "foo\0bar\0baz\0"sv, ml) == Lines{"1@0:foo\0bar"s});
}

TEST_CASE("null data: -U with a pattern that cannot match a NUL searches rounds of the buffer",
          "[engine][null_data]") {
  auto ml = nul_options();
  ml.multiline = true;
  const auto set = compile_ok({"^f"}, ml);
  CHECK(set.searches_buffer());
  CHECK_FALSE(compile_ok({"^f"}, nul_options()).searches_buffer());
  CHECK_FALSE(compile_ok({"^f"}).searches_buffer());
  // The whole buffer (a memory map): `^` matches at its start and after line feeds only.
  ctx::engine::SearchOptions whole;
  whole.whole_file = true;
  CHECK(search(set, "x\0foo\0a\nfoo\0"sv, whole) == Lines{"3@6:a\nfoo"});
  // The roll buffer: the first read (3 bytes) ends a round at the NUL, so the next starts at foo,
  // and after a reported line the search stands at the next one.
  CHECK(search(set, "x\0foo\0foo\0a\nfoo\0"sv) == Lines{"2@2:foo", "3@6:foo", "4@10:a\nfoo"});
  // Line by line (the slow search), every line start is a start.
  CHECK(search_nul({"^f"}, "x\0foo\0a\nfoo\0"sv) == Lines{"2@2:foo", "3@6:a\nfoo"});
}

TEST_CASE(
    "null data: NUL bytes are no binary data, and the line terminator is configurable only "
    "to NUL",
    "[engine][null_data]") {
  ctx::engine::SearchOptions options;
  options.binary = ctx::engine::BinaryMode::kQuit;
  CHECK(search_nul({"b"}, "a\0b\0"sv, nul_options(), options) == Lines{"2@2:b"});
  PatternOptions bad;
  bad.line_terminator = '\r';
  CHECK_FALSE(PatternSet::compile({"x"}, bad).ok());
  auto both = nul_options();
  both.crlf = true;
  CHECK_FALSE(PatternSet::compile({"x"}, both).ok());
}

TEST_CASE("null data: context lines, -v and -m count NUL-terminated lines", "[engine][null_data]") {
  const auto hay = "a\0b\0c\0d\0e"sv;
  ctx::engine::SearchOptions context;
  context.before = 1;
  context.after = 1;
  CHECK(search_nul({"c"}, hay, nul_options(), context) == Lines{"2-b", "3@4:c", "4-d"});
  ctx::engine::SearchOptions invert;
  invert.invert = true;
  CHECK(search_nul({"[bcd]"}, hay, nul_options(), invert) == Lines{"1@0:a", "5@8:e"});
  ctx::engine::SearchOptions max;
  max.max_count = 1;
  CHECK(search_nul({"[a-e]"}, hay, nul_options(), max) == Lines{"1@0:a"});
}

TEST_CASE("null data: the roll buffer's rounds end at NULs (on_buffer)", "[engine][null_data]") {
  // ripgrep's first read brings 3 bytes: a NUL in them ends its first round there.
  const auto set = compile_ok({"x"}, nul_options());
  auto scratch = set.make_scratch();
  Recorder r;
  REQUIRE(ctx::engine::search_buffer(set, scratch, {}, "a\0bx\0c"sv, r).ok());
  CHECK(r.buffers == std::vector<std::size_t>{0, 2, 5});
  // Without a NUL in them, the first round reads on to the last NUL.
  Recorder r2;
  REQUIRE(ctx::engine::search_buffer(set, scratch, {}, "abx\0c\0d"sv, r2).ok());
  CHECK(r2.buffers == std::vector<std::size_t>{0, 6});
}

TEST_CASE("null data: spans after a NUL see no line start for ^ (ripgrep's printer)",
          "[engine][null_data]") {
  const auto set = compile_ok({"^b"}, nul_options());
  auto scratch = set.make_scratch();
  using ctx::testing::span_pairs;
  using Pairs = ctx::testing::SpanPairs;
  CHECK(span_pairs(set, "bar", scratch, false) == Pairs{{0, 1}});
  CHECK(span_pairs(set, "bar", scratch, true).empty());
  CHECK(span_pairs(set, "a\nbar", scratch, true) == Pairs{{2, 3}});
  // Without --null-data a line after a line feed starts a line.
  const auto lf = compile_ok({"^b"});
  auto lf_scratch = lf.make_scratch();
  CHECK(span_pairs(lf, "bar", lf_scratch, true) == Pairs{{0, 1}});
}

TEST_CASE("count_byte counts any byte as count_newlines counts line feeds", "[engine][null_data]") {
  std::string s;
  for (int i = 0; i < 1000; ++i) s += (i % 7 == 0) ? std::string("\0", 1) : std::string("x\n");
  CHECK(ctx::engine::count_byte(s, '\0') == 143);
  CHECK(ctx::engine::count_byte(s, '\n') == ctx::engine::count_newlines(s));
  CHECK(ctx::engine::count_newlines(s) == 857);
}

TEST_CASE("count_byte agrees with a plain count at every length and alignment",
          "[engine][null_data]") {
  // The wide path takes 64 bytes at a time, 255 blocks per fold: lengths around both.
  std::string s;
  for (std::size_t i = 0; i < 40000; ++i)
    s += static_cast<char>("a\n\0b\nxyz\n\n"[(i * 7 + i / 13) % 10]);
  for (const std::size_t offset : {0U, 1U, 7U, 31U, 33U, 63U}) {
    for (const std::size_t length : {0U, 1U, 15U, 16U, 63U, 64U, 65U, 127U, 128U, 1000U, 16320U,
                                     16384U, 16385U, 32704U, 39000U}) {
      const std::string_view piece = std::string_view(s).substr(offset, length);
      for (const char byte : {'\n', '\0', 'x'}) {
        INFO("offset " << offset << " length " << length << " byte " << int(byte));
        CHECK(ctx::engine::count_byte(piece, byte) ==
              static_cast<std::uint64_t>(std::count(piece.begin(), piece.end(), byte)));
      }
    }
  }
}
