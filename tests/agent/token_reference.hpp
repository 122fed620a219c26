// The token estimator's definition (agent/include/ctx/agent/budget.hpp), run by run: the oracle
// of the estimator's tests (budget_test, shape_count_test).
#pragma once

#include <cstddef>
#include <string_view>

namespace ctx::testing {

// The estimator's definition as budget.hpp states it: the half tokens of each maximal run of one
// byte class.
inline std::size_t halves_by_runs(std::string_view text) {
  auto cls = [](unsigned char c) {
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return 0;  // letter
    if (c >= '0' && c <= '9') return 1;                    // digit
    if (c == ' ' || c == '\t') return 2;                   // space
    if (c == '\n' || c == '\r') return 3;                  // line break
    if (c >= 0x80) return 4;                               // non-ASCII
    return 5;                                              // punctuation
  };
  std::size_t halves = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const int k = cls(static_cast<unsigned char>(text[i]));
    std::size_t j = i + 1;
    while (j < text.size() && cls(static_cast<unsigned char>(text[j])) == k) ++j;
    const std::size_t run = j - i;
    if (k == 0) halves += 2 * ((run + 4) / 5);
    if (k == 1) halves += 2 * ((run + 2) / 3);
    if (k == 2) halves += run == 1 ? 1 : 2;
    if (k == 3 || k == 5) halves += 2 * run;
    if (k == 4) {
      halves += run;
      for (std::size_t m = i; m < j; ++m) {
        const auto c = static_cast<unsigned char>(text[m]);
        if (c >= 0xF0 && c <= 0xF4) halves += 2;
      }
    }
    i = j;
  }
  return halves;
}

}  // namespace ctx::testing
