#include "json_writer.hpp"

#include <fmt/format.h>

#include <cstdlib>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ctx/base/json.hpp"

namespace ctx::agent {

namespace {

// True when no byte of `s` needs escaping in a JSON string (no control byte, '"' or '\\'), and,
// with `ascii_only`, every byte is ASCII (so `s` is valid UTF-8 as well). Such a string is
// written as it is, between quotes: what append_json_string would write, without its staging.
bool plain(std::string_view s, bool ascii_only) {
  const char* p = s.data();
  const std::size_t n = s.size();
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control_max = _mm_set1_epi8(0x1F);
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // v <= 0x1F (unsigned) exactly when max(v, 0x1F) == 0x1F.
    const __m128i special =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                     _mm_cmpeq_epi8(_mm_max_epu8(v, control_max), control_max));
    int mask = _mm_movemask_epi8(special);
    if (ascii_only) mask |= _mm_movemask_epi8(v);  // the high bit: a byte past 0x7F
    if (mask != 0) return false;
  }
#endif
  for (; i < n; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (c < 0x20 || c == '"' || c == '\\' || (ascii_only && c >= 0x80)) return false;
  }
  return true;
}

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
  if (plain(name, false)) {
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
  if (plain(value, true)) {
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
  if (plain(value, false)) {
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

}  // namespace ctx::agent
