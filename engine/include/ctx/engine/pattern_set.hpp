// The compiled patterns of one search, shared read-only by every thread. Hyperscan scans whole
// buffers for candidate lines (all patterns at once, linear time); PCRE2 (JIT) confirms candidates
// whose pattern Hyperscan cannot decide alone (-w, regexes that could span a line end) and finds
// exact match spans. Patterns Hyperscan rejects (look-around, backreferences, -P) run on PCRE2
// only. In multiline mode (-U) PCRE2 searches whole buffers, behind a Hyperscan prefilter that only
// says whether a buffer can hold a match.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/base/result.hpp"

namespace ctx::engine {

// Whether the required-literal prefilter runs (PatternOptions::required_literals): a literal that
// every match holds, much rarer than the one the regex starts with, is looked for first, and the
// regex runs on the lines holding it only (while they are sparse).
enum class RequiredLiterals : std::uint8_t {
  kAuto,    // where a set of literals of 3+ bytes is much rarer by byte frequencies
  kAlways,  // wherever every pattern has one, however dense (tests compare its results)
  kNever,
};

struct PatternOptions {
  bool fixed_strings = false;     // -F: patterns are literals
  bool case_insensitive = false;  // -i
  bool smart_case = false;        // -S: case-insensitive unless a pattern has an uppercase letter
  bool word = false;              // -w: matches must be surrounded by non-word characters
  bool line = false;              // -x: matches must be whole lines
  bool pcre2 = false;             // -P: PCRE2 syntax (look-around, backreferences)
  // --no-unicode: Rust's Unicode mode off for every pattern, as a leading (?-u) ((?u) turns it
  // back on); with -P, PCRE2 without UTF and UCP (rg's --no-pcre2-unicode).
  bool no_unicode = false;
  // -U: matches may span lines. Without it a pattern holding a literal line feed (`\n`, `\x0a`)
  // is an error, as in ripgrep.
  bool multiline = false;
  bool multiline_dotall = false;  // --multiline-dotall: `.` also matches a line feed under -U
  // --crlf: `$` also matches before a carriage return and `^` after one (never between CR and LF),
  // and `.` matches neither, as ripgrep's CRLF mode. Everything then runs on PCRE2 (newline
  // convention ANYCRLF), without the Hyperscan and BitMatcher prefilters, whose `$` knows only LF.
  bool crlf = false;
  // PCRE2 alone, without the Hyperscan and BitMatcher prefilters: the same matches, slower (the
  // reference that tests of the prefilters compare against).
  bool pcre2_only = false;
  // The caller searches only a few small haystacks (a few small files named on the command
  // line): a set of at most kFewLiterals plain literals then runs on PCRE2 alone, as pcre2_only,
  // whose JIT compile is far cheaper than Hyperscan's (~0.3 ms of a 2.4 ms run).
  bool small_haystacks = false;
  static constexpr std::size_t kFewLiterals = 16;
  // Fewer bytes yet (kTinyHaystackBytes in all): a set of at most kFewLiterals patterns of any
  // kind runs on PCRE2 alone. Hyperscan's compile of a small regex cost 0.6-1.1 ms here:
  // 16 KB of C, `-c '[A-Z]+_SUSPEND'` 3.3 -> 2.1 ms, `foo|bar|baz` 2.8 -> 2.1; at 64 KB PCRE2's
  // backtracking on `(\w+\s*){3}=` took twice Hyperscan's time (at 16 KB 7.0 against 6.2 ms).
  bool tiny_haystacks = false;
  static constexpr std::uint64_t kTinyHaystackBytes = std::uint64_t{16} << 10;
  // ripgrep's own errors: a pattern (not -P, not -F) that Rust's regex-syntax refuses
  // (look-around, \Q..\E, PCRE2's escapes and verbs, ...) is an error naming its offset, as rg's
  // (the CLI). Without it such a pattern is read as PCRE2 reads it (the agent's "Rust/PCRE-like"
  // search_files keeps look-around that way). Either way a pattern Rust accepts means what it
  // means in Rust.
  bool rust_syntax_errors = false;
  // What ends a line: '\n', or '\0' (--null-data). With '\0', as ripgrep's: no match holds a NUL
  // without -U (a literal one is then the error a literal line feed is otherwise), a line feed is
  // an ordinary byte (`\n` matches it; `^` and `$` still match next to it and at the line's ends;
  // `.` never matches it), -U searches in multiline mode when a pattern can match a NUL, and PCRE2
  // confirms each line alone, without the Hyperscan and BitMatcher prefilters (whose lines end at
  // '\n'); PCRE2 over the buffer is the prefilter of patterns without anchors. Any other byte is an
  // error, and so is '\0' with `crlf`.
  char line_terminator = '\n';
  // ripgrep's NUL ban, for its default engine while binary detection is on (the CLI without -a or
  // --null-data): binary detection makes a NUL unmatchable, so a pattern that must match one
  // (`\x00`, `a|\x00?`, `[\x00]`, a NUL byte under -F -i) is the error "pattern contains "\0" but
  // it is impossible to match". As in ripgrep, patterns it takes as plain literals (-F or no meta
  // character, no -i/-S, no line terminator in them) are not checked; -P never is.
  bool ban_nul = false;
  // ripgrep's --regex-size-limit (bytes; its default, 100 MiB): patterns (not -P) whose regex
  // ripgrep's engine would compile into a larger NFA are the error "compiled regex exceeds size
  // limit of N", as in ripgrep, where the size is known to exceed it (a large count of a piece,
  // `x{4000000}`); near the limit ripgrep may refuse patterns accepted here.
  std::uint64_t regex_size_limit = std::uint64_t{100} << 20;
  RequiredLiterals required_literals = RequiredLiterals::kAuto;
};

// A line of a haystack: [start, end), `end` excluding the line terminator.
struct LineSpan {
  std::size_t start;
  std::size_t end;
};

// A match inside a line, byte offsets relative to the line.
struct MatchSpan {
  std::size_t start;
  std::size_t end;
};

class PatternSet {
 public:
  // Compiles `patterns` (each one regex, or one literal under -F). Errors name the pattern and
  // the offset: "regex parse error in 'foo(' at offset 4: missing closing parenthesis".
  static Result<PatternSet> compile(const std::vector<std::string>& patterns,
                                    const PatternOptions& options);

  PatternSet(PatternSet&&) noexcept;
  PatternSet& operator=(PatternSet&&) noexcept;
  ~PatternSet();

  // Mutable per-thread state (Hyperscan scratch, PCRE2 match data). One per thread; never shared.
  class Scratch {
   public:
    Scratch(Scratch&&) noexcept;
    ~Scratch();

    // While `stop` is set (it must outlive its use; nullptr unsets it), find_line (and so
    // search_buffer) calls it between pieces of work and fails with an error saying it was
    // interrupted once it returns true: every 16 candidate lines PCRE2 rejects after Hyperscan,
    // and, for patterns PCRE2 scans alone, between windows of whole lines (sized to take about a
    // millisecond each) instead of one call over the whole buffer. So a regex that backtracks for
    // long on every line, within PCRE2's match limits, still stops soon after a deadline; one
    // match attempt stays bounded by the match limit only. Without it, nothing changes.
    void set_interrupt(const std::function<bool()>* stop);
    // The next search is over a new haystack, even at the address and size of the last one: what
    // the scratch learned of the last (lines found ahead, UTF-8 validity, match starts) is
    // dropped. (A find_line or find_multiline call from offset 0 says so too.)
    void new_haystack();
    // Whether find_line dropped the required-literal prefilter for the rest of the haystack it
    // searched last (its candidate lines came too densely; for tests).
    bool required_literals_dropped() const;

   private:
    friend class PatternSet;
    struct Impl;
    explicit Scratch(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
  };
  Scratch make_scratch() const;

  // The first matching line that starts at or after `from` (a line start) in `haystack`, or
  // nullopt. Error only when a PCRE2 resource limit was hit (the message says which).
  // When searches_buffer() and `until` is given, the search sees haystack[from, until) alone
  // (`until` a line start or the end), as ripgrep's regex sees its buffer from where its search
  // stands; without `until`, each line alone, as ripgrep's line-by-line search (--passthru).
  // Under --crlf (not -U, not -P) `until` likewise says ripgrep's fast line search runs its regex
  // over the buffer, where an empty match between a CRLF's CR and LF makes a line match.
  Result<std::optional<LineSpan>> find_line(std::string_view haystack, std::size_t from,
                                            Scratch& scratch,
                                            std::size_t until = std::string_view::npos) const;

  // --null-data where ripgrep runs its regex over its buffer, not over each line alone (-U with
  // patterns that cannot match a NUL): `^` and \A then match at line feeds and where the search
  // starts (find_line's `from`) only, `$` and \z at line feeds and at `until`. The searcher
  // searches its roll buffer's rounds one at a time then.
  bool searches_buffer() const;

  // Appends the non-overlapping matches in `line` (no line terminator) to `out`, left to right.
  // `after_line_break`: a line terminator precedes the line (it is not the haystack's first),
  // which word boundaries next to invalid UTF-8 at its start can depend on, as in ripgrep; under
  // --null-data `^` then does not match at the line's start (ripgrep's printer sees the NUL).
  Status find_spans(std::string_view line, Scratch& scratch, std::vector<MatchSpan>& out,
                    bool after_line_break = false) const;

  // Like find_spans, and also appends to `expansions` the replacement for each match: `replacement`
  // with $N, ${N}, $name and ${name} expanded to capture groups (a name is the longest run of
  // [0-9A-Za-z_]; a missing group expands to nothing) and $$ to '$', as ripgrep's -r.
  Status expand_matches(std::string_view line, std::string_view replacement, Scratch& scratch,
                        std::vector<MatchSpan>& spans, std::vector<std::string>& expansions,
                        bool after_line_break = false) const;

  // True when no match can be wider than one line and Hyperscan alone decides lines.
  bool hyperscan_exact() const;

  // True when find_line looks for a required literal first (PatternOptions::required_literals).
  bool uses_required_literals() const;

  // Multiline mode (-U): true when -U was given and some pattern can match a line feed (as in
  // ripgrep, -U with patterns that cannot is plain line-by-line search); with --null-data, a NUL.
  bool multiline() const;

  // PatternOptions::line_terminator: what the searcher splits lines at.
  char line_terminator() const;

  // Multiline mode: the first match in `haystack` at or after `from`, searched as ripgrep does, as
  // if `haystack` began at `from` (`^` and look-behinds see a start there). Offsets are absolute.
  Result<std::optional<MatchSpan>> find_multiline(std::string_view haystack, std::size_t from,
                                                  Scratch& scratch) const;

  // Multiline mode: the matches that start in haystack[start, end) (a block of whole lines),
  // searched in the whole haystack (look-arounds see past the block), appended to `out` with
  // offsets relative to `start`. With `replacement`, also appends each match's expansion (see
  // expand_matches) to `expansions`.
  Status find_spans_in(std::string_view haystack, std::size_t start, std::size_t end,
                       Scratch& scratch, std::vector<MatchSpan>& out,
                       const std::string* replacement = nullptr,
                       std::vector<std::string>* expansions = nullptr) const;

 private:
  struct Impl;
  explicit PatternSet(std::unique_ptr<Impl> impl);
  template <typename OnMatch>  // defined and used in pattern_set.cpp only
  Status each_match(std::string_view line, bool after_line_break, Scratch& scratch,
                    OnMatch&& on_match) const;
  template <typename OnMatch>  // defined and used in pattern_set.cpp only
  Status each_match_in(const void* code, std::string_view subject, std::size_t start,
                       std::size_t end, Scratch& scratch, OnMatch&& on_match) const;
  std::unique_ptr<Impl> impl_;
};

// The byte length of the first `count` extended grapheme clusters of `text` (a maximal invalid
// UTF-8 subpart, which prints as one U+FFFD, counts as one), for --max-columns-preview.
std::size_t grapheme_prefix(std::string_view text, std::size_t count);

// Whether `error`, from a search, is PCRE2's match, depth or JIT stack limit on a regex (it
// backtracks too much on that input), not an I/O failure: the file was searched only in part.
bool is_regex_limit(const Error& error);

}  // namespace ctx::engine
