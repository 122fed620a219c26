// HashedLiterals: the matcher PatternSet uses instead of Hyperscan's literal API for big literal
// sets (detail::kHashedLiteralsMin pieces or more). First the matcher alone against a brute-force
// search (every occurrence of every literal, by start), on random sets over a small alphabet so
// that literals overlap, are prefixes of one another and repeat, with -i and non-ASCII bytes;
// then PatternSets of thousands of literals (the hashed matcher) against PatternSets of the
// literals that occur in each line (few: Hyperscan's literal path), under -i, -w, -x, -F.
#include "../../engine/src/hashed_literals.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "line_starts.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::engine::detail::HashedLiterals;
using ctx::engine::detail::kHashedLiteralsMin;
using ctx::testing::compile_ok;
using ctx::testing::kKelvin;
using ctx::testing::kLongS;
using ctx::testing::line_starts;
using ctx::testing::span_pairs;

// (start, id) of each report, in report order.
using Hits = std::vector<std::pair<std::size_t, std::uint32_t>>;

struct Collect {
  const std::vector<std::string>* literals;
  Hits hits;
  std::size_t stop_after = SIZE_MAX;  // nonzero return after this many reports
};

int on_match(unsigned id, unsigned long long from, unsigned long long to, unsigned flags,
             void* raw) {
  auto* c = static_cast<Collect*>(raw);
  CHECK(from == 0);
  CHECK(flags == 0);
  const std::size_t size = (*c->literals)[id].size();
  REQUIRE(to >= size);
  c->hits.emplace_back(static_cast<std::size_t>(to) - size, id);
  return c->hits.size() >= c->stop_after ? 1 : 0;
}

Hits scan(const HashedLiterals& m, const std::vector<std::string>& literals, std::string_view hay,
          std::size_t stop_after = SIZE_MAX) {
  Collect c{&literals, {}, stop_after};
  const bool stopped = m.scan(hay, on_match, &c);
  CHECK(stopped == (c.hits.size() >= stop_after));
  return c.hits;
}

bool same_byte(char a, char b, bool caseless) {
  return a == b || (caseless && std::tolower(static_cast<unsigned char>(a)) ==
                                    std::tolower(static_cast<unsigned char>(b)));
}

// Every occurrence of every literal, by start then id (ASCII case folding only, as
// HS_FLAG_CASELESS).
Hits brute_force(const std::vector<std::string>& literals, std::string_view hay, bool caseless) {
  Hits out;
  for (std::size_t at = 0; at < hay.size(); ++at) {
    for (std::size_t id = 0; id < literals.size(); ++id) {
      const std::string& l = literals[id];
      if (at + l.size() > hay.size()) continue;
      bool equal = true;
      for (std::size_t i = 0; equal && i < l.size(); ++i) {
        equal = same_byte(hay[at + i], l[i], caseless);
      }
      if (equal) out.emplace_back(at, static_cast<std::uint32_t>(id));
    }
  }
  return out;
}

// A random string of `length` units over a small alphabet: letters in both cases, '_', '@' and
// '`' (which differ from each other by the bit that case folding sets), a line feed, and
// non-ASCII bytes (U+212A's and U+017F's, lone).
std::string random_text(std::mt19937& rng, std::size_t length) {
  static const std::vector<std::string> kUnits = {
      "a", "b", "A", "B", "k", "K", "s", "S", "_", "@", "`", "\n", "\xE2", "\x84", "\xAA", "\xC5"};
  std::string out;
  for (std::size_t i = 0; i < length; ++i) {
    out += kUnits[std::uniform_int_distribution<std::size_t>(0, kUnits.size() - 1)(rng)];
  }
  return out;
}

// PatternSet over `literals` (the hashed matcher decides them: `uses_hashed` holds) against,
// line by line, PatternSets of the literals occurring in the line (fewer than `subset_max`:
// Hyperscan's literal path), under -i, -w, -x, -F; on lines of up to 5 of the literals, case
// changed, U+212A and U+017F for k and s, neighbours that are or are not word characters.
void check_against_line_subsets(const std::vector<std::string>& literals, std::size_t subset_max,
                                std::mt19937& rng) {
  auto below = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  const std::size_t count = literals.size();
  std::string hay;
  for (int line = 0; line < 80; ++line) {
    if (line % 9 == 0) {  // a line that is a literal, for -x
      hay += literals[below(count)] + "\n";
      continue;
    }
    const std::size_t words = below(6);
    for (std::size_t w = 0; w < words; ++w) {
      std::string word = literals[below(count)];
      for (char& ch : word) {
        if (below(6) == 0) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      }
      std::string out = ctx::testing::with_fold_variants(word, below);
      const std::size_t glue = below(8);  // neighbours that are or are not word characters
      if (glue == 0) out = "q" + out;
      if (glue == 1) out = "\xC3\xA9" + out;  // é: a word character
      if (glue == 2) out += "\xE2\x80\x94";   // an em dash: not one
      if (glue == 3) out += "\xFF";           // invalid UTF-8
      hay += out + (below(3) == 0 ? "." : " ");
    }
    hay += "\n";
  }
  struct Variant {
    const char* name;
    PatternOptions options;
  };
  std::vector<Variant> variants;
  PatternOptions o;
  variants.push_back({"plain", o});
  o.case_insensitive = true;
  variants.push_back({"-i", o});
  o.word = true;
  variants.push_back({"-i -w", o});
  o.case_insensitive = false;
  variants.push_back({"-w", o});
  o = {};
  o.line = true;
  variants.push_back({"-x", o});
  o.case_insensitive = true;
  o.fixed_strings = true;
  variants.push_back({"-F -i -x", o});
  std::size_t matched_lines = 0;
  for (const Variant& v : variants) {
    INFO("variant " << v.name);
    const bool caseless = v.options.case_insensitive;
    PatternSet big = compile_ok(literals, v.options);
    PatternSet::Scratch scratch = big.make_scratch();
    std::vector<std::size_t> expected_lines;
    for (std::size_t start = 0; start < hay.size();) {
      const std::size_t end = hay.find('\n', start);
      const std::string line = hay.substr(start, end - start);
      INFO("line " << start << ": " << line);
      // The literals that occur in the line (folded: U+212A and U+017F as k and s), in order.
      std::string text;
      for (std::size_t i = 0; i < line.size(); ++i) {
        if (caseless && line.compare(i, kKelvin.size(), kKelvin) == 0) {
          text += 'k';
          i += kKelvin.size() - 1;
        } else if (caseless && line.compare(i, kLongS.size(), kLongS) == 0) {
          text += 's';
          i += kLongS.size() - 1;
        } else {
          const auto b = static_cast<unsigned char>(line[i]);
          text += caseless ? static_cast<char>(std::tolower(b)) : line[i];
        }
      }
      std::vector<std::string> subset;
      for (const std::string& l : literals) {
        std::string key = l;
        if (caseless) {
          for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        }
        if (text.find(key) != std::string::npos) subset.push_back(l);
      }
      REQUIRE(subset.size() < subset_max);
      std::vector<std::pair<std::size_t, std::size_t>> expected;
      if (!subset.empty()) {
        PatternSet reference = compile_ok(subset, v.options);
        PatternSet::Scratch reference_scratch = reference.make_scratch();
        expected = span_pairs(reference, line, reference_scratch);
      }
      CHECK(span_pairs(big, line, scratch) == expected);
      if (!expected.empty()) expected_lines.push_back(start);
      start = end + 1;
    }
    CHECK(line_starts(big, hay) == expected_lines);
    matched_lines += expected_lines.size();
  }
  CHECK(matched_lines > 150);
}

}  // namespace

TEST_CASE("the hashed matcher reports every occurrence of every literal, by start",
          "[engine][hashed_literals]") {
  std::mt19937 rng(20261123);
  auto below = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  std::size_t total_hits = 0;
  for (int round = 0; round < 400; ++round) {
    const bool caseless = round % 2 == 1;
    const std::size_t count = std::vector<std::size_t>{1, 3, 20, 200}[below(4)];
    std::vector<std::string> literals;
    for (std::size_t i = 0; i < count; ++i) {
      if (i > 0 && below(5) == 0) {  // a prefix of, or the same as, an earlier literal
        const std::string& earlier = literals[below(i)];
        literals.push_back(earlier.substr(0, 1 + below(earlier.size())));
      } else {
        literals.push_back(random_text(rng, 1 + below(below(3) == 0 ? 3 : 12)));
      }
    }
    std::vector<std::string_view> views(literals.begin(), literals.end());
    const HashedLiterals matcher(views, caseless);
    for (int h = 0; h < 5; ++h) {
      std::string hay = random_text(rng, below(200));
      if (h == 0 && !hay.empty()) {  // occurrences at both ends, cut by the end
        hay = literals[below(count)] + hay + literals[below(count)];
        hay.pop_back();
      }
      INFO("round " << round << " caseless " << caseless << " hay " << hay);
      const Hits got = scan(matcher, literals, hay);
      for (std::size_t i = 1; i < got.size(); ++i) CHECK(got[i - 1].first <= got[i].first);
      Hits sorted = got;
      std::sort(sorted.begin(), sorted.end());
      CHECK(sorted == brute_force(literals, hay, caseless));
      total_hits += got.size();
    }
  }
  CHECK(total_hits > 1000);  // the random sets do occur
}

TEST_CASE("the sampling hashed matcher reports every occurrence of literals of 7+ bytes, by start",
          "[engine][hashed_literals]") {
  // Every shortest length from 7 (step 3) to 20 (step 8, the first 15 bytes sampled), sets of
  // a few to hundreds over a small alphabet (overlaps, prefixes, repeats), haystacks short and
  // long enough for whole blocks of 64 samples, occurrences cut by either end.
  std::mt19937 rng(20261124);
  auto below = [&](std::size_t n) {
    return std::uint_fast32_t(std::uniform_int_distribution<std::size_t>(0, n - 1)(rng));
  };
  std::size_t total_hits = 0;
  std::vector<unsigned> steps_seen(9, 0);
  for (int round = 0; round < 600; ++round) {
    const bool caseless = round % 2 == 1;
    const std::size_t shortest = 7 + below(14);
    const std::size_t count = std::vector<std::size_t>{1, 2, 30, 300}[below(4)];
    std::vector<std::string> literals;
    for (std::size_t i = 0; i < count; ++i) {
      if (i > 0 && below(4) == 0) {  // a prefix of, or the same as, an earlier literal
        const std::string& earlier = literals[below(i)];
        literals.push_back(earlier.substr(0, shortest + below(earlier.size() - shortest + 1)));
      } else {
        literals.push_back(random_text(rng, shortest + below(below(2) == 0 ? 3 : 20)));
      }
    }
    std::vector<std::string_view> views(literals.begin(), literals.end());
    const HashedLiterals matcher(views, caseless);
    const unsigned step = matcher.sample_step();
    REQUIRE(step >= 3);
    ++steps_seen[step];
    for (int h = 0; h < 4; ++h) {
      std::string hay = random_text(rng, below(h == 3 ? 3000 : 300));
      if (h >= 2) {  // literals spliced in everywhere, case changed under -i
        for (std::size_t at = below(40); at < hay.size() && hay.size() < 8000;) {
          std::string l = literals[below(count)];
          if (caseless) {
            for (char& c : l) {
              if (below(2) == 0) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            }
          }
          hay.insert(at, l);
          at += 1 + below(l.size() + 60);  // inside it (cutting it), next to it, or further on
        }
      }
      if (h % 2 == 0 && !hay.empty()) {  // occurrences at both ends, the last cut by the end
        hay = literals[below(count)] + hay + literals[below(count)];
        hay.pop_back();
      }
      INFO("round " << round << " caseless " << caseless << " step " << step << " hay " << hay);
      const Hits got = scan(matcher, literals, hay);
      for (std::size_t i = 1; i < got.size(); ++i) CHECK(got[i - 1].first <= got[i].first);
      Hits sorted = got;
      std::sort(sorted.begin(), sorted.end());
      CHECK(sorted == brute_force(literals, hay, caseless));
      total_hits += got.size();
    }
  }
  CHECK(total_hits > 3000);
  for (unsigned step = 3; step <= 8; ++step) CHECK(steps_seen[step] > 0);
}

TEST_CASE("the hashed matcher samples only when every literal has 7 bytes or more",
          "[engine][hashed_literals]") {
  auto step_of = [](std::vector<std::string_view> literals) {
    return HashedLiterals(literals, false).sample_step();
  };
  CHECK(step_of({"abcdefg", "abcdefghij"}) == 3);
  CHECK(step_of({"abcdef", "abcdefghij"}) == 0);
  CHECK(step_of({"abcdefgh", "abcdefghij"}) == 4);
  CHECK(step_of({"abcdefghijkl", "abcdefghijklmnopq"}) == 8);
  CHECK(step_of({"abcde", "abcdefghij"}) == 0);
  CHECK(step_of({"abcdefgh", "ab"}) == 0);
  // Sampled or not, the same reports.
  const std::vector<std::string> literals = {"abcdefgh", "cdefghij", "bcdefghijk"};
  const std::vector<std::string_view> views(literals.begin(), literals.end());
  const HashedLiterals matcher(views, false);
  CHECK(matcher.sample_step() == 4);
  CHECK(scan(matcher, literals, "xabcdefghijk") == Hits{{1, 0}, {2, 2}, {3, 1}});
  CHECK(scan(matcher, literals, "abcdefghijk", 2) == Hits{{0, 0}, {1, 2}});
}

TEST_CASE("the hashed matcher stops when the callback says so", "[engine][hashed_literals]") {
  const std::vector<std::string> literals = {"ab", "abcdefgh", "bcde", "x"};
  const std::vector<std::string_view> views(literals.begin(), literals.end());
  const HashedLiterals matcher(views, false);
  const std::string hay = "xabcdefghx";
  CHECK(scan(matcher, literals, hay).size() == 5);
  CHECK(scan(matcher, literals, hay, 1) == Hits{{0, 3}});
  Hits three = scan(matcher, literals, hay, 3);  // x, and ab and abcdefgh (both start at 1)
  std::sort(three.begin(), three.end());
  CHECK(three == Hits{{0, 3}, {1, 0}, {1, 1}});
}

TEST_CASE("the hashed matcher finds literals that share long prefixes, case folded",
          "[engine][hashed_literals]") {
  // 5,000 literals share their first 8 bytes: one bucket holds them all; each is still found.
  std::vector<std::string> literals;
  for (int i = 0; i < 5000; ++i) literals.push_back("get_user" + std::to_string(i));
  literals.emplace_back("GET_");
  const std::vector<std::string_view> views(literals.begin(), literals.end());
  const HashedLiterals matcher(views, true);
  Hits got = scan(matcher, literals, "Get_User4999 get_user");
  std::sort(got.begin(), got.end());
  CHECK(got == Hits{{0, 4}, {0, 49}, {0, 499}, {0, 4999}, {0, 5000}, {13, 5000}});
  CHECK(matcher.memory_bytes() < 1000000);
}

TEST_CASE("thousands of literals find what the literals occurring in each line find",
          "[engine][hashed_literals][many]") {
  std::mt19937 rng(7);
  auto below = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  // Identifiers over letters with k and s (pieces under -i), some prefixes of others, a few of
  // 1-3 bytes, all distinct from one another in length or content only by chance.
  const std::string letters = "abeKkSsxz_";
  std::vector<std::string> literals;
  const std::size_t count = kHashedLiteralsMin + 500;
  for (std::size_t i = 0; i < count; ++i) {
    std::string id;
    if (i % 50 == 3 && i > 0) {
      id = literals[i - 1].substr(0, 1 + below(literals[i - 1].size()));
    } else {
      const std::size_t length = i % 400 == 9 ? 1 + below(3) : 3 + below(6);
      for (std::size_t k = 0; k < length; ++k) id += letters[below(letters.size())];
      if (i % 3 != 0) id += std::to_string(i % 797);
    }
    literals.push_back(id);
  }
  check_against_line_subsets(literals, kHashedLiteralsMin, rng);
}

TEST_CASE("hundreds of literals of 7+ bytes (sampled) find what the literals in each line find",
          "[engine][hashed_literals]") {
  std::mt19937 rng(11);
  auto below = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  // Identifiers of 7-20 bytes over letters with k and s, some prefixes of others (7+ bytes).
  const std::string letters = "abeKkSsxz_";
  std::vector<std::string> literals;
  for (std::size_t i = 0; i < 300; ++i) {
    std::string id;
    if (i % 10 == 3) {
      id = literals[i - 1].substr(0, 7 + below(literals[i - 1].size() - 6));
    } else {
      const std::size_t length = 4 + below(14);
      for (std::size_t k = 0; k < length; ++k) id += letters[below(letters.size())];
      id += std::to_string(100 + i);
    }
    literals.push_back(id);
  }
  std::vector<std::string_view> views(literals.begin(), literals.end());
  REQUIRE(ctx::engine::detail::prefer_hashed_literals(literals.size(), 7));
  REQUIRE(HashedLiterals(views, false).sample_step() == 3);
  check_against_line_subsets(literals, ctx::engine::detail::kSampledLiteralsMin, rng);
}
