// The token budgeter: the estimating counter's rates and subadditivity, and BudgetWriter's
// guarantees for random pieces and budgets (never over budget, the footer kept whole whenever it
// fits alone, truncation recorded), with the estimator and with a counter whose counts are not
// additive, as a real tokenizer's are not.
#include "ctx/agent/budget.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "token_reference.hpp"

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

// A plain quarter-of-the-bytes counter, so the writer's tests do not depend on the estimator.
class QuarterCounter final : public TokenCounter {
 public:
  std::size_t count(std::string_view text) const override { return (text.size() + 3) / 4; }
  std::string_view name() const override { return "test-bytes/4"; }
};

std::string random_text(std::mt19937& rng, std::size_t max_len) {
  static const std::vector<std::string> alphabet = {"a",
                                                    "Z",
                                                    "0",
                                                    " ",
                                                    "_",
                                                    "(",
                                                    "{",
                                                    "\t",
                                                    "\xC3\xA9" /* é */,
                                                    "\xE4\xB8\xAD" /* 中 */,
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

TEST_CASE("the estimator charges text by the runs a tokenizer splits it into", "[agent][budget]") {
  EstimatingCounter c;
  CHECK(c.count("") == 0);
  CHECK(c.count("a") == 1);
  CHECK(c.count("hello") == 1);  // letters: a token per 5
  CHECK(c.count("helloworld") == 2);
  CHECK(c.count("helloworlds") == 3);
  CHECK(c.count("123") == 1);  // digits: a token per 3
  CHECK(c.count("1234") == 2);
  CHECK(c.count("a b") == 3);     // a lone space: half a token (2.5, rounded up)
  CHECK(c.count("a    b") == 3);  // a run of spaces: one
  CHECK(c.count("();") == 3);     // punctuation: a token a byte
  CHECK(c.count("\n\n") == 2);    // line breaks: a token each
  // Dense text costs more than bytes/3.5 would say: a hex table, line-numbered output.
  CHECK(c.count("0x6a09e667, 0xbb67ae85,") > 23 * 2 / 7 + 1);
  CHECK(c.count("12:  return x;\n") >= 6);
}

TEST_CASE("the estimator charges non-ASCII bytes half a token, 4-byte characters three",
          "[agent][budget]") {
  EstimatingCounter c;
  CHECK(c.count("\xE4\xB8\xAD") == 2);              // one CJK character: 1.5, rounded up
  CHECK(c.count("\xE4\xB8\xAD\xE6\x96\x87") == 3);  // two: 3
  CHECK(c.count("\xF0\x9F\x98\x80") == 3);          // an emoji: 2 + 1
  CHECK(c.count(std::string(100, '\xFF')) == 50);   // invalid bytes
  // Never below one token per character for CJK text, which tokenizers split about that finely.
  std::string cjk;
  for (int i = 0; i < 100; ++i) cjk += "\xE4\xB8\xAD";
  CHECK(c.count(cjk) >= 100);
}

namespace {

// The estimator's count: its run-by-run definition, rounded up to whole tokens (the counter steps
// a state machine over four line-aligned parts of a text of 256 bytes or more at once).
std::size_t reference_count(std::string_view text) {
  return (ctx::testing::halves_by_runs(text) + 1) / 2;
}

}  // namespace

TEST_CASE("the estimator's count equals its run-by-run definition on any text", "[agent][budget]") {
  EstimatingCounter c;
  std::mt19937 rng(11);
  // Lines of every shape (runs of each class across line starts, CRLF, empty lines, text without
  // a line break) and lengths around the points where the counter cuts the text in four.
  static const std::vector<std::string> pieces = {
      "a",   "Zz",   "hello", "0",  "12",       "123456",       " ",
      "  ",  "    ", "\t",    "_",  "(",        "{}",           ";",
      "\n",  "\n\n", "\r\n",  "\r", "\xC3\xA9", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80",
      "\xFF"};
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    const std::size_t n = static_cast<std::size_t>(round % 300);
    for (std::size_t i = 0; i < n; ++i) text += pieces[pick(rng)];
    INFO("text: " << text);
    REQUIRE(c.count(text) == reference_count(text));
  }
  // Long runs that span the quarter points, with and without line breaks near them.
  for (std::size_t len : std::vector<std::size_t>{1, 2, 3, 4, 5, 7, 8, 63, 64, 65, 1000, 4099}) {
    for (const char* fill : {"a", "7", " ", "\n", "-", "\xE4"}) {
      std::string text(len, fill[0]);
      CHECK(c.count(text) == reference_count(text));
      for (std::size_t at : {std::size_t{0}, len / 4, len / 2, len - 1}) {
        std::string with_break = text;
        with_break[at] = '\n';
        CHECK(c.count(with_break) == reference_count(with_break));
      }
    }
  }
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
  QuarterCounter c;
  BudgetWriter w(c, 10, 4);
  CHECK(w.append("abcdefghijk\n"));  // 12 bytes: 3 tokens
  CHECK(w.append("abcdefghijk\n"));  // 6 used
  CHECK_FALSE(w.cut());
  CHECK_FALSE(w.fits("a"));
  CHECK_FALSE(w.append("a"));
  CHECK(w.cut());
  std::string text = w.finish("[cut]");  // 2 tokens, fits the reserve
  CHECK(text == "abcdefghijk\nabcdefghijk\n[cut]");
  CHECK(c.count(text) <= 10);
  CHECK_FALSE(w.trimmed());
}

TEST_CASE("finish drops the body's last lines, not the footer, when the footer has no room",
          "[agent][budget]") {
  QuarterCounter c;
  // No reserve: the body fills the budget and leaves the footer nothing.
  BudgetWriter w(c, 8, 0);
  REQUIRE(w.append("line one!!!\n"));            // 12 bytes: 3 tokens
  REQUIRE(w.append("line two!!!\n"));            // 6 used: with the footer (4) that is 10 > 8
  std::string text = w.finish("[footer here]");  // 13 bytes: 4 tokens
  CHECK(text == "line one!!!\n[footer here]");
  CHECK(c.count(text) <= 8);
  CHECK(w.trimmed());
  CHECK(w.cut());
}

TEST_CASE("finish puts the footer on a line of its own", "[agent][budget]") {
  QuarterCounter c;
  BudgetWriter w(c, 100, 10);
  REQUIRE(w.append("no newline at the end"));
  CHECK(w.finish("[end]") == "no newline at the end\n[end]");
}

TEST_CASE("finish clips a footer that cannot fit even alone, at a UTF-8 boundary",
          "[agent][budget]") {
  QuarterCounter c;
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
      INFO(counter->name() << " max_tokens=" << max_tokens << " reserve=" << reserve << " footer='"
                           << footer << "' text='" << text << "'");
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
        // The footer alone does not fit: a short one asks for a larger budget (cut only where
        // even it does not fit), never a footer cut short.
        const std::string fallback = "(the next call does not fit in max_tokens=";
        REQUIRE((text.starts_with(fallback) || fallback.compare(0, text.size(), text) == 0));
      }
      if (w.trimmed()) REQUIRE(w.cut());
    }
  }
}

TEST_CASE("the estimator's max_count bounds the count of every text of that many bytes",
          "[agent][budget]") {
  EstimatingCounter counter;
  // The worst bytes: 4-byte lead bytes alone (3 half tokens each), punctuation, lone letters.
  for (const std::string& worst :
       {std::string(301, '\xF0'), std::string(300, '('), std::string("a.a.a.a.a."),
        std::string("\xF4"), std::string("\n\n\n")}) {
    INFO(worst.size());
    CHECK(counter.count(worst) <= counter.max_count(worst.size()));
  }
  CHECK(counter.count(std::string(301, '\xF0')) == counter.max_count(301));  // the bound is tight
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int i = 0; i < 2000; ++i) {
    std::string text = random_text(rng, 600);
    if (i % 2 == 0) {  // arbitrary bytes, invalid UTF-8 included
      for (char& c : text) c = static_cast<char>(byte(rng));
    }
    INFO(i);
    REQUIRE(counter.count(text) <= counter.max_count(text.size()));
  }
}

namespace {

// The estimator without its bound: every piece is counted as it is appended.
class UnboundedEstimator final : public TokenCounter {
 public:
  std::size_t count(std::string_view text) const override { return inner_.count(text); }
  std::string_view name() const override { return "test-estimator-unbounded"; }

 private:
  EstimatingCounter inner_;
};

}  // namespace

TEST_CASE("counting pieces on their bound accepts and refuses exactly what counting each would",
          "[agent][budget]") {
  EstimatingCounter bounded;
  UnboundedEstimator counted;
  std::mt19937 rng(5);
  std::uniform_int_distribution<std::size_t> budget(1, 3000);
  std::uniform_int_distribution<std::size_t> pieces(0, 80);
  for (int round = 0; round < 500; ++round) {
    const std::size_t max_tokens = budget(rng);
    const std::size_t reserve = max_tokens / 10;
    BudgetWriter a(bounded, max_tokens, reserve);
    BudgetWriter b(counted, max_tokens, reserve);
    for (std::size_t n = pieces(rng), i = 0; i < n; ++i) {
      const std::string piece = random_text(rng, 120) + "\n";
      INFO(round << " " << i);
      REQUIRE(a.fits(piece) == b.fits(piece));
      REQUIRE(a.append(piece) == b.append(piece));
      if (i % 7 == 0) REQUIRE(a.used() == b.used());
    }
    REQUIRE(a.used() == b.used());
    REQUIRE(a.cut() == b.cut());
    const std::string footer = "(footer " + std::to_string(round) + ")";
    REQUIRE(a.finish(footer) == b.finish(footer));
    REQUIRE(a.used() == b.used());
  }
}

TEST_CASE("count_on_finish(false) skips the whole count only where the bounds prove it fits",
          "[agent][budget]") {
  EstimatingCounter counter;
  std::mt19937 rng(77);
  const std::string alphabet = "ab1 \t\n.,(){}\xC3\xA9";
  int skipped = 0;
  for (int round = 0; round < 400; ++round) {
    const std::size_t budget = std::uniform_int_distribution<std::size_t>(5, 600)(rng);
    const std::size_t reserve = std::uniform_int_distribution<std::size_t>(0, 20)(rng);
    BudgetWriter counting(counter, budget, reserve);
    BudgetWriter lazy(counter, budget, reserve);
    lazy.count_on_finish(false);
    const int pieces = std::uniform_int_distribution<int>(0, 30)(rng);
    for (int i = 0; i < pieces; ++i) {
      std::string piece;
      const int len = std::uniform_int_distribution<int>(0, 40)(rng);
      for (int j = 0; j < len; ++j) piece += alphabet[rng() % alphabet.size()];
      REQUIRE(counting.append(piece) == lazy.append(piece));
    }
    std::string footer = "(footer " + std::to_string(round) + ")";
    const std::string a = counting.finish(footer);
    const std::string b = lazy.finish(footer);
    INFO("round " << round);
    REQUIRE(a == b);
    CHECK(counting.used() == counter.count(a));
    CHECK(counter.count(b) <= budget);
    if (lazy.used() == 0 && !b.empty() && counter.count(b) > 0) ++skipped;
    CHECK((lazy.used() == counting.used() || lazy.used() == 0));
  }
  CHECK(skipped > 0);
}

TEST_CASE("count_on_finish(false) still counts with a counter that is not subadditive",
          "[agent][budget]") {
  class Lines final : public TokenCounter {
   public:
    std::size_t count(std::string_view text) const override {
      std::size_t lines = 0;
      for (char c : text) lines += c == '\n' ? 1 : 0;
      return text.size() / 4 + lines * lines;
    }
    std::string_view name() const override { return "lines"; }
    std::size_t max_count(std::size_t bytes) const override { return bytes; }
  } counter;
  BudgetWriter writer(counter, 10000, 0);
  writer.count_on_finish(false);
  for (int i = 0; i < 20; ++i) REQUIRE(writer.append("abcd\n"));
  const std::string text = writer.finish("end");
  CHECK(writer.used() == counter.count(text));
}

TEST_CASE("the estimator counts many pieces at once as the sum of their counts",
          "[agent][budget]") {
  EstimatingCounter counter;
  std::mt19937 rng(31);
  const std::string alphabet = "abcXYZ019 \t\n\r.,(){}\"\xC3\xA9\xE6\xBC\xA2\xF0\x9F\x98\x80";
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    std::vector<std::size_t> ends;
    const std::size_t from = rng() % 4;
    text.append(from, 'p');  // bytes before the first piece, not counted
    // Every other round the pieces are lines (one '\n' each, at the end; the last maybe none),
    // the way renderers charge them; otherwise line breaks fall anywhere.
    const bool lines = round % 2 == 0;
    const int pieces = std::uniform_int_distribution<int>(0, 120)(rng);
    for (int i = 0; i < pieces; ++i) {
      const int len = rng() % 9 == 0 ? 0 : std::uniform_int_distribution<int>(1, 80)(rng);
      for (int j = 0; j < len; ++j) {
        char c = alphabet[rng() % alphabet.size()];
        if (lines && c == '\n') c = ' ';
        text += c;
      }
      if (lines ? (i + 1 < pieces || rng() % 2 == 0) && len > 0 : rng() % 2 == 0) text += '\n';
      ends.push_back(text.size());
    }
    if (rng() % 3 == 0) text += "after";  // bytes after the last piece, not counted
    std::size_t want = 0;
    std::size_t at = from;
    for (std::size_t end : ends) {
      want += counter.count(std::string_view(text).substr(at, end - at));
      at = end;
    }
    INFO("round " << round << " pieces " << pieces);
    REQUIRE(counter.count_pieces(text, from, ends) == want);
  }
}

TEST_CASE("count_on_finish(false) does not count the whole text when the body's count fits",
          "[agent][budget]") {
  // The pieces' bounds reach the budget (so they are counted), but their counts leave room for
  // the footer: finish appends it without counting the whole body again.
  class Tally final : public TokenCounter {
   public:
    std::size_t count(std::string_view text) const override {
      bytes += text.size();
      return inner.count(text);
    }
    std::string_view name() const override { return "tally"; }
    std::size_t max_count(std::size_t n) const override { return inner.max_count(n); }
    bool subadditive() const override { return true; }
    EstimatingCounter inner;
    mutable std::size_t bytes = 0;
  } counter;
  BudgetWriter writer(counter, 2000, 20);  // less than the footer's bound (51)
  writer.count_on_finish(false);
  std::size_t body = 0;
  for (int i = 0; i < 200; ++i) {
    const std::string line = "    line number " + std::to_string(i) + " of words\n";
    if (!writer.append(line)) break;
    body += line.size();
  }
  REQUIRE(writer.cut());
  counter.bytes = 0;
  const std::string text = writer.finish("(footer: lines cut at max_tokens)");
  CHECK(counter.inner.count(text) <= 2000);
  CHECK(text.size() == body + 33);
  CHECK(counter.bytes < body / 2);  // the pending pieces and the footer, not the whole
  CHECK(writer.used() == 0);
}

TEST_CASE("append_parts decides and writes exactly as append of the parts joined",
          "[agent][budget]") {
  EstimatingCounter counter;
  std::mt19937 rng(41);
  const std::string alphabet = "ab1 \t\n.,\xC3\xA9";
  for (int round = 0; round < 300; ++round) {
    const std::size_t budget = std::uniform_int_distribution<std::size_t>(5, 800)(rng);
    const std::size_t reserve = std::uniform_int_distribution<std::size_t>(0, 20)(rng);
    BudgetWriter joined(counter, budget, reserve);
    BudgetWriter parted(counter, budget, reserve);
    for (int i = 0; i < 40; ++i) {
      std::array<std::string, 3> parts;
      for (std::string& part : parts) {
        const int len = std::uniform_int_distribution<int>(0, 15)(rng);
        for (int j = 0; j < len; ++j) part += alphabet[rng() % alphabet.size()];
      }
      const std::array<std::string_view, 3> views = {parts[0], parts[1], parts[2]};
      INFO("round " << round << " piece " << i);
      REQUIRE(joined.append(parts[0] + parts[1] + parts[2]) == parted.append_parts(views));
      REQUIRE(joined.used() == parted.used());
    }
    REQUIRE(joined.finish("(end)") == parted.finish("(end)"));
  }
}

TEST_CASE("a piece written in place is taken or left to append exactly as append would decide",
          "[agent][budget]") {
  EstimatingCounter bounded;
  UnboundedEstimator unbounded;
  std::mt19937 rng(41);
  int in_place = 0;
  int declined = 0;
  for (int round = 0; round < 600; ++round) {
    const std::size_t max_tokens = std::uniform_int_distribution<std::size_t>(1, 2500)(rng);
    const std::size_t reserve = max_tokens / 8;
    BudgetWriter plain(bounded, max_tokens, reserve);
    BudgetWriter placed(bounded, max_tokens, reserve);
    BudgetWriter never(unbounded, max_tokens, reserve);
    if (round % 3 == 0) placed.reserve(std::uniform_int_distribution<std::size_t>(0, 5000)(rng));
    const int pieces = std::uniform_int_distribution<int>(0, 60)(rng);
    for (int i = 0; i < pieces; ++i) {
      const std::string piece = random_text(rng, 150) + (rng() % 4 != 0 ? "\n" : "");
      INFO("round " << round << " piece " << i);
      REQUIRE(never.append_in_place(piece.size()) == nullptr);  // no bound: always counted
      const bool want = plain.append(piece);
      bool got = false;
      if (rng() % 5 == 0) {  // plain appends between in-place ones
        got = placed.append(piece);
      } else if (char* at = placed.append_in_place(piece.size())) {
        REQUIRE(want);  // taken on its bound: append takes it too
        std::memcpy(at, piece.data(), piece.size());
        std::memset(at + piece.size(), '#', BudgetWriter::kInPlaceSlack);  // not part of the text
        got = true;
        ++in_place;
      } else {
        got = placed.append(piece);
        ++declined;
      }
      REQUIRE(got == want);
      if (i % 5 == 0) REQUIRE(placed.used() == plain.used());
    }
    REQUIRE(placed.cut() == plain.cut());
    const std::string footer = "(end " + std::to_string(round) + ")";
    REQUIRE(placed.finish(footer) == plain.finish(footer));
    REQUIRE(placed.used() == plain.used());
  }
  CHECK(in_place > 1000);
  CHECK(declined > 100);
}
