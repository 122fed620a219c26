// The token estimator's count (EstimatingCounter, see budget.hpp) 64 bytes at a time with AVX2:
// byte classes become bit masks, runs their starts, and a line's rounding the parity of its odd
// charges. BudgetWriter counts every shown line of a result that reaches its budget, so this is
// on the path of such calls; the table-driven state machine in budget.cpp stays the fallback.
#pragma once

#include <cstddef>
#include <string_view>

namespace ctx::agent::detail {

struct ShapeHalves {
  std::size_t halves = 0;     // the estimator's half tokens of the whole text
  std::size_t odd_lines = 0;  // lines (each ending in '\n'; the last maybe not) with odd halves
  std::size_t newlines = 0;   // '\n' bytes
};

// True when this CPU runs shape_halves_avx2 (AVX2 and POPCNT).
bool have_shape_avx2();

// The half tokens of `text` by the estimator's definition, and per line: the sum over its lines
// of each line's count, (halves + 1) / 2, is (halves + odd_lines) / 2. Call only when
// have_shape_avx2().
ShapeHalves shape_halves_avx2(std::string_view text);

}  // namespace ctx::agent::detail
