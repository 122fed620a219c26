// The Unicode 15.0 data ripgrep 14 (Rust regex-syntax 0.8) matches \p{..} and case-insensitive
// classes with: property and value names, code point sets, simple case folding. The tables are
// generated (unicode_tables.cpp, by scripts/gen_unicode_tables.py); unicode_props.hpp reads them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace ctx::engine::detail::ucd {

// The property a set or a value name belongs to.
enum class SetKind : std::uint8_t { kAge, kBool, kGc, kGcb, kSb, kSc, kScx, kWb };

// A set: `count` [lo, hi] ranges (sorted, disjoint, no surrogates) at range_data()[2 * offset].
// Named by the canonical value (`Uppercase_Letter`, `Greek`, `V6_0`) or binary property.
struct NamedSet {
  SetKind kind;
  std::string_view name;
  std::uint32_t offset;
  std::uint32_t count;
};

// A normalized alias (UAX44-LM3 as Rust applies it) and the canonical name it stands for.
struct NameAlias {
  std::string_view alias;
  std::string_view canonical;
};

// Code point `cp` belongs to the simple case folding class fold_members()[first, first + size).
struct FoldEntry {
  std::uint32_t cp;
  std::uint32_t first;
  std::uint32_t size;
};

// All are static data, sorted: sets() by (kind, name), the alias tables and fold_table() by
// their first field.
std::span<const std::uint32_t> range_data();
std::span<const NamedSet> sets();
std::span<const NameAlias> property_names();
std::span<const NameAlias> values(SetKind kind);  // empty for kBool; kScx shares kSc's
std::span<const std::uint32_t> fold_members();
std::span<const FoldEntry> fold_table();

}  // namespace ctx::engine::detail::ucd
