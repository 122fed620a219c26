// Fuzz target for the pattern front-end and the searcher. Input: byte 0 picks the options (bits
// 32 and 64 together also mean --no-unicode), the
// bytes up to the first '\n' after it are one pattern (a second pattern follows a '\x01' in it),
// the rest is the haystack. Traps when:
// - compiling with Hyperscan (the normal path) and with PCRE2 alone (-P) disagree on whether the
//   pattern is valid, or either crashes or hangs on any bytes;
// - the lines the normal path reports (PatternSet::find_line from every line start) differ from
//   the lines PCRE2 alone reports;
// - search_buffer (with -v, -m, context) reports lines that are not exactly those lines (a
//   matching line in -m's last after-context may follow, printed as a match, as ripgrep), or
//   other lines when it scans the haystack in small windows;
// - under -U (where both paths search in multiline mode) find_multiline's matches differ;
// - a sanitizer fires.
// -P syntax differs from the default dialect only where Hyperscan refuses a pattern, and both
// then run on PCRE2, so the two must agree everywhere.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/engine/pattern_set.hpp"
#include "ctx/engine/searcher.hpp"

namespace {

using ctx::engine::BinaryMode;
using ctx::engine::Flow;
using ctx::engine::LineSink;
using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::engine::SearchOptions;

[[noreturn]] void trap() { __builtin_trap(); }

std::vector<std::size_t> lines_by_find_line(const PatternSet& set, std::string_view hay,
                                            PatternSet::Scratch& scratch, bool& failed) {
  std::vector<std::size_t> starts;
  std::size_t from = 0;
  while (from < hay.size()) {  // the end of a buffer after its last newline is no line
    auto found = set.find_line(hay, from, scratch);
    if (!found.ok()) {  // a PCRE2 resource limit: a clean error, nothing to compare
      failed = true;
      return starts;
    }
    // A match at the very end (after the last newline) is in no line: search_buffer skips it.
    if (!*found || (*found)->start >= hay.size()) break;
    starts.push_back((*found)->start);
    from = (*found)->end + 1;
  }
  return starts;
}

class CollectingSink final : public LineSink {
 public:
  Flow on_line(std::uint64_t, std::uint64_t byte_offset, std::string_view) override {
    lines.push_back(static_cast<std::size_t>(byte_offset));
    return Flow::kContinue;
  }
  Flow on_context(std::uint64_t, std::uint64_t, std::string_view) override {
    return Flow::kContinue;
  }
  void on_context_break() override {}
  void on_binary(std::uint64_t, bool) override {}
  std::vector<std::size_t> lines;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2 || size > 4096) return 0;
  const std::uint8_t flags = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::size_t nl = rest.find('\n');
  if (nl == std::string_view::npos || nl > 64) return 0;
  std::string_view pattern_bytes = rest.substr(0, nl);
  std::string hay(rest.substr(nl + 1));
  // search_buffer skips a UTF-8 BOM and counts offsets after it; compare on the same bytes.
  if (hay.rfind("\xEF\xBB\xBF", 0) == 0) hay.erase(0, 3);
  // Patterns must not hold NUL or newline; the CLI never passes such a pattern to the engine.
  if (pattern_bytes.find('\0') != std::string_view::npos) return 0;

  std::vector<std::string> patterns;
  std::size_t split = pattern_bytes.find('\x01');
  patterns.emplace_back(pattern_bytes.substr(0, split));
  if (split != std::string_view::npos) patterns.emplace_back(pattern_bytes.substr(split + 1));

  PatternOptions options;
  options.fixed_strings = (flags & 1) != 0;
  options.case_insensitive = (flags & 2) != 0;
  options.smart_case = (flags & 4) != 0;
  options.word = (flags & 8) != 0;
  options.line = (flags & 16) != 0;
  // --no-unicode (byte mode, engine/src/byte_mode.hpp) with -v and -m 2 together.
  options.no_unicode = (flags & 96) == 96;
  auto tested = PatternSet::compile(patterns, options);
  PatternOptions reference_options = options;
  reference_options.pcre2_only = true;
  auto reference = PatternSet::compile(patterns, reference_options);
  if (tested.ok() != reference.ok()) trap();
  if (!tested.ok()) {
    if (tested.error().detail.empty()) trap();  // errors must say something
    return 0;
  }
  PatternSet::Scratch tested_scratch = tested->make_scratch();
  PatternSet::Scratch reference_scratch = reference->make_scratch();
  bool failed = false;
  std::vector<std::size_t> got = lines_by_find_line(*tested, hay, tested_scratch, failed);
  std::vector<std::size_t> want = lines_by_find_line(*reference, hay, reference_scratch, failed);
  if (failed) return 0;
  if (got != want) trap();
  // The required-literal prefilter wherever it applies (required_literals.hpp): the same lines.
  PatternOptions required_options = options;
  required_options.required_literals = ctx::engine::RequiredLiterals::kAlways;
  auto required = PatternSet::compile(patterns, required_options);
  if (!required.ok()) trap();
  PatternSet::Scratch required_scratch = required->make_scratch();
  if (lines_by_find_line(*required, hay, required_scratch, failed) != want && !failed) trap();

  // search_buffer over the same bytes, as text (NUL is an ordinary byte here).
  SearchOptions search;
  search.binary = BinaryMode::kText;
  // The bytes as they are: a UTF-16 BOM would have them transcoded (find_line sees them raw).
  search.bom_sniffing = false;
  search.invert = (flags & 32) != 0;
  if ((flags & 64) != 0) search.max_count = 2;
  if ((flags & 128) != 0) search.before = search.after = 1;
  CollectingSink sink;
  auto searched = ctx::engine::search_buffer(*tested, tested_scratch, search, hay, sink);
  if (!searched.ok()) return 0;
  // ripgrep prints a matching line inside -m's last after-context as a match (not counted):
  // the sink may then get more lines than the search counts, all of them matching lines.
  const bool tail_matches = search.max_count && search.after > 0;
  if (!search.invert) {
    std::vector<std::size_t> expect = want;
    if (search.max_count && expect.size() > *search.max_count) expect.resize(*search.max_count);
    if (tail_matches && sink.lines.size() > expect.size()) {
      std::vector<std::size_t> counted(
          sink.lines.begin(), sink.lines.begin() + static_cast<std::ptrdiff_t>(expect.size()));
      if (counted != expect) trap();
      for (std::size_t i = expect.size(); i < sink.lines.size(); ++i) {
        if (i >= want.size() || sink.lines[i] != want[i]) trap();
      }
    } else if (sink.lines != expect) {
      trap();
    }
  }
  if (tail_matches ? *searched > sink.lines.size() : *searched != sink.lines.size()) trap();
  // The same search a few bytes at a time (the windows a large mapped file is searched in).
  SearchOptions windowed = search;
  windowed.window_bytes = 1 + hay.size() % 7;
  CollectingSink windowed_sink;
  auto windowed_searched =
      ctx::engine::search_buffer(*tested, tested_scratch, windowed, hay, windowed_sink);
  if (!windowed_searched.ok() || *windowed_searched != *searched ||
      windowed_sink.lines != sink.lines) {
    trap();
  }

  // Multiline mode (-U), where both compile to it: the same matches, one after the other, as the
  // searcher asks for them (the normal path lets PCRE2 try only where BitMatcher says a match
  // may start).
  PatternOptions ml_options = options;
  ml_options.multiline = true;
  PatternOptions ml_reference_options = ml_options;
  ml_reference_options.pcre2_only = true;
  auto ml_tested = PatternSet::compile(patterns, ml_options);
  auto ml_reference = PatternSet::compile(patterns, ml_reference_options);
  if (ml_tested.ok() != ml_reference.ok()) trap();
  if (!ml_tested.ok() || !ml_tested->multiline() || !ml_reference->multiline()) return 0;
  std::vector<std::size_t> got_ml, want_ml;
  for (auto [set, out] : {std::pair{&*ml_tested, &got_ml}, std::pair{&*ml_reference, &want_ml}}) {
    PatternSet::Scratch scratch = set->make_scratch();
    std::size_t from = 0;
    while (from < hay.size()) {
      auto found = set->find_multiline(hay, from, scratch);
      if (!found.ok()) return 0;  // a PCRE2 resource limit
      if (!*found) break;
      out->push_back((*found)->start);
      out->push_back((*found)->end);
      from = (*found)->end > (*found)->start ? (*found)->end : (*found)->end + 1;
    }
  }
  if (got_ml != want_ml) trap();
  return 0;
}
