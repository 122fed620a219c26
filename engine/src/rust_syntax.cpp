#include "rust_syntax.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace ctx::engine::detail {
namespace {

// A superset of Rust's \w in general categories Hyperscan knows: Alphabetic is the letters, Nl,
// marks and four ranges of So (circled and squared letters: Other_Alphabetic outside L, M and N
// in PCRE2 10.42's Unicode 14 tables).
constexpr std::string_view kWordSupersetItems =
    "\\p{L}\\p{M}\\p{N}\\p{Pc}\\x{200C}\\x{200D}\\x{24B6}-\\x{24E9}\\x{1F130}-\\x{1F149}"
    "\\x{1F150}-\\x{1F169}\\x{1F170}-\\x{1F189}";
// Characters surely in Rust's \w, for a superset of \W: [^ these ].
constexpr std::string_view kWordSubsetItems = "\\p{L}\\p{M}\\p{Nd}\\p{Pc}\\x{200C}\\x{200D}";

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

class Rewriter {
 public:
  Rewriter(std::string_view re, bool caseless, bool posix, WordMode words)
      : re_(re), caseless_(caseless), posix_(posix), words_(words) {}

  std::string run() {
    while (pos_ < re_.size()) {
      const char c = re_[pos_];
      if (c == '\\') {
        escape();
      } else if (c == '[') {
        klass();
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
    return std::move(out_);
  }

 private:
  std::string word_class(bool negated) const {
    if (words_ == WordMode::kRust) {
      return fmt::format("[{}{}]", negated ? "^" : "", kRustWordItems);
    }
    return negated ? fmt::format("[^{}]", kWordSubsetItems)
                   : fmt::format("[{}]", kWordSupersetItems);
  }

  // The length of the escape at pos_ (a backslash): 2, or through a {...} argument.
  std::size_t escape_length() const {
    if (pos_ + 1 >= re_.size()) return re_.size() - pos_;
    const char e = re_[pos_ + 1];
    if ((e == 'x' || e == 'p' || e == 'P' || e == 'u' || e == 'U') && pos_ + 2 < re_.size() &&
        re_[pos_ + 2] == '{') {
      const std::size_t close = re_.find('}', pos_ + 2);
      return close == std::string_view::npos ? re_.size() - pos_ : close + 1 - pos_;
    }
    if ((e == 'p' || e == 'P') && pos_ + 2 < re_.size()) return 3;  // \pL
    return 2;
  }

  void escape() {
    const std::size_t len = escape_length();
    const char e = len >= 2 ? re_[pos_ + 1] : '\0';
    if (len == 2 && words_ != WordMode::kKeep && (e == 'w' || e == 'W' || e == 'b' || e == 'B')) {
      pos_ += 2;
      if (e == 'w' || e == 'W') {
        out_ += word_class(e == 'W');
      } else if (words_ == WordMode::kRust) {
        const std::string w = word_class(false), nw = word_class(true);
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
    out_.append(re_.substr(pos_, len));
    pos_ += len;
  }

  // ( opens a scope of inline flags; (?flags) changes the current one.
  void group_open() {
    if (re_.substr(pos_, 2) != "(?") {
      scopes_.push_back(caseless_);
      out_ += '(';
      ++pos_;
      return;
    }
    std::size_t j = pos_ + 2;
    bool on = true, ci = caseless_;
    for (; j < re_.size(); ++j) {
      const char f = re_[j];
      if (f == '-') {
        on = false;
      } else if (f == 'i') {
        ci = on;
      } else if (!((f >= 'a' && f <= 'z') || (f >= 'A' && f <= 'Z'))) {
        break;
      }
    }
    if (j < re_.size() && re_[j] == ')') {  // (?i): the rest of the enclosing group
      caseless_ = ci;
      out_.append(re_.substr(pos_, j + 1 - pos_));
      pos_ = j + 1;
      return;
    }
    scopes_.push_back(caseless_);
    if (j < re_.size() && re_[j] == ':') {
      caseless_ = ci;
      out_.append(re_.substr(pos_, j + 1 - pos_));
      pos_ = j + 1;
      return;
    }
    out_ += "(?";  // (?P<name>, (?<name>, ...: the name is copied as ordinary text
    pos_ += 2;
  }

  // The end of the class starting at pos_ ('['): the index of its closing ']' (or npos), and
  // whether it nests classes or uses set operations (Rust syntax PCRE2 does not have).
  std::size_t class_end(bool& complex) const {
    std::size_t j = pos_ + 1;
    if (j < re_.size() && re_[j] == '^') ++j;
    if (j < re_.size() && re_[j] == ']') ++j;  // a leading ']' is a literal
    int depth = 1;
    complex = false;
    while (j < re_.size()) {
      const char c = re_[j];
      if (c == '\\') {
        std::size_t len = 2;
        if (j + 2 < re_.size() && re_[j + 2] == '{') {
          const std::size_t close = re_.find('}', j + 2);
          len = close == std::string_view::npos ? re_.size() - j : close + 1 - j;
        }
        j += len;
        continue;
      }
      if (c == '[') {
        if (re_.substr(j, 2) == "[:") {
          const std::size_t close = re_.find(":]", j + 2);
          if (close != std::string_view::npos) {
            j = close + 2;
            continue;
          }
        }
        complex = true;
        ++depth;
        ++j;
        if (j < re_.size() && re_[j] == '^') ++j;
        if (j < re_.size() && re_[j] == ']') ++j;
        continue;
      }
      if (c == ']') {
        if (--depth == 0) return j;
        ++j;
        continue;
      }
      if (re_.substr(j, 2) == "&&" || re_.substr(j, 2) == "--" || re_.substr(j, 2) == "~~") {
        complex = true;
      }
      ++j;
    }
    return std::string_view::npos;
  }

  // A POSIX class at `j` ("[:name:]"): its translated items appended to `items`, j moved past it.
  bool posix_at(std::size_t& j, std::string& items) const {
    if (!posix_ || re_.substr(j, 2) != "[:") return false;
    const std::size_t close = re_.find(":]", j + 2);
    if (close == std::string_view::npos) return false;
    if (!posix_items(re_.substr(j + 2, close - j - 2), caseless_, items)) return false;
    j = close + 2;
    return true;
  }

  void klass() {
    bool complex = false;
    const std::size_t end = class_end(complex);
    if (end == std::string_view::npos) {  // unterminated: PCRE2 reports it
      out_.append(re_.substr(pos_));
      pos_ = re_.size();
      return;
    }
    std::size_t j = pos_ + 1;
    const bool negated = j < end && re_[j] == '^';
    if (negated) ++j;
    std::string items;
    if (j < end && re_[j] == ']') {
      items += ']';
      ++j;
    } else if (posix_ && j < end && re_[j] == ':') {
      // Rust reads a top-level [:alpha:] as a class of its characters; PCRE2 would refuse it.
      items += "\\:";
      ++j;
    }
    bool non_word = false;  // a \W item (kept apart: PCRE2 cannot negate a union in a class)
    while (j < end) {
      const char c = re_[j];
      if (c == '[' && posix_at(j, items)) continue;
      if (c == '\\') {
        std::size_t len = std::min<std::size_t>(2, end - j);
        if (j + 2 < end && re_[j + 2] == '{') {
          const std::size_t close = re_.find('}', j + 2);
          len = close == std::string_view::npos || close >= end ? end - j : close + 1 - j;
        }
        const char e = j + 1 < end ? re_[j + 1] : '\0';
        if (len == 2 && words_ != WordMode::kKeep && e == 'w') {
          items += words_ == WordMode::kRust ? kRustWordItems : kWordSupersetItems;
        } else if (len == 2 && words_ != WordMode::kKeep && e == 'W' && !complex) {
          non_word = true;
        } else {
          items.append(re_.substr(j, len));
        }
        j += len;
        continue;
      }
      items += c;
      ++j;
    }
    pos_ = end + 1;
    if (!non_word) {
      out_ += negated ? "[^" : "[";
      out_ += items;
      out_ += ']';
      return;
    }
    // [items\W] = items or \W; [^items\W] = \w and not items.
    if (words_ == WordMode::kRust) {
      const std::string w = word_class(false), nw = word_class(true);
      if (items.empty()) {
        out_ += negated ? w : nw;
      } else if (negated) {
        out_ += fmt::format("(?:(?![{}]){})", items, w);
      } else {
        out_ += fmt::format("(?:[{}]|{})", items, nw);
      }
    } else if (negated) {  // kSuperset: a subset of \w, within the superset
      out_ += word_class(false);
    } else {
      out_ +=
          items.empty() ? word_class(true) : fmt::format("(?:[{}]|{})", items, word_class(true));
    }
  }

  std::string_view re_;
  bool caseless_;
  bool posix_;
  WordMode words_;
  std::vector<bool> scopes_;  // caseless_ outside each open group
  std::size_t pos_ = 0;
  std::string out_;
};

}  // namespace

std::string rust_to_pcre2(std::string_view regex, bool caseless, bool posix, WordMode words) {
  return Rewriter(regex, caseless, posix, words).run();
}

}  // namespace ctx::engine::detail
