#include "byte_prefilter.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "ctx/base/utf8.hpp"

namespace ctx::engine::detail {
namespace {

constexpr std::string_view kHigh = "[\\x80-\\xff]+";
// The two non-ASCII characters whose simple case folds are ASCII letters: LATIN SMALL LETTER LONG
// S (s, S) and KELVIN SIGN (k, K).
constexpr std::uint32_t kLongS = 0x17F;
constexpr std::uint32_t kKelvin = 0x212A;

// For the UTF-8 bytes of one character: the alternative adding the ASCII letters it folds to
// ("|[Ss]" for U+017F, "|[Kk]" for U+212A), else empty.
std::string_view ascii_fold(std::string_view utf8) {
  if (utf8 == "\xC5\xBF") return "|[Ss]";
  if (utf8 == "\xE2\x84\xAA") return "|[Kk]";
  return {};
}

bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The bytes of U+212A and U+017F for k/K and s/S: their Unicode simple case folds.
std::string_view fold_extra(char c) {
  if (c == 'k' || c == 'K') return "\\xE2\\x84\\xAA";
  if (c == 's' || c == 'S') return "\\xC5\\xBF";
  return {};
}

std::string hex_byte(unsigned char b) { return fmt::format("\\x{:02x}", b); }

// The UTF-8 bytes of `cp` as Hyperscan byte escapes.
std::string utf8_escapes(std::uint32_t cp) {
  const std::string bytes = ctx::utf8_of(cp);
  std::string out;
  for (char b : bytes) out += hex_byte(static_cast<unsigned char>(b));
  return out;
}

// One ASCII byte as it may appear inside a class or outside one: escaped unless alphanumeric.
std::string ascii_atom(char c) {
  if ((c >= '0' && c <= '9') || is_ascii_letter(c) || c == '_') return std::string(1, c);
  return hex_byte(static_cast<unsigned char>(c));
}

class Rewriter {
 public:
  Rewriter(std::string_view re, bool caseless) : re_(re), caseless_(caseless) {
    // Inline (?i) anywhere makes case folding possible anywhere: stay conservative.
    if (folds_case_inline(re)) caseless_ = true;
  }

  std::optional<std::string> run() {
    while (pos_ < re_.size()) {
      if (!step()) return std::nullopt;
    }
    if (depth_ != 0) return std::nullopt;
    return std::move(out_);
  }

 private:
  bool step() {
    const char c = re_[pos_];
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '\\':
        return escape();
      case '[':
        return klass();
      case '(':
        return group();
      case ')':
        if (depth_ == 0) return false;
        --depth_;
        out_.push_back(')');
        ++pos_;
        return true;
      case '.':
        out_ += "(?:[^\\n\\x80-\\xff]|";
        out_ += kHigh;
        out_ += ")";
        ++pos_;
        return true;
      case '{':
        return quantifier_braces();
      case '*':
      case '+':
      case '?':
        out_.push_back(c);
        ++pos_;
        if (pos_ < re_.size() && re_[pos_] == '+') return false;  // possessive
        if (pos_ < re_.size() && re_[pos_] == '?') {
          out_.push_back('?');  // lazy: the same set of matches
          ++pos_;
        }
        return true;
      case '^':
      case '$':
      case '|':
        out_.push_back(c);
        ++pos_;
        return true;
      case ' ':
      case '#':
        out_ += hex_byte(u);
        ++pos_;
        return true;
      default:
        break;
    }
    if (u >= 0x80) return literal_multibyte();
    literal_ascii(c);
    ++pos_;
    return true;
  }

  void literal_ascii(char c) {
    std::string_view extra = caseless_ ? fold_extra(c) : std::string_view();
    if (extra.empty()) {
      out_ += ascii_atom(c);
    } else {
      out_ += "(?:";
      out_ += ascii_atom(c);
      out_ += "|";
      out_ += extra;
      out_ += ")";
    }
  }

  // A non-ASCII literal character: its exact bytes, or any multibyte run when case folding could
  // turn it into other characters.
  bool literal_multibyte() {
    const auto lead = static_cast<unsigned char>(re_[pos_]);
    std::size_t len = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
    if (len == 0 || pos_ + len > re_.size()) return false;
    if (caseless_) {
      out_ += "(?:";
      out_ += kHigh;
      out_ += ascii_fold(re_.substr(pos_, len));
      out_ += ")";
    } else {
      out_ += "(?:";
      for (std::size_t k = 0; k < len; ++k) {
        out_ += hex_byte(static_cast<unsigned char>(re_[pos_ + k]));
      }
      out_ += ")";
    }
    pos_ += len;
    return true;
  }

  // `{n}`, `{n,}`, `{n,m}` after an atom; anything else is a literal '{' in Rust and PCRE2 alike.
  bool quantifier_braces() {
    std::size_t close = re_.find('}', pos_);
    std::string_view body = close == std::string_view::npos
                                ? std::string_view()
                                : re_.substr(pos_ + 1, close - pos_ - 1);
    bool valid = !body.empty();
    bool comma = false;
    for (char b : body) {
      if (b == ',' && !comma) {
        comma = true;
      } else if (b < '0' || b > '9') {
        valid = false;
      }
    }
    if (!valid || body.front() == ',') {
      out_ += hex_byte('{');
      ++pos_;
      return true;
    }
    out_.append(re_.substr(pos_, close - pos_ + 1));
    pos_ = close + 1;
    if (pos_ < re_.size() && re_[pos_] == '+') return false;
    if (pos_ < re_.size() && re_[pos_] == '?') {
      out_.push_back('?');
      ++pos_;
    }
    return true;
  }

  bool group() {
    std::string_view rest = re_.substr(pos_);
    ++depth_;
    if (rest.substr(0, 2) != "(?") {
      out_ += "(?:";
      ++pos_;
      return true;
    }
    if (rest.substr(0, 3) == "(?:") {
      out_ += "(?:";
      pos_ += 3;
      return true;
    }
    // Named groups: (?P<name>, (?<name>, (?'name' (but not look-behind (?<= (?<!).
    std::size_t name_start = 0;
    char close = '>';
    if (rest.substr(0, 4) == "(?P<") {
      name_start = 4;
    } else if (rest.substr(0, 3) == "(?<" && rest.size() > 3 && rest[3] != '=' && rest[3] != '!') {
      name_start = 3;
    } else if (rest.substr(0, 3) == "(?'") {
      name_start = 3;
      close = '\'';
    }
    if (name_start != 0) {
      std::size_t end = rest.find(close, name_start);
      if (end == std::string_view::npos) return false;
      out_ += "(?:";
      pos_ += end + 1;
      return true;
    }
    // Inline flags: (?i) (?-i) (?i: (?m) ...; only i and m are modelled.
    std::size_t j = 2;
    while (j < rest.size() && (rest[j] == 'i' || rest[j] == 'm' || rest[j] == '-')) ++j;
    if (j == 2 || j >= rest.size() || (rest[j] != ')' && rest[j] != ':')) return false;
    out_.append(rest.substr(0, j + 1));
    if (rest[j] == ')') --depth_;  // (?i) opens no group
    pos_ += j + 1;
    return true;
  }

  // Escapes outside a class.
  bool escape() {
    if (pos_ + 1 >= re_.size()) return false;
    const char e = re_[pos_ + 1];
    pos_ += 2;
    switch (e) {
      case 'w':
        out_ += "(?:[0-9A-Z_a-z]|";
        break;
      case 'd':
        out_ += "(?:[0-9]|";
        break;
      case 's':
        out_ += "(?:[\\t-\\r ]|";
        break;
      case 'W':
        out_ += "(?:[^0-9A-Z_a-z\\x80-\\xff]|";
        break;
      case 'D':
        out_ += "(?:[^0-9\\x80-\\xff]|";
        break;
      case 'S':
        out_ += "(?:[^\\t-\\r \\x80-\\xff]|";
        break;
      case 'b':
      case 'B':
        return true;  // dropped: removing an assertion only widens
      case 'A':  // the subject's ends: a line's in line mode, but Hyperscan's \A and \z are the
      case 'z':  // buffer's; its ^ and $ (HS_FLAG_MULTILINE) match at every line's (a superset)
        out_ += e == 'A' ? "^" : "$";
        return true;
      case 'n':
        out_ += "\\n";
        return true;
      case 't':
        out_ += "\\t";
        return true;
      case 'r':
        out_ += "\\r";
        return true;
      case 'f':
        out_ += "\\f";
        return true;
      case 'v':
        out_ += "\\x0b";
        return true;
      case 'a':
        out_ += "\\x07";
        return true;
      case 'e':
        out_ += "\\x1b";
        return true;
      case 'x':
        return hex_escape(/*ascii_members=*/nullptr);
      default:
        // Escaped ASCII punctuation is that character; anything else (\p, \1, \k, \Q, \K, \G,
        // \h, \R, \X, \C, \u, octal ...) is not modelled.
        if (static_cast<unsigned char>(e) < 0x80 && !is_ascii_letter(e) &&
            !(e >= '0' && e <= '9')) {
          out_ += hex_byte(static_cast<unsigned char>(e));
          return true;
        }
        return false;
    }
    out_ += kHigh;
    out_ += ")";
    return true;
  }

  // \xHH or \x{H...} (pos_ just after 'x'). Outside a class (`ascii_members` null) it appends the
  // character; in a class it adds an ASCII member or reports that a non-ASCII one is present.
  bool hex_escape(std::string* ascii_members, bool* non_ascii = nullptr) {
    std::uint32_t cp = 0;
    std::size_t digits_end = 0;
    if (pos_ < re_.size() && re_[pos_] == '{') {
      digits_end = re_.find('}', pos_);
      if (digits_end == std::string_view::npos || digits_end == pos_ + 1 || digits_end - pos_ > 9) {
        return false;
      }
      for (std::size_t k = pos_ + 1; k < digits_end; ++k) {
        int v = hex_value(re_[k]);
        if (v < 0) return false;
        cp = cp * 16 + static_cast<std::uint32_t>(v);
      }
      pos_ = digits_end + 1;
    } else {
      if (pos_ + 2 > re_.size()) return false;
      int hi = hex_value(re_[pos_]), lo = hex_value(re_[pos_ + 1]);
      if (hi < 0 || lo < 0) return false;
      cp = static_cast<std::uint32_t>(hi * 16 + lo);
      pos_ += 2;
    }
    if (cp > 0x10FFFF) return false;
    if (ascii_members != nullptr) {
      if (cp < 0x80) {
        *ascii_members += hex_byte(static_cast<unsigned char>(cp));
      } else {
        *non_ascii = true;
        if (cp == kLongS || cp == kKelvin) class_folds_ = true;
      }
      return true;
    }
    if (cp < 0x80) {
      literal_ascii(static_cast<char>(cp));
    } else if (caseless_) {
      out_ += "(?:";
      out_ += kHigh;
      out_ += cp == kLongS ? "|[Ss]" : cp == kKelvin ? "|[Kk]" : "";
      out_ += ")";
    } else {
      out_ += "(?:" + utf8_escapes(cp) + ")";
    }
    return true;
  }

  static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // One class member at pos_ (inside [...]): appends its ASCII part to `ascii` as byte escapes
  // (a range stays a range) and notes whether it may match a non-ASCII character or a letter.
  bool class_member(std::string& ascii, bool& non_ascii, bool& letters) {
    const char c = re_[pos_];
    if (c == '[') {
      if (re_.substr(pos_, 2) != "[:") return false;  // nested class / set operation
      std::size_t close = re_.find(":]", pos_ + 2);
      if (close == std::string_view::npos) return false;
      std::string_view name = re_.substr(pos_ + 2, close - pos_ - 2);
      bool negated = !name.empty() && name.front() == '^';
      if (negated) return false;
      std::string_view set;
      if (name == "alpha")
        set = "A-Za-z";
      else if (name == "digit")
        set = "0-9";
      else if (name == "alnum")
        set = "0-9A-Za-z";
      else if (name == "upper")
        set = "A-Z";
      else if (name == "lower")
        set = "a-z";
      else if (name == "space")
        set = "\\t-\\r ";
      else if (name == "blank")
        set = "\\t ";
      else if (name == "punct")
        set = "!-/:-@\\[-`{-~";
      else if (name == "xdigit")
        set = "0-9A-Fa-f";
      else if (name == "word")
        set = "0-9A-Za-z_";
      else if (name == "cntrl")
        set = "\\x00-\\x1f\\x7f";
      else if (name == "print")
        set = " -~";
      else if (name == "graph")
        set = "!-~";
      else if (name == "ascii")
        set = "\\x00-\\x7f";
      else
        return false;
      ascii += set;
      non_ascii = true;  // Unicode in PCRE2 with UCP
      letters = true;
      pos_ = close + 2;
      return true;
    }
    // A single character, maybe the start of a range.
    std::uint32_t lo = 0;
    if (!class_char(lo, ascii, non_ascii, letters)) return false;
    if (lo == UINT32_MAX) return true;  // it was a class escape (\w ...), not a character
    if (pos_ + 1 < re_.size() && re_[pos_] == '-' && re_[pos_ + 1] != ']') {
      ++pos_;
      std::uint32_t hi = 0;
      std::string ignored;
      if (!class_char(hi, ignored, non_ascii, letters) || hi == UINT32_MAX || hi < lo) return false;
      if (lo < 0x80) {
        std::uint32_t top = hi < 0x80 ? hi : 0x7F;
        ascii += hex_byte(static_cast<unsigned char>(lo)) + "-" +
                 hex_byte(static_cast<unsigned char>(top));
        if (lo <= 'z' && top >= 'A') letters = true;
      }
      if (hi >= 0x80) non_ascii = true;
      if (hi >= 0x80) class_folds_ = true;  // the range may cover U+017F or U+212A (not tracked)
      return true;
    }
    if (lo < 0x80) {
      ascii += hex_byte(static_cast<unsigned char>(lo));
      if (is_ascii_letter(static_cast<char>(lo))) letters = true;
    } else {
      non_ascii = true;
    }
    return true;
  }

  // One character or escape inside a class; `cp` = UINT32_MAX for a class escape like \w.
  bool class_char(std::uint32_t& cp, std::string& ascii, bool& non_ascii, bool& letters) {
    const auto u = static_cast<unsigned char>(re_[pos_]);
    if (u >= 0x80) {
      std::size_t len = u >= 0xF0 ? 4 : u >= 0xE0 ? 3 : u >= 0xC0 ? 2 : 0;
      if (len == 0 || pos_ + len > re_.size()) return false;
      cp = 0x80;  // some non-ASCII character: only its being non-ASCII matters
      cp = u >= 0xF0 ? 0x10000 : u >= 0xE0 ? 0x800 : 0x80;
      if (!ascii_fold(re_.substr(pos_, len)).empty()) class_folds_ = true;
      pos_ += len;
      return true;
    }
    if (re_[pos_] != '\\') {
      cp = u;
      ++pos_;
      return true;
    }
    if (pos_ + 1 >= re_.size()) return false;
    const char e = re_[pos_ + 1];
    pos_ += 2;
    switch (e) {
      case 'w':
        ascii += "0-9A-Z_a-z";
        non_ascii = letters = true;
        cp = UINT32_MAX;
        return true;
      case 'd':
        ascii += "0-9";
        non_ascii = true;
        cp = UINT32_MAX;
        return true;
      case 's':
        ascii += "\\t-\\r ";
        non_ascii = true;
        cp = UINT32_MAX;
        return true;
      case 'n':
        cp = '\n';
        return true;
      case 't':
        cp = '\t';
        return true;
      case 'r':
        cp = '\r';
        return true;
      case 'f':
        cp = '\f';
        return true;
      case 'v':
        cp = 0x0b;
        return true;
      case 'a':
        cp = 0x07;
        return true;
      case 'e':
        cp = 0x1b;
        return true;
      case 'x': {
        std::string member;
        bool high = false;
        if (!hex_escape(&member, &high)) return false;
        // Recover the code point class: ASCII members come back as one byte escape.
        if (high) {
          cp = 0x80;
        } else {
          cp = static_cast<std::uint32_t>(std::stoul(member.substr(2), nullptr, 16));
        }
        return true;
      }
      default:
        if (static_cast<unsigned char>(e) < 0x80 && !is_ascii_letter(e) &&
            !(e >= '0' && e <= '9')) {
          cp = static_cast<unsigned char>(e);
          return true;
        }
        return false;  // \W \D \S \p \P ... inside a class: not modelled
    }
  }

  bool klass() {
    class_folds_ = false;
    ++pos_;
    bool negated = false;
    if (pos_ < re_.size() && re_[pos_] == '^') {
      negated = true;
      ++pos_;
    }
    std::string ascii;
    bool non_ascii = false, letters = false;
    bool first = true;
    while (true) {
      if (pos_ >= re_.size()) return false;
      if (re_[pos_] == ']' && !first) break;
      if (re_.substr(pos_, 2) == "&&" || re_.substr(pos_, 2) == "--" ||
          re_.substr(pos_, 2) == "~~") {
        return false;  // Rust class set operations
      }
      if (!class_member(ascii, non_ascii, letters)) return false;
      first = false;
    }
    ++pos_;  // ']'
    if (negated) {
      // Any non-ASCII character may be outside the set: allow every multibyte run.
      out_ += "(?:[^" + ascii + "\\x80-\\xff]|";
      out_ += kHigh;
      out_ += ")";
      return true;
    }
    const bool high = non_ascii || (caseless_ && letters);
    if (ascii.empty() && !high) return false;        // an empty class: leave it to the exact path
    if (caseless_ && class_folds_) ascii += "KSks";  // U+017F and U+212A fold to ASCII
    out_ += "(?:";
    if (!ascii.empty()) out_ += "[" + ascii + "]";
    if (high) {
      if (!ascii.empty()) out_ += "|";
      out_ += kHigh;
    }
    out_ += ")";
    return true;
  }

  std::string_view re_;
  bool caseless_;
  // The class being read has U+017F or U+212A (or a non-ASCII range, which may hold them).
  bool class_folds_ = false;
  std::size_t pos_ = 0;
  int depth_ = 0;
  std::string out_;
};

}  // namespace

bool folds_case_inline(std::string_view regex) {
  for (std::size_t i = 0; i + 2 < regex.size(); ++i) {
    if (regex[i] == '(' && regex[i + 1] == '?' &&
        regex.substr(i, 4).find('i') != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

bool widened_for_non_ascii(std::string_view rewritten) {
  // Every construct the rewriter widens names the high bytes as this range (kHigh and the
  // "[^...\x80-\xff]" classes beside it). A regex that writes that range itself also says
  // true: that only costs PCRE2's confirmation.
  return rewritten.find("\\x80-\\xff") != std::string_view::npos;
}

std::optional<std::string> byte_prefilter(std::string_view regex, bool caseless) {
  if (regex.find('\0') != std::string_view::npos) return std::nullopt;
  return Rewriter(regex, caseless).run();
}

}  // namespace ctx::engine::detail
