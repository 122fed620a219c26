#include "cursor.hpp"

#include <fmt/format.h>

#include <charconv>

namespace ctx::agent {

namespace {

constexpr std::uint64_t kFnvOffset = 14695981039346656037ULL;
constexpr std::uint64_t kFnvPrime = 1099511628211ULL;
constexpr std::string_view kPrefix = "c1.";

}  // namespace

CursorKey::CursorKey(std::string_view tool) : hash_(kFnvOffset) { mix(tool); }

void CursorKey::mix(std::string_view bytes) {
  // Length-prefixed so ("ab","c") and ("a","bc") differ.
  std::uint64_t size = bytes.size();
  for (int i = 0; i < 8; ++i) {
    hash_ = (hash_ ^ ((size >> (8 * i)) & 0xFF)) * kFnvPrime;
  }
  for (char c : bytes) hash_ = (hash_ ^ static_cast<unsigned char>(c)) * kFnvPrime;
}

CursorKey& CursorKey::add(std::string_view name, std::string_view value) {
  mix(name);
  mix("s");
  mix(value);
  return *this;
}

CursorKey& CursorKey::add(std::string_view name, std::int64_t value) {
  mix(name);
  mix("i");
  mix(fmt::format("{}", value));
  return *this;
}

CursorKey& CursorKey::add(std::string_view name, bool value) {
  mix(name);
  mix("b");
  mix(value ? "1" : "0");
  return *this;
}

std::string encode_cursor(const CursorKey& key, std::uint64_t offset) {
  // The fingerprint's low 48 bits are plenty to tell argument sets apart and keep cursors short.
  return fmt::format("{}{}.{:012x}", kPrefix, offset, key.fingerprint() & 0xFFFF'FFFF'FFFFULL);
}

Expected<std::uint64_t> decode_cursor(std::string_view cursor, const CursorKey& key,
                                      std::string_view tool) {
  auto malformed = [&] {
    return ToolError{ToolErrorCode::kInvalidArgument,
                     fmt::format("'{}' is not a cursor {} returned", cursor, tool),
                     fmt::format("pass next_cursor exactly as the previous {} call returned it, "
                                 "or omit cursor to start from the beginning",
                                 tool)};
  };
  if (cursor.substr(0, kPrefix.size()) != kPrefix) return malformed();
  std::string_view rest = cursor.substr(kPrefix.size());
  std::size_t dot = rest.find('.');
  if (dot == std::string_view::npos || dot == 0) return malformed();
  std::uint64_t offset = 0;
  std::uint64_t fingerprint = 0;
  auto [end1, ec1] = std::from_chars(rest.data(), rest.data() + dot, offset);
  if (ec1 != std::errc{} || end1 != rest.data() + dot) return malformed();
  std::string_view fp = rest.substr(dot + 1);
  if (fp.size() != 12) return malformed();
  auto [end2, ec2] = std::from_chars(fp.data(), fp.data() + fp.size(), fingerprint, 16);
  if (ec2 != std::errc{} || end2 != fp.data() + fp.size()) return malformed();
  if (fingerprint != (key.fingerprint() & 0xFFFF'FFFF'FFFFULL)) {
    return ToolError{
        ToolErrorCode::kInvalidArgument,
        fmt::format("cursor '{}' belongs to a {} call with other arguments", cursor, tool),
        fmt::format("repeat the {} call with the same arguments as the call that returned this "
                    "cursor (only max_results and max_tokens may change), or omit cursor to "
                    "start over",
                    tool)};
  }
  return offset;
}

}  // namespace ctx::agent
