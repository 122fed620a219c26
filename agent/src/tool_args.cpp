#include "ctx/agent/tool_args.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "ctx/agent/tools.hpp"
#include "json_writer.hpp"

namespace ctx::agent {

namespace {

std::string valid_names(std::span<const ParamSpec> params) {
  std::string names;
  for (const ParamSpec& p : params) {
    if (!names.empty()) names += ", ";
    names += p.name;
  }
  return names.empty() ? "none" : names;
}

ToolError invalid(std::string message, std::string hint) {
  return ToolError{ToolErrorCode::kInvalidArgument, std::move(message), std::move(hint)};
}

const ParamSpec* find_param(std::span<const ParamSpec> params, std::string_view key) {
  for (const ParamSpec& p : params) {
    if (p.name == key) return &p;
    for (std::string_view alias : p.aliases) {
      if (alias == key) return &p;
    }
  }
  return nullptr;
}

std::string_view type_name(ParamType type) {
  switch (type) {
    case ParamType::kString:
      return "string";
    case ParamType::kInteger:
      return "integer";
    case ParamType::kBoolean:
      return "boolean";
  }
  return "string";
}

// True when `element`, the value of the parameter `spec`, means "absent": null or "", and for an
// optional parameter also the strings "null", "None" and "undefined" (what small models send for
// "no value"). A required parameter keeps those words: a search for `null` is common in code.
bool is_absent(simdjson::dom::element element, const ParamSpec& spec) {
  if (element.is_null()) return true;
  if (element.is_string()) {
    std::string_view s = element.get_string().value_unsafe();
    return s.empty() || (!spec.required && (s == "null" || s == "None" || s == "undefined"));
  }
  return false;
}

// The largest value `spec` accepts as it is: its configured limit when it has one and `limits`
// are given, else its max.
std::int64_t max_of(const ParamSpec& spec, const Limits* limits) {
  if (spec.max_limit == nullptr || limits == nullptr) return spec.max;
  const std::size_t limit = limits->*spec.max_limit;
  return limit > static_cast<std::size_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(limit);
}

// "a" or "an" and the type's name.
std::string type_with_article(ParamType type) {
  return fmt::format("{} {}", type == ParamType::kInteger ? "an" : "a", type_name(type));
}

}  // namespace

const ToolArgs::Value* ToolArgs::find(std::string_view name) const {
  for (const Value& v : values_) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

bool ToolArgs::has(std::string_view name) const { return find(name) != nullptr; }

std::optional<std::string> ToolArgs::clamped(std::string_view name) const {
  const Value* v = find(name);
  if (v == nullptr || !v->clamped) return std::nullopt;
  return v->text;
}

std::optional<std::string> ToolArgs::string(std::string_view name) const {
  const Value* v = find(name);
  if (v == nullptr || v->type != ParamType::kString) return std::nullopt;
  return v->text;
}

std::optional<std::int64_t> ToolArgs::integer(std::string_view name) const {
  const Value* v = find(name);
  if (v == nullptr || v->type != ParamType::kInteger) return std::nullopt;
  return v->number;
}

std::optional<bool> ToolArgs::boolean(std::string_view name) const {
  const Value* v = find(name);
  if (v == nullptr || v->type != ParamType::kBoolean) return std::nullopt;
  return v->flag;
}

std::optional<std::string> quote_huge_numbers(std::string_view json) {
  std::string out;
  std::size_t copied = 0;
  for (std::size_t i = 0; i < json.size();) {
    const char c = json[i];
    if (c == '"') {  // to the closing quote, past escapes
      for (++i; i < json.size() && json[i] != '"'; ++i) i += json[i] == '\\' ? 1U : 0U;
      ++i;
      continue;
    }
    if (c != '-' && (c < '0' || c > '9')) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    bool integer = true;
    for (++i; i < json.size(); ++i) {
      const char d = json[i];
      if (d == '.' || d == 'e' || d == 'E' || d == '+' || d == '-') {
        integer = false;
      } else if (d < '0' || d > '9') {
        break;
      }
    }
    const std::string token(json.substr(start, i - start));
    bool huge = false;
    if (integer) {
      std::int64_t signed_value = 0;
      std::uint64_t unsigned_value = 0;
      const char* end = token.data() + token.size();
      huge =
          std::from_chars(token.data(), end, signed_value).ec == std::errc::result_out_of_range &&
          std::from_chars(token.data(), end, unsigned_value).ec != std::errc{};
    } else {
      huge = std::isinf(std::strtod(token.c_str(), nullptr));
    }
    if (!huge) continue;
    out.append(json.substr(copied, start - copied));
    out += '"';
    out += token;
    out += '"';
    copied = i;
  }
  if (copied == 0) return std::nullopt;
  out.append(json.substr(copied));
  return out;
}

Expected<ToolArgs> parse_tool_args(std::string_view json, std::span<const ParamSpec> params,
                                   const Limits* limits) {
  ToolArgs args;
  std::string_view trimmed = json;
  while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\n' ||
                              trimmed.front() == '\t' || trimmed.front() == '\r')) {
    trimmed.remove_prefix(1);
  }
  if (trimmed.empty() || trimmed == "null") trimmed = "{}";

  simdjson::dom::parser parser;
  simdjson::dom::element root;
  auto error = parser.parse(simdjson::padded_string(trimmed)).get(root);
  std::optional<std::string> quoted;
  if (error == simdjson::NUMBER_ERROR && (quoted = quote_huge_numbers(trimmed))) {
    error = parser.parse(simdjson::padded_string(*quoted)).get(root);
  }
  if (error) {
    return invalid(
        fmt::format("the arguments are not valid JSON: {}", simdjson::error_message(error)),
        "send one JSON object, e.g. {\"path\": \"src\"}");
  }
  simdjson::dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS) {
    return invalid("the arguments must be a JSON object", "send e.g. {\"path\": \"src\"}");
  }
  for (auto [key, element] : object) {
    const ParamSpec* spec = find_param(params, key);
    if (spec == nullptr) {
      return invalid(
          fmt::format("unknown parameter '{}'; valid parameters: {}", key, valid_names(params)),
          "remove it or use one of the valid names");
    }
    if (is_absent(element, *spec)) continue;
    if (args.has(spec->name)) {
      return invalid(fmt::format("parameter '{}' is given twice (as '{}')", spec->name, key),
                     "give each parameter once");
    }
    ToolArgs::Value value{std::string(spec->name), spec->type, {}, 0, false};
    auto wrong_type = [&] {
      return invalid(
          fmt::format("parameter '{}' must be {}", spec->name, type_with_article(spec->type)),
          fmt::format("e.g. {{\"{}\": {}}}", spec->name,
                      spec->type == ParamType::kString    ? "\"...\""
                      : spec->type == ParamType::kInteger ? "10"
                                                          : "true"));
    };
    switch (spec->type) {
      case ParamType::kString: {
        if (!element.is_string()) return wrong_type();
        value.text = std::string(element.get_string().value_unsafe());
        if (value.text.find('\0') != std::string::npos) {
          return invalid(fmt::format("parameter '{}' contains a NUL byte", spec->name),
                         "remove the NUL byte");
        }
        if (!spec->choices.empty()) {
          bool ok = false;
          std::string options;
          for (std::string_view c : spec->choices) {
            ok = ok || c == value.text;
            options += options.empty() ? "" : ", ";
            options += c;
          }
          if (!ok) {
            return invalid(fmt::format("parameter '{}' is '{}'; it must be one of: {}", spec->name,
                                       value.text, options),
                           fmt::format("use one of: {}", options));
          }
        }
        break;
      }
      case ParamType::kInteger: {
        // A whole number past 64 bits (as written, or as a JSON number the message reader turned
        // into a string: quote_huge_numbers) is out of range, not of the wrong type. Above the
        // maximum of a parameter with a max_limit it is taken as that maximum.
        const std::int64_t max = max_of(*spec, limits);
        // `above`: past the maximum (not below the minimum).
        auto out_of_range = [&](std::string_view shown, bool above) -> std::optional<ToolError> {
          if (spec->max_limit != nullptr && above) {
            value.number = max;
            value.clamped = true;
            value.text = std::string(shown);
            return std::nullopt;
          }
          return invalid(fmt::format("parameter '{}' is {}; it must be between {} and {}",
                                     spec->name, shown, spec->min, max),
                         fmt::format("use a value from {} to {}", spec->min, max));
        };
        if (element.is_int64()) {
          value.number = element.get_int64().value_unsafe();
        } else if (element.is_uint64()) {
          if (auto e = out_of_range(std::to_string(element.get_uint64().value_unsafe()), true))
            return *e;
        } else if (element.is_double()) {
          double d = element.get_double().value_unsafe();
          if (d != std::floor(d)) return wrong_type();
          if (!(d >= -9.2e18 && d <= 9.2e18)) {
            if (auto e = out_of_range(fmt::format("{}", d), d > 0)) return *e;
          } else {
            value.number = static_cast<std::int64_t>(d);
          }
        } else if (element.is_string()) {
          std::string_view s = element.get_string().value_unsafe();
          auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value.number);
          if (ec == std::errc::result_out_of_range && end == s.data() + s.size()) {
            if (auto e = out_of_range(s, !s.starts_with('-'))) return *e;
          } else if (ec != std::errc{} || end != s.data() + s.size()) {
            double d = 0;  // 1e400 and the like, as quote_huge_numbers left them
            auto [dend, dec] = std::from_chars(s.data(), s.data() + s.size(), d);
            if (dend == s.data() + s.size() && !s.empty() &&
                (dec == std::errc::result_out_of_range || std::isinf(d))) {
              if (auto e = out_of_range(s, !s.starts_with('-'))) return *e;
            } else {
              return wrong_type();
            }
          }
        } else {
          return wrong_type();
        }
        if (!value.clamped && (value.number < spec->min || value.number > max)) {
          if (auto e = out_of_range(std::to_string(value.number), value.number > max)) return *e;
        }
        break;
      }
      case ParamType::kBoolean: {
        if (element.is_bool()) {
          value.flag = element.get_bool().value_unsafe();
        } else if (element.is_string()) {
          std::string_view s = element.get_string().value_unsafe();
          if (s == "true" || s == "True") {
            value.flag = true;
          } else if (s == "false" || s == "False") {
            value.flag = false;
          } else {
            return wrong_type();
          }
        } else {
          return wrong_type();
        }
        break;
      }
    }
    args.values_.push_back(std::move(value));
  }
  for (const ParamSpec& p : params) {
    if (p.required && !args.has(p.name)) {
      return invalid(fmt::format("missing required parameter '{}'", p.name),
                     fmt::format("add \"{}\" to the arguments", p.name));
    }
  }
  return args;
}

std::string input_schema(std::span<const ParamSpec> params, const Limits* limits) {
  JsonWriter w;
  w.begin_object().field("type", "object").key("properties").begin_object();
  for (const ParamSpec& p : params) {
    w.key(p.name)
        .begin_object()
        .field("type", type_name(p.type))
        .field("description", p.description);
    if (!p.choices.empty()) {
      w.key("enum").begin_array();
      for (std::string_view c : p.choices) w.string(c);
      w.end_array();
    }
    if (p.type == ParamType::kInteger) {
      w.field("minimum", p.min);
      if (const std::int64_t max = max_of(p, limits); max != INT64_MAX) w.field("maximum", max);
    }
    w.end_object();
  }
  w.end_object().key("required").begin_array();
  for (const ParamSpec& p : params) {
    if (p.required) w.string(p.name);
  }
  w.end_array().field("additionalProperties", false).end_object();
  return w.take();
}

}  // namespace ctx::agent
