#include "ctx/agent/budget.hpp"

#include <array>
#include <cstdint>
#include <vector>

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

// classify() as a table: every byte of every text a tool returns is classified (read_file's
// texts, counted whole once more by BudgetWriter::finish).
constexpr std::array<ByteClass, 256> kClassTable = [] {
  std::array<ByteClass, 256> table{};
  for (std::size_t c = 0; c < table.size(); ++c) table[c] = classify(static_cast<unsigned char>(c));
  return table;
}();

ByteClass class_of(unsigned char c) { return kClassTable[c]; }

}  // namespace

std::size_t EstimatingCounter::count(std::string_view text) const {
  std::size_t halves = 0;  // half tokens
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
  return (halves + 1) / 2;
}

BudgetWriter::BudgetWriter(const TokenCounter& counter, std::size_t max_tokens, std::size_t reserve)
    : counter_(counter),
      max_tokens_(max_tokens),
      reserve_(reserve < max_tokens ? reserve : max_tokens) {}

bool BudgetWriter::fits(std::string_view piece) const {
  return used_ + counter_.count(piece) + reserve_ <= max_tokens_;
}

bool BudgetWriter::append(std::string_view piece) {
  const std::size_t cost = counter_.count(piece);
  if (used_ + cost + reserve_ > max_tokens_) {
    cut_ = true;
    return false;
  }
  text_.append(piece);
  used_ += cost;
  return true;
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

  // The usual case: one count of the whole, which is then the count used() reports.
  if (const std::size_t whole = counter_.count(compose(text_.size(), footer));
      whole <= max_tokens_) {
    text_ = std::move(candidate);
    used_ = whole;
    return std::move(text_);
  }

  // Over budget: keep the longest run of whole body lines that fits with the whole footer. The
  // cut points are line starts; cuts[0] == 0 keeps no body at all.
  std::vector<std::size_t> cuts = {0};
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n' && i + 1 < text_.size()) cuts.push_back(i + 1);
  }
  trimmed_ = !text_.empty();
  cut_ = true;
  std::string_view tail = footer;
  if (!fits_whole(0, tail)) {
    // Not even the footer alone fits: clip it (binary search on its length).
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
