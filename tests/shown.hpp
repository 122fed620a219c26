// Test helper: bytes made readable for failure messages.
#pragma once

#include <string>
#include <string_view>

namespace ctx::testing {

// The bytes of `s` in quotes, with the unprintable ones escaped as \xNN.
inline std::string shown(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(ch);
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out + "'";
}

}  // namespace ctx::testing
