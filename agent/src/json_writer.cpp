#include "json_writer.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "ctx/base/json.hpp"

namespace ctx::agent {

namespace {

void append_quoted(std::string& out, std::string_view s) {
  out.push_back('"');
  out.append(s);
  out.push_back('"');
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
  // Keys are written unchecked for UTF-8, as append_json_string writes them.
  if (json_string_is_plain(name, false)) {
    append_quoted(out_, name);
  } else {
    append_json_string(out_, name);
  }
  out_.push_back(':');
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::string(std::string_view value) {
  before_value();
  if (json_string_is_plain(value, true)) {
    append_quoted(out_, value);
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
  if (json_string_is_plain(value, false)) {
    append_quoted(out_, value);
  } else {
    append_json_string(out_, value);
  }
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
JsonWriter& JsonWriter::raw_elements(std::string_view elements) {
  if (elements.empty()) return *this;
  before_value();
  out_.append(elements);
  return *this;
}
JsonWriter& JsonWriter::escaped_string(std::string_view escaped) {
  before_value();
  append_quoted(out_, escaped);
  return *this;
}

void append_json_body(std::string& out, std::string_view s) {
  if (json_string_is_plain(s, false)) {
    out.append(s);
    return;
  }
  const std::size_t at = out.size();
  append_json_string(out, s);
  out.pop_back();    // the closing quote
  out.erase(at, 1);  // the opening one
}

}  // namespace ctx::agent
