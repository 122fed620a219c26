// libFuzzer target for ctx::walker::Glob: compiles the first line of the input as a pattern in
// all four modes (pathname or not, case folding or not) and matches every other line. It traps
// when a short pattern and text disagree with a reference wildmatch written here (a recursive,
// memoized backtracking interpreter of git's wildmatch.c semantics with ctxsearch's documented
// deviation: an unclosed '[' is a literal '['), or when a shape fast path contradicts itself.
// Hangs and superlinear time show up as libFuzzer timeouts: each pattern is also run on a text
// stretched to 4 KiB.
// The reference folds as ctxsearch does (every letter), not as git's core.ignorecase.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/walker/glob.hpp"

namespace {

using ctx::walker::Glob;
using ctx::walker::GlobOptions;

constexpr std::size_t kMaxReferencePattern = 24;
constexpr std::size_t kMaxReferenceText = 48;
constexpr std::size_t kMaxStretchPattern = 64;
constexpr std::size_t kStretchBytes = 4 << 10;

bool is_upper(int c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(int c) { return c >= 'a' && c <= 'z'; }
int to_lower(int c) { return is_upper(c) ? c + ('a' - 'A') : c; }
int to_upper(int c) { return is_lower(c) ? c - ('a' - 'A') : c; }

// How the reference treats the corners where ctxsearch and git may part.
struct Flavor {
  bool git_case = true;   // folding compares escaped bytes and single class members unfolded
  bool git_space = true;  // [:space:] is " \t\n\r" (git's ctype.c), not isspace()
};

// Membership of `c` in POSIX class `name`; `known` is false for a bogus name.
bool posix_class(std::string_view name, int c, bool fold, Flavor flavor, bool& known) {
  known = true;
  const bool alpha = is_upper(c) || is_lower(c);
  const bool digit = c >= '0' && c <= '9';
  const bool print = c >= 0x20 && c <= 0x7e;
  if (name == "alnum") return alpha || digit;
  if (name == "alpha") return alpha;
  if (name == "blank") return c == ' ' || c == '\t';
  if (name == "cntrl") return c < 0x20 || c == 0x7f;
  if (name == "digit") return digit;
  if (name == "graph") return print && c != ' ';
  if (name == "lower") return is_lower(c);
  if (name == "print") return print;
  if (name == "punct") return print && c != ' ' && !alpha && !digit;
  if (name == "space") {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
           (!flavor.git_space && (c == '\v' || c == '\f'));
  }
  if (name == "upper") return is_upper(c) || (fold && is_lower(c));
  if (name == "xdigit") return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  known = false;
  return false;
}

// wildmatch(pattern, text) read straight off the pattern, one memo bit per (pattern, text) index
// pair. Same answers as git's dowild() for NUL-free input, save the unclosed '['.
class ReferenceMatcher {
 public:
  ReferenceMatcher(std::string_view pattern, std::string_view text, GlobOptions options,
                   Flavor flavor)
      : pattern_(pattern),
        text_(text),
        pathname_(options.pathname),
        fold_(options.case_insensitive),
        flavor_(flavor),
        memo_((pattern.size() + 1) * (text.size() + 1), -1) {}

  bool matches() { return match_at(0, 0); }

 private:
  enum class Bracket : std::uint8_t { kOk, kUnclosed, kBogus };

  std::string_view pattern_;
  std::string_view text_;
  bool pathname_;
  bool fold_;
  Flavor flavor_;
  std::vector<std::int8_t> memo_;

  int pattern_byte(std::size_t i) const { return static_cast<unsigned char>(pattern_[i]); }
  // The text byte as git compares it: lowered under folding.
  int text_byte(std::size_t i) const {
    int c = static_cast<unsigned char>(text_[i]);
    return fold_ ? to_lower(c) : c;
  }
  // A pattern byte compared as is by git (escaped bytes, single class members); ctxsearch folds.
  int raw_member(int c) const { return fold_ && !flavor_.git_case ? to_lower(c) : c; }

  // Parses the bracket expression at pattern_[at] and tests the (folded) byte `c`. On kOk `end`
  // is the index of the closing ']' and `hit` the verdict.
  Bracket bracket(std::size_t at, int c, bool& hit, std::size_t& end) const {
    const std::size_t n = pattern_.size();
    std::size_t j = at + 1;
    bool negated = false;
    if (j < n && (pattern_[j] == '!' || pattern_[j] == '^')) {
      negated = true;
      ++j;
    }
    bool matched = false;
    int prev = -1;  // the previous single member, a range's low end
    for (bool first = true;; first = false) {
      if (j >= n) return Bracket::kUnclosed;
      int pc = pattern_byte(j);
      if (pc == ']' && !first) break;
      if (pc == '\\') {
        if (++j >= n) return Bracket::kUnclosed;
        pc = pattern_byte(j);
        if (c == raw_member(pc)) matched = true;
        prev = pc;
        ++j;
      } else if (pc == '-' && prev >= 0 && j + 1 < n && pattern_[j + 1] != ']') {
        int hi = pattern_byte(++j);
        if (hi == '\\') {
          if (++j >= n) return Bracket::kUnclosed;
          hi = pattern_byte(j);
        }
        if (c >= prev && c <= hi) matched = true;
        if (fold_ && is_lower(c) && to_upper(c) >= prev && to_upper(c) <= hi) matched = true;
        prev = -1;
        ++j;
      } else if (pc == '[' && j + 1 < n && pattern_[j + 1] == ':') {
        const std::size_t name = j + 2;
        std::size_t close = name;
        while (close < n && pattern_[close] != ']') ++close;
        if (close >= n) return Bracket::kUnclosed;
        if (close > name && pattern_[close - 1] == ':') {
          bool known = false;
          if (posix_class(pattern_.substr(name, close - 1 - name), c, fold_, flavor_, known)) {
            matched = true;
          }
          if (!known) return Bracket::kBogus;
          prev = -1;
          j = close + 1;
        } else {  // "[:" without ":]": the '[' is a plain member
          if (c == '[') matched = true;
          prev = '[';
          ++j;
        }
      } else {
        if (c == raw_member(pc)) matched = true;
        prev = pc;
        ++j;
      }
    }
    end = j;
    hit = matched != negated && !(pathname_ && c == '/');
    return Bracket::kOk;
  }

  bool match_at(std::size_t pi, std::size_t ti) {
    std::int8_t& slot = memo_[pi * (text_.size() + 1) + ti];
    if (slot < 0) slot = step(pi, ti) ? 1 : 0;
    return slot != 0;
  }

  bool step(std::size_t pi, std::size_t ti) {
    const std::size_t n = pattern_.size();
    const std::size_t tn = text_.size();
    if (pi == n) return ti == tn;
    const int pc = pattern_byte(pi);
    if (pc == '*') {
      std::size_t after = pi;
      while (after < n && pattern_[after] == '*') ++after;
      bool crosses_slash = !pathname_;
      if (pathname_ && after - pi >= 2 && (pi == 0 || pattern_[pi - 1] == '/') &&
          (after == n || pattern_[after] == '/' ||
           (pattern_[after] == '\\' && after + 1 < n && pattern_[after + 1] == '/'))) {
        crosses_slash = true;
        // `**/` may also match no directory at all.
        if (after < n && pattern_[after] == '/' && match_at(after + 1, ti)) return true;
      }
      for (std::size_t k = ti;; ++k) {
        if (match_at(after, k)) return true;
        if (k == tn || (!crosses_slash && text_[k] == '/')) return false;
      }
    }
    if (ti == tn) return false;  // everything else consumes a byte
    const int c = text_byte(ti);
    switch (pc) {
      case '\\':
        // A trailing lone backslash matches nothing.
        return pi + 1 < n && c == raw_member(pattern_byte(pi + 1)) && match_at(pi + 2, ti + 1);
      case '?':
        return !(pathname_ && c == '/') && match_at(pi + 1, ti + 1);
      case '[': {
        bool hit = false;
        std::size_t end = 0;
        switch (bracket(pi, c, hit, end)) {
          case Bracket::kBogus:
            return false;
          case Bracket::kUnclosed:  // ripgrep: a literal '['
            return c == '[' && match_at(pi + 1, ti + 1);
          case Bracket::kOk:
            return hit && match_at(end + 1, ti + 1);
        }
        return false;
      }
      default:
        return c == (fold_ ? to_lower(pc) : pc) && match_at(pi + 1, ti + 1);
    }
  }
};

bool reference(std::string_view pattern, std::string_view text, GlobOptions options,
               Flavor flavor = {}) {
  return ReferenceMatcher(pattern, text, options, flavor).matches();
}

// ctxsearch's flavour of git's semantics: every letter folds under case folding (git leaves
// escaped bytes and single bracket members unfolded; see kFoldDeviations in glob_test.cpp).
constexpr Flavor kCtxFlavor{.git_case = false, .git_space = true};

std::vector<std::string_view> split_lines(std::string_view input) {
  std::vector<std::string_view> parts;
  while (true) {
    std::size_t nl = input.find('\n');
    parts.push_back(input.substr(0, nl));
    if (nl == std::string_view::npos) break;
    input.remove_prefix(nl + 1);
  }
  return parts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> lines = split_lines(input);
  const std::string_view pattern = lines[0];
  lines.erase(lines.begin());
  if (lines.size() > 8) lines.resize(8);

  for (int mode = 0; mode < 4; ++mode) {
    const GlobOptions options{.pathname = (mode & 1) == 0, .case_insensitive = (mode & 2) != 0};
    const Glob glob = Glob::compile(pattern, options);

    // The shape facts must agree with matching.
    switch (glob.shape()) {
      case Glob::Shape::kLiteral:
      case Glob::Shape::kStarSuffix:
        if (!glob.matches(glob.literal())) __builtin_trap();
        break;
      case Glob::Shape::kNever:
        if (glob.matches(pattern)) __builtin_trap();
        break;
      case Glob::Shape::kGeneral:
        break;
    }

    for (std::string_view text : lines) {
      const bool got = glob.matches(text);
      if (pattern.size() <= kMaxReferencePattern && text.size() <= kMaxReferenceText &&
          got != reference(pattern, text, options, kCtxFlavor)) {
        __builtin_trap();
      }
    }

    // No blow-up: a long text built from the input must not take long (libFuzzer -timeout).
    // One mode per input keeps the fuzzer fast.
    if (mode == static_cast<int>(size % 4) && pattern.size() <= kMaxStretchPattern &&
        !lines.empty() && !lines[0].empty()) {
      std::string stretched;
      stretched.reserve(kStretchBytes + lines[0].size());
      while (stretched.size() < kStretchBytes) stretched += lines[0];
      static_cast<void>(glob.matches(stretched));
    }
  }
  return 0;
}
