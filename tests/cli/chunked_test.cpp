// Tests for searching one file in chunks on several threads (cli/src/chunked.hpp): for random
// haystacks, patterns, options and chunk limits, the sink must see exactly the calls one
// search_buffer over the whole haystack gives it (lines, line numbers, offsets, the binary notice
// and whether a line came before it), also when the sink stops the search midway.
#include "chunked.hpp"

#include <tbb/task_arena.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "../engine/pattern_testing.hpp"
#include "ctx/engine/searcher.hpp"

namespace {

using ctx::cli::ChunkedLimits;
using ctx::engine::BinaryMode;
using ctx::engine::Flow;
using ctx::engine::SearchOptions;

// Records every call as text; stops after `stop_after` lines, and (as ripgrep's printer under
// BinaryMode::convert) at the first line after a binary notice.
class Recorder final : public ctx::engine::LineSink {
 public:
  explicit Recorder(std::size_t stop_after) : stop_after_(stop_after) {}
  std::vector<std::string> seen;
  Flow on_line(std::uint64_t n, std::uint64_t offset, std::string_view line) override {
    seen.push_back(std::to_string(n) + "@" + std::to_string(offset) + ":" + std::string(line));
    ++lines_;
    return binary_ || lines_ >= stop_after_ ? Flow::kStop : Flow::kContinue;
  }
  Flow on_context(std::uint64_t n, std::uint64_t, std::string_view line) override {
    seen.push_back(std::to_string(n) + "-" + std::string(line));
    return Flow::kContinue;
  }
  void on_context_break() override { seen.emplace_back("--"); }
  void on_binary(std::uint64_t offset, bool matched) override {
    binary_ = true;
    seen.push_back("binary@" + std::to_string(offset) + (matched ? "+" : ""));
  }
  void on_haystack(std::string_view hay) override {
    seen.push_back("haystack " + std::to_string(hay.size()));
  }
  void on_finish(std::uint64_t) override { seen.emplace_back("finish"); }

 private:
  std::size_t stop_after_;
  std::size_t lines_ = 0;
  bool binary_ = false;
};

// Lines of words from a small alphabet (so patterns match often), some empty, some CRLF; NUL
// bytes only past the first 64 KiB when `nuls`.
std::string haystack(std::mt19937& rng, std::size_t bytes, bool nuls) {
  static const char* const kWords[] = {"ab", "ba", "abc", "x", "foo", "bar", "a", "b", "ab_c"};
  std::string out;
  while (out.size() < bytes) {
    const int words = static_cast<int>(rng() % 6);
    for (int i = 0; i < words; ++i) {
      if (i > 0) out += ' ';
      out += kWords[rng() % std::size(kWords)];
      if (nuls && out.size() > (64 << 10) && rng() % 3000 == 0) out += '\0';
    }
    out += rng() % 10 == 0 ? "\r\n" : "\n";
  }
  if (rng() % 2 == 0) out.pop_back();  // no line end at the end
  return out;
}

std::vector<std::string> run_whole(const ctx::engine::PatternSet& set, const SearchOptions& o,
                                   std::string_view hay, std::size_t stop_after) {
  auto scratch = set.make_scratch();
  Recorder r(stop_after);
  auto n = ctx::engine::search_buffer(set, scratch, o, hay, r);
  REQUIRE(n.ok());
  if (r.seen.back() != "finish") r.seen.emplace_back("finish");
  return r.seen;
}

std::vector<std::string> run_chunked(const ctx::engine::PatternSet& set, const SearchOptions& o,
                                     std::string_view hay, std::size_t stop_after,
                                     const ChunkedLimits& limits) {
  ctx::cli::ChunkScratches scratches;
  ctx::engine::FileBuffer buffer;  // holds no mapping: the haystack is a string here
  Recorder r(stop_after);
  tbb::task_arena arena(2);  // two threads however many cores the machine has
  arena.execute([&] {
    REQUIRE(ctx::cli::can_search_in_chunks(set, o, hay, limits));
    REQUIRE(ctx::cli::search_in_chunks(set, scratches, o, hay, buffer, r, limits).ok());
  });
  return r.seen;
}

TEST_CASE("a file searched in chunks gives the sink what one search gives it") {
  std::mt19937 rng(20261123);
  const std::vector<std::vector<std::string>> pattern_sets = {
      {"ab"}, {"abc|foo"}, {"^$"}, {""}, {"\\bab\\b"}, {"b$"}, {"^a"}, {"[xy]"}};
  for (int round = 0; round < 120; ++round) {
    const auto& patterns = pattern_sets[rng() % pattern_sets.size()];
    ctx::engine::PatternOptions po;
    po.word = rng() % 4 == 0;
    po.line = !po.word && rng() % 6 == 0;
    const auto set = ctx::testing::compile_ok(patterns, po);
    SearchOptions o;
    o.whole_file = true;
    o.line_numbers = rng() % 3 != 0;
    o.invert = rng() % 4 == 0;
    o.binary = rng() % 4 == 0 ? BinaryMode::kText : BinaryMode::kConvert;
    const bool nuls = rng() % 3 == 0;
    const std::string hay = haystack(rng, (64 << 10) + rng() % (200 << 10), nuls);
    ChunkedLimits limits;
    limits.threads = 2;
    limits.min_file_bytes = 0;
    limits.chunk_bytes = 1 + rng() % 20000;
    limits.max_chunk_lines = 1 + rng() % 400;
    const std::size_t stop_after = rng() % 3 == 0 ? 1 + rng() % 3000 : ~std::size_t{0};
    INFO("round " << round << ", pattern '" << patterns[0] << "', word " << po.word << ", line "
                  << po.line << ", invert " << o.invert << ", numbers " << o.line_numbers
                  << ", text " << (o.binary == BinaryMode::kText) << ", nuls " << nuls << ", chunk "
                  << limits.chunk_bytes << ", lines " << limits.max_chunk_lines << ", stop after "
                  << stop_after);
    const auto want = run_whole(set, o, hay, stop_after);
    const auto got = run_chunked(set, o, hay, stop_after, limits);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      INFO("call " << i);
      REQUIRE(got[i] == want[i]);
    }
  }
}

TEST_CASE("what is not searched in chunks") {
  const auto set = ctx::testing::compile_ok({"ab"});
  SearchOptions o;
  o.whole_file = true;
  o.binary = BinaryMode::kConvert;
  ChunkedLimits limits;
  limits.threads = 2;
  limits.min_file_bytes = 0;
  std::string hay(100 << 10, 'a');
  hay[50] = '\n';
  tbb::task_arena arena(2);
  arena.execute([&] {
    CHECK(ctx::cli::can_search_in_chunks(set, o, hay, limits));
    SECTION("a NUL in the first 64 KiB (binary from the start)") {
      hay[1000] = '\0';
      CHECK_FALSE(ctx::cli::can_search_in_chunks(set, o, hay, limits));
      o.binary = BinaryMode::kText;  // -a: no binary data
      CHECK(ctx::cli::can_search_in_chunks(set, o, hay, limits));
    }
    SECTION("a BOM") {
      hay.replace(0, 3, "\xEF\xBB\xBF");
      CHECK_FALSE(ctx::cli::can_search_in_chunks(set, o, hay, limits));
    }
    SECTION("context lines, -m, --passthru, the roll buffer, walked files") {
      SearchOptions c = o;
      c.after = 1;
      CHECK_FALSE(ctx::cli::can_search_in_chunks(set, c, hay, limits));
      c = o;
      c.max_count = 3;
      CHECK_FALSE(ctx::cli::can_search_in_chunks(set, c, hay, limits));
      c = o;
      c.passthru = true;
      CHECK_FALSE(ctx::cli::can_search_in_chunks(set, c, hay, limits));
      c = o;
      c.whole_file = false;
      CHECK_FALSE(ctx::cli::can_search_in_chunks(set, c, hay, limits));
      c = o;
      c.binary = BinaryMode::kQuit;
      CHECK_FALSE(ctx::cli::can_search_in_chunks(set, c, hay, limits));
    }
    SECTION("a small file") {
      limits.min_file_bytes = hay.size() + 1;
      CHECK_FALSE(ctx::cli::can_search_in_chunks(set, o, hay, limits));
    }
  });
  limits.threads = 1;  // -j1
  CHECK_FALSE(ctx::cli::can_search_in_chunks(set, o, hay, limits));
}

}  // namespace
