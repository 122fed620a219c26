#include "rust_hir.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "byte_mode.hpp"
#include "ctx/base/utf8.hpp"

namespace ctx::engine::detail {
namespace {

using Kind = HirSummary::Kind;

// regex-automata's builder: a state takes 32 bytes, a union alternate 4, a sparse transition 8.
constexpr std::uint64_t kState = 32;
constexpr std::uint64_t kAlternate = 4;
constexpr std::uint64_t kTransition = 8;
// The bytes of a literal kept (HirSummary::literal: what fits a std::string without allocating,
// as there may be 100,000 -f patterns), and the most literals whose trie is measured (an
// alternation of literals; larger ones, or longer literals, count as their longest literal).
constexpr std::size_t kKeptLiteral = 15;
constexpr std::size_t kTrieMax = 1000;
// regex-syntax's literal extractor's limits (Extractor::new).
constexpr std::uint32_t kExtractClass = 10, kExtractRepeat = 10, kExtractLength = 100,
                        kExtractTotal = 250;

// The extractor's seq of `h` cross `next` (concatenated), or union (alternated).
void exact_cross(HirSummary& h, const HirSummary& next) {
  const std::uint64_t count = std::uint64_t{h.exact_count} * next.exact_count;
  const std::uint64_t length = std::uint64_t{h.exact_length} + next.exact_length;
  const bool exact = count != 0 && count <= kExtractTotal && length <= kExtractLength;
  h.exact_count = exact ? static_cast<std::uint32_t>(count) : 0;
  h.exact_length = exact ? static_cast<std::uint32_t>(length) : 0;
  h.exact_empty = exact && h.exact_empty && next.exact_empty;
}
void exact_union(HirSummary& h, const HirSummary& next) {
  const std::uint64_t count = std::uint64_t{h.exact_count} + next.exact_count;
  const bool exact = h.exact_count != 0 && next.exact_count != 0 && count <= kExtractTotal;
  h.exact_count = exact ? static_cast<std::uint32_t>(count) : 0;
  h.exact_length = exact ? std::max(h.exact_length, next.exact_length) : 0;
  h.exact_empty = exact && (h.exact_empty || next.exact_empty);
}

std::uint64_t add(std::uint64_t a, std::uint64_t b) { return std::min(a + b, kNfaMax); }
std::uint64_t times(std::uint64_t n, std::uint64_t a) {
  if (n == 0 || a == 0) return 0;
  return a > kNfaMax / n ? kNfaMax : n * a;
}

// The length of the UTF-8 sequence `lead` starts (0: no lead byte).
std::size_t sequence_length(unsigned char lead) {
  return lead < 0x80    ? 1
         : lead >= 0xF8 ? 0
         : lead >= 0xF0 ? 4
         : lead >= 0xE0 ? 3
         : lead >= 0xC0 ? 2
                        : 0;
}

// Whether a literal is one character (its bytes one valid UTF-8 sequence).
bool one_char(const HirSummary& h) {
  if (h.kind != Kind::kLiteral || h.literal_size != h.literal.size() || h.literal.empty()) {
    return false;
  }
  return sequence_length(static_cast<unsigned char>(h.literal[0])) == h.literal.size() &&
         ctx::is_valid_utf8(h.literal);
}

// The scalar value of the UTF-8 sequence `s` (valid, one character).
std::uint32_t decode(std::string_view s) {
  const auto b = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(s[i]));
  };
  if (s.size() == 1) return b(0);
  std::uint32_t cp = b(0) & (s.size() == 2 ? 0x1FU : s.size() == 3 ? 0x0FU : 0x07U);
  for (std::size_t i = 1; i < s.size(); ++i) cp = (cp << 6) | (b(i) & 0x3FU);
  return cp;
}

// The memory regex-automata's forward compile of the Unicode class `members` (not all ASCII)
// takes: its Utf8Compiler builds the trie of the members' UTF-8 sequences, sharing equal states
// (a target state, then a sparse state per distinct node). Its cache of shared states holds 10,000
// and drops one on a hash collision (a state then compiled twice); this one keeps them all, so
// the result is exact or below.
std::uint64_t utf8_class_nfa_bytes(const CodepointRanges& members) {
  using Transition = std::tuple<std::uint8_t, std::uint8_t, std::uint32_t>;  // start, end, next
  struct Node {
    std::vector<Transition> trans;
    std::optional<std::pair<std::uint8_t, std::uint8_t>> last;
  };
  std::map<std::vector<Transition>, std::uint32_t> compiled;
  std::vector<Node> uncompiled(1);
  std::uint32_t next_id = 1;  // the target is 0
  std::uint64_t bytes = kState;
  const auto compile = [&](std::vector<Transition> node) {
    const auto [it, added] = compiled.emplace(std::move(node), next_id);
    if (added) {
      bytes = add(bytes, kState + it->first.size() * kTransition);
      ++next_id;
    }
    return it->second;
  };
  const auto freeze = [](Node& node, std::uint32_t next) {
    if (node.last) node.trans.emplace_back(node.last->first, node.last->second, next);
    node.last.reset();
  };
  const auto compile_from = [&](std::size_t from) {
    std::uint32_t next = 0;
    while (from + 1 < uncompiled.size()) {
      Node node = std::move(uncompiled.back());
      uncompiled.pop_back();
      freeze(node, next);
      next = compile(std::move(node.trans));
    }
    freeze(uncompiled.back(), next);
  };
  std::vector<Seq> seqs;
  for (const auto& [lo, hi] : members) {
    seqs.clear();
    utf8_sequences(lo, hi, seqs);
    for (const Seq& seq : seqs) {
      std::size_t prefix = 0;
      while (prefix < seq.size() && prefix < uncompiled.size() &&
             uncompiled[prefix].last == std::optional(seq[prefix])) {
        ++prefix;
      }
      compile_from(prefix);
      uncompiled.back().last = seq[prefix];
      for (std::size_t k = prefix + 1; k < seq.size(); ++k) uncompiled.push_back({{}, seq[k]});
    }
  }
  compile_from(0);
  compile(std::move(uncompiled.front().trans));
  return bytes;
}

// The memory the reverse compile of the same class takes (c_unicode_class_reverse_with_suffix): a
// union state and an end state, then a byte range state per distinct (next state, byte range)
// along each UTF-8 sequence, and an alternate per sequence. Its cache drops entries on hash
// collisions too: exact or below.
std::uint64_t utf8_class_reverse_nfa_bytes(const CodepointRanges& members) {
  std::map<std::tuple<std::uint32_t, std::uint8_t, std::uint8_t>, std::uint32_t> cache;
  std::uint32_t next_id = 2;  // the union is 0, the end 1
  std::uint64_t bytes = 2 * kState;
  std::vector<Seq> seqs;
  for (const auto& [lo, hi] : members) {
    seqs.clear();
    utf8_sequences(lo, hi, seqs);
    for (const Seq& seq : seqs) {
      std::uint32_t end = 1;
      for (const auto& [start, last] : seq) {
        const auto [it, added] = cache.emplace(std::tuple(end, start, last), next_id);
        if (added) {
          bytes = add(bytes, kState);
          ++next_id;
        }
        end = it->second;
      }
      bytes = add(bytes, kAlternate);
    }
  }
  return bytes;
}

// The forward and reverse costs of a Unicode class (not all ASCII), remembered per thread for the
// classes a pattern set repeats (\w, \d, `.`).
std::pair<std::uint64_t, std::uint64_t> utf8_class_costs(const CodepointRanges& members) {
  thread_local std::map<CodepointRanges, std::pair<std::uint64_t, std::uint64_t>> known;
  if (auto it = known.find(members); it != known.end()) return it->second;
  if (known.size() >= 256) known.clear();
  const auto costs =
      std::pair(utf8_class_nfa_bytes(members), utf8_class_reverse_nfa_bytes(members));
  known.emplace(members, costs);
  return costs;
}

// `members` without the bytes in `strip` (ripgrep's strip_from_match).
CodepointRanges stripped(CodepointRanges members, std::string_view strip) {
  if (strip.empty()) return members;
  CodepointRanges out;
  for (auto [lo, hi] : members) {
    for (const char c : strip) {
      const auto b = static_cast<std::uint32_t>(static_cast<unsigned char>(c));
      if (b < lo || b > hi) continue;
      if (b > lo) out.emplace_back(lo, b - 1);
      lo = b + 1;
    }
    if (lo <= hi) out.emplace_back(lo, hi);
  }
  return canonical_ranges(std::move(out));
}

// A class of several members (`members` as ripgrep strips them).
HirSummary class_of_several(CodepointRanges members, bool bytes) {
  HirSummary h;
  h.kind = Kind::kClass;
  h.zero_width = false;
  h.nullable = false;
  h.byte_class = bytes;
  h.ascii_class = !members.empty() && members.back().second < 0x80;
  std::uint64_t size = 0;
  for (const auto& [lo, hi] : members) size += hi - lo + 1;
  h.exact_count = size <= kExtractClass ? static_cast<std::uint32_t>(size) : 0;
  h.exact_length = h.exact_count == 0 ? 0 : bytes || h.ascii_class ? 1 : 4;
  h.exact_empty = false;
  if (members.empty()) {  // a fail state
    h.nfa_bytes = h.reverse_nfa_bytes = kState;
  } else if (members.size() == 1 && members[0].first == members[0].second) {  // a byte range
    h.nfa_bytes = h.reverse_nfa_bytes =
        kState * (bytes ? 1 : ctx::utf8_of(members[0].first).size());
  } else if (h.ascii_class || bytes) {  // a sparse state and its end
    h.nfa_bytes = h.reverse_nfa_bytes = 2 * kState + members.size() * kTransition;
  } else {
    std::tie(h.nfa_bytes, h.reverse_nfa_bytes) = utf8_class_costs(members);
  }
  h.members = std::move(members);
  return h;
}

// The forward and reverse costs of the trie regex-automata compiles an alternation of literals
// into (LiteralTrie): per inner trie state a range or sparse state of its transitions and a union
// state, then one end state. nullopt where this does not model it (a literal that starts
// another, which splits a trie state's transitions; a literal not kept whole; many literals).
std::optional<std::pair<std::uint64_t, std::uint64_t>> trie_costs(
    const std::vector<HirSummary>& literals) {
  if (literals.size() > kTrieMax) return std::nullopt;
  std::vector<std::string> words;
  for (const HirSummary& l : literals) {
    if (l.literal.size() != l.literal_size) return std::nullopt;
    words.push_back(l.literal);
  }
  const auto cost = [](std::vector<std::string> w) -> std::optional<std::uint64_t> {
    std::sort(w.begin(), w.end());
    w.erase(std::unique(w.begin(), w.end()), w.end());
    for (std::size_t i = 0; i + 1 < w.size(); ++i) {
      if (w[i + 1].starts_with(w[i])) return std::nullopt;
    }
    // Every distinct proper prefix is an inner state; its transitions are the distinct next bytes.
    std::map<std::string_view, std::size_t> inner;  // prefix -> transitions
    for (std::size_t i = 0; i < w.size(); ++i) {
      for (std::size_t n = 0; n < w[i].size(); ++n) {
        const std::string_view prefix = std::string_view(w[i]).substr(0, n);
        const bool new_edge = i == 0 || std::string_view(w[i - 1]).substr(0, n + 1) !=
                                            std::string_view(w[i]).substr(0, n + 1);
        if (new_edge) ++inner[prefix];
      }
    }
    std::uint64_t bytes = kState;
    for (const auto& [prefix, edges] : inner) {
      bytes = add(bytes, kState + (edges > 1 ? edges * kTransition : 0) + kState + kAlternate);
    }
    return bytes;
  };
  auto forward = cost(words);
  for (std::string& word : words) std::reverse(word.begin(), word.end());
  auto reverse = cost(std::move(words));
  if (!forward || !reverse) return std::nullopt;
  return std::pair(*forward, *reverse);
}

// A literal, or an ASCII letter with its two cases (a caseless letter), as a piece of a required
// literal; `whole`: all of its bytes are kept (of a longer literal, the first kKeptLiteral).
struct Piece {
  RequiredLiteral literal;
  bool whole = true;
};
std::optional<Piece> literal_piece(const HirSummary& h) {
  if (h.kind == Kind::kLiteral) {
    return Piece{{h.literal, false}, h.literal.size() == h.literal_size};
  }
  if (h.kind == Kind::kClass && h.members.size() == 2 &&
      h.members[0].first == h.members[0].second && h.members[1].first == h.members[1].second) {
    const std::uint32_t upper = h.members[0].first, lower = h.members[1].first;
    if (upper >= 'A' && upper <= 'Z' && lower == upper + 0x20) {
      return Piece{{std::string(1, static_cast<char>(lower)), true}, true};
    }
  }
  return std::nullopt;
}

// A concatenation's required literals (HirSummary::required, ::leading) from its items (two or
// more; adjacent literals merged): each run of literals and caseless letters, with zero-width
// items between them left out (they consume nothing), is one literal; any other item offers its
// own set. The rarest set is kept, and the set of the first item that consumes something.
void concat_required(HirSummary& h, const std::vector<HirSummary>& items) {
  std::vector<RequiredSet> sets;
  RequiredLiteral run;
  bool open = false;
  std::optional<std::size_t> leading_run;  // the index in `sets` the first run gets
  const auto flush = [&] {
    if (!open) return;
    if (run.caseless) {
      for (char& c : run.bytes) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 0x20) : c;
    }
    sets.push_back({std::move(run)});
    run = {};
    open = false;
  };
  bool first = true;
  for (const HirSummary& item : items) {
    if (item.zero_width) continue;
    if (const std::optional<Piece> piece = literal_piece(item)) {
      if (!open) {
        open = true;
        if (first) leading_run = sets.size();
      }
      if (run.bytes.size() < kRequiredBytesMax) {
        run.bytes += piece->literal.bytes.substr(0, kRequiredBytesMax - run.bytes.size());
      }
      run.caseless = run.caseless || piece->literal.caseless;
      if (!piece->whole) flush();  // its last bytes are not kept: what follows is not adjacent
    } else {
      flush();
      if (RequiredSet set = required_of(item); !set.empty()) sets.push_back(std::move(set));
      if (first) h.leading = leading_of(item);
    }
    first = false;
  }
  flush();
  if (leading_run) h.leading = sets[*leading_run];
  const RequiredSet* best = nullptr;
  double best_score = 0;
  for (const RequiredSet& set : sets) {
    const double score = rarity_score(set);
    if (best == nullptr || score < best_score) {
      best = &set;
      best_score = score;
    }
  }
  if (best != nullptr) h.required = *best;
}
}  // namespace

HirSummary hir_empty() {
  HirSummary h;
  h.plain_ascii = true;
  h.nfa_bytes = h.reverse_nfa_bytes = kState;
  return h;
}

HirSummary hir_literal(std::string_view bytes) {
  if (bytes.empty()) return hir_empty();
  HirSummary h;
  h.kind = Kind::kLiteral;
  h.literal = std::string(bytes.substr(0, kKeptLiteral));
  h.literal_size = bytes.size();
  for (const char c : bytes) h.holds |= terminator_bit(c);
  h.matches = h.holds;
  h.exact_count = bytes.size() <= kExtractLength ? 1 : 0;
  h.exact_length = h.exact_count == 0 ? 0 : static_cast<std::uint32_t>(bytes.size());
  h.exact_empty = false;
  h.zero_width = false;
  h.nullable = false;
  h.nfa_bytes = h.reverse_nfa_bytes = times(bytes.size(), kState);
  h.plain_ascii = h.holds == 0 && std::ranges::none_of(bytes, [](char c) {
                    return static_cast<unsigned char>(c) >= 0x80;
                  });
  return h;
}

HirSummary hir_class(const CodepointRanges& members, bool bytes, std::string_view strip) {
  if (members.empty()) {  // regex-syntax's Hir::fail
    HirSummary h;
    h.kind = Kind::kOther;
    h.zero_width = false;
    h.nullable = false;
    h.exact_count = 0;
    h.nfa_bytes = h.reverse_nfa_bytes = kState;
    return h;
  }
  if (members.size() == 1 && members[0].first == members[0].second) {
    const std::uint32_t c = members[0].first;
    return hir_literal(bytes ? std::string(1, static_cast<char>(c)) : ctx::utf8_of(c));
  }
  HirSummary h = class_of_several(stripped(members, strip), bytes);
  for (const auto& [lo, hi] : members) {
    for (const char t : {'\n', '\r', '\0'}) {
      if (lo <= static_cast<std::uint32_t>(t) && static_cast<std::uint32_t>(t) <= hi) {
        h.matches |= terminator_bit(t);
      }
    }
  }
  h.plain_ascii = !bytes && h.ascii_class && (h.matches & kHoldsLf) == 0;
  return h;
}

HirSummary hir_look(HirLook look) {
  HirSummary h;
  h.kind = Kind::kOther;
  h.text_start = look == HirLook::kTextStart;
  h.text_end = look == HirLook::kTextEnd;
  // ripgrep counts every anchor as matching a line feed (a known approximation of its own).
  if (look != HirLook::kWord) h.matches = kHoldsLf;
  h.looks = true;
  h.plain_ascii = look == HirLook::kLine;
  h.nfa_bytes = h.reverse_nfa_bytes = kState;
  return h;
}

HirSummary hir_concat(std::vector<HirSummary> items) {
  std::vector<HirSummary> out;
  out.reserve(items.size());
  for (HirSummary& item : items) {
    if (item.kind == Kind::kEmpty) continue;
    if (item.kind == Kind::kLiteral && !out.empty() && out.back().kind == Kind::kLiteral) {
      HirSummary& prior = out.back();
      if (prior.literal.size() < kKeptLiteral) {
        prior.literal += item.literal.substr(0, kKeptLiteral - prior.literal.size());
      }
      prior.literal_size += item.literal_size;
      prior.holds |= item.holds;
      prior.matches |= item.matches;
      prior.nfa_bytes = add(prior.nfa_bytes, item.nfa_bytes);
      prior.reverse_nfa_bytes = add(prior.reverse_nfa_bytes, item.reverse_nfa_bytes);
      exact_cross(prior, item);
      continue;
    }
    out.push_back(std::move(item));
  }
  if (out.empty()) return hir_empty();
  if (out.size() == 1) return std::move(out.front());
  HirSummary h;
  h.kind = Kind::kOther;
  h.concat = true;
  bool before = true;  // still in the zero-width items at the start
  for (const HirSummary& item : out) {
    h.holds |= item.holds;
    h.matches |= item.matches;
    h.zero_width = h.zero_width && item.zero_width;
    h.nullable = h.nullable && item.nullable;
    if (before) h.text_start = h.text_start || item.text_start;
    before = before && item.zero_width;
    h.nfa_bytes = add(h.nfa_bytes, item.nfa_bytes);
    h.reverse_nfa_bytes = add(h.reverse_nfa_bytes, item.reverse_nfa_bytes);
    exact_cross(h, item);
    h.captures = h.captures || item.captures;
    h.looks = h.looks || item.looks;
  }
  h.plain_ascii = std::ranges::all_of(out, [](const HirSummary& item) { return item.plain_ascii; });
  for (auto it = out.rbegin(); it != out.rend(); ++it) {  // the same from the end
    h.text_end = h.text_end || it->text_end;
    if (!it->zero_width) break;
  }
  concat_required(h, out);
  return h;
}

namespace {

// hir_alternation of `branches` (a copy of the one there is).
HirSummary alternation_of(const std::vector<HirSummary>& branches, std::string_view strip) {
  if (branches.empty()) return hir_class({}, false, strip);
  if (branches.size() == 1) return branches.front();
  // regex-syntax's singleton_chars, singleton_bytes: one class of the characters (a literal when
  // they are all the same).
  const bool chars = std::ranges::all_of(branches, one_char);
  const bool bytes = std::ranges::all_of(branches, [](const HirSummary& b) {
    return b.kind == Kind::kLiteral && b.literal_size == 1;
  });
  if (chars || bytes) {
    CodepointRanges members;
    for (const HirSummary& b : branches) {
      const std::uint32_t c = chars ? decode(b.literal) : static_cast<unsigned char>(b.literal[0]);
      members.emplace_back(c, c);
    }
    return hir_class(canonical_ranges(std::move(members)), !chars, strip);
  }
  // class_chars, class_bytes: classes that are all Unicode or all bytes (or ASCII) are one class.
  if (std::ranges::all_of(branches, [](const HirSummary& b) { return b.kind == Kind::kClass; })) {
    const bool unicode = std::ranges::all_of(
        branches, [](const HirSummary& b) { return !b.byte_class || b.ascii_class; });
    const bool all_bytes = std::ranges::all_of(
        branches, [](const HirSummary& b) { return b.byte_class || b.ascii_class; });
    if (unicode || all_bytes) {
      CodepointRanges members;
      for (const HirSummary& b : branches) {
        members.insert(members.end(), b.members.begin(), b.members.end());
      }
      HirSummary h = class_of_several(canonical_ranges(std::move(members)), !unicode);
      for (const HirSummary& b : branches) h.matches |= b.matches;
      h.plain_ascii = unicode && h.ascii_class && (h.matches & kHoldsLf) == 0;
      return h;
    }
  }
  HirSummary h;
  h.kind = Kind::kOther;
  h.nullable = false;  // until a branch is
  h.alternation = true;
  h.text_start = h.text_end = true;
  h.exact_count = branches.front().exact_count;
  h.exact_length = branches.front().exact_length;
  h.exact_empty = branches.front().exact_empty;
  std::uint64_t most = 0, sum = 0, reverse_most = 0, reverse_sum = 0;
  for (const HirSummary& b : branches) {
    if (&b != &branches.front()) exact_union(h, b);
    h.captures = h.captures || b.captures;
    h.looks = h.looks || b.looks;
    h.holds |= b.holds;
    h.matches |= b.matches;
    h.zero_width = h.zero_width && b.zero_width;
    h.nullable = h.nullable || b.nullable;
    h.text_start = h.text_start && b.text_start;
    h.text_end = h.text_end && b.text_end;
    most = std::max(most, b.nfa_bytes);
    sum = add(sum, b.nfa_bytes);
    reverse_most = std::max(reverse_most, b.reverse_nfa_bytes);
    reverse_sum = add(reverse_sum, b.reverse_nfa_bytes);
  }
  h.plain_ascii = std::ranges::all_of(branches, [](const HirSummary& b) { return b.plain_ascii; });
  h.required = required_of(branches.front());
  h.leading = leading_of(branches.front());
  for (std::size_t i = 1; i < branches.size(); ++i) {
    h.required = united(std::move(h.required), required_of(branches[i]));
    h.leading = united(std::move(h.leading), leading_of(branches[i]));
  }
  // Literals only: a trie of them (at least as large as the longest). Concatenations only (or
  // nested alternations, which regex-syntax flattens): their common start may be shared.
  // Otherwise: a union state and an end state, an alternate per branch.
  const bool literals =
      std::ranges::all_of(branches, [](const HirSummary& b) { return b.kind == Kind::kLiteral; });
  const bool shared =
      std::ranges::all_of(branches, [](const HirSummary& b) { return b.concat; }) ||
      std::ranges::any_of(branches, [](const HirSummary& b) { return b.alternation; });
  const std::uint64_t unions = 2 * kState + branches.size() * kAlternate;
  h.nfa_bytes = literals || shared ? most : add(sum, unions);
  h.reverse_nfa_bytes = literals || shared ? reverse_most : add(reverse_sum, unions);
  if (literals) {
    if (auto trie = trie_costs(branches)) std::tie(h.nfa_bytes, h.reverse_nfa_bytes) = *trie;
  }
  return h;
}

}  // namespace

HirSummary hir_alternation(std::vector<HirSummary> branches, std::string_view strip) {
  if (branches.size() == 1) return std::move(branches.front());
  return alternation_of(branches, strip);
}

HirSummary hir_repetition(HirSummary sub, std::uint32_t min, std::optional<std::uint32_t> max) {
  if (sub.zero_width) {  // regex-syntax: a sub matching only empty strings repeats at most once
    min = std::min<std::uint32_t>(min, 1);
    max = std::min<std::uint32_t>(max.value_or(1), 1);
  }
  if (min == 0 && max == 0U) return hir_empty();
  if (min == 1 && max == 1U) return sub;
  HirSummary h;
  h.kind = Kind::kOther;
  h.holds = sub.holds;
  h.matches = sub.matches;
  h.zero_width = sub.zero_width;
  h.nullable = min == 0 || sub.nullable;
  h.text_start = min > 0 && sub.text_start;
  h.text_end = min > 0 && sub.text_end;
  h.captures = sub.captures;
  h.looks = sub.looks;
  // The extractor: x? is {x, ""}; x{n} (n up to 10) n copies; any other repetition is inexact.
  h.exact_count = 0;
  if (min == 0 && max == 1U) {
    HirSummary empty;
    h.exact_count = sub.exact_count;
    h.exact_length = sub.exact_length;
    h.exact_empty = sub.exact_empty;
    exact_union(h, empty);
  } else if (max == min && min <= kExtractRepeat) {
    h.exact_empty = true;
    h.exact_count = 1;
    for (std::uint32_t k = 0; k < min; ++k) exact_cross(h, sub);
  }
  // regex-automata's c_repetition: copies of the sub, a union state per optional copy (two
  // alternates), an end state.
  const auto cost = [&](std::uint64_t s) {
    const std::uint64_t optional = kState + 2 * kAlternate;
    if (min == 0 && max == 1U) return add(s, kState + optional);
    if (!max) return add(times(std::max<std::uint32_t>(min, 1), s), optional);
    if (min == *max) return times(min, s);
    const std::uint64_t prefix = min == 0 ? kState : times(min, s);
    return add(add(prefix, kState), times(*max - min, add(optional, s)));
  };
  h.nfa_bytes = cost(sub.nfa_bytes);
  h.reverse_nfa_bytes = cost(sub.reverse_nfa_bytes);
  h.plain_ascii = sub.plain_ascii && min <= kPlainRepeatMax && max.value_or(0) <= kPlainRepeatMax;
  if (min > 0) {  // every match holds a copy of the sub
    h.required = required_of(sub);
    h.leading = leading_of(sub);
  }
  return h;
}

HirSummary hir_capture(const HirSummary& sub) {
  HirSummary h;
  h.kind = Kind::kOther;
  h.holds = sub.holds;
  h.matches = sub.matches;
  h.zero_width = sub.zero_width;
  h.nullable = sub.nullable;
  h.text_start = sub.text_start;
  h.text_end = sub.text_end;
  h.exact_count = sub.exact_count;
  h.exact_length = sub.exact_length;
  h.exact_empty = sub.exact_empty;
  h.captures = true;
  h.looks = sub.looks;
  h.nfa_bytes = add(sub.nfa_bytes, 2 * kState);  // the reverse NFA has no capture states
  h.reverse_nfa_bytes = sub.reverse_nfa_bytes;
  h.required = required_of(sub);
  h.leading = leading_of(sub);
  h.plain_ascii = sub.plain_ascii;
  return h;
}

HirSummary hir_unknown() {
  HirSummary h;
  h.kind = Kind::kOther;
  h.exact_count = 0;
  h.matches = kHoldsLf | kHoldsCr | kHoldsNul;
  h.zero_width = false;
  h.looks = true;  // unknown: it may have look-arounds (-P's, or syntax Rust refuses)
  return h;
}

HirSummary hir_of_literal(std::string_view pattern, bool caseless) {
  if (!caseless) return hir_literal(pattern);
  if (one_char(hir_literal(pattern))) {  // a letter is the class of its cases
    const std::uint32_t cp = decode(pattern);
    return hir_class(case_fold_closure({{cp, cp}}), false);
  }
  // Several characters: their concatenation (letters being classes), a literal where none folds.
  HirSummary h = hir_literal(pattern);
  h.kind = Kind::kOther;
  h.concat = true;
  h.plain_ascii = false;  // k and s fold to non-ASCII characters too
  return h;
}

RequiredSet required_of(const HirSummary& h) {
  if (const std::optional<Piece> piece = literal_piece(h)) return {piece->literal};
  return h.kind == Kind::kOther ? h.required : RequiredSet{};
}

RequiredSet leading_of(const HirSummary& h) {
  if (const std::optional<Piece> piece = literal_piece(h)) return {piece->literal};
  return h.kind == Kind::kOther ? h.leading : RequiredSet{};
}

bool holds_literal_byte(const std::vector<HirSummary>& patterns, char byte) {
  const HirSummary all = alternation_of(patterns, {});
  return (all.holds & terminator_bit(byte)) != 0;
}

std::uint64_t nfa_bytes_lower_bound(const std::vector<HirSummary>& patterns, std::string_view strip,
                                    bool wrapped) {
  const bool literals =
      std::ranges::all_of(patterns, [](const HirSummary& p) { return p.kind == Kind::kLiteral; });
  if (literals && !wrapped) return 0;  // Aho-Corasick (from_alternation_literals)
  const HirSummary all = alternation_of(patterns, strip);
  if (!wrapped && all.exact_count != 0 && !all.exact_empty && !all.captures && !all.looks) {
    return 0;  // a search for the exact literals (from_prefixes)
  }
  // The unanchored prefix (a union, a sparse state of one transition and its end: 3 states, a
  // transition, 2 alternates; when anchored one state), group 0's two states (forward only), the
  // match state; -w and -x add two look-arounds.
  const std::uint64_t prefix = 3 * kState + kTransition + 2 * kAlternate;
  const std::uint64_t looks = wrapped ? 2 * kState : 0;
  const std::uint64_t forward =
      add(all.nfa_bytes, (all.text_start ? kState : prefix) + 3 * kState + looks);
  const std::uint64_t reverse =
      add(all.reverse_nfa_bytes, (all.text_end ? kState : prefix) + kState + looks);
  return std::max(forward, reverse);
}

}  // namespace ctx::engine::detail
