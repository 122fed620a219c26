#include "ctx/engine/pattern_set.hpp"

#include <fmt/format.h>
#include <hs/hs.h>

#include <algorithm>
#include <cstring>

#include "byte_prefilter.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace ctx::engine {
namespace {

constexpr std::uint32_t kMatchLimit = 50'000'000;  // PCRE2 backtracking steps per match attempt
constexpr std::uint32_t kDepthLimit = 1'000'000;
constexpr std::size_t kJitStackMax = std::size_t{8} << 20;

using HsDatabase = std::unique_ptr<hs_database_t, decltype(&hs_free_database)>;
using HsScratchPtr = std::unique_ptr<hs_scratch_t, decltype(&hs_free_scratch)>;
using Pcre2Code = std::unique_ptr<pcre2_code, decltype(&pcre2_code_free)>;

bool is_regex_meta(char c) { return std::strchr(".^$|?*+()[]{}\\", c) != nullptr && c != '\0'; }

bool is_valid_utf8(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    // Skip ASCII eight bytes at a time.
    while (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if ((w & 0x8080808080808080ULL) != 0) break;
      i += 8;
    }
    if (i >= n) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (len == 0 || c > 0xF4 || i + len > n) return false;
    auto b1 = static_cast<unsigned char>(s[i + 1]);
    if ((b1 & 0xC0) != 0x80) return false;
    if ((c == 0xE0 && b1 < 0xA0) || (c == 0xED && b1 > 0x9F) || (c == 0xF0 && b1 < 0x90) ||
        (c == 0xF4 && b1 > 0x8F)) {
      return false;  // overlong, surrogate or past U+10FFFF
    }
    for (std::size_t k = 2; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += len;
  }
  return true;
}

// True when the UTF-8 character at s[i] (of `len` bytes) is an uppercase letter (\p{Lu}).
bool is_upper_char(std::string_view s, std::size_t i, std::size_t len) {
  if (len == 1) return s[i] >= 'A' && s[i] <= 'Z';
  static const pcre2_code* upper = [] {
    int error = 0;
    PCRE2_SIZE offset = 0;
    return pcre2_compile(reinterpret_cast<PCRE2_SPTR>("^\\p{Lu}$"), PCRE2_ZERO_TERMINATED,
                         PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &error, &offset, nullptr);
  }();
  if (upper == nullptr) return false;
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(upper, nullptr);
  int rc = pcre2_match(upper, reinterpret_cast<PCRE2_SPTR>(s.data() + i), len, 0, 0, md, nullptr);
  pcre2_match_data_free(md);
  return rc >= 0;
}

std::size_t utf8_length(unsigned char c) {
  return c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

// Smart case (-S), as ripgrep: does the pattern hold an uppercase *literal* character? Escapes
// (\W, \p{Greek}, \x{..}) and group names are not literals; under -F everything is.
bool has_uppercase(std::string_view s, bool literal) {
  for (std::size_t i = 0; i < s.size();) {
    if (!literal && s[i] == '\\') {
      i += 2;
      if (i < s.size() && s[i] == '{') {
        std::size_t close = s.find('}', i);
        i = close == std::string_view::npos ? s.size() : close + 1;
      }
      continue;
    }
    const bool named_group =
        s.substr(i, 4) == "(?P<" ||
        (s.substr(i, 3) == "(?<" && i + 3 < s.size() && s[i + 3] != '=' && s[i + 3] != '!');
    if (!literal && named_group) {  // skip the group's name
      std::size_t close = s.find('>', i);
      i = close == std::string_view::npos ? s.size() : close + 1;
      continue;
    }
    if (i >= s.size()) break;
    std::size_t len = std::min(utf8_length(static_cast<unsigned char>(s[i])), s.size() - i);
    if (is_upper_char(s, i, len)) return true;
    i += len;
  }
  return false;
}

bool is_literal(std::string_view p) {
  for (char c : p) {
    if (is_regex_meta(c)) return false;
  }
  return true;
}

bool is_ascii(std::string_view p) {
  for (char c : p) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// Escapes every ASCII punctuation byte, which PCRE2 and Hyperscan both read as a literal then.
std::string escape_literal(std::string_view p) {
  std::string out;
  out.reserve(p.size() * 2);
  for (char c : p) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && !std::isalnum(u) && c != ' ') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string pcre2_error_text(int code) {
  PCRE2_UCHAR buf[256];
  pcre2_get_error_message(code, buf, sizeof buf);
  return reinterpret_cast<const char*>(buf);
}

Result<Pcre2Code> compile_pcre2(const std::string& regex, std::uint32_t flags,
                                std::string_view shown) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(regex.data()), regex.size(), flags,
                                   &error, &offset, nullptr);
  if (code == nullptr) {
    return Error{ErrorCode::kInvalidArgument,
                 fmt::format("regex parse error in '{}' at offset {}: {}", shown, offset,
                             pcre2_error_text(error))};
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // without JIT (unsupported CPU) it still works
  return Pcre2Code(code, &pcre2_code_free);
}

// Hyperscan folds case in ASCII only, but Unicode simple case folding (PCRE2 with UCP, ripgrep)
// also maps k to U+212A KELVIN SIGN and s to U+017F LATIN SMALL LETTER LONG S. This adds those
// to every k/K/s/S literal of a Hyperscan expression (outside escapes and group syntax), making a
// superset that PCRE2 then confirms. `utf8`: the expression is compiled with HS_FLAG_UTF8 (code
// points) rather than as bytes. `changed` tells whether anything was added.
std::string add_unicode_case_folds(std::string_view re, bool utf8, bool& changed) {
  auto extra = [utf8](char c) -> std::string_view {
    bool k = c == 'k' || c == 'K';
    if (utf8) return k ? "\\x{212A}" : "\\x{17F}";
    return k ? "\\xE2\\x84\\xAA" : "\\xC5\\xBF";
  };
  auto is_ks = [](char c) { return c == 'k' || c == 'K' || c == 's' || c == 'S'; };
  std::string out;
  out.reserve(re.size() + 16);
  for (std::size_t i = 0; i < re.size(); ++i) {
    char c = re[i];
    if (c == '\\') {  // an escape, with its {...} argument if any (\x{..}, \p{..})
      std::size_t end = std::min(i + 2, re.size());
      if (end < re.size() && re[end] == '{') {
        std::size_t close = re.find('}', end);
        end = close == std::string_view::npos ? re.size() : close + 1;
      }
      out.append(re.substr(i, end - i));
      i = end - 1;
    } else if (c == '(' && i + 1 < re.size() && re[i + 1] == '?') {  // (?i) (?P<name> (?:
      std::size_t end = re.find_first_of(":)>", i + 2);
      end = end == std::string_view::npos ? re.size() : end + 1;
      out.append(re.substr(i, end - i));
      i = end - 1;
    } else if (c == '[') {  // a class: positive ones gain the extra letters as alternatives
      std::size_t j = i + 1;
      bool negated = j < re.size() && re[j] == '^';
      if (negated) ++j;
      if (j < re.size() && re[j] == ']') ++j;
      std::string extras;
      for (; j < re.size() && re[j] != ']'; ++j) {
        if (re[j] == '\\') {
          ++j;
          continue;
        }
        if (re[j] == '[' && j + 1 < re.size() && re[j + 1] == ':') {
          std::size_t close = re.find(":]", j + 2);
          if (close != std::string_view::npos) j = close + 1;
          continue;
        }
        if (is_ks(re[j]) && !negated && extras.find(extra(re[j])) == std::string::npos) {
          extras += "|";
          extras += extra(re[j]);
        }
      }
      std::string_view klass = re.substr(i, std::min(j + 1, re.size()) - i);
      if (extras.empty()) {
        out.append(klass);
      } else {
        changed = true;
        out += "(?:";
        out.append(klass);
        out += extras;
        out += ")";
      }
      i = std::min(j, re.size() - 1);
    } else if (is_ks(c)) {
      changed = true;
      out += "(?:";
      out.push_back(c);
      out += "|";
      out += extra(c);
      out += ")";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

struct PatternSet::Impl {
  PatternOptions options;
  bool caseless = false;
  bool exact = false;  // Hyperscan's verdict is final for a line
  HsDatabase hs{nullptr, &hs_free_database};
  HsScratchPtr hs_proto{nullptr, &hs_free_scratch};
  Pcre2Code line_re{nullptr, &pcre2_code_free};  // all patterns, for one line at a time
  Pcre2Code scan_re{nullptr, &pcre2_code_free};  // multiline, for whole buffers without Hyperscan
  bool hs_utf8 = false;  // some Hyperscan expression is UTF-8: invalid UTF-8 input must avoid it
};

struct PatternSet::Scratch::Impl {
  // The haystack last seen by find_line and whether Hyperscan may scan it (valid UTF-8, or no
  // UTF-8 expression). A new haystack at the same address must be announced: see find_line.
  const char* hay_data = nullptr;
  std::size_t hay_size = 0;
  bool hs_ok = true;
  hs_scratch_t* hs = nullptr;
  pcre2_match_data* md = nullptr;
  pcre2_match_context* mctx = nullptr;
  pcre2_jit_stack* jit_stack = nullptr;
  ~Impl() {
    if (hs != nullptr) hs_free_scratch(hs);
    if (md != nullptr) pcre2_match_data_free(md);
    if (mctx != nullptr) pcre2_match_context_free(mctx);
    if (jit_stack != nullptr) pcre2_jit_stack_free(jit_stack);
  }
};

PatternSet::PatternSet(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PatternSet::PatternSet(PatternSet&&) noexcept = default;
PatternSet& PatternSet::operator=(PatternSet&&) noexcept = default;
PatternSet::~PatternSet() = default;
PatternSet::Scratch::Scratch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PatternSet::Scratch::Scratch(Scratch&&) noexcept = default;
PatternSet::Scratch::~Scratch() = default;

bool PatternSet::hyperscan_exact() const { return impl_->exact; }

Result<PatternSet> PatternSet::compile(const std::vector<std::string>& patterns,
                                       const PatternOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->caseless = options.case_insensitive;
  if (options.smart_case && !options.case_insensitive) {
    bool upper = false;
    for (const std::string& p : patterns) upper = upper || has_uppercase(p, options.fixed_strings);
    impl->caseless = !upper;
  }

  // The regex of each pattern, validated alone so errors point into what the user typed.
  const std::uint32_t pcre_flags =
      PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | (impl->caseless ? PCRE2_CASELESS : 0U);
  std::vector<std::string> regexes;
  bool all_literal = true;
  bool any_empty = false;
  for (const std::string& p : patterns) {
    std::string regex = options.fixed_strings ? escape_literal(p) : p;
    CTX_TRY_ASSIGN(Pcre2Code alone, compile_pcre2(regex, pcre_flags, p));
    std::uint32_t min_length = 0;
    pcre2_pattern_info(alone.get(), PCRE2_INFO_MINLENGTH, &min_length);
    any_empty = any_empty || min_length == 0;
    all_literal = all_literal && (options.fixed_strings || is_literal(p)) && !p.empty() &&
                  p.find('\n') == std::string::npos && (!impl->caseless || is_ascii(p));
    regexes.push_back(std::move(regex));
  }
  if (patterns.empty()) regexes.emplace_back("(*FAIL)");

  std::string alternation;
  for (std::size_t i = 0; i < regexes.size(); ++i) {
    if (i > 0) alternation += '|';
    alternation += "(?:" + regexes[i] + ")";
  }
  std::string line_regex = "(?:" + alternation + ")";
  if (options.word) line_regex = "(?<!\\w)" + line_regex + "(?!\\w)";
  if (options.line) line_regex = "^" + line_regex + "$";
  CTX_TRY_ASSIGN(impl->line_re, compile_pcre2(line_regex, pcre_flags, line_regex));

  // Hyperscan for everything it accepts; the rest of the set runs on PCRE2 alone.
  bool use_hs = !options.pcre2 && !any_empty && !patterns.empty();
  if (use_hs) {
    std::vector<const char*> exprs;
    std::vector<unsigned> flags, ids;
    std::vector<std::string> hs_patterns;
    for (std::size_t i = 0; i < regexes.size(); ++i) {
      std::string hs_regex = options.line ? "^(?:" + regexes[i] + ")$" : regexes[i];
      hs_patterns.push_back(std::move(hs_regex));
    }
    for (std::size_t i = 0; i < hs_patterns.size(); ++i) {
      unsigned f = HS_FLAG_MULTILINE;
      if (impl->caseless) f |= HS_FLAG_CASELESS;
      // A regex runs on Hyperscan as its byte-mode superset (byte_prefilter.hpp: compiles in
      // milliseconds where UCP classes take seconds, and scans invalid UTF-8 too); PCRE2
      // confirms. What the rewriter does not model runs as UTF-8 with UCP (haystacks that are
      // not valid UTF-8 then go to PCRE2: see find_line).
      if (!options.fixed_strings && !is_literal(regexes[i])) {
        if (auto bytes = detail::byte_prefilter(hs_patterns[i], impl->caseless)) {
          hs_patterns[i] = std::move(*bytes);
          all_literal = false;
          flags.push_back(f);
          ids.push_back(static_cast<unsigned>(i));
          continue;
        }
      }
      const bool utf8 = !is_ascii(hs_patterns[i]) || !is_literal(hs_patterns[i]);
      if (utf8) {
        f |= HS_FLAG_UTF8 | HS_FLAG_UCP;
        impl->hs_utf8 = true;
      }
      if (impl->caseless || hs_patterns[i].find("(?i") != std::string::npos) {
        bool changed = false;
        hs_patterns[i] = add_unicode_case_folds(hs_patterns[i], utf8, changed);
        if (changed) all_literal = false;  // a superset now: PCRE2 confirms
      }
      flags.push_back(f);
      ids.push_back(static_cast<unsigned>(i));
    }
    for (const std::string& p : hs_patterns) exprs.push_back(p.c_str());
    hs_database_t* db = nullptr;
    hs_compile_error_t* err = nullptr;
    auto try_compile = [&] {
      bool ok = hs_compile_multi(exprs.data(), flags.data(), ids.data(),
                                 static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK, nullptr, &db,
                                 &err) == HS_SUCCESS;
      if (!ok) hs_free_compile_error(err);
      return ok;
    };
    bool compiled = try_compile();
    if (!compiled) {
      // Prefilter mode accepts what exact mode cannot (e.g. \b under UCP, back-references) and
      // never drops a true match; PCRE2 confirms every candidate line, as for any regex.
      for (unsigned& f : flags) f |= HS_FLAG_PREFILTER;
      all_literal = false;
      compiled = try_compile();
    }
    if (compiled) {
      impl->hs.reset(db);
      hs_scratch_t* proto = nullptr;
      if (hs_alloc_scratch(db, &proto) != HS_SUCCESS) {
        return Error{ErrorCode::kIo, "could not allocate Hyperscan scratch space"};
      }
      impl->hs_proto.reset(proto);
    }  // else unsupported by Hyperscan even as a prefilter: PCRE2 scans alone
  }
  impl->exact = impl->hs != nullptr && all_literal && !options.word;
  {  // PCRE2 over whole buffers: when Hyperscan is not used, or cannot read a haystack
    std::string scan_regex = options.line ? "^(?:" + alternation + ")$" : alternation;
    if (options.word) scan_regex = "(?<!\\w)(?:" + scan_regex + ")(?!\\w)";
    CTX_TRY_ASSIGN(impl->scan_re,
                   compile_pcre2(scan_regex, pcre_flags | PCRE2_MULTILINE, scan_regex));
  }
  return PatternSet(std::move(impl));
}

PatternSet::Scratch PatternSet::make_scratch() const {
  auto s = std::make_unique<Scratch::Impl>();
  if (impl_->hs_proto != nullptr) hs_clone_scratch(impl_->hs_proto.get(), &s->hs);
  s->md = pcre2_match_data_create(16, nullptr);
  s->mctx = pcre2_match_context_create(nullptr);
  pcre2_set_match_limit(s->mctx, kMatchLimit);
  pcre2_set_depth_limit(s->mctx, kDepthLimit);
  s->jit_stack = pcre2_jit_stack_create(32 << 10, kJitStackMax, nullptr);
  pcre2_jit_stack_assign(s->mctx, nullptr, s->jit_stack);
  return Scratch(std::move(s));
}

namespace {

LineSpan line_around(std::string_view hay, std::size_t pos, std::size_t floor) {
  std::size_t start = pos;
  while (start > floor && hay[start - 1] != '\n') --start;
  const void* nl = std::memchr(hay.data() + pos, '\n', hay.size() - pos);
  std::size_t end = nl == nullptr
                        ? hay.size()
                        : static_cast<std::size_t>(static_cast<const char*>(nl) - hay.data());
  return LineSpan{start, end};
}

// Runs `code` on `subject` from `offset`; 1 match, 0 none, or a limit error.
Result<bool> run_pcre2(const pcre2_code* code, std::string_view subject, std::size_t offset,
                       pcre2_match_data* md, pcre2_match_context* mctx) {
  int rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), offset,
                       0, md, mctx);
  if (rc >= 0) return true;
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  return Error{ErrorCode::kIo, fmt::format("regex engine limit hit ({}); the file was searched "
                                           "only partly: simplify the pattern",
                                           pcre2_error_text(rc))};
}

struct ScanContext {
  const pcre2_code* line_re;
  bool exact;
  std::string_view hay;
  std::size_t base;
  std::size_t rejected_until;  // candidates ending before this were already confirmed absent
  std::optional<LineSpan> found;
  std::optional<Error> error;
  pcre2_match_data* md;
  pcre2_match_context* mctx;
};

int on_hs_match(unsigned /*id*/, unsigned long long /*from*/, unsigned long long to,
                unsigned /*flags*/, void* raw) {
  auto* ctx = static_cast<ScanContext*>(raw);
  std::size_t end = ctx->base + static_cast<std::size_t>(to);
  std::size_t pos = end > ctx->base ? end - 1 : end;  // the match's last byte
  if (pos < ctx->rejected_until) return 0;
  if (pos >= ctx->hay.size()) pos = ctx->hay.size() - (ctx->hay.empty() ? 0 : 1);
  LineSpan line = line_around(ctx->hay, pos, ctx->base);
  if (ctx->exact) {
    ctx->found = line;
    return 1;
  }
  auto ok = run_pcre2(ctx->line_re, ctx->hay.substr(line.start, line.end - line.start), 0, ctx->md,
                      ctx->mctx);
  if (!ok.ok()) {
    ctx->error = std::move(ok).error();
    return 1;
  }
  if (*ok) {
    ctx->found = line;
    return 1;
  }
  ctx->rejected_until = line.end + 1;
  return 0;
}

}  // namespace

Result<std::optional<LineSpan>> PatternSet::find_line(std::string_view hay, std::size_t from,
                                                      Scratch& scratch) const {
  Scratch::Impl& s = *scratch.impl_;
  if (from > hay.size()) return std::optional<LineSpan>{};
  if (impl_->hs_utf8 && (s.hay_data != hay.data() || s.hay_size != hay.size() || from == 0)) {
    s.hay_data = hay.data();
    s.hay_size = hay.size();
    s.hs_ok = is_valid_utf8(hay);  // Hyperscan's UTF-8 mode is undefined on invalid input
  }
  if (impl_->hs != nullptr && (!impl_->hs_utf8 || s.hs_ok)) {
    ScanContext ctx{impl_->line_re.get(), impl_->exact, hay,  from,  from,
                    std::nullopt,         std::nullopt, s.md, s.mctx};
    std::string_view rest = hay.substr(from);
    hs_scan(impl_->hs.get(), rest.data(), static_cast<unsigned>(rest.size()), 0, s.hs, on_hs_match,
            &ctx);
    if (ctx.error) return std::move(*ctx.error);
    return ctx.found;
  }
  std::size_t cur = from;
  while (cur <= hay.size()) {
    CTX_TRY_ASSIGN(bool hit, run_pcre2(impl_->scan_re.get(), hay, cur, s.md, s.mctx));
    if (!hit) return std::optional<LineSpan>{};
    std::size_t start = pcre2_get_ovector_pointer(s.md)[0];
    LineSpan line = line_around(hay, std::min(start, hay.size()), cur);
    CTX_TRY_ASSIGN(bool confirmed,
                   run_pcre2(impl_->line_re.get(), hay.substr(line.start, line.end - line.start), 0,
                             s.md, s.mctx));
    if (confirmed) return std::optional<LineSpan>{line};
    cur = line.end + 1;
  }
  return std::optional<LineSpan>{};
}

// Calls on_match(match_data) for each match of line_re in `line`, left to right, as Rust regex
// iterates: an empty match moves on by one byte, and none is reported where a match just ended.
template <typename OnMatch>
Status PatternSet::each_match(std::string_view line, Scratch& scratch, OnMatch&& on_match) const {
  Scratch::Impl& s = *scratch.impl_;
  std::size_t offset = 0;
  std::size_t last_end = std::string_view::npos;  // end of the last non-empty match
  while (offset <= line.size()) {
    CTX_TRY_ASSIGN(bool hit, run_pcre2(impl_->line_re.get(), line, offset, s.md, s.mctx));
    if (!hit) break;
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(s.md);
    if (ov[0] == ov[1] && ov[0] == last_end) {
      offset = ov[0] + 1;
      continue;
    }
    if (ov[1] > ov[0]) last_end = ov[1];
    on_match(s.md);
    offset = ov[1] > ov[0] ? ov[1] : ov[1] + 1;
  }
  return {};
}

Status PatternSet::find_spans(std::string_view line, Scratch& scratch,
                              std::vector<MatchSpan>& out) const {
  return each_match(line, scratch, [&](pcre2_match_data* md) {
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    out.push_back(MatchSpan{ov[0], ov[1]});
  });
}

namespace {

bool is_name_byte(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// Appends capture group `name` (digits: a number) of the current match in `md`, if it took part.
void append_group(std::string& out, const pcre2_code* code, pcre2_match_data* md,
                  std::string_view subject, std::string_view name) {
  int number = -1;
  if (!name.empty() &&
      std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    number = name.size() > 6 ? -1 : std::stoi(std::string(name));
  } else if (!name.empty()) {
    std::string key(name);
    number = pcre2_substring_number_from_name(code, reinterpret_cast<PCRE2_SPTR>(key.c_str()));
  }
  if (number < 0 || static_cast<std::uint32_t>(number) >= pcre2_get_ovector_count(md)) return;
  const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
  PCRE2_SIZE start = ov[2 * number], end = ov[2 * number + 1];
  if (start == PCRE2_UNSET || end < start) return;
  out.append(subject.substr(start, end - start));
}

void expand(std::string& out, std::string_view replacement, const pcre2_code* code,
            pcre2_match_data* md, std::string_view subject) {
  for (std::size_t i = 0; i < replacement.size(); ++i) {
    char c = replacement[i];
    if (c != '$' || i + 1 >= replacement.size()) {
      out.push_back(c);
      continue;
    }
    char next = replacement[i + 1];
    if (next == '$') {
      out.push_back('$');
      ++i;
    } else if (next == '{') {
      std::size_t close = replacement.find('}', i + 2);
      if (close == std::string_view::npos) {
        out.push_back(c);  // no closing brace: a literal '$', as ripgrep
        continue;
      }
      append_group(out, code, md, subject, replacement.substr(i + 2, close - i - 2));
      i = close;
    } else if (is_name_byte(next)) {
      std::size_t end = i + 1;
      while (end < replacement.size() && is_name_byte(replacement[end])) ++end;
      append_group(out, code, md, subject, replacement.substr(i + 1, end - i - 1));
      i = end - 1;
    } else {
      out.push_back(c);
    }
  }
}

}  // namespace

Status PatternSet::expand_matches(std::string_view line, std::string_view replacement,
                                  Scratch& scratch, std::vector<MatchSpan>& spans,
                                  std::vector<std::string>& expansions) const {
  return each_match(line, scratch, [&](pcre2_match_data* md) {
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    spans.push_back(MatchSpan{ov[0], ov[1]});
    expansions.emplace_back();
    expand(expansions.back(), replacement, impl_->line_re.get(), md, line);
  });
}

}  // namespace ctx::engine
