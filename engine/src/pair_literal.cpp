#include "pair_literal.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "cpu_features.hpp"
#include "required_literals.hpp"

namespace ctx::engine::detail {
namespace {

constexpr bool is_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
constexpr unsigned char lower(unsigned char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c | 0x20) : c;
}

}  // namespace

PairLiteral::PairLiteral(std::string_view literal, bool caseless)
    : literal_(literal), caseless_(caseless) {
  if (caseless_) {
    for (char& c : literal_) c = static_cast<char>(lower(static_cast<unsigned char>(c)));
  }
  choose_offsets();
  for (KeyByte& key : keys_) {
    key.byte = static_cast<unsigned char>(literal_[key.offset]);
    key.fold = caseless_ && is_lower(key.byte) ? 0x20 : 0;
  }
}

void PairLiteral::choose_offsets() {
  const std::size_t size = literal_.size();
  if (size == 1) return;  // its byte compared thrice (offsets 0)
  auto frequency = [&](std::size_t i) {
    return byte_frequency(static_cast<unsigned char>(literal_[i]), caseless_);
  };
  // The pair is picked among the rarest kCandidates offsets (by frequency, then offset).
  std::vector<std::size_t> offsets(size);
  for (std::size_t i = 0; i < size; ++i) offsets[i] = i;
  const std::size_t candidates = std::min(size, kCandidates);
  std::partial_sort(offsets.begin(), offsets.begin() + static_cast<std::ptrdiff_t>(candidates),
                    offsets.end(), [&](std::size_t a, std::size_t b) {
                      return frequency(a) != frequency(b) ? frequency(a) < frequency(b) : a < b;
                    });
  double best = std::numeric_limits<double>::infinity();
  std::size_t first = 0, second = 1;
  for (std::size_t x = 0; x < candidates; ++x) {
    for (std::size_t y = x + 1; y < candidates; ++y) {
      const std::size_t i = std::min(offsets[x], offsets[y]), j = std::max(offsets[x], offsets[y]);
      const double score = frequency(i) * frequency(j) * (j == i + 1 ? kAdjacentPenalty : 1.0);
      if (score < best || (score == best && (i < first || (i == first && j < second)))) {
        best = score;
        first = i;
        second = j;
      }
    }
  }
  // The third: the rarest other offset (a literal of two bytes: the first again).
  std::size_t third = first;
  for (std::size_t x = 0; x < candidates; ++x) {
    if (offsets[x] != first && offsets[x] != second) {
      third = offsets[x];
      break;
    }
  }
  keys_[0].offset = first;
  keys_[1].offset = second;
  keys_[2].offset = third;
}

bool PairLiteral::verify(const char* at) const {
  if (!caseless_) {
    // Short literals byte by byte: a memcmp call per candidate was 6% of `-c the` (most
    // candidates of a common pair differ early).
    if (literal_.size() <= 16) {
      for (std::size_t i = 0; i < literal_.size(); ++i) {
        if (at[i] != literal_[i]) return false;
      }
      return true;
    }
    return std::memcmp(at, literal_.data(), literal_.size()) == 0;
  }
  for (std::size_t i = 0; i < literal_.size(); ++i) {
    if (lower(static_cast<unsigned char>(at[i])) != static_cast<unsigned char>(literal_[i])) {
      return false;
    }
  }
  return true;
}

bool PairLiteral::report(std::uint64_t mask, std::size_t base, std::size_t width,
                         std::string_view hay, OnMatch on_match, void* context,
                         const std::size_t* useless_below, std::size_t& next) const {
  const std::size_t size = literal_.size();
  next = base + width;
  while (mask != 0) {
    const std::size_t start = base + static_cast<std::size_t>(__builtin_ctzll(mask));
    mask &= mask - 1;
    if (!verify(hay.data() + start)) continue;
    if (on_match(0, 0, start + size, 0, context) != 0) return true;
    if (useless_below != nullptr && *useless_below > start + size) {
      const std::size_t resume = *useless_below - size + 1;  // the first start that may be of use
      if (resume >= next) {
        next = resume;
        return false;
      }
      mask &= ~std::uint64_t{0} << (resume - base);
    }
  }
  return false;
}

bool PairLiteral::scan_plain(std::string_view hay, std::size_t from, std::size_t to,
                             OnMatch on_match, void* context,
                             const std::size_t* useless_below) const {
  for (std::size_t at = from; at < to;) {
    auto keyed = [&](const KeyByte& key) {
      return static_cast<unsigned char>(hay[at + key.offset] | key.fold) == key.byte;
    };
    std::size_t next = at + 1;
    if (keyed(keys_[0]) && keyed(keys_[1]) &&
        report(1, at, 1, hay, on_match, context, useless_below, next)) {
      return true;
    }
    at = next;
  }
  return false;
}

bool PairLiteral::scan_sse2(std::string_view hay, OnMatch on_match, void* context,
                            const std::size_t* useless_below) const {
  const std::size_t size = literal_.size();
  if (hay.size() < size) return false;
  const std::size_t starts = hay.size() - size + 1;  // the offsets an occurrence may start at
  // Of the 16 starts at `p`: 0xFF in each byte where `key` is there.
  auto equal = [](const char* p, const KeyByte& key) {
    return _mm_cmpeq_epi8(
        _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + key.offset)),
                     _mm_set1_epi8(static_cast<char>(key.fold))),
        _mm_set1_epi8(static_cast<char>(key.byte)));
  };
  auto block = [&](std::size_t at) {  // the 16 starts from `at`
    const char* p = hay.data() + at;
    return static_cast<std::uint64_t>(
        _mm_movemask_epi8(_mm_and_si128(equal(p, keys_[0]), equal(p, keys_[1]))));
  };
  std::size_t at = 0;
  // 16 starts at a time while all of their occurrences would fit.
  while (at + 16 <= starts) {
    const std::uint64_t mask = block(at);
    std::size_t next = at + 16;
    if (mask != 0 && report(mask, at, 16, hay, on_match, context, useless_below, next)) {
      return true;
    }
    at = next;
  }
  if (at < starts && starts >= 16) {
    // The last starts: the 16 that end there, those before `at` masked off (a line of 40 bytes
    // was mostly stepped through one byte at a time).
    const std::size_t base = starts - 16;
    const std::uint64_t mask = block(base) & (~std::uint64_t{0} << (at - base));
    std::size_t next = starts;
    return mask != 0 && report(mask, base, 16, hay, on_match, context, useless_below, next);
  }
  return scan_plain(hay, at, starts, on_match, context, useless_below);
}

namespace {

// One keyed byte for 32 starts: its offset in the literal, the byte, and what is OR-ed into the
// haystack's byte before comparing.
struct Key {
  std::size_t offset;
  __m256i want;
  __m256i fold;
};

// Of the 32 starts at `p`: 0xFF in each byte where `key` is there.
__attribute__((target("avx2"))) inline __m256i key_equal(const char* p, const Key& key) {
  return _mm256_cmpeq_epi8(
      _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + key.offset)),
                      key.fold),
      key.want);
}

// Of the 32 starts at `p`: a bit for each where the three keyed bytes are there (scan_avx2).
__attribute__((target("avx2"))) inline std::uint32_t pair_mask(const char* p, const Key& a,
                                                               const Key& b, const Key& c) {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(
      _mm256_and_si256(_mm256_and_si256(key_equal(p, a), key_equal(p, b)), key_equal(p, c))));
}

}  // namespace

__attribute__((target("avx2"))) bool PairLiteral::scan_avx2(
    std::string_view hay, OnMatch on_match, void* context, const std::size_t* useless_below) const {
  const std::size_t size = literal_.size();
  if (hay.size() < size) return false;
  const std::size_t starts = hay.size() - size + 1;
  auto vector_key = [](const KeyByte& key) __attribute__((target("avx2"))) {
    return Key{key.offset, _mm256_set1_epi8(static_cast<char>(key.byte)),
               _mm256_set1_epi8(static_cast<char>(key.fold))};
  };
  const Key first = vector_key(keys_[0]), second = vector_key(keys_[1]),
            third = vector_key(keys_[2]);
  // 64 starts at a time (two vectors, one branch), then 32, while all of their occurrences fit.
  std::size_t at = 0;
  while (at + 64 <= starts) {
    const char* p = hay.data() + at;
    const std::uint64_t mask = pair_mask(p, first, second, third) |
                               (std::uint64_t{pair_mask(p + 32, first, second, third)} << 32);
    std::size_t next = at + 64;
    if (mask != 0 && report(mask, at, 64, hay, on_match, context, useless_below, next)) {
      return true;
    }
    at = next;
  }
  while (at + 32 <= starts) {
    const std::uint64_t mask = pair_mask(hay.data() + at, first, second, third);
    std::size_t next = at + 32;
    if (mask != 0 && report(mask, at, 32, hay, on_match, context, useless_below, next)) {
      return true;
    }
    at = next;
  }
  if (at >= starts) return false;
  if (starts < 32) return scan_sse2(hay, on_match, context, useless_below);  // nothing scanned
  // The last starts: the 32 that end there, those before `at` masked off.
  const std::size_t base = starts - 32;
  const std::uint64_t mask =
      pair_mask(hay.data() + base, first, second, third) & (~std::uint64_t{0} << (at - base));
  std::size_t next = starts;
  return mask != 0 && report(mask, base, 32, hay, on_match, context, useless_below, next);
}

bool PairLiteral::scan(std::string_view hay, OnMatch on_match, void* context,
                       const std::size_t* useless_below) const {
  return cpu_has_avx2 ? scan_avx2(hay, on_match, context, useless_below)
                      : scan_sse2(hay, on_match, context, useless_below);
}

}  // namespace ctx::engine::detail
