#include "ctx/walker/ignore_rules.hpp"

#include <algorithm>

#include "ctx/base/file_buffer.hpp"

namespace ctx::walker {
namespace {

// gitignore(5): "Trailing spaces are ignored unless they are quoted with backslash". Only ' '
// counts (not tabs), and a line ending in a lone backslash keeps everything, as in git.
std::string_view trim_trailing_spaces(std::string_view line) {
  std::size_t keep = line.size();
  bool in_space_run = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == ' ') {
      if (!in_space_run) keep = i;
      in_space_run = true;
      continue;
    }
    in_space_run = false;
    keep = line.size();
    if (c == '\\') {
      if (i + 1 >= line.size()) return line;
      ++i;  // the escaped byte (an escaped space included) is kept
    }
  }
  return in_space_run ? line.substr(0, keep) : line;
}

std::string folded(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool has_byte(const std::array<std::uint64_t, 4>& set, unsigned char c) {
  return (set[c / 64] >> (c % 64) & 1U) != 0;
}

}  // namespace

void IgnoreRules::KeyFilter::add(std::string_view folded_key, const IndexMap& index) {
  auto set = [this](std::string_view key) {
    const std::size_t slot = slot_of(key, false) & (bits_.size() * 64 - 1);
    bits_[slot / 64] |= std::uint64_t{1} << (slot % 64);
  };
  if (bits_.size() * 64 >= index.size() * 16) {
    set(folded_key);
    return;
  }
  std::size_t words = 1;
  while (words * 64 < index.size() * 16) words *= 2;
  bits_.assign(words, 0);
  for (const auto& entry : index) set(entry.first);
}

IgnoreRules IgnoreRules::parse(std::string_view text, Options options) {
  IgnoreRules rules(options);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  for_each_line(text, [&](std::string_view line) { rules.add_line(line); });
  return rules;
}

void IgnoreRules::add_line(std::string_view line, bool case_insensitive) {
  if (line.empty() || line[0] == '#') return;
  line = trim_trailing_spaces(line);
  bool negated = false;
  if (!line.empty() && line[0] == '!') {
    negated = true;
    line.remove_prefix(1);
  }
  bool dir_only = false;
  if (!line.empty() && line.back() == '/') {
    dir_only = true;
    line.remove_suffix(1);
    // Current ripgrep (issue 2236): `foo\/` is an escaped slash, i.e. the directory `foo`.
    if (!line.empty() && line.back() == '\\') line.remove_suffix(1);
  }
  if (line.empty()) return;
  bool basename = line.find('/') == std::string_view::npos;
  if (!basename && line[0] == '/') line.remove_prefix(1);
  if (line.empty()) return;
  // gitignore(5): "**/foo" matches foo anywhere, the same as "foo". As a basename line it is
  // indexed or rejected by its literal head instead of running the glob NFA on every path.
  if (!basename && line.substr(0, 3) == "**/" && line.find('/', 3) == std::string_view::npos &&
      line.size() > 3) {
    line.remove_prefix(3);
    basename = true;
  }

  auto index = static_cast<std::uint32_t>(rules_.size());
  const bool fold_line = options_.case_insensitive || case_insensitive;
  rules_.push_back(Rule{Glob::compile(line, GlobOptions{true, fold_line, !basename}), negated,
                        dir_only, basename});
  if (negated) ++negated_count_;
  const Glob& glob = rules_.back().glob;
  // Buckets keep indices in ascending order; lookups read them from the back.
  auto add_to = [index](std::vector<std::uint32_t>& bucket) { bucket.push_back(index); };
  // The hash buckets hold lines folded exactly as the whole set is, so a line folded alone
  // (--iglob in a case-sensitive set) is matched the general way.
  const bool indexable = basename && fold_line == options_.case_insensitive;
  if (indexable && glob.shape() == Glob::Shape::kLiteral) {
    add_to(by_literal_[glob.literal()]);
    literal_filter_.add(glob.literal(), by_literal_);
  } else if (indexable && glob.shape() == Glob::Shape::kStarSuffix && !glob.literal().empty()) {
    auto [it, inserted] = by_suffix_.try_emplace(glob.literal());
    add_to(it->second);
    suffix_filter_.add(glob.literal(), by_suffix_);
    if (inserted && std::find(suffix_lengths_.begin(), suffix_lengths_.end(),
                              glob.literal().size()) == suffix_lengths_.end()) {
      suffix_lengths_.push_back(glob.literal().size());
    }
  } else if (!basename && fold_line == options_.case_insensitive &&
             glob.shape() == Glob::Shape::kLiteral) {
    add_to(by_path_[glob.literal()]);  // an anchored literal path such as /src/gen/out.c
    path_filter_.add(glob.literal(), by_path_);
  } else if (glob.shape() != Glob::Shape::kNever) {
    general_.push_back(index);
    general_filter_.push_back(ByteFilter{glob.last_bytes(), glob.first_bytes(), basename});
  }
}

std::int64_t IgnoreRules::best_in(const std::vector<std::uint32_t>& bucket, bool is_dir) const {
  for (auto it = bucket.rbegin(); it != bucket.rend(); ++it) {
    if (!rules_[*it].dir_only || is_dir) return *it;
  }
  return -1;
}

bool IgnoreRules::rule_matches(const Rule& rule, std::string_view rel_path, std::string_view base,
                               bool is_dir) const {
  if (rule.dir_only && !is_dir) return false;
  return rule.glob.matches(rule.basename ? base : rel_path);
}

MatchKind IgnoreRules::match(std::string_view rel_path, bool is_dir) const {
  if (rules_.empty()) return MatchKind::kNone;
  std::size_t slash = rel_path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? rel_path : rel_path.substr(slash + 1);

  std::int64_t best = -1;
  if (!by_literal_.empty() || !by_suffix_.empty() || !by_path_.empty()) {
    // The indexes hold keys folded as the set is: `k`, a suffix of rel_path, is looked up folded
    // (the path is folded once, and only when a filter lets a key through).
    const bool fold = options_.case_insensitive;
    std::string folded_path;
    auto take = [&](const IndexMap& index, const KeyFilter& filter, std::string_view k) {
      if (!filter.may_hold(k, fold)) return;
      if (fold) {
        if (folded_path.empty()) folded_path = folded(rel_path);
        k = std::string_view(folded_path).substr(rel_path.size() - k.size());
      }
      if (auto it = index.find(k); it != index.end()) {
        best = std::max(best, best_in(it->second, is_dir));
      }
    };
    take(by_literal_, literal_filter_, base);
    take(by_path_, path_filter_, rel_path);
    for (std::size_t len : suffix_lengths_) {
      if (len <= base.size()) take(by_suffix_, suffix_filter_, base.substr(base.size() - len));
    }
  }
  // A basename rule matches `base`, any other the whole path: both end with the path's last byte,
  // and start with the first byte of `base` or of the path.
  const auto last = static_cast<unsigned char>(rel_path.empty() ? 0 : rel_path.back());
  const auto path_first = static_cast<unsigned char>(rel_path.empty() ? 0 : rel_path[0]);
  const auto base_first = static_cast<unsigned char>(base.empty() ? 0 : base[0]);
  for (std::size_t k = general_.size(); k-- > 0;) {
    const std::uint32_t index = general_[k];
    if (static_cast<std::int64_t>(index) <= best) break;
    const ByteFilter& filter = general_filter_[k];
    if (!rel_path.empty() && !has_byte(filter.last, last)) continue;
    if (filter.basename ? !base.empty() && !has_byte(filter.first, base_first)
                        : !rel_path.empty() && !has_byte(filter.first, path_first)) {
      continue;
    }
    if (rule_matches(rules_[index], rel_path, base, is_dir)) {
      best = index;
      break;
    }
  }
  if (best < 0) return MatchKind::kNone;
  return rules_[static_cast<std::size_t>(best)].negated ? MatchKind::kWhitelist
                                                        : MatchKind::kIgnore;
}

}  // namespace ctx::walker
