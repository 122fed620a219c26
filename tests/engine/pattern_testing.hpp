// The two non-ASCII characters that Unicode simple case folding maps to ASCII letters, for the
// engine tests of -i (Hyperscan folds ASCII only; PCRE2 with UCP and ripgrep fold these too).
#pragma once

#include <string_view>

namespace ctx::testing {

inline constexpr std::string_view kKelvin = "\xE2\x84\xAA";  // U+212A KELVIN SIGN, folds to k
inline constexpr std::string_view kLongS = "\xC5\xBF";  // U+017F LATIN SMALL LETTER LONG S, to s

}  // namespace ctx::testing
