// without_extended_syntax (byte_mode.hpp): Rust's x flag read away, lexically, then checked
// against the byte-mode translator, which parses it as regex-syntax does.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "byte_mode.hpp"

namespace ctx::engine::detail {
namespace {

constexpr std::string_view kSpace = " \t\n\v\f\r";

bool is_space(char c) { return kSpace.find(c) != std::string_view::npos; }

// Copies `regex` with the x flag's whitespace and comments dropped, tracking the flag through
// groups and flag groups and the class nesting ([a[b]], [[:alpha:]]). Lexical only: a reading
// that differs from regex-syntax's is caught by the caller's comparison of translations.
class Stripper {
 public:
  explicit Stripper(std::string_view regex) : re_(regex) {}

  std::string run() {
    while (at_ < re_.size()) {
      if (class_depth_ > 0) {
        class_step();
      } else {
        step();
      }
    }
    return out_;
  }

 private:
  void step() {
    const char c = re_[at_];
    if (x_ && is_space(c)) {
      ++at_;
    } else if (x_ && c == '#') {
      while (at_ < re_.size() && re_[at_] != '\n') ++at_;
    } else if (c == '\\') {
      escape();
    } else if (c == '[') {
      class_open();
    } else if (c == '(') {
      group_open();
    } else if (c == ')') {
      if (!scopes_.empty()) {
        x_ = scopes_.back();
        scopes_.pop_back();
      }
      out_ += c;
      ++at_;
    } else {
      out_ += c;
      ++at_;
    }
  }

  // A backslash and what it escapes (a whole UTF-8 character); an escaped whitespace character
  // under x is that character, spelled so that no flag is needed to read it.
  void escape() {
    if (at_ + 1 >= re_.size()) {
      out_ += re_.substr(at_);
      at_ = re_.size();
      return;
    }
    const char c = re_[at_ + 1];
    if (x_ && is_space(c)) {
      out_ += fmt::format("\\x{{{:02X}}}", static_cast<unsigned char>(c));
      at_ += 2;
      return;
    }
    std::size_t end = at_ + 2;
    while (end < re_.size() && (static_cast<unsigned char>(re_[end]) & 0xC0) == 0x80) ++end;
    out_ += re_.substr(at_, end - at_);
    at_ = end;
  }

  // `[`, then (whitespace under x) an optional `^` and a `]` that is a member.
  void class_open() {
    if (class_depth_ == 0) class_x_ = x_;
    ++class_depth_;
    out_ += '[';
    ++at_;
    skip_class_space();
    if (at_ < re_.size() && re_[at_] == '^') {
      out_ += '^';
      ++at_;
      skip_class_space();
    }
    if (at_ < re_.size() && re_[at_] == ']') {
      out_ += ']';
      ++at_;
    }
  }

  void skip_class_space() {
    while (class_x_ && at_ < re_.size() && is_space(re_[at_])) ++at_;
  }

  void class_step() {
    const char c = re_[at_];
    if (class_x_ && is_space(c)) {
      ++at_;
    } else if (c == '\\') {
      const bool outer = x_;
      x_ = class_x_;
      escape();
      x_ = outer;
    } else if (c == '[') {
      const std::size_t close = re_.find(":]", at_);
      if (re_.substr(at_, 2) == "[:" && close != std::string_view::npos &&
          re_.substr(at_ + 2, close - at_ - 2).find_first_of("[]") == std::string_view::npos) {
        out_ += re_.substr(at_, close + 2 - at_);  // [:alpha:] as written
        at_ = close + 2;
      } else {
        class_open();
      }
    } else if (c == ']') {
      --class_depth_;
      out_ += c;
      ++at_;
    } else {
      out_ += c;
      ++at_;
    }
  }

  // `(`: a group (the flag's scope), or a flag group whose x leaves its flags.
  void group_open() {
    ++at_;
    if (at_ >= re_.size() || re_[at_] != '?') {
      scopes_.push_back(x_);
      out_ += '(';
      return;
    }
    std::size_t j = at_ + 1;
    while (j < re_.size() && std::string_view("imsuxUR-").find(re_[j]) != std::string_view::npos) {
      ++j;
    }
    if (j >= re_.size() || (re_[j] != ')' && re_[j] != ':')) {  // (?P<name>, (?<name>: a group
      scopes_.push_back(x_);
      out_ += '(';
      return;
    }
    std::string kept;
    bool x = x_, negated = false;
    for (std::size_t k = at_ + 1; k < j; ++k) {
      const char f = re_[k];
      if (f == '-') negated = true;
      if (f == 'x') {
        x = !negated;
      } else {
        kept += f;
      }
    }
    if (!kept.empty() && kept.back() == '-') kept.pop_back();  // (?i-x) is (?i)
    if (re_[j] == ':') {
      scopes_.push_back(x_);
      out_ += "(?" + kept + ":";
    } else if (!kept.empty()) {
      out_ += "(?" + kept + ")";
    }
    x_ = x;
    at_ = j + 1;
  }

  std::string_view re_;
  std::size_t at_ = 0;
  std::string out_;
  bool x_ = false;
  std::vector<bool> scopes_;  // the flag outside each open group
  int class_depth_ = 0;
  bool class_x_ = false;  // the flag where the outermost open class began
};

bool mentions_x_flag(std::string_view regex) {
  for (std::size_t at = regex.find("(?"); at != std::string_view::npos;
       at = regex.find("(?", at + 2)) {
    for (std::size_t j = at + 2; j < regex.size(); ++j) {
      const char c = regex[j];
      if (c == 'x') return true;
      if (std::string_view("imsuUR-").find(c) == std::string_view::npos) break;
    }
  }
  return false;
}

}  // namespace

std::optional<std::string> without_extended_syntax(std::string_view regex,
                                                   const ByteRegexOptions& options) {
  if (!mentions_x_flag(regex)) return std::nullopt;
  ByteRegexOptions exact = options;  // the exact translation: assertions and names kept
  exact.superset = false;
  auto typed = rust_to_bytes(regex, exact);
  if (!typed.ok()) return std::nullopt;
  std::string plain = Stripper(regex).run();
  RustFacts facts;
  auto rewritten = rust_to_bytes(plain, exact, &facts);
  if (!rewritten.ok() || facts.differs || *rewritten != *typed || mentions_x_flag(plain)) {
    return std::nullopt;
  }
  return plain;
}

}  // namespace ctx::engine::detail
