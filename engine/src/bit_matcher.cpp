#include "bit_matcher.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "cpu_features.hpp"
#include "ctx/base/utf8.hpp"
#include "rust_syntax.hpp"

namespace ctx::engine::detail {
namespace {

constexpr std::size_t kMaxSteps = 192;     // all sequences together
constexpr std::size_t kMaxClasses = 16;    // distinct classes
constexpr std::size_t kMaxSequences = 16;  // alternatives after expanding groups
constexpr std::size_t kMaxRepeat = 64;     // n and m of {n,m}
constexpr std::size_t kStrongLiteral = 3;  // Hyperscan's literal search wins from here
constexpr std::uint8_t kMaxRun = 63;       // bytes one kRepeat step covers

using ByteSet = BitMatcher::ByteSet;
using Sequence = BitMatcher::Sequence;
using Step = BitMatcher::Step;

void add(ByteSet& s, unsigned char c) { s.bits[c >> 6] |= std::uint64_t{1} << (c & 63); }
void add_range(ByteSet& s, unsigned lo, unsigned hi) {
  for (unsigned c = lo; c <= hi && c < 0x80; ++c) add(s, static_cast<unsigned char>(c));
}
bool has(const ByteSet& s, unsigned c) { return c < 0x80 && ((s.bits[c >> 6] >> (c & 63)) & 1U); }
// The complement in Unicode: its ASCII part is exact, and it may match non-ASCII characters.
ByteSet complement(const ByteSet& s) {
  ByteSet out;
  out.bits[0] = ~s.bits[0];
  out.bits[1] = ~s.bits[1];
  out.high = true;
  return out;
}
void add_all(ByteSet& s, const ByteSet& t) {
  s.bits[0] |= t.bits[0];
  s.bits[1] |= t.bits[1];
  s.high = s.high || t.high;
}
// Adds the other case of every ASCII letter in `s`. Letters may then match non-ASCII characters
// too (k: KELVIN SIGN, s: LONG S; `high` is set for any letter, to stay on the safe side).
void fold(ByteSet& s) {
  for (unsigned c = 'A'; c <= 'Z'; ++c) {
    if (has(s, c) || has(s, c + 32)) {
      add(s, static_cast<unsigned char>(c));
      add(s, static_cast<unsigned char>(c + 32));
      s.high = true;
    }
  }
}

ByteSet word_set() {
  ByteSet s;
  add_range(s, '0', '9');
  add_range(s, 'A', 'Z');
  add_range(s, 'a', 'z');
  add(s, '_');
  s.high = true;
  return s;
}
ByteSet digit_set() {
  ByteSet s;
  add_range(s, '0', '9');
  s.high = true;
  return s;
}
// PCRE2's \s (with UCP or not) on ASCII: HT, LF, VT, FF, CR, space.
ByteSet space_set() {
  ByteSet s;
  add_range(s, '\t', '\r');
  add(s, ' ');
  s.high = true;
  return s;
}

bool is_ascii_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parses the subset of Rust/PCRE2 syntax whose meaning on ASCII text is known exactly into
// sequences of steps. Every failure (nullopt) means "not modelled", never "invalid": PCRE2 has
// validated the regex already.
class Parser {
 public:
  Parser(std::string_view re, bool caseless, bool multiline, bool dotall,
         std::vector<ByteSet>& classes)
      : re_(re), caseless_(caseless), multiline_(multiline), dotall_(dotall), classes_(classes) {}

  std::optional<std::vector<Sequence>> run() {
    auto seqs = alternation();
    if (!seqs || pos_ != re_.size()) return std::nullopt;
    return seqs;
  }

 private:
  std::optional<std::vector<Sequence>> alternation() {
    std::vector<Sequence> all;
    while (true) {
      auto seqs = concatenation();
      if (!seqs) return std::nullopt;
      all.insert(all.end(), seqs->begin(), seqs->end());
      if (all.size() > kMaxSequences) return std::nullopt;
      if (pos_ < re_.size() && re_[pos_] == '|') {
        ++pos_;
        continue;
      }
      return all;
    }
  }

  // Appends `tail` to every sequence of `head`; nullopt where anchors would land mid-sequence.
  static std::optional<std::vector<Sequence>> concat(const std::vector<Sequence>& head,
                                                     const std::vector<Sequence>& tail) {
    std::vector<Sequence> out;
    for (const Sequence& h : head) {
      for (const Sequence& t : tail) {
        if ((t.bol && (!h.steps.empty() || h.eol)) || (h.eol && !t.steps.empty())) {
          return std::nullopt;
        }
        Sequence s = h;
        s.bol = h.bol || t.bol;
        s.eol = h.eol || t.eol;
        s.steps.insert(s.steps.end(), t.steps.begin(), t.steps.end());
        out.push_back(std::move(s));
      }
    }
    if (out.size() > kMaxSequences) return std::nullopt;
    return out;
  }

  std::optional<std::vector<Sequence>> concatenation() {
    std::vector<Sequence> cur(1);
    while (pos_ < re_.size() && re_[pos_] != '|' && re_[pos_] != ')') {
      const char c = re_[pos_];
      if (c == '(') {
        auto group_seqs = group();
        if (!group_seqs) return std::nullopt;
        auto joined = concat(cur, *group_seqs);
        if (!joined) return std::nullopt;
        if (pos_ < re_.size() && re_[pos_] == '?') {  // (...)? : with or without the group
          ++pos_;
          if (pos_ < re_.size() && (re_[pos_] == '?' || re_[pos_] == '+')) {
            if (re_[pos_] == '+') return std::nullopt;
            ++pos_;
          }
          joined->insert(joined->end(), cur.begin(), cur.end());
          if (joined->size() > kMaxSequences) return std::nullopt;
        }
        if (pos_ < re_.size() && std::strchr("*+?{", re_[pos_]) != nullptr) return std::nullopt;
        cur = std::move(*joined);
        continue;
      }
      if ((c == '^' || c == '$') && multiline_) return std::nullopt;
      if (c == '^') {
        for (Sequence& s : cur) {
          if (!s.steps.empty() || s.eol) return std::nullopt;
          s.bol = true;
        }
        ++pos_;
        continue;
      }
      if (c == '$') {
        for (Sequence& s : cur) s.eol = true;
        ++pos_;
        continue;
      }
      auto klass = atom();
      if (!klass) return std::nullopt;
      std::size_t lo = 1, hi = 1;  // hi == SIZE_MAX: unbounded
      if (!quantifier(lo, hi)) return std::nullopt;
      std::optional<std::uint8_t> index = intern(*klass);
      if (!index) return std::nullopt;
      for (Sequence& s : cur) {
        if (s.eol) return std::nullopt;
        for (std::size_t k = 0; k < lo; ++k) s.steps.push_back(Step{Step::kOne, *index});
        if (hi == SIZE_MAX) {
          s.steps.push_back(Step{Step::kStar, *index});
        } else {
          for (std::size_t k = lo; k < hi; ++k) s.steps.push_back(Step{Step::kOpt, *index});
        }
        if (s.steps.size() > kMaxSteps) return std::nullopt;
      }
    }
    return cur;
  }

  std::optional<std::vector<Sequence>> group() {
    std::string_view rest = re_.substr(pos_);
    if (rest.substr(0, 3) == "(?:") {
      pos_ += 3;
    } else if (rest.substr(0, 4) == "(?P<" || (rest.substr(0, 3) == "(?<" && rest.size() > 3 &&
                                               rest[3] != '=' && rest[3] != '!')) {
      std::size_t close = rest.find('>');
      if (close == std::string_view::npos) return std::nullopt;
      pos_ += close + 1;
    } else if (rest.substr(0, 2) == "(?") {
      return std::nullopt;  // flags, look-around, atomic groups, comments, ...
    } else {
      ++pos_;
    }
    auto seqs = alternation();
    if (!seqs || pos_ >= re_.size() || re_[pos_] != ')') return std::nullopt;
    ++pos_;
    return seqs;
  }

  // After an atom: ? * + {n} {n,} {n,m}, maybe lazy (same set of matches). Possessive ones can
  // change whether a line matches: not modelled.
  bool quantifier(std::size_t& lo, std::size_t& hi) {
    if (pos_ >= re_.size()) return true;
    const char c = re_[pos_];
    if (c == '?' || c == '*' || c == '+') {
      lo = c == '+' ? 1 : 0;
      hi = c == '?' ? 1 : SIZE_MAX;
      ++pos_;
    } else if (c == '{') {
      std::size_t close = re_.find('}', pos_);
      if (close == std::string_view::npos) return false;
      std::string_view body = re_.substr(pos_ + 1, close - pos_ - 1);
      std::size_t comma = body.find(',');
      auto number = [](std::string_view digits, std::size_t& out) {
        if (digits.empty() || digits.size() > 3) return false;
        out = 0;
        for (char d : digits) {
          if (d < '0' || d > '9') return false;
          out = out * 10 + static_cast<std::size_t>(d - '0');
        }
        return true;
      };
      if (comma == std::string_view::npos) {
        if (!number(body, lo)) return false;
        hi = lo;
      } else {
        if (!number(body.substr(0, comma), lo)) return false;
        if (comma + 1 == body.size()) {
          hi = SIZE_MAX;
        } else if (!number(body.substr(comma + 1), hi) || hi < lo) {
          return false;
        }
      }
      if (lo > kMaxRepeat || (hi != SIZE_MAX && hi > kMaxRepeat)) return false;
      pos_ = close + 1;
    } else {
      return true;
    }
    if (pos_ < re_.size() && re_[pos_] == '+') return false;
    if (pos_ < re_.size() && re_[pos_] == '?') ++pos_;
    if (pos_ < re_.size() && std::strchr("*+?{", re_[pos_]) != nullptr) return false;
    return true;
  }

  std::optional<std::uint8_t> intern(ByteSet s) {
    if (!multiline_) s.bits[0] &= ~(std::uint64_t{1} << '\n');  // lines hold no terminator
    for (std::size_t i = 0; i < classes_.size(); ++i) {
      if (classes_[i] == s) return static_cast<std::uint8_t>(i);
    }
    if (classes_.size() >= kMaxClasses) return std::nullopt;
    classes_.push_back(s);
    return static_cast<std::uint8_t>(classes_.size() - 1);
  }

  // One character or class outside brackets, case-folded under -i.
  std::optional<ByteSet> atom() {
    const char c = re_[pos_];
    const auto u = static_cast<unsigned char>(c);
    ByteSet s;
    if (c == '.') {
      ++pos_;
      ByteSet any = complement(ByteSet{});
      if (!dotall_) any.bits[0] &= ~(std::uint64_t{1} << '\n');
      return any;
    }
    if (c == '[') return bracket();
    if (c == '\\') {
      std::optional<ByteSet> e = escape(/*in_class=*/false);
      if (e && caseless_) fold(*e);
      return e;
    }
    if (c == '{' || c == '*' || c == '+' || c == '?') return std::nullopt;
    if (u >= 0x80) return non_ascii_literal();
    add(s, u);
    ++pos_;
    if (caseless_) fold(s);
    return s;
  }

  // A literal non-ASCII character never matches pure-ASCII text, unless case folding could map
  // it onto ASCII (KELVIN SIGN to k, LONG S to s): then it is not modelled.
  std::optional<ByteSet> non_ascii_literal() {
    const auto lead = static_cast<unsigned char>(re_[pos_]);
    std::size_t len = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
    if (len == 0 || pos_ + len > re_.size() || caseless_) return std::nullopt;
    pos_ += len;
    ByteSet none;
    none.high = true;
    none.literal_bytes = static_cast<std::uint8_t>(len);
    return none;
  }

  // \xHH or \x{H..}, pos_ just past the 'x': the code point.
  std::optional<std::uint32_t> hex() {
    std::uint32_t cp = 0;
    if (pos_ < re_.size() && re_[pos_] == '{') {
      std::size_t close = re_.find('}', pos_);
      if (close == std::string_view::npos || close == pos_ + 1 || close - pos_ > 9) {
        return std::nullopt;
      }
      for (std::size_t k = pos_ + 1; k < close; ++k) {
        int v = hex_value(re_[k]);
        if (v < 0) return std::nullopt;
        cp = cp * 16 + static_cast<std::uint32_t>(v);
      }
      pos_ = close + 1;
    } else {
      if (pos_ + 2 > re_.size()) return std::nullopt;
      int h = hex_value(re_[pos_]), l = hex_value(re_[pos_ + 1]);
      if (h < 0 || l < 0) return std::nullopt;
      cp = static_cast<std::uint32_t>(h * 16 + l);
      pos_ += 2;
    }
    if (cp > 0x10FFFF) return std::nullopt;
    return cp;
  }

  // An escape at pos_: a class (\w ...), or a single character as a one-member set (`single`
  // receives its code point, UINT32_MAX for a class).
  std::optional<ByteSet> escape(bool in_class, std::uint32_t* single = nullptr) {
    if (pos_ + 1 >= re_.size()) return std::nullopt;
    const char e = re_[pos_ + 1];
    pos_ += 2;
    std::uint32_t cp = UINT32_MAX;
    ByteSet s;
    switch (e) {
      case 'w':
        s = word_set();
        break;
      case 'W':
        s = complement(word_set());
        break;
      case 'd':
        s = digit_set();
        break;
      case 'D':
        s = complement(digit_set());
        break;
      case 's':
        s = space_set();
        break;
      case 'S':
        s = complement(space_set());
        break;
      case 't':
        cp = '\t';
        break;
      case 'n':
        cp = '\n';
        break;
      case 'r':
        cp = '\r';
        break;
      case 'f':
        cp = '\f';
        break;
      case 'a':
        cp = 0x07;
        break;
      case 'e':
        cp = 0x1b;
        break;
      case 'x': {
        auto h = hex();
        if (!h) return std::nullopt;
        if (*h >= 0x80 && caseless_) return std::nullopt;  // may fold onto ASCII
        cp = *h;
        break;
      }
      default:
        // Escaped ASCII punctuation is itself; letters and digits (\b \p \1 \v \h \Q ...) are
        // assertions, properties, references or classes this does not model.
        if (static_cast<unsigned char>(e) >= 0x80 || is_ascii_alnum(e)) return std::nullopt;
        cp = static_cast<unsigned char>(e);
        break;
    }
    (void)in_class;
    if (cp != UINT32_MAX && cp < 0x80) add(s, static_cast<unsigned char>(cp));
    if (cp != UINT32_MAX && cp >= 0x80) s.high = true;
    if (single != nullptr) *single = cp;
    return s;
  }

  // [...] at pos_, with ranges, escapes and POSIX classes; case-folded, then negated.
  std::optional<ByteSet> bracket() {
    ++pos_;
    bool negated = false;
    if (pos_ < re_.size() && re_[pos_] == '^') {
      negated = true;
      ++pos_;
    }
    ByteSet s;
    bool first = true;
    while (true) {
      if (pos_ >= re_.size()) return std::nullopt;
      const char c = re_[pos_];
      if (c == ']' && !first) break;
      first = false;
      if (re_.substr(pos_, 2) == "&&" || re_.substr(pos_, 2) == "--" ||
          re_.substr(pos_, 2) == "~~") {
        return std::nullopt;  // Rust set operations
      }
      if (c == '[') {
        if (re_.substr(pos_, 2) != "[:") return std::nullopt;  // a nested class
        auto posix_set = posix();
        if (!posix_set) return std::nullopt;
        add_all(s, *posix_set);
        continue;
      }
      std::uint32_t lo = 0;
      if (!member(s, lo)) return std::nullopt;
      if (lo == UINT32_MAX) continue;  // a class escape
      if (pos_ + 1 < re_.size() && re_[pos_] == '-' && re_[pos_ + 1] != ']') {
        ++pos_;
        std::uint32_t hi = 0;
        ByteSet ignored;
        if (!member(ignored, hi) || hi == UINT32_MAX || hi < lo) return std::nullopt;
        add_range(s, lo, hi);
        if (hi >= 0x80) s.high = true;
      } else if (lo < 0x80) {
        add(s, static_cast<unsigned char>(lo));
      } else {
        s.high = true;
      }
    }
    ++pos_;  // ']'
    if (caseless_) fold(s);
    return negated ? complement(s) : s;
  }

  // One class member (a character or an escape); `cp` its code point, UINT32_MAX for a class
  // escape (then added to `s` already).
  bool member(ByteSet& s, std::uint32_t& cp) {
    const auto u = static_cast<unsigned char>(re_[pos_]);
    if (u >= 0x80) {
      if (caseless_) return false;  // may fold onto ASCII
      std::size_t len = u >= 0xF0 ? 4 : u >= 0xE0 ? 3 : u >= 0xC0 ? 2 : 0;
      if (len == 0 || pos_ + len > re_.size()) return false;
      pos_ += len;
      cp = 0x80;  // not ASCII: only its being so matters
      return true;
    }
    if (u == '\\') {
      std::uint32_t single = UINT32_MAX;
      auto e = escape(/*in_class=*/true, &single);
      if (!e) return false;
      if (single == UINT32_MAX) add_all(s, *e);
      cp = single;
      return true;
    }
    cp = u;
    ++pos_;
    return true;
  }

  // [:name:] or [:^name:] at pos_: the ASCII members of PCRE2's class with UCP (which turns alpha,
  // alnum, upper, lower, space, word, punct, graph, print into Unicode properties that agree on
  // ASCII). upper/lower are refused under -i (PCRE2 does not fold \p{Lu}).
  std::optional<ByteSet> posix() {
    std::size_t close = re_.find(":]", pos_ + 2);
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view name = re_.substr(pos_ + 2, close - pos_ - 2);
    bool negated = !name.empty() && name.front() == '^';
    if (negated) name.remove_prefix(1);
    // PCRE2 does not fold \p{Lu} / \p{Ll} under -i: those are refused.
    if ((name == "upper" || name == "lower") && caseless_) return std::nullopt;
    AsciiSet members;
    if (!ascii_class(name, members)) return std::nullopt;
    ByteSet s;
    for (unsigned c = 0; c < members.size(); ++c) {
      if (members[c]) add(s, static_cast<unsigned char>(c));
    }
    pos_ = close + 2;
    s.high = name != "ascii";  // with UCP the others are Unicode properties
    return negated ? complement(s) : s;
  }

  std::string_view re_;
  bool caseless_;
  bool multiline_;  // -U: classes keep '\n', and anchors are not modelled
  bool dotall_;
  std::vector<ByteSet>& classes_;
  std::size_t pos_ = 0;
};

// The longest run of single-byte (or, under -i, single-letter) steps: the literal Hyperscan would
// search for. A literal non-ASCII character counts as strong on its own: it never matches ASCII
// text, and its lead and continuation bytes are rare in most text, so Hyperscan's literal search
// skips what the matcher would scan byte by byte (`\w+é` over 155 MB of .po files: 0.49 s here,
// rg 0.12 s, before this).
std::size_t longest_literal(const Sequence& s, const std::vector<ByteSet>& classes) {
  std::size_t best = 0, run = 0;
  for (const Step& step : s.steps) {
    const ByteSet& c = classes[step.klass];
    if (c.literal_bytes != 0 && step.kind != Step::kOpt && step.kind != Step::kStar) {
      return kStrongLiteral;
    }
    int members = __builtin_popcountll(c.bits[0]) + __builtin_popcountll(c.bits[1]);
    bool literal = (step.kind == Step::kOne || step.kind == Step::kRepeat) &&
                   (members == 1 || (members == 2 && [&] {
                      for (unsigned l = 'A'; l <= 'Z'; ++l) {
                        if (has(c, l) && has(c, l + 32)) return true;
                      }
                      return false;
                    }()));
    run = literal ? run + (step.kind == Step::kRepeat ? step.count : 1) : 0;
    best = std::max(best, run);
  }
  return best;
}

struct alignas(32) Tables {
  __m256i low[kMaxClasses];
};

__attribute__((target("avx2"))) inline std::uint64_t bits(__m256i a, __m256i b) {
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(a))) |
         (static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(b))) << 32);
}

// 64 bytes at `p` as class masks (bit i: byte i is in the class), plus the masks of line feeds
// and of non-ASCII bytes.
__attribute__((target("avx2"))) inline void classify(const char* p, const __m256i* low,
                                                     std::size_t classes, std::uint64_t* masks,
                                                     std::uint64_t& newlines, std::uint64_t& high) {
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  const __m256i high_bits = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0,
                                             1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i lf = _mm256_set1_epi8('\n');
  const __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
  const __m256i lo0 = _mm256_and_si256(v0, nibble);
  const __m256i lo1 = _mm256_and_si256(v1, nibble);
  const __m256i hb0 =
      _mm256_shuffle_epi8(high_bits, _mm256_and_si256(_mm256_srli_epi16(v0, 4), nibble));
  const __m256i hb1 =
      _mm256_shuffle_epi8(high_bits, _mm256_and_si256(_mm256_srli_epi16(v1, 4), nibble));
  for (std::size_t k = 0; k < classes; ++k) {
    const __m256i r0 = _mm256_and_si256(_mm256_shuffle_epi8(low[k], lo0), hb0);
    const __m256i r1 = _mm256_and_si256(_mm256_shuffle_epi8(low[k], lo1), hb1);
    masks[k] = ~bits(_mm256_cmpeq_epi8(r0, zero), _mm256_cmpeq_epi8(r1, zero));
  }
  newlines = bits(_mm256_cmpeq_epi8(v0, lf), _mm256_cmpeq_epi8(v1, lf));
  high = bits(v0, v1);
}

// Each run of steps on one class as one kRepeat (of the kOne steps) plus one kStar (if any) or the
// kOpt steps: the same language (quantifiers on one class commute), fewer dependent steps.
std::vector<Step> normalize(const std::vector<Step>& steps) {
  std::vector<Step> out;
  for (std::size_t i = 0; i < steps.size();) {
    std::size_t j = i, ones = 0, opts = 0, stars = 0;
    for (; j < steps.size() && steps[j].klass == steps[i].klass; ++j) {
      ones += steps[j].kind == Step::kOne ? 1U : 0U;
      opts += steps[j].kind == Step::kOpt ? 1U : 0U;
      stars += steps[j].kind == Step::kStar ? 1U : 0U;
    }
    for (; ones > 0; ones -= std::min<std::size_t>(ones, kMaxRun)) {
      out.push_back(Step{Step::kRepeat, steps[i].klass,
                         static_cast<std::uint8_t>(std::min<std::size_t>(ones, kMaxRun))});
    }
    if (stars > 0) {
      out.push_back(Step{Step::kStar, steps[i].klass, 1});
    } else {
      for (std::size_t k = 0; k < opts; ++k) out.push_back(Step{Step::kOpt, steps[i].klass, 1});
    }
    i = j;
  }
  return out;
}

}  // namespace

std::optional<BitMatcher> BitMatcher::compile(const std::vector<std::string>& regexes,
                                              bool caseless, bool whole_line) {
  return build(regexes, caseless, whole_line, /*multiline=*/false, /*dotall=*/false);
}

std::optional<BitMatcher> BitMatcher::compile_multiline(const std::vector<std::string>& regexes,
                                                        bool caseless, bool dotall) {
  return build(regexes, caseless, /*whole_line=*/false, /*multiline=*/true, dotall);
}

std::optional<BitMatcher> BitMatcher::build(const std::vector<std::string>& regexes, bool caseless,
                                            bool whole_line, bool multiline, bool dotall) {
  if (regexes.empty() || !cpu_has_avx2) return std::nullopt;
  BitMatcher m;
  for (const std::string& re : regexes) {
    auto seqs = Parser(re, caseless, multiline, dotall, m.classes_).run();
    if (!seqs) return std::nullopt;
    for (Sequence& s : *seqs) {
      if (whole_line) s.bol = s.eol = true;
      bool consumes = std::any_of(s.steps.begin(), s.steps.end(),
                                  [](const Step& st) { return st.kind == Step::kOne; });
      if (!consumes) return std::nullopt;  // may match the empty string
      Sequence relaxed = s;
      relaxed.steps.clear();
      for (const Step& st : s.steps) {  // x -> x+, x? and x* -> x*, for classes with `high`
        if (!m.classes_[st.klass].high) {
          relaxed.steps.push_back(st);
          continue;
        }
        if (st.kind == Step::kOne) relaxed.steps.push_back(st);
        relaxed.steps.push_back(Step{Step::kStar, st.klass, 1});
      }
      s.steps = normalize(s.steps);
      relaxed.steps = normalize(relaxed.steps);
      Sequence backwards = relaxed;
      std::reverse(backwards.steps.begin(), backwards.steps.end());
      m.reversed_.push_back(std::move(backwards));
      m.relaxed_.push_back(std::move(relaxed));
      m.total_steps_ += s.steps.size();
      Sequence exact_backwards = s;
      std::reverse(exact_backwards.steps.begin(), exact_backwards.steps.end());
      m.reversed_exact_.push_back(std::move(exact_backwards));
      m.sequences_.push_back(std::move(s));
    }
    if (m.sequences_.size() > kMaxSequences || m.total_steps_ > kMaxSteps) return std::nullopt;
  }
  std::size_t relaxed_steps = 0;
  for (const Sequence& r : m.relaxed_) relaxed_steps += r.steps.size();
  if (relaxed_steps > kMaxSteps) return std::nullopt;
  m.total_steps_ = std::max(m.total_steps_, relaxed_steps);  // carries: enough for either
  for (std::size_t k = 0; k < m.classes_.size(); ++k) {
    if (m.classes_[k].high) m.high_classes_ |= 1U << k;
  }
  bool all_have_literals =
      std::all_of(m.sequences_.begin(), m.sequences_.end(),
                  [&](const auto& s) { return longest_literal(s, m.classes_) >= kStrongLiteral; });
  if (all_have_literals && !multiline) return std::nullopt;
  m.low_tables_.assign(m.classes_.size() * 16, 0);
  for (std::size_t k = 0; k < m.classes_.size(); ++k) {
    for (unsigned c = 0; c < 0x80; ++c) {
      if (has(m.classes_[k], c)) {
        m.low_tables_[k * 16 + (c & 15)] |= static_cast<std::uint8_t>(1U << (c >> 4));
      }
    }
  }
  return m;
}

namespace {

// What the loop over 64-byte blocks carries from one block to the next (and, for a haystack
// scanned in pieces, from one piece to the next).
struct ScanCarry {
  std::array<std::uint64_t, kMaxSteps> steps;  // each step's carry (the first `used` kept)
  std::uint64_t previous[kMaxClasses] = {};    // the class masks of the block before
  std::uint64_t bol = 1;                       // the next block starts a line
  explicit ScanCarry(std::size_t used) { std::fill_n(steps.begin(), used, 0); }
};

// The matcher's loop over 64-byte blocks (see BitMatcher::find_line); kRelaxed: the superset mode
// of line_may_match, where bytes >= 0x80 belong to the classes in `high_classes`.
// kAll (with kRelaxed, from 0): every final marker goes to `all` (bit j: boundary j), none stops.
// `pieces` (kAll): the carries of the pieces before, when `hay` is one of a haystack's pieces, cut
// at multiples of 64 bytes; `final_piece`: it is the last (only its end is the haystack's).
template <bool kRelaxed, bool kAll = false>
__attribute__((target("avx2"))) BitMatcher::Found scan(
    std::string_view hay, std::size_t from, const std::vector<Sequence>& sequences,
    const std::vector<std::uint8_t>& low_tables, std::uint32_t high_classes,
    std::size_t total_steps, std::uint64_t* all = nullptr, ScanCarry* pieces = nullptr,
    bool final_piece = true) {
  using Found = BitMatcher::Found;
  const std::size_t class_count = low_tables.size() / 16;
  const std::uint8_t* const low_tables_data = low_tables.data();
  Tables tables;
  for (std::size_t k = 0; k < class_count; ++k) {
    tables.low[k] = _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(low_tables_data + k * 16)));
  }
  ScanCarry own(pieces != nullptr ? 0 : total_steps);
  ScanCarry& carried = pieces != nullptr ? *pieces : own;
  std::array<std::uint64_t, kMaxSteps>& carry = carried.steps;
  std::uint64_t masks[kMaxClasses];
  std::uint64_t* const previous = carried.previous;
  alignas(32) char pad[64];
  std::uint64_t& bol_carry = carried.bol;  // `from` starts a line
  const std::size_t n = hay.size();
  for (std::size_t b = from; final_piece ? b <= n : b < n; b += 64) {
    const std::size_t avail = n - b;
    const char* p = hay.data() + b;
    if (avail < 64) {
      std::memcpy(pad, p, avail);
      std::memset(pad + avail, '\n', 64 - avail);  // in no class; the end is a line end for $
      p = pad;
    }
    std::uint64_t newlines = 0, high = 0;
    classify(p, tables.low, class_count, masks, newlines, high);
    if constexpr (kRelaxed) {
      for (std::size_t k = 0; k < class_count; ++k) {
        if ((high_classes >> k) & 1U) masks[k] |= high;
      }
      high = 0;
    }
    const std::uint64_t line_starts = (newlines << 1) | bol_carry;
    bol_carry = newlines >> 63;
    std::uint64_t found = 0;
    std::size_t slot = 0;
    for (const Sequence& seq : sequences) {
      std::uint64_t m = seq.bol ? line_starts : ~std::uint64_t{0};
      for (const Step& step : seq.steps) {
        const std::uint64_t c = masks[step.klass];
        const std::uint64_t t = m & c;
        std::uint64_t& cy = carry[slot++];
        switch (step.kind) {
          case Step::kOne:
            m = (t << 1) | cy;
            cy = t >> 63;
            break;
          case Step::kOpt:
            m = m | (t << 1) | cy;
            cy = t >> 63;
            break;
          case Step::kRepeat: {
            // Markers move `count` bytes on where all bytes in between are in the class; `cy`
            // keeps this step's input markers of the block before.
            const unsigned count = step.count;
            const std::uint64_t before = previous[step.klass];
            std::uint64_t window = ~std::uint64_t{0};
            for (unsigned i = 1; i <= count; ++i) window &= (c << i) | (before >> (64 - i));
            const std::uint64_t in = m;
            m = ((m << count) | (cy >> (64 - count))) & window;
            cy = in;
            break;
          }
          case Step::kStar: {
            // MatchStar: the addition carries each marker through its run of the class.
            std::uint64_t sum = 0;
            const bool c1 = __builtin_add_overflow(t, c, &sum);
            const bool c2 = __builtin_add_overflow(sum, cy, &sum);
            cy = (c1 || c2) ? 1 : 0;
            m = (sum ^ c) | m;
            break;
          }
        }
      }
      if (seq.eol) m &= newlines;  // the padding '\n' stands for the end of the haystack
      found |= m;
    }
    std::copy_n(masks, class_count, previous);
    if (avail < 63) found &= (std::uint64_t{2} << avail) - 1;  // boundaries past the end
    if constexpr (kAll) {
      all[b / 64] = found;
      continue;
    }
    if (high != 0) {
      // Not ASCII from this line on: only matches ending before it count.
      const std::size_t h = b + static_cast<std::size_t>(__builtin_ctzll(high));
      std::size_t line = h;
      while (line > from && hay[line - 1] != '\n') --line;
      found = line > b ? found & ((std::uint64_t{1} << (line - b)) - 1) : 0;
      if (found == 0) {
        const void* nl = std::memchr(hay.data() + h, '\n', n - h);
        const std::size_t end =
            nl == nullptr ? n : static_cast<std::size_t>(static_cast<const char*>(nl) - hay.data());
        return Found{Found::kNotAscii, line, end};
      }
    }
    if (found != 0) {
      // A final marker at boundary j: a match's last byte is j - 1 (every match is non-empty).
      const std::size_t last = b + static_cast<std::size_t>(__builtin_ctzll(found)) - 1;
      std::size_t start = last;
      while (start > from && hay[start - 1] != '\n') --start;
      const void* nl = std::memchr(hay.data() + last, '\n', n - last);
      const std::size_t end =
          nl == nullptr ? n : static_cast<std::size_t>(static_cast<const char*>(nl) - hay.data());
      return Found{Found::kLine, start, end};
    }
  }
  return Found{};
}

}  // namespace

BitMatcher::Found BitMatcher::find_line(std::string_view hay, std::size_t from) const {
  return scan<false>(hay, from, sequences_, low_tables_, high_classes_, total_steps_);
}

void BitMatcher::match_starts(std::string_view hay, std::vector<char>& reversed,
                              std::vector<std::uint64_t>& starts) const {
  const std::size_t n = hay.size();
  // Pure ASCII: the exact program (fewer steps); else the superset.
  const std::vector<Sequence>& program = ctx::is_ascii_text(hay) ? reversed_exact_ : reversed_;
  starts.assign(n / 64 + 1, 0);
  // Backwards, a piece at a time (a copy of the whole haystack doubled the memory of -U on a
  // large file): each piece reversed into `reversed`, its blocks' carries passed on.
  constexpr std::size_t kPiece = std::size_t{256} << 10;  // a multiple of 64
  reversed.resize(std::min(n, kPiece));
  ScanCarry carried(total_steps_);
  for (std::size_t done = 0;;) {
    const std::size_t size = std::min(kPiece, n - done);
    const char* end = hay.data() + n - done;  // the piece is [end - size, end), reversed
    std::size_t j = 0;
    for (; j + 8 <= size; j += 8) {  // eight bytes at a time, byte-swapped
      std::uint64_t w;
      std::memcpy(&w, end - j - 8, 8);
      w = __builtin_bswap64(w);
      std::memcpy(reversed.data() + j, &w, 8);
    }
    for (; j < size; ++j) reversed[j] = *(end - j - 1);
    const bool last = done + size == n;
    scan<true, true>(std::string_view(reversed.data(), size), 0, program, low_tables_,
                     high_classes_, total_steps_, starts.data() + done / 64, &carried, last);
    if (last) break;
    done += size;
  }
}

bool BitMatcher::line_may_match(std::string_view line) const {
  return scan<true>(line, 0, relaxed_, low_tables_, high_classes_, total_steps_).kind ==
         Found::kLine;
}

}  // namespace ctx::engine::detail
