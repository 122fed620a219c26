// A single-literal matcher keyed on the literal's two rarest bytes, for sets of one literal.
//
// Hyperscan's single-literal engine (noodle) tests a pair of adjacent bytes of the literal at every
// position, whatever the pair: for `static` or `statiq`, whose pairs are common in source code, it
// stops at most of a text's lines (100 MB of C: `-j1 -c statiq` 19.8 ms against ripgrep's 7.7,
// which keys on the rarest bytes as the memchr crate's packed pair does). This does the same: the
// two bytes of the literal that are rarest in source code (required_literals' byte table; not
// adjacent unless much rarer) are compared at their offsets, and a third with AVX2, 32 positions
// at a time (16 with SSE2; the last starts in one vector that overlaps the one before), and the
// literal is verified where they all are.
//
// It reports what Hyperscan's literal API (hs_compile_lit_multi, one literal of id 0) reports:
// every occurrence, overlapping ones too, through a callback of Hyperscan's match_event_handler
// shape, so PatternSet's literal path uses it in place of a Hyperscan database.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ctx::engine::detail {

class PairLiteral {
 public:
  // Hyperscan's match_event_handler: id (0), from (0), to (the end offset of the occurrence in
  // the scanned bytes), flags (0), context. Nonzero stops the scan.
  using OnMatch = int (*)(unsigned id, unsigned long long from, unsigned long long to,
                          unsigned flags, void* context);

  // Whether a literal of `size` bytes is taken: any but the empty one. (A single byte is keyed
  // twice; Hyperscan finds it as fast, but cannot skip the rest of a line, see scan.)
  static constexpr bool suits(std::size_t size) { return size >= 1; }

  // The matcher for `literal` (suits(size)). `caseless`: ASCII letters match either case (bytes
  // >= 0x80 only themselves), as HS_FLAG_CASELESS.
  PairLiteral(std::string_view literal, bool caseless);

  // Calls on_match(0, 0, end, 0, context) for each occurrence in `hay`, by start offset. Returns
  // true when on_match stopped the scan. `useless_below`, when given, is read after each call
  // that does not stop: on_match may raise it to say that occurrences whose last byte lies below
  // it (an offset of `hay`) are of no use, and those are then skipped, not reported (the rest of
  // a line already decided: `-c e` made a call per `e`).
  bool scan(std::string_view hay, OnMatch on_match, void* context,
            const std::size_t* useless_below = nullptr) const;

  // The offsets of the two bytes compared first (for tests): first < second, or both 0 for a
  // literal of one byte.
  std::size_t first_offset() const { return keys_[0].offset; }
  std::size_t second_offset() const { return keys_[1].offset; }
  // The offset of the third byte the 32-byte scan compares: the rarest other one (a literal of
  // two bytes: first_offset; for tests).
  std::size_t third_offset() const { return keys_[2].offset; }

  // scan with 16-byte vectors, and with 32-byte ones (the CPU must have AVX2): scan picks one;
  // tests run both.
  bool scan_sse2(std::string_view hay, OnMatch on_match, void* context,
                 const std::size_t* useless_below = nullptr) const;
  bool scan_avx2(std::string_view hay, OnMatch on_match, void* context,
                 const std::size_t* useless_below = nullptr) const;

 private:
  // Sets the keys' offsets: the pair whose bytes are rarest together, by the product
  // of their frequencies, an adjacent pair's times kAdjacentPenalty (bytes next to each other
  // are not independent: `session` keyed on `on`, found on 2.2M of 13M lines of C, and took
  // 1.1-1.5x Hyperscan's time).
  void choose_offsets();
  static constexpr double kAdjacentPenalty = 4;
  static constexpr std::size_t kCandidates = 16;
  // Whether the literal occurs at `at` (its size in bytes readable there).
  bool verify(const char* at) const;
  // Reports the occurrences that start in [from, to) (each fits in hay) one position at a time.
  bool scan_plain(std::string_view hay, std::size_t from, std::size_t to, OnMatch on_match,
                  void* context, const std::size_t* useless_below) const;
  // Reports the occurrences among the starts in `mask` (bit i: start base + i, i < width), by
  // start. True when on_match stopped the scan; else `next` is where the scan goes on: base +
  // width, or further where useless_below skips (see scan).
  bool report(std::uint64_t mask, std::size_t base, std::size_t width, std::string_view hay,
              OnMatch on_match, void* context, const std::size_t* useless_below,
              std::size_t& next) const;

  // A byte the scan compares: its offset in the literal, the byte there (lower-cased when
  // caseless) and what is OR-ed into the haystack's byte before comparing (0x20 for a letter
  // under caseless, else 0).
  struct KeyByte {
    std::size_t offset = 0;
    unsigned char byte = 0;
    unsigned char fold = 0;
  };

  std::string literal_;  // lower-cased when caseless
  bool caseless_;
  // The rarest pair, then a third byte (the rarest other offset) that the 32-byte scan compares
  // too: the pair `th` of `-c the` let through every `this` and `with` (460 MB of C: 90 -> 80
  // ms; `static` 52 -> 47).
  KeyByte keys_[3];
};

}  // namespace ctx::engine::detail
