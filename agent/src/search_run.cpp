// run_search: the walker finds files in parallel and the thread that found a file searches it (as
// the CLI does), every file through the policy before it is opened and again where it really
// leads. Results are merged and sorted at the end, so their order never depends on thread timing;
// the collected-match cap keeps the matches of the smallest paths, so it is deterministic too.
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <queue>

#include "ctx/base/json.hpp"
#include "ctx/engine/searcher.hpp"
#include "ctx/walker/overrides.hpp"
#include "ctx/walker/per_thread.hpp"
#include "ctx/walker/walker.hpp"
#include "json_writer.hpp"
#include "sandbox_detail.hpp"
#include "search_results.hpp"
#include "session.hpp"
#include "tool_common.hpp"

namespace ctx::agent {

void SkipCount::add(std::string_view path) {
  ++count;
  auto at = std::lower_bound(examples.begin(), examples.end(), path);
  if (at != examples.end() && *at == path) return;
  if (examples.size() < kMaxExamples || at != examples.end()) {
    examples.insert(at, std::string(path));
    if (examples.size() > kMaxExamples) examples.pop_back();
  }
}

void SkipCount::merge(const SkipCount& other) {
  const std::uint64_t total = count + other.count;
  for (const std::string& p : other.examples) add(p);
  count = total;
}

std::uint64_t SearchResults::item_count() const {
  return mode == SearchMode::kContent ? total_matches : files.size();
}

namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // U+2026

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The line as stored: valid UTF-8, clipped to `max_bytes` around its first match with markers
// that say how much was cut, `spans` moved into the stored text (spans cut off are dropped).
SearchLine store_line(std::uint64_t number, std::string_view line,
                      const std::vector<engine::MatchSpan>& spans, bool is_match,
                      std::size_t max_bytes, const engine::PatternSet& patterns,
                      engine::PatternSet::Scratch& scratch) {
  SearchLine out;
  out.number = number;
  out.is_match = is_match;
  std::size_t begin = 0;
  std::size_t end = line.size();
  if (line.size() > max_bytes) {
    // A window of max_bytes that holds the first match (a quarter of the window before it).
    if (!spans.empty() && spans.front().end > max_bytes) {
      begin = spans.front().start > max_bytes / 4 ? spans.front().start - max_bytes / 4 : 0;
    }
    end = std::min(line.size(), begin + max_bytes);
    if (end - begin < max_bytes) begin = end > max_bytes ? end - max_bytes : 0;
    while (begin > 0 && begin < line.size() && is_continuation(line[begin])) ++begin;
    while (end < line.size() && end > begin && is_continuation(line[end])) --end;
  }
  std::string_view window = line.substr(begin, end - begin);
  if (begin > 0) out.text = fmt::format("[{}{} bytes] ", kEllipsis, grouped(begin));
  const std::size_t shift = out.text.size();
  const bool valid = is_valid_utf8(window);
  if (valid) {
    out.text.append(window);
  } else {
    out.text.append(lossy_utf8(window));
  }
  if (is_match) {
    if (valid) {
      for (const engine::MatchSpan& s : spans) {
        if (s.start >= begin && s.end <= end && s.end > s.start) {
          out.spans.push_back({s.start - begin + shift, s.end - begin + shift});
        }
      }
    } else {
      // Offsets moved where bytes became U+FFFD: find the spans in the text as shown.
      std::vector<engine::MatchSpan> shown;
      std::string_view text = std::string_view(out.text).substr(shift);
      if (patterns.find_spans(text, scratch, shown).ok()) {
        for (const engine::MatchSpan& s : shown) {
          if (s.end > s.start) out.spans.push_back({s.start + shift, s.end + shift});
        }
      }
    }
  }
  if (end < line.size()) {
    out.text += fmt::format(" [{}{} more bytes]", kEllipsis, grouped(line.size() - end));
  }
  return out;
}

// A file the walk found, opened for reading.
struct WalkFile {
  UniqueFd fd;
  std::string canonical;  // root-relative: where the fd really leads
  struct stat st;
};

// Opens the walk's file `path` beneath the root. The walk never follows symlinks, so the fast
// path opens it the same way (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, O_NOFOLLOW): the fd
// then leads to exactly `path`, which is its canonical path with no /proc read-back. A symlink
// met on the way (a directory swapped since the walk listed it) fails the open. Without openat2,
// Sandbox::open_beneath opens it and reads back where it led.
// The caller must check the fstat's type before reading: a FIFO or device node swapped in since
// the walk is opened (O_NONBLOCK: a FIFO without a writer does not block) but never read.
Expected<WalkFile> open_walk_file(const Sandbox& sandbox, std::string_view path) {
  if (const detail::WalkOpenHook hook = detail::walk_open_hook()) hook(path);
  WalkFile out{UniqueFd(), std::string(), {}};
  if (detail::openat2_available()) {
    std::string name(path);
    struct open_how how {};
    // O_NONBLOCK: a file swapped for a FIFO since the walk must not block the open; the caller
    // reads regular files only.
    how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd = -1;
    for (int attempt = 0; attempt < 64; ++attempt) {
      fd = ::syscall(SYS_openat2, sandbox.root_fd(), name.c_str(), &how, sizeof how);
      if (fd >= 0 || (errno != EINTR && errno != EAGAIN)) break;
    }
    if (fd < 0) {
      return ToolError{ToolErrorCode::kIoError,
                       fmt::format("'{}' cannot be opened (os error {})", path, errno), ""};
    }
    out.fd = UniqueFd(static_cast<int>(fd));
    if (::fstat(out.fd.get(), &out.st) != 0) {
      return ToolError{ToolErrorCode::kIoError, fmt::format("'{}' cannot be read", path), ""};
    }
    out.canonical = std::move(name);
    return out;
  }
  CTX_TRY_ASSIGN(OpenedPath opened, sandbox.open_beneath(path));
  out.fd = std::move(opened.fd);
  out.canonical = std::move(opened.canonical);
  out.st = opened.st;
  return out;
}

// Per-thread state: the pattern scratch, a read buffer, results and counts kept until the merge.
struct Worker {
  engine::PatternSet::Scratch scratch;
  engine::FileBuffer buffer;
  std::vector<engine::MatchSpan> spans;
  std::vector<SearchFileHits> files;  // files and count modes (content goes to the Collector)
  SkipCount binary, too_large, timeout, unreadable, regex_limit;
  std::uint64_t searched = 0;
  std::size_t memory = 0;
  // The policy's verdict on the directory of the last file this thread saw: the walk hands a
  // thread a directory's files one after another, so each directory is checked about once.
  std::string dir;
  Visibility dir_visibility = Visibility::kVisible;
  bool dir_known = false;
};

// Gathers one file's lines as the searcher reports them.
class FileSink final : public engine::LineSink {
 public:
  FileSink(const SearchQuery& query, const engine::PatternSet& patterns, Worker& worker,
           const CallContext& context, SearchFileHits& hits)
      : query_(query), patterns_(patterns), w_(worker), context_(context), hits_(hits) {}

  engine::Flow on_line(std::uint64_t number, std::uint64_t, std::string_view line) override {
    ++hits_.count;
    if (query_.mode != SearchMode::kContent) return engine::Flow::kContinue;
    w_.spans.clear();
    if (Status s = patterns_.find_spans(line, w_.scratch, w_.spans); !s.ok()) w_.spans.clear();
    hits_.matches.push_back(static_cast<std::uint32_t>(hits_.lines.size()));
    push(store_line(number, line, w_.spans, true, context_.config.limits.max_line_bytes, patterns_,
                    w_.scratch));
    // A huge file is checked against the deadline as it goes, not only between files (and the
    // regex engine checks it between match attempts: see Search's stop_check_).
    if ((hits_.count & 63) == 0 && context_.expired()) {
      expired_ = true;
      return engine::Flow::kStop;
    }
    return engine::Flow::kContinue;
  }
  engine::Flow on_context(std::uint64_t number, std::uint64_t, std::string_view line) override {
    static const std::vector<engine::MatchSpan> no_spans;
    push(store_line(number, line, no_spans, false, context_.config.limits.max_line_bytes, patterns_,
                    w_.scratch));
    return engine::Flow::kContinue;
  }
  void on_context_break() override {}
  void on_binary(std::uint64_t, bool matched) override {
    binary_ = true;
    binary_matched_ = binary_matched_ || matched;
  }

  bool binary() const { return binary_; }
  bool binary_matched() const { return binary_matched_; }
  bool expired() const { return expired_; }

 private:
  void push(SearchLine line) {
    w_.memory += sizeof(SearchLine) + line.text.size() + line.spans.size() * 16;
    hits_.lines.push_back(std::move(line));
  }

  const SearchQuery& query_;
  const engine::PatternSet& patterns_;
  Worker& w_;
  const CallContext& context_;
  SearchFileHits& hits_;
  bool binary_ = false;
  bool binary_matched_ = false;
  bool expired_ = false;
};

// Content-mode matches from every thread, bounded by Limits::max_collected_matches: a max-heap
// on path drops the files with the largest paths while the others still hold the cap, and once
// the cap is held, files whose path sorts after every kept file are not searched at all. So the
// kept matches are always the first `cap` of the whole tree in (path, line) order.
class Collector {
 public:
  explicit Collector(std::uint64_t cap) : cap_(cap) {}

  // Whether `path` could still be kept.
  bool wanted(std::string_view path) {
    if (!bounded_.load(std::memory_order_acquire)) return true;
    std::lock_guard lock(mutex_);
    return heap_.empty() || path < heap_.front().path;
  }

  void add(SearchFileHits hits) {
    std::lock_guard lock(mutex_);
    total_ += hits.matches.size();
    heap_.push_back(std::move(hits));
    std::push_heap(heap_.begin(), heap_.end(), by_path);
    while (!heap_.empty() && total_ - heap_.front().matches.size() >= cap_) {
      total_ -= heap_.front().matches.size();
      std::pop_heap(heap_.begin(), heap_.end(), by_path);
      heap_.pop_back();
      capped_ = true;
    }
    if (total_ >= cap_) {
      capped_ = capped_ || total_ > cap_;
      bounded_.store(true, std::memory_order_release);
    }
  }

  // The kept files sorted by path, the last one cut so that exactly `cap` matches remain when
  // more were found.
  std::vector<SearchFileHits> take(bool& capped) {
    std::sort(heap_.begin(), heap_.end(),
              [](const SearchFileHits& a, const SearchFileHits& b) { return a.path < b.path; });
    if (total_ > cap_ && !heap_.empty()) {
      SearchFileHits& last = heap_.back();
      std::size_t keep = last.matches.size() - static_cast<std::size_t>(total_ - cap_);
      // Keep the lines up to the last kept match's trailing context.
      std::size_t cut = keep == 0 ? 0 : last.matches[keep - 1] + 1;
      while (cut < last.lines.size() && !last.lines[cut].is_match) ++cut;
      last.lines.resize(cut);
      last.matches.resize(keep);
      last.count = keep;
      total_ = cap_;
      capped_ = true;
      if (keep == 0) heap_.pop_back();
    }
    capped = capped_;
    return std::move(heap_);
  }

  // A file whose path sorts after every kept file once the cap is held is skipped unsearched;
  // that alone means more matches may exist.
  void note_skipped() {
    std::lock_guard lock(mutex_);
    capped_ = true;
  }

 private:
  static bool by_path(const SearchFileHits& a, const SearchFileHits& b) { return a.path < b.path; }

  std::uint64_t cap_;
  std::mutex mutex_;
  std::vector<SearchFileHits> heap_;  // max-heap on path
  std::uint64_t total_ = 0;
  bool capped_ = false;
  std::atomic<bool> bounded_{false};
};

class Search final : public walker::WalkSink {
 public:
  Search(const SearchQuery& query, const engine::PatternSet& patterns, const CallContext& context)
      : query_(query),
        patterns_(patterns),
        context_(context),
        collector_(std::max<std::uint64_t>(context.config.limits.max_collected_matches, 1)),
        stop_check_([this] { return context_.expired(); }),
        workers_([this] {
          return Worker{
              patterns_.make_scratch(), {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, false};
        }) {}

  walker::Flow on_file(const walker::WalkEntry& entry) override {
    if (entry.type != walker::EntryType::kFile) return walker::Flow::kContinue;
    Worker& w = workers_.local();
    if (visited_.fetch_add(1, std::memory_order_relaxed) >= context_.config.limits.max_visited) {
      visit_capped_.store(true, std::memory_order_relaxed);
      return walker::Flow::kStop;
    }
    if (visibility(entry.path, w) != Visibility::kVisible) {
      policy_hidden_.fetch_add(1, std::memory_order_relaxed);
      return walker::Flow::kContinue;
    }
    if (context_.expired()) {
      expired_.store(true, std::memory_order_relaxed);
      w.timeout.add(entry.path);
      return walker::Flow::kStop;
    }
    search_file(entry.path, w);
    return expired_.load(std::memory_order_relaxed) ? walker::Flow::kStop : walker::Flow::kContinue;
  }

  void on_error(const Error& error) override {
    // "PATH: reason (os error N)". Only visible paths may be mentioned, even as a count.
    std::string_view detail = error.detail;
    std::size_t colon = detail.rfind(": ");
    if (colon == std::string_view::npos) return;
    std::string_view path = detail.substr(0, colon);
    if (path.empty() || !context_.policy.visible(path, true) ||
        !context_.policy.visible(path, false)) {
      policy_hidden_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    workers_.local().unreadable.add(path);
  }

  SearchResults finish() {
    SearchResults out;
    out.mode = query_.mode;
    workers_.for_each([&](Worker& w) {
      out.binary.merge(w.binary);
      out.too_large.merge(w.too_large);
      out.timeout.merge(w.timeout);
      out.unreadable.merge(w.unreadable);
      out.regex_limit.merge(w.regex_limit);
      out.files_searched += w.searched;
      out.memory_bytes += w.memory;
      for (SearchFileHits& f : w.files) out.files.push_back(std::move(f));
    });
    if (query_.mode == SearchMode::kContent) {
      out.files = collector_.take(out.capped);
      for (const SearchFileHits& f : out.files) out.total_matches += f.matches.size();
    } else {
      std::sort(out.files.begin(), out.files.end(),
                [](const SearchFileHits& a, const SearchFileHits& b) { return a.path < b.path; });
      for (const SearchFileHits& f : out.files) out.total_matches += f.count;
    }
    out.memory_bytes += out.files.size() * sizeof(SearchFileHits);
    for (const SearchFileHits& f : out.files) out.memory_bytes += f.path.size();
    out.timed_out =
        expired_.load() && !(context_.cancelled != nullptr && context_.cancelled->load());
    out.cancelled = expired_.load() && !out.timed_out;
    out.visit_capped = visit_capped_.load();
    out.policy_hidden = policy_hidden_.load();
    return out;
  }

 private:
  // Policy::check(path, false), with the directory's verdict taken from the thread's memo.
  Visibility visibility(std::string_view path, Worker& w) const {
    const std::size_t slash = path.rfind('/');
    const std::string_view dir =
        slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
    if (!w.dir_known || dir != w.dir) {
      w.dir.assign(dir);
      w.dir_visibility = context_.policy.check(dir, true);
      w.dir_known = true;
    }
    if (w.dir_visibility != Visibility::kVisible) return w.dir_visibility;
    return context_.policy.check_entry(path, false);
  }

  void search_file(std::string_view walk_path, Worker& w) {
    if (query_.mode == SearchMode::kContent && !collector_.wanted(walk_path)) {
      // Counted as searched: whether a file is read before the cap rules it out depends on
      // thread timing, and files_searched must not.
      ++w.searched;
      collector_.note_skipped();
      return;
    }
    auto opened = open_walk_file(context_.sandbox, walk_path);
    if (!opened.ok()) {
      w.unreadable.add(walk_path);
      return;
    }
    // Where the path really leads must be visible too (a directory swapped for a symlink).
    const std::string& path = opened->canonical;
    if (path != walk_path && !context_.policy.visible(path, false)) {
      policy_hidden_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    if (!S_ISREG(opened->st.st_mode)) {
      w.unreadable.add(path);
      return;
    }
    if (static_cast<std::uint64_t>(opened->st.st_size) >
        context_.config.limits.max_search_file_bytes) {
      w.too_large.add(path);
      return;
    }
    auto bytes = w.buffer.read_fd(opened->fd.get(), opened->st, path, /*stop_at_nul=*/true);
    if (!bytes.ok()) {
      w.unreadable.add(path);
      return;
    }
    ++w.searched;
    std::string_view hay = *bytes;

    SearchFileHits hits;
    hits.path = path;
    engine::SearchOptions options;
    options.line_numbers = query_.mode == SearchMode::kContent;
    // kSuppress: a file with a NUL byte (read up to its first NUL chunk) reports no lines, only
    // on_binary when it matches: binary files are never shown, and one that matches is reported
    // as skipped. Text files are searched whole.
    options.binary = engine::BinaryMode::kSuppress;
    if (query_.mode == SearchMode::kContent) {
      options.before = query_.context;
      options.after = query_.context;
      options.max_count = context_.config.limits.max_collected_matches;
    } else if (query_.mode == SearchMode::kFilesWithMatches) {
      options.max_count = 1;
    }
    FileSink sink(query_, patterns_, w, context_, hits);
    // A regex that backtracks for long inside one file still stops at the deadline.
    w.scratch.set_interrupt(&stop_check_);
    auto searched = engine::search_buffer(patterns_, w.scratch, options, hay, sink);
    if (!searched.ok()) {
      if (context_.expired()) {  // the regex engine stopped at the deadline (or a cancel)
        expired_.store(true, std::memory_order_relaxed);
        w.timeout.add(path);
      } else if (engine::is_regex_limit(searched.error())) {
        w.regex_limit.add(path);
      } else {
        w.unreadable.add(path);
      }
      return;
    }
    if (sink.expired()) expired_.store(true, std::memory_order_relaxed);
    if (sink.binary()) {
      if (sink.binary_matched() || *searched > 0) w.binary.add(path);
      return;
    }
    if (hits.count == 0) return;
    if (query_.mode == SearchMode::kContent) {
      collector_.add(std::move(hits));
    } else {
      w.memory += path.size() + sizeof(SearchFileHits);
      w.files.push_back(std::move(hits));
    }
  }

  const SearchQuery& query_;
  const engine::PatternSet& patterns_;
  const CallContext& context_;
  Collector collector_;
  const std::function<bool()> stop_check_;  // the engine's interrupt: the deadline or a cancel
  walker::PerThread<Worker> workers_;
  std::atomic<std::uint64_t> visited_{0};
  std::atomic<std::size_t> policy_hidden_{0};
  std::atomic<bool> expired_{false};
  std::atomic<bool> visit_capped_{false};
};

}  // namespace

Expected<SearchResults> run_search(const SearchQuery& query, const engine::PatternSet& patterns,
                                   const CallContext& context) {
  walker::Overrides overrides;
  for (const std::string& glob : query.globs) {
    if (Status s = overrides.add(glob, false); !s.ok()) {
      return ToolError{ToolErrorCode::kInvalidArgument,
                       fmt::format("the glob '{}' is invalid: {}", glob, s.error().detail),
                       "globs use gitignore syntax as in rg -g: '*.py', 'src/**/*.ts', "
                       "'!*_test.go' (exclude); give several as '*.h,*.cpp'"};
    }
  }
  walker::WalkOptions options;
  options.beneath_fd = context.sandbox.root_fd();
  options.paths = {query.path};
  // Dotfiles are searched, as find_files and list_directory show them (.github/, .eslintrc); the
  // policy hides secrets and the walker .git.
  options.hidden = true;
  if (context.session != nullptr) options.ignore_cache = &context.session->impl().ignores;
  options.overrides = overrides.empty() ? nullptr : &overrides;
  Search search(query, patterns, context);
  if (Status s = walker::walk(options, search); !s.ok()) {
    return ToolError{ToolErrorCode::kIoError,
                     fmt::format("the search could not start: {}", s.error().detail),
                     "check that the path exists with list_directory"};
  }
  return search.finish();
}

}  // namespace ctx::agent
