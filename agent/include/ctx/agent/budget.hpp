// Token budgets. Every tool renders its text through a `BudgetWriter`, which counts with a
// `TokenCounter`. The counter is an interface so a model's own tokenizer can replace the
// estimator later without touching any renderer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ctx::agent {

class TokenCounter {
 public:
  virtual ~TokenCounter() = default;
  // Tokens `text` costs on its own. Renderers assume counts are close to additive (a piece
  // appended costs about what it costs alone) and BudgetWriter re-checks the whole at the end.
  virtual std::size_t count(std::string_view text) const = 0;
  virtual std::string_view name() const = 0;
};

// The calibrated estimate: code runs 3.7-4.6 bytes per token in the Qwen2.5, Llama 3 and o200k
// tokenizers and bytes/4 undercounts C++ by ~8%, so this charges ceil(bytes / 3.5), counting
// non-ASCII text by its UTF-8 bytes. Conservative: over-counts rather than under.
class EstimatingCounter final : public TokenCounter {
 public:
  std::size_t count(std::string_view text) const override;
  std::string_view name() const override { return "estimate-bytes/3.5"; }
};

// Builds a text that never costs more than `max_tokens`. `reserve` tokens are held back for the
// last line (the truncation notice), which `finish` always fits.
class BudgetWriter {
 public:
  BudgetWriter(const TokenCounter& counter, std::size_t max_tokens, std::size_t reserve);

  // Appends `piece` when it fits in the budget left (minus the reserve); false, and nothing
  // appended, when it does not. Once a piece is refused, `cut()` is true.
  bool append(std::string_view piece);
  // True when `piece` would fit.
  bool fits(std::string_view piece) const;
  // Marks that something was left out without trying to append it.
  void mark_cut() { cut_ = true; }
  bool cut() const { return cut_; }

  // Appends the last line (may use the reserve) and returns the text. If even the reserve cannot
  // hold `footer`, the footer is clipped at a UTF-8 boundary so the whole stays in budget.
  std::string finish(std::string_view footer);

  std::size_t used() const { return used_; }
  std::size_t max_tokens() const { return max_tokens_; }

 private:
  const TokenCounter& counter_;
  std::size_t max_tokens_;
  std::size_t reserve_;
  std::size_t used_ = 0;
  bool cut_ = false;
  std::string text_;
};

}  // namespace ctx::agent
