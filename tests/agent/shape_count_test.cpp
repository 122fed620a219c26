// The AVX2 count of the token estimator (shape_count.hpp) against the estimator's definition run
// by run, on random texts of every length up to 200 bytes and on longer ones whose runs and lines
// cross the 64-byte blocks it works in: the whole text's half tokens, the lines with odd half
// tokens (which round up) and the line breaks.
#include "../../agent/src/shape_count.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/agent/budget.hpp"
#include "token_reference.hpp"

using ctx::agent::detail::have_shape_avx2;
using ctx::agent::detail::shape_halves_avx2;
using ctx::agent::detail::ShapeHalves;
using ctx::testing::halves_by_runs;

namespace {

// The same three figures the slow way: the whole text, then line by line.
ShapeHalves reference(std::string_view text) {
  ShapeHalves want;
  want.halves = halves_by_runs(text);
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    want.odd_lines += halves_by_runs(text.substr(start, end - start)) % 2;
    want.newlines += nl == std::string_view::npos ? 0 : 1;
    start = end;
  }
  return want;
}

// Random text of `len` bytes: mostly runs of one class (so letter and digit runs reach their
// periods and cross block boundaries), with any byte at all now and then.
std::string random_text(std::mt19937& rng, std::size_t len) {
  static const std::vector<std::string> classes = {
      "abcxyzABCXYZ",
      "0123456789",
      " \t",
      "\n",
      "\r",
      "(){};,._-\"\\\x01\x7f",
      "\x80\xBF\xC3\xA9\xE4\xB8\xAD\xF0\xF1\xF4\xF5\xFF"};
  std::string out;
  while (out.size() < len) {
    const std::string& cls = classes[rng() % classes.size()];
    const std::size_t run = 1 + rng() % (rng() % 4 == 0 ? 40 : 7);
    for (std::size_t i = 0; i < run && out.size() < len; ++i) {
      out += rng() % 50 == 0 ? static_cast<char>(rng() % 256) : cls[rng() % cls.size()];
    }
  }
  return out;
}

void check(std::string_view text) {
  const ShapeHalves got = shape_halves_avx2(text);
  const ShapeHalves want = reference(text);
  INFO("length " << text.size());
  REQUIRE(got.halves == want.halves);
  REQUIRE(got.odd_lines == want.odd_lines);
  REQUIRE(got.newlines == want.newlines);
}

}  // namespace

TEST_CASE("the AVX2 shape count equals the run-by-run definition at every length to 200",
          "[agent][budget][shape_count]") {
  if (!have_shape_avx2()) {
    WARN("no AVX2 on this CPU: the estimator uses its table-driven machine");
    return;
  }
  std::mt19937 rng(41);
  for (std::size_t len = 0; len <= 200; ++len) {
    for (int round = 0; round < 60; ++round) check(random_text(rng, len));
  }
}

TEST_CASE("the AVX2 shape count carries runs and lines across its 64-byte blocks",
          "[agent][budget][shape_count]") {
  if (!have_shape_avx2()) {
    WARN("no AVX2 on this CPU: the estimator uses its table-driven machine");
    return;
  }
  std::mt19937 rng(43);
  for (int round = 0; round < 400; ++round) check(random_text(rng, 200 + rng() % 3000));
  // One class throughout, and a run of it ending at each offset around a block boundary.
  for (const char* fill : {"a", "7", " ", "\t", "\n", "\r", "-", "\xC3", "\xF0"}) {
    for (std::size_t len :
         std::vector<std::size_t>{63, 64, 65, 127, 128, 129, 191, 192, 640, 4099}) {
      const std::string text(len, fill[0]);
      check(text);
      for (std::size_t at = 54; at < 76 && at < len; ++at) {
        std::string cut = text;
        cut[at] = at % 2 == 0 ? '\n' : '.';
        check(cut);
      }
    }
  }
}

TEST_CASE("the estimator's count and its count of lines agree with the definition",
          "[agent][budget][shape_count]") {
  // Whichever path this CPU takes: count() is the rounded halves, count_pieces() of the lines the
  // sum of their rounded counts.
  ctx::agent::EstimatingCounter counter;
  std::mt19937 rng(47);
  for (int round = 0; round < 500; ++round) {
    const std::string text = random_text(rng, rng() % 1500);
    REQUIRE(counter.count(text) == (halves_by_runs(text) + 1) / 2);
    std::vector<std::size_t> ends;
    std::size_t want = 0;
    for (std::size_t start = 0; start < text.size();) {
      const std::size_t nl = text.find('\n', start);
      const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
      ends.push_back(end);
      want += (halves_by_runs(std::string_view(text).substr(start, end - start)) + 1) / 2;
      start = end;
    }
    REQUIRE(counter.count_pieces(text, 0, ends) == want);
  }
}
