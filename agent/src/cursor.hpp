// Paging cursors for the listing tools (find_files, list_directory, search_files). A cursor is an
// opaque string naming an offset into a deterministic (sorted) result list plus a fingerprint of
// the arguments that define that list, so a cursor sent back with other arguments is refused
// (invalid_argument) instead of silently paging a different list.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ctx/agent/tool_error.hpp"

namespace ctx::agent {

// Builds the fingerprint of one call's list-defining arguments: the tool name and every argument
// that changes which items the list holds or their order (never max_results, max_tokens or the
// cursor itself, which only change how much of the list one call shows).
class CursorKey {
 public:
  explicit CursorKey(std::string_view tool);
  CursorKey& add(std::string_view name, std::string_view value);
  CursorKey& add(std::string_view name, std::int64_t value);
  CursorKey& add(std::string_view name, bool value);
  std::uint64_t fingerprint() const { return hash_; }

 private:
  void mix(std::string_view bytes);
  std::uint64_t hash_;
};

// The cursor for the item at `offset` (0-based) of the list `key` defines.
std::string encode_cursor(const CursorKey& key, std::uint64_t offset);

// The offset a cursor names. Errors (invalid_argument, with a hint naming `tool`): a string that
// is no cursor, or a cursor made for other arguments.
Expected<std::uint64_t> decode_cursor(std::string_view cursor, const CursorKey& key,
                                      std::string_view tool);

}  // namespace ctx::agent
