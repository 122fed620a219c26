// libFuzzer target for ctx::walker::IgnoreRules: the input is an ignore file, then NUL-separated
// paths. It parses the file (as a whole, case-sensitive or not, and line by line with every other
// line folded alone), matches each path as a file and as a directory, and traps when the indexed
// rule set disagrees with the plain definition "the last line that matches on its own decides",
// computed from one single-line IgnoreRules per line. The glob semantics themselves are checked
// by glob_fuzz; this target checks parsing, the literal/suffix/path indexes and rule order, and
// that nothing crashes or hangs (libFuzzer -timeout) on any bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "ctx/base/file_buffer.hpp"
#include "ctx/walker/ignore_rules.hpp"
#include "ctx/walker/match.hpp"

namespace {

using ctx::walker::IgnoreRules;
using ctx::walker::MatchKind;

constexpr std::size_t kMaxPaths = 6;

// The verdict of the last of `singles` (one rule each, in file order) that matches.
MatchKind last_matching(const std::vector<IgnoreRules>& singles, std::string_view path,
                        bool is_dir) {
  for (auto it = singles.rbegin(); it != singles.rend(); ++it) {
    MatchKind kind = it->match(path, is_dir);
    if (kind != MatchKind::kNone) return kind;
  }
  return MatchKind::kNone;
}

void check(const IgnoreRules& rules, const std::vector<IgnoreRules>& singles,
           const std::vector<std::string_view>& paths) {
  for (std::string_view path : paths) {
    for (bool is_dir : {false, true}) {
      if (rules.match(path, is_dir) != last_matching(singles, path, is_dir)) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view text = input.substr(0, nul);
  std::vector<std::string_view> paths;
  if (nul != std::string_view::npos) {
    std::string_view rest = input.substr(nul + 1);
    while (paths.size() < kMaxPaths) {
      std::size_t end = rest.find('\0');
      paths.push_back(rest.substr(0, end));
      if (end == std::string_view::npos) break;
      rest.remove_prefix(end + 1);
    }
  }

  // The lines as parse() sees them: a leading BOM dropped, CRLF or LF ends.
  std::string_view body = text;
  if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);
  std::vector<std::string_view> lines;
  ctx::for_each_line(body, [&](std::string_view line) { lines.push_back(line); });

  for (bool fold : {false, true}) {
    const IgnoreRules::Options options{.case_insensitive = fold};
    const IgnoreRules rules = IgnoreRules::parse(text, options);
    std::vector<IgnoreRules> singles;
    std::size_t negated = 0;
    for (std::string_view line : lines) {
      IgnoreRules single(options);
      single.add_line(line);
      negated += single.negated_count();
      if (!single.empty()) singles.push_back(std::move(single));
    }
    if (rules.size() != singles.size() || rules.negated_count() != negated) __builtin_trap();
    check(rules, singles, paths);
  }

  // --iglob style: every other line folded alone in a case-sensitive set.
  IgnoreRules mixed;
  std::vector<IgnoreRules> mixed_singles;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    mixed.add_line(lines[i], i % 2 == 1);
    IgnoreRules single;
    single.add_line(lines[i], i % 2 == 1);
    if (!single.empty()) mixed_singles.push_back(std::move(single));
  }
  check(mixed, mixed_singles, paths);
  return 0;
}
