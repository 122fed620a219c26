#include "hashed_literals.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ctx::engine::detail {
namespace {

constexpr std::uint64_t kMultiplier = 0x9E3779B97F4A7C15ULL;  // 2^64 / golden ratio, odd

std::uint64_t hash_key(std::uint64_t key) { return key * kMultiplier; }

// ASCII lowercase of every byte (bytes >= 0x80 stay).
constexpr std::array<unsigned char, 256> kLower = [] {
  std::array<unsigned char, 256> t{};
  for (unsigned c = 0; c < 256; ++c) {
    t[c] = static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  }
  return t;
}();

// The first 8 bytes of `s` (fewer: zeros after them) as a little-endian load would read them.
std::uint64_t load_prefix(std::string_view s) {
  std::uint64_t v = 0;
  std::memcpy(&v, s.data(), std::min<std::size_t>(s.size(), sizeof v));
  return v;
}

std::uint64_t load64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// log2 of the smallest power of two >= max(n, 1).
unsigned ceil_log2(std::size_t n) {
  return n <= 1 ? 0U : static_cast<unsigned>(std::bit_width(n - 1));
}

}  // namespace

void HashedLiterals::Table::build(const std::vector<Entry>& all) {
  const unsigned bits = ceil_log2(all.size());
  shift = 64 - bits;
  auto bucket = [&](const Entry& e) {
    return bits == 0 ? std::size_t{0} : static_cast<std::size_t>(hash_key(e.key) >> shift);
  };
  start.assign((std::size_t{1} << bits) + 1, 0);
  for (const Entry& e : all) ++start[bucket(e) + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  entries.resize(all.size());
  std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
  for (const Entry& e : all) entries[fill[bucket(e)]++] = e;  // ids stay ascending per bucket
}

HashedLiterals::HashedLiterals(const std::vector<std::string_view>& literals, bool caseless)
    : caseless_(caseless) {
  std::size_t total = 0, shortest = 8;
  shortest_ = literals.empty() ? 0 : literals[0].size();
  for (std::string_view l : literals) {
    total += l.size();
    if (l.size() >= 4) shortest = std::min(shortest, l.size());
    shortest_ = std::min(shortest_, l.size());
  }
  const bool sampled = shortest_ >= kSampledShortestMin;
  bytes_.reserve(total);
  offset_.reserve(literals.size() + 1);
  // The window: the first `width` bytes of every literal of 4+ bytes (the shortest such, at most
  // 8): the longer the window, the fewer haystack positions get past the bitmap.
  width_ = static_cast<unsigned>(shortest);
  window_mask_ = width_ == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * width_)) - 1;
  const std::uint64_t fold = caseless ? 0x2020202020202020ULL : 0;
  std::vector<Entry> mid, longer;
  std::vector<std::pair<unsigned char, std::uint32_t>> short_list;
  for (std::size_t id = 0; id < literals.size(); ++id) {
    const std::string_view l = literals[id];
    offset_.push_back(static_cast<std::uint32_t>(bytes_.size()));
    for (char c : l) {
      const auto b = static_cast<unsigned char>(c);
      bytes_.push_back(static_cast<char>(caseless ? kLower[b] : b));
    }
    const auto index = static_cast<std::uint32_t>(id);
    if (l.size() >= 8) {
      longer.push_back({load_prefix(l) | fold, index});
    } else if (l.size() >= 4) {
      mid.push_back({(load_prefix(l) | fold) & window_mask_, index});
    } else if (!l.empty()) {
      const auto first = static_cast<unsigned char>(l[0]);
      short_list.emplace_back(caseless ? kLower[first] : first, index);
    }
  }
  offset_.push_back(static_cast<std::uint32_t>(bytes_.size()));

  const std::size_t with_window = mid.size() + longer.size();
  if (with_window > 0) {
    // ~1/16 of the bits set at most (1/64 when sampling: fewer positions get that far, and the
    // samples' gram table lets more text through): few positions of random text get past the
    // bitmap. 32 Kib at least (a cache-resident 4 KiB), 16 Mib (2 MiB) at most.
    const unsigned bits = std::clamp(ceil_log2(with_window * (sampled ? 64 : 16)), 15U, 24U);
    bitmap_shift_ = 64 - bits;
    bitmap_.assign((std::size_t{1} << bits) / 64, 0);
    auto mark = [&](std::uint64_t window) {
      const std::uint64_t at = hash_key(window) >> bitmap_shift_;
      bitmap_[at >> 6] |= std::uint64_t{1} << (at & 63);
    };
    for (const Entry& e : mid) mark(e.key);
    for (const Entry& e : longer) mark(e.key & window_mask_);
  }
  mid_.build(mid);
  long_.build(longer);

  has_short_ = !short_list.empty();
  std::ranges::sort(short_list);  // by first byte, then id
  short_start_.assign(257, 0);
  for (const auto& [first, id] : short_list) {
    ++short_start_[first + 1U];
    short_first_[first >> 6] |= std::uint64_t{1} << (first & 63);
    short_ids_.push_back(id);
  }
  for (std::size_t b = 1; b < short_start_.size(); ++b) short_start_[b] += short_start_[b - 1];

  if (sampled) build_grams();
}

void HashedLiterals::build_grams() {
  // Only the first `span` bytes of each literal take part: the q-gram at every offset 0..step-1
  // of them is the one a sample falls on, once per occurrence (step = span - q + 1).
  const std::size_t span = std::min<std::size_t>(shortest_, 15);
  step_ = static_cast<unsigned>(std::min<std::size_t>(8, span - 4));
  gram_bytes_ = static_cast<unsigned>(span - step_ + 1);
  gram_mask_ = gram_bytes_ == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * gram_bytes_)) - 1;
  const std::size_t count = offset_.size() - 1;
  // ~1/32 of the entries set at most (fewer hits of chance), 4 KiB at least, 256 KiB at most.
  const unsigned bits = std::clamp(ceil_log2(count * step_ * 32), 12U, 18U);
  gram_shift_ = 64 - bits;
  grams_.assign(std::size_t{1} << bits, 0);
  const std::uint64_t fold = caseless_ ? 0x2020202020202020ULL : 0;
  for (std::size_t id = 0; id < count; ++id) {
    // bytes_ holds the literal lowercased when caseless; | 0x20 as the haystack's bytes get.
    const std::string_view l(bytes_.data() + offset_[id], offset_[id + 1] - offset_[id]);
    for (unsigned k = 0; k < step_; ++k) {
      const std::uint64_t gram = ((load_prefix(l.substr(k)) | fold) & gram_mask_);
      grams_[hash_key(gram) >> gram_shift_] |= static_cast<std::uint8_t>(1U << k);
    }
  }
}

bool HashedLiterals::verify(const char* at, std::uint32_t id) const {
  const std::size_t from = offset_[id], size = offset_[id + 1] - from;
  if (!caseless_) return std::memcmp(at, bytes_.data() + from, size) == 0;
  const auto* hay = reinterpret_cast<const unsigned char*>(at);
  const auto* lit = reinterpret_cast<const unsigned char*>(bytes_.data() + from);
  for (std::size_t i = 0; i < size; ++i) {
    if (kLower[hay[i]] != lit[i]) return false;
  }
  return true;
}

template <bool kCaseless, bool kShort>
bool HashedLiterals::scan_impl(std::string_view hay, OnMatch on_match, void* context) const {
  const auto* p = reinterpret_cast<const unsigned char*>(hay.data());
  const std::size_t n = hay.size();
  constexpr std::uint64_t kFold = kCaseless ? 0x2020202020202020ULL : 0;
  const std::uint64_t* bitmap = bitmap_.data();
  const unsigned shift = bitmap_shift_;
  const std::uint64_t mask = window_mask_;
  // The 8 bytes at p + i (zeros past the end), folded when caseless.
  auto word_at = [&](std::size_t i) {
    return (i + 8 <= n ? load64(p + i) : load_prefix(hay.substr(i))) | kFold;
  };
  auto may_start_short = [&](std::size_t i) -> std::uint64_t {
    const unsigned char first = kCaseless ? kLower[p[i]] : p[i];
    return (short_first_[first >> 6] >> (first & 63)) & 1;
  };
  auto report = [&](std::size_t at, std::uint32_t id) {
    const std::size_t size = offset_[id + 1] - offset_[id];
    const std::size_t end = at + size;
    return on_match(id, 0, static_cast<unsigned long long>(end), 0, context) != 0;
  };
  // Reports literal `id` if it starts at i; true when on_match stopped the scan.
  auto try_at = [&](std::size_t i, std::uint32_t id) {
    return i + (offset_[id + 1] - offset_[id]) <= n && verify(hay.data() + i, id) && report(i, id);
  };
  // Reports the literals of 1-3 bytes that start at i.
  auto short_at = [&](std::size_t i) {
    const unsigned char first = kCaseless ? kLower[p[i]] : p[i];
    for (std::uint32_t k = short_start_[first]; k < short_start_[first + 1U]; ++k) {
      if (try_at(i, short_ids_[k])) return true;
    }
    return false;
  };
  auto long_at = [&](std::size_t i) {
    return window_literals_at<kCaseless>(hay, i, on_match, context);
  };
  // Blocks of 64 positions where 8 bytes can be loaded: the filters run without branches into
  // masks (one bit a position), and only the positions set are looked at. Then the last 7
  // positions one by one.
  const bool any_window = !bitmap_.empty();
  const std::size_t full = n < 8 ? 0 : n - 7;
  for (std::size_t block = 0; block < full; block += 64) {
    const std::size_t count = std::min<std::size_t>(64, full - block);
    std::uint64_t longs = 0, shorts = 0;
    if (any_window) {
      auto may_start = [&](std::size_t i) -> std::uint64_t {
        const std::uint64_t at = hash_key((load64(p + i) | kFold) & mask) >> shift;
        return (bitmap[at >> 6] >> (at & 63)) & 1;
      };
      if (count == 64) {
        for (std::size_t j = 64; j-- > 0;) longs = (longs << 1) | may_start(block + j);
      } else {
        for (std::size_t j = count; j-- > 0;) longs = (longs << 1) | may_start(block + j);
      }
    }
    if constexpr (kShort) {
      for (std::size_t j = count; j-- > 0;) shorts = (shorts << 1) | may_start_short(block + j);
    }
    for (std::uint64_t any = longs | shorts; any != 0; any &= any - 1) {
      const auto j = static_cast<unsigned>(std::countr_zero(any));
      const std::size_t i = block + j;
      if (kShort && ((shorts >> j) & 1) != 0 && short_at(i)) return true;
      if (((longs >> j) & 1) != 0 && long_at(i)) return true;
    }
  }
  for (std::size_t i = full; i < n; ++i) {
    if (kShort && may_start_short(i) != 0 && short_at(i)) return true;
    if (any_window && i + width_ <= n) {
      const std::uint64_t at = hash_key(word_at(i) & mask) >> shift;
      if (((bitmap[at >> 6] >> (at & 63)) & 1) != 0 && long_at(i)) return true;
    }
  }
  return false;
}

template <bool kCaseless>
bool HashedLiterals::window_literals_at(std::string_view hay, std::size_t i, OnMatch on_match,
                                        void* context) const {
  const auto* p = reinterpret_cast<const unsigned char*>(hay.data());
  const std::size_t n = hay.size();
  constexpr std::uint64_t kFold = kCaseless ? 0x2020202020202020ULL : 0;
  const std::uint64_t word = (i + 8 <= n ? load64(p + i) : load_prefix(hay.substr(i))) | kFold;
  auto try_at = [&](std::uint32_t id) {
    const std::size_t size = offset_[id + 1] - offset_[id];
    return i + size <= n && verify(hay.data() + i, id) &&
           on_match(id, 0, i + size, 0, context) != 0;
  };
  if (!mid_.entries.empty()) {
    const std::uint64_t window = word & window_mask_;
    const std::uint64_t b = mid_.shift == 64 ? 0 : hash_key(window) >> mid_.shift;
    for (std::uint32_t k = mid_.start[b]; k < mid_.start[b + 1]; ++k) {
      const Entry& e = mid_.entries[k];
      if (e.key == window && try_at(e.id)) return true;
    }
  }
  if (!long_.entries.empty() && i + 8 <= n) {
    const std::uint64_t b = long_.shift == 64 ? 0 : hash_key(word) >> long_.shift;
    for (std::uint32_t k = long_.start[b]; k < long_.start[b + 1]; ++k) {
      const Entry& e = long_.entries[k];
      if (e.key == word && try_at(e.id)) return true;
    }
  }
  return false;
}

namespace {

// Bit j set where bytes[j] is nonzero (j < 64).
std::uint64_t nonzero_bytes(const std::uint8_t* bytes) {
#if defined(__SSE2__)
  std::uint64_t zero = 0;
  for (unsigned c = 0; c < 4; ++c) {
    const __m128i v =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + std::size_t{16} * c));
    const auto bits =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())));
    zero |= std::uint64_t{bits} << (16 * c);
  }
  return ~zero;
#else
  std::uint64_t out = 0;
  for (unsigned j = 0; j < 64; ++j) out |= std::uint64_t{bytes[j] != 0} << j;
  return out;
#endif
}

}  // namespace

template <bool kCaseless, unsigned kStep>
bool HashedLiterals::sampled_scan(std::string_view hay, OnMatch on_match, void* context) const {
  const auto* p = reinterpret_cast<const unsigned char*>(hay.data());
  const std::size_t n = hay.size();
  if (n < shortest_) return false;
  constexpr std::uint64_t kFold = kCaseless ? 0x2020202020202020ULL : 0;
  const std::uint8_t* grams = grams_.data();
  const std::uint64_t* bitmap = bitmap_.data();
  const unsigned gram_shift = gram_shift_, bitmap_shift = bitmap_shift_;
  const std::uint64_t gram_mask = gram_mask_, window_mask = window_mask_;
  // The literals that may start at pos - k, k < kStep, going by the gram at pos (pos + q <= n),
  // each start tried from the lowest.
  auto sample = [&](std::size_t pos) {
    const std::uint64_t word =
        (pos + 8 <= n ? load64(p + pos) : load_prefix(hay.substr(pos))) | kFold;
    const unsigned offsets = grams[hash_key(word & gram_mask) >> gram_shift];
    for (unsigned k = kStep; k-- > 0;) {
      if (((offsets >> k) & 1) != 0 && k <= pos &&
          window_literals_at<kCaseless>(hay, pos - k, on_match, context)) {
        return true;
      }
    }
    return false;
  };
  std::size_t pos = 0;
  if (kStep > 1) {  // the one sample with starts before the haystack
    if (sample(0)) return true;
    pos = kStep;
  }
  // Blocks of 64 samples where 8 bytes can be loaded at each and kStep - 1 bytes before it: the
  // gram table's offsets of every sample first, without branches; then, at each sample that has
  // some, the window bitmap at each start it allows; the table lookups at the starts left.
  constexpr std::size_t kBlock = std::size_t{64} * kStep;
  std::uint8_t offsets[64];
  for (; pos + kBlock + 8 <= n; pos += kBlock) {
    const unsigned char* block = p + pos;
#pragma GCC unroll 16
    for (unsigned j = 0; j < 64; ++j) {
      offsets[j] = grams[hash_key((load64(block + std::size_t{j} * kStep) | kFold) & gram_mask) >>
                         gram_shift];
    }
    for (std::uint64_t hits = nonzero_bytes(offsets); hits != 0; hits &= hits - 1) {
      const auto j = static_cast<unsigned>(std::countr_zero(hits));
      const unsigned char* at = block + std::size_t{j} * kStep;
      unsigned starts = 0;
      for (unsigned k = 0; k < kStep; ++k) {
        const std::uint64_t h = hash_key((load64(at - k) | kFold) & window_mask) >> bitmap_shift;
        starts |= static_cast<unsigned>((bitmap[h >> 6] >> (h & 63)) & 1) << k;
      }
      for (starts &= offsets[j]; starts != 0;) {
        const auto k = static_cast<unsigned>(std::bit_width(starts) - 1);
        starts &= ~(1U << k);
        if (window_literals_at<kCaseless>(hay, pos + std::size_t{j} * kStep - k, on_match, context))
          return true;
      }
    }
  }
  for (; pos + gram_bytes_ <= n; pos += kStep) {
    if (sample(pos)) return true;
  }
  return false;
}

template <bool kCaseless>
bool HashedLiterals::sampled_dispatch(std::string_view hay, OnMatch on_match, void* context) const {
  static_assert(kSampledShortestMin >= 7);  // step_ >= 3
  switch (step_) {
    case 3:
      return sampled_scan<kCaseless, 3>(hay, on_match, context);
    case 4:
      return sampled_scan<kCaseless, 4>(hay, on_match, context);
    case 5:
      return sampled_scan<kCaseless, 5>(hay, on_match, context);
    case 6:
      return sampled_scan<kCaseless, 6>(hay, on_match, context);
    case 7:
      return sampled_scan<kCaseless, 7>(hay, on_match, context);
    default:
      return sampled_scan<kCaseless, 8>(hay, on_match, context);
  }
}

bool HashedLiterals::scan(std::string_view hay, OnMatch on_match, void* context) const {
  if (step_ != 0) {
    return caseless_ ? sampled_dispatch<true>(hay, on_match, context)
                     : sampled_dispatch<false>(hay, on_match, context);
  }
  if (caseless_) {
    return has_short_ ? scan_impl<true, true>(hay, on_match, context)
                      : scan_impl<true, false>(hay, on_match, context);
  }
  return has_short_ ? scan_impl<false, true>(hay, on_match, context)
                    : scan_impl<false, false>(hay, on_match, context);
}

std::size_t HashedLiterals::memory_bytes() const {
  return bytes_.capacity() + offset_.capacity() * sizeof(std::uint32_t) +
         bitmap_.capacity() * sizeof(std::uint64_t) +
         (mid_.start.capacity() + long_.start.capacity() + short_start_.capacity() +
          short_ids_.capacity()) *
             sizeof(std::uint32_t) +
         (mid_.entries.capacity() + long_.entries.capacity()) * sizeof(Entry) + grams_.capacity();
}

}  // namespace ctx::engine::detail
