#include "ctx/agent/budget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "shape_count.hpp"

namespace ctx::agent {

namespace {

enum class ByteClass : std::uint8_t { kLetter, kDigit, kSpace, kBreak, kNonAscii, kPunct };

constexpr ByteClass classify(unsigned char c) {
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return ByteClass::kLetter;
  if (c >= '0' && c <= '9') return ByteClass::kDigit;
  if (c == ' ' || c == '\t') return ByteClass::kSpace;
  if (c == '\n' || c == '\r') return ByteClass::kBreak;
  if (c >= 0x80) return ByteClass::kNonAscii;
  return ByteClass::kPunct;
}

// classify() as a table.
constexpr std::array<ByteClass, 256> kClassTable = [] {
  std::array<ByteClass, 256> table{};
  for (std::size_t c = 0; c < table.size(); ++c) table[c] = classify(static_cast<unsigned char>(c));
  return table;
}();

ByteClass class_of(unsigned char c) { return kClassTable[c]; }

// Texts shorter than this (the lines renderers charge one by one) are counted run by run; longer
// ones (whole texts, counted once more by BudgetWriter::finish) by the state machine in four
// parts, which is about twice as fast on a source file but slower on a line of 50 bytes.
constexpr std::size_t kPartedCountBytes = 256;

// The half tokens of `text`, run by run: the definition as it reads.
std::size_t count_halves_by_runs(std::string_view text) {
  std::size_t halves = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const ByteClass cls = class_of(static_cast<unsigned char>(text[i]));
    std::size_t j = i + 1;
    while (j < text.size() && class_of(static_cast<unsigned char>(text[j])) == cls) ++j;
    const std::size_t run = j - i;
    switch (cls) {
      case ByteClass::kLetter:
        halves += 2 * ((run + 4) / 5);
        break;
      case ByteClass::kDigit:
        halves += 2 * ((run + 2) / 3);
        break;
      case ByteClass::kSpace:
        halves += run == 1 ? 1 : 2;
        break;
      case ByteClass::kBreak:
      case ByteClass::kPunct:
        halves += 2 * run;
        break;
      case ByteClass::kNonAscii:
        halves += run;
        for (std::size_t k = i; k < j; ++k) {
          const auto c = static_cast<unsigned char>(text[k]);
          if (c >= 0xF0 && c <= 0xF4) halves += 2;  // a 4-byte character's lead byte
        }
        break;
    }
    i = j;
  }
  return halves;
}

// The count as a byte-at-a-time state machine: the state is the class of the run the last byte
// ended and, for letters, digits and spaces, where in the run it is, so the half tokens a run costs
// are charged as its bytes arrive. A letter run of L bytes costs 2 at bytes 1, 6, 11, ... (2 *
// ceil(L / 5)), a digit run 2 at bytes 1, 4, 7, ..., a space run 1 at bytes 1 and 2; a line break
// or punctuation byte 2, a non-ASCII byte 1 (3 for a 4-byte character's lead byte F0-F4).
enum State : std::uint8_t {
  kLetter0 = 0,  // .. kLetter0 + 4: a letter run's length mod 5 is 1 .. 5 (0)
  kDigit0 = 5,   // .. kDigit0 + 2: a digit run's length mod 3 is 1 .. 3 (0)
  kSpace1 = 8,   // a space run of 1, 2, more bytes
  kSpace2 = 9,
  kSpaceMore = 10,
  kInBreak = 11,
  kInPunct = 12,
  kInNonAscii = 13,
  kStart = 14,  // nothing before
  kStateCount = 15,
};

struct Step {
  std::uint8_t next;
  std::uint8_t halves;
};

constexpr Step step_for(unsigned state, unsigned char c) {
  switch (classify(c)) {
    case ByteClass::kLetter: {
      const unsigned next = state <= kLetter0 + 4 ? (state - kLetter0 + 1) % 5 : 0;
      return {static_cast<std::uint8_t>(kLetter0 + next),
              static_cast<std::uint8_t>(next == 0 ? 2 : 0)};
    }
    case ByteClass::kDigit: {
      const bool in_run = state >= kDigit0 && state <= kDigit0 + 2;
      const unsigned next = in_run ? (state - kDigit0 + 1) % 3 : 0;
      return {static_cast<std::uint8_t>(kDigit0 + next),
              static_cast<std::uint8_t>(next == 0 ? 2 : 0)};
    }
    case ByteClass::kSpace:
      if (state == kSpace1) return {kSpace2, 1};
      if (state == kSpace2 || state == kSpaceMore) return {kSpaceMore, 0};
      return {kSpace1, 1};
    case ByteClass::kBreak:
      return {kInBreak, 2};
    case ByteClass::kPunct:
      return {kInPunct, 2};
    case ByteClass::kNonAscii:
      return {kInNonAscii, static_cast<std::uint8_t>(c >= 0xF0 && c <= 0xF4 ? 3 : 1)};
  }
  return {kStart, 0};
}

// step_for as a table, packed as next | halves << 4.
constexpr std::size_t kStepTableSize = std::size_t{kStateCount} * 256;
constexpr std::array<std::uint8_t, kStepTableSize> kSteps = [] {
  std::array<std::uint8_t, kStepTableSize> table{};
  for (unsigned state = 0; state < kStateCount; ++state) {
    for (unsigned c = 0; c < 256; ++c) {
      const Step step = step_for(state, static_cast<unsigned char>(c));
      table[state * 256 + c] = static_cast<std::uint8_t>(step.next | step.halves << 4);
    }
  }
  return table;
}();

// Steps `text` through `steps` (entries: the next state in the bits under `kHalvesShift`, the
// half tokens charged above them) in four parts cut at line starts, one state per part stepped in
// turn: the steps of one part depend on each other, the parts' do not. A part that starts after a
// '\n' starts in kInBreak, the state that '\n' leaves whatever came before it, so the sum of the
// parts' charges is the charge of the whole. Returns that sum; `last_state` receives the last
// part's final state.
template <std::size_t kTableSize, unsigned kHalvesShift>
std::size_t step_parted(std::string_view text, const std::array<std::uint8_t, kTableSize>& steps,
                        unsigned& last_state) {
  constexpr std::size_t kParts = 4;
  constexpr unsigned kStateMask = (1U << kHalvesShift) - 1;
  const std::size_t n = text.size();
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  std::array<std::size_t, kParts + 1> cut{};
  cut[kParts] = n;
  for (std::size_t k = 1; k < kParts; ++k) {
    // The first line start after max(the previous cut, k/4 of the text), else the end.
    const std::size_t from = std::max<std::size_t>({cut[k - 1], n / kParts * k, 1});
    const void* nl = from <= n ? std::memchr(bytes + from - 1, '\n', n - (from - 1)) : nullptr;
    cut[k] = nl == nullptr
                 ? n
                 : static_cast<std::size_t>(static_cast<const unsigned char*>(nl) - bytes) + 1;
  }
  std::array<unsigned, kParts> state{kStart, kInBreak, kInBreak, kInBreak};
  std::array<std::size_t, kParts> halves{};
  std::size_t common = n;
  for (std::size_t k = 0; k < kParts; ++k) common = std::min(common, cut[k + 1] - cut[k]);
  for (std::size_t i = 0; i < common; ++i) {
    for (std::size_t k = 0; k < kParts; ++k) {
      const std::uint8_t e = steps[state[k] * 256 + bytes[cut[k] + i]];
      halves[k] += static_cast<std::size_t>(e >> kHalvesShift);
      state[k] = e & kStateMask;
    }
  }
  std::size_t total = 0;
  for (std::size_t k = 0; k < kParts; ++k) {
    for (std::size_t i = cut[k] + common; i < cut[k + 1]; ++i) {
      const std::uint8_t e = steps[state[k] * 256 + bytes[i]];
      halves[k] += static_cast<std::size_t>(e >> kHalvesShift);
      state[k] = e & kStateMask;
    }
    total += halves[k];
  }
  last_state = state[kParts - 1];
  return total;
}

// Counts half tokens over `text` (four parts stepped in turn, see step_parted).
std::size_t count_halves_parted(std::string_view text) {
  unsigned last = 0;
  return step_parted<kStepTableSize, 4>(text, kSteps, last);
}

// The machine above extended to count a text line by line: the sum over its lines (each ending in
// '\n', the last one maybe not) of each line's own count, (halves + 1) / 2. Since a '\n' leaves
// kInBreak, which steps every byte as kStart does, a line is stepped the same whether it stands
// alone or follows another; only the rounding is per line, so a state also holds the parity of
// the line's halves so far (bit 4), and a '\n' charges that parity as one more half. The sum of
// the charges is then the sum of (halves + halves % 2) over the lines, twice their counts.
constexpr unsigned kParity = 16;
constexpr std::size_t kLineStepTableSize = std::size_t{2} * kParity * 256;
constexpr std::array<std::uint8_t, kLineStepTableSize> kLineSteps = [] {
  std::array<std::uint8_t, kLineStepTableSize> table{};
  for (unsigned parity = 0; parity < 2; ++parity) {
    for (unsigned state = 0; state < kStateCount; ++state) {
      for (unsigned c = 0; c < 256; ++c) {
        const Step step = step_for(state, static_cast<unsigned char>(c));
        unsigned next = step.next;
        unsigned halves = step.halves;
        if (c == '\n') {
          halves += parity;  // the line's halves, this '\n' (2) included, made even
        } else if (((parity + halves) & 1U) != 0) {
          next |= kParity;
        }
        table[(state | parity * kParity) * 256 + c] = static_cast<std::uint8_t>(next | halves << 5);
      }
    }
  }
  return table;
}();

// The sum of the counts of the lines of `text`, stepped in four parts as count_halves_parted does.
std::size_t count_lines_parted(std::string_view text) {
  unsigned last = 0;
  std::size_t total = step_parted<kLineStepTableSize, 5>(text, kLineSteps, last);
  // A last line without '\n' is rounded here (only the last part can end inside a line).
  if ((last & kParity) != 0) ++total;
  return total / 2;
}

}  // namespace

std::size_t TokenCounter::count_pieces(std::string_view text, std::size_t from,
                                       std::span<const std::size_t> ends) const {
  std::size_t total = 0;
  for (std::size_t end : ends) {
    total += count(text.substr(from, end - from));
    from = end;
  }
  return total;
}

std::size_t EstimatingCounter::count_pieces(std::string_view text, std::size_t from,
                                            std::span<const std::size_t> ends) const {
  // Pieces that are exactly the lines of their span (the way renderers charge a listing or a
  // file) are counted in one pass over the span; others, or a few short ones, one by one.
  const bool simd = detail::have_shape_avx2();
  if (ends.empty() || (!simd && ends.back() - from < 2 * kPartedCountBytes)) {
    return TokenCounter::count_pieces(text, from, ends);
  }
  std::size_t line_ends = 0;  // pieces that end in '\n'
  std::size_t start = from;
  for (std::size_t i = 0; i < ends.size(); ++i) {
    const std::size_t end = ends[i];
    if (end > start) {
      if (text[end - 1] == '\n') {
        ++line_ends;
      } else if (i + 1 < ends.size()) {
        return TokenCounter::count_pieces(text, from, ends);  // a piece ends inside a line
      }
    }
    start = end;
  }
  const std::string_view span = text.substr(from, ends.back() - from);
  if (simd) {
    const detail::ShapeHalves shape = detail::shape_halves_avx2(span);
    if (shape.newlines != line_ends) {
      return TokenCounter::count_pieces(text, from, ends);  // a piece holds several lines
    }
    return (shape.halves + shape.odd_lines) / 2;
  }
  if (static_cast<std::size_t>(std::count(span.begin(), span.end(), '\n')) != line_ends) {
    return TokenCounter::count_pieces(text, from, ends);  // a piece holds several lines
  }
  return count_lines_parted(span);
}

std::size_t EstimatingCounter::count(std::string_view text) const {
  if (detail::have_shape_avx2()) return (detail::shape_halves_avx2(text).halves + 1) / 2;
  const std::size_t halves =
      text.size() < kPartedCountBytes ? count_halves_by_runs(text) : count_halves_parted(text);
  return (halves + 1) / 2;
}

BudgetWriter::BudgetWriter(const TokenCounter& counter, std::size_t max_tokens, std::size_t reserve)
    : counter_(counter),
      estimator_(dynamic_cast<const EstimatingCounter*>(&counter)),
      max_tokens_(max_tokens),
      reserve_(reserve < max_tokens ? reserve : max_tokens) {}

void BudgetWriter::settle() const {
  if (!pending_ends_.empty()) {
    used_ +=
        counter_.count_pieces(std::string_view(text_.data(), end_), pending_from_, pending_ends_);
  }
  pending_ends_.clear();
  pending_bound_ = 0;
  pending_from_ = end_;
}

void BudgetWriter::put(std::string_view piece) {
  std::memcpy(room(piece.size()), piece.data(), piece.size());
  end_ += piece.size();
}

void BudgetWriter::reserve(std::size_t bytes) {
  if (text_.size() < bytes) text_.resize(bytes);
}

void BudgetWriter::grow(std::size_t bytes) {
  text_.resize(std::max({end_ + bytes, 2 * text_.size(), std::size_t{256}}));
}

bool BudgetWriter::fits(std::string_view piece) const {
  const std::size_t bound = counter_.max_count(piece.size());
  if (bound != SIZE_MAX && used_ + pending_bound_ + bound + reserve_ <= max_tokens_) return true;
  settle();
  return used_ + counter_.count(piece) + reserve_ <= max_tokens_;
}

bool BudgetWriter::append(std::string_view piece) {
  // While the bounds fit, the real counts fit too: take the piece uncounted.
  if (const std::size_t bound = bound_if_fits(piece.size()); bound != SIZE_MAX) {
    std::memcpy(room(piece.size()), piece.data(), piece.size());
    take_on_bound(piece.size(), bound);
    return true;
  }
  settle();
  const std::size_t cost = counter_.count(piece);
  if (used_ + cost + reserve_ > max_tokens_) {
    cut_ = true;
    return false;
  }
  put(piece);
  used_ += cost;
  return true;
}

bool BudgetWriter::append_parts(std::span<const std::string_view> parts) {
  std::size_t bytes = 0;
  for (std::string_view part : parts) bytes += part.size();
  // As append: while the bounds fit, the parts are taken uncounted, copied once.
  if (const std::size_t bound = bound_if_fits(bytes); bound != SIZE_MAX) {
    char* at = room(bytes);
    for (std::string_view part : parts) {
      std::memcpy(at, part.data(), part.size());
      at += part.size();
    }
    take_on_bound(bytes, bound);
    return true;
  }
  joined_.clear();
  for (std::string_view part : parts) joined_.append(part);
  return append(joined_);
}

namespace {

// The longest prefix of `s` no longer than `bytes` that does not split a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view s, std::size_t bytes) {
  if (bytes >= s.size()) return s;
  while (bytes > 0 && (static_cast<unsigned char>(s[bytes]) & 0xC0) == 0x80) --bytes;
  return s.substr(0, bytes);
}

}  // namespace

std::string BudgetWriter::finish(std::string_view footer) {
  text_.resize(end_);  // from here on text_ is exactly the body (settle below reads end_)
  // Every path below sets used_ to the count of the text returned: the pending pieces need no
  // count of their own.
  if (!count_on_finish_ && counter_.subadditive()) {
    const bool breaks = !text_.empty() && text_.back() != '\n' && !footer.empty();
    auto with_footer = [&] {
      if (breaks) text_.push_back('\n');
      text_.append(footer);
      pending_ends_.clear();
      pending_bound_ = 0;
      used_ = 0;
      return std::move(text_);
    };
    // The whole costs at most the body's bound plus the footer's with its line break,
    const std::size_t footer_bound = counter_.max_count(footer.size() + 1);
    if (footer_bound != SIZE_MAX && used_ + pending_bound_ + footer_bound <= max_tokens_) {
      return with_footer();
    }
    // and at most the body's count plus the footer's and the line break's.
    settle();
    const std::size_t tail = counter_.count(footer) + (breaks ? counter_.count("\n") : 0);
    if (used_ + tail <= max_tokens_) return with_footer();
  }
  pending_ends_.clear();
  pending_bound_ = 0;
  // `body_len` bytes of the body, a line break when that body does not end in one, the footer.
  std::string candidate;
  auto compose = [&](std::size_t body_len, std::string_view tail) -> const std::string& {
    candidate.assign(text_, 0, body_len);
    if (body_len > 0 && text_[body_len - 1] != '\n' && !tail.empty()) candidate.push_back('\n');
    candidate.append(tail);
    return candidate;
  };
  auto fits_whole = [&](std::size_t body_len, std::string_view tail) {
    return counter_.count(compose(body_len, tail)) <= max_tokens_;
  };

  // The usual case: the footer appended in place and one count of the whole, which is then the
  // count used() reports.
  const std::size_t body = text_.size();
  if (body > 0 && text_.back() != '\n' && !footer.empty()) text_.push_back('\n');
  text_.append(footer);
  if (const std::size_t whole = counter_.count(text_); whole <= max_tokens_) {
    used_ = whole;
    return std::move(text_);
  }
  text_.resize(body);

  // Over budget: keep the longest run of whole body lines that fits with the whole footer. The
  // cut points are line starts; cuts[0] == 0 keeps no body at all.
  std::vector<std::size_t> cuts = {0};
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n' && i + 1 < text_.size()) cuts.push_back(i + 1);
  }
  trimmed_ = !text_.empty();
  cut_ = true;
  std::string_view tail = footer;
  std::string fallback;
  if (!fits_whole(0, tail)) {
    // Not even the footer alone fits: a footer cut short would name half a call (a cursor the
    // next call refuses), so a short one says how large a budget it needs instead, clipped only
    // where even that does not fit (below the smallest max_tokens a tool accepts).
    fallback = fmt::format(
        "(the next call does not fit in max_tokens={}; call again with "
        "max_tokens={})",
        max_tokens_, std::max(counter_.count(footer) * 2, max_tokens_ * 2));
    tail = fallback;
    if (fits_whole(0, tail)) {
      text_ = std::string(tail);
      used_ = counter_.count(text_);
      return std::move(text_);
    }
    std::size_t lo = 0;
    std::size_t hi = tail.size();  // fits(lo) holds (the empty text costs nothing); hi does not
    while (hi - lo > 1) {
      std::size_t mid = lo + (hi - lo) / 2;
      if (counter_.count(utf8_prefix(tail, mid)) <= max_tokens_) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    text_ = std::string(utf8_prefix(tail, lo));
    used_ = counter_.count(text_);
    return std::move(text_);
  }
  // cuts[lo] fits; keeping everything does not. Binary search for the last cut that fits.
  std::size_t lo = 0;
  std::size_t hi = cuts.size();  // index cuts.size() stands for the whole body
  while (hi - lo > 1) {
    std::size_t mid = lo + (hi - lo) / 2;
    if (fits_whole(cuts[mid], tail)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  text_ = compose(cuts[lo], tail);
  used_ = counter_.count(text_);
  return std::move(text_);
}

}  // namespace ctx::agent
