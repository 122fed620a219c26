// Fuzz target for the CLI's argument parsers. Input: the arguments, separated by NUL bytes (each
// at most 256 bytes, at most 24 of them). Traps when:
// - parse_args gives different outcomes (or error messages) for the same arguments twice;
// - an error has an empty message, or one that is not a single line starting with something
//   other than whitespace (the CLI prints it after "ctxsearch: ");
// - a parse that succeeded holds a --colors spec that check_color_spec refuses, or
//   build_filters (-t/-T/--type-add/--type-clear, -g/--iglob) gives different outcomes twice or
//   an empty error message;
// - a sanitizer fires.
// Parsing is the first thing every command does, so a crash here is a crash of ctxsearch on some
// command line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "colors.hpp"
#include "output.hpp"

namespace {

constexpr std::size_t kMaxArgs = 24;
constexpr std::size_t kMaxArgBytes = 256;

std::vector<std::string> split_args(std::string_view input) {
  std::vector<std::string> argv;
  while (argv.size() < kMaxArgs) {
    const std::size_t nul = input.find('\0');
    argv.emplace_back(input.substr(0, std::min({nul, input.size(), kMaxArgBytes})));
    if (nul == std::string_view::npos) break;
    input.remove_prefix(nul + 1);
  }
  return argv;
}

// An error message as the CLI prints it: non-empty; its first line not blank and not starting
// with whitespace (the message follows "ctxsearch: ").
bool printable_error(std::string_view message) {
  if (message.empty()) return false;
  const char first = message.front();
  return first != ' ' && first != '\t' && first != '\n' && first != '\r';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> argv =
      split_args(std::string_view(reinterpret_cast<const char*>(data), size));
  auto args = ctx::cli::parse_args(argv);
  auto again = ctx::cli::parse_args(argv);
  if (args.ok() != again.ok()) __builtin_trap();
  if (!args.ok()) {
    if (!printable_error(args.error().detail)) __builtin_trap();
    if (args.error().detail != again.error().detail) __builtin_trap();
    return 0;
  }
  for (const std::string& spec : args->colors) {
    if (!ctx::cli::check_color_spec(spec).ok()) __builtin_trap();
  }
  (void)ctx::cli::color_specs(args->colors);
  auto filters = ctx::cli::build_filters(*args);
  auto filters_again = ctx::cli::build_filters(*args);
  if (filters.ok() != filters_again.ok()) __builtin_trap();
  if (!filters.ok() && filters.error().detail.empty()) __builtin_trap();
  return 0;
}
