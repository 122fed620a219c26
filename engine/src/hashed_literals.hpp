// A multi-literal matcher for big literal sets (thousands of -f identifiers), cheap to build.
//
// Hyperscan's literal compiler takes ~0.4 s and ~35 MB for 10,000 literals and ~4.4 s and ~250 MB
// for 100,000, where this takes milliseconds and a few bytes per literal byte. It reports what
// hs_scan reports for the same literals compiled with hs_compile_lit_multi (HS_FLAG_CASELESS when
// caseless): every occurrence of every literal, overlapping ones too, through a callback of
// Hyperscan's match_event_handler shape, so PatternSet's literal path uses either unchanged.
//
// How: Rabin-Karp over a fixed window of w bytes, w the length of the shortest literal of 4+
// bytes, at most 8. At each haystack position a multiplicative hash of the w bytes there is tested
// in a bitmap of the hashes of every such literal's first w bytes (~1/16 of its bits set), 64
// positions at a time without branches. Only where it hits are hash tables consulted: literals
// of w to 7 bytes keyed by their first w bytes, literals of 8+ bytes by their first 8 (identifiers
// share prefixes such as get_, which would otherwise crowd one bucket); each entry whose key
// equals the haystack's is verified. Literals of 1-3 bytes (rare in identifier lists) are
// looked up by their first byte.
//
// Sampled mode, when every literal has kSampledShortestMin (7) bytes or more (identifier lists
// from real code: 8 and up): of the first m = min(shortest, 15) bytes of each literal, a q-gram
// at a position sampled every s = min(8, m - 4) bytes (q = m - s + 1: 4 samples and 5-grams for
// m = 8) falls inside any occurrence exactly once, at an offset 0..s-1 of the literal. A table of
// bytes indexed by the q-grams' hash holds the offsets at which some literal has each (bit k:
// offset k; ~1/32 of the entries set at most), looked up for 64 samples without branches; at a
// sample with offsets, the window bitmap above is tested at each start they give, and the hash
// tables at the starts left. On source code ~7% of the samples hit a literal's gram (common
// ones: tion, name, type), so the filter costs about as much again as the sampling; still a
// quarter of the positions of the every-position mode.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ctx::engine::detail {

// From this many literals (pieces) on, PatternSet uses HashedLiterals instead of Hyperscan's
// literal API. Measured on 95 MB of source code (identifiers from -f lists, a loaded 2-core
// machine): Hyperscan compiles 1,000 in 0.04 s, 3,000 in 0.12 s, 5,000 in 0.19 s, 7,000 in 0.3 s,
// 10,000 in 0.8 s, 100,000 in 8.6 s; it scans 2.8x as fast as this at 1,000, 2x at 3,000, 1.5x at
// 5,000, 1.3x at 7,000, as fast at 10,000. Over a 549 MB tree the two break even near 7,000 (scans
// run on every core, the compile on one); on smaller trees far sooner.
inline constexpr std::size_t kHashedLiteralsMin = 5000;

// When every literal has this many bytes or more, HashedLiterals samples (see the top), and from
// kSampledLiteralsMin literals on PatternSet uses it. Hyperscan's scan against the sampling one's,
// CPU seconds over 142 MB of the real corpus (a quarter of its files, identifiers of the corpus
// evenly spaced in byte order; a loaded 2-core machine, load 7-9):
//   shortest 8: 4 literals 0.012 vs 0.019 s, 8: 0.013 vs 0.020, 16: 0.025 vs 0.023,
//     32: 0.054 vs 0.026, 64: 0.082 vs 0.027, 200: 0.067 vs 0.032, 1,000: 0.069 vs 0.049
//     (-i: 0.080 vs 0.059), 3,000: 0.123 vs 0.071, 10,000: 0.173 vs 0.125;
//   1,000 literals, shortest 7: 0.074 vs 0.063 s; 10: 0.066 vs 0.042; 12: 0.068 vs 0.038;
//   shortest 7: 64 literals 0.091 vs 0.035 s, 10,000: 0.202 vs 0.165;
//   shortest 6 (step 2): 64 literals 0.089 vs 0.057 s, 200: 0.094 vs 0.055, 1,000: 0.088 vs
//     0.099 (slower), 3,000: 0.171 vs 0.156.
// Hyperscan's few-literal matcher (Teddy) wins below ~16 literals. (Then the sampling loop was
// unrolled: 1,000 literals of 8+ bytes 0.048 -> 0.042-0.044 s, 200: 0.032 -> 0.027-0.028 s.)
inline constexpr std::size_t kSampledShortestMin = 7;
inline constexpr std::size_t kSampledLiteralsMin = 32;

// Whether PatternSet matches `count` literals, the shortest of `shortest` bytes, with
// HashedLiterals rather than Hyperscan.
constexpr bool prefer_hashed_literals(std::size_t count, std::size_t shortest) {
  return count >= kHashedLiteralsMin ||
         (count >= kSampledLiteralsMin && shortest >= kSampledShortestMin);
}

class HashedLiterals {
 public:
  // Hyperscan's match_event_handler: id, from (always 0 here), to (the end offset of the
  // occurrence in the scanned bytes), flags (0), context. Nonzero stops the scan.
  using OnMatch = int (*)(unsigned id, unsigned long long from, unsigned long long to,
                          unsigned flags, void* context);

  // The matcher for `literals` (ids are their indices; an empty one is never reported; duplicates
  // are reported once per id). `caseless`: ASCII letters match either case (bytes >= 0x80 only
  // themselves), as HS_FLAG_CASELESS in Hyperscan's literal API. The views are copied.
  HashedLiterals(const std::vector<std::string_view>& literals, bool caseless);

  // Calls on_match(id, 0, end, 0, context) for every occurrence of every literal in `hay`, by
  // nondecreasing start offset (Hyperscan reports by end: callers that stop at the first match
  // only rely on the first one being on the earliest line that holds one, which both orders give
  // for literals without line terminators). Returns true when on_match stopped the scan.
  bool scan(std::string_view hay, OnMatch on_match, void* context) const;

  // Bytes this matcher holds (for tests and memory accounting).
  std::size_t memory_bytes() const;

  // The sampling step (see the top), 0 when every position is looked at (for tests).
  unsigned sample_step() const { return step_; }

 private:
  template <bool kCaseless, bool kShort>
  bool scan_impl(std::string_view hay, OnMatch on_match, void* context) const;
  // Sampled mode (step_ != 0): the gram table filters one position in step_, see the top.
  void build_grams();
  template <bool kCaseless>
  bool sampled_dispatch(std::string_view hay, OnMatch on_match, void* context) const;
  template <bool kCaseless, unsigned kStep>
  bool sampled_scan(std::string_view hay, OnMatch on_match, void* context) const;
  // Reports the literals of 4+ bytes that start at hay[i] (by the hash tables); true when
  // on_match stopped the scan.
  template <bool kCaseless>
  bool window_literals_at(std::string_view hay, std::size_t i, OnMatch on_match,
                          void* context) const;
  // Whether literal `id` occurs at hay[at..] (its bytes fit there).
  bool verify(const char* at, std::uint32_t id) const;

  // A literal in a hash table: its first w or 8 bytes as a little-endian load reads them (each
  // byte | 0x20 when caseless, as the haystack's are before comparing; zeros above) and its id.
  struct Entry {
    std::uint64_t key;
    std::uint32_t id;
  };
  // A chained hash table: entries of bucket b are entries[start[b] .. start[b + 1]).
  struct Table {
    unsigned shift = 64;  // hash >> shift is the bucket
    std::vector<std::uint32_t> start;
    std::vector<Entry> entries;
    void build(const std::vector<Entry>& all);
  };

  bool caseless_ = false;
  std::string bytes_;                  // every literal's bytes (lowercased when caseless), in order
  std::vector<std::uint32_t> offset_;  // literal id -> start in bytes_; offset_[n] = bytes_.size()
  // Literals of 4+ bytes: the window (width_ bytes: window_mask_ keeps them of a 64-bit load),
  // the bitmap of the hashes of their windows
  // (hash >> bitmap_shift_ indexes it); those of width_-7 bytes by their window, those of 8+ by
  // their first 8 bytes.
  unsigned width_ = 8;
  std::uint64_t window_mask_ = ~std::uint64_t{0};
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
  // Sampled mode, when the shortest literal (shortest_ bytes) has kSampledShortestMin or more:
  // samples every step_ positions (0: not sampled); grams_[hash of the gram_bytes_ bytes there
  // (gram_mask_ keeps them of a 64-bit load) >> gram_shift_] has bit k set when some literal has
  // that gram at offset k.
  std::size_t shortest_ = 0;
  unsigned step_ = 0;
  unsigned gram_bytes_ = 8;
  std::uint64_t gram_mask_ = ~std::uint64_t{0};
  unsigned gram_shift_ = 64;
  std::vector<std::uint8_t> grams_;
};

}  // namespace ctx::engine::detail
