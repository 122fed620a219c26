// Token budgets. Every tool renders its text through a `BudgetWriter`, which counts with a
// `TokenCounter`. The counter is an interface so a model's own tokenizer can replace the
// estimator later without touching any renderer: renderers charge pieces as they go (cheap) and
// `finish` checks the whole text once, so only an exact count of the final text is ever trusted.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ctx::agent {

class TokenCounter {
 public:
  virtual ~TokenCounter() = default;
  // Tokens `text` costs on its own. Renderers assume counts are close to additive (a piece
  // appended costs about what it costs alone); BudgetWriter::finish re-checks the whole, so a
  // counter whose counts are not additive (a real BPE tokenizer) still never overruns a budget.
  virtual std::size_t count(std::string_view text) const = 0;
  virtual std::string_view name() const = 0;
};

// The calibrated estimate: ASCII code runs 3.7-4.6 bytes per token in the Qwen2.5, Llama 3 and
// o200k tokenizers and bytes/4 undercounts C++ by ~8%, so ASCII bytes cost 1/3.5 token each.
// Non-ASCII text is denser in tokens (a CJK character is often a token of its own, an emoji two
// or three, an invalid byte one), so every byte of a multi-byte character costs 1/2 token.
// The total is rounded up. Conservative: over-counts rather than under. Subadditive
// (count(a + b) <= count(a) + count(b)), so charging pieces one by one never undercounts.
class EstimatingCounter final : public TokenCounter {
 public:
  std::size_t count(std::string_view text) const override;
  std::string_view name() const override { return "estimate-ascii/3.5-utf8/2"; }
};

// Builds a text that never costs more than `max_tokens` by the counter's count of the whole text.
// `reserve` tokens are held back for the last line (the footer: what was cut, the next call),
// which `finish` always fits.
class BudgetWriter {
 public:
  BudgetWriter(const TokenCounter& counter, std::size_t max_tokens, std::size_t reserve);

  // Appends `piece` when its count fits in the budget left (minus the reserve); false, and
  // nothing appended, when it does not. Once a piece is refused, `cut()` is true.
  bool append(std::string_view piece);
  // True when `piece` would fit.
  bool fits(std::string_view piece) const;
  // Marks that something was left out without trying to append it.
  void mark_cut() { cut_ = true; }
  bool cut() const { return cut_; }

  // Appends `footer` as the last line (on a line of its own) and returns the text, whose whole
  // count is <= max_tokens. The footer is kept whole whenever it fits on its own: when the body
  // leaves it no room (a reserve too small, or piece counts that were not additive), whole lines
  // are dropped from the end of the body first, and `trimmed()` says so; only a footer that
  // cannot fit even alone is clipped (at a UTF-8 boundary).
  std::string finish(std::string_view footer);

  // True when `finish` dropped body text that `append` had accepted. A renderer that recorded
  // what it showed (item counts, a paging cursor) must then render again with fewer items.
  bool trimmed() const { return trimmed_; }

  std::size_t used() const { return used_; }
  std::size_t max_tokens() const { return max_tokens_; }

 private:
  const TokenCounter& counter_;
  std::size_t max_tokens_;
  std::size_t reserve_;
  std::size_t used_ = 0;
  bool cut_ = false;
  bool trimmed_ = false;
  std::string text_;
};

}  // namespace ctx::agent
