#include "rust_syntax.hpp"

#include <fmt/format.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "unicode_props.hpp"

namespace ctx::engine::detail {
namespace {

void add_range(AsciiSet& s, int lo, int hi) {
  for (int c = lo; c <= hi; ++c) s[static_cast<std::size_t>(c)] = true;
}

}  // namespace

// Rust regex-syntax's ASCII classes (ClassAsciiKind), by name; false for an unknown name.
bool ascii_class(std::string_view name, AsciiSet& s) {
  s.fill(false);
  if (name == "alnum") {
    add_range(s, '0', '9'), add_range(s, 'A', 'Z'), add_range(s, 'a', 'z');
  } else if (name == "alpha") {
    add_range(s, 'A', 'Z'), add_range(s, 'a', 'z');
  } else if (name == "ascii") {
    add_range(s, 0, 0x7F);
  } else if (name == "blank") {
    add_range(s, '\t', '\t'), add_range(s, ' ', ' ');
  } else if (name == "cntrl") {
    add_range(s, 0, 0x1F), add_range(s, 0x7F, 0x7F);
  } else if (name == "digit") {
    add_range(s, '0', '9');
  } else if (name == "graph") {
    add_range(s, '!', '~');
  } else if (name == "lower") {
    add_range(s, 'a', 'z');
  } else if (name == "print") {
    add_range(s, ' ', '~');
  } else if (name == "punct") {
    add_range(s, '!', '/'), add_range(s, ':', '@'), add_range(s, '[', '`'), add_range(s, '{', '~');
  } else if (name == "space") {
    add_range(s, '\t', '\r'), add_range(s, ' ', ' ');
  } else if (name == "upper") {
    add_range(s, 'A', 'Z');
  } else if (name == "word") {
    add_range(s, '0', '9'), add_range(s, 'A', 'Z'), add_range(s, 'a', 'z'), add_range(s, '_', '_');
  } else if (name == "xdigit") {
    add_range(s, '0', '9'), add_range(s, 'A', 'F'), add_range(s, 'a', 'f');
  } else {
    return false;
  }
  return true;
}

namespace {

// One code point as a class member: ASCII letters and digits as themselves (so that Hyperscan's
// case-fold rewrite sees letter ranges), anything else as \x{..}.
std::string class_char(std::uint32_t cp) {
  const bool alnum =
      (cp >= '0' && cp <= '9') || (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z');
  if (alnum) return std::string(1, static_cast<char>(cp));
  return fmt::format("\\x{{{:X}}}", cp);
}

// Class items for the sorted, disjoint ranges.
std::string class_items(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& ranges) {
  std::string out;
  for (auto [lo, hi] : ranges) {
    out += class_char(lo);
    if (hi > lo) {
      if (hi > lo + 1) out += '-';
      out += class_char(hi);
    }
  }
  return out;
}

// The class items of POSIX class `name` ("alpha" or "^alpha") as Rust reads it, or nullopt-like
// empty string with ok=false for an unknown name. Negated under case-insensitivity: the
// complement of the set's simple case-fold closure (Rust folds each ASCII class, then negates).
bool posix_items(std::string_view name, bool caseless, std::string& out) {
  const bool negated = !name.empty() && name.front() == '^';
  if (negated) name.remove_prefix(1);
  AsciiSet s{};
  if (!ascii_class(name, s)) return false;
  std::vector<std::uint32_t> extra;  // non-ASCII members of the fold closure
  if (caseless && negated) {
    for (int c = 'A'; c <= 'Z'; ++c) {
      const auto u = static_cast<std::size_t>(c), l = static_cast<std::size_t>(c) + 32;
      s[u] = s[l] = s[u] || s[l];
    }
    if (s['s']) extra.push_back(0x17F);   // LATIN SMALL LETTER LONG S
    if (s['k']) extra.push_back(0x212A);  // KELVIN SIGN
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
  auto member = [&](std::uint32_t cp) {
    if (cp < 128) return s[cp];
    for (std::uint32_t e : extra) {
      if (e == cp) return true;
    }
    return false;
  };
  // The points where membership may change: ASCII, the extras and their neighbours.
  std::vector<std::uint32_t> points;
  for (std::uint32_t c = 0; c <= 128; ++c) points.push_back(c);
  for (std::uint32_t e : extra) points.push_back(e), points.push_back(e + 1);
  points.push_back(0x110000);
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const std::uint32_t lo = points[i], hi = points[i + 1] - 1;
    if (member(lo) == negated) continue;  // [lo, hi] is uniformly in or out
    if (!ranges.empty() && ranges.back().second + 1 == lo) {
      ranges.back().second = hi;
    } else {
      ranges.emplace_back(lo, hi);
    }
  }
  out += class_items(ranges);
  return true;
}

// Rust's \d: Nd, plus the Unicode 15 digits (Kawi, Nag Mundari) PCRE2 10.42 lacks.
constexpr std::string_view kRustDigitItems = "\\p{Nd}\\x{11F50}-\\x{11F59}\\x{1E4F0}-\\x{1E4F9}";
// Any character (a valid one: PCRE2 never matches invalid UTF-8 with an item, nor does Rust).
constexpr std::string_view kAnyChar = "[\\x{0}-\\x{10FFFF}]";
constexpr std::string_view kNonAscii = "\\x{80}-\\x{10FFFF}";

// Class items for the ASCII members of `ranges`, plus \P{ASCII} when it has others.
std::string ascii_items(const CodepointRanges& ranges) {
  CodepointRanges ascii;
  bool non_ascii = false;
  for (auto [lo, hi] : ranges) {
    if (lo < 0x80) ascii.emplace_back(lo, std::min<std::uint32_t>(hi, 0x7F));
    non_ascii = non_ascii || hi >= 0x80;
  }
  std::string out = class_items(ascii);
  if (non_ascii) out += "\\P{ASCII}";
  return out;
}

// One character, as the class translation builds it: class items (for inside [...]), the same
// negated, or a whole expression that matches exactly one character.
struct OneChar {
  enum Kind { kItems, kNegItems, kExpr } kind = kItems;
  std::string text;

  std::string expr() const {
    if (kind == kExpr) return text;
    if (text.empty()) return kind == kItems ? "(?!)" : std::string(kAnyChar);
    // One negated character is written twice ([^kk]): PCRE2 10.42 compiles [^k] under caseless
    // matching into an opcode whose JIT code reads an invalid UTF-8 byte as the lead of a whole
    // character, past the subject's end (-i -o '[^k]' on "a\xFFb" matched "\xFFb"); a class
    // of two items compiles to a class.
    if (kind == kNegItems && one_class_item(text)) return fmt::format("[^{0}{0}]", text);
    return fmt::format("[{}{}]", kind == kNegItems ? "^" : "", text);
  }
};

// The ASCII members of `expr` (one character) under `caseless`, as class items; nullopt when
// PCRE2 does not compile it.
std::optional<std::string> ascii_members(const std::string& expr, bool caseless) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  const std::string re = "(?:" + expr + ")";
  pcre2_code* code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(re.data()), re.size(),
                    PCRE2_UTF | PCRE2_UCP | PCRE2_ANCHORED | (caseless ? PCRE2_CASELESS : 0U),
                    &error, &offset, nullptr);
  if (code == nullptr) return std::nullopt;
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(code, nullptr);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
  for (std::uint32_t c = 0; c < 128; ++c) {
    const auto byte = static_cast<unsigned char>(c);
    if (pcre2_match(code, &byte, 1, 0, 0, md, nullptr) < 0) continue;
    if (!ranges.empty() && ranges.back().second + 1 == c) {
      ranges.back().second = c;
    } else {
      ranges.emplace_back(c, c);
    }
  }
  pcre2_match_data_free(md);
  pcre2_code_free(code);
  return class_items(ranges);
}

class Rewriter {
 public:
  Rewriter(std::string_view re, bool caseless, bool posix, WordMode words)
      : re_(re), caseless_(caseless), posix_(posix), words_(words) {}

  Result<std::string> run() {
    while (pos_ < re_.size() && why_.empty()) {
      const char c = re_[pos_];
      if (c == '\\') {
        escape();
      } else if (c == '[') {
        top_class();
      } else if (c == '(') {
        group_open();
      } else if (c == ')') {
        if (!scopes_.empty()) {
          caseless_ = scopes_.back();
          scopes_.pop_back();
        }
        out_ += c;
        ++pos_;
      } else {
        out_ += c;
        ++pos_;
      }
    }
    if (!why_.empty()) {
      return Error{ErrorCode::kInvalidArgument,
                   fmt::format("regex parse error in '{}' at offset {}: {}", re_, error_at_, why_)};
    }
    return std::move(out_);
  }

 private:
  void fail(std::size_t at, std::string why) {
    if (!why_.empty()) return;
    error_at_ = at;
    why_ = std::move(why);
  }

  // The length of the escape at `j` (a backslash): 2, or through a {...} argument, or \pL.
  std::size_t escape_length(std::size_t j, std::size_t end) const {
    if (j + 1 >= end) return end - j;
    const char e = re_[j + 1];
    if ((e == 'x' || e == 'p' || e == 'P' || e == 'u' || e == 'U') && j + 2 < end &&
        re_[j + 2] == '{') {
      const std::size_t close = re_.find('}', j + 2);
      return close == std::string_view::npos || close >= end ? end - j : close + 1 - j;
    }
    if ((e == 'p' || e == 'P') && j + 2 < end) {  // \pL: one character, maybe multibyte
      const auto u = static_cast<unsigned char>(re_[j + 2]);
      const std::size_t n = u >= 0xF0 ? 4 : u >= 0xE0 ? 3 : u >= 0xC0 ? 2 : 1;
      return std::min(2 + n, end - j);
    }
    if (e == 'u' || e == 'U') {  // \uHHHH, \UHHHHHHHH
      const std::size_t digits = e == 'u' ? 4 : 8;
      return std::min(2 + digits, end - j);
    }
    return 2;
  }

  // A class escape (\d \D \s \S \w \W \p.. \P..) at `j` of length `len` as a OneChar, or
  // nullopt for any other escape.
  std::optional<OneChar> class_escape(std::size_t j, std::size_t len) {
    const char e = re_[j + 1];
    const bool rust = words_ != WordMode::kKeep;
    if (len == 2 && std::string_view("dDsSwW").find(e) != std::string_view::npos) {
      complex_ = true;
      if (!rust) return OneChar{OneChar::kItems, std::string(re_.substr(j, 2))};
      switch (e) {
        case 'd':
          return OneChar{OneChar::kItems, std::string(kRustDigitItems)};
        case 'D':
          return OneChar{OneChar::kNegItems, std::string(kRustDigitItems)};
        case 's':
          return OneChar{OneChar::kItems, "\\p{White_Space}"};
        case 'S':
          return OneChar{OneChar::kItems, "\\P{White_Space}"};
        case 'w':
          return OneChar{OneChar::kItems, std::string(kRustWordItems)};
        default:
          return OneChar{OneChar::kNegItems, std::string(kRustWordItems)};
      }
    }
    if (e != 'p' && e != 'P') return std::nullopt;
    std::string_view body = re_.substr(j + 2, len - 2);
    if (body.size() >= 2 && body.front() == '{' && body.back() == '}') {
      body = body.substr(1, body.size() - 2);
    } else if (!body.empty() && body.front() == '{') {
      fail(j, "unclosed Unicode class literal");
      return std::nullopt;
    }
    if (body.empty()) {
      fail(j, "missing Unicode property name");
      return std::nullopt;
    }
    if (body.starts_with('^')) {  // PCRE2's negation syntax; Rust has none
      fail(j, "Unicode property not found (write \\P{..} for the complement)");
      return std::nullopt;
    }
    std::string why;
    auto cls = unicode_class(body, why);
    if (!cls) {
      fail(j, why);
      return std::nullopt;
    }
    return property_char(*cls, e == 'P');
  }

  // Rust's class for \p{..} (\P{..} when `negated`) as items for the current mode: under
  // case-insensitivity the property is first closed under simple case folding, then negated
  // (Rust's order: -i \P{Lu} matches neither `A` nor `a`). kRust and kSuperset get the exact
  // code point ranges (PCRE2's and Hyperscan's own tables are older than ripgrep 14's Unicode
  // 15), kKeep the exact ASCII members plus \P{ASCII} when there are others (a superset that the
  // byte prefilter and the BitMatcher leave to the UTF-8 paths).
  OneChar property_char(const UnicodeClass& cls, bool negated) {
    CodepointRanges set = caseless_ ? case_fold_closure(cls.ranges) : cls.ranges;
    if (negated) set = complement(set);
    if (words_ != WordMode::kSuperset) complex_ = true;
    if (words_ == WordMode::kKeep) return OneChar{OneChar::kItems, ascii_items(set)};
    // Hyperscan compiles big classes slowly (\p{L}, 659 ranges: ~0.5 s) and they filter little:
    // past kMaxExactRanges the superset is the exact ASCII members and every other character.
    if (words_ == WordMode::kSuperset && set.size() > kMaxExactRanges) {
      // A superset of the property is not one of a class that negates it ([^\pL]x missed €x):
      // the class around it then gets its own superset (top_class).
      complex_ = true;
      CodepointRanges ascii;
      for (auto [lo, hi] : set) {
        if (lo < 0x80) ascii.emplace_back(lo, std::min<std::uint32_t>(hi, 0x7F));
      }
      return OneChar{OneChar::kItems, class_items(ascii) + std::string(kNonAscii)};
    }
    // An empty class: Hyperscan has no (?!), and a superset may match a character.
    if (set.empty() && words_ == WordMode::kSuperset)
      return OneChar{OneChar::kItems, "\\x{10FFFF}"};
    return OneChar{OneChar::kItems, class_items(set)};
  }

  // \uHHHH, \u{H..}, \UHHHHHHHH (Rust) as PCRE2's \x{H..}; empty when not one of those.
  std::string unicode_escape(std::size_t j, std::size_t len) const {
    const char e = re_[j + 1];
    if (e != 'u' && e != 'U') return {};
    std::string_view digits = re_.substr(j + 2, len - 2);
    if (!digits.empty() && digits.front() == '{') digits = digits.substr(1, digits.size() - 2);
    return fmt::format("\\x{{{}}}", digits);
  }

  // Whether class items `items` are one \p{..} or \P{..}.
  static bool single_property_item(std::string_view items) {
    return (items.starts_with("\\p{") || items.starts_with("\\P{")) &&
           items.find('}') == items.size() - 1;
  }

  // The superset item (kSuperset) of one-character `c`: its exact ASCII members and every
  // non-ASCII character.
  std::string superset(const OneChar& c) const {
    auto members = ascii_members(c.expr(), caseless_);
    if (!members) return std::string(kAnyChar);
    return fmt::format("[{}{}]", *members, kNonAscii);
  }

  // Rust's special word boundaries at pos_ (a backslash): \b{start} \b{end} \b{start-half}
  // \b{end-half}, \< (\b{start}) and \> (\b{end}). Returns false, nothing consumed, for any
  // other escape (\b{2} is \b repeated); fails on a \b{name} Rust does not know.
  bool word_look() {
    std::string_view kind;
    std::size_t end = pos_ + 2;
    const std::string_view rest = re_.substr(pos_);
    if (rest.starts_with("\\<")) {
      kind = "start";
    } else if (rest.starts_with("\\>")) {
      kind = "end";
    } else if (rest.starts_with("\\b{") && rest.size() > 3 &&
               (std::isalpha(static_cast<unsigned char>(rest[3])) != 0 || rest[3] == '-')) {
      const std::size_t close = rest.find('}');
      kind = close == kNpos ? std::string_view() : rest.substr(3, close - 3);
      if (kind != "start" && kind != "end" && kind != "start-half" && kind != "end-half") {
        fail(pos_, close == kNpos ? "special word boundary assertion is unclosed"
                                  : "unrecognized special word boundary assertion, valid choices "
                                    "are: start, end, start-half or end-half");
        return true;
      }
      end = pos_ + close + 1;
    } else {
      return false;
    }
    pos_ = end;
    if (words_ == WordMode::kSuperset) {  // Hyperscan has no look-arounds: dropping one widens
      out_ += "(?:)";
    } else if (words_ == WordMode::kKeep) {  // ASCII \w: exact on ASCII subjects
      out_ += kind == "start"        ? "(?:\\b(?=\\w))"
              : kind == "end"        ? "(?:\\b(?<=\\w))"
              : kind == "start-half" ? "(?:(?<!\\w))"
                                     : "(?:(?!\\w))";
    } else {  // as \b below: regex-automata's is_word_start_unicode and the others
      const std::string w = fmt::format("[{}]", kRustWordItems);
      const std::string nw = fmt::format("[^{}]", kRustWordItems);
      const std::string before_word = fmt::format("(?:(?<={})|(?C{}))", w, kCalloutWordBefore);
      if (kind == "start") {  // no word character before (invalid UTF-8 is none), one after
        out_ += fmt::format("(?:(?!{}){})", before_word, "(?=" + w + ")");
      } else if (kind == "end") {
        out_ += fmt::format("(?:{}(?!{}))", before_word, w);
      } else if (kind == "start-half") {  // the start, or a valid character that is no word one
        out_ += fmt::format("(?:\\A|(?<={})|(?C{}))", nw, kCalloutNonWordBefore);
      } else {
        out_ += fmt::format("(?:\\z|(?={}))", nw);
      }
    }
    return true;
  }

  void escape() {
    if (word_look()) return;
    const std::size_t len = escape_length(pos_, re_.size());
    const char e = len >= 2 ? re_[pos_ + 1] : '\0';
    if (len == 2 && words_ != WordMode::kKeep && (e == 'b' || e == 'B')) {
      pos_ += 2;
      if (words_ == WordMode::kRust) {
        const std::string w = fmt::format("[{}]", kRustWordItems);
        const std::string nw = fmt::format("[^{}]", kRustWordItems);
        const std::string before_word = fmt::format("(?:(?<={})|(?C{}))", w, kCalloutWordBefore);
        const std::string before_non_word =  // valid, or the haystack's start
            fmt::format("(?:\\A|(?<={})|(?C{}))", nw, kCalloutNonWordBefore);
        if (e == 'b') {  // a word character on one side only (invalid UTF-8 is not one)
          out_ += fmt::format("(?:{0}(?!{1})|(?!{0})(?={1}))", before_word, w);
        } else {  // both sides words, or both valid non-words (or the haystack's edges)
          out_ +=
              fmt::format("(?:{0}(?={1})|{2}(?:\\z|(?={3})))", before_word, w, before_non_word, nw);
        }
      }  // kSuperset: dropped
      return;
    }
    if (len == 2 && words_ == WordMode::kSuperset && (e == 'A' || e == 'z')) {
      // The subject's ends (a line's, line by line); Hyperscan's \A and \z are the buffer's, its
      // ^ and $ (HS_FLAG_MULTILINE) every line's: a superset.
      out_ += e == 'A' ? "^" : "$";
      pos_ += 2;
      return;
    }
    if (len == 2 && words_ == WordMode::kKeep && std::string_view("dDsSwW").find(e) != kNpos) {
      out_.append(re_.substr(pos_, len));  // as written
      pos_ += len;
      return;
    }
    if (len >= 2) {
      if (auto c = class_escape(pos_, len)) {
        pos_ += len;
        const bool property = e == 'p' || e == 'P';
        if (words_ == WordMode::kSuperset && !property) {
          out_ += superset(*c);
        } else if (property && c->kind == c->kItems && single_property_item(c->text)) {
          out_ += c->text;  // a property item is valid outside a class too
        } else {
          out_ += c->expr();
        }
        return;
      }
      if (!why_.empty()) return;
      if (std::string u = unicode_escape(pos_, len); !u.empty()) {
        out_ += u;
        pos_ += len;
        return;
      }
    }
    out_.append(re_.substr(pos_, len));
    pos_ += len;
  }

  // ( opens a scope of inline flags; (?flags) changes the current one. Rust's `u` flag: on is
  // the default (dropped), off is not supported.
  void group_open() {
    if (re_.substr(pos_, 2) != "(?") {
      scopes_.push_back(caseless_);
      out_ += '(';
      ++pos_;
      return;
    }
    std::size_t j = pos_ + 2;
    bool on = true, ci = caseless_;
    std::string flags;
    for (; j < re_.size(); ++j) {
      const char f = re_[j];
      if (f == '-') {
        on = false;
      } else if (f == 'i') {
        ci = on;
      } else if (f == 'u') {
        if (!on) {
          fail(pos_,
               "(?-u) (Rust's ASCII and byte mode) is not supported by ctxsearch; use "
               "ASCII classes such as [0-9A-Za-z_] or [[:word:]] instead");
          return;
        }
        continue;
      } else if (!((f >= 'a' && f <= 'z') || (f >= 'A' && f <= 'Z'))) {
        break;
      }
      flags += f;
    }
    if (flags.ends_with('-')) flags.pop_back();
    if (j < re_.size() && re_[j] == ')') {  // (?i): the rest of the enclosing group
      caseless_ = ci;
      if (!flags.empty()) out_ += "(?" + flags + ")";
      pos_ = j + 1;
      return;
    }
    scopes_.push_back(caseless_);
    if (j < re_.size() && re_[j] == ':') {
      caseless_ = ci;
      out_ += "(?" + flags + ":";
      pos_ = j + 1;
      return;
    }
    // (?P<name>, (?<name>, ...: the name is copied as ordinary text, except that a name PCRE2
    // cannot take (Rust allows '.', '[' and ']') is dropped: no replacement can name it.
    const std::size_t name_at = pos_ + (re_.substr(pos_ + 2, 2) == "P<" ? 4 : 3);
    const std::size_t close = re_.find('>', name_at);
    if (name_at == pos_ + 4 || (re_.substr(pos_ + 2, 1) == "<" && re_.substr(pos_ + 3, 1) != "=" &&
                                re_.substr(pos_ + 3, 1) != "!")) {
      if (close != std::string_view::npos &&
          re_.substr(name_at, close - name_at).find_first_of(".[]") != std::string_view::npos) {
        out_ += "(";
        pos_ = close + 1;
        return;
      }
    }
    out_ += "(?";
    pos_ += 2;
  }

  // One literal character or escape at `j` inside a class, as a PCRE2 class item; j moves past.
  std::string class_literal(std::size_t& j) {
    const char c = re_[j];
    if (c == '\\') {
      const std::size_t len = escape_length(j, re_.size());
      std::string u = unicode_escape(j, len);
      if (u.empty()) u = std::string(re_.substr(j, len));
      j += len;
      return u;
    }
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x80) {
      const std::size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
      std::string s(re_.substr(j, n));
      j += n;
      return s;
    }
    ++j;
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    if (alnum || b >= 0x80 || c == ' ') return std::string(1, c);
    if (b < 0x20 || b == 0x7F) return fmt::format("\\x{{{:X}}}", b);
    return std::string("\\") + c;  // punctuation: escaped, so PCRE2 reads no syntax into it
  }

  bool at_set_op(std::size_t j) const {
    const std::string_view two = re_.substr(j, 2);
    return two == "&&" || two == "--" || two == "~~";
  }

  // The items of a union (between set operations) starting at `j`, up to ']' or an operator.
  // `first`: right after '[' or '[^' (a ']' there is a literal).
  struct Union {
    std::string items;
    std::vector<OneChar> pieces;
  };
  Union parse_union(std::size_t& j, bool first) {
    Union u;
    while (j < re_.size() && why_.empty()) {
      const char c = re_[j];
      if (c == ']' && !first) break;
      if (at_set_op(j)) break;
      first = false;
      if (c == '[') {
        if (std::string posix; posix_at(j, posix)) {
          u.items += posix;
          continue;
        }
        complex_ = true;
        OneChar nested = parse_class(j);
        if (nested.kind == OneChar::kItems) {
          u.items += nested.text;
        } else {
          u.pieces.push_back(std::move(nested));
        }
        continue;
      }
      if (c == '\\') {
        const std::size_t len = escape_length(j, re_.size());
        if (auto k = class_escape(j, len)) {
          j += len;
          if (k->kind == OneChar::kItems) {
            u.items += k->text;
          } else {
            u.pieces.push_back(std::move(*k));
          }
          continue;
        }
        if (!why_.empty()) break;
      }
      std::string lo = class_literal(j);
      if (j + 1 < re_.size() && re_[j] == '-' && re_[j + 1] != ']' && !at_set_op(j)) {
        ++j;
        lo += '-';
        lo += class_literal(j);
      }
      u.items += lo;
    }
    return u;
  }

  OneChar union_char(Union u) const {
    if (u.pieces.empty()) return OneChar{OneChar::kItems, std::move(u.items)};
    if (u.items.empty() && u.pieces.size() == 1) return std::move(u.pieces.front());
    std::string e = "(?:";
    if (!u.items.empty()) e += "[" + u.items + "]|";
    for (const OneChar& p : u.pieces) e += p.expr() + "|";
    e.back() = ')';
    return OneChar{OneChar::kExpr, std::move(e)};
  }

  static OneChar negate(OneChar c) {
    if (c.kind == OneChar::kItems) return OneChar{OneChar::kNegItems, std::move(c.text)};
    if (c.kind == OneChar::kNegItems) return OneChar{OneChar::kItems, std::move(c.text)};
    return OneChar{OneChar::kExpr, fmt::format("(?:(?!{}){})", c.text, kAnyChar)};
  }

  // The class at `j` ('['), nested classes and set operations included; j moves past its ']'.
  OneChar parse_class(std::size_t& j) {
    const std::size_t open = j;
    ++j;
    const bool negated = j < re_.size() && re_[j] == '^';
    if (negated) ++j;
    Union first = parse_union(j, true);
    // [^items \W] = \w and not items: no look-ahead needed.
    if (negated && j < re_.size() && re_[j] == ']' && first.pieces.size() == 1 &&
        first.pieces.front().kind == OneChar::kNegItems) {
      ++j;
      const std::string& inner = first.pieces.front().text;
      if (first.items.empty()) return OneChar{OneChar::kItems, inner};
      return OneChar{OneChar::kExpr, fmt::format("(?:(?![{}])[{}])", first.items, inner)};
    }
    OneChar acc = union_char(std::move(first));
    while (j < re_.size() && why_.empty() && at_set_op(j)) {
      complex_ = true;
      const char op = re_[j];
      j += 2;
      OneChar rhs = union_char(parse_union(j, false));
      const std::string a = acc.expr(), b = rhs.expr();
      if (op == '&') {
        acc = OneChar{OneChar::kExpr, fmt::format("(?:(?={}){})", a, b)};
      } else if (op == '-') {
        acc = OneChar{OneChar::kExpr, fmt::format("(?:(?!{}){})", b, a)};
      } else {
        acc = OneChar{OneChar::kExpr, fmt::format("(?:(?!{1}){0}|(?!{0}){1})", a, b)};
      }
    }
    if (why_.empty() && (j >= re_.size() || re_[j] != ']')) {
      fail(open, "unclosed character class");
      return acc;
    }
    ++j;
    return negated ? negate(std::move(acc)) : acc;
  }

  // A POSIX class at `j` ("[:name:]"): its translated items appended to `items`, j moved past it.
  bool posix_at(std::size_t& j, std::string& items) const {
    if (re_.substr(j, 2) != "[:") return false;
    const std::size_t close = re_.find(":]", j + 2);
    if (close == std::string_view::npos) return false;
    const std::string_view name = re_.substr(j + 2, close - j - 2);
    if (!posix_) {
      AsciiSet s{};
      if (!ascii_class(name.starts_with('^') ? name.substr(1) : name, s)) return false;
      items.append(re_.substr(j, close + 2 - j));
    } else if (!posix_items(name, caseless_, items)) {
      return false;
    }
    j = close + 2;
    return true;
  }

  // A class at the top level (pos_ at '[').
  void top_class() {
    std::size_t j = pos_;
    complex_ = false;
    OneChar c;
    if (posix_ && re_.substr(j, 2) == "[:") {
      // Rust reads a top-level [:alpha:] as a class of its characters; PCRE2 would refuse it.
      const std::size_t close = re_.find(']', j + 1);
      if (close != std::string_view::npos && close > j + 1) {
        std::size_t k = j + 1;
        std::string items;
        while (k < close) items += class_literal(k);
        j = close + 1;
        c = OneChar{OneChar::kItems, std::move(items)};
      } else {
        c = parse_class(j);
      }
    } else {
      c = parse_class(j);
    }
    if (!why_.empty()) return;
    pos_ = j;
    // Hyperscan reads a class of characters and ranges as PCRE2 does; anything else gets the
    // superset.
    out_ += words_ == WordMode::kSuperset && complex_ ? superset(c) : c.expr();
  }

  std::string_view re_;
  bool caseless_;
  bool posix_;
  WordMode words_;
  std::vector<bool> scopes_;  // caseless_ outside each open group
  std::size_t pos_ = 0;
  std::string out_;
  std::size_t error_at_ = 0;
  std::string why_;       // the first error (see fail), empty for none
  bool complex_ = false;  // the current top-level class has class escapes, nesting or set ops
  static constexpr std::size_t kNpos = std::string_view::npos;
  static constexpr std::size_t kMaxExactRanges = 200;  // see property_char
};

}  // namespace

Result<std::string> rust_to_pcre2(std::string_view regex, bool caseless, bool posix,
                                  WordMode words) {
  return Rewriter(regex, caseless, posix, words).run();
}

std::size_t one_char_item_length(std::string_view text, std::size_t at) {
  if (at >= text.size()) return 0;
  const auto lead = static_cast<unsigned char>(text[at]);
  if (lead != '\\') {
    std::size_t n = 1;
    while (lead >= 0xC0 && at + n < text.size() &&
           (static_cast<unsigned char>(text[at + n]) & 0xC0) == 0x80) {
      ++n;
    }
    return n;
  }
  if (at + 1 >= text.size()) return 0;
  const char e = text[at + 1];
  const bool braced = at + 2 < text.size() && text[at + 2] == '{';
  if ((e == 'x' || e == 'N' || e == 'o') && braced) {
    const std::size_t close = text.find('}', at + 3);
    return close == std::string_view::npos ? 0 : close + 1 - at;
  }
  std::size_t n = 2;
  if (e == 'x') {
    while (n < 4 && at + n < text.size() &&
           std::isxdigit(static_cast<unsigned char>(text[at + n]))) {
      ++n;
    }
  } else if (e >= '0' && e <= '7') {
    while (n < 4 && at + n < text.size() && text[at + n] >= '0' && text[at + n] <= '7') ++n;
  }
  return static_cast<unsigned char>(e) < 0x80 ? n : 0;
}

bool may_negate_one_char(std::string_view regex) {
  for (std::size_t i = regex.find("[^"); i != std::string_view::npos; i = regex.find("[^", i + 1)) {
    const std::size_t n = one_char_item_length(regex, i + 2);
    if (n > 0 && i + 2 + n < regex.size() && regex[i + 2 + n] == ']') return true;
  }
  return false;
}

}  // namespace ctx::engine::detail
