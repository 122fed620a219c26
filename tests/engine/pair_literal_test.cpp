// PairLiteral: the matcher PatternSet uses instead of Hyperscan's for a set of one literal. Its
// 16- and 32-byte scans against a brute-force search (every occurrence, overlapping ones too, by
// start), on random literals and haystacks over a small alphabet (so that the keyed bytes occur
// often and occurrences overlap), with -i, non-ASCII bytes, lengths around the vector widths, and
// callbacks that stop the scan; then which bytes it keys on; then PatternSet's answers for one
// literal against those for the same literal beside one that never occurs (Hyperscan's path).
#include "../../engine/src/pair_literal.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "line_starts.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::engine::detail::PairLiteral;
using ctx::testing::compile_ok;
using ctx::testing::line_starts;
using ctx::testing::span_pairs;

struct Collect {
  std::size_t size = 0;  // the literal's
  std::vector<std::size_t> starts;
  std::size_t stop_after = SIZE_MAX;  // nonzero return after this many reports
  bool skips = false;                 // raises useless_below (see skip_after)
  std::size_t useless_below = 0;
};

// Where a test's on_match raises useless_below after an occurrence at `start` (of `size` bytes):
// past the occurrence by 0 to 96 bytes at every third start, else nowhere.
std::size_t skip_after(std::size_t start, std::size_t size) {
  return start % 3 == 0 ? start + size + (start * 7919) % 97 : 0;
}

int on_match(unsigned id, unsigned long long from, unsigned long long to, unsigned flags,
             void* raw) {
  auto* c = static_cast<Collect*>(raw);
  CHECK(id == 0);
  CHECK(from == 0);
  CHECK(flags == 0);
  REQUIRE(to >= c->size);
  const std::size_t start = static_cast<std::size_t>(to) - c->size;
  c->starts.push_back(start);
  if (c->skips) c->useless_below = std::max(c->useless_below, skip_after(start, c->size));
  return c->starts.size() >= c->stop_after ? 1 : 0;
}

enum class Width { k16, k32 };

std::vector<std::size_t> scan(const PairLiteral& m, std::size_t size, std::string_view hay,
                              Width width, std::size_t stop_after = SIZE_MAX, bool skips = false) {
  Collect c{size, {}, stop_after, skips, 0};
  const std::size_t* useless = skips ? &c.useless_below : nullptr;
  const bool stopped = width == Width::k16 ? m.scan_sse2(hay, on_match, &c, useless)
                                           : m.scan_avx2(hay, on_match, &c, useless);
  CHECK(stopped == (c.starts.size() >= stop_after));
  return c.starts;
}

// Every start of `literal` in `hay` (ASCII case folding only, as HS_FLAG_CASELESS).
std::vector<std::size_t> brute_force(std::string_view literal, std::string_view hay,
                                     bool caseless) {
  std::vector<std::size_t> out;
  for (std::size_t at = 0; at + literal.size() <= hay.size(); ++at) {
    bool equal = true;
    for (std::size_t i = 0; equal && i < literal.size(); ++i) {
      const auto a = static_cast<unsigned char>(hay[at + i]);
      const auto b = static_cast<unsigned char>(literal[i]);
      equal = a == b || (caseless && std::tolower(a) == std::tolower(b));
    }
    if (equal) out.push_back(at);
  }
  return out;
}

// What scan with skips reports of `all` (every occurrence, by start): those whose last byte lies
// at or past the useless_below that the reports before them raised.
std::vector<std::size_t> with_skips(const std::vector<std::size_t>& all, std::size_t size) {
  std::vector<std::size_t> out;
  std::size_t useless_below = 0;
  for (const std::size_t start : all) {
    if (start + size - 1 < useless_below) continue;
    out.push_back(start);
    useless_below = std::max(useless_below, skip_after(start, size));
  }
  return out;
}

// Bytes that collide under careless folding: '@' and '`' differ from each other by the bit that
// lower-casing sets, as 'A' and 'a' do; 0xC1 and 0xE1 likewise above ASCII.
std::string random_text(std::mt19937& rng, std::size_t length) {
  constexpr std::string_view kUnits = "abABzZ_@`\n\xC1\xE1";
  std::string out;
  for (std::size_t i = 0; i < length; ++i) {
    out += kUnits[std::uniform_int_distribution<std::size_t>(0, kUnits.size() - 1)(rng)];
  }
  return out;
}

bool cpu_has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}

TEST_CASE("PairLiteral reports every occurrence as a brute-force search does", "[pair]") {
  std::mt19937 rng(20261124);
  auto below = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  std::vector<Width> widths = {Width::k16};
  if (cpu_has_avx2()) widths.push_back(Width::k32);
  for (int round = 0; round < 3000; ++round) {
    const bool caseless = below(2) == 0;
    const std::string literal = random_text(rng, 1 + below(round % 10 == 0 ? 40 : 6));
    // Lengths around the vector widths (16, 32, 64 starts) and longer.
    const std::size_t length = round % 4 == 0 ? below(300) : literal.size() + below(130);
    std::string hay = random_text(rng, length);
    // Plant copies, some overlapping, some at the very end.
    for (std::size_t k = below(4); k > 0 && hay.size() >= literal.size(); --k) {
      hay.replace(below(hay.size() - literal.size() + 1), literal.size(), literal);
    }
    if (below(3) == 0 && hay.size() >= literal.size()) {
      hay.replace(hay.size() - literal.size(), literal.size(), literal);
    }
    const PairLiteral m(literal, caseless);
    const std::vector<std::size_t> want = brute_force(literal, hay, caseless);
    for (const Width width : widths) {
      INFO("literal " << literal << " caseless " << caseless << " hay " << hay << " width "
                      << (width == Width::k16 ? 16 : 32));
      REQUIRE(scan(m, literal.size(), hay, width) == want);
      // On_match skipping occurrences (the rest of a line decided): exactly those are left out.
      REQUIRE(scan(m, literal.size(), hay, width, SIZE_MAX, true) ==
              with_skips(want, literal.size()));
      if (!want.empty()) {  // a callback that stops: the scan ends there
        const std::size_t stop = 1 + below(want.size());
        const std::vector<std::size_t> got = scan(m, literal.size(), hay, width, stop);
        REQUIRE(got == std::vector<std::size_t>(want.begin(),
                                                want.begin() + static_cast<std::ptrdiff_t>(stop)));
      }
    }
  }
}

TEST_CASE("PairLiteral keys on the literal's two rarest bytes", "[pair]") {
  // q is rare in source code, s and t are not: `statiq` keys on q and one other byte.
  const PairLiteral statiq("statiq", false);
  CHECK(statiq.second_offset() == 5);
  CHECK(statiq.first_offset() < 5);
  // Equal bytes: the first two offsets that are not adjacent.
  const PairLiteral same("aaaa", false);
  CHECK(same.first_offset() == 0);
  CHECK(same.second_offset() == 2);
  // o and n are the rarest bytes of `session`, but next to each other (`on` is on 2.2M of 13M
  // lines of C): s and o instead.
  const PairLiteral session("session", false);
  CHECK(session.first_offset() == 0);
  CHECK(session.second_offset() == 5);
  // The 32-byte scan's third byte: the rarest other one (n).
  CHECK(session.third_offset() == 6);
  // One byte: it, twice.
  const PairLiteral one("x", false);
  CHECK(one.first_offset() == 0);
  CHECK(one.second_offset() == 0);
  // Two bytes: both.
  const PairLiteral two("Zq", true);
  CHECK(two.first_offset() == 0);
  CHECK(two.second_offset() == 1);
  CHECK(two.third_offset() == 0);
}

TEST_CASE("A set of one literal finds what Hyperscan's literal path finds", "[pair]") {
  std::mt19937 rng(7);
  auto below = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  for (int round = 0; round < 300; ++round) {
    PatternOptions o;
    o.case_insensitive = below(2) == 0;
    o.word = below(4) == 0;
    o.line = !o.word && below(5) == 0;
    o.fixed_strings = true;  // the alphabet's bytes are literal under -F only (`@` aside, `\n`)
    std::string literal = random_text(rng, 1 + below(6));
    // A pattern must be valid UTF-8 (the haystack need not be).
    std::erase_if(literal,
                  [](char c) { return c == '\n' || static_cast<unsigned char>(c) >= 0x80; });
    if (literal.empty()) continue;
    std::string hay = random_text(rng, below(400));
    for (std::size_t k = below(5); k > 0 && hay.size() >= literal.size(); --k) {
      hay.replace(below(hay.size() - literal.size() + 1), literal.size(), literal);
    }
    if (below(4) == 0) hay += "\n" + literal;  // a last line that is the literal, without a LF
    const PatternSet one = compile_ok({literal}, o);
    // Beside a literal that never occurs (its bytes are absent from the alphabet), the set goes
    // to Hyperscan's literal API.
    const PatternSet two = compile_ok({literal, "#%#"}, o);
    INFO("literal " << literal << " hay " << hay << " -i " << o.case_insensitive << " -w " << o.word
                    << " -x " << o.line);
    const std::vector<std::size_t> lines = line_starts(one, hay);
    REQUIRE(lines == line_starts(two, hay));
    PatternSet::Scratch s1 = one.make_scratch(), s2 = two.make_scratch();
    for (const std::size_t start : lines) {
      const std::size_t end = std::min(hay.find('\n', start), hay.size());
      const std::string_view line = std::string_view(hay).substr(start, end - start);
      CHECK(span_pairs(one, line, s1) == span_pairs(two, line, s2));
    }
  }
}

}  // namespace
