// The required-literal prefilter (engine/src/required_literals.hpp): which literals the HIR
// summary finds that every match must hold, when the prefilter is chosen, and that the lines it
// finds are exactly those the regex finds without it, on random regexes and haystacks.
#include "../../engine/src/required_literals.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "../../engine/src/byte_mode.hpp"
#include "../../engine/src/rust_hir.hpp"
#include "ctx/engine/pattern_set.hpp"
#include "ctx/engine/searcher.hpp"
#include "line_starts.hpp"
#include "pattern_testing.hpp"

namespace {

using ctx::engine::PatternOptions;
using ctx::engine::PatternSet;
using ctx::engine::RequiredLiterals;
using ctx::engine::detail::HirSummary;
using ctx::engine::detail::RequiredLiteral;
using ctx::engine::detail::RequiredSet;
using ctx::testing::line_starts;

HirSummary hir_of(const std::string& pattern, bool caseless = false) {
  ctx::engine::detail::ByteRegexOptions options;
  options.caseless = caseless;
  options.superset = true;
  ctx::engine::detail::RustFacts facts;
  auto out = ctx::engine::detail::rust_to_bytes(pattern, options, &facts);
  if (!out.ok()) FAIL("does not parse: " << pattern);
  return facts.hir;
}

RequiredSet set_of(std::initializer_list<const char*> literals, bool caseless = false) {
  RequiredSet set;
  for (const char* l : literals) set.push_back(RequiredLiteral{l, caseless});
  return set;
}

enum class Choice { kNot, kRarer, kRareAlone };

// Whether kAuto takes the required-literal prefilter for `patterns`, and why: much rarer than
// the leading literals, or one literal rare by itself.
Choice choice(const std::vector<std::string>& patterns, bool caseless = false) {
  std::vector<HirSummary> hirs;
  hirs.reserve(patterns.size());
  for (const std::string& p : patterns) hirs.push_back(hir_of(p, caseless));
  bool by_rarity = true;
  if (!ctx::engine::detail::required_prefilter(hirs, RequiredLiterals::kAuto, &by_rarity)) {
    CHECK_FALSE(by_rarity);
    return Choice::kNot;
  }
  return by_rarity ? Choice::kRareAlone : Choice::kRarer;
}

bool chosen(const std::vector<std::string>& patterns, bool caseless = false) {
  return choice(patterns, caseless) != Choice::kNot;
}

}  // namespace

TEST_CASE("required literals of a regex", "[engine][required]") {
  using ctx::engine::detail::leading_of;
  using ctx::engine::detail::required_of;
  CHECK(required_of(hir_of("return.*ENOMEM")) == set_of({"ENOMEM"}));
  CHECK(leading_of(hir_of("return.*ENOMEM")) == set_of({"return"}));
  CHECK(required_of(hir_of("line.1499999 ")) == set_of({"1499999 "}));
  // Zero-width items consume nothing: the bytes around them are adjacent.
  CHECK(required_of(hir_of("^foo\\bbar")) == set_of({"foobar"}));
  CHECK(leading_of(hir_of("^foo\\bbar")) == set_of({"foobar"}));
  // Alternations unite their branches' sets; a repetition that may be absent has none.
  CHECK(required_of(hir_of("(?:abc|xyz)\\d+")) == set_of({"abc", "xyz"}));
  CHECK(required_of(hir_of("(?:abc|x*)\\d+")).empty());
  CHECK(required_of(hir_of("(?:XQZ)+y")) == set_of({"XQZ"}));
  CHECK(required_of(hir_of("(?:XQZ)?y")) == set_of({"y"}));
  CHECK(required_of(hir_of("a*")).empty());
  CHECK(leading_of(hir_of("a?bcd")).empty());
  // Case-insensitive letters are caseless pieces (lowercase); k and s, which fold to non-ASCII
  // characters too, end a piece.
  CHECK(required_of(hir_of("if.*ENOMEM", true)) == set_of({"enomem"}, true));
  CHECK(required_of(hir_of("(?i)if.*(?-i)NULL")) == set_of({"NULL"}));
  CHECK(required_of(hir_of("x.*(?i)Zoo(?-i)ZZ")) == set_of({"zoozz"}, true));
  const RequiredSet suspend = required_of(hir_of("suspend", true));
  REQUIRE(suspend.size() == 1);
  CHECK((suspend.front().bytes == "pend" || suspend.front().bytes == "u"));
  // A long literal keeps its first bytes.
  const RequiredSet longer = required_of(hir_of("a.ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"));
  REQUIRE(longer.size() == 1);
  CHECK(std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789").starts_with(longer.front().bytes));
}

TEST_CASE("the required-literal prefilter is chosen where it is much rarer", "[engine][required]") {
  CHECK(chosen({"return.*ENOMEM"}));
  CHECK(chosen({"line.1499999 "}));
  CHECK(chosen({"return.*ENOMEM", "goto.*EINVAL"}));
  CHECK(choice({"return.*ENOMEM"}) == Choice::kRarer);
  // The leading literal is the rarest, or Hyperscan anchors on the only literal: taken only
  // where that literal is rare by itself (PairLiteral beats Hyperscan's search for it).
  CHECK(choice({"ENOMEM.*return"}) == Choice::kRareAlone);
  CHECK(choice({"\\w+ENOMEM"}) == Choice::kRareAlone);
  CHECK(choice({"[A-Z]+_SUSPEND"}) == Choice::kRareAlone);
  CHECK_FALSE(chosen({"\\w+static"}));  // common bytes
  CHECK_FALSE(chosen({"static.*return"}));
  CHECK_FALSE(chosen({"ENOMEM.*return", "EINVAL.*return"}));  // two literals
  CHECK_FALSE(chosen({"static.*_suspend"}));                  // not 8 times rarer
  CHECK_FALSE(chosen({"return.*EN"}));                        // too short
  CHECK_FALSE(chosen({"return.*ENOMEM", "\\w+"}));            // a pattern without one
  // The patterns of a set: compiled with it where chosen.
  const auto set = PatternSet::compile({"return.*ENOMEM"}, {});
  REQUIRE(set.ok());
  CHECK(set->uses_required_literals());
  PatternOptions never;
  never.required_literals = RequiredLiterals::kNever;
  const auto without = PatternSet::compile({"return.*ENOMEM"}, never);
  REQUIRE(without.ok());
  CHECK_FALSE(without->uses_required_literals());
}

TEST_CASE("the required-literal prefilter is dropped where its lines come densely",
          "[engine][required]") {
  // Taken for its rarity alone, one literal needs its lines 4 KiB apart on average (32 tried).
  const auto set = PatternSet::compile({"\\w+ENOMEM"}, {});
  REQUIRE(set.ok());
  REQUIRE(set->uses_required_literals());
  auto search = [&](const std::string& hay) {
    PatternSet::Scratch scratch = set->make_scratch();
    std::size_t from = 0, lines = 0;
    while (from < hay.size()) {
      auto found = set->find_line(hay, from, scratch);
      REQUIRE(found.ok());
      if (!*found) break;
      ++lines;
      from = (*found)->end + 1;
    }
    return std::pair{lines, scratch.required_literals_dropped()};
  };
  // Every line matches (a log): dropped, though no candidate line was rejected.
  std::string dense;
  for (int i = 0; i < 100; ++i) dense += "line x_ENOMEM\n";
  CHECK(search(dense) == std::pair{std::size_t{100}, true});
  // Every other line a candidate the regex rejects: dropped too.
  std::string rejected;
  for (int i = 0; i < 100; ++i) rejected += "line x_ENOMEM\n ENOMEM\n";
  CHECK(search(rejected) == std::pair{std::size_t{100}, true});
  // Lines 5,000 bytes apart: kept.
  std::string sparse;
  for (int i = 0; i < 100; ++i) sparse += std::string(5000, '.') + "\nline x_ENOMEM\n";
  CHECK(search(sparse) == std::pair{std::size_t{100}, false});
}

TEST_CASE("the required-literal prefilter finds the lines the regex finds", "[engine][required]") {
  std::mt19937 rng(20261124);
  const auto below = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const std::vector<std::string> literals = {"ab",
                                             "ba",
                                             "aab",
                                             "Ab",
                                             "xyz",
                                             "bb",
                                             "\xC3\xA9"
                                             "a"};
  const std::vector<std::string> others = {".*",     "\\d+", "[ab]", "\\w*",      " ",
                                           "(?:q|)", "\\b",  "a?",   "(?:ab|ba)", "(?:xyz)+",
                                           "^",      "$",    "[^a]"};
  const std::vector<std::string> words = {"ab",  "ba",  "aab",      "AB",       "Ab",
                                          "xyz", "XyZ", "b",        "1",        "22",
                                          " ",   "q",   "\xC3\xA9", "\xC3\x89", "\xFF"};
  std::size_t used = 0;
  for (int round = 0; round < 600; ++round) {
    std::vector<std::string> patterns;
    const std::size_t count = 1 + below(2);
    for (std::size_t p = 0; p < count; ++p) {
      std::string pattern;
      const std::size_t items = 1 + below(5);
      for (std::size_t i = 0; i < items; ++i) {
        pattern += below(2) == 0 ? literals[below(literals.size())] : others[below(others.size())];
      }
      patterns.push_back(pattern);
    }
    PatternOptions options;
    options.case_insensitive = below(3) == 0;
    options.word = below(4) == 0;
    options.line = below(8) == 0;
    std::string hay;
    const std::size_t lines = below(40);
    for (std::size_t l = 0; l < lines; ++l) {
      const std::size_t n = below(8);
      for (std::size_t w = 0; w < n; ++w) hay += words[below(words.size())];
      hay += '\n';
    }
    if (below(4) == 0) hay += words[below(words.size())];  // no final line feed
    options.required_literals = RequiredLiterals::kAlways;
    auto tested = PatternSet::compile(patterns, options);
    options.required_literals = RequiredLiterals::kNever;
    auto reference = PatternSet::compile(patterns, options);
    options.pcre2_only = true;
    auto pcre2 = PatternSet::compile(patterns, options);
    REQUIRE(tested.ok() == reference.ok());
    if (!tested.ok()) continue;
    REQUIRE(pcre2.ok());
    if (tested->uses_required_literals()) ++used;
    INFO("patterns " << patterns[0] << (count > 1 ? " | " + patterns[1] : "")
                     << (options.case_insensitive ? " -i" : "") << (options.word ? " -w" : "")
                     << (options.line ? " -x" : "") << " on " << hay);
    const std::vector<std::size_t> expected = line_starts(*pcre2, hay);
    CHECK(line_starts(*reference, hay) == expected);
    CHECK(line_starts(*tested, hay) == expected);
  }
  // Most random sets have a required literal and Hyperscan: the prefilter ran on them.
  CHECK(used > 200);
}

TEST_CASE("searches with the required-literal prefilter report what searches without it do",
          "[engine][required][searcher]") {
  // Lines where a frequent leading literal ("re") and a rare inner one ("NOM") come and go, so
  // that candidate lines are sometimes matches, sometimes not, and sometimes dense enough for
  // the prefilter to give up (kAuto) part way.
  std::mt19937 rng(1124);
  const auto below = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const std::vector<std::string> words = {"re",
                                          "ret",
                                          "NOM",
                                          "ENOMEM",
                                          "x",
                                          " ",
                                          "\t",
                                          "\xC3\xA9",
                                          "NO",
                                          "M",
                                          "12",
                                          "\r",
                                          std::string(1, '\0')};
  const std::vector<std::string> patterns = {"re.*NOM",   "ret\\w*NOM", "(?:re|x)\\s*\\d*ENOMEM",
                                             "\\bre.NOM", "^re.*NOM$",  "re.*N(?:OM|O)E"};
  for (int round = 0; round < 400; ++round) {
    std::string hay;
    const std::size_t lines = below(300);
    const std::size_t density = 1 + below(8);
    for (std::size_t l = 0; l < lines; ++l) {
      const std::size_t n = below(6);
      for (std::size_t w = 0; w < n; ++w) {
        const std::string& word = words[below(words.size())];
        if ((word == "NOM" || word == "ENOMEM") && below(density) != 0) continue;
        hay += word;
      }
      hay += '\n';
    }
    if (below(4) == 0 && !hay.empty()) hay.pop_back();
    std::vector<std::string> chosen_patterns = {patterns[below(patterns.size())]};
    if (below(4) == 0) chosen_patterns.push_back(patterns[below(patterns.size())]);
    PatternOptions options;
    options.case_insensitive = below(4) == 0;
    options.word = below(6) == 0;
    ctx::engine::SearchOptions search;
    search.invert = below(4) == 0;
    if (below(4) == 0) search.max_count = below(6);
    search.line_numbers = below(2) == 0;
    if (below(3) == 0) search.before = below(4);
    if (below(3) == 0) search.after = below(4);
    const ctx::engine::BinaryMode modes[] = {
        ctx::engine::BinaryMode::kQuit, ctx::engine::BinaryMode::kConvert,
        ctx::engine::BinaryMode::kSuppress, ctx::engine::BinaryMode::kText};
    search.binary = modes[below(4)];
    search.passthru = below(10) == 0;
    if (below(2) == 0) search.window_bytes = 1 + below(200);
    const auto run = [&](RequiredLiterals mode) {
      options.required_literals = mode;
      auto set = PatternSet::compile(chosen_patterns, options);
      REQUIRE(set.ok());
      auto scratch = set->make_scratch();
      ctx::testing::CallRecorder recorder;
      auto reported = ctx::engine::search_buffer(*set, scratch, search, hay, recorder);
      REQUIRE(reported.ok());
      recorder.seen.push_back("reported " + std::to_string(*reported));
      return recorder.seen;
    };
    INFO("patterns " << chosen_patterns[0] << " on " << hay);
    const std::vector<std::string> expected = run(RequiredLiterals::kNever);
    CHECK(run(RequiredLiterals::kAlways) == expected);
    CHECK(run(RequiredLiterals::kAuto) == expected);
  }
}

TEST_CASE("plain ASCII regexes are decided by Hyperscan alone, and exactly",
          "[engine][plain_ascii]") {
  // Regexes of ASCII literals and classes, line anchors and small counts: no PCRE2 confirmation.
  // (Each holds a literal of 3+ bytes: the BitMatcher, exact on ASCII lines, takes the others.)
  const std::vector<std::string> plain = {"took=[0-9]{3}ms",     "^abc+d$",
                                          "(?:abc|cde)+[x-z]?e", "[A-Z]{2,5}_xyz[0-9]+",
                                          "a\\.b\\|c",           "(xyz)y*z"};
  // Everything else keeps it: any character (`.`, negated classes, Unicode \d \w \s), word
  // boundaries, inline flags, -i letters that fold to non-ASCII ones, -w.
  const std::vector<std::string> confirmed = {"a.c",   "x[^a]y",   "\\d{3}ms", "\\w+z",
                                              "\\bab", "k(?i)abc", "a\\s+b"};
  std::mt19937 rng(7);
  const std::vector<std::string> pieces = {"took=123ms",
                                           "abc",
                                           "abccd",
                                           "cde",
                                           "AB_xyz12",
                                           "a.b|c",
                                           "xyz",
                                           "k",
                                           "K",
                                           "\xE2\x84\xAA",
                                           "\xC3\xA9",
                                           "\xFF",
                                           "\r",
                                           " ",
                                           "1",
                                           "xz",
                                           "a\xC3\xA9"
                                           "c",
                                           "x\xC3\xA9y"};
  std::string hay;
  for (int line = 0; line < 400; ++line) {
    for (std::size_t n = rng() % 5; n > 0; --n) hay += pieces[rng() % pieces.size()];
    hay += '\n';
  }
  for (const bool caseless : {false, true}) {
    for (const bool word : {false, true}) {
      PatternOptions options;
      options.case_insensitive = caseless;
      options.word = word;
      for (const std::string& pattern : plain) {
        auto set = PatternSet::compile({pattern}, options);
        REQUIRE(set.ok());
        INFO(pattern << (caseless ? " -i" : "") << (word ? " -w" : ""));
        // Under -i, k and s (and ranges holding them) fold to non-ASCII characters too, and the
        // byte rewrite widens any class of letters for non-ASCII ones (then not the regex: an
        // "exact" [x-z] under -i matched "abc\u00e9e" for (?:abc|cde)+[x-z]?e).
        const bool folds_wide = caseless && (pattern.find('k') != std::string::npos ||
                                             pattern.find("A-Z") != std::string::npos ||
                                             pattern.find("x-z") != std::string::npos);
        CHECK(set->hyperscan_exact() == (!word && !folds_wide));
        PatternOptions reference = options;
        reference.pcre2_only = true;
        auto pcre2 = PatternSet::compile({pattern}, reference);
        REQUIRE(pcre2.ok());
        CHECK(line_starts(*set, hay) == line_starts(*pcre2, hay));
      }
      for (const std::string& pattern : confirmed) {
        auto set = PatternSet::compile({pattern}, options);
        REQUIRE(set.ok());
        INFO(pattern << (caseless ? " -i" : "") << (word ? " -w" : ""));
        CHECK_FALSE(set->hyperscan_exact());
      }
    }
  }
}
