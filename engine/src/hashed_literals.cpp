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

std::uint32_t load32(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
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

void HashedLiterals::Table::build(std::vector<Entry> all) {
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
  std::size_t total = 0;
  for (std::string_view l : literals) total += l.size();
  bytes_.reserve(total);
  offset_.reserve(literals.size() + 1);
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
    const auto* p = reinterpret_cast<const unsigned char*>(l.data());
    const auto index = static_cast<std::uint32_t>(id);
    if (l.size() >= 8) {
      longer.push_back({load64(p) | fold, index});
    } else if (l.size() >= 4) {
      mid.push_back({(load32(p) | static_cast<std::uint32_t>(fold)), index});
    } else if (!l.empty()) {
      short_list.emplace_back(caseless ? kLower[p[0]] : p[0], index);
    }
  }
  offset_.push_back(static_cast<std::uint32_t>(bytes_.size()));

  const std::size_t with_prefix = mid.size() + longer.size();
  if (with_prefix > 0) {
    // ~1/16 of the bits set at most: few positions of random text get past the bitmap. 32 Kib at
    // least (a cache-resident 4 KiB), 16 Mib (2 MiB) at most.
    const unsigned bits = std::clamp(ceil_log2(with_prefix * 16), 15U, 24U);
    bitmap_shift_ = 64 - bits;
    bitmap_.assign((std::size_t{1} << bits) / 64, 0);
    auto mark = [&](std::uint64_t key4) {
      const std::uint64_t at = hash_key(key4) >> bitmap_shift_;
      bitmap_[at >> 6] |= std::uint64_t{1} << (at & 63);
    };
    for (const Entry& e : mid) mark(e.key);
    for (const Entry& e : longer) mark(e.key & 0xFFFFFFFFULL);
  }
  mid_.build(std::move(mid));
  long_.build(std::move(longer));

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
  constexpr std::uint64_t kFold8 = kCaseless ? 0x2020202020202020ULL : 0;
  constexpr std::uint32_t kFold4 = kCaseless ? 0x20202020U : 0;
  const bool any_prefix = !bitmap_.empty();
  const bool any_mid = !mid_.entries.empty(), any_long = !long_.entries.empty();
  auto report = [&](std::size_t at, std::uint32_t id) {
    const std::size_t size = offset_[id + 1] - offset_[id];
    return on_match(id, 0, static_cast<unsigned long long>(at + size), 0, context) != 0;
  };
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (kShort) {
      const unsigned char first = kCaseless ? kLower[p[i]] : p[i];
      if (((short_first_[first >> 6] >> (first & 63)) & 1) != 0) {
        for (std::uint32_t k = short_start_[first]; k < short_start_[first + 1U]; ++k) {
          const std::uint32_t id = short_ids_[k];
          if (i + (offset_[id + 1] - offset_[id]) <= n && verify(hay.data() + i, id) &&
              report(i, id)) {
            return true;
          }
        }
      }
    }
    if (i + 4 > n || !any_prefix) {
      if constexpr (kShort) continue;
      break;
    }
    const std::uint32_t key4 = load32(p + i) | kFold4;
    const std::uint64_t at = hash_key(key4) >> bitmap_shift_;
    if (((bitmap_[at >> 6] >> (at & 63)) & 1) == 0) continue;
    if (any_mid) {
      const std::uint64_t b = mid_.shift == 64 ? 0 : hash_key(key4) >> mid_.shift;
      for (std::uint32_t k = mid_.start[b]; k < mid_.start[b + 1]; ++k) {
        const Entry& e = mid_.entries[k];
        if (e.key != key4) continue;
        const std::uint32_t id = e.id;
        if (i + (offset_[id + 1] - offset_[id]) <= n && verify(hay.data() + i, id) &&
            report(i, id)) {
          return true;
        }
      }
    }
    if (any_long && i + 8 <= n) {
      const std::uint64_t key8 = load64(p + i) | kFold8;
      const std::uint64_t b = long_.shift == 64 ? 0 : hash_key(key8) >> long_.shift;
      for (std::uint32_t k = long_.start[b]; k < long_.start[b + 1]; ++k) {
        const Entry& e = long_.entries[k];
        if (e.key != key8) continue;
        const std::uint32_t id = e.id;
        if (i + (offset_[id + 1] - offset_[id]) <= n && verify(hay.data() + i, id) &&
            report(i, id)) {
          return true;
        }
      }
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
