// TypeTable edits and listing, and TypeMatcher: each selected glob is checked and brace-expanded
// as ripgrep's globset would, small character classes are expanded to plain strings, and every
// plain name or `*suffix` lands in a hash map; only the remaining globs run the NFA. Every glob
// carries its position in selection order, so the fast paths and the NFA agree on which match
// came last.
#include "ctx/walker/types.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "fmt/format.h"

namespace ctx::walker {

namespace {

constexpr std::string_view kDefinitionForm = "expected name:glob or name:include:type[,type...]";
// Brace and class expansion stop here; a glob with more variants stays a general glob (class
// expansion) or is refused (braces).
constexpr std::size_t kMaxVariants = 128;
constexpr std::size_t kMaxAlternatives = 4096;

Error invalid(std::string_view what) {
  return Error{ErrorCode::kInvalidArgument, std::string(what)};
}

Error invalid_definition(std::string_view spec, std::string_view why) {
  return invalid(fmt::format("invalid type definition '{}': {}", spec, why));
}

Error unrecognized_type(std::string_view name) {
  return invalid(fmt::format("unrecognized file type: {} (see --type-list)", name));
}

bool is_name_byte(unsigned char c) {
  // ripgrep accepts Unicode letters and numbers; every non-ASCII byte stands in for those.
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

bool valid_type_name(std::string_view name) {
  return !name.empty() && name != "all" && std::ranges::all_of(name, [](char c) {
    return is_name_byte(static_cast<unsigned char>(c));
  });
}

// Index just past the character class that opens at glob[open] == '[', read as globset does:
// an optional '!' or '^', then a first member that may be ']', then members up to ']'.
// Returns npos when the class is unclosed.
std::size_t skip_class(std::string_view glob, std::size_t open) {
  std::size_t i = open + 1;
  if (i < glob.size() && (glob[i] == '!' || glob[i] == '^')) ++i;
  if (i < glob.size()) ++i;  // the first member, even ']'
  std::size_t close = glob.find(']', i);
  return close == std::string_view::npos ? close : close + 1;
}

// Splits `text` at commas that are outside `{...}` and `[...]` and not escaped.
std::vector<std::string_view> split_top_level_commas(std::string_view text) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\') {
      ++i;
    } else if (c == '[') {
      std::size_t end = skip_class(text, i);
      if (end == std::string_view::npos) break;
      i = end - 1;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      depth = std::max(0, depth - 1);
    } else if (c == ',' && depth == 0) {
      pieces.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  pieces.push_back(text.substr(start));
  return pieces;
}

// The errors ripgrep's globset reports for a type glob, worded as ripgrep words them.
Status check_glob(std::string_view glob) {
  auto fail = [&](std::string_view why) {
    return invalid(fmt::format("error parsing glob '{}': {}", glob, why));
  };
  int depth = 0;
  for (std::size_t i = 0; i < glob.size(); ++i) {
    char c = glob[i];
    if (c == '\\') {
      if (++i == glob.size()) return fail("dangling '\\'");
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (depth-- == 0)
        return fail("unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)");
    } else if (c == '[') {
      std::size_t end = skip_class(glob, i);
      if (end == std::string_view::npos) return fail("unclosed character class; missing ']'");
      // Members as globset reads them: the first is literal (even ']' or '-'), a later '-'
      // joins the previous member to the next one, and a '-' right before ']' is literal.
      std::size_t k = i + 1;
      if (glob[k] == '!' || glob[k] == '^') ++k;
      bool in_range = false;
      unsigned char range_start = 0;
      for (bool first = true; k + 1 < end; ++k, first = false) {
        auto m = static_cast<unsigned char>(glob[k]);
        if (m == '-' && !first && !in_range) {
          in_range = true;
        } else if (in_range) {
          if (m < range_start) {
            return fail(
                fmt::format("invalid range; '{}' > '{}'", static_cast<char>(range_start), glob[k]));
          }
          in_range = false;
        } else {
          range_start = m;
        }
      }
      i = end - 1;
    }
  }
  if (depth > 0)
    return fail("unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)");
  return {};
}

// Expands globset's `{a,b}` alternation (nesting allowed, empty branches dropped) into plain
// globs. `glob` has passed check_glob. Returns false when there would be too many.
bool expand_braces(std::string_view glob, std::vector<std::string>& out) {
  // Find the first top-level '{'.
  std::size_t open = std::string_view::npos;
  for (std::size_t i = 0; i < glob.size() && open == std::string_view::npos; ++i) {
    if (glob[i] == '\\') {
      ++i;
    } else if (glob[i] == '[') {
      i = skip_class(glob, i) - 1;
    } else if (glob[i] == '{') {
      open = i;
    }
  }
  if (open == std::string_view::npos) {
    out.emplace_back(glob);
    return out.size() <= kMaxAlternatives;
  }
  // Its branches and matching '}'.
  std::vector<std::string_view> branches;
  std::size_t start = open + 1;
  std::size_t close = glob.size();
  int depth = 0;
  for (std::size_t i = open + 1; i < glob.size(); ++i) {
    char c = glob[i];
    if (c == '\\') {
      ++i;
    } else if (c == '[') {
      i = skip_class(glob, i) - 1;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && depth > 0) {
      --depth;
    } else if ((c == ',' || c == '}') && depth == 0) {
      branches.push_back(glob.substr(start, i - start));
      start = i + 1;
      if (c == '}') {
        close = i;
        break;
      }
    }
  }
  std::string_view head = glob.substr(0, open);
  std::string_view tail = glob.substr(close + 1);
  std::vector<std::string> choices;
  for (std::string_view branch : branches) {
    std::vector<std::string> expanded;
    if (!expand_braces(branch, expanded)) return false;
    if (expanded.size() == 1 && expanded[0].empty()) continue;  // globset drops empty branches
    for (auto& e : expanded) choices.push_back(std::move(e));
  }
  if (choices.empty()) choices.emplace_back();
  std::vector<std::string> tails;
  if (!expand_braces(tail, tails)) return false;
  if (choices.size() * tails.size() > kMaxAlternatives) return false;
  for (const auto& choice : choices) {
    for (const auto& t : tails) out.push_back(fmt::format("{}{}{}", head, choice, t));
  }
  return out.size() <= kMaxAlternatives;
}

bool is_plain_byte(char c) {
  auto u = static_cast<unsigned char>(c);
  return (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || c == '.' ||
         c == '-' || c == '_' || c == '+' || c == '~' || c == '#' || c == '@' || c == '%' ||
         c == '=' || u >= 0x80;
}

// Rewrites a glob made of plain bytes, simple classes like `[chH]` or `[0-9]`, and at most a
// leading `*`, as the list of plain globs it stands for (`*.[ch]` -> `*.c`, `*.h`). Returns an
// empty list for any other glob, or one with more than kMaxVariants variants.
std::vector<std::string> expand_classes(std::string_view glob) {
  std::size_t i = glob.starts_with('*') ? 1 : 0;
  std::vector<std::string> variants{std::string(glob.substr(0, i))};
  while (i < glob.size()) {
    std::string members;
    if (glob[i] == '[') {
      std::size_t end = skip_class(glob, i);
      if (end == std::string_view::npos) return {};
      // Only classes of letters, digits, '.' and '_', and ranges between letters or digits.
      std::string_view body = glob.substr(i + 1, end - i - 2);
      auto simple = [](char c) {
        return is_plain_byte(c) && c != '-' && static_cast<unsigned char>(c) < 0x80;
      };
      for (std::size_t k = 0; k < body.size(); ++k) {
        if (!simple(body[k])) return {};
        if (k + 2 < body.size() && body[k + 1] == '-') {
          if (!simple(body[k + 2]) || body[k + 2] < body[k]) return {};
          for (char c = body[k]; c <= body[k + 2]; ++c) members.push_back(c);
          k += 2;
          if (k + 1 < body.size() && body[k + 1] == '-') return {};  // "a-c-e"
        } else {
          members.push_back(body[k]);
        }
      }
      if (members.empty()) return {};
      i = end;
    } else if (is_plain_byte(glob[i])) {
      members.push_back(glob[i]);
      ++i;
    } else {
      return {};
    }
    std::ranges::sort(members);
    members.erase(std::unique(members.begin(), members.end()), members.end());
    if (variants.size() * members.size() > kMaxVariants) return {};
    std::vector<std::string> next;
    next.reserve(variants.size() * members.size());
    for (const auto& v : variants) {
      for (char m : members) next.push_back(v + m);
    }
    variants = std::move(next);
  }
  return variants;
}

// Literal text that every name `glob` matches must start with, end with and contain, read as
// Glob reads the pattern. Leaves all three empty for a class it would rather not second-guess
// (a backslash or a POSIX `[:name:]` inside).
void required_literals(std::string_view glob, std::string& prefix, std::string& suffix,
                       std::string& infix) {
  prefix.clear();
  suffix.clear();
  infix.clear();
  std::vector<std::string> runs{std::string()};
  bool starts_literal = true;
  for (std::size_t i = 0; i < glob.size();) {
    char c = glob[i];
    if (c == '*' || c == '?' || c == '[') {
      if (i == 0) starts_literal = false;
      if (!runs.back().empty()) runs.emplace_back();
      if (c != '[') {
        ++i;
        continue;
      }
      std::size_t end = skip_class(glob, i);
      if (end == std::string_view::npos) return;
      std::string_view body = glob.substr(i + 1, end - i - 2);
      if (body.find('\\') != std::string_view::npos || body.find("[:") != std::string_view::npos) {
        return;
      }
      i = end;
    } else if (c == '\\' && i + 1 < glob.size()) {
      runs.back() += glob[i + 1];
      i += 2;
    } else {
      runs.back() += c;
      ++i;
    }
  }
  if (starts_literal) prefix = runs.front();
  suffix = runs.back();  // empty when the glob ends in a wildcard
  for (const auto& run : runs) {
    if (run.size() > infix.size()) infix = run;
  }
}

// ripgrep's pathutil::file_name: the bytes after the last '/', or nothing for an empty path or
// one ending in '.' (".", "..", "foo.").
bool file_name_of(std::string_view path, std::string_view& name) {
  if (path.empty() || path.back() == '.') return false;
  std::size_t slash = path.rfind('/');
  name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// TypeTable

TypeTable TypeTable::with_defaults() {
  TypeTable table;
  table.add_defaults();
  return table;
}

void TypeTable::append(std::string_view name, std::string glob) {
  auto it = types_.find(name);
  if (it == types_.end()) it = types_.emplace(std::string(name), std::vector<std::string>{}).first;
  it->second.push_back(std::move(glob));
}

Status TypeTable::add(std::string_view spec) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    std::size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (parts.size() == 2) {
    std::string_view name = parts[0];
    if (name.empty() || parts[1].empty()) return invalid_definition(spec, kDefinitionForm);
    if (!valid_type_name(name)) {
      return invalid_definition(spec, "a type name is letters and digits, and not 'all'");
    }
    std::vector<std::string_view> globs = split_top_level_commas(parts[1]);
    if (std::ranges::any_of(globs, [](std::string_view g) { return g.empty(); })) {
      return invalid_definition(spec, kDefinitionForm);
    }
    for (std::string_view glob : globs) append(name, std::string(glob));
    return {};
  }
  if (parts.size() == 3) {
    std::string_view name = parts[0];
    if (name.empty() || parts[1] != "include" || parts[2].empty()) {
      return invalid_definition(spec, kDefinitionForm);
    }
    if (!valid_type_name(name)) {
      return invalid_definition(spec, "a type name is letters and digits, and not 'all'");
    }
    std::vector<std::string> included;
    for (std::size_t start = 0;;) {
      std::size_t comma = parts[2].find(',', start);
      std::string_view other = parts[2].substr(start, comma - start);
      auto it = types_.find(other);
      if (it == types_.end()) {
        return invalid_definition(
            spec, fmt::format("unrecognized file type: {} (see --type-list)", other));
      }
      included.insert(included.end(), it->second.begin(), it->second.end());
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    for (auto& glob : included) append(name, std::move(glob));
    return {};
  }
  return invalid_definition(spec, kDefinitionForm);
}

void TypeTable::clear(std::string_view name) {
  auto it = types_.find(name);
  if (it != types_.end()) types_.erase(it);
}

bool TypeTable::has(std::string_view name) const { return types_.find(name) != types_.end(); }

const std::vector<std::string>& TypeTable::globs(std::string_view name) const {
  static const std::vector<std::string> empty;
  auto it = types_.find(name);
  return it == types_.end() ? empty : it->second;
}

std::vector<std::string> TypeTable::names() const {
  std::vector<std::string> out;
  out.reserve(types_.size());
  for (const auto& entry : types_) out.push_back(entry.first);
  return out;
}

std::string TypeTable::list() const {
  std::string out;
  std::vector<std::string_view> sorted;
  for (const auto& [name, globs] : types_) {
    sorted.assign(globs.begin(), globs.end());
    std::ranges::sort(sorted);
    out += name;
    out += ": ";
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i > 0) out += ", ";
      out += sorted[i];
    }
    out += '\n';
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// TypeMatcher

void TypeMatcher::record(HitMap& map, std::string key, Hit hit) {
  auto [it, inserted] = map.try_emplace(std::move(key), hit);
  if (!inserted && hit.order >= it->second.order) it->second = hit;
}

void TypeMatcher::index(std::string_view glob, Hit hit) {
  const GlobOptions options{.pathname = false, .case_insensitive = false};
  std::vector<std::string> plain = expand_classes(glob);
  if (plain.empty()) plain.emplace_back(glob);
  for (const auto& variant : plain) {
    Glob compiled = Glob::compile(variant, options);
    const std::string& literal = compiled.literal();
    switch (compiled.shape()) {
      case Glob::Shape::kNever:
        break;
      case Glob::Shape::kLiteral:
        record(by_name_, literal, hit);
        break;
      case Glob::Shape::kStarSuffix:
        if (literal.size() >= 2 && literal[0] == '.' && literal.find('.', 1) == std::string::npos) {
          record(by_extension_, literal.substr(1), hit);
        } else {
          if (std::ranges::find(suffix_lengths_, literal.size()) == suffix_lengths_.end()) {
            suffix_lengths_.push_back(literal.size());
          }
          record(by_suffix_, literal, hit);
        }
        break;
      case Glob::Shape::kGeneral: {
        General general{std::move(compiled), {}, {}, {}, hit};
        required_literals(variant, general.prefix, general.suffix, general.infix);
        general_.push_back(std::move(general));
        break;
      }
    }
  }
}

Result<TypeMatcher> TypeMatcher::build(const TypeTable& table,
                                       const std::vector<TypeSelection>& selections) {
  // Resolve "all" and check every name before compiling anything.
  std::vector<std::pair<const std::vector<std::string>*, bool>> resolved;
  for (const auto& selection : selections) {
    if (selection.name == "all") {
      for (const auto& name : table.names()) {
        resolved.emplace_back(&table.globs(name), selection.negated);
      }
    } else if (table.has(selection.name)) {
      resolved.emplace_back(&table.globs(selection.name), selection.negated);
    } else {
      return unrecognized_type(selection.name);
    }
  }

  TypeMatcher matcher;
  matcher.selection_count_ = resolved.size();
  std::uint32_t order = 0;
  std::vector<std::string> alternatives;
  for (const auto& [globs, negated] : resolved) {
    matcher.has_selected_ = matcher.has_selected_ || !negated;
    for (const auto& glob : *globs) {
      CTX_TRY(check_glob(glob));
      alternatives.clear();
      if (!expand_braces(glob, alternatives)) {
        return invalid(fmt::format("error parsing glob '{}': too many {{...}} alternatives", glob));
      }
      const Hit hit{++order, negated};
      for (std::string_view alternative : alternatives) {
        // The name has no '/', so a leading `**/` (any directories, or none) matches nothing.
        while (alternative.starts_with("**/")) alternative.remove_prefix(3);
        matcher.index(alternative, hit);
      }
      ++matcher.glob_count_;
    }
  }
  std::ranges::reverse(matcher.general_);  // latest first, so match() can stop at the first hit
  return matcher;
}

Result<TypeMatcher> TypeMatcher::build(const TypeTable& table,
                                       const std::vector<std::string>& select,
                                       const std::vector<std::string>& negate) {
  std::vector<TypeSelection> selections;
  selections.reserve(select.size() + negate.size());
  for (const auto& name : select) selections.push_back({name, false});
  for (const auto& name : negate) selections.push_back({name, true});
  return build(table, selections);
}

MatchKind TypeMatcher::match(std::string_view path, bool is_dir) const {
  if (is_dir || glob_count_ == 0) return MatchKind::kNone;
  const MatchKind unmatched = has_selected_ ? MatchKind::kIgnore : MatchKind::kNone;
  std::string_view name;
  if (!file_name_of(path, name)) return unmatched;

  Hit best;
  auto consider = [&best](const HitMap& map, std::string_view key) {
    auto it = map.find(key);
    if (it != map.end() && it->second.order > best.order) best = it->second;
  };
  if (!by_name_.empty()) consider(by_name_, name);
  if (!by_extension_.empty()) {
    std::size_t dot = name.rfind('.');
    if (dot != std::string_view::npos) consider(by_extension_, name.substr(dot + 1));
  }
  for (std::size_t length : suffix_lengths_) {
    if (length <= name.size()) consider(by_suffix_, name.substr(name.size() - length));
  }
  for (const General& general : general_) {
    if (general.hit.order <= best.order) break;  // nothing later is left to find
    if (!name.starts_with(general.prefix) || !name.ends_with(general.suffix) ||
        name.size() < general.prefix.size() + general.suffix.size() ||
        name.find(general.infix) == std::string_view::npos) {
      continue;
    }
    if (general.glob.matches(name)) {
      best = general.hit;
      break;
    }
  }
  if (best.order == 0) return unmatched;
  return best.negated ? MatchKind::kIgnore : MatchKind::kWhitelist;
}

}  // namespace ctx::walker
