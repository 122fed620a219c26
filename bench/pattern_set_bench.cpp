// Matcher throughput (bytes/s) of search_buffer over in-memory C/C++-like text, per query shape,
// through the Hyperscan path (default: Hyperscan decides literals, prefilters regexes, PCRE2
// confirms) and the PCRE2-only path (PatternOptions::pcre2, PCRE2 JIT scans alone). Every run
// counts the matching lines with a LineSink; the `lines` counter lets the two paths be compared.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "ctx/engine/searcher.hpp"

namespace {

using ctx::engine::Flow;
using ctx::engine::LineSink;
using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::engine::SearchOptions;

constexpr std::size_t kMaxBytes = std::size_t{64} << 20;
constexpr std::size_t kVocabularySize = 8000;
constexpr std::size_t kLiteralSetSize = 1000;
constexpr std::size_t kMaxDepth = 6;

// Deterministic xorshift64*: the same text on every machine and run.
class Rng {
 public:
  std::uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1DULL;
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_ = 0x9E3779B97F4A7C15ULL;
};

constexpr std::array<std::string_view, 40> kParts = {
    "get",    "set",   "make",  "read",   "write",  "parse",  "find", "scan", "load",  "store",
    "buffer", "index", "table", "column", "vector", "string", "node", "tree", "entry", "state",
    "value",  "count", "size",  "range",  "chunk",  "block",  "page", "file", "path",  "name",
    "type",   "expr",  "bind",  "plan",   "query",  "result", "hash", "join", "sort",  "filter"};

std::string capitalized(std::string_view s) {
  std::string out(s);
  out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c - 'a' + 'A');
  return out;
}

// 8,000 distinct identifiers in the five spellings C++ code mixes: snake_case, PascalCase,
// camelCase, kConstant, MACRO_CASE.
const std::vector<std::string>& vocabulary() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> out;
    out.reserve(kVocabularySize);
    for (std::size_t i = 0; i < kVocabularySize; ++i) {
      std::string_view a = kParts[i % kParts.size()];
      std::string_view b = kParts[(i / kParts.size()) % kParts.size()];
      switch (i / (kParts.size() * kParts.size())) {
        case 0:
          out.push_back(std::string(a) + "_" + std::string(b));
          break;
        case 1:
          out.push_back(capitalized(a) + capitalized(b));
          break;
        case 2:
          out.push_back(std::string(a) + capitalized(b));
          break;
        case 3:
          out.push_back("k" + capitalized(a) + capitalized(b));
          break;
        default:
          out.push_back(upper(a) + "_" + upper(b));
          break;
      }
    }
    return out;
  }();
  return words;
}

// ~64 MiB of C++-like source: declarations, calls, control flow, comments, includes, blank lines
// and, on 1% of lines, `throw XxxException(...)`. Identifiers are skewed towards the low indices of
// the vocabulary (min of two uniform draws), so a few are common and most are rare.
const std::string& corpus() {
  static const std::string text = [] {
    constexpr std::array<std::string_view, 8> kTypes = {
        "int", "idx_t", "Status", "std::string", "Value", "LogicalType", "bool", "uint64_t"};
    constexpr std::array<std::string_view, 6> kExceptions = {
        "InternalException", "NotImplementedException", "ParserException", "BinderException",
        "IOException",       "OutOfRangeException"};
    constexpr std::array<std::string_view, 12> kWords = {"the",   "value", "of",      "this",
                                                         "is",    "not",   "checked", "here",
                                                         "until", "after", "the",     "next"};
    const std::vector<std::string>& vocab = vocabulary();
    Rng rng;
    auto ident = [&]() -> const std::string& {
      return vocab[std::min(rng.below(vocab.size()), rng.below(vocab.size()))];
    };
    auto type = [&] { return kTypes[rng.below(kTypes.size())]; };
    std::string out;
    out.reserve(kMaxBytes + 4096);
    std::size_t depth = 1;  // a random walk between 1 and kMaxDepth: blocks open and close
    while (out.size() < kMaxBytes) {
      std::string line(2 * depth, ' ');
      const std::size_t kind = rng.below(100);
      const bool can_open = depth < kMaxDepth;
      if (kind < 20) {
        line += std::string(type()) + " " + ident() + " = " + ident() + "(" + ident() + ", " +
                std::to_string(rng.below(4096)) + ");";
      } else if (kind < 28 && can_open) {
        line += "if (" + ident() + "->" + ident() + "() != " + ident() + ") {";
        ++depth;
      } else if (kind < 42 && depth > 1) {
        line.resize(2 * --depth);
        line += "}";
      } else if (kind < 50) {
        line += "return " + ident() + "::" + ident() + "(" + ident() + ");";
      } else if (kind < 58) {
        line.clear();
      } else if (kind < 66) {
        line += "//";
        for (std::size_t n = 2 + rng.below(8); n > 0; --n) {
          line += " ";
          line += rng.below(3) == 0 ? std::string_view(ident()) : kWords[rng.below(kWords.size())];
        }
      } else if (kind < 70) {
        line = "#include \"" + ident() + "/" + ident() + ".hpp\"";
      } else if (kind < 74 && can_open) {
        line += "for (idx_t i = 0; i < " + ident() + ".size(); i++) {";
        ++depth;
      } else if (kind < 76 && can_open) {
        line += "static " + std::string(type()) + " " + capitalized(ident()) + "(const " +
                std::string(type()) + "& " + ident() + ", idx_t " + ident() + ") {";
        ++depth;
      } else if (kind == 99) {
        line += "throw " + std::string(kExceptions[rng.below(kExceptions.size())]) + "(\"" +
                ident() + " is not supported\");";
      } else {
        line += ident() + "." + ident() + "(" + ident() + ");";
      }
      out += line;
      out += '\n';
    }
    return out;
  }();
  return text;
}

// The first `bytes` of the corpus, cut after the last whole line.
std::string_view haystack(std::size_t bytes) {
  std::string_view all = corpus();
  std::string_view head = all.substr(0, std::min(bytes, all.size()));
  std::size_t cut = head.rfind('\n');
  return cut == std::string_view::npos ? head : head.substr(0, cut + 1);
}

class CountingSink final : public LineSink {
 public:
  Flow on_line(std::uint64_t, std::uint64_t, std::string_view) override {
    ++lines_;
    return Flow::kContinue;
  }
  Flow on_context(std::uint64_t, std::uint64_t, std::string_view) override {
    return Flow::kContinue;
  }
  void on_context_break() override {}
  void on_binary(std::uint64_t, bool) override {}
  std::uint64_t lines() const { return lines_; }

 private:
  std::uint64_t lines_ = 0;
};

enum class Query {
  kLiteral,          // NotImplementedException
  kLiteralCaseless,  // -i notimplementedexception
  kAlternation4,     // 4 exception names, one regex with |
  kManyLiterals,     // 1,000 identifiers, one pattern each (like -f FILE)
  kWordThenLiteral,  // \w+\s+Status
  kNoLiteral,        // \w{5}\s+\w{5}
};

enum class Path { kHyperscan, kPcre2Only };

std::vector<std::string> patterns_of(Query query) {
  switch (query) {
    case Query::kLiteral:
      return {"NotImplementedException"};
    case Query::kLiteralCaseless:
      return {"notimplementedexception"};
    case Query::kAlternation4:
      return {"InternalException|NotImplementedException|ParserException|BinderException"};
    case Query::kManyLiterals: {
      // Every 8th identifier: common and rare ones alike, all of them in the text.
      std::vector<std::string> out;
      const std::vector<std::string>& vocab = vocabulary();
      for (std::size_t i = 0; i < kLiteralSetSize; ++i) {
        out.push_back(vocab[i * (vocab.size() / kLiteralSetSize)]);
      }
      return out;
    }
    case Query::kWordThenLiteral:
      return {R"(\w+\s+Status)"};
    case Query::kNoLiteral:
      return {R"(\w{5}\s+\w{5})"};
  }
  return {};
}

void BM_Match(benchmark::State& state, Query query, Path path) {
  PatternOptions options;
  options.case_insensitive = query == Query::kLiteralCaseless;
  options.pcre2 = path == Path::kPcre2Only;
  auto patterns = PatternSet::compile(patterns_of(query), options);
  if (!patterns.ok()) {
    state.SkipWithError(patterns.error().detail.c_str());
    return;
  }
  PatternSet::Scratch scratch = patterns->make_scratch();
  const std::string_view hay = haystack(static_cast<std::size_t>(state.range(0)));
  const SearchOptions search;
  std::uint64_t lines = 0;
  for (auto _ : state) {
    CountingSink sink;
    auto reported = ctx::engine::search_buffer(*patterns, scratch, search, hay, sink);
    if (!reported.ok()) {
      state.SkipWithError(reported.error().detail.c_str());
      return;
    }
    lines = sink.lines();
    benchmark::DoNotOptimize(lines);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(hay.size()));
  state.counters["lines"] = static_cast<double>(lines);
  state.counters["exact"] = patterns->hyperscan_exact() ? 1 : 0;
}

// 64 KiB, 1 MiB, 16 MiB, 64 MiB.
void sizes(benchmark::internal::Benchmark* b) {
  b->RangeMultiplier(16)->Range(64 << 10, 64 << 20)->Unit(benchmark::kMillisecond);
}

// 64 KiB and 1 MiB only: PCRE2 tries a 1,000-way alternation branch by branch at each candidate
// position (well under 1 MB/s), so 64 MiB would take minutes per iteration.
void small_sizes(benchmark::internal::Benchmark* b) {
  b->RangeMultiplier(16)->Range(64 << 10, 1 << 20)->Unit(benchmark::kMillisecond);
}

constexpr std::array<std::pair<std::string_view, Query>, 6> kQueries = {{
    {"literal", Query::kLiteral},
    {"literal_i", Query::kLiteralCaseless},
    {"alt4", Query::kAlternation4},
    {"lit1000", Query::kManyLiterals},
    {"word_status", Query::kWordThenLiteral},
    {"no_literal", Query::kNoLiteral},
}};

// BM_Match/<query>/<hyperscan|pcre2>/<bytes>, each query through both paths.
[[maybe_unused]] const bool kRegistered = [] {
  for (const auto& [name, query] : kQueries) {
    for (Path path : {Path::kHyperscan, Path::kPcre2Only}) {
      const bool pcre2 = path == Path::kPcre2Only;
      std::string full = "BM_Match/" + std::string(name) + (pcre2 ? "/pcre2" : "/hyperscan");
      auto* bench = benchmark::RegisterBenchmark(full.c_str(), BM_Match, query, path);
      bench->Apply(pcre2 && query == Query::kManyLiterals ? small_sizes : sizes);
    }
  }
  return true;
}();

}  // namespace
