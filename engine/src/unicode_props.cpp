#include "unicode_props.hpp"

#include <algorithm>
#include <span>

#include "unicode_tables.hpp"

namespace ctx::engine::detail {
namespace {

constexpr std::string_view kNoProperty = "Unicode property not found";
constexpr std::string_view kNoValue = "Unicode property value not found";

// regex-syntax's symbolic_name_normalize (UAX44-LM3): ASCII letters lowercased, spaces, '_' and
// '-' dropped, a leading "is" dropped (except in "isc").
std::string normalize(std::string_view name) {
  const bool is_prefix =
      name.size() >= 2 && (name[0] == 'i' || name[0] == 'I') && (name[1] == 's' || name[1] == 'S');
  std::string out;
  for (std::size_t i = is_prefix ? 2 : 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == ' ' || c == '_' || c == '-' || (c >= '\t' && c <= '\r')) continue;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  }
  if (is_prefix && out == "c") out = "isc";
  return out;
}

std::optional<std::string_view> lookup(std::span<const ucd::NameAlias> table,
                                       std::string_view alias) {
  auto it =
      std::lower_bound(table.begin(), table.end(), alias,
                       [](const ucd::NameAlias& a, std::string_view key) { return a.alias < key; });
  if (it == table.end() || it->alias != alias) return std::nullopt;
  return it->canonical;
}

std::optional<CodepointRanges> set_of(ucd::SetKind kind, std::string_view name) {
  const auto table = ucd::sets();
  auto it = std::lower_bound(
      table.begin(), table.end(), std::make_pair(kind, name),
      [](const ucd::NamedSet& s, const std::pair<ucd::SetKind, std::string_view>& key) {
        return std::make_pair(s.kind, s.name) < key;
      });
  if (it == table.end() || it->kind != kind || it->name != name) return std::nullopt;
  const auto data =
      ucd::range_data().subspan(2 * std::size_t{it->offset}, 2 * std::size_t{it->count});
  CodepointRanges out;
  out.reserve(it->count);
  for (std::size_t i = 0; i < data.size(); i += 2) out.emplace_back(data[i], data[i + 1]);
  return out;
}

// regex-syntax's canonical_gencat, then gencat(): the class of General_Category value `norm`.
std::optional<UnicodeClass> general_category(std::string_view norm, std::string& why) {
  UnicodeClass c{UnicodeClass::kGeneralCategory, {}, {}};
  if (norm == "any") {
    c.canonical = "Any";
    c.ranges = complement({});
    return c;
  }
  if (norm == "assigned") {
    c.canonical = "Assigned";
    c.ranges = complement(*set_of(ucd::SetKind::kGc, "Unassigned"));
    return c;
  }
  if (norm == "ascii") {
    c.canonical = "ASCII";
    c.ranges = {{0, 0x7F}};
    return c;
  }
  auto canon = lookup(ucd::values(ucd::SetKind::kGc), norm);
  if (!canon) return std::nullopt;
  auto set = set_of(ucd::SetKind::kGc, *canon);
  if (!set) {  // Surrogate: Rust's classes hold scalar values only
    why = kNoValue;
    return std::nullopt;
  }
  c.canonical = std::string(*canon);
  c.ranges = std::move(*set);
  return c;
}

std::optional<UnicodeClass> script(std::string_view norm, UnicodeClass::Kind kind,
                                   std::string& why) {
  auto canon = lookup(ucd::values(ucd::SetKind::kSc), norm);
  if (!canon) return std::nullopt;
  auto set = set_of(kind == UnicodeClass::kScript ? ucd::SetKind::kSc : ucd::SetKind::kScx, *canon);
  if (!set) {  // Unknown, Katakana_Or_Hiragana: no code point has them in Unicode 15
    why = kNoValue;
    return std::nullopt;
  }
  return UnicodeClass{kind, std::string(*canon), std::move(*set)};
}

// \p{name}: a binary property, a General_Category value or a script (regex-syntax's
// canonical_binary).
std::optional<UnicodeClass> binary(std::string_view name, std::string& why) {
  const std::string norm = normalize(name);
  // cf, sc and lc are General_Category values first (Format, Currency_Symbol, Cased_Letter).
  if (norm != "cf" && norm != "sc" && norm != "lc") {
    if (auto prop = lookup(ucd::property_names(), norm)) {
      if (auto set = set_of(ucd::SetKind::kBool, *prop)) {
        return UnicodeClass{UnicodeClass::kBinary, std::string(*prop), std::move(*set)};
      }
      why = kNoProperty;  // \p{Age}, \p{Script}: properties, but not binary ones
      return std::nullopt;
    }
  }
  if (auto c = general_category(norm, why)) return c;
  if (!why.empty()) return std::nullopt;
  if (auto c = script(norm, UnicodeClass::kScript, why)) return c;
  if (why.empty()) why = kNoProperty;
  return std::nullopt;
}

// \p{name=value} (also name:value, name!=value).
std::optional<UnicodeClass> by_value(std::string_view name, std::string_view value,
                                     std::string& why) {
  auto prop = lookup(ucd::property_names(), normalize(name));
  if (!prop) {
    why = kNoProperty;
    return std::nullopt;
  }
  const std::string norm = normalize(value);
  std::optional<UnicodeClass> c;
  if (*prop == "General_Category") {
    c = general_category(norm, why);
  } else if (*prop == "Script") {
    c = script(norm, UnicodeClass::kScript, why);
  } else if (*prop == "Script_Extensions") {
    c = script(norm, UnicodeClass::kScriptExtensions, why);
  } else {
    ucd::SetKind kind{};
    if (*prop == "Age") {
      kind = ucd::SetKind::kAge;
    } else if (*prop == "Grapheme_Cluster_Break") {
      kind = ucd::SetKind::kGcb;
    } else if (*prop == "Word_Break") {
      kind = ucd::SetKind::kWb;
    } else if (*prop == "Sentence_Break") {
      kind = ucd::SetKind::kSb;
    } else {  // regex-syntax has no value names for any other property
      why = kNoValue;
      return std::nullopt;
    }
    auto canon = lookup(ucd::values(kind), norm);
    if (!canon) {
      why = kNoValue;
      return std::nullopt;
    }
    UnicodeClass out{UnicodeClass::kOther, std::string(*prop), {}};
    if (kind == ucd::SetKind::kAge) {
      // Age=V6_0: every character assigned in 6.0 or before (the sets are per version).
      static constexpr std::string_view kAges[] = {
          "V1_1",  "V2_0",  "V2_1",  "V3_0",  "V3_1",  "V3_2",  "V4_0", "V4_1", "V5_0",
          "V5_1",  "V5_2",  "V6_0",  "V6_1",  "V6_2",  "V6_3",  "V7_0", "V8_0", "V9_0",
          "V10_0", "V11_0", "V12_0", "V12_1", "V13_0", "V14_0", "V15_0"};
      const auto* end = std::find(std::begin(kAges), std::end(kAges), *canon);
      if (end == std::end(kAges)) {  // Unassigned (NA)
        why = kNoValue;
        return std::nullopt;
      }
      for (const auto* age = std::begin(kAges); age <= end; ++age) {
        auto set = set_of(kind, *age);
        if (set) out.ranges.insert(out.ranges.end(), set->begin(), set->end());
      }
      out.ranges = canonical_ranges(std::move(out.ranges));
      return out;
    }
    auto set = set_of(kind, *canon);
    if (!set) {  // Other: Rust has no set for it
      why = kNoValue;
      return std::nullopt;
    }
    out.ranges = std::move(*set);
    return out;
  }
  if (!c && why.empty()) why = kNoValue;
  return c;
}

}  // namespace

std::optional<UnicodeClass> unicode_class(std::string_view body, std::string& why) {
  why.clear();
  // regex-syntax's parser: "!=" first, then ':', then '='.
  std::size_t sep = body.find("!=");
  std::size_t value_at = sep + 2;
  if (sep == std::string_view::npos) {
    sep = body.find(':');
    if (sep == std::string_view::npos) sep = body.find('=');
    value_at = sep + 1;
  }
  if (sep != std::string_view::npos)
    return by_value(body.substr(0, sep), body.substr(value_at), why);
  return binary(body, why);
}

CodepointRanges canonical_ranges(CodepointRanges ranges) {
  std::sort(ranges.begin(), ranges.end());
  CodepointRanges out;
  for (auto [lo, hi] : ranges) {
    if (!out.empty() && lo <= out.back().second + 1) {
      out.back().second = std::max(out.back().second, hi);
    } else {
      out.emplace_back(lo, hi);
    }
  }
  return out;
}

CodepointRanges complement(const CodepointRanges& ranges) {
  CodepointRanges out;
  std::uint32_t next = 0;  // the first scalar value not yet decided
  auto add = [&out](std::uint32_t lo, std::uint32_t hi) {
    // Surrogates are no scalar values: split around them.
    if (lo < 0xD800 && hi >= 0xD800) {
      out.emplace_back(lo, 0xD7FF);
      if (hi > 0xDFFF) out.emplace_back(0xE000, hi);
    } else if (lo >= 0xD800 && lo <= 0xDFFF) {
      if (hi > 0xDFFF) out.emplace_back(0xE000, hi);
    } else {
      out.emplace_back(lo, hi);
    }
  };
  for (auto [lo, hi] : ranges) {
    if (lo > next) add(next, lo - 1);
    next = hi + 1;
  }
  if (next <= 0x10FFFF) add(next, 0x10FFFF);
  return out;
}

CodepointRanges case_fold_closure(const CodepointRanges& ranges) {
  const auto table = ucd::fold_table();
  const auto members = ucd::fold_members();
  CodepointRanges out = ranges;
  for (auto [lo, hi] : ranges) {
    auto it = std::lower_bound(table.begin(), table.end(), lo,
                               [](const ucd::FoldEntry& e, std::uint32_t cp) { return e.cp < cp; });
    for (; it != table.end() && it->cp <= hi; ++it) {
      for (std::uint32_t m : members.subspan(it->first, it->size)) out.emplace_back(m, m);
    }
  }
  return canonical_ranges(std::move(out));
}

}  // namespace ctx::engine::detail
