// The small JSON vocabulary of ripgrep's --json messages: strings that are UTF-8 become
// {"text": "..."} with JSON escapes, anything else {"bytes": "<base64>"}.
#pragma once

#include <string>
#include <string_view>

#include "ctx/base/utf8.hpp"  // is_valid_utf8

namespace ctx {

// Appends `s` as a JSON string literal (quotes included), escaping as serde_json does.
void append_json_string(std::string& out, std::string_view s);
// The room put_json_body needs for `bytes` bytes of input: every byte may become a 6-byte
// escape, and its stores may run up to 32 bytes past what it writes.
constexpr std::size_t json_body_room(std::size_t bytes) { return 6 * bytes + 32; }
// Writes `s` escaped as append_json_string escapes it, without the quotes, at `out`, which must
// have json_body_room(s.size()) bytes of room; returns the end of what it wrote (the bytes past
// it, within the room, may have been overwritten).
char* put_json_body(char* out, std::string_view s);
// Appends {"text":"..."} or {"bytes":"<base64>"}.
void append_json_data(std::string& out, std::string_view s);
// True when append_json_string would copy every byte of `s` unchanged (no control byte, '"' or
// '\\'), and, with `ascii_only`, every byte is ASCII (so `s` is valid UTF-8 as well): such a
// string may be written as it is between quotes.
bool json_string_is_plain(std::string_view s, bool ascii_only);
// The offset of the first byte of `s` at or after `from` that append_json_string would escape,
// '\n' excepted (so every line between line breaks before it is plain); s.size() when none.
std::size_t find_json_escape_except_newline(std::string_view s, std::size_t from);

}  // namespace ctx
