#include "hashed_literals.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

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
  for (std::string_view l : literals) {
    total += l.size();
    if (l.size() >= 4) shortest = std::min(shortest, l.size());
  }
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
    // ~1/16 of the bits set at most: few positions of random text get past the bitmap. 32 Kib at
    // least (a cache-resident 4 KiB), 16 Mib (2 MiB) at most.
    const unsigned bits = std::clamp(ceil_log2(with_window * 16), 15U, 24U);
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
  const bool any_mid = !mid_.entries.empty(), any_long = !long_.entries.empty();
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
  // Reports the literals of 4+ bytes that start at i, whose window's hash is in the bitmap.
  auto long_at = [&](std::size_t i) {
    const std::uint64_t word = word_at(i);
    if (any_mid) {
      const std::uint64_t window = word & mask;
      const std::uint64_t b = mid_.shift == 64 ? 0 : hash_key(window) >> mid_.shift;
      for (std::uint32_t k = mid_.start[b]; k < mid_.start[b + 1]; ++k) {
        const Entry& e = mid_.entries[k];
        if (e.key == window && try_at(i, e.id)) return true;
      }
    }
    if (any_long && i + 8 <= n) {
      const std::uint64_t b = long_.shift == 64 ? 0 : hash_key(word) >> long_.shift;
      for (std::uint32_t k = long_.start[b]; k < long_.start[b + 1]; ++k) {
        const Entry& e = long_.entries[k];
        if (e.key == word && try_at(i, e.id)) return true;
      }
    }
    return false;
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

bool HashedLiterals::scan(std::string_view hay, OnMatch on_match, void* context) const {
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
         (mid_.entries.capacity() + long_.entries.capacity()) * sizeof(Entry);
}

}  // namespace ctx::engine::detail
