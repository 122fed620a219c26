#!/usr/bin/env python3
"""Generates engine/src/unicode_tables.cpp: the Unicode 15.0 property sets, names and simple case
folding that ripgrep 14 (Rust regex-syntax 0.8) uses for \\p{..} and case-insensitive classes.

Input: the Unicode Character Database 15.0 as Debian's `unicode-data` package installs it
(/usr/share/unicode; `apt-get install unicode-data`). Run from the repository root:

    python3 scripts/gen_unicode_tables.py [UCD_DIR] > engine/src/unicode_tables.cpp

What it reproduces (regex-syntax's tables, made by ucd-generate from the same UCD):
  - property names: every alias of PropertyAliases.txt, normalized (UAX44-LM3 as Rust does it);
  - property values of gc, sc (also used for scx), age, gcb, wb, sb, normalized;
  - sets: General_Category (values and the groups L LC M N P S Z C, surrogates excluded), Script,
    Script_Extensions, the binary properties regex-syntax knows, Age (per version, not
    cumulative), Grapheme_Cluster_Break, Word_Break, Sentence_Break (no set for the value Other);
  - simple case folding (CaseFolding.txt statuses C and S) as equivalence classes.
"""
import os
import re
import sys
from collections import defaultdict

UCD = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/unicode"
MAX = 0x10FFFF
SURROGATES = (0xD800, 0xDFFF)

# regex-syntax 0.8's binary properties (ucd-generate property-bool): PropList, DerivedCoreProperties,
# emoji-data, and Bidi_Mirrored.
BOOL_PROPS = """ASCII_Hex_Digit Alphabetic Bidi_Control Bidi_Mirrored Case_Ignorable Cased
Changes_When_Casefolded Changes_When_Casemapped Changes_When_Lowercased Changes_When_Titlecased
Changes_When_Uppercased Dash Default_Ignorable_Code_Point Deprecated Diacritic Emoji
Emoji_Component Emoji_Modifier Emoji_Modifier_Base Emoji_Presentation Extended_Pictographic
Extender Grapheme_Base Grapheme_Extend Grapheme_Link Hex_Digit Hyphen IDS_Binary_Operator
IDS_Trinary_Operator ID_Continue ID_Start Ideographic Join_Control Logical_Order_Exception
Lowercase Math Noncharacter_Code_Point Other_Alphabetic Other_Default_Ignorable_Code_Point
Other_Grapheme_Extend Other_ID_Continue Other_ID_Start Other_Lowercase Other_Math Other_Uppercase
Pattern_Syntax Pattern_White_Space Prepended_Concatenation_Mark Quotation_Mark Radical
Regional_Indicator Sentence_Terminal Soft_Dotted Terminal_Punctuation Unified_Ideograph Uppercase
Variation_Selector White_Space XID_Continue XID_Start""".split()

GC_GROUPS = {
    "Letter": ["Lu", "Ll", "Lt", "Lm", "Lo"],
    "Cased_Letter": ["Lu", "Ll", "Lt"],
    "Mark": ["Mn", "Mc", "Me"],
    "Number": ["Nd", "Nl", "No"],
    "Punctuation": ["Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"],
    "Symbol": ["Sm", "Sc", "Sk", "So"],
    "Separator": ["Zs", "Zl", "Zp"],
    "Other": ["Cc", "Cf", "Cs", "Co", "Cn"],
}


def path(*parts):
    return os.path.join(UCD, *parts)


def data_lines(name):
    """(code point range, fields) of each data line of a UCD file."""
    with open(name, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = [x.strip() for x in line.split(";")]
            cps = fields[0].split("..")
            lo = int(cps[0], 16)
            hi = int(cps[-1], 16)
            yield lo, hi, fields[1:]


def normalize(name):
    """regex-syntax's symbolic_name_normalize (UAX44-LM3)."""
    b = name.encode()
    start = 0
    is_prefix = len(b) >= 2 and b[0:1] in (b"i", b"I") and b[1:2] in (b"s", b"S")
    if is_prefix:
        start = 2
    out = bytearray()
    for c in b[start:]:
        if c in b" _-" or 0x09 <= c <= 0x0D:
            continue
        if 0x41 <= c <= 0x5A:
            c += 32
        out.append(c)
    if is_prefix and out == b"c":
        out = bytearray(b"isc")
    return out.decode()


def to_ranges(cps):
    """Sorted, merged ranges of a set of code points (surrogates removed)."""
    out = []
    for c in sorted(cps):
        if SURROGATES[0] <= c <= SURROGATES[1]:
            continue
        if out and out[-1][1] + 1 == c:
            out[-1][1] = c
        else:
            out.append([c, c])
    return [tuple(r) for r in out]


def sets_from(name, value_index=0):
    sets = defaultdict(set)
    for lo, hi, fields in data_lines(name):
        sets[fields[value_index]].update(range(lo, hi + 1))
    return sets


def general_categories():
    gc = {}
    first = None
    with open(path("UnicodeData.txt"), encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split(";")
            cp, name, cat = int(fields[0], 16), fields[1], fields[2]
            if name.endswith(", First>"):
                first = cp
                continue
            if name.endswith(", Last>"):
                for c in range(first, cp + 1):
                    gc[c] = cat
                continue
            gc[cp] = cat
    sets = defaultdict(set)
    for c in range(MAX + 1):
        sets[gc.get(c, "Cn")].add(c)
    return sets


def value_aliases():
    """{short property name: [[aliases of one value], ...]} from PropertyValueAliases.txt."""
    out = defaultdict(list)
    with open(path("PropertyValueAliases.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = [x.strip() for x in line.split(";")]
            out[fields[0]].append(fields[1:])
    return out


def property_aliases():
    out = []
    with open(path("PropertyAliases.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            out.append([x.strip() for x in line.split(";")])
    return out


def main():
    pva = value_aliases()

    def canonical_of(prop, index):
        """{short or long alias: canonical (long) value name} for property `prop`."""
        m = {}
        for aliases in pva[prop]:
            canon = aliases[index]
            for a in aliases:
                m[a] = canon
        return m

    # --- sets -------------------------------------------------------------------------------
    tables = {}  # kind -> {canonical value: ranges}

    gc_raw = general_categories()
    gc_long = canonical_of("gc", 1)  # Lu -> Uppercase_Letter
    gc_sets = {}
    for short, cps in gc_raw.items():
        if short == "Cs":
            continue
        gc_sets[gc_long[short]] = cps
    for group, members in GC_GROUPS.items():
        s = set()
        for m in members:
            s |= gc_raw.get(m, set())
        gc_sets[group] = s
    tables["gc"] = {k: to_ranges(v) for k, v in gc_sets.items()}

    sc_long = canonical_of("sc", 1)
    sc_of = {}
    sc_sets = defaultdict(set)
    for lo, hi, fields in data_lines(path("Scripts.txt")):
        for c in range(lo, hi + 1):
            sc_of[c] = fields[0]
            sc_sets[fields[0]].add(c)
    tables["sc"] = {k: to_ranges(v) for k, v in sc_sets.items()}

    scx_sets = defaultdict(set)
    scx_listed = {}
    for lo, hi, fields in data_lines(path("ScriptExtensions.txt")):
        for c in range(lo, hi + 1):
            scx_listed[c] = [sc_long[s] for s in fields[0].split()]
    for c, s in sc_of.items():
        for name in scx_listed.get(c, [s]):
            scx_sets[name].add(c)
    tables["scx"] = {k: to_ranges(v) for k, v in scx_sets.items()}

    bools = {}
    for f in ("PropList.txt", "DerivedCoreProperties.txt", os.path.join("emoji", "emoji-data.txt")):
        for k, v in sets_from(path(f)).items():
            bools.setdefault(k, set()).update(v)
    with open(path("UnicodeData.txt"), encoding="utf-8") as f:
        mirrored = set()
        first = None
        for line in f:
            fields = line.rstrip("\n").split(";")
            cp = int(fields[0], 16)
            if fields[1].endswith(", First>"):
                first = cp
                continue
            lo = first if fields[1].endswith(", Last>") else cp
            if fields[9] == "Y":
                mirrored.update(range(lo, cp + 1))
        bools["Bidi_Mirrored"] = mirrored
    missing = [b for b in BOOL_PROPS if b not in bools]
    if missing:
        sys.exit(f"binary properties missing from the UCD: {missing}")
    tables["bool"] = {b: to_ranges(bools[b]) for b in BOOL_PROPS}

    age_sets = defaultdict(set)
    for lo, hi, fields in data_lines(path("DerivedAge.txt")):
        age_sets["V" + fields[0].replace(".", "_")].update(range(lo, hi + 1))
    tables["age"] = {k: to_ranges(v) for k, v in age_sets.items()}

    for kind, prop, fname in (("gcb", "GCB", "GraphemeBreakProperty.txt"),
                              ("wb", "WB", "WordBreakProperty.txt"),
                              ("sb", "SB", "SentenceBreakProperty.txt")):
        long = canonical_of(prop, 1)
        s = sets_from(path("auxiliary", fname))
        tables[kind] = {long.get(k, k): to_ranges(v) for k, v in s.items()}

    # --- names ------------------------------------------------------------------------------
    prop_names = {}
    for aliases in property_aliases():
        canon = aliases[1]
        for a in aliases:
            prop_names[normalize(a)] = canon
    value_names = {}
    for kind, prop, index in (("gc", "gc", 1), ("sc", "sc", 1), ("age", "age", 1), ("gcb", "GCB", 1),
                              ("wb", "WB", 1), ("sb", "SB", 1)):
        m = {}
        for aliases in pva[prop]:
            canon = aliases[index]
            for a in aliases:
                m[normalize(a)] = canon
        value_names[kind] = m

    # --- case folding -----------------------------------------------------------------------
    fold_to = defaultdict(set)
    for lo, hi, fields in data_lines(path("CaseFolding.txt")):
        if fields[0] in ("C", "S"):
            fold_to[int(fields[1], 16)].add(lo)
    orbits = []
    for target, sources in fold_to.items():
        orbits.append(sorted(sources | {target}))
    orbits.sort()

    emit(tables, prop_names, value_names, orbits)


def emit(tables, prop_names, value_names, orbits):
    out = []
    w = out.append
    w("// GENERATED by scripts/gen_unicode_tables.py from the Unicode Character Database 15.0")
    w("// (Debian's unicode-data). Do not edit: change the script and run it again.")
    w('#include "unicode_tables.hpp"')
    w("")
    w("// clang-format off")
    w("namespace ctx::engine::detail::ucd {")
    w("namespace {")
    w("")
    flat = []
    index = {}  # (kind, name) -> (offset, count)
    for kind in sorted(tables):
        for name in sorted(tables[kind]):
            ranges = tables[kind][name]
            index[(kind, name)] = (len(flat) // 2, len(ranges))
            for lo, hi in ranges:
                flat += [lo, hi]
    w("// [lo, hi] pairs of every set, back to back (see kSets for where each starts).")
    w("constexpr std::uint32_t kRangeData[] = {")
    for i in range(0, len(flat), 12):
        w("    " + ", ".join(f"0x{x:X}" for x in flat[i:i + 12]) + ",")
    w("};")
    w("")
    w("constexpr NamedSet kSetTable[] = {")
    for (kind, name), (off, cnt) in sorted(index.items()):
        w(f'    {{SetKind::k{kind.capitalize()}, "{name}", {off}, {cnt}}},')
    w("};")
    w("")
    w("constexpr NameAlias kPropertyNameTable[] = {")
    for alias in sorted(prop_names):
        w(f'    {{"{alias}", "{prop_names[alias]}"}},')
    w("};")
    w("")
    for kind in sorted(value_names):
        w(f"constexpr NameAlias k{kind.capitalize()}ValueTable[] = {{")
        m = value_names[kind]
        for alias in sorted(m):
            w(f'    {{"{alias}", "{m[alias]}"}},')
        w("};")
        w("")
    w("// Simple case folding equivalence classes (CaseFolding.txt C and S), as one sorted list of")
    w("// {code point, first of its class, class size} and the classes' members back to back.")
    members = []
    entries = []
    for orbit in orbits:
        start = len(members)
        members += orbit
        for c in orbit:
            entries.append((c, start, len(orbit)))
    entries.sort()
    w("constexpr std::uint32_t kFoldMembers[] = {")
    for i in range(0, len(members), 12):
        w("    " + ", ".join(f"0x{x:X}" for x in members[i:i + 12]) + ",")
    w("};")
    w("constexpr FoldEntry kFoldTable[] = {")
    for i in range(0, len(entries), 6):
        w("    " + " ".join(f"{{0x{c:X}, {s}, {n}}}," for c, s, n in entries[i:i + 6]))
    w("};")
    w("")
    w("}  // namespace")
    w("")
    w("std::span<const std::uint32_t> range_data() { return kRangeData; }")
    w("std::span<const NamedSet> sets() { return kSetTable; }")
    w("std::span<const NameAlias> property_names() { return kPropertyNameTable; }")
    w("std::span<const NameAlias> values(SetKind kind) {")
    w("  switch (kind) {")
    for kind in sorted(value_names):
        w(f"    case SetKind::k{kind.capitalize()}:")
        w(f"      return k{kind.capitalize()}ValueTable;")
    w("    case SetKind::kScx:")
    w("      return kScValueTable;")
    w("    case SetKind::kBool:")
    w("      break;")
    w("  }")
    w("  return {};")
    w("}")
    w("std::span<const std::uint32_t> fold_members() { return kFoldMembers; }")
    w("std::span<const FoldEntry> fold_table() { return kFoldTable; }")
    w("")
    w("}  // namespace ctx::engine::detail::ucd")
    w("// clang-format on")
    print("\n".join(out))


if __name__ == "__main__":
    main()
