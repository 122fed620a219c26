#include "required_literals.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <utility>

#include "rust_hir.hpp"

namespace ctx::engine::detail {
namespace {

// How often each byte occurs, in parts per million: measured on 465 MB of text files (2 MB and
// under, no NUL in their first 8 KiB) of 11 open-source C, C++ and Go trees (arrow, CMake, curl,
// duckdb, git, httpd, nginx, redis, rocksdb, tmux, vim); 1 for bytes seen less often.
constexpr std::array<std::uint32_t, 256> kBytePpm = {
    1,      1,     1,     1,     1,     1,     1,     1,
    1,      8043,  28781, 1,     1,     216,   1,     1,  // 0x0
    1,      1,     1,     1,     1,     1,     1,     1,
    1,      1,     1,     3,     1,     1,     1,     1,  // 0x10
    152744, 693,   10644, 3120,  982,   896,   2462,  3223,
    8945,   8981,  4673,  1464,  12579, 9622,  8803,  7439,  // 0x20
    13194,  7835,  5955,  4202,  3883,  3573,  3110,  2526,
    2815,   2697,  6667,  5553,  4579,  5893,  5965,  307,  // 0x30
    586,    6151,  2317,  5113,  3638,  7933,  2664,  1989,
    1566,   4903,  292,   1029,  5277,  2806,  4812,  4309,  // 0x40
    3409,   387,   5583,  6381,  6926,  2881,  1155,  1099,
    1213,   889,   337,   1965,  2024,  1950,  208,   17625,  // 0x50
    737,    36006, 8051,  22391, 20946, 60497, 13232, 10322,
    12466,  35708, 857,   4516,  23489, 14895, 32977, 31583,  // 0x60
    15070,  1209,  35893, 34807, 48761, 16802, 5507,  4700,
    5045,   6717,  1415,  2589,  5897,  2574,  468,   1,  // 0x70
    444,    691,   595,   416,   168,   121,   135,   106,
    131,    79,    69,    148,   150,   110,   40,    344,  // 0x80
    80,     61,    57,    50,    152,   135,   118,   456,
    59,     93,    77,    52,    75,    94,    63,    153,  // 0x90
    135,    191,   46,    87,    185,   110,   90,    134,
    133,    268,   133,   102,   67,    114,   302,   197,  // 0xa0
    400,    283,   173,   168,   240,   349,   129,   152,
    394,    140,   241,   273,   297,   353,   369,   246,  // 0xb0
    123,    61,    63,    740,   284,   107,   48,    91,
    23,     20,    21,    11,    80,    22,    158,   108,  // 0xc0
    2026,   791,   21,    14,    18,    163,   73,    21,
    12,     46,    15,    6,     9,     40,    28,    8,  // 0xd0
    293,    289,   215,   1083,  123,   283,   181,   137,
    183,    84,    55,    148,   149,   108,   58,    59,  // 0xe0
    76,     38,    32,    62,    8,     7,     37,    12,
    33,     5,     13,    16,    19,    13,    6,     291,  // 0xf0
};

double literal_score(const RequiredLiteral& literal) {
  double rarest = std::numeric_limits<double>::infinity(), second = rarest;
  for (const char c : literal.bytes) {
    const double f = byte_frequency(static_cast<unsigned char>(c), literal.caseless);
    if (f < rarest) {
      second = rarest;
      rarest = f;
    } else if (f < second) {
      second = f;
    }
  }
  if (literal.bytes.empty()) return 1;  // the empty string occurs everywhere
  return literal.bytes.size() == 1 ? rarest : rarest * second;
}

}  // namespace

double byte_frequency(unsigned char byte, bool caseless) {
  double ppm = kBytePpm[byte];
  if (caseless && byte >= 'a' && byte <= 'z') ppm += kBytePpm[byte - 0x20];
  return ppm / 1e6;
}

RequiredSet united(RequiredSet into, const RequiredSet& more) {
  if (into.empty() || more.empty()) return {};
  for (const RequiredLiteral& l : more) {
    if (std::ranges::find(into, l) == into.end()) into.push_back(l);
  }
  if (into.size() > kRequiredSetMax) into.clear();
  return into;
}

double rarity_score(const RequiredSet& set) {
  double score = 0;
  for (const RequiredLiteral& literal : set) score += literal_score(literal);
  return score;
}

std::optional<RequiredSet> required_prefilter(const std::vector<HirSummary>& patterns,
                                              RequiredLiterals mode, bool* by_rarity) {
  if (by_rarity != nullptr) *by_rarity = false;
  if (mode == RequiredLiterals::kNever || patterns.empty()) return std::nullopt;
  RequiredSet all;
  double leading_score = 0;
  for (const HirSummary& pattern : patterns) {
    const RequiredSet required = required_of(pattern);
    all = &pattern == &patterns.front() ? required : united(std::move(all), required);
    if (all.empty()) return std::nullopt;
    // Without a leading set Hyperscan anchors on a literal of its own choosing, presumably as
    // rare: no gain is assumed.
    const RequiredSet leading = leading_of(pattern);
    leading_score += rarity_score(leading.empty() ? required : leading);
  }
  if (mode == RequiredLiterals::kAlways) return all;
  constexpr double kGain = 8;
  const bool long_enough = std::ranges::all_of(
      all, [](const RequiredLiteral& literal) { return literal.bytes.size() >= 3; });
  if (!long_enough) return std::nullopt;
  if (rarity_score(all) * kGain <= leading_score) return all;
  // One literal, rare by itself: its PairLiteral search (keyed on its rarest bytes) beats
  // Hyperscan's (an adjacent pair: 100 MB of C, `-c '[A-Z]+_SUSPEND'` spent 36% there), even
  // where Hyperscan anchors on the same literal.
  if (all.size() == 1 && rarity_score(all) <= kSingleLiteralScoreMax) {
    if (by_rarity != nullptr) *by_rarity = true;
    return all;
  }
  return std::nullopt;
}

std::optional<RequiredSet> leading_prefilter(const std::vector<HirSummary>& patterns) {
  RequiredSet all;
  for (const HirSummary& pattern : patterns) {
    const RequiredSet leading = leading_of(pattern);
    all = &pattern == &patterns.front() ? leading : united(std::move(all), leading);
    if (all.empty()) return std::nullopt;
  }
  const bool long_enough = std::ranges::all_of(
      all, [](const RequiredLiteral& literal) { return literal.bytes.size() >= 3; });
  if (all.empty() || !long_enough) return std::nullopt;
  return all;
}

}  // namespace ctx::engine::detail
