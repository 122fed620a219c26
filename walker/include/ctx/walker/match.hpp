// The verdict every path filter gives (ignore files, -g overrides, file types): no opinion, ignore
// the path, or whitelist it (a negated ignore line, a positive -g glob, a selected type).
#pragma once

#include <cstdint>

namespace ctx::walker {

enum class MatchKind : std::uint8_t { kNone, kIgnore, kWhitelist };

// Early stop is a value, returned by sinks.
enum class Flow : std::uint8_t { kContinue, kStop };

}  // namespace ctx::walker
