// ctxsearch's entry point: parse arguments, build the walker's filters, run, print, and turn what
// happened into ripgrep's exit codes (0 found, 1 nothing found, 2 an error).

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fcntl.h>
#include <fmt/format.h>
#include <pcre2.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "colors.hpp"
#include "ctx/agent/commands.hpp"
#include "ctx/walker/overrides.hpp"
#include "ctx/walker/per_thread.hpp"
#include "ctx/walker/types.hpp"
#include "ctx/walker/walker.hpp"
#include "hyperlink.hpp"
#include "output.hpp"
#include "search.hpp"
#include "stdin_entry.hpp"

namespace ctx::cli {
namespace {

constexpr std::size_t kFlushBytes = 64 << 10;

// Prints paths for --files. Each worker thread fills its own buffer and writes whole buffers
// under a lock, so lines never interleave and nothing is shared on the hot path.
class PathPrinter final : public walker::WalkSink {
 public:
  // `color`: the escape that starts a colored path (empty: no color). `separator`: what '/'
  // prints as (--path-separator). `flush_bytes`: buffered output past this is written (1: each
  // path at once, --line-buffered). `messages`: whether errors are printed (--no-messages);
  // `ignore_messages`: whether ignore-file errors are (--no-ignore-messages).
  // `links`: --hyperlink-format's links around each path (null: none); it outlives the printer.
  PathPrinter(char terminator, bool quiet, std::string color, std::optional<char> separator,
              std::size_t flush_bytes, bool messages, bool ignore_messages,
              const Hyperlinker* links)
      : terminator_(terminator),
        quiet_(quiet),
        color_(std::move(color)),
        separator_(separator),
        flush_bytes_(flush_bytes),
        messages_(messages),
        ignore_messages_(ignore_messages),
        links_(links) {}

  walker::Flow on_file(const walker::WalkEntry& entry) override {
    found_.store(true, std::memory_order_relaxed);
    if (quiet_) return walker::Flow::kStop;
    std::string& buf = buffers_.local();
    const std::size_t start = buf.size();
    buf.append(color_);
    const std::size_t at = buf.size();
    buf.append(entry.path);
    if (separator_)
      std::replace(buf.begin() + static_cast<std::ptrdiff_t>(at), buf.end(), '/', *separator_);
    // As rg, the path as printed (--path-separator included) is what gets canonicalized.
    std::optional<std::string> target;
    if (links_ != nullptr) target = Hyperlinker::link_path(std::string_view(buf).substr(at));
    if (target) {
      std::string open;
      links_->open(open, *target, std::nullopt, std::nullopt);
      buf.insert(start, open);
    }
    if (!color_.empty()) buf.append(kColorReset);
    if (target) Hyperlinker::close(buf);
    buf.push_back(terminator_);
    if (buf.size() >= flush_bytes_ && !flush(buf)) return walker::Flow::kStop;
    return walker::Flow::kContinue;
  }

  void on_error(const Error& error) override {
    errored_.store(true, std::memory_order_relaxed);
    if (!messages_) return;
    std::lock_guard lock(mutex_);
    print_error(error.detail);
  }

  // As rg: a warning (the exit status stays), hidden by --no-ignore-messages.
  void on_ignore_error(const Error& error) override {
    if (!messages_ || !ignore_messages_) return;
    std::lock_guard lock(mutex_);
    print_error(error.detail);
  }

  void finish() {
    buffers_.for_each([this](std::string& buf) { flush(buf); });
  }
  bool found() const { return found_.load(); }
  bool errored() const { return errored_.load(); }

 private:
  bool flush(std::string& buf) {
    std::lock_guard lock(mutex_);
    bool ok = broken_pipe_ || write_stdout(buf);
    buf.clear();
    if (!ok) broken_pipe_ = true;
    return !broken_pipe_;
  }

  char terminator_;
  bool quiet_;
  std::string color_;
  std::optional<char> separator_;
  std::size_t flush_bytes_;
  bool messages_;
  bool ignore_messages_;
  const Hyperlinker* links_;
  std::mutex mutex_;
  bool broken_pipe_ = false;
  std::atomic<bool> found_{false}, errored_{false};
  walker::PerThread<std::string> buffers_;
};

// --pcre2-version, as rg 14 words it.
std::string pcre2_version_text() {
  std::string version(64, '\0');
  const int n = pcre2_config(PCRE2_CONFIG_VERSION, version.data());
  version.resize(n > 0 ? static_cast<std::size_t>(n) - 1 : 0);
  version.resize(std::min(version.size(), version.find(' ')));  // "10.42 2022-12-11": 10.42
  std::uint32_t jit = 0;
  pcre2_config(PCRE2_CONFIG_JIT, &jit);
  return fmt::format("PCRE2 {} is available ({})\n", version,
                     jit != 0 ? "JIT is available" : "JIT is unavailable");
}

walker::WalkEntry stdin_entry() {
  walker::WalkEntry e{};
  e.path = kStdinName;
  return e;
}

// Hands the files of a --sortr path walk on, with "<stdin>" entries (`-` roots) where that name
// sorts among them.
class StdinAmongSorted final : public walker::WalkSink {
 public:
  StdinAmongSorted(walker::WalkSink& inner, std::size_t stdins) : inner_(inner), pending_(stdins) {}
  walker::Flow on_file(const walker::WalkEntry& entry) override {
    if (!sorts_after_stdin_name(entry.path) && finish() == walker::Flow::kStop) {
      return walker::Flow::kStop;
    }
    return inner_.on_file(entry);
  }
  void on_error(const Error& error) override { inner_.on_error(error); }
  void on_ignore_error(const Error& error) override { inner_.on_ignore_error(error); }
  // Hands on the entries still pending.
  walker::Flow finish() {
    for (; pending_ > 0; --pending_) {
      if (inner_.on_file(stdin_entry()) == walker::Flow::kStop) {
        return walker::Flow::kStop;
      }
    }
    return walker::Flow::kContinue;
  }

 private:
  walker::WalkSink& inner_;
  std::size_t pending_;
};

// --files over args.walk.paths, where rg 14 lists `-` as "<stdin>" (see stdin_entry.hpp): in its
// place on a walk in order (one thread, --sort path), first on several threads.
Status list_files(Args& args, walker::WalkSink& printer) {
  const std::vector<std::string> paths = args.walk.paths;
  std::vector<std::string> rest;
  std::ranges::copy_if(paths, std::back_inserter(rest), [](const auto& p) { return p != "-"; });
  const std::size_t stdins = paths.size() - rest.size();
  if (stdins == 0) return walker::walk(args.walk, printer);
  const walker::WalkOptions& w = args.walk;
  auto list_stdin = [&](std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) printer.on_file(stdin_entry());
  };
  auto walk = [&](std::vector<std::string> run) -> Status {
    if (run.empty()) return {};
    args.walk.paths = std::move(run);
    return walker::walk(args.walk, printer);
  };
  if (w.sort == walker::SortBy::kPath && w.sort_reverse) {
    StdinAmongSorted sink(printer, stdins);
    Status s;
    if (!rest.empty()) {
      args.walk.paths = rest;
      s = walker::walk(args.walk, sink);
    }
    sink.finish();
    return s;
  }
  if (w.sort == walker::SortBy::kPath || (w.sort == walker::SortBy::kNone && w.walk_order)) {
    std::vector<std::string> run;
    for (const std::string& p : paths) {
      if (p != "-") {
        run.push_back(p);
        continue;
      }
      CTX_TRY(walk(std::exchange(run, {})));
      list_stdin(1);
    }
    return walk(run);
  }
  // By a time, ascending: after the files; reversed, or unsorted on several threads: first.
  const bool last = w.sort != walker::SortBy::kNone && !w.sort_reverse;
  if (!last) list_stdin(stdins);
  CTX_TRY(walk(rest));
  if (last) list_stdin(stdins);
  return {};
}

int run_files(Args& args) {
  auto filters = build_filters(args);
  if (!filters.ok()) {
    print_error(filters.error().detail);
    return 2;
  }
  args.walk.paths = args.positionals;
  args.walk.overrides = &filters->overrides;
  args.walk.types = &filters->types;
  args.walk.walkdir_errors = rg_one_thread(args.walk, rg_is_one_file(args.walk.paths, false));
  args.walk.walk_order = args.walk.walkdir_errors;
  args.walk.list_ahead = true;  // --files --sort path: listing is all the work there is
  const bool color = color_enabled(args.color);
  std::optional<Hyperlinker> links;  // as rg 14: only with colors on
  if (color && !args.hyperlink_format.empty()) {
    links.emplace(args.hyperlink_format, hyperlink_hostname(args.hostname_bin));
  }
  PathPrinter printer(args.null ? '\0' : '\n', args.quiet,
                      color ? color_specs(args.colors).path : std::string(), args.path_separator,
                      args.buffer == Args::Buffer::kLine ? 1 : kFlushBytes, !args.no_messages,
                      !args.no_ignore_messages, links ? &*links : nullptr);
  if (Status s = list_files(args, printer); !s.ok()) {
    print_error(s.error().detail);
    return 2;
  }
  printer.finish();
  if (printer.found() && (args.quiet || !printer.errored())) return 0;
  return printer.errored() ? 2 : 1;
}

int run(int argc, char** argv) {
  std::vector<std::string> arguments(argv + 1, argv + argc);
  // As ripgrep, an unreadable config file is reported and the command runs without it.
  if (auto config = config_args(arguments); config.ok()) {
    arguments.insert(arguments.begin(), config->begin(), config->end());
  } else {
    print_error(config.error().detail);
  }
  auto parsed = parse_args(arguments);
  if (!parsed.ok()) {
    print_error(parsed.error().detail);
    return 2;
  }
  Args& args = *parsed;
  switch (args.mode) {
    case Args::Mode::kHelp:
      return write_stdout(help_text()) ? 0 : 2;
    case Args::Mode::kVersion:
      return write_stdout("ctxsearch 0.1.0\n") ? 0 : 2;
    case Args::Mode::kPcre2Version:
      return write_stdout(pcre2_version_text()) ? 0 : 2;
    case Args::Mode::kTypeList: {
      auto filters = build_filters(args);
      if (!filters.ok()) {
        print_error(filters.error().detail);
        return 2;
      }
      return write_stdout(filters->table.list()) ? 0 : 2;
    }
    case Args::Mode::kGenerate: {
      auto text = generate(args.generate);
      if (!text.ok()) {
        print_error(text.error().detail);
        return 2;
      }
      return write_stdout(*text) ? 0 : 2;
    }
    case Args::Mode::kFiles:
      return run_files(args);
    case Args::Mode::kSearch:
      break;
  }
  return run_search(args);
}

}  // namespace
}  // namespace ctx::cli

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);  // a closed pipe ends the output quietly (EPIPE), as in ripgrep
  // A closed stdin reads as empty, as Rust's (ripgrep's) stdin does (`-`, `-f -`); /dev/null
  // takes fd 0 so that no file opened later is mistaken for stdin.
  if (::fcntl(STDIN_FILENO, F_GETFD) < 0 && errno == EBADF) {
    [[maybe_unused]] const int fd = ::open("/dev/null", O_RDONLY);
  }
  try {
    // `ctxsearch mcp|tool|tools ...` are the agent's commands; anything else is rg-compatible.
    if (std::optional<int> code = ctx::agent::run_agent_command(argc, argv)) return *code;
    return ctx::cli::run(argc, argv);
  } catch (const std::exception& e) {
    ctx::cli::print_error(fmt::format("internal error: {}", e.what()));
    return 2;
  }
}
