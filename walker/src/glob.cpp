// Glob compilation into a small op list and matching by bit-parallel NFA simulation.
//
// States are op indices; state ops_.size() accepts. `*`, `**` and `**/` are loops with an epsilon
// edge to the next op, so the closure of a state set is one forward pass.

#include "ctx/walker/glob.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

namespace ctx::walker {

enum class OpKind : std::uint8_t {
  kLit,       // one byte
  kAny,       // `?`: one byte, not '/' under pathname
  kClass,     // `[...]`: one byte of a set, never '/' under pathname
  kStar,      // `*`: any run of bytes without '/' under pathname
  kStarStar,  // `**` (or `*` without pathname): any run of bytes
  kDirs,      // `**/` at a component start, entry: epsilon to kDirsLoop and past it ("" matched)
  kDirsLoop,  // its loop: any run of bytes, left only through a '/'
};

namespace {

template <typename Op>
OpKind kind_of(const Op& op) {
  return static_cast<OpKind>(op.kind);
}

unsigned char fold(unsigned char c, bool ci) {
  return ci && c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c - 'A' + 'a') : c;
}

using ByteSet = std::array<std::uint64_t, 4>;

void set_byte(ByteSet& set, unsigned char c) { set[c >> 6] |= std::uint64_t{1} << (c & 63); }
bool has_byte(const std::uint64_t* set, unsigned char c) { return (set[c >> 6] >> (c & 63)) & 1; }

// Adds the members of POSIX class `name` ("alpha", ...); false for an unknown name.
bool add_posix_class(ByteSet& set, std::string_view name) {
  int (*pred)(int) = nullptr;
  if (name == "alnum")
    pred = isalnum;
  else if (name == "alpha")
    pred = isalpha;
  else if (name == "blank")
    pred = isblank;
  else if (name == "cntrl")
    pred = iscntrl;
  else if (name == "digit")
    pred = isdigit;
  else if (name == "graph")
    pred = isgraph;
  else if (name == "lower")
    pred = islower;
  else if (name == "print")
    pred = isprint;
  else if (name == "punct")
    pred = ispunct;
  else if (name == "space")
    pred = [](int c) {
      return c == ' ' || c == '\t' || c == '\n' || c == '\r' ? 1 : 0;
    };  // git's sane_ctype: not \v, \f
  else if (name == "upper")
    pred = isupper;
  else if (name == "xdigit")
    pred = isxdigit;
  if (pred == nullptr) return false;
  for (int c = 0; c < 128; ++c) {
    if (pred(c)) set_byte(set, static_cast<unsigned char>(c));
  }
  return true;
}

// Expands the first top-level `{a,b,...}` group of `glob` recursively into `out`. Backslash
// escapes and `[...]` classes are skipped over. Returns false on an unbalanced brace.
bool expand_first_braces(std::string_view glob, std::vector<std::string>& out, int depth,
                         std::size_t max) {
  if (depth > 32) return false;
  std::size_t open = std::string_view::npos;
  std::vector<std::size_t> commas;
  int level = 0;
  for (std::size_t i = 0; i < glob.size(); ++i) {
    char c = glob[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c == '[') {  // a class: skip to its closing ']' (the first member may be ']')
      std::size_t j = i + 1;
      if (j < glob.size() && (glob[j] == '!' || glob[j] == '^')) ++j;
      if (j < glob.size() && glob[j] == ']') ++j;
      std::size_t close = glob.find(']', j);
      if (close != std::string_view::npos) i = close;
      continue;
    }
    if (c == '{') {
      if (level++ == 0) open = i;
    } else if (c == '}') {
      if (level == 0) return false;
      if (--level == 0) {
        std::string_view head = glob.substr(0, open);
        std::string_view tail = glob.substr(i + 1);
        std::size_t start = open + 1;
        commas.push_back(i);
        for (std::size_t end : commas) {
          std::string alternative(head);
          alternative.append(glob.substr(start, end - start));
          alternative.append(tail);
          if (!expand_first_braces(alternative, out, depth + 1, max)) return false;
          start = end + 1;
        }
        return true;
      }
    } else if (c == ',' && level == 1) {
      commas.push_back(i);
    }
  }
  if (level != 0) return false;
  if (out.size() >= max) return false;
  out.emplace_back(glob);
  return true;
}

enum class ClassParse : std::uint8_t { kOk, kUnclosed, kBogus };

// What the class scans of one glob learned: from which member starts a scan runs to the end
// without a closing ']' (with the previous member a single byte or not, the only state a scan
// carries past its first member). A later scan that reaches such a start ends there: a glob of
// many unclosed '[' (or "[\]" repeated) costs linear time, not quadratic (200 KB: 34 s).
struct ClassScans {
  explicit ClassScans(std::size_t glob_size) : unclosed(glob_size, 0) {}
  std::vector<std::uint8_t> unclosed;  // per byte: 1 (no single byte before), 2 (one): unclosed
  std::vector<std::size_t> starts;     // the current scan's member starts (after its first)
};

// Parses a bracket expression whose '[' is at p[i]. On kOk, `i` is left on the closing ']'.
ClassParse parse_class(std::string_view p, std::size_t& i, ByteSet& set, bool& negated,
                       ClassScans& scans) {
  scans.starts.clear();
  auto unclosed = [&] {
    for (const std::size_t start : scans.starts) {
      scans.unclosed[start / 2] |= static_cast<std::uint8_t>(1U << (start % 2));
    }
    return ClassParse::kUnclosed;
  };
  std::size_t j = i + 1;
  negated = false;
  if (j < p.size() && (p[j] == '!' || p[j] == '^')) {
    negated = true;
    ++j;
  }
  int prev = -1;  // the last single member, for ranges; -1 after a range or a class
  bool first = true;
  for (;; first = false) {
    if (j >= p.size()) return unclosed();
    if (!first) {
      const std::uint8_t state = prev >= 0 ? 2 : 1;
      if ((scans.unclosed[j] & state) != 0) return unclosed();
      scans.starts.push_back(j * 2 + (state - 1U));
    }
    auto c = static_cast<unsigned char>(p[j]);
    if (c == ']' && !first) break;
    if (c == '\\') {
      if (++j >= p.size()) return unclosed();
      c = static_cast<unsigned char>(p[j]);
      set_byte(set, c);
      prev = c;
      ++j;
      continue;
    }
    if (c == '-' && prev >= 0 && j + 1 < p.size() && p[j + 1] != ']') {
      ++j;
      auto hi = static_cast<unsigned char>(p[j]);
      if (hi == '\\') {
        if (++j >= p.size()) return unclosed();
        hi = static_cast<unsigned char>(p[j]);
      }
      for (int x = prev; x <= hi; ++x) set_byte(set, static_cast<unsigned char>(x));
      prev = -1;
      ++j;
      continue;
    }
    if (c == '[' && j + 1 < p.size() && p[j + 1] == ':') {
      std::size_t close = p.find(']', j + 2);
      if (close == std::string_view::npos) return unclosed();
      if (close >= j + 3 && p[close - 1] == ':') {
        if (!add_posix_class(set, p.substr(j + 2, close - j - 3))) return ClassParse::kBogus;
        prev = -1;
        j = close + 1;
        continue;
      }
      // "[:" without ":]" before the next ']': the '[' is an ordinary member.
    }
    set_byte(set, c);
    prev = c;
    ++j;
  }
  i = j;
  return ClassParse::kOk;
}

void close_under_case(ByteSet& set) {
  for (unsigned char c = 'a'; c <= 'z'; ++c) {
    auto up = static_cast<unsigned char>(c - 'a' + 'A');
    if (has_byte(set.data(), c) || has_byte(set.data(), up)) {
      set_byte(set, c);
      set_byte(set, up);
    }
  }
}

}  // namespace

Glob Glob::compile(std::string_view p, GlobOptions options) {
  Glob g;
  g.case_insensitive_ = options.case_insensitive;
  g.pathname_ = options.pathname;
  const bool ci = options.case_insensitive;
  auto make_op = [](OpKind kind, unsigned char byte = 0, std::uint16_t klass = 0) {
    return Op{static_cast<std::uint8_t>(kind), byte, klass};
  };
  auto lit = [&](unsigned char c) { g.ops_.push_back(make_op(OpKind::kLit, fold(c, ci))); };

  const std::size_t first_special = std::min(p.find_first_of("*?[\\"), p.size());
  ClassScans scans(p.find('[') == std::string_view::npos ? 0 : p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    auto c = static_cast<unsigned char>(p[i]);
    switch (c) {
      case '\\':
        if (i + 1 >= p.size()) {  // a trailing lone backslash: git never matches such a pattern
          g.shape_ = Shape::kNever;
          g.ops_.clear();
          return g;
        }
        lit(static_cast<unsigned char>(p[++i]));
        break;
      case '?':
        g.ops_.push_back(make_op(OpKind::kAny));
        break;
      case '*': {
        std::size_t start = i;
        while (i + 1 < p.size() && p[i + 1] == '*') ++i;
        bool double_star = i > start;
        if (!options.pathname) {
          g.ops_.push_back(make_op(OpKind::kStarStar));
          break;
        }
        // git's match_pathname() compares the literal prefix (up to the first `*?[\`) on its own
        // and wildmatches the rest, so a `**` right after that prefix counts as a pattern start.
        bool at_component_start = start == 0 || p[start - 1] == '/' ||
                                  (options.git_prefix_split && start == first_special);
        std::string_view rest = p.substr(i + 1);
        const bool spans_dirs = double_star && at_component_start;
        if (spans_dirs && !rest.empty() && rest[0] == '/') {
          g.ops_.push_back(make_op(OpKind::kDirs));
          g.ops_.push_back(make_op(OpKind::kDirsLoop));
          ++i;  // the '/' belongs to kDirsLoop
        } else if (spans_dirs && (rest.empty() || rest.substr(0, 2) == "\\/")) {
          // A trailing `**` matches everything; before an escaped slash git lets it span
          // directories without the zero-directory shortcut.
          g.ops_.push_back(make_op(OpKind::kStarStar));
        } else {
          g.ops_.push_back(make_op(OpKind::kStar));
        }
        break;
      }
      case '[': {
        ByteSet set{};
        bool negated = false;
        std::size_t j = i;
        switch (parse_class(p, j, set, negated, scans)) {
          case ClassParse::kUnclosed:
            lit('[');  // as current ripgrep: an unclosed class is a literal '['
            break;
          case ClassParse::kBogus:
            g.shape_ = Shape::kNever;
            g.ops_.clear();
            return g;
          case ClassParse::kOk: {
            if (ci) close_under_case(set);
            if (negated) {
              for (auto& w : set) w = ~w;
            }
            if (options.pathname) set['/' >> 6] &= ~(std::uint64_t{1} << ('/' & 63));
            auto index = static_cast<std::uint16_t>(g.classes_.size() / 4);
            g.classes_.insert(g.classes_.end(), set.begin(), set.end());
            g.ops_.push_back(make_op(OpKind::kClass, 0, index));
            i = j;
            break;
          }
        }
        break;
      }
      default:
        lit(c);
    }
  }

  // Shape facts for callers' fast paths.
  bool all_lit = true;
  for (const Op& op : g.ops_) all_lit = all_lit && kind_of(op) == OpKind::kLit;
  bool star_suffix = !g.ops_.empty() && (kind_of(g.ops_[0]) == OpKind::kStar ||
                                         kind_of(g.ops_[0]) == OpKind::kStarStar);
  for (std::size_t k = 1; k < g.ops_.size() && star_suffix; ++k) {
    star_suffix = kind_of(g.ops_[k]) == OpKind::kLit && g.ops_[k].byte != '/';
  }
  if (all_lit) {
    g.shape_ = Shape::kLiteral;
  } else if (star_suffix) {
    g.shape_ = Shape::kStarSuffix;
  }
  std::size_t first = g.shape_ == Shape::kStarSuffix ? 1 : 0;
  if (g.shape_ != Shape::kGeneral) {
    for (std::size_t k = first; k < g.ops_.size(); ++k)
      g.literal_.push_back(static_cast<char>(g.ops_[k].byte));
  }
  if (g.shape_ == Shape::kGeneral) {
    // Literal runs at both ends let most non-matching texts be rejected without the NFA.
    std::size_t head = 0;
    while (head < g.ops_.size() && kind_of(g.ops_[head]) == OpKind::kLit) {
      g.head_.push_back(static_cast<char>(g.ops_[head++].byte));
    }
    std::size_t tail = g.ops_.size();
    for (; tail > head && kind_of(g.ops_[tail - 1]) == OpKind::kLit; --tail) {
      g.tail_.insert(g.tail_.begin(), static_cast<char>(g.ops_[tail - 1].byte));
    }
    // The longest literal run between them (`*.vcproj.*`: ".vcproj."), which every match holds
    // somewhere between its head and tail: a substring search rejects most texts.
    for (std::size_t k = head; k < tail;) {
      std::size_t end = k;
      while (end < tail && kind_of(g.ops_[end]) == OpKind::kLit) ++end;
      if (end - k > g.middle_.size()) {
        g.middle_.clear();
        for (std::size_t i = k; i < end; ++i)
          g.middle_.push_back(static_cast<char>(g.ops_[i].byte));
      }
      k = end + 1;
    }
  }
  if (g.shape_ == Shape::kGeneral) g.build_fixed();
  if (g.classes_.size() / 4 > 0xffff) g.shape_ = Shape::kNever;  // absurdly many classes
  return g;
}

void Glob::build_fixed() {
  std::size_t stars = 0;
  std::size_t star_at = ops_.size();
  for (std::size_t k = 0; k < ops_.size(); ++k) {
    OpKind kind = kind_of(ops_[k]);
    if (kind == OpKind::kStar || kind == OpKind::kStarStar) {
      ++stars;
      star_at = k;
      fixed_star_spans_ = kind == OpKind::kStarStar;
    } else if (kind != OpKind::kLit && kind != OpKind::kAny && kind != OpKind::kClass) {
      return;  // `**/` needs the NFA
    }
  }
  if (stars > 1 || ops_.size() > 0xffff) return;
  // Each set holds the raw bytes c the NFA's step would accept (it tests fold(c)).
  for (std::size_t k = 0; k < ops_.size(); ++k) {
    if (k == star_at) continue;
    const Op& op = ops_[k];
    ByteSet set{};
    for (unsigned c = 0; c < 256; ++c) {
      auto raw = static_cast<unsigned char>(c);
      unsigned char f = fold(raw, case_insensitive_);
      bool accepts = false;
      switch (kind_of(op)) {
        case OpKind::kLit:
          accepts = f == op.byte;
          break;
        case OpKind::kAny:
          accepts = f != '/' || !pathname_;
          break;
        case OpKind::kClass:
          accepts = has_byte(&classes_[std::size_t{op.klass} * 4], f);
          break;
        default:
          break;
      }
      if (accepts) set_byte(set, raw);
    }
    fixed_sets_.insert(fixed_sets_.end(), set.begin(), set.end());
  }
  fixed_head_ = static_cast<std::uint16_t>(star_at == ops_.size() ? ops_.size() : star_at);
  fixed_has_star_ = stars == 1;
  fixed_ = true;
}

namespace {

// The bytes (a 256-bit set) that fold to `byte`, with case folding or without.
std::array<std::uint64_t, 4> bytes_folding_to(unsigned char byte, bool case_insensitive) {
  std::array<std::uint64_t, 4> set{};
  for (unsigned c = 0; c < 256; ++c) {
    if (fold(static_cast<unsigned char>(c), case_insensitive) == byte) {
      set[c / 64] |= std::uint64_t{1} << (c % 64);
    }
  }
  return set;
}

}  // namespace

std::array<std::uint64_t, 4> Glob::last_bytes() const {
  std::array<std::uint64_t, 4> set{};
  auto folding_to = [&](unsigned char byte) { return bytes_folding_to(byte, case_insensitive_); };
  switch (shape_) {
    case Shape::kNever:
      return set;
    case Shape::kLiteral:
    case Shape::kStarSuffix:
      if (!literal_.empty()) return folding_to(static_cast<unsigned char>(literal_.back()));
      if (shape_ == Shape::kLiteral) return set;  // only the empty text
      break;
    case Shape::kGeneral:
      if (fixed_ && !(fixed_has_star_ && std::size_t{fixed_head_} * 4 == fixed_sets_.size())) {
        // The last one-byte op decides the last byte (a star last would leave it free).
        std::copy_n(fixed_sets_.end() - 4, 4, set.begin());
        return set;
      }
      if (!fixed_ && !tail_.empty()) return folding_to(static_cast<unsigned char>(tail_.back()));
      break;
  }
  set.fill(~std::uint64_t{0});
  return set;
}

std::array<std::uint64_t, 4> Glob::first_bytes() const {
  std::array<std::uint64_t, 4> set{};
  auto folding_to = [&](unsigned char byte) { return bytes_folding_to(byte, case_insensitive_); };
  switch (shape_) {
    case Shape::kNever:
      return set;
    case Shape::kLiteral:
      if (!literal_.empty()) return folding_to(static_cast<unsigned char>(literal_[0]));
      return set;  // only the empty text
    case Shape::kStarSuffix:
      break;  // the star may take any first byte
    case Shape::kGeneral:
      if (fixed_ && fixed_head_ > 0) {
        // The first one-byte op decides the first byte (a star first would leave it free).
        std::copy_n(fixed_sets_.begin(), 4, set.begin());
        return set;
      }
      if (!fixed_ && !head_.empty()) return folding_to(static_cast<unsigned char>(head_[0]));
      break;
  }
  set.fill(~std::uint64_t{0});
  return set;
}

bool Glob::matches_fixed(std::string_view text) const {
  const std::size_t n = fixed_sets_.size() / 4;
  const std::uint64_t* sets = fixed_sets_.data();
  auto at = [&](std::size_t op, std::size_t pos) {
    return has_byte(sets + op * 4, static_cast<unsigned char>(text[pos]));
  };
  if (!fixed_has_star_) {
    if (text.size() != n) return false;
    for (std::size_t k = n; k-- > 0;) {  // from the end: names differ most in their extension
      if (!at(k, k)) return false;
    }
    return true;
  }
  if (text.size() < n) return false;
  const std::size_t tail = n - fixed_head_;
  const std::size_t tail_start = text.size() - tail;
  for (std::size_t k = tail; k-- > 0;) {
    if (!at(fixed_head_ + k, tail_start + k)) return false;
  }
  for (std::size_t k = 0; k < fixed_head_; ++k) {
    if (!at(k, k)) return false;
  }
  if (fixed_star_spans_) return true;
  std::string_view run = text.substr(fixed_head_, tail_start - fixed_head_);
  return run.find('/') == std::string_view::npos;
}

bool Glob::matches(std::string_view text) const {
  switch (shape_) {
    case Shape::kNever:
      return false;
    case Shape::kLiteral:
      if (text.size() != literal_.size()) return false;
      if (!case_insensitive_) return text == literal_;
      for (std::size_t i = 0; i < text.size(); ++i) {
        if (fold(static_cast<unsigned char>(text[i]), true) !=
            static_cast<unsigned char>(literal_[i]))
          return false;
      }
      return true;
    case Shape::kStarSuffix: {
      if (text.size() < literal_.size()) return false;
      std::size_t head = text.size() - literal_.size();
      if (kind_of(ops_[0]) == OpKind::kStar &&
          text.substr(0, head).find('/') != std::string_view::npos)
        return false;
      for (std::size_t i = 0; i < literal_.size(); ++i) {
        if (fold(static_cast<unsigned char>(text[head + i]), case_insensitive_) !=
            static_cast<unsigned char>(literal_[i])) {
          return false;
        }
      }
      return true;
    }
    case Shape::kGeneral:
      if (fixed_) return matches_fixed(text);
      break;
  }
  if (text.size() < head_.size() + tail_.size()) return false;
  auto same = [this](std::string_view a, const std::string& lit) {
    for (std::size_t i = 0; i < lit.size(); ++i) {
      if (fold(static_cast<unsigned char>(a[i]), case_insensitive_) !=
          static_cast<unsigned char>(lit[i])) {
        return false;
      }
    }
    return true;
  };
  if (!same(text.substr(0, head_.size()), head_)) return false;
  if (!same(text.substr(text.size() - tail_.size()), tail_)) return false;
  if (!middle_.empty()) {
    std::string_view inner = text.substr(head_.size(), text.size() - head_.size() - tail_.size());
    bool found = false;
    if (!case_insensitive_) {
      found = inner.find(middle_) != std::string_view::npos;
    } else {
      for (std::size_t i = 0; !found && i + middle_.size() <= inner.size(); ++i) {
        found = same(inner.substr(i), middle_);
      }
    }
    if (!found) return false;
  }
  return matches_nfa(text);
}

bool Glob::matches_nfa(std::string_view text) const {
  const std::size_t n = ops_.size();
  const std::size_t words = (n + 1 + 63) / 64;
  // Patterns of up to 255 ops use the stack; longer ones (rare) the heap.
  std::array<std::uint64_t, 8> small_cur{}, small_next{};
  std::vector<std::uint64_t> big_cur, big_next;
  std::uint64_t* cur = small_cur.data();
  std::uint64_t* next = small_next.data();
  if (words > small_cur.size()) {
    big_cur.assign(words, 0);
    big_next.assign(words, 0);
    cur = big_cur.data();
    next = big_next.data();
  }
  auto test = [](const std::uint64_t* s, std::size_t i) { return (s[i >> 6] >> (i & 63)) & 1; };
  auto set = [](std::uint64_t* s, std::size_t i) { s[i >> 6] |= std::uint64_t{1} << (i & 63); };
  auto close = [&](std::uint64_t* s) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!test(s, i)) continue;
      OpKind k = kind_of(ops_[i]);
      if (k == OpKind::kStar || k == OpKind::kStarStar || k == OpKind::kDirs) set(s, i + 1);
      if (k == OpKind::kDirs) set(s, i + 2);
    }
  };
  set(cur, 0);
  close(cur);
  for (char ch : text) {
    auto c = fold(static_cast<unsigned char>(ch), case_insensitive_);
    std::fill(next, next + words, 0);
    bool any = false;
    for (std::size_t w = 0; w < words; ++w) {
      std::uint64_t bits = cur[w];
      while (bits != 0) {
        std::size_t i = w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
        bits &= bits - 1;
        if (i >= n) continue;
        const Op& op = ops_[i];
        switch (kind_of(op)) {
          case OpKind::kLit:
            if (c == op.byte) set(next, i + 1), any = true;
            break;
          case OpKind::kAny:
            if (c != '/' || !pathname_) set(next, i + 1), any = true;
            break;
          case OpKind::kClass:
            if (has_byte(&classes_[std::size_t{op.klass} * 4], c)) set(next, i + 1), any = true;
            break;
          case OpKind::kStar:
            if (c != '/') set(next, i), any = true;
            break;
          case OpKind::kStarStar:
            set(next, i), any = true;
            break;
          case OpKind::kDirs:  // epsilon only; its closure entered the loop and skipped past it
            break;
          case OpKind::kDirsLoop:
            set(next, i), any = true;
            if (c == '/') set(next, i + 1);
            break;
        }
      }
    }
    if (!any) return false;
    close(next);
    std::swap(cur, next);
  }
  return test(cur, n);
}

Result<std::vector<std::string>> expand_braces(std::string_view glob, std::size_t max) {
  std::vector<std::string> out;
  if (!expand_first_braces(glob, out, 0, max)) {
    if (out.size() >= max) {
      return Error{ErrorCode::kInvalidArgument,
                   fmt::format("invalid glob '{}': its {{a,b}} alternatives stand for more than "
                               "{} globs; give fewer",
                               glob, max)};
    }
    return Error{ErrorCode::kInvalidArgument,
                 fmt::format("invalid glob '{}': unbalanced '{{' or '}}' (escape a literal brace "
                             "as \\{{ or \\}})",
                             glob)};
  }
  return out;
}

}  // namespace ctx::walker
