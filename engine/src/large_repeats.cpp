#include "large_repeats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>
#include <vector>

namespace ctx::engine::detail {
namespace {

constexpr std::size_t kNpos = std::string_view::npos;

// A counted repetition {n}, {n,} or {n,m} (decimal digits only: PCRE2 10.42 and Hyperscan read
// anything else as a literal '{'); `end` is past its '}'.
struct Counted {
  std::uint64_t min = 0;
  std::optional<std::uint64_t> max;
  std::size_t end = 0;
};

// Digits at re[j], moving `j` past them; saturates far above any count (u32).
std::optional<std::uint64_t> decimal(std::string_view re, std::size_t& j) {
  const std::size_t start = j;
  std::uint64_t v = 0;
  while (j < re.size() && re[j] >= '0' && re[j] <= '9') {
    v = std::min<std::uint64_t>(v * 10 + static_cast<std::uint64_t>(re[j] - '0'), 1ULL << 40);
    ++j;
  }
  if (j == start) return std::nullopt;
  return v;
}

std::optional<Counted> counted_at(std::string_view re, std::size_t i) {
  std::size_t j = i + 1;
  Counted q;
  const auto min = decimal(re, j);
  if (!min) return std::nullopt;
  q.min = *min;
  q.max = q.min;
  if (j < re.size() && re[j] == ',') {
    ++j;
    q.max = decimal(re, j);
  }
  if (j >= re.size() || re[j] != '}') return std::nullopt;
  q.end = j + 1;
  return q;
}

std::size_t utf8_length(unsigned char b) {
  return b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
}

// The length of the escape at re[i] ('\\').
std::size_t escape_length(std::string_view re, std::size_t i) {
  if (i + 1 >= re.size()) return 1;
  const char c = re[i + 1];
  std::size_t j = i + 2;
  const auto up_to = [&](char close) {
    const std::size_t at = re.find(close, j);
    return (at == kNpos ? re.size() : at + 1) - i;
  };
  if (std::string_view("xopPNgk").find(c) != kNpos && j < re.size() && re[j] == '{') {
    return up_to('}');
  }
  if ((c == 'g' || c == 'k') && j < re.size() && re[j] == '<') return up_to('>');
  if (c == 'Q') {
    const std::size_t at = re.find("\\E", j);
    return (at == kNpos ? re.size() : at + 2) - i;
  }
  const auto run = [&](auto accept, std::size_t most) {
    std::size_t k = j;
    while (k < re.size() && k - j < most && accept(re[k])) ++k;
    return k - i;
  };
  if (c == 'x') return run([](char d) { return std::isxdigit(static_cast<unsigned char>(d)); }, 2);
  if (c >= '0' && c <= '9') return run([](char d) { return d >= '0' && d <= '9'; }, 2);
  if (c == 'c' && j < re.size()) return 3;
  if ((c == 'p' || c == 'P') && j < re.size()) {
    return 2 + utf8_length(static_cast<unsigned char>(re[j]));
  }
  return 1 + utf8_length(static_cast<unsigned char>(c));
}

// The end (past its ']') of the class at re[i] ('[').
std::size_t class_end(std::string_view re, std::size_t i) {
  std::size_t j = i + 1;
  if (j < re.size() && re[j] == '^') ++j;
  if (j < re.size() && re[j] == ']') ++j;  // a leading ']' is a member
  while (j < re.size() && re[j] != ']') {
    if (re[j] == '\\') {
      j += escape_length(re, j);
    } else if (re[j] == '[' && j + 1 < re.size() && re[j + 1] == ':') {
      const std::size_t close = re.find(":]", j + 2);
      j = close == kNpos ? j + 1 : close + 2;
    } else {
      ++j;
    }
  }
  return std::min(j + 1, re.size());
}

// Whether the group opening at re[i] ('(') captures.
bool captures(std::string_view re, std::size_t i) {
  const std::string_view rest = re.substr(i + 1);
  if (rest.empty() || (rest[0] != '?' && rest[0] != '*')) return true;
  if (rest.starts_with("?P<") || rest.starts_with("?'")) return true;
  return rest.starts_with("?<") && rest.size() > 2 && rest[2] != '=' && rest[2] != '!';
}

// Whether `body` is one atom a count may repeat as PCRE2 repeats a character: a character, `.`,
// a class, or an escape other than an assertion, sequence, reference or quote. `item`: one that
// may also be an item of a class (not `.`, not a negated class).
bool one_atom(std::string_view body, bool item) {
  if (body.empty()) return false;
  const char c = body[0];
  if (c == '\\') {
    const char e = body.size() > 1 ? body[1] : 'b';
    return escape_length(body, 0) == body.size() &&
           std::string_view("bBAzZGKRXNCgkQE").find(e) == kNpos && !(e >= '0' && e <= '9');
  }
  if (c == '[') return class_end(body, 0) == body.size() && !(item && body.starts_with("[^"));
  if (c == '.') return !item && body.size() == 1;
  return std::string_view("^$()|*+?{").find(c) == kNpos &&
         utf8_length(static_cast<unsigned char>(c)) == body.size();
}

// Alternatives of single characters, escapes and classes, `x|\d|[a-c]`, as the one class that
// matches the characters of any, `[x\da-c]` (regex-syntax's reading too); nullopt otherwise.
std::optional<std::string> alternatives_as_class(std::string_view body) {
  std::string items;
  for (std::size_t i = 0; i <= body.size();) {
    std::size_t end = body.find('|', i);  // no '|' inside a class item below: one_atom checks
    std::string_view alternative = body.substr(i, end == kNpos ? kNpos : end - i);
    if (alternative.starts_with('[')) {  // a class: up to its own end (it may hold a '|')
      alternative = body.substr(i, class_end(body, i) - i);
      end = i + alternative.size();
      if (end < body.size() && body[end] != '|') return std::nullopt;
      if (end == body.size()) end = kNpos;
    }
    if (!one_atom(alternative, true)) return std::nullopt;
    if (alternative[0] == '[') {
      std::string_view inner = alternative.substr(1, alternative.size() - 2);
      if (inner.starts_with(']')) {  // a leading ']' is a member only there
        items += "\\]";
        inner.remove_prefix(1);
      }
      items.append(inner);
    } else {
      const char c = alternative[0];
      if (c == ']' || c == '-' || c == '[') items += '\\';  // literal inside a class
      items.append(alternative);
    }
    if (end == kNpos) break;
    i = end + 1;
  }
  return "[" + items + "]";
}

// A non-capturing group, `(?flags:BODY)`, whose BODY is one atom (one_atom) or alternatives of
// single characters (a class): its opening and that atom, the repetition to go inside it, where
// PCRE2 repeats a character by a count and a group by copying it (a count of 65536 takes more
// than its 64 KiB).
std::optional<std::pair<std::string_view, std::string>> group_of_one(std::string_view atom) {
  if (!atom.starts_with("(?") || !atom.ends_with(")")) return std::nullopt;
  std::size_t colon = 2;
  while (colon < atom.size() &&
         (std::isalpha(static_cast<unsigned char>(atom[colon])) != 0 || atom[colon] == '-')) {
    ++colon;
  }
  if (colon >= atom.size() || atom[colon] != ':') return std::nullopt;
  const std::string_view body = atom.substr(colon + 1, atom.size() - colon - 2);
  if (one_atom(body, false)) return std::pair(atom.substr(0, colon + 1), std::string(body));
  if (auto cls = alternatives_as_class(body)) return std::pair(atom.substr(0, colon + 1), *cls);
  return std::nullopt;
}

// `atom` repeated as `q` says, in pieces of at most kPcre2MaxRepeat.
std::string pieces(std::string_view atom, const Counted& q, bool lazy, std::uint64_t most) {
  std::string out = "(?:";
  for (std::uint64_t left = q.min; left > 0;) {
    const std::uint64_t n = std::min(left, most);
    out += atom;
    if (n > 1) out += fmt::format("{{{}}}", n);
    left -= n;
  }
  if (!q.max) {
    out += atom;
    out += lazy ? "*?" : "*";
  } else {
    for (std::uint64_t left = *q.max - q.min; left > 0;) {
      const std::uint64_t n = std::min(left, most);
      out += atom;
      out += fmt::format("{{0,{}}}", n);
      if (lazy) out += '?';
      left -= n;
    }
  }
  return out + ")";
}

// Walks `re` atom by atom, copying it, and lets `rewrite` replace each counted repetition of an
// atom: rewrite(out, atom_start, atom_captures, q, lazy) appends its replacement (of the atom at
// out[atom_start..] and the repetition with its lazy '?') or returns false to keep them as written.
template <typename Rewrite>
std::string walk(std::string_view re, Rewrite&& rewrite) {
  std::string out;
  out.reserve(re.size());
  struct Frame {
    std::size_t out_start;
    bool has_capture;
  };
  std::vector<Frame> open;
  std::size_t atom = kNpos;  // where the last atom starts in `out`
  bool atom_captures = false;
  const auto copy_atom = [&](std::size_t from, std::size_t length) {
    atom = out.size();
    atom_captures = false;
    out.append(re.substr(from, length));
  };
  for (std::size_t i = 0; i < re.size();) {
    const char c = re[i];
    if (c == '\\') {
      const std::size_t length = escape_length(re, i);
      copy_atom(i, length);
      i += length;
    } else if (c == '[') {
      const std::size_t end = class_end(re, i);
      copy_atom(i, end - i);
      i = end;
    } else if (c == '(' && re.substr(i, 3) == "(?#") {  // a comment
      const std::size_t close = re.find(')', i);
      const std::size_t end = close == kNpos ? re.size() : close + 1;
      out.append(re.substr(i, end - i));
      i = end;
    } else if (c == '(') {
      const bool capture = captures(re, i);
      open.push_back({out.size(), capture});
      out += c;
      ++i;
      atom = kNpos;
    } else if (c == ')') {
      out += c;
      ++i;
      atom = kNpos;
      if (!open.empty()) {
        const Frame f = open.back();
        open.pop_back();
        atom = f.out_start;
        atom_captures = f.has_capture;
        if (!open.empty()) open.back().has_capture = open.back().has_capture || f.has_capture;
      }
    } else if (c == '{' && atom != kNpos && counted_at(re, i)) {
      const Counted q = *counted_at(re, i);
      const bool lazy = q.end < re.size() && re[q.end] == '?';
      const bool possessive = q.end < re.size() && re[q.end] == '+';
      if (possessive || !rewrite(out, atom, atom_captures, q, lazy)) {
        out.append(re.substr(i, q.end - i));
        if (lazy || possessive) out += re[q.end];
      }
      i = q.end + (lazy || possessive ? 1 : 0);
      atom = kNpos;
    } else if (c == '*' || c == '+' || c == '?' || c == '|') {
      out += c;
      ++i;
      atom = kNpos;
    } else {
      const std::size_t length =
          std::min(utf8_length(static_cast<unsigned char>(c)), re.size() - i);
      copy_atom(i, length);
      i += length;
    }
  }
  return out;
}

}  // namespace

std::string split_large_repeats(std::string_view regex, std::uint64_t most) {
  if (regex.find('{') == kNpos) return std::string(regex);
  return walk(regex, [most](std::string& out, std::size_t atom, bool atom_captures,
                            const Counted& q, bool lazy) {
    const bool large = q.min > most || (q.max && *q.max > most);
    if (!large || atom_captures || (q.max && *q.max < q.min)) return false;
    const std::string text = out.substr(atom);
    const auto group = group_of_one(text);
    // Lazy pieces of a group find another first match where the group has several ways to match
    // (they try a second piece before more of the first); PCRE2 could not compile them anyway.
    if (lazy && !group && text.starts_with('(')) return false;
    out.resize(atom);
    if (group && group->first == "(?:") {  // every piece lazy when `lazy`
      out += pieces(group->second, q, lazy, most);
    } else if (group) {
      out += fmt::format("{}{})", group->first, pieces(group->second, q, lazy, most));
    } else {
      out += pieces(text, q, lazy, most);
    }
    return true;
  });
}

std::string widen_large_repeats(std::string_view regex, std::uint32_t cap) {
  if (regex.find('{') == kNpos) return std::string(regex);
  return walk(regex, [cap](std::string& out, std::size_t, bool, const Counted& q, bool lazy) {
    const std::uint64_t most = q.max ? std::max(*q.max, q.min) : q.min;
    if (most <= cap) return false;
    out += fmt::format("{{{},}}", std::min<std::uint64_t>(q.min, cap));
    if (lazy) out += '?';
    return true;
  });
}

}  // namespace ctx::engine::detail
