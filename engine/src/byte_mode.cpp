#include "byte_mode.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "ctx/base/utf8.hpp"
#include "line_anchors.hpp"
#include "rust_hir.hpp"
#include "rust_syntax.hpp"
#include "unicode_props.hpp"

namespace ctx::engine::detail {
namespace {

using Range = std::pair<std::uint32_t, std::uint32_t>;

// A character class: byte values (Unicode off) or Unicode scalar values (Unicode on), as sorted,
// disjoint ranges.
struct Set {
  bool bytes = false;
  CodepointRanges r;
};

CodepointRanges intersect(const CodepointRanges& a, const CodepointRanges& b) {
  CodepointRanges out;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::uint32_t lo = std::max(a[i].first, b[j].first);
    const std::uint32_t hi = std::min(a[i].second, b[j].second);
    if (lo <= hi) out.emplace_back(lo, hi);
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return out;
}

// The complement of `r` within the set's universe (bytes 0-255, or every scalar value).
CodepointRanges negate(const Set& s) {
  if (!s.bytes) return complement(s.r);
  CodepointRanges out;
  std::uint32_t next = 0;
  for (auto [lo, hi] : s.r) {
    if (lo > next) out.emplace_back(next, lo - 1);
    next = hi + 1;
  }
  if (next <= 0xFF) out.emplace_back(next, 0xFF);
  return out;
}

CodepointRanges unite(CodepointRanges a, const CodepointRanges& b) {
  a.insert(a.end(), b.begin(), b.end());
  return canonical_ranges(std::move(a));
}

CodepointRanges subtract(const Set& a, const CodepointRanges& b) {
  return intersect(a.r, negate(Set{a.bytes, b}));
}

// Simple case folding: regex-syntax's ClassBytes::case_fold_simple (ASCII letters) or
// ClassUnicode::try_case_fold_simple.
void fold(Set& s) {
  if (!s.bytes) {
    s.r = case_fold_closure(s.r);
    return;
  }
  CodepointRanges extra = s.r;
  for (auto [lo, hi] : s.r) {
    for (std::uint32_t c = std::max<std::uint32_t>(lo, 'A'); c <= std::min<std::uint32_t>(hi, 'z');
         ++c) {
      if (c <= 'Z') extra.emplace_back(c + 32, c + 32);
      if (c >= 'a') extra.emplace_back(c - 32, c - 32);
    }
  }
  s.r = canonical_ranges(std::move(extra));
}

// Rust's Unicode \w \d \s (regex-syntax's perl_word, perl_digit, perl_space; Unicode 15).
const CodepointRanges& perl_unicode(char kind) {
  auto build = [](std::initializer_list<std::string_view> names) {
    CodepointRanges out;
    std::string why;
    for (std::string_view n : names) {
      if (auto c = unicode_class(n, why)) out.insert(out.end(), c->ranges.begin(), c->ranges.end());
    }
    return canonical_ranges(std::move(out));
  };
  static const CodepointRanges word = build({"Alphabetic", "M", "Nd", "Pc", "Join_Control"});
  static const CodepointRanges digit = build({"Nd"});
  static const CodepointRanges space = build({"White_Space"});
  return kind == 'w' ? word : kind == 'd' ? digit : space;
}

CodepointRanges perl_ascii(char kind) {
  AsciiSet a{};
  ascii_class(kind == 'w' ? "word" : kind == 'd' ? "digit" : "space", a);
  CodepointRanges out;
  for (std::uint32_t c = 0; c < 128; ++c) {
    if (a[c]) out.emplace_back(c, c);
  }
  return canonical_ranges(std::move(out));
}

// A byte as a regex atom: ASCII letters and digits as themselves, anything else as \xHH (PCRE2
// and Hyperscan read \xHH as that byte without UTF).
std::string byte_text(std::uint32_t b) {
  const bool alnum = (b >= '0' && b <= '9') || (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z');
  if (alnum) return std::string(1, static_cast<char>(b));
  return fmt::format("\\x{:02X}", b);
}

// Class items of byte ranges.
std::string byte_items(const CodepointRanges& r) {
  std::string out;
  for (auto [lo, hi] : r) {
    out += byte_text(lo);
    if (hi > lo) {
      if (hi > lo + 1) out += '-';
      out += byte_text(hi);
    }
  }
  return out;
}

// One atom matching exactly the bytes in `r` (non-empty).
std::string byte_class(const CodepointRanges& r) {
  if (r.size() == 1 && r[0].first == r[0].second) return byte_text(r[0].first);
  return "[" + byte_items(r) + "]";
}

// The alternation of `seqs` (sharing their first `depth` ranges) from range `depth` on, with
// common prefixes factored out.
std::string emit_sequences(const std::vector<const Seq*>& seqs, std::size_t depth) {
  std::vector<std::string> alternatives;
  CodepointRanges last;  // ranges ending here, joined into one class
  for (std::size_t i = 0; i < seqs.size();) {
    const auto range = (*seqs[i])[depth];
    if (seqs[i]->size() == depth + 1) {
      last.emplace_back(range.first, range.second);
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < seqs.size() && seqs[j]->size() > depth + 1 && (*seqs[j])[depth] == range) ++j;
    std::vector<const Seq*> group(seqs.begin() + static_cast<std::ptrdiff_t>(i),
                                  seqs.begin() + static_cast<std::ptrdiff_t>(j));
    alternatives.push_back(byte_class({{range.first, range.second}}) +
                           emit_sequences(group, depth + 1));
    i = j;
  }
  if (!last.empty()) alternatives.insert(alternatives.begin(), byte_class(canonical_ranges(last)));
  if (alternatives.size() == 1) return alternatives.front();
  std::string out = "(?:";
  for (std::size_t k = 0; k < alternatives.size(); ++k) {
    if (k > 0) out += '|';
    out += alternatives[k];
  }
  return out + ")";
}

// A set of scalar values as an atom over UTF-8 bytes.
std::string unicode_atom(const CodepointRanges& r) {
  std::vector<Seq> seqs;
  for (auto [lo, hi] : r) utf8_sequences(lo, hi, seqs);
  std::vector<const Seq*> all;
  all.reserve(seqs.size());
  for (const Seq& s : seqs) all.push_back(&s);
  std::string out = emit_sequences(all, 0);
  // One atom already: a byte, a class, or a group around the whole alternation (emit_sequences
  // starts its alternatives with a byte or a class, never with a group).
  const bool one_byte = out.size() == 1 || (out.size() == 4 && out.starts_with("\\x"));
  const bool one_class = out.front() == '[' && out.find(']') == out.size() - 1;
  if (one_byte || one_class || out.starts_with("(?:")) return out;
  return "(?:" + out + ")";
}

struct Flags {
  bool i = false, m = false, s = false, U = false, u = true, x = false, R = false;
};

constexpr std::string_view kUnicodeNotAllowed = "Unicode not allowed here";

// The HIR of a group being read (rust_hir.hpp): its finished branches, the items of the one being
// read, and whether it captures.
struct HirFrame {
  std::vector<HirSummary> branches;
  std::vector<HirSummary> items;
  bool capture = false;
};

class Translator {
 public:
  Translator(std::string_view re, const ByteRegexOptions& o)
      : re_(re), superset_(o.superset), strip_(o.strip) {
    flags_.i = o.caseless;
    flags_.u = o.unicode;
    flags_.s = o.dotall;
    flags_.R = o.crlf;
  }

  Result<std::string> run() {
    // ripgrep takes patterns as UTF-8 only (bytes are written as (?-u)\xNN).
    for (std::size_t i = 0; i < re_.size();) {
      std::size_t len = 0;
      bool raw = false;
      char_at(i, len, raw);
      if (raw) {
        fail(i, "the pattern is not valid UTF-8 (match a byte with (?-u)\\xNN)");
        break;
      }
      i += len;
    }
    while (pos_ < re_.size() && why_.empty()) step();
    if (why_.empty() && !scopes_.empty()) fail(open_.back(), "unclosed group");
    if (why_.empty()) hir_result_ = close_hir(hir_.front());
    if (!why_.empty()) {
      return Error{ErrorCode::kInvalidArgument,
                   fmt::format("regex parse error in '{}' at offset {}: {}", re_, error_at_, why_)};
    }
    return std::move(out_);
  }

 private:
  void fail(std::size_t at, std::string_view why) {
    if (!why_.empty()) return;
    error_at_ = at;
    why_ = std::string(why);
  }

  bool at_end(std::size_t j) const { return j >= re_.size(); }

  // The end ('>') of the capture group name at `j`, checked as regex-syntax 0.8 checks it (a
  // letter or '_', then letters, digits, '_', '.', '[' or ']'; unique), or kNpos after fail().
  // Non-ASCII characters pass. (A name the pattern leaves unclosed meets the ')' that rg 14
  // wraps around each pattern: an invalid character at the pattern's end.)
  std::size_t capture_name_end(std::size_t j) {
    const std::size_t start = j;
    for (; j < re_.size() && re_[j] != '>'; ++j) {
      const auto c = static_cast<unsigned char>(re_[j]);
      const bool ok = c >= 0x80 || c == '_' || std::isalpha(c) != 0 ||
                      (j > start && (std::isdigit(c) != 0 || c == '.' || c == '[' || c == ']'));
      if (!ok) {
        fail(j, "invalid capture group character");
        return kNpos;
      }
    }
    if (j >= re_.size()) {
      fail(j, "invalid capture group character");
      return kNpos;
    }
    if (j == start) {
      fail(j, "empty capture group name");
      return kNpos;
    }
    const std::string_view name = re_.substr(start, j - start);
    if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
      fail(start, "duplicate capture group name");
      return kNpos;
    }
    names_.push_back(name);
    return j;
  }

  static bool pcre2_name(std::string_view name) {
    return std::all_of(name.begin(), name.end(), [](char c) {
      return static_cast<unsigned char>(c) < 0x80 && c != '.' && c != '[' && c != ']';
    });
  }

  // Skips whitespace and # comments under (?x), from `j`.
  void skip_space(std::size_t& j, bool in_class = false) {
    if (!flags_.x) return;
    while (j < re_.size()) {
      const char c = re_[j];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++j;
      } else if (c == '#' && !in_class) {
        while (j < re_.size() && re_[j] != '\n') ++j;
        // ripgrep wraps the pattern in (?:...): a comment to the end hides the group's ')'.
        if (j == re_.size()) fail(0, "unclosed group");
      } else {
        break;
      }
    }
  }

  // The character at `j` of the pattern: its code point and length; a byte that does not start
  // valid UTF-8 comes back as itself with `raw` set.
  std::uint32_t char_at(std::size_t j, std::size_t& len, bool& raw) const {
    const auto b = static_cast<unsigned char>(re_[j]);
    raw = false;
    len = 1;
    if (b < 0x80) return b;
    const std::size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0;
    if (n == 0 || j + n > re_.size() || !ctx::is_valid_utf8(re_.substr(j, n))) {
      raw = true;
      return b;
    }
    len = n;
    std::uint32_t cp = n == 2 ? b & 0x1F : n == 3 ? b & 0x0F : b & 0x07;
    for (std::size_t k = 1; k < n; ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(re_[j + k]) & 0x3F);
    }
    return cp;
  }

  // The atom of a set (its own universe).
  std::string set_atom(const Set& s) const {
    if (s.r.empty()) return superset_ ? "\\xFF\\xFE\\xFF\\xFE" : "(?!)";
    if (s.bytes) return byte_class(s.r);
    CodepointRanges ascii, rest;
    for (auto [lo, hi] : s.r) {
      if (lo < 0x80) ascii.emplace_back(lo, std::min<std::uint32_t>(hi, 0x7F));
      if (hi >= 0x80) rest.emplace_back(std::max<std::uint32_t>(lo, 0x80), hi);
    }
    // Hyperscan compiles big alternations slowly and they filter little: every non-ASCII
    // character instead.
    if (superset_ && rest.size() > kMaxExactRanges) rest = {{0x80, 0x10FFFF}};
    if (rest.empty()) return byte_class(ascii);
    CodepointRanges all = ascii;
    all.insert(all.end(), rest.begin(), rest.end());
    return unicode_atom(all);
  }

  // A literal character (`byte`: a raw byte, from \xNN with Unicode off).
  std::string literal_atom(std::uint32_t cp, bool byte) const {
    if (byte) return byte_text(cp);
    if (flags_.i) {
      if (flags_.u) {
        CodepointRanges folded = case_fold_closure({{cp, cp}});
        if (folded.size() > 1 || folded[0].first != folded[0].second) {
          return set_atom(Set{false, std::move(folded)});
        }
      } else if ((cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z')) {
        const std::uint32_t up = cp & ~0x20U;
        return fmt::format("[{}{}]", static_cast<char>(up), static_cast<char>(up | 0x20));
      }
    }
    const std::string bytes = utf8_of(cp);
    std::string out;
    for (char b : bytes) out += byte_text(static_cast<unsigned char>(b));
    return bytes.size() == 1 ? out : "(?:" + out + ")";
  }

  // An atom, `node` its HIR.
  void emit_atom(const std::string& atom, HirSummary node) {
    repeatable_ = true;
    atom_start_ = out_.size();
    quantified_ = false;
    assertion_ = false;
    out_ += atom;
    hir_.back().items.push_back(std::move(node));
  }

  // A literal character (see literal_atom).
  void emit_literal(std::uint32_t cp, bool byte) {
    emit_atom(literal_atom(cp, byte), literal_hir(cp, byte));
  }

  // A class.
  void emit_set(const Set& s) { emit_atom(set_atom(s), hir_class(s.r, s.bytes, strip_)); }

  // The HIR of a literal character: regex-syntax makes a case-folded one a class.
  HirSummary literal_hir(std::uint32_t cp, bool byte) const {
    if (byte) return hir_literal(std::string(1, static_cast<char>(cp)));
    if (flags_.i && flags_.u) return hir_class(case_fold_closure({{cp, cp}}), false, strip_);
    if (flags_.i && ((cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z'))) {
      const std::uint32_t up = cp & ~0x20U;
      return hir_class({{up, up}, {up | 0x20U, up | 0x20U}}, true, strip_);
    }
    return hir_literal(utf8_of(cp));
  }

  // An assertion as an atom that a quantifier may follow (Rust allows ^*; PCRE2 a group of it).
  void emit_assertion(const std::string& text, HirLook look) {
    emit_atom(text, hir_look(look));
    assertion_ = true;
  }

  // The last atom's HIR repeated {min,max}, after quantifier() took it.
  void repeat_hir(std::uint64_t min, std::optional<std::uint64_t> max) {
    if (!why_.empty() || hir_.back().items.empty()) return;
    HirSummary& last = hir_.back().items.back();
    std::optional<std::uint32_t> most;
    if (max) most = static_cast<std::uint32_t>(*max);
    last = hir_repetition(std::move(last), static_cast<std::uint32_t>(min), most);
  }

  // The HIR of the alternation in `frame` (its last branch still in `items`).
  HirSummary close_hir(HirFrame& frame) const {
    frame.branches.push_back(hir_concat(std::move(frame.items)));
    HirSummary alternation = hir_alternation(std::move(frame.branches), strip_);
    return frame.capture ? hir_capture(alternation) : alternation;
  }

  // A quantifier {min,max} (`text`, as PCRE2 reads it, found at `at`) after the last atom, with
  // its lazy '?' when one follows at pos_ (just past the quantifier). Rust repeats a repetition
  // (a**) and assertions (^*); PCRE2 wants a group around them. A repetition of a repetition of
  // the * + ? kind folds into one Repeat instead of nesting (fold_order; fold_matches in a
  // superset): each nested group doubled Hyperscan's compile time (a chain of 30 +'s took
  // minutes; ripgrep 0.45 s) and PCRE2's backtracking on a failing line.
  void quantifier(std::size_t at, std::string_view text, std::uint64_t min,
                  std::optional<std::uint64_t> max) {
    if (!repeatable_) {
      fail(at, "repetition operator missing expression");
      return;
    }
    std::size_t j = pos_;
    skip_space(j);
    const bool lazy = j < re_.size() && re_[j] == '?';
    if (lazy) pos_ = j + 1;
    const Repeat simple = simple_repeat(min, max, lazy);
    Repeat folded = Repeat::kOther;
    if (quantified_ && repeat_ != Repeat::kOther && simple != Repeat::kOther) {
      folded = superset_ ? fold_matches(repeat_, simple) : fold_order(repeat_, simple);
    }
    if (folded != Repeat::kOther) {
      differs_ = true;
      render_repeat(folded);
    } else {
      if (quantified_ || assertion_) {
        differs_ = true;
        out_.insert(atom_start_, "(?:");
        out_ += ')';
      }
      atom_size_ = out_.size() - atom_start_;
      atom_nullable_ = hir_.back().items.empty() || hir_.back().items.back().nullable;
      repeat_ = Repeat::kOther;
      if (simple == Repeat::kOther) {
        out_ += text;
        if (lazy) out_ += '?';
      } else {
        render_repeat(over_atom(simple));
      }
    }
    quantified_ = true;
    assertion_ = false;
    repeat_hir(min, max);
  }

  // The repetitions of the * + ? kind, and the two that a repetition of them may need beyond
  // those: one whose first choice (take a copy of the atom or not) differs from its choice
  // after each copy (take another or stop).
  enum class Repeat : std::uint8_t {
    kStar,
    kStarLazy,
    kPlus,
    kPlusLazy,
    kOpt,
    kOptLazy,
    kLazyThenGreedy,  // (?:x+)?? : no copy first; once one is taken, as many as can be
    kGreedyThenLazy,  // (?:x+?)? : a copy first; then as few more as can be
    // x*? where x, or a repetition x*? stands for, may match the empty string: the same matches
    // as x*?, but repeated again by * or + it prefers another copy (regex-automata skips a split
    // state that one step reaches twice).
    kStarLazyOverEmpty,
    kOther,  // a counted repetition: not folded
  };
  static constexpr std::array<std::string_view, 9> kRepeatSuffix = {"*",  "*?",   "+",    "+?", "?",
                                                                    "??", "+)??", "+?)?", "*?"};

  // kFold[inner][outer]: the Repeat that is (?:x{inner}){outer} for x that cannot match the empty
  // string and an outer of the * + ? kind (the first six Repeats), as regex-automata orders the
  // matches. Found against ripgrep 14 on haystacks that tell all nine Repeats apart (chains of up
  // to five, atoms that may match the empty string or not); tests/engine/rust_dialect_test.cpp
  // checks every chain of two and three.
  static constexpr Repeat kFold[8][6] = {
      // columns: the outer * *? + +? ? ?? (the first six Repeats, in order)
      {Repeat::kStar, Repeat::kLazyThenGreedy, Repeat::kStar, Repeat::kStar, Repeat::kStar,
       Repeat::kLazyThenGreedy},  // x*
      {Repeat::kStarLazy, Repeat::kStarLazy, Repeat::kStarLazy, Repeat::kStarLazy,
       Repeat::kStarLazy, Repeat::kStarLazy},  // x*?
      {Repeat::kStar, Repeat::kLazyThenGreedy, Repeat::kPlus, Repeat::kPlus, Repeat::kStar,
       Repeat::kLazyThenGreedy},  // x+
      {Repeat::kStar, Repeat::kStarLazy, Repeat::kPlus, Repeat::kPlusLazy, Repeat::kGreedyThenLazy,
       Repeat::kStarLazyOverEmpty},  // x+?
      {Repeat::kStar, Repeat::kStarLazyOverEmpty, Repeat::kStar, Repeat::kGreedyThenLazy,
       Repeat::kOpt, Repeat::kOptLazy},  // x?
      {Repeat::kLazyThenGreedy, Repeat::kStarLazyOverEmpty, Repeat::kLazyThenGreedy,
       Repeat::kStarLazyOverEmpty, Repeat::kOptLazy, Repeat::kOptLazy},  // x??
      {Repeat::kLazyThenGreedy, Repeat::kLazyThenGreedy, Repeat::kLazyThenGreedy,
       Repeat::kLazyThenGreedy, Repeat::kLazyThenGreedy, Repeat::kLazyThenGreedy},  // (?:x+)??
      {Repeat::kStar, Repeat::kStarLazyOverEmpty, Repeat::kStar, Repeat::kGreedyThenLazy,
       Repeat::kGreedyThenLazy, Repeat::kStarLazyOverEmpty},  // (?:x+?)?
  };

  // (?:x{inner}){outer} in regex-automata's order of preference, the last atom being x: kFold,
  // where a lazy star over a body that may match the empty string (x itself, or the inner
  // repetition) prefers taking another copy once a greedy * or + repeats it again.
  Repeat fold_order(Repeat inner, Repeat outer) const {
    if (inner == Repeat::kStarLazyOverEmpty) {
      return outer == Repeat::kStar || outer == Repeat::kPlus ? Repeat::kLazyThenGreedy
                                                              : Repeat::kStarLazyOverEmpty;
    }
    return over_atom(kFold[static_cast<int>(inner)][static_cast<int>(outer)]);
  }

  // `r` over the last atom: a lazy star over an atom that may match the empty string is
  // kStarLazyOverEmpty.
  Repeat over_atom(Repeat r) const {
    return r == Repeat::kStarLazy && atom_nullable_ ? Repeat::kStarLazyOverEmpty : r;
  }

  // Whether `r` is written with a "(?:" before the atom.
  static bool wrapped(Repeat r) {
    return r == Repeat::kLazyThenGreedy || r == Repeat::kGreedyThenLazy;
  }

  // (?:x{inner}){outer} as the Repeat with the same matches (the order of preference aside, as
  // a superset for Hyperscan needs): x? of two ?'s, x+ of two +'s, x* otherwise.
  static Repeat fold_matches(Repeat inner, Repeat outer) {
    const auto kind = [](Repeat r) {
      return r == Repeat::kPlus || r == Repeat::kPlusLazy ? Repeat::kPlus
             : r == Repeat::kOpt || r == Repeat::kOptLazy ? Repeat::kOpt
                                                          : Repeat::kStar;
    };
    return kind(inner) == kind(outer) ? kind(inner) : Repeat::kStar;
  }

  // {min,max} as a Repeat of the * + ? kind, or kOther.
  static Repeat simple_repeat(std::uint64_t min, std::optional<std::uint64_t> max, bool lazy) {
    const auto pick = [lazy](Repeat greedy) {
      return static_cast<Repeat>(static_cast<int>(greedy) + (lazy ? 1 : 0));
    };
    if (!max && min <= 1) return pick(min == 0 ? Repeat::kStar : Repeat::kPlus);
    if (max && *max == 1 && min == 0) return pick(Repeat::kOpt);
    return Repeat::kOther;
  }

  // Writes the last atom (atom_size_ bytes at atom_start_) repeated as `r`, in place of its
  // last repetition.
  void render_repeat(Repeat r) {
    if (wrapped(repeat_)) out_.erase(atom_start_, 3);
    out_.resize(atom_start_ + atom_size_);
    if (wrapped(r)) out_.insert(atom_start_, "(?:");
    out_ += kRepeatSuffix[static_cast<std::size_t>(r)];
    repeat_ = r;
  }

  // A Unicode look-around as a callout (nothing in a superset: dropping an assertion widens).
  void emit_callout(int number) {
    emit_assertion(superset_ ? "" : fmt::format("(?:(?C{}))", number), HirLook::kWord);
  }

  // ASCII versions of the word look-arounds, over bytes.
  void emit_ascii_look(std::string_view kind) {
    constexpr std::string_view kWord = "[0-9A-Za-z_]";
    if (superset_) {  // Hyperscan has no look-arounds: \b, or nothing (a superset)
      emit_assertion(kind == "start" || kind == "end" ? "\\b" : "", HirLook::kWord);
    } else if (kind == "start") {
      emit_assertion(fmt::format("(?:\\b(?={}))", kWord), HirLook::kWord);
    } else if (kind == "end") {
      emit_assertion(fmt::format("(?:\\b(?<={}))", kWord), HirLook::kWord);
    } else if (kind == "start-half") {
      emit_assertion(fmt::format("(?<!{})", kWord), HirLook::kWord);
    } else {
      emit_assertion(fmt::format("(?!{})", kWord), HirLook::kWord);
    }
  }

  void step() {
    skip_space(pos_);
    if (at_end(pos_)) return;
    const char c = re_[pos_];
    switch (c) {
      case '(':
        group_open();
        return;
      case ')':
        if (scopes_.empty()) {
          fail(pos_, "unopened group");
          return;
        }
        flags_ = scopes_.back();
        scopes_.pop_back();
        open_.pop_back();
        out_ += ')';
        {
          HirSummary group = close_hir(hir_.back());
          hir_.pop_back();
          hir_.back().items.push_back(std::move(group));
        }
        atom_start_ = open_out_.back();
        open_out_.pop_back();
        quantified_ = assertion_ = false;
        repeatable_ = true;
        ++pos_;
        return;
      case '|':
        repeatable_ = false;
        hir_.back().branches.push_back(hir_concat(std::move(hir_.back().items)));
        hir_.back().items.clear();
        out_ += c;
        ++pos_;
        return;
      case '^':
      case '$':
        // CRLF mode (R: (?R), --crlf): Rust's CRLF-aware anchors, which Hyperscan's ^ and $ do
        // not cover (dropped from the superset).
        if (flags_.R) {
          emit_assertion(superset_ ? "" : std::string(c == '^' ? kCrlfLineStart : kCrlfLineEnd),
                         HirLook::kLine);
        } else {
          emit_assertion(std::string(1, c), HirLook::kLine);
        }
        ++pos_;
        return;
      case '*':
      case '+':
      case '?':
        ++pos_;
        quantifier(pos_ - 1, std::string_view(&re_[pos_ - 1], 1), c == '+' ? 1 : 0,
                   c == '?' ? std::optional<std::uint64_t>(1) : std::nullopt);
        return;
      case '{':
        counted();
        return;
      case '.':
        ++pos_;
        // Rust's CRLF mode (R, --crlf) keeps `.` off \r too.
        if (flags_.u) {
          emit_set(Set{false, flags_.s   ? CodepointRanges{{0, 0x10FFFF}}
                              : flags_.R ? CodepointRanges{{0, 9}, {11, 12}, {14, 0x10FFFF}}
                                         : CodepointRanges{{0, 9}, {11, 0x10FFFF}}});
        } else {
          emit_atom(flags_.s   ? "[\\x00-\\xFF]"
                    : flags_.R ? "[^\\n\\r]"
                               : "[^\\n]",
                    hir_class(flags_.s   ? CodepointRanges{{0, 0xFF}}
                              : flags_.R ? CodepointRanges{{0, 9}, {11, 12}, {14, 0xFF}}
                                         : CodepointRanges{{0, 9}, {11, 0xFF}},
                              true, strip_));
        }
        return;
      case '[': {
        std::size_t j = pos_;
        Set s = parse_class(j);
        if (!why_.empty()) return;
        pos_ = j;
        emit_set(s);
        return;
      }
      case '\\':
        escape();
        return;
      default: {
        std::size_t len = 0;
        bool raw = false;
        const std::uint32_t cp = char_at(pos_, len, raw);
        pos_ += len;
        emit_literal(cp, raw);
        return;
      }
    }
  }

  // {n}, {n,}, {n,m}: copied; anything else an error as in Rust.
  void counted() {
    const std::size_t open = pos_;
    std::size_t j = pos_ + 1;
    std::string text = "{";
    // regex-syntax's parse_decimal: whitespace around the digits is skipped (always), and
    // between them under (?x).
    auto white = [&] {
      while (j < re_.size() && std::string_view(" \t\n\v\f\r").find(re_[j]) != kNpos) {
        differs_ = true;
        ++j;
      }
    };
    // The digits as a u32 (regex-syntax's "decimal literal invalid" past it, at its first digit).
    auto digits = [&](std::uint64_t& value) {
      white();
      const std::size_t first = j;
      bool any = false;
      value = 0;
      while (j < re_.size() && re_[j] >= '0' && re_[j] <= '9') {
        value = std::min<std::uint64_t>(value * 10 + static_cast<std::uint64_t>(re_[j] - '0'),
                                        std::uint64_t{1} << 40);
        text += re_[j++];
        any = true;
        skip_space(j);
      }
      if (value > UINT32_MAX) fail(first, "decimal literal invalid");
      white();
      return any;
    };
    std::uint64_t min = 0, max = 0;
    if (!digits(min)) {
      fail(open, at_end(j) ? "unclosed counted repetition"
                           : "repetition quantifier expects a valid decimal");
      return;
    }
    if (!why_.empty()) return;
    std::optional<std::uint64_t> most = min;
    if (j < re_.size() && re_[j] == ',') {
      text += ',';
      ++j;
      skip_space(j);
      most.reset();
      if (j < re_.size() && re_[j] != '}') {
        if (!digits(max)) {
          fail(open, "repetition quantifier expects a valid decimal");
          return;
        }
        if (!why_.empty()) return;
        most = max;
      }
    }
    if (at_end(j) || re_[j] != '}') {
      fail(open, "unclosed counted repetition");
      return;
    }
    if (most && *most < min) {
      fail(open, "invalid repetition count range, the start must be <= the end");
      return;
    }
    pos_ = j + 1;
    quantifier(open, text + "}", min, most);
  }

  void group_open() {
    const std::size_t open = pos_;
    repeatable_ = false;  // (?i) too: Rust repeats no flag group
    if (re_.substr(pos_, 2) != "(?") {
      hir_.push_back(HirFrame{{}, {}, true});
      scopes_.push_back(flags_);
      open_.push_back(open);
      open_out_.push_back(out_.size());
      out_ += '(';
      ++pos_;
      return;
    }
    std::size_t j = pos_ + 2;
    if (re_.substr(j, 2) == "P<" ||
        (re_.substr(j, 1) == "<" && re_.substr(j + 1, 1) != "=" && re_.substr(j + 1, 1) != "!")) {
      const std::size_t name_at = j + (re_[j] == 'P' ? 2 : 1);
      const std::size_t close = capture_name_end(name_at);
      if (close == kNpos) return;
      const std::string_view name = re_.substr(name_at, close - name_at);
      hir_.push_back(HirFrame{{}, {}, true});
      scopes_.push_back(flags_);
      open_.push_back(open);
      open_out_.push_back(out_.size());
      // A name PCRE2 cannot take (with '.', '[' or ']'; non-ASCII, as PCRE2 runs without UTF
      // here) is dropped: no replacement can name it (rg's `$name` is ASCII).
      out_ += superset_ || !pcre2_name(name) ? "(" : fmt::format("(?<{}>", name);
      pos_ = close + 1;
      return;
    }
    if (re_.substr(j, 1) == "=" || re_.substr(j, 1) == "!" || re_.substr(j, 2) == "<=" ||
        re_.substr(j, 2) == "<!") {
      fail(open, "look-around, including look-ahead and look-behind, is not supported");
      return;
    }
    Flags f = flags_;
    bool on = true, negation = false;
    std::string seen;
    std::string passed;  // the flags PCRE2 gets: m and U
    for (; j < re_.size() && re_[j] != ')' && re_[j] != ':'; ++j) {
      const char k = re_[j];
      if (k != '-' && seen.find(k) != std::string::npos) {
        fail(j, "duplicate flag");
        return;
      }
      seen += k;
      switch (k) {
        case '-':
          if (negation) {
            fail(j, "duplicate negation flag");
            return;
          }
          negation = true;
          on = false;
          passed += '-';
          continue;
        case 'i':
          f.i = on;
          continue;
        case 'm':
          f.m = on;
          passed += k;
          continue;
        case 's':
          f.s = on;
          continue;
        case 'U':
          f.U = on;
          passed += k;
          continue;
        case 'u':
          f.u = on;
          continue;
        case 'x':
          f.x = on;
          differs_ = true;
          continue;
        case 'R':
          f.R = on;
          differs_ = true;
          continue;
        default:
          fail(j, "unrecognized flag");
          return;
      }
    }
    if (at_end(j)) {
      fail(open, "unclosed group");
      return;
    }
    if (negation && re_[j - 1] == '-') {
      fail(j - 1, "flag negation operator missing flag");
      return;
    }
    // PCRE2 wants no dangling '-' and nothing for (?-): keep "m-U" shapes only.
    if (!passed.empty() && passed.back() == '-') passed.pop_back();
    if (!passed.empty() && passed.front() == '-' && passed.size() == 1) passed.clear();
    if (superset_) passed.clear();
    if (re_[j] == ')') {
      flags_ = f;
      if (!passed.empty()) out_ += "(?" + passed + ")";
      pos_ = j + 1;
      return;
    }
    hir_.push_back(HirFrame{{}, {}, false});
    scopes_.push_back(flags_);
    open_.push_back(open);
    flags_ = f;
    open_out_.push_back(out_.size());
    out_ += "(?" + passed + ":";
    pos_ = j + 1;
  }

  // The text between the `{` at `j` and the next `}` (whitespace and comments left out under
  // (?x), as regex-syntax reads \x{..} and \p{..}), `j` moved past the `}`; false when there is
  // no `}`.
  bool braced_body(std::size_t& j, std::string& body) {
    std::size_t k = j + 1;
    for (skip_space(k); k < re_.size() && re_[k] != '}'; skip_space(k)) body += re_[k++];
    if (k >= re_.size()) return false;
    j = k + 1;
    return true;
  }

  // Reads hex digits after \x, \u or \U at `j` (past the letter): the code point, or fails.
  bool hex_escape(std::size_t& j, char kind, std::uint32_t& cp, bool& two_digit) {
    two_digit = false;
    const std::size_t start = j - 2;
    std::string digits;
    skip_space(j);  // regex-syntax's bump_and_bump_space: (?x) whitespace between the pieces
    if (j < re_.size() && re_[j] == '{') {
      if (!braced_body(j, digits)) {
        fail(start, "unclosed hexadecimal literal");
        return false;
      }
      if (digits.empty() || digits.size() > 8) {
        fail(start, "invalid hexadecimal literal");
        return false;
      }
    } else {
      const std::size_t n = kind == 'x' ? 2 : kind == 'u' ? 4 : 8;
      for (std::size_t i = 0; i < n && j < re_.size(); ++i) {
        if (i > 0) skip_space(j);
        if (j < re_.size()) digits += re_[j++];
      }
      two_digit = kind == 'x';
      if (digits.size() != n) {
        fail(start, "invalid hexadecimal literal");
        return false;
      }
    }
    std::uint64_t v = 0;
    for (char d : digits) {
      const int x = d >= '0' && d <= '9'   ? d - '0'
                    : d >= 'a' && d <= 'f' ? d - 'a' + 10
                    : d >= 'A' && d <= 'F' ? d - 'A' + 10
                                           : -1;
      if (x < 0) {
        fail(start, "hexadecimal literal is not a Unicode scalar value");
        return false;
      }
      v = v * 16 + static_cast<std::uint64_t>(x);
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
      fail(start, "hexadecimal literal is not a Unicode scalar value");
      return false;
    }
    cp = static_cast<std::uint32_t>(v);
    return true;
  }

  // An escape at `j` (a backslash) that stands for one character or a class. Returns the set
  // (class escapes) or sets `cp`/`byte` (literals); false when it is neither (assertions), or
  // on an error (why_ set). `j` moves past it.
  enum class Esc { kLiteral, kSet, kOther, kError };
  Esc class_or_literal_escape(std::size_t& j, Set& set, std::uint32_t& cp, bool& byte) {
    const std::size_t start = j;
    if (j + 1 >= re_.size()) {
      fail(start, "incomplete escape sequence, reached end of pattern prematurely");
      return Esc::kError;
    }
    const char e = re_[j + 1];
    byte = false;
    j += 2;
    switch (e) {
      case 'd':
      case 's':
      case 'w':
      case 'D':
      case 'S':
      case 'W': {
        const char lower = static_cast<char>(e | 0x20);
        set = flags_.u ? Set{false, perl_unicode(lower)} : Set{true, perl_ascii(lower)};
        if (e != lower) set.r = negate(set);
        return Esc::kSet;
      }
      case 'p':
      case 'P': {
        std::string body;
        skip_space(j);
        if (j < re_.size() && re_[j] == '{') {
          if (!braced_body(j, body)) {
            fail(start, "unclosed Unicode class literal");
            return Esc::kError;
          }
        } else if (j < re_.size()) {
          std::size_t len = 0;
          bool raw = false;
          char_at(j, len, raw);
          body = re_.substr(j, len);
          j += len;
        }
        if (!flags_.u) {
          fail(start, kUnicodeNotAllowed);
          return Esc::kError;
        }
        if (body.empty()) {
          fail(start, "missing Unicode property name");
          return Esc::kError;
        }
        if (body.starts_with('^')) {
          fail(start, "Unicode property not found (write \\P{..} for the complement)");
          return Esc::kError;
        }
        std::string why;
        auto cls = unicode_class(body, why);
        if (!cls) {
          fail(start, why);
          return Esc::kError;
        }
        set = Set{false, cls->ranges};
        if (flags_.i) fold(set);
        if (e == 'P') set.r = negate(set);
        return Esc::kSet;
      }
      case 'x':
      case 'u':
      case 'U': {
        bool two_digit = false;
        if (!hex_escape(j, e, cp, two_digit)) return Esc::kError;
        byte = !flags_.u && two_digit && cp >= 0x80;
        return Esc::kLiteral;
      }
      case 'a':
        cp = 0x07;
        return Esc::kLiteral;
      case 'f':
        cp = 0x0C;
        return Esc::kLiteral;
      case 't':
        cp = '\t';
        return Esc::kLiteral;
      case 'n':
        cp = '\n';
        return Esc::kLiteral;
      case 'r':
        cp = '\r';
        return Esc::kLiteral;
      case 'v':
        cp = 0x0B;
        return Esc::kLiteral;
      case 'A':
      case 'z':
      case 'b':
      case 'B':
      case '<':
      case '>':
        return Esc::kOther;
      default:
        break;
    }
    const auto u = static_cast<unsigned char>(e);
    if (e >= '0' && e <= '9') {
      fail(start, "backreferences are not supported");
      return Esc::kError;
    }
    if (u < 0x80 && std::isalnum(u) == 0) {  // escaped punctuation (or space): itself
      cp = u;
      return Esc::kLiteral;
    }
    fail(start, "unrecognized escape sequence");
    return Esc::kError;
  }

  void escape() {
    std::size_t j = pos_;
    Set set;
    std::uint32_t cp = 0;
    bool byte = false;
    switch (class_or_literal_escape(j, set, cp, byte)) {
      case Esc::kError:
        return;
      case Esc::kSet:
        pos_ = j;
        emit_set(set);
        return;
      case Esc::kLiteral:
        pos_ = j;
        emit_literal(cp, byte);
        return;
      case Esc::kOther:
        break;
    }
    const char e = re_[pos_ + 1];
    pos_ += 2;
    if (e == 'A') {
      emit_assertion(superset_ ? "^" : "\\A",
                     HirLook::kTextStart);  // Hyperscan's \A is the buffer's start
      return;
    }
    if (e == 'z') {
      emit_assertion(superset_ ? "$" : "\\z", HirLook::kTextEnd);
      return;
    }
    std::string_view kind;
    if (e == '<') kind = "start";
    if (e == '>') kind = "end";
    // \b{ starts a special word boundary when a letter or '-' follows (else \b{2} repeats \b).
    if (e == 'b' && re_.substr(pos_, 1) == "{" && pos_ + 1 < re_.size() &&
        (std::isalpha(static_cast<unsigned char>(re_[pos_ + 1])) != 0 || re_[pos_ + 1] == '-')) {
      const std::size_t close = re_.find('}', pos_);
      const std::string_view name =
          close == std::string_view::npos ? "" : re_.substr(pos_ + 1, close - pos_ - 1);
      if (name == "start" || name == "end" || name == "start-half" || name == "end-half") {
        kind = name;
        pos_ = close + 1;
      } else if (close == std::string_view::npos) {
        fail(pos_ - 2, "special word boundary assertion is unclosed");
        return;
      } else {
        fail(pos_ - 2,
             "unrecognized special word boundary assertion, valid choices are: start, end, "
             "start-half or end-half");
        return;
      }
    }
    if (kind.empty()) {  // \b or \B
      if (!flags_.u) {
        emit_assertion(e == 'b' ? "\\b" : "\\B", HirLook::kWord);
      } else {
        emit_callout(e == 'b' ? kCalloutWordBoundary : kCalloutNotWordBoundary);
      }
      return;
    }
    if (!flags_.u) {
      emit_ascii_look(kind);
      return;
    }
    emit_callout(kind == "start"        ? kCalloutWordStart
                 : kind == "end"        ? kCalloutWordEnd
                 : kind == "start-half" ? kCalloutWordStartHalf
                                        : kCalloutWordEndHalf);
  }

  // Class parsing, regex-syntax's bracketed classes: items (literals, ranges, escapes, POSIX
  // classes, nested classes) united, then && -- ~~ left to right, then case folding, then
  // negation. `j` at '['; moves past the ']'.
  Set parse_class(std::size_t& j) {
    const std::size_t open = j;
    const bool bytes = !flags_.u;
    ++j;
    skip_space(j, true);
    const bool negated = j < re_.size() && re_[j] == '^';
    if (negated) {
      ++j;
      skip_space(j, true);
    }
    Set acc{bytes, parse_union(j, true)};
    while (why_.empty() && j < re_.size() && at_set_op(j)) {
      const char op = re_[j];
      j += 2;
      skip_space(j, true);
      CodepointRanges rhs = parse_union(j, false);
      if (op == '&') {
        acc.r = intersect(acc.r, rhs);
      } else if (op == '-') {
        acc.r = subtract(acc, rhs);
      } else {
        CodepointRanges both = intersect(acc.r, rhs);
        acc.r = subtract(Set{bytes, unite(acc.r, rhs)}, both);
      }
    }
    if (!why_.empty()) return acc;
    if (j >= re_.size() || re_[j] != ']') {
      fail(open, "unclosed character class");
      return acc;
    }
    ++j;
    if (flags_.i) fold(acc);
    if (negated) acc.r = negate(acc);
    return acc;
  }

  bool at_set_op(std::size_t j) const {
    const std::string_view two = re_.substr(j, 2);
    return two == "&&" || two == "--" || two == "~~";
  }

  // One class literal at `j` (a character or a literal escape): false (why_ set) when it is not
  // one, or is not allowed.
  bool class_literal(std::size_t& j, std::uint32_t& value) {
    const std::size_t at = j;
    bool byte = false;
    if (re_[j] == '\\') {
      Set ignored;
      const Esc kind = class_or_literal_escape(j, ignored, value, byte);
      if (kind == Esc::kError) return false;
      if (kind != Esc::kLiteral) {
        fail(at, "invalid range boundary, must be a literal");
        return false;
      }
    } else {
      std::size_t len = 0;
      value = char_at(j, len, byte);
      j += len;
    }
    if (!flags_.u && !byte && value >= 0x80) {
      fail(at, kUnicodeNotAllowed);
      return false;
    }
    return true;
  }

  // The items of a class up to ']' or a set operation, united.
  CodepointRanges parse_union(std::size_t& j, bool first) {
    const bool bytes = !flags_.u;
    CodepointRanges acc;
    while (why_.empty()) {
      skip_space(j, true);
      if (j >= re_.size()) break;
      const char c = re_[j];
      if (c == ']' && !first) break;
      if (at_set_op(j) && !(first && c == '-')) break;
      first = false;
      if (c == '[') {
        if (re_.substr(j, 2) == "[:") {
          const std::size_t close = re_.find(":]", j + 2);
          if (close != std::string_view::npos) {
            std::string_view name = re_.substr(j + 2, close - j - 2);
            const bool neg = name.starts_with('^');
            if (neg) name.remove_prefix(1);
            AsciiSet a{};
            if (ascii_class(name, a)) {
              Set s{bytes, {}};
              for (std::uint32_t k = 0; k < 128; ++k) {
                if (a[k]) s.r.emplace_back(k, k);
              }
              s.r = canonical_ranges(std::move(s.r));
              if (flags_.i) fold(s);
              if (neg) s.r = negate(s);
              acc = unite(std::move(acc), s.r);
              j = close + 2;
              continue;
            }
          }
        }
        Set nested = parse_class(j);
        acc = unite(std::move(acc), nested.r);
        continue;
      }
      if (c == '\\') {
        std::size_t k = j;
        Set s;
        std::uint32_t cp = 0;
        bool byte = false;
        const std::size_t at = j;
        const Esc kind = class_or_literal_escape(k, s, cp, byte);
        if (kind == Esc::kError) break;
        if (kind == Esc::kSet) {
          acc = unite(std::move(acc), s.r);
          j = k;
          skip_space(k, true);
          if (k + 1 < re_.size() && re_[k] == '-' && re_[k + 1] != ']' && !at_set_op(k)) {
            fail(at, "invalid range boundary, must be a literal");
            break;
          }
          continue;
        }
        if (kind == Esc::kOther) {
          fail(at, "unrecognized escape sequence");
          break;
        }
      }
      std::uint32_t lo = 0;
      const std::size_t at_lo = j;
      if (!class_literal(j, lo)) break;
      std::size_t k = j;
      skip_space(k, true);
      std::uint32_t hi = lo;
      if (k + 1 < re_.size() && re_[k] == '-' && re_[k + 1] != ']' && !at_set_op(k)) {
        ++k;
        skip_space(k, true);
        if (!class_literal(k, hi)) break;
        if (hi < lo) {
          fail(at_lo, "invalid character class range, the start must be <= the end");
          break;
        }
        j = k;
      }
      acc = unite(std::move(acc), {{lo, hi}});
    }
    return acc;
  }

  static constexpr std::size_t kNpos = std::string_view::npos;
  std::string_view re_;
  bool superset_;
  std::string_view strip_;  // see ByteRegexOptions::strip
  Flags flags_;
  std::vector<Flags> scopes_;            // the flags outside each open group
  std::vector<std::size_t> open_;        // where each open group starts
  std::vector<std::size_t> open_out_;    // where each open group starts in out_
  std::vector<std::string_view> names_;  // the capture group names seen
  std::size_t atom_start_ = 0;           // where the last atom (or group) starts in out_
  bool quantified_ = false;              // a quantifier follows that atom
  std::size_t atom_size_ = 0;            // the length of that atom, before its repetition
  Repeat repeat_ = Repeat::kOther;       // the atom's repetition (when quantified_)
  bool atom_nullable_ = false;           // that atom may match the empty string
  bool assertion_ = false;               // that atom is an assertion
  // There is an atom a quantifier can repeat: not at the start of the pattern, of a group or of an
  // alternative, nor right after a flag group such as (?i) (Rust: "repetition operator missing
  // expression"; PCRE2 would read `(*FAIL)` as a verb).
  bool repeatable_ = false;
  // The pattern holds what PCRE2 with UTF reads otherwise than Rust even after rust_syntax.hpp's
  // rewrites (see rust_to_bytes' `differs`).
  bool differs_ = false;
  // The HIR of each open group (the pattern's at the bottom).
  std::vector<HirFrame> hir_{HirFrame{}};
  HirSummary hir_result_ = hir_unknown();

 public:
  bool differs() const { return differs_; }
  // The pattern's HIR, after run() parsed it (else hir_unknown()).
  const HirSummary& hir() const { return hir_result_; }

 private:
  std::size_t pos_ = 0;
  std::string out_;
  std::size_t error_at_ = 0;
  std::string why_;
  static constexpr std::size_t kMaxExactRanges = 64;
};

}  // namespace

void utf8_sequences(std::uint32_t lo, std::uint32_t hi, std::vector<Seq>& out) {
  std::vector<Range> stack{{lo, hi}};
  constexpr std::array<std::uint32_t, 3> kMaxScalar = {0x7F, 0x7FF, 0xFFFF};
  while (!stack.empty()) {
    Range r = stack.back();
    stack.pop_back();
    for (;;) {
      if (r.first < 0xE000 && r.second > 0xD7FF) {  // around the surrogates
        stack.emplace_back(0xE000, r.second);
        r.second = 0xD7FF;
        continue;
      }
      if (r.first > r.second) break;
      bool split = false;
      for (std::uint32_t max : kMaxScalar) {
        if (r.first <= max && max < r.second) {
          stack.emplace_back(max + 1, r.second);
          r.second = max;
          split = true;
          break;
        }
      }
      if (split) continue;
      if (r.second <= 0x7F) {
        out.push_back(
            Seq{{static_cast<std::uint8_t>(r.first), static_cast<std::uint8_t>(r.second)}});
        break;
      }
      for (std::uint32_t i = 1; i < 4 && !split; ++i) {
        const std::uint32_t m = (std::uint32_t{1} << (6 * i)) - 1;
        if ((r.first & ~m) != (r.second & ~m)) {
          if ((r.first & m) != 0) {
            stack.emplace_back((r.first | m) + 1, r.second);
            r.second = r.first | m;
            split = true;
          } else if ((r.second & m) != m) {
            stack.emplace_back(r.second & ~m, r.second);
            r.second = (r.second & ~m) - 1;
            split = true;
          }
        }
      }
      if (split) continue;
      const std::string a = utf8_of(r.first), b = utf8_of(r.second);
      Seq seq;
      for (std::size_t k = 0; k < a.size(); ++k) {
        seq.emplace_back(static_cast<std::uint8_t>(a[k]), static_cast<std::uint8_t>(b[k]));
      }
      out.push_back(std::move(seq));
      break;
    }
  }
}

bool disables_unicode(std::string_view regex) {
  for (std::size_t at = regex.find("(?"); at != std::string_view::npos;
       at = regex.find("(?", at + 2)) {
    bool negation = false;
    for (std::size_t j = at + 2; j < regex.size(); ++j) {
      const char c = regex[j];
      if (c == '-') {
        negation = true;
      } else if (c == 'u' && negation) {
        return true;
      } else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
        break;
      }
    }
  }
  return false;
}

Result<std::string> rust_to_bytes(std::string_view regex, const ByteRegexOptions& options,
                                  RustFacts* facts) {
  Translator t(regex, options);
  auto out = t.run();
  if (facts != nullptr) {
    facts->differs = t.differs();
    facts->hir = t.hir();
  }
  return out;
}

}  // namespace ctx::engine::detail
