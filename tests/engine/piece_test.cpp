// A stream searched piece by piece with context lines (PieceSearch, stdin as it arrives) reports
// what one search over the whole stream reports. Property: random haystacks, patterns and context
// options (-A, -B, --passthru, -v, -m, line numbers), cut into random pieces of whole lines: the
// reported and context lines (numbers, offsets, bytes) and the "--" breaks are the same.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "ctx/engine/searcher.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::BinaryMode;
using ctx::engine::PatternSet;
using ctx::engine::PieceSearch;
using ctx::engine::SearchOptions;

using ctx::testing::CallRecorder;

std::string random_haystack(std::mt19937& rng) {
  const std::vector<std::string> line_choices = {"foo",     "bar", "foo bar", "",   "x",
                                                 "baz foo", "é",   "  ",      "Foo"};
  std::string hay;
  if (rng() % 8 == 0) hay += "\xEF\xBB\xBF";  // a UTF-8 BOM, dropped and not counted
  const int lines = static_cast<int>(rng() % 60);
  for (int i = 0; i < lines; ++i) hay += line_choices[rng() % line_choices.size()] + "\n";
  if (rng() % 3 == 0) hay += "foo";  // a last line without a terminator
  return hay;
}

// The piece ends: after random line terminators, the last at the haystack's end.
std::vector<std::size_t> random_cuts(std::mt19937& rng, std::string_view hay) {
  std::vector<std::size_t> cuts;
  for (std::size_t i = 0; i < hay.size(); ++i) {
    if (hay[i] == '\n' && rng() % 3 == 0) cuts.push_back(i + 1);
  }
  if (cuts.empty() || cuts.back() != hay.size()) cuts.push_back(hay.size());
  return cuts;
}

// Searches `hay` piece by piece as the CLI's stream search does.
std::vector<std::string> search_in_pieces(const PatternSet& set, const SearchOptions& options,
                                          std::string_view hay,
                                          const std::vector<std::size_t>& cuts) {
  auto scratch = set.make_scratch();
  PieceSearch pieces;
  CallRecorder r;
  r.record_buffers = false;  // a piece's search has a roll buffer of its own
  std::uint64_t base = 0, line = 1, reported = 0;
  std::size_t start = 0;
  for (std::size_t cut : cuts) {
    const std::string_view piece = hay.substr(start, cut - start);
    start = cut;
    SearchOptions o = options;
    o.base_offset = base;
    o.first_line_number = line;
    if (options.max_count) o.max_count = *options.max_count - reported;
    auto got = pieces.search(set, scratch, o, piece, r);
    REQUIRE(got.ok());
    reported += *got;
    line += ctx::engine::count_newlines(piece);
    const bool bom = base == 0 && piece.substr(0, 3) == "\xEF\xBB\xBF";
    base += piece.size() - (bom ? 3 : 0);
    if (options.max_count && reported >= *options.max_count && !pieces.after_context_due()) break;
  }
  return r.seen;
}

}  // namespace

TEST_CASE("pieces: a stream searched piece by piece reports what one search reports",
          "[engine][searcher][pieces]") {
  std::mt19937 rng(20261123);
  const std::vector<std::string> patterns = {"foo", "bar|baz", "^foo$", "^$", "x", "é"};
  // Streams of several pieces with context lines printed: what the carry-over is for.
  int carried = 0;
  for (int iteration = 0; iteration < 4000; ++iteration) {
    const std::string hay = random_haystack(rng);
    const std::string& pattern = patterns[rng() % patterns.size()];
    auto set = ctx::testing::compile_ok({pattern});
    SearchOptions options;
    options.binary = rng() % 2 == 0 ? BinaryMode::kQuit : BinaryMode::kText;
    options.line_numbers = true;
    options.invert = rng() % 4 == 0;
    options.before = rng() % 4;
    options.after = rng() % 4;
    options.passthru = rng() % 8 == 0;
    if (rng() % 3 == 0) options.max_count = rng() % 5;
    const std::vector<std::size_t> cuts = random_cuts(rng, hay);
    CallRecorder whole;
    whole.record_buffers = false;
    auto scratch = set.make_scratch();
    REQUIRE(ctx::engine::search_buffer(set, scratch, options, hay, whole).ok());
    INFO("iteration " << iteration << ", B/A " << options.before << "/" << options.after
                      << ", invert " << options.invert << ", passthru " << options.passthru
                      << ", max " << options.max_count.value_or(99) << ", pieces " << cuts.size()
                      << ", pattern " << pattern << ", cuts " << ::Catch::Detail::stringify(cuts)
                      << ", hay " << ::Catch::Detail::stringify(hay));
    REQUIRE(search_in_pieces(set, options, hay, cuts) == whole.seen);
    const bool context_printed =
        std::any_of(whole.seen.begin(), whole.seen.end(), [](const std::string& call) {
          return call.find('-') != std::string::npos && call.find(':') == std::string::npos;
        });
    if (cuts.size() > 1 && context_printed) ++carried;
  }
  CHECK(carried > 500);
}
