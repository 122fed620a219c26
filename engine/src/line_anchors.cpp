#include "line_anchors.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace ctx::engine::detail {
namespace {

using Dialect = RegexSyntax;

struct Flags {
  bool multi_line = true;  // ripgrep's default
  bool extended = false;   // (?x): whitespace and # comments
};

// What a rewrite does with an anchor (^ or $) outside classes, escapes and comments: appends its
// replacement to `out`.
struct AnchorRule {
  enum class Kind { kRustMultiLine, kCrlf } kind;
  bool whole_buffer = false;
  bool crlf_pieces = false;  // see multi_line_anchors
  bool seen = false;         // an anchor was met
  bool unmultiline = false;  // an anchor was met where `m` was off
  bool replaced = false;     // an anchor was replaced
  // The top level (outside groups): see MultiLineAnchors.
  bool top_alternation = false;  // a '|' there
  bool first_is_start = false;   // its first item is \A or ^ where `m` is off
  bool last_is_end = false;      // its last item is \z or $ where `m` is off
  bool any_item = false;
};

class AnchorRewriter {
 public:
  AnchorRewriter(std::string_view regex, Dialect dialect, AnchorRule& rule)
      : re_(regex), dialect_(dialect), rule_(rule) {
    out_.reserve(regex.size() + 16);
    scopes_.push_back(Flags{});
  }

  std::string run() {
    while (at_ < re_.size()) step();
    return std::move(out_);
  }

 private:
  void step() {
    const char c = re_[at_];
    const Flags flags = scopes_.back();
    if (c == '\\') return copy_escape();
    if (c == '[') {
      item(false, false);
      return copy_class();
    }
    if (c == '(') return open_group();
    if (c == ')') {
      if (scopes_.size() > 1) scopes_.pop_back();
      if (depth_ > 0) --depth_;
      out_.push_back(c);
      ++at_;
      return;
    }
    if (c == '|' && depth_ == 0) rule_.top_alternation = true;
    if (flags.extended && c == '#') {  // a comment up to the end of the line
      const std::size_t end = re_.find('\n', at_);
      const std::size_t stop = end == std::string_view::npos ? re_.size() : end + 1;
      out_.append(re_.substr(at_, stop - at_));
      at_ = stop;
      return;
    }
    if (c == '^' || c == '$') return anchor(c, flags);
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    if (c != '|' && !(flags.extended && space)) item(false, false);
    out_.push_back(c);
    ++at_;
  }

  // An item (an atom, a quantifier, a group) at the top level: a haystack anchor or not.
  void item(bool haystack_start, bool haystack_end) {
    if (depth_ > 0) return;
    if (!rule_.any_item) rule_.first_is_start = haystack_start;
    rule_.any_item = true;
    rule_.last_is_end = haystack_end;
  }

  void anchor(char c, const Flags& flags) {
    ++at_;
    rule_.seen = true;
    item(c == '^' && !flags.multi_line, c == '$' && !flags.multi_line);
    if (rule_.kind == AnchorRule::Kind::kCrlf) {
      out_.append(c == '^' ? kCrlfLineStart : kCrlfLineEnd);
      rule_.replaced = true;
      return;
    }
    if (!flags.multi_line) rule_.unmultiline = true;
    if (!flags.multi_line && rule_.whole_buffer) {
      out_.append(c == '^' ? "\\A" : "\\z");
      rule_.replaced = true;
      return;
    }
    if (flags.multi_line && rule_.crlf_pieces && !rule_.whole_buffer) {
      out_.append(c == '^' ? "\\A" : "\\z");
      return;
    }
    out_.push_back(c);
  }

  // A backslash and what it escapes, with a {..} argument (\x{..}, \p{..}, \b{start}) or, in
  // PCRE2, a \Q..\E quotation.
  void copy_escape() {
    const std::size_t start = at_;
    at_ = std::min(at_ + 2, re_.size());
    if (at_ - start < 2) return copy_from(start);
    const char e = re_[start + 1];
    item(dialect_ == Dialect::kRust && e == 'A', dialect_ == Dialect::kRust && e == 'z');
    if (rule_.crlf_pieces && !rule_.whole_buffer && dialect_ == Dialect::kRust &&
        (e == 'A' || e == 'z')) {  // the haystack's ends: as ^ and $ where `m` is off
      rule_.seen = rule_.unmultiline = true;
      out_.push_back(e == 'A' ? '^' : '$');
      return;
    }
    if (dialect_ == Dialect::kPcre2 && e == 'Q') {
      const std::size_t end = re_.find("\\E", at_);
      at_ = end == std::string_view::npos ? re_.size() : end + 2;
    } else if (at_ < re_.size() && re_[at_] == '{') {
      const std::size_t end = re_.find('}', at_);
      at_ = end == std::string_view::npos ? re_.size() : end + 1;
    }
    copy_from(start);
  }

  // A bracketed class, copied whole: escapes, [:name:] items and (Rust) nested classes inside.
  void copy_class() {
    const std::size_t start = at_;
    int depth = 0;
    bool first = true;  // at a class's first item, where ']' is a literal
    while (at_ < re_.size()) {
      const char c = re_[at_];
      if (c == '[' && (depth == 0 || dialect_ == Dialect::kRust || posix_item())) {
        if (depth > 0 && posix_item()) {
          at_ = re_.find(":]", at_ + 2) + 2;
          first = false;
          continue;
        }
        ++depth;
        ++at_;
        if (at_ < re_.size() && re_[at_] == '^') ++at_;
        first = true;
        continue;
      }
      if (c == '\\') {
        copy_escape_in_class();
        first = false;
        continue;
      }
      if (c == ']' && !first && --depth == 0) {
        ++at_;
        break;
      }
      first = false;
      ++at_;
    }
    copy_from(start);
  }

  // At a '[' inside a class: whether a POSIX item ([:alpha:], [:^alpha:]) starts here.
  [[nodiscard]] bool posix_item() const {
    if (at_ + 1 >= re_.size() || re_[at_ + 1] != ':') return false;
    const std::size_t end = re_.find(":]", at_ + 2);
    if (end == std::string_view::npos) return false;
    for (std::size_t i = at_ + 2; i < end; ++i) {
      const char c = re_[i];
      if (!((c >= 'a' && c <= 'z') || (c == '^' && i == at_ + 2))) return false;
    }
    return true;
  }

  void copy_escape_in_class() {
    std::size_t next = std::min(at_ + 2, re_.size());
    if (next < re_.size() && re_[next] == '{') {
      const std::size_t end = re_.find('}', next);
      next = end == std::string_view::npos ? re_.size() : end + 1;
    }
    at_ = next;
  }

  // '(' : a group (inheriting the scope's flags), a flag group (Rust: without its `m`), or a
  // PCRE2 comment or verb, copied as it is.
  void open_group() {
    if (dialect_ == Dialect::kPcre2 && re_.substr(at_).starts_with("(?#")) {
      const std::size_t end = re_.find(')', at_);
      const std::size_t stop = end == std::string_view::npos ? re_.size() : end + 1;
      out_.append(re_.substr(at_, stop - at_));
      at_ = stop;
      return;
    }
    if (dialect_ == Dialect::kPcre2 && re_.substr(at_).starts_with("(*")) {  // (*ANYCRLF), (*FAIL)
      const std::size_t end = re_.find(')', at_);
      const std::size_t stop = end == std::string_view::npos ? re_.size() : end + 1;
      out_.append(re_.substr(at_, stop - at_));
      at_ = stop;
      return;
    }
    if (re_.substr(at_).starts_with("(?") && flag_group()) return;
    item(false, false);
    ++depth_;
    scopes_.push_back(scopes_.back());
    out_.push_back('(');
    ++at_;
  }

  // At "(?": a flag group "(?flags)" or "(?flags:" read, its flags applied, and written out
  // (Rust: without `m`). False, nothing consumed, for any other group.
  bool flag_group() {
    std::size_t i = at_ + 2;
    while (i < re_.size() && (std::isalpha(static_cast<unsigned char>(re_[i])) || re_[i] == '-')) {
      ++i;
    }
    if (i >= re_.size() || (re_[i] != ')' && re_[i] != ':')) return false;
    const std::string_view letters = re_.substr(at_ + 2, i - at_ - 2);
    const bool scoped = re_[i] == ':';
    Flags flags = scopes_.back();
    std::string on, off;
    bool negated = false;
    for (const char f : letters) {
      if (f == '-') {
        negated = true;
        continue;
      }
      if (f == 'm') flags.multi_line = !negated;
      if (f == 'x') flags.extended = !negated;
      if (f == 'm' && rule_.kind == AnchorRule::Kind::kRustMultiLine) continue;
      (negated ? off : on).push_back(f);
    }
    if (scoped) {
      item(false, false);
      ++depth_;
      scopes_.push_back(flags);
    } else {
      scopes_.back() = flags;
    }
    at_ = i + 1;
    if (rule_.kind == AnchorRule::Kind::kCrlf) {
      out_.append(re_.substr(i - letters.size() - 2, letters.size() + 3));
      return true;
    }
    if (on.empty() && off.empty()) {
      if (scoped) out_.append("(?:");
      return true;
    }
    out_.append("(?").append(on);
    if (!off.empty()) out_.append("-").append(off);
    out_.push_back(scoped ? ':' : ')');
    return true;
  }

  void copy_from(std::size_t start) { out_.append(re_.substr(start, at_ - start)); }

  std::string_view re_;
  Dialect dialect_;
  AnchorRule& rule_;
  std::string out_;
  std::size_t at_ = 0;
  std::vector<Flags> scopes_;
  int depth_ = 0;  // open groups
};

}  // namespace

MultiLineAnchors multi_line_anchors(std::string_view regex, RegexSyntax syntax, bool whole_buffer,
                                    bool crlf_pieces) {
  AnchorRule rule{AnchorRule::Kind::kRustMultiLine, whole_buffer, crlf_pieces};
  std::string out = AnchorRewriter(regex, syntax, rule).run();
  MultiLineAnchors result{std::move(out), rule.seen, rule.replaced, rule.unmultiline};
  const bool top = !rule.top_alternation && rule.any_item;
  result.ends_at_haystack_end = top && rule.last_is_end;
  result.starts_at_haystack_start = top && rule.first_is_start;
  return result;
}

std::string crlf_line_anchors(std::string_view regex, bool& replaced) {
  AnchorRule rule{AnchorRule::Kind::kCrlf};
  std::string out = AnchorRewriter(regex, Dialect::kPcre2, rule).run();
  replaced = rule.replaced;
  return out;
}

}  // namespace ctx::engine::detail
