// The token budgeter: the estimating counter's rates and subadditivity, and BudgetWriter's
// guarantees for random pieces and budgets (never over budget, the footer kept whole whenever it
// fits alone, truncation recorded), with the estimator and with a counter whose counts are not
// additive, as a real tokenizer's are not.
#include "ctx/agent/budget.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

using ctx::agent::BudgetWriter;
using ctx::agent::EstimatingCounter;
using ctx::agent::TokenCounter;

namespace {

// Charges every line break in the whole text one more token than its pieces were charged: the
// count of a concatenation exceeds the sum of its parts' counts, which a BudgetWriter must
// survive. (Per piece, a trailing "\n" is free; in the whole text, each costs 2.)
class NonAdditiveCounter final : public TokenCounter {
 public:
  std::size_t count(std::string_view text) const override {
    std::size_t newlines = 0;
    for (char c : text) newlines += c == '\n' ? 1 : 0;
    const bool trailing = !text.empty() && text.back() == '\n';
    // Pieces that are one line ending in '\n' get that newline for free.
    const std::size_t charged = newlines == 1 && trailing ? 0 : 2 * newlines;
    return (text.size() - newlines + 3) / 4 + charged;
  }
  std::string_view name() const override { return "test-non-additive"; }
};

std::string random_text(std::mt19937& rng, std::size_t max_len) {
  static const std::vector<std::string> alphabet = {
      "a", "Z", "0", " ", "_", "(", "{", "\t", "\xC3\xA9" /* é */, "\xE4\xB8\xAD" /* 中 */,
      "\xF0\x9F\x98\x80" /* 😀 */};
  std::uniform_int_distribution<std::size_t> len(0, max_len);
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string out;
  for (std::size_t n = len(rng), i = 0; i < n; ++i) out += alphabet[pick(rng)];
  return out;
}

bool valid_utf8_prefix_cut(const std::string& s) {
  // No dangling lead byte or cut sequence at the end.
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
    if (i + n > s.size()) return false;
    i += n;
  }
  return true;
}

}  // namespace

TEST_CASE("the estimator charges ASCII at 3.5 bytes a token, rounded up", "[agent][budget]") {
  EstimatingCounter c;
  CHECK(c.count("") == 0);
  CHECK(c.count("a") == 1);
  CHECK(c.count("abcdefg") == 2);    // 7 / 3.5
  CHECK(c.count("abcdefgh") == 3);   // 8 / 3.5 = 2.29, rounded up
  CHECK(c.count(std::string(350, 'x')) == 100);
}

TEST_CASE("the estimator charges non-ASCII bytes half a token each", "[agent][budget]") {
  EstimatingCounter c;
  CHECK(c.count("\xE4\xB8\xAD") == 2);                            // one CJK character: 1.5
  CHECK(c.count("\xE4\xB8\xAD\xE6\x96\x87") == 3);                // two: 3
  CHECK(c.count("\xF0\x9F\x98\x80") == 2);                        // an emoji: 2
  CHECK(c.count(std::string(100, '\xFF')) == 50);                 // invalid bytes
  CHECK(c.count("abcdefg\xE4\xB8\xAD") == 4);                     // 2 + 1.5, rounded up
  // Never below one token per character for CJK text, which tokenizers split about that finely.
  std::string cjk;
  for (int i = 0; i < 100; ++i) cjk += "\xE4\xB8\xAD";
  CHECK(c.count(cjk) >= 100);
}

TEST_CASE("the estimator is subadditive, so charging pieces never undercounts the whole",
          "[agent][budget]") {
  EstimatingCounter c;
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string a = random_text(rng, 40);
    std::string b = random_text(rng, 40);
    INFO("a='" << a << "' b='" << b << "'");
    REQUIRE(c.count(a + b) <= c.count(a) + c.count(b));
  }
}

TEST_CASE("a BudgetWriter refuses a piece that would eat into the reserve", "[agent][budget]") {
  EstimatingCounter c;
  BudgetWriter w(c, 10, 4);
  CHECK(w.append("abcdefg\n"));  // 8 bytes: 3 tokens
  CHECK(w.append("abcdefg\n"));  // 6 used
  CHECK_FALSE(w.cut());
  CHECK_FALSE(w.fits("a"));
  CHECK_FALSE(w.append("a"));
  CHECK(w.cut());
  std::string text = w.finish("[cut]");  // 2 tokens, fits the reserve
  CHECK(text == "abcdefg\nabcdefg\n[cut]");
  CHECK(c.count(text) <= 10);
  CHECK_FALSE(w.trimmed());
}

TEST_CASE("finish drops the body's last lines, not the footer, when the footer has no room",
          "[agent][budget]") {
  EstimatingCounter c;
  // No reserve: the body fills the budget and leaves the footer nothing.
  BudgetWriter w(c, 8, 0);
  REQUIRE(w.append("line one\n"));  // 9 bytes: 3 tokens
  REQUIRE(w.append("line two\n"));  // 6
  std::string text = w.finish("[footer here]");  // 13 bytes: 4 tokens
  CHECK(text == "line one\n[footer here]");
  CHECK(c.count(text) <= 8);
  CHECK(w.trimmed());
  CHECK(w.cut());
}

TEST_CASE("finish puts the footer on a line of its own", "[agent][budget]") {
  EstimatingCounter c;
  BudgetWriter w(c, 100, 10);
  REQUIRE(w.append("no newline at the end"));
  CHECK(w.finish("[end]") == "no newline at the end\n[end]");
}

TEST_CASE("finish clips a footer that cannot fit even alone, at a UTF-8 boundary",
          "[agent][budget]") {
  EstimatingCounter c;
  BudgetWriter w(c, 3, 3);
  REQUIRE_FALSE(w.append("anything"));
  std::string text = w.finish("\xE4\xB8\xAD\xE4\xB8\xAD\xE4\xB8\xAD and more");
  CHECK(c.count(text) <= 3);
  CHECK_FALSE(text.empty());
  CHECK(valid_utf8_prefix_cut(text));
}

TEST_CASE("random pieces and budgets never overrun and keep the footer whole when it fits",
          "[agent][budget][property]") {
  EstimatingCounter estimator;
  NonAdditiveCounter non_additive;
  std::mt19937 rng(20261122);
  for (const TokenCounter* counter : {static_cast<const TokenCounter*>(&estimator),
                                      static_cast<const TokenCounter*>(&non_additive)}) {
    for (int iteration = 0; iteration < 3000; ++iteration) {
      const std::size_t max_tokens = std::uniform_int_distribution<std::size_t>(0, 200)(rng);
      const std::size_t reserve = std::uniform_int_distribution<std::size_t>(0, 30)(rng);
      BudgetWriter w(*counter, max_tokens, reserve);
      std::string accepted;
      const int pieces = std::uniform_int_distribution<int>(0, 40)(rng);
      for (int p = 0; p < pieces; ++p) {
        std::string piece = random_text(rng, 30);
        if (rng() % 3 != 0) piece += '\n';
        if (w.append(piece)) accepted += piece;
      }
      const std::string footer = "[" + random_text(rng, 20) + "]";
      std::string text = w.finish(footer);
      INFO(counter->name() << " max_tokens=" << max_tokens << " reserve=" << reserve
                           << " footer='" << footer << "' text='" << text << "'");
      REQUIRE(counter->count(text) <= max_tokens);
      REQUIRE(valid_utf8_prefix_cut(text));
      if (counter->count(footer) <= max_tokens) {
        // The footer is whole and last; what precedes it is a prefix of the accepted body.
        REQUIRE(text.size() >= footer.size());
        REQUIRE(text.compare(text.size() - footer.size(), footer.size(), footer) == 0);
        std::string body = text.substr(0, text.size() - footer.size());
        if (accepted.compare(0, body.size(), body) != 0) {
          // Else the line break finish puts after a body that does not end in one.
          REQUIRE(!body.empty());
          REQUIRE(body.back() == '\n');
          body.pop_back();
          REQUIRE(!body.empty());
          REQUIRE(body.back() != '\n');
          REQUIRE(accepted.compare(0, body.size(), body) == 0);
        }
        if (body.size() < accepted.size()) REQUIRE(w.trimmed());
      } else {
        REQUIRE(footer.compare(0, text.size(), text) == 0);
      }
      if (w.trimmed()) REQUIRE(w.cut());
    }
  }
}
