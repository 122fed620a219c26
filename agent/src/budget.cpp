#include "ctx/agent/budget.hpp"

namespace ctx::agent {

std::size_t EstimatingCounter::count(std::string_view text) const {
  // ceil(bytes / 3.5) == ceil(2 * bytes / 7)
  return (2 * text.size() + 6) / 7;
}

BudgetWriter::BudgetWriter(const TokenCounter& counter, std::size_t max_tokens, std::size_t reserve)
    : counter_(counter),
      max_tokens_(max_tokens),
      reserve_(reserve < max_tokens ? reserve : max_tokens) {}

bool BudgetWriter::fits(std::string_view piece) const {
  return used_ + counter_.count(piece) + reserve_ <= max_tokens_;
}

bool BudgetWriter::append(std::string_view piece) {
  if (!fits(piece)) {
    cut_ = true;
    return false;
  }
  text_.append(piece);
  used_ += counter_.count(piece);
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
  std::string_view tail = footer;
  while (!tail.empty() && used_ + counter_.count(tail) > max_tokens_) {
    tail = utf8_prefix(tail, tail.size() - 1);
  }
  text_.append(tail);
  used_ += counter_.count(tail);
  // Counts need not be additive for a real tokenizer: re-check the whole and drop whole lines
  // from the end of the body until it fits.
  while (!text_.empty() && counter_.count(text_) > max_tokens_) {
    std::size_t body_end = text_.size() - tail.size();
    std::size_t cut_at = text_.rfind('\n', body_end == 0 ? 0 : body_end - 1);
    cut_at = cut_at == std::string::npos ? 0 : cut_at + 1;
    if (cut_at >= body_end) {  // no body left: clip the footer itself
      text_ = std::string(utf8_prefix(text_, text_.size() - 1));
      tail = text_;
    } else {
      text_.erase(cut_at, body_end - cut_at);
    }
    cut_ = true;
  }
  used_ = counter_.count(text_);
  return std::move(text_);
}

}  // namespace ctx::agent
