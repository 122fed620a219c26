// The verdict every path filter gives (ignore files, -g overrides, file types): no opinion, ignore
// the path, or whitelist it (a negated ignore line, a positive -g glob, a selected type).
#pragma once

#include <cstdint>

namespace ctx::walker {

enum class MatchKind : std::uint8_t { kNone, kIgnore, kWhitelist };

// Early stop is a value, returned by sinks. kSkip (a directory reported under
// WalkOptions::report_all) keeps the walk out of that directory; elsewhere it means kContinue.
enum class Flow : std::uint8_t { kContinue, kStop, kSkip };

}  // namespace ctx::walker
