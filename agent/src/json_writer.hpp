// A small streaming JSON writer for tool results and protocol messages: it places commas itself,
// escapes strings as serde_json does, and writes invalid UTF-8 lossily (U+FFFD), because a
// model's text must always be valid JSON text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ctx::agent {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);
  JsonWriter& string(std::string_view value);  // lossy for invalid UTF-8
  // `value` must be valid UTF-8 (checked in debug builds only): string() without the check.
  JsonWriter& valid_string(std::string_view value);
  JsonWriter& integer(std::int64_t value);
  JsonWriter& unsigned_integer(std::uint64_t value);
  JsonWriter& boolean(bool value);
  JsonWriter& null();
  JsonWriter& raw(std::string_view json);  // an already-serialised value
  // Already-serialised elements of the open array, comma-separated ("" for none): what writing
  // each of them with raw() would give, in one append.
  JsonWriter& raw_elements(std::string_view elements);
  // A string whose JSON form is known: `escaped` is append_json_body's output for it.
  JsonWriter& escaped_string(std::string_view escaped);

  // Shorthands for one key and its value.
  JsonWriter& field(std::string_view name, std::string_view value) {
    return key(name).string(value);
  }
  JsonWriter& field(std::string_view name, const char* value) { return key(name).string(value); }
  JsonWriter& field(std::string_view name, std::int64_t value) { return key(name).integer(value); }
  JsonWriter& field(std::string_view name, std::uint64_t value) {
    return key(name).unsigned_integer(value);
  }
  JsonWriter& field(std::string_view name, bool value) { return key(name).boolean(value); }

  // Makes room for `bytes` of output in all, so a large result is not copied as it grows.
  void reserve(std::size_t bytes) { out_.reserve(bytes); }

  const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void before_value();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

// Appends `s` escaped as append_json_string escapes it, without the enclosing quotes. Escaping
// works byte by byte, so the body of a concatenation is the concatenation of the pieces' bodies.
void append_json_body(std::string& out, std::string_view s);

// `text` with every invalid UTF-8 sequence replaced by U+FFFD.
std::string lossy_utf8(std::string_view text);

}  // namespace ctx::agent
