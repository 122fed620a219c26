// Tests for the searcher's binary data handling, which follows ripgrep 14 exactly: where it
// notices a NUL byte depends on how it reads the file (its 64 KiB roll buffer, whose first read
// brings 3 bytes and whose rounds keep context lines; or the whole file: memory map, multiline
// mode), and what follows depends on the BinaryMode. Also the bytes searched it reports when a
// search stops early.
#include "ctx/engine/searcher.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "pattern_testing.hpp"

namespace {

using namespace std::string_literals;
using ctx::engine::BinaryMode;
using ctx::engine::Flow;
using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::engine::SearchOptions;

using ctx::testing::compile_ok;

// Records every call: "N:line" for reported lines, "N-line" for context, "binary@OFFSET".
class Recorder final : public ctx::engine::LineSink {
 public:
  std::vector<std::string> seen;
  std::uint64_t searched = ~std::uint64_t{0};
  Flow on_line(std::uint64_t n, std::uint64_t, std::string_view line) override {
    seen.push_back(std::to_string(n) + ":" + std::string(line));
    return Flow::kContinue;
  }
  Flow on_context(std::uint64_t n, std::uint64_t, std::string_view line) override {
    seen.push_back(std::to_string(n) + "-" + std::string(line));
    return Flow::kContinue;
  }
  void on_context_break() override { seen.emplace_back("--"); }
  void on_binary(std::uint64_t offset, bool matched) override {
    seen.push_back("binary@" + std::to_string(offset) + (matched ? "+" : ""));
  }
  void on_finish(std::uint64_t bytes) override { searched = bytes; }
};

Recorder search(const PatternSet& set, std::string_view hay, SearchOptions options) {
  options.line_numbers = true;
  auto scratch = set.make_scratch();
  Recorder r;
  auto n = ctx::engine::search_buffer(set, scratch, options, hay, r);
  REQUIRE(n.ok());
  return r;
}

// `count` lines "line NNNNN\n" (11 bytes each) from number `first`.
std::string filler(int first, int count) {
  std::string out;
  for (int i = first; i < first + count; ++i) {
    std::string n = std::to_string(i);
    out += "line " + std::string(5 - n.size(), '0') + n + "\n";
  }
  return out;
}

bool has(const Recorder& r, std::string_view what) {
  for (const std::string& s : r.seen) {
    if (s == what) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("kQuit: the roll buffer's round that reads the first NUL is not searched",
          "[engine][searcher][binary]") {
  // 6000 lines of 11 bytes (66000): the first round reads 3 bytes, then up to 64 KiB, and ends
  // after line 5957 (65527 bytes); the NUL at 66000 comes with the second round.
  const std::string hay = filler(0, 6000) + std::string("\0", 1) + "line 99999\n";
  const PatternSet set = compile_ok({"line 0000[0-9]|line 0595[0-9]|line 99999"});
  Recorder r = search(set, hay, {});
  CHECK(r.seen.front() == "1:line 00000");
  CHECK(has(r, "5957:line 05956"));
  CHECK_FALSE(has(r, "5958:line 05957"));  // past the first round's last line feed
  CHECK(r.seen.back() == "binary@66000+");
  CHECK(r.searched == 65527);  // ripgrep's bytes searched: what its rounds consumed
  // ripgrep reads stdin through an 8 KiB buffer: its first round ends at 8 KiB (after line 744),
  // so the second, up to 73720, brings the NUL in.
  SearchOptions stdin;
  stdin.stdin_reader = true;
  const PatternSet around = compile_ok({"line 0074[0-9]"});
  Recorder piped = search(around, hay, stdin);
  CHECK(has(piped, "744:line 00743"));
  CHECK_FALSE(has(piped, "745:line 00744"));
  CHECK(piped.searched == 8184);
}

TEST_CASE(
    "kQuit: an early NUL stops the search before any line, unless the 3-byte first read "
    "holds a line end",
    "[engine][searcher][binary]") {
  const PatternSet set = compile_ok({"a"});
  Recorder none = search(set, std::string("a\nb\0a\n", 6), {});
  CHECK(none.seen == std::vector<std::string>{"1:a", "binary@3+"});
  Recorder later = search(set, std::string("aaa\nb\0a\n", 8), {});
  CHECK(later.seen == std::vector<std::string>{"binary@5"});
  CHECK(later.searched == 0);
}

TEST_CASE("kQuit: context lines kept from round to round move the read that brings the NUL in",
          "[engine][searcher][binary]") {
  // Without context the second round starts after line 5957 (65527) and reads up to 131063,
  // which holds the NUL at 131055; with -B5 it starts 6 lines earlier (65461), reads up to
  // 130997, and is searched.
  const std::string hay = filler(0, 11914) + std::string("x\0\n", 3);
  REQUIRE(hay.find('\0') == 131055);
  const PatternSet set = compile_ok({"line 1190[0-9]"});
  Recorder plain = search(set, hay, {});
  CHECK(plain.seen == std::vector<std::string>{"binary@131055"});
  SearchOptions context;
  context.before = 5;
  Recorder with_context = search(set, hay, context);
  CHECK(has(with_context, "11901:line 11900"));
  CHECK(with_context.seen.back() == "binary@131055+");
}

TEST_CASE(
    "kConvert through the roll buffer: a NUL reads as a line end, noticed before the round "
    "that reads it",
    "[engine][searcher][binary]") {
  const PatternSet set = compile_ok({"foo"});
  SearchOptions convert;
  convert.binary = BinaryMode::kConvert;
  Recorder r = search(set, std::string("a foo\0foo b\nfoo\n", 16), convert);
  CHECK(r.seen == std::vector<std::string>{"binary@5", "1:a foo", "2:foo b", "3:foo"});
  CHECK(r.searched == 16);
}

TEST_CASE("kConvert on a whole file: a NUL in the first 64 KiB is noticed first, lines keep it",
          "[engine][searcher][binary]") {
  const PatternSet set = compile_ok({"foo"});
  SearchOptions mapped;
  mapped.binary = BinaryMode::kConvert;
  mapped.whole_file = true;
  Recorder r = search(set, std::string("a foo\0foo b\nfoo\n", 16), mapped);
  CHECK(r.seen == std::vector<std::string>{"binary@5", "1:a foo\0foo b"s, "2:foo"});
  CHECK(r.searched == 5);  // ripgrep counts up to the binary offset
}

TEST_CASE("whole file: a NUL past 64 KiB is noticed in the reported line that holds it",
          "[engine][searcher][binary]") {
  const std::string hay = filler(0, 7000) + std::string("line \0 hit\n", 11) + "line hit\n";
  const PatternSet set = compile_ok({"hit"});
  SearchOptions mapped;
  mapped.whole_file = true;
  mapped.binary = BinaryMode::kConvert;
  Recorder convert = search(set, hay, mapped);
  CHECK(convert.seen ==
        std::vector<std::string>{"binary@77005", "7001:line \0 hit"s, "7002:line hit"});
  mapped.binary = BinaryMode::kQuit;
  Recorder quit = search(set, hay, mapped);
  CHECK(quit.seen == std::vector<std::string>{"binary@77005"});
  // A NUL in a line that is never reported goes unnoticed.
  const PatternSet other = compile_ok({"line 0000[0-3]"});
  Recorder unnoticed = search(other, hay, mapped);
  CHECK(unnoticed.seen.size() == 4);
  CHECK(unnoticed.searched == hay.size());
}

TEST_CASE("multiline kQuit: blocks before the one holding a NUL past 64 KiB are reported",
          "[engine][searcher][binary]") {
  PatternOptions multiline;
  multiline.multiline = true;
  const PatternSet set = compile_ok({"hit\\nline"}, multiline);
  const std::string hay =
      "hit\nline 1\n" + filler(2, 7000) + std::string("hit\nline \0\n", 11) + "hit\nline 3\n";
  Recorder r = search(set, hay, {});
  CHECK(r.seen.front() == "1:hit\nline 1");
  CHECK(r.seen.back() == "binary@77020+");
  CHECK(r.seen.size() == 2);
  // A NUL in the first 64 KiB: nothing searched.
  Recorder early = search(set, std::string("hit\nline\0\n", 10), {});
  CHECK(early.seen == std::vector<std::string>{"binary@8"});
}

TEST_CASE("kSuppress: a haystack with a NUL reports no line, then whether it matched",
          "[engine][searcher][binary]") {
  const PatternSet set = compile_ok({"foo"});
  SearchOptions suppress;
  suppress.binary = BinaryMode::kSuppress;
  Recorder r = search(set, std::string("foo\n\0foo\n", 9), suppress);
  CHECK(r.seen == std::vector<std::string>{"binary@4+"});
  Recorder none = search(set, std::string("bar\n\0\n", 6), suppress);
  CHECK(none.seen.empty());
}

TEST_CASE("bytes searched of a search stopped by -m: where ripgrep's searcher stood",
          "[engine][searcher]") {
  const PatternSet set = compile_ok({"foo"});
  const std::string hay = "foo\nbar\nfoo\nxx\n";
  SearchOptions one;
  one.max_count = 1;
  CHECK(search(set, hay, one).searched == 0);  // roll buffer: nothing consumed yet
  one.whole_file = true;
  CHECK(search(set, hay, one).searched == 4);  // memory map: the end of the matching line
  one.invert = true;
  CHECK(search(set, hay, one).searched == 12);  // -v: the end of the next matching line
  one.slow_lines = true;
  CHECK(search(set, hay, one).searched == 8);  // -P steps line by line
  CHECK(search(set, hay, {}).searched == hay.size());
}

using Lines = std::vector<std::string>;

TEST_CASE("passthru reports every other line as context, without breaks", "[engine][searcher]") {
  const PatternSet set = compile_ok({"foo"});
  SearchOptions o;
  o.passthru = true;
  const std::string hay = "a\nfoo 1\nb\nc\nfoo 2\nd\n";
  CHECK(search(set, hay, o).seen == Lines{"1-a", "2:foo 1", "3-b", "4-c", "5:foo 2", "6-d"});
  o.max_count = 1;  // the lines after the last counted match are not printed
  CHECK(search(set, hay, o).seen == Lines{"1-a", "2:foo 1"});
  o.max_count.reset();
  o.invert = true;
  CHECK(search(set, hay, o).seen == Lines{"1:a", "2-foo 1", "3:b", "4:c", "5-foo 2", "6:d"});
}

TEST_CASE("passthru prints the lines of every roll buffer round", "[engine][searcher]") {
  const PatternSet set = compile_ok({"line 00001$"});
  SearchOptions o;
  o.passthru = true;
  const Recorder r = search(set, filler(0, 20000), o);  // 220 KB: several rounds
  REQUIRE(r.seen.size() == 20000);
  CHECK(r.seen[1] == "2:line 00001");
  CHECK(r.seen.back() == "20000-line 19999");
}

TEST_CASE("stop_on_nonmatch ends the search at the first line not reported after one that was",
          "[engine][searcher]") {
  const PatternSet set = compile_ok({"foo"});
  SearchOptions o;
  o.stop_on_nonmatch = true;
  const std::string hay = "x\nfoo 1\nfoo 2\nbar\nfoo 3\n";
  CHECK(search(set, hay, o).seen == Lines{"2:foo 1", "3:foo 2"});
  o.after = 2;  // that line still prints as after-context, and only it
  CHECK(search(set, hay, o).seen == Lines{"2:foo 1", "3:foo 2", "4-bar"});
  o.after = 0;
  o.passthru = true;
  CHECK(search(set, hay, o).seen == Lines{"1-x", "2:foo 1", "3:foo 2", "4-bar"});
}

TEST_CASE("stop_on_nonmatch with invert skips the matching line that ends the first run, as rg",
          "[engine][searcher]") {
  const PatternSet set = compile_ok({"foo"});
  SearchOptions o;
  o.stop_on_nonmatch = true;
  o.invert = true;
  // ripgrep's fast inverted search reports `bar`, steps over `foo 3`, then its line-by-line
  // search reports `baz` and stops at `foo 4`.
  const std::string hay = "foo 1\nbar\nfoo 3\nbaz\nfoo 4\nqux\n";
  CHECK(search(set, hay, o).seen == Lines{"2:bar", "4:baz"});
  o.slow_lines = true;  // -P: line by line from the start, so `foo 3` stops it
  CHECK(search(set, hay, o).seen == Lines{"2:bar"});
}

TEST_CASE("stop_on_nonmatch with invert: the line stepped over, at the end and under -m, as rg 14",
          "[engine][searcher]") {
  const PatternSet set = compile_ok({"b"});
  SearchOptions o;
  o.stop_on_nonmatch = true;
  o.invert = true;
  o.after = 1;
  o.whole_file = true;  // as rg searches a file named on its command line (a roll buffer's first
                        // round is rg's 3-byte BOM peek: tests/diff covers walked files)
  // The matching line that ends the first run is the file's last: the search is over, and it
  // prints as after-context (rg 14.1.1 prints a1, a2, b3).
  CHECK(search(set, "a1\na2\nb3\n", o).seen == Lines{"1:a1", "2:a2", "3-b3"});
  CHECK(search(set, "a1\na2\nb3", o).seen == Lines{"1:a1", "2:a2", "3-b3"});
  // -m1: the run's other lines print first as -m's after-context (matches), then the line
  // stepped over is skipped.
  o.max_count = 1;
  const std::string hay = "a1\na2\nb3\na4\nb5\n";
  CHECK(search(set, hay, o).seen == Lines{"1:a1", "2:a2"});
  o.after = 2;
  CHECK(search(set, hay, o).seen == Lines{"1:a1", "2:a2", "--", "4:a4"});
  // Under -B it is the before-context of the next line printed, not a break.
  o.before = 1;
  CHECK(search(set, hay, o).seen == Lines{"1:a1", "2:a2", "3-b3", "4:a4"});
}

TEST_CASE("\\Z read as PCRE2 reads it ends each line, in windows as in the whole buffer",
          "[engine][searcher]") {
  // Without rust_syntax_errors (the agent's search_files) \Z is PCRE2's: on a line, the line's
  // end, as \z. It matched only at the end of whatever haystack the search had: the buffer's, or
  // a window's (found by the pattern fuzzer).
  const std::string hay = "\xD1\n\nab\nb\xFF\x01";
  for (const char* pattern : {"\\Z", "b\\Z", "(?:x|\\Z)"}) {
    INFO(pattern);
    const PatternSet set = compile_ok({pattern});
    const PatternSet z =
        compile_ok({std::string(pattern).replace(std::string(pattern).find('Z'), 1, "z")});
    SearchOptions o;
    const auto whole = search(set, hay, o).seen;
    CHECK(whole == search(z, hay, o).seen);
    for (std::size_t window = 1; window < 6; ++window) {
      o.window_bytes = window;
      CHECK(search(set, hay, o).seen == whole);
    }
  }
  CHECK(search(compile_ok({"\\Z"}), hay, SearchOptions{}).seen.size() == 4);
}
