#include "shape_count.hpp"

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace ctx::agent::detail {

namespace {

// Bit i of each mask is byte i of a 64-byte block.
struct BlockMasks {
  std::uint64_t letter;
  std::uint64_t digit;
  std::uint64_t space;    // ' ' or '\t'
  std::uint64_t newline;  // '\n'
  std::uint64_t non_ascii;
  std::uint64_t lead4;  // F0-F4, a 4-byte character's lead byte
};

__attribute__((target("avx2"))) inline std::uint64_t bits(__m256i lo, __m256i hi) {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(lo)) |
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(hi))) << 32;
}

// Byte c lies in [low, low + count) (count < 128), as a signed compare after moving low to -128.
__attribute__((target("avx2"))) inline __m256i in_range(__m256i c, int low, int count) {
  const __m256i moved = _mm256_add_epi8(c, _mm256_set1_epi8(static_cast<char>(0x80 - low)));
  return _mm256_cmpgt_epi8(_mm256_set1_epi8(static_cast<char>(-128 + count)), moved);
}

__attribute__((target("avx2"))) inline __m256i space_or_tab(__m256i c) {
  return _mm256_or_si256(_mm256_cmpeq_epi8(c, _mm256_set1_epi8(' ')),
                         _mm256_cmpeq_epi8(c, _mm256_set1_epi8('\t')));
}

__attribute__((target("avx2"))) inline BlockMasks classify(const unsigned char* p) {
  const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
  const __m256i case_bit = _mm256_set1_epi8(0x20);
  const __m256i newline = _mm256_set1_epi8('\n');
  return BlockMasks{
      bits(in_range(_mm256_or_si256(lo, case_bit), 'a', 26),
           in_range(_mm256_or_si256(hi, case_bit), 'a', 26)),
      bits(in_range(lo, '0', 10), in_range(hi, '0', 10)),
      bits(space_or_tab(lo), space_or_tab(hi)),
      bits(_mm256_cmpeq_epi8(lo, newline), _mm256_cmpeq_epi8(hi, newline)),
      bits(lo, hi),
      bits(in_range(lo, 0xF0, 5), in_range(hi, 0xF0, 5)),
  };
}

// x shifted up k bits (0 < k < 64), its low bits filled from the previous block's high bits.
inline std::uint64_t shl(std::uint64_t x, unsigned k, std::uint64_t prev) {
  return x << k | prev >> (64 - k);
}

// The bytes of the runs in `run` (a class's mask) that are charged: a run's bytes at offsets 0,
// period, 2 * period, ... from its start. `prev_run` and `prev_charged` are the previous block's.
template <unsigned kPeriod>
inline std::uint64_t charged_in_runs(std::uint64_t run, std::uint64_t prev_run,
                                     std::uint64_t prev_charged) {
  // Bytes whose kPeriod bytes before are all of the run too.
  std::uint64_t whole = run;
  for (unsigned k = 1; k <= kPeriod; ++k) whole &= shl(run, k, prev_run);
  std::uint64_t charged = (run & ~shl(run, 1, prev_run)) | (shl(0, kPeriod, prev_charged) & whole);
  if (whole == 0) return charged;
  for (;;) {
    const std::uint64_t next = charged | (charged << kPeriod & whole);
    if (next == charged) return charged;
    charged = next;
  }
}

// Bit i: the parity of the odd charges in `odd` from the start of byte i's line to byte i, where
// a line starts at each bit of `starts` (and `carry` is the parity of the line the block opens
// in): a segmented prefix XOR, six doubling steps.
inline std::uint64_t line_parity(std::uint64_t odd, std::uint64_t starts, bool carry) {
  std::uint64_t v = odd;
  std::uint64_t h = starts;
  for (unsigned d = 1; d < 64; d *= 2) {
    v ^= v << d & ~h;
    h |= h << d;
  }
  return carry ? v ^ ~h : v;
}

}  // namespace

bool have_shape_avx2() {
  static const bool have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  return have;
}

__attribute__((target("avx2,popcnt"))) ShapeHalves shape_halves_avx2(std::string_view text) {
  ShapeHalves out;
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  BlockMasks prev{};  // the previous block's masks (none before the text: kStart)
  std::uint64_t prev_letters_charged = 0;
  std::uint64_t prev_digits_charged = 0;
  bool open_parity = false;  // of the line the next block opens in
  alignas(32) unsigned char tail[64];
  for (std::size_t at = 0; at < n; at += 64) {
    std::uint64_t valid = ~std::uint64_t{0};
    const unsigned char* block = bytes + at;
    if (n - at < 64) {  // the last, short block: zero bytes past the end, masked out below
      std::memset(tail, 0, sizeof tail);
      std::memcpy(tail, block, n - at);
      block = tail;
      valid = (std::uint64_t{1} << (n - at)) - 1;
    }
    const BlockMasks m = classify(block);
    // Line breaks and punctuation 2 each (a zero byte past the end is no class: masked out).
    const std::uint64_t two_each = valid & ~(m.letter | m.digit | m.space | m.non_ascii);
    const std::uint64_t space_start = m.space & ~shl(m.space, 1, prev.space);
    const std::uint64_t space_second =
        m.space & shl(m.space, 1, prev.space) & ~shl(m.space, 2, prev.space);
    const std::uint64_t letters = charged_in_runs<5>(m.letter, prev.letter, prev_letters_charged);
    const std::uint64_t digits = charged_in_runs<3>(m.digit, prev.digit, prev_digits_charged);
    out.halves += static_cast<std::size_t>(
        2 * __builtin_popcountll(two_each) + __builtin_popcountll(m.non_ascii) +
        2 * __builtin_popcountll(m.lead4) + __builtin_popcountll(space_start) +
        __builtin_popcountll(space_second) + 2 * __builtin_popcountll(letters) +
        2 * __builtin_popcountll(digits));
    // Odd charges: a non-ASCII byte (1 or 3), a space run's first and second byte (1 each).
    const std::uint64_t odd = m.non_ascii | space_start | space_second;
    const std::uint64_t parity = line_parity(odd, shl(m.newline, 1, prev.newline), open_parity);
    out.odd_lines += static_cast<std::size_t>(__builtin_popcountll(parity & m.newline));
    out.newlines += static_cast<std::size_t>(__builtin_popcountll(m.newline));
    open_parity = (m.newline >> 63) == 0 && (parity >> 63) != 0;
    prev = m;
    prev_letters_charged = letters;
    prev_digits_charged = digits;
  }
  out.odd_lines += open_parity ? 1 : 0;  // a last line without '\n'
  return out;
}

}  // namespace ctx::agent::detail
