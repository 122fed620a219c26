// A large haystack is scanned in windows (SearchOptions::window_bytes) so that a memory-mapped
// file's pages can be dropped behind the search, and a file read without a map can arrive as the
// search goes (SearchOptions::fill) and be dropped behind it. Property: for random haystacks,
// patterns and options, every window size gives exactly the calls one pass over the whole haystack
// gives (reported and context lines with their numbers and offsets, breaks, binary notices, bytes
// searched), and progress is reported in order, within the haystack; the same with a haystack
// that arrives as the search goes, whose bytes not yet asked for and those behind the progress
// reported are poison.
#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "ctx/engine/searcher.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::BinaryMode;
using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::engine::SearchOptions;

// A haystack that arrives as the search goes, in a buffer where every byte not yet filled, and
// every byte the sink was told the search will not read again, is poison ("\0\n": binary data
// and line breaks), so a read of either changes what the search reports.
class PoisonFill final : public ctx::engine::HaystackFill {
 public:
  explicit PoisonFill(std::string_view original)
      : original_(original), buffer_(poison(original.size())) {}
  ctx::Status fill_to(std::size_t end) override {
    end = std::min(end, original_.size());
    for (; filled_ < end; ++filled_) {
      if (filled_ >= released_) buffer_[filled_] = arrived(filled_);
    }
    return {};
  }
  void convert_nuls(char term) override {
    nul_to_ = term;
    for (std::size_t i = released_; i < filled_; ++i) buffer_[i] = arrived(i);
  }
  std::optional<std::size_t> first_nul() const override { return first_nul_; }
  void release(std::size_t offset) {
    for (std::size_t i = released_; i < offset && i < buffer_.size(); ++i)
      buffer_[i] = kPoison[i % 2];
    released_ = std::max(released_, offset);
  }
  std::string_view hay() const { return buffer_; }

 private:
  static constexpr char kPoison[] = "\0\n";
  static std::string poison(std::size_t size) {
    std::string out(size, '\0');
    for (std::size_t i = 0; i < size; ++i) out[i] = kPoison[i % 2];
    return out;
  }
  // The byte at `i` as it arrives (a NUL converted, once asked to).
  char arrived(std::size_t i) {
    if (original_[i] != '\0' || !nul_to_) return original_[i];
    if (!first_nul_) first_nul_ = i;
    return *nul_to_;
  }
  std::string_view original_;
  std::optional<char> nul_to_;
  std::optional<std::size_t> first_nul_;
  std::string buffer_;
  std::size_t filled_ = 0, released_ = 0;
};

using Recorder = ctx::testing::CallRecorder;

}  // namespace

std::string testing_escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\0') {
      out += "\\0";
    } else {
      out += ch;
    }
  }
  return out;
}

namespace {

struct Case {
  std::string hay;
  std::vector<std::string> patterns;
  PatternOptions pattern_options;
  SearchOptions options;
};

std::string random_haystack(std::mt19937& rng) {
  const std::vector<std::string> word_choices = {"foo", "bar", "Foo", "baz", "x",
                                                 "",    "é",   "  ",  "\t",  "foobar"};
  std::string hay;
  const int lines = static_cast<int>(rng() % 120);
  for (int i = 0; i < lines; ++i) {
    const int words = static_cast<int>(rng() % 5);
    for (int w = 0; w < words; ++w) {
      hay += word_choices[rng() % word_choices.size()];
      if (rng() % 3 == 0) hay += ' ';
    }
    if (rng() % 40 == 0) hay += '\0';
    hay += rng() % 10 == 0 ? "\r\n" : "\n";
  }
  if (rng() % 3 == 0 && !hay.empty()) hay.pop_back();  // no final line feed
  return hay;
}

Case random_case(std::mt19937& rng) {
  const std::vector<std::string> patterns = {"foo", "bar|baz", "^foo", "foo$",   "^$",    "\\bx\\b",
                                             "o+",  "x*",      "é",    "^\\s*$", "[A-Z]", "z"};
  Case c;
  c.hay = random_haystack(rng);
  c.patterns.push_back(patterns[rng() % patterns.size()]);
  if (rng() % 4 == 0) c.patterns.push_back(patterns[rng() % patterns.size()]);
  c.pattern_options.case_insensitive = rng() % 4 == 0;
  c.pattern_options.word = rng() % 6 == 0;
  c.pattern_options.crlf = rng() % 6 == 0;
  c.pattern_options.pcre2 = rng() % 8 == 0;
  SearchOptions& o = c.options;
  o.invert = rng() % 4 == 0;
  if (rng() % 4 == 0) o.max_count = rng() % 6;
  o.line_numbers = rng() % 2 == 0;
  if (rng() % 3 == 0) o.before = rng() % 4;
  if (rng() % 3 == 0) o.after = rng() % 4;
  const BinaryMode modes[] = {BinaryMode::kQuit, BinaryMode::kConvert, BinaryMode::kSuppress,
                              BinaryMode::kText};
  o.binary = modes[rng() % 4];
  o.passthru = rng() % 10 == 0;
  o.stop_on_nonmatch = rng() % 10 == 0;
  o.whole_file = rng() % 3 == 0;
  o.slow_lines = c.pattern_options.pcre2 || o.passthru || rng() % 8 == 0;
  return c;
}

Recorder run(const PatternSet& set, const Case& c, std::size_t window_bytes) {
  SearchOptions options = c.options;
  options.window_bytes = window_bytes;
  auto scratch = set.make_scratch();
  Recorder r;
  auto n = ctx::engine::search_buffer(set, scratch, options, c.hay, r);
  REQUIRE(n.ok());
  r.seen.push_back("reported " + std::to_string(*n));
  return r;
}

// The same search over a haystack that arrives as it goes (SearchOptions::fill), poisoned behind.
Recorder run_filled(const PatternSet& set, const Case& c, std::size_t window_bytes) {
  SearchOptions options = c.options;
  options.window_bytes = window_bytes;
  PoisonFill fill(c.hay);
  options.fill = &fill;
  auto scratch = set.make_scratch();
  Recorder r;
  r.on_progress_hook = [&fill](std::size_t offset) { fill.release(offset); };
  auto n = ctx::engine::search_buffer(set, scratch, options, fill.hay(), r);
  REQUIRE(n.ok());
  r.seen.push_back("reported " + std::to_string(*n));
  return r;
}

}  // namespace

TEST_CASE("windows: any window size reports what one pass over the haystack does",
          "[engine][searcher][window]") {
  std::mt19937 rng(20261123);
  for (int iteration = 0; iteration < 3000; ++iteration) {
    const Case c = random_case(rng);
    auto set = PatternSet::compile(c.patterns, c.pattern_options);
    if (!set.ok()) continue;  // e.g. -P with a Rust-only construct
    const Recorder whole = run(*set, c, 0);
    CHECK(whole.progress.empty());
    for (std::size_t window : {std::size_t{1}, std::size_t{5}, std::size_t{17}, std::size_t{64}}) {
      const Recorder windowed = run(*set, c, window);
      INFO("iteration " << iteration << ", window " << window << ", pattern " << c.patterns.front()
                        << ", haystack size " << c.hay.size() << ", invert " << c.options.invert
                        << ", max " << c.options.max_count.value_or(99) << ", B/A "
                        << c.options.before << "/" << c.options.after << ", mode "
                        << static_cast<int>(c.options.binary) << ", passthru " << c.options.passthru
                        << ", stop " << c.options.stop_on_nonmatch << ", whole "
                        << c.options.whole_file << ", slow " << c.options.slow_lines << ", pcre2 "
                        << c.pattern_options.pcre2 << ", hay " << ::testing_escape(c.hay));
      REQUIRE(windowed.seen == whole.seen);
      REQUIRE(windowed.searched == whole.searched);
      const Recorder filled = run_filled(*set, c, window);
      REQUIRE(filled.seen == whole.seen);
      REQUIRE(filled.searched == whole.searched);
      REQUIRE(!windowed.bad_progress);  // within the haystack
      std::size_t last = 0;
      for (std::size_t at : windowed.progress) {
        REQUIRE(at > last);
        last = at;
      }
    }
  }
}

TEST_CASE("windows: progress reaches the end of a haystack without a match",
          "[engine][searcher][window]") {
  std::string hay;
  for (int i = 0; i < 30000; ++i) hay += "line " + std::to_string(i) + "\n";
  auto set = ctx::testing::compile_ok({"nowhere"});
  Case c{hay, {"nowhere"}, {}, {}};
  // A whole file: up to the last window.
  c.options.whole_file = true;
  const Recorder whole = run(set, c, 100);
  REQUIRE(whole.progress.size() > 1000);
  CHECK(whole.progress.back() > hay.size() - 300);
  // Through the roll buffer: up to the start of its last 64 KiB round.
  c.options.whole_file = false;
  const Recorder rolled = run(set, c, 100);
  REQUIRE(rolled.progress.size() >= 3);
  CHECK(rolled.progress.back() > hay.size() - (128 << 10));
}

TEST_CASE("windows: a filled haystack's last window has arrived before it is scanned",
          "[engine][searcher][window]") {
  // The only match is in the last line, the last window is shorter than a window, and the fill
  // brings bytes in only as asked (PoisonFill): scanned before it arrived, it read as NULs and
  // line feeds (a --no-mmap file missed its last matches so).
  std::string hay;
  for (int i = 0; i < 60000; ++i) hay += "hay " + std::to_string(i) + "\n";
  hay += "needle at the end\n";
  auto set = ctx::testing::compile_ok({"needle"});
  for (const bool whole_file : {false, true}) {
    for (const BinaryMode mode : {BinaryMode::kQuit, BinaryMode::kConvert, BinaryMode::kText}) {
      Case c{hay, {"needle"}, {}, {}};
      c.options.whole_file = whole_file;
      c.options.binary = mode;
      INFO("whole file " << whole_file << ", mode " << static_cast<int>(mode));
      const Recorder whole = run(set, c, 0);
      REQUIRE(whole.seen.back() == "reported 1");
      CHECK(run_filled(set, c, std::size_t{100} << 10).seen == whole.seen);
    }
  }
}
