#include "colors.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <optional>

namespace ctx::cli {
namespace {

// termcolor's Color: the eight named colors (their ANSI index), a 256-color index, or RGB.
struct Color {
  enum class Kind : std::uint8_t { kNamed, kAnsi256, kRgb } kind = Kind::kNamed;
  std::array<std::uint8_t, 3> v{};  // kNamed/kAnsi256: v[0]; kRgb: r, g, b
};

// termcolor's ColorSpec, as ripgrep merges specs into it.
struct Spec {
  std::optional<Color> fg, bg;
  bool bold = false, intense = false, underline = false;

  // termcolor's Ansi::set_color: reset, bold, underline, foreground, background.
  std::string escape() const {
    std::string out(kColorReset);
    if (bold) out += "\x1b[1m";
    if (underline) out += "\x1b[4m";
    if (fg) out += color(*fg, true);
    if (bg) out += color(*bg, false);
    return out;
  }
  std::string color(const Color& c, bool foreground) const {
    const char* ext = foreground ? "38" : "48";
    switch (c.kind) {
      case Color::Kind::kNamed:
        if (intense) return fmt::format("\x1b[{};5;{}m", ext, c.v[0] + 8);
        return fmt::format("\x1b[{}{}m", foreground ? '3' : '4', c.v[0]);
      case Color::Kind::kAnsi256:
        return fmt::format("\x1b[{};5;{}m", ext, c.v[0]);
      case Color::Kind::kRgb:
        return fmt::format("\x1b[{};2;{};{};{}m", ext, c.v[0], c.v[1], c.v[2]);
    }
    return {};
  }
};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

// A number as termcolor reads one: decimal, or hex after "0x"; an optional '+' (Rust's
// from_str_radix takes one).
std::optional<std::uint8_t> parse_number(std::string_view s) {
  int base = 10;
  if (s.substr(0, 2) == "0x") {
    s.remove_prefix(2);
    base = 16;
  }
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+' || s.front() == '-') return std::nullopt;
  std::uint8_t n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return n;
}

// termcolor's Color::from_str, with its error messages.
Result<Color> parse_color(std::string_view s) {
  static constexpr std::array<std::string_view, 8> kNames = {"black", "red",     "green", "yellow",
                                                             "blue",  "magenta", "cyan",  "white"};
  const std::string name = lower(s);
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (name == kNames[i]) return Color{Color::Kind::kNamed, {static_cast<std::uint8_t>(i)}};
  }
  const Error bad_name{ErrorCode::kInvalidArgument,
                       fmt::format("unrecognized color name '{}'. Choose from: black, blue, "
                                   "green, red, cyan, magenta, yellow, white",
                                   s)};
  const Error bad_rgb{ErrorCode::kInvalidArgument,
                      fmt::format("unrecognized RGB color triple, should be "
                                  "'[0-255],[0-255],[0-255]' (or a hex triple), but is '{}'",
                                  s)};
  const auto commas = std::count(s.begin(), s.end(), ',');
  if (commas == 0) {
    if (auto n = parse_number(s)) return Color{Color::Kind::kAnsi256, {*n}};
    if (std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c) != 0; })) {
      return Error{ErrorCode::kInvalidArgument,
                   fmt::format("unrecognized ansi256 color number, should be '[0-255]' (or a "
                               "hex number), but is '{}'",
                               s)};
    }
    return bad_name;
  }
  if (commas != 2) return bad_rgb;
  Color c{Color::Kind::kRgb, {}};
  std::size_t at = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const std::size_t comma = s.find(',', at);
    auto n = parse_number(s.substr(at, comma == std::string_view::npos ? s.npos : comma - at));
    if (!n) return bad_rgb;
    c.v[i] = *n;
    at = comma + 1;
  }
  return c;
}

enum class Target : std::uint8_t { kPath, kLine, kColumn, kMatch };

struct Parsed {
  Target target;
  std::string kind;  // fg, bg, style, none
  std::optional<Color> color;
  std::string style;
};

// ripgrep's UserColorSpec::from_str, with its error messages.
Result<Parsed> parse_spec(std::string_view spec) {
  std::vector<std::string_view> pieces;
  for (std::size_t at = 0;;) {
    const std::size_t colon = spec.find(':', at);
    pieces.push_back(spec.substr(at, colon == std::string_view::npos ? spec.npos : colon - at));
    if (colon == std::string_view::npos) break;
    at = colon + 1;
  }
  const Error format{ErrorCode::kInvalidArgument,
                     fmt::format("invalid color spec format: '{}'. Valid format is "
                                 "'(path|line|column|match):(fg|bg|style):(value)'.",
                                 spec)};
  if (pieces.size() <= 1 || pieces.size() > 3) return format;
  Parsed p{};
  const std::string target = lower(pieces[0]);
  if (target == "path") {
    p.target = Target::kPath;
  } else if (target == "line") {
    p.target = Target::kLine;
  } else if (target == "column") {
    p.target = Target::kColumn;
  } else if (target == "match") {
    p.target = Target::kMatch;
  } else {
    return Error{ErrorCode::kInvalidArgument,
                 fmt::format("unrecognized output type '{}'. Choose from: path, line, column, "
                             "match.",
                             pieces[0])};
  }
  p.kind = lower(pieces[1]);
  if (p.kind != "fg" && p.kind != "bg" && p.kind != "style" && p.kind != "none") {
    return Error{
        ErrorCode::kInvalidArgument,
        fmt::format("unrecognized spec type '{}'. Choose from: fg, bg, style, none.", pieces[1])};
  }
  if (p.kind == "none") return p;
  if (pieces.size() < 3) return format;
  if (p.kind == "style") {
    p.style = lower(pieces[2]);
    static constexpr std::array<std::string_view, 6> kStyles = {
        "bold", "nobold", "intense", "nointense", "underline", "nounderline"};
    if (std::find(kStyles.begin(), kStyles.end(), p.style) == kStyles.end()) {
      return Error{ErrorCode::kInvalidArgument,
                   fmt::format("unrecognized style attribute '{}'. Choose from: nobold, bold, "
                               "nointense, intense, nounderline, underline.",
                               pieces[2])};
    }
    return p;
  }
  CTX_TRY_ASSIGN(p.color, parse_color(pieces[2]));
  return p;
}

void merge(const Parsed& p, Spec& s) {
  if (p.kind == "none") {
    s = Spec{};
  } else if (p.kind == "fg") {
    s.fg = p.color;
  } else if (p.kind == "bg") {
    s.bg = p.color;
  } else if (p.style == "bold" || p.style == "nobold") {
    s.bold = p.style == "bold";
  } else if (p.style == "intense" || p.style == "nointense") {
    s.intense = p.style == "intense";
  } else {
    s.underline = p.style == "underline";
  }
}

}  // namespace

bool color_enabled(Args::Color when) {
  if (when != Args::Color::kAuto) return when == Args::Color::kAlways;
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) != 0 && term != nullptr && std::string_view(term) != "dumb";
}

Status check_color_spec(std::string_view spec) {
  CTX_TRY(parse_spec(spec));
  return {};
}

ColorSpecs color_specs(const std::vector<std::string>& specs) {
  std::array<Spec, 4> merged{};
  std::vector<std::string> all = {"path:fg:magenta", "line:fg:green", "match:fg:red",
                                  "match:style:bold"};
  all.insert(all.end(), specs.begin(), specs.end());
  for (const std::string& spec : all) {
    auto parsed = parse_spec(spec);
    if (parsed.ok()) merge(*parsed, merged[static_cast<std::size_t>(parsed->target)]);
  }
  const Spec& m = merged[3];
  const bool match_none = !m.fg && !m.bg && !m.bold && !m.intense && !m.underline;
  return ColorSpecs{merged[0].escape(), merged[1].escape(), merged[2].escape(), merged[3].escape(),
                    match_none};
}

}  // namespace ctx::cli
