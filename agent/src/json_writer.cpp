#include "json_writer.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "ctx/base/json.hpp"

namespace ctx::agent {

namespace {

// Strings up to this long are checked byte by byte for the fast path below; longer ones go to the
// block-wise escaper at once.
constexpr std::size_t kShortString = 64;

// True when every byte of `s` is printable ASCII other than '"' and '\\': valid UTF-8 that JSON
// writes as it is (keys, kinds, numbers as text, most paths).
bool plain_ascii(std::string_view s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') return false;
  }
  return true;
}

// Appends `s` as a JSON string, copied as it is when it is short and plain_ascii.
void append_string(std::string& out, std::string_view s) {
  if (s.size() <= kShortString && plain_ascii(s)) {
    out.push_back('"');
    out.append(s);
    out.push_back('"');
    return;
  }
  append_json_string(out, s);
}

}  // namespace

std::string lossy_utf8(std::string_view text) {
  if (is_valid_utf8(text)) return std::string(text);  // the usual text: one check, one copy
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    std::size_t n = c < 0x80             ? 1
                    : (c & 0xE0) == 0xC0 ? 2
                    : (c & 0xF0) == 0xE0 ? 3
                    : (c & 0xF8) == 0xF0 ? 4
                                         : 0;
    if (n != 0 && i + n <= text.size() && is_valid_utf8(text.substr(i, n))) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out.append("\xEF\xBF\xBD");
      ++i;
    }
  }
  return out;
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_.push_back('{');
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  out_.push_back('}');
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_.push_back('[');
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  out_.push_back(']');
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::key(std::string_view name) {
  before_value();
  append_string(out_, name);
  out_.push_back(':');
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::string(std::string_view value) {
  before_value();
  if (value.size() <= kShortString && plain_ascii(value)) {
    append_string(out_, value);
  } else if (is_valid_utf8(value)) {
    append_json_string(out_, value);
  } else {
    append_json_string(out_, lossy_utf8(value));
  }
  return *this;
}
JsonWriter& JsonWriter::valid_string(std::string_view value) {
  before_value();
#ifndef NDEBUG
  if (!is_valid_utf8(value)) std::abort();  // the caller broke the contract
#endif
  append_string(out_, value);
  return *this;
}
JsonWriter& JsonWriter::integer(std::int64_t value) {
  before_value();
  const fmt::format_int digits(value);  // "{}" without parsing a format string
  out_.append(digits.data(), digits.size());
  return *this;
}
JsonWriter& JsonWriter::unsigned_integer(std::uint64_t value) {
  before_value();
  const fmt::format_int digits(value);
  out_.append(digits.data(), digits.size());
  return *this;
}
JsonWriter& JsonWriter::boolean(bool value) {
  before_value();
  out_.append(value ? "true" : "false");
  return *this;
}
JsonWriter& JsonWriter::null() {
  before_value();
  out_.append("null");
  return *this;
}
JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  out_.append(json);
  return *this;
}

}  // namespace ctx::agent
