// A multi-literal matcher for big literal sets (thousands of -f identifiers), cheap to build.
//
// Hyperscan's literal compiler takes ~0.4 s and ~35 MB for 10,000 literals and ~4.4 s and ~250 MB
// for 100,000, where this takes milliseconds and a few bytes per literal byte. It reports what
// hs_scan reports for the same literals compiled with hs_compile_lit_multi (HS_FLAG_CASELESS when
// caseless): every occurrence of every literal, overlapping ones too, through a callback of
// Hyperscan's match_event_handler shape, so PatternSet's literal path uses either unchanged.
//
// How: Rabin-Karp over fixed windows. At each haystack position a multiplicative hash of the 4
// bytes there is tested in a bitmap of the hashes of every 4+ byte literal's first 4 bytes (~1/16
// of its bits set). Only on a hit are hash tables consulted: literals of 4-7 bytes keyed by their
// first 4 bytes, literals of 8+ bytes by their first 8 (identifiers share prefixes such as get_,
// which would otherwise crowd one bucket); each entry whose key equals the haystack's is
// verified. Literals of 1-3 bytes (rare in identifier lists) are looked up by their first byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ctx::engine::detail {

// Above this many literals PatternSet uses HashedLiterals instead of Hyperscan's literal API
// (measured: see the commit that introduced it; below it Hyperscan's FDR scans faster and
// compiles in tens of milliseconds).
inline constexpr std::size_t kHashedLiteralsMin = 3000;

class HashedLiterals {
 public:
  // Hyperscan's match_event_handler: id, from (always 0 here), to (the end offset of the
  // occurrence in the scanned bytes), flags (0), context. Nonzero stops the scan.
  using OnMatch = int (*)(unsigned id, unsigned long long from, unsigned long long to,
                          unsigned flags, void* context);

  // The matcher for `literals` (ids are their indices; each must be non-empty; duplicates are
  // reported once per id). `caseless`: ASCII letters match either case (bytes >= 0x80 only
  // themselves), as HS_FLAG_CASELESS in Hyperscan's literal API. The views are copied.
  HashedLiterals(const std::vector<std::string_view>& literals, bool caseless);

  // Calls on_match(id, 0, end, 0, context) for every occurrence of every literal in `hay`, by
  // nondecreasing start offset (Hyperscan reports by end: callers that stop at the first match
  // only rely on the first one being on the earliest line that holds one, which both orders give
  // for literals without line terminators). Returns true when on_match stopped the scan.
  bool scan(std::string_view hay, OnMatch on_match, void* context) const;

  // Bytes this matcher holds (for tests and memory accounting).
  std::size_t memory_bytes() const;

 private:
  template <bool kCaseless, bool kShort>
  bool scan_impl(std::string_view hay, OnMatch on_match, void* context) const;
  // Whether literal `id` occurs at hay[at..] (its bytes fit there).
  bool verify(const char* at, std::uint32_t id) const;

  // A literal in a hash table: its first 4 or 8 bytes as loaded from memory (each byte | 0x20 when
  // caseless, as the haystack's are before comparing) and its id.
  struct Entry {
    std::uint64_t key;
    std::uint32_t id;
  };
  // A chained hash table: entries of bucket b are entries[start[b] .. start[b + 1]).
  struct Table {
    unsigned shift = 64;  // hash >> shift is the bucket
    std::vector<std::uint32_t> start;
    std::vector<Entry> entries;
    void build(std::vector<Entry> all);
  };

  bool caseless_ = false;
  std::string bytes_;                  // every literal's bytes (lowercased when caseless), in order
  std::vector<std::uint32_t> offset_;  // literal id -> start in bytes_; offset_[n] = bytes_.size()
  // Literals of 4+ bytes: the bitmap of the hashes of their first 4 bytes (hash >> bitmap_shift_
  // indexes it); those of 4-7 bytes by their first 4, those of 8+ by their first 8.
  unsigned bitmap_shift_ = 64;
  std::vector<std::uint64_t> bitmap_;
  Table mid_;
  Table long_;
  // Literals of 1-3 bytes, sorted by (first byte, second byte or 0): a 256-bit set of their first
  // bytes, and per first byte the range [short_start_[b], short_start_[b + 1]) of short_ids_.
  bool has_short_ = false;
  std::uint64_t short_first_[4] = {0, 0, 0, 0};
  std::vector<std::uint32_t> short_start_;
  std::vector<std::uint32_t> short_ids_;
};

}  // namespace ctx::engine::detail
