// Helpers shared by the engine tests: compiling a PatternSet that must compile, a LineSink that
// records what the searcher reports, and the two non-ASCII characters Unicode simple case folding
// maps to ASCII letters (Hyperscan folds ASCII only; PCRE2 with UCP and ripgrep fold these too).
#pragma once

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "ctx/engine/searcher.hpp"

namespace ctx::testing {

inline constexpr std::string_view kKelvin = "\xE2\x84\xAA";  // U+212A KELVIN SIGN, folds to k
inline constexpr std::string_view kLongS = "\xC5\xBF";  // U+017F LATIN SMALL LETTER LONG S, to s

// `patterns` compiled with `options`; fails the test (naming the error) when they do not compile.
inline engine::PatternSet compile_ok(const std::vector<std::string>& patterns,
                                     const engine::PatternOptions& options = {}) {
  auto set = engine::PatternSet::compile(patterns, options);
  if (!set.ok()) FAIL("compile failed: " << set.error().detail);
  return std::move(set).value();
}

// `word` with each k/K and s/S replaced, where below(5) == 0, by the character that folds to it
// (U+212A, U+017F): haystacks for caseless literal sets. `below(n)` draws from [0, n).
template <typename Below>
std::string with_fold_variants(std::string_view word, Below&& below) {
  std::string out;
  for (char ch : word) {
    if ((ch == 'k' || ch == 'K') && below(5) == 0) {
      out += kKelvin;
    } else if ((ch == 's' || ch == 'S') && below(5) == 0) {
      out += kLongS;
    } else {
      out += ch;
    }
  }
  return out;
}

// The [start, end) of each match PatternSet::find_spans reports on `line`; fails the test (naming
// the error) when find_spans fails.
using SpanPairs = std::vector<std::pair<std::size_t, std::size_t>>;
inline SpanPairs span_pairs(const engine::PatternSet& set, std::string_view line,
                            engine::PatternSet::Scratch& scratch, bool after_line_break = false) {
  std::vector<engine::MatchSpan> out;
  if (auto status = set.find_spans(line, scratch, out, after_line_break); !status.ok()) {
    FAIL("find_spans failed: " << status.error().detail);
  }
  SpanPairs pairs;
  for (const engine::MatchSpan& m : out) pairs.emplace_back(m.start, m.end);
  return pairs;
}

// The spans of `patterns` (compiled with `options`, which must succeed) in `line`.
inline SpanPairs spans_of(const std::vector<std::string>& patterns, std::string_view line,
                          const engine::PatternOptions& options = {},
                          bool after_line_break = false) {
  const engine::PatternSet set = compile_ok(patterns, options);
  engine::PatternSet::Scratch scratch = set.make_scratch();
  return span_pairs(set, line, scratch, after_line_break);
}
inline SpanPairs spans_of(const std::string& pattern, std::string_view line,
                          const engine::PatternOptions& options = {},
                          bool after_line_break = false) {
  return spans_of(std::vector<std::string>{pattern}, line, options, after_line_break);
}

// Records what the searcher reports, one string per call: "N@OFFSET:LINE" for a matching line,
// "N-LINE" for a context line, "--" for a context break, "binary"; and each on_buffer start.
class LineRecorder final : public engine::LineSink {
 public:
  std::vector<std::string> seen;
  std::vector<std::size_t> buffers;
  engine::Flow on_line(std::uint64_t n, std::uint64_t offset, std::string_view line) override {
    seen.push_back(std::to_string(n) + "@" + std::to_string(offset) + ":" + std::string(line));
    return engine::Flow::kContinue;
  }
  engine::Flow on_context(std::uint64_t n, std::uint64_t, std::string_view line) override {
    seen.push_back(std::to_string(n) + "-" + std::string(line));
    return engine::Flow::kContinue;
  }
  void on_context_break() override { seen.emplace_back("--"); }
  void on_binary(std::uint64_t, bool) override { seen.emplace_back("binary"); }
  void on_buffer(std::size_t start) override { buffers.push_back(start); }
};

// Records every call with its offsets, one string per call: "N:OFFSET:LINE" for a reported line,
// "N-OFFSET-LINE" for a context line, "--", "binary@OFFSET" ("+" when a line came before),
// "buffer@START" (unless `record_buffers` is off); the bytes searched and each progress offset
// (which `on_progress_hook`, when set, hears too) apart. For comparing two ways of searching.
class CallRecorder final : public engine::LineSink {
 public:
  std::vector<std::string> seen;
  std::vector<std::size_t> progress;
  std::uint64_t searched = ~std::uint64_t{0};
  bool record_buffers = true;
  std::function<void(std::size_t)> on_progress_hook;
  std::string_view hay;  // valid during the search only
  // A progress offset outside the haystack, if one came.
  std::optional<std::size_t> bad_progress;

  engine::Flow on_line(std::uint64_t n, std::uint64_t offset, std::string_view line) override {
    seen.push_back(std::to_string(n) + ":" + std::to_string(offset) + ":" + std::string(line));
    return engine::Flow::kContinue;
  }
  engine::Flow on_context(std::uint64_t n, std::uint64_t offset, std::string_view line) override {
    seen.push_back(std::to_string(n) + "-" + std::to_string(offset) + "-" + std::string(line));
    return engine::Flow::kContinue;
  }
  void on_context_break() override { seen.emplace_back("--"); }
  void on_binary(std::uint64_t offset, bool matched) override {
    seen.push_back("binary@" + std::to_string(offset) + (matched ? "+" : ""));
  }
  void on_buffer(std::size_t start) override {
    if (record_buffers) seen.push_back("buffer@" + std::to_string(start));
  }
  void on_haystack(std::string_view h) override { hay = h; }
  void on_progress(std::size_t offset) override {
    progress.push_back(offset);
    if (offset == 0 || offset > hay.size()) bad_progress = offset;
    if (on_progress_hook) on_progress_hook(offset);
  }
  void on_finish(std::uint64_t bytes) override { searched = bytes; }
};

}  // namespace ctx::testing
