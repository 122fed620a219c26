#include "chunked.hpp"

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "ctx/walker/walker.hpp"

namespace ctx::cli {
namespace {

constexpr std::size_t kNulLookBytes = 64 << 10;  // what ripgrep checks of a whole file up front

int thread_count(const ChunkedLimits& limits) {
  return limits.threads > 0 ? limits.threads : static_cast<int>(walker::cores());
}

// One chunk [begin, end) of the file, searched on some thread and recorded for the sink.
struct ChunkRecord {
  struct Line {
    std::uint64_t number;  // from the chunk's first line (1); 0 without line numbers
    std::uint64_t offset;  // in the file
    std::string_view bytes;
  };
  std::size_t begin = 0, end = 0;
  std::vector<Line> lines;
  std::optional<std::uint64_t> binary;  // the NUL noticed (file offset), before lines[binary_at]
  std::size_t binary_at = 0;
  // Where the record stopped: `end`, or earlier when it reached max_chunk_lines (the caller then
  // searches [resume, end) itself).
  std::size_t resume = 0;
  std::uint64_t newlines = 0;  // line feeds in [begin, resume), when line numbers are asked for
  std::optional<Error> error;
  std::atomic<int> state{kUnclaimed};
  static constexpr int kUnclaimed = 0, kClaimed = 1, kDone = 2;
};

class ChunkRecorder final : public engine::LineSink {
 public:
  ChunkRecorder(ChunkRecord& record, std::size_t max_lines) : r_(record), max_lines_(max_lines) {}
  engine::Flow on_line(std::uint64_t number, std::uint64_t offset, std::string_view line) override {
    r_.lines.push_back({number, offset, line});
    return r_.lines.size() >= max_lines_ ? engine::Flow::kStop : engine::Flow::kContinue;
  }
  // No context lines in a chunked search (can_search_in_chunks' caller rules them out).
  engine::Flow on_context(std::uint64_t, std::uint64_t, std::string_view) override {
    return engine::Flow::kContinue;
  }
  void on_context_break() override {}
  void on_binary(std::uint64_t offset, bool /*matched*/) override {
    if (r_.binary) return;
    r_.binary = offset;
    r_.binary_at = r_.lines.size();
  }

 private:
  ChunkRecord& r_;
  std::size_t max_lines_;
};

// Forwards to the real sink with line numbers shifted to the file's, the first binary notice
// only (one search over the file notices once) with whether any line came before it, and no
// on_haystack/on_finish (the caller gives the whole file's).
class Replay final : public engine::LineSink {
 public:
  explicit Replay(engine::LineSink& to) : to_(to) {}
  void set_line_base(std::uint64_t base) { base_ = base; }
  bool stopped() const { return stopped_; }
  engine::Flow on_line(std::uint64_t number, std::uint64_t offset, std::string_view line) override {
    matched_ = true;
    const engine::Flow flow = to_.on_line(number == 0 ? 0 : number + base_, offset, line);
    stopped_ = stopped_ || flow == engine::Flow::kStop;
    return flow;
  }
  engine::Flow on_context(std::uint64_t number, std::uint64_t offset,
                          std::string_view line) override {
    const engine::Flow flow = to_.on_context(number == 0 ? 0 : number + base_, offset, line);
    stopped_ = stopped_ || flow == engine::Flow::kStop;
    return flow;
  }
  void on_context_break() override { to_.on_context_break(); }
  void on_binary(std::uint64_t offset, bool /*matched*/) override {
    if (binary_) return;
    binary_ = true;
    to_.on_binary(offset, matched_);
  }

 private:
  engine::LineSink& to_;
  std::uint64_t base_ = 0;
  bool matched_ = false, binary_ = false, stopped_ = false;
};

// The search of one large file: chunk boundaries, the chunks' searches, their replay.
class ChunkedSearch {
 public:
  ChunkedSearch(const engine::PatternSet& set, ChunkScratches& scratches,
                const engine::SearchOptions& options, std::string_view hay,
                const engine::FileBuffer& buffer, const ChunkedLimits& limits)
      : set_(set),
        scratches_(scratches),
        options_(options),
        hay_(hay),
        buffer_(buffer),
        limits_(limits) {
    options_.first_line_number = 1;
    options_.nul_only_in_reported_lines = true;
    options_.bom_sniffing = false;  // can_search_in_chunks: no BOM
    // Every chunk but the last holds at least chunk_bytes; their bounds are found as they are
    // claimed (finding them all first would read a byte every chunk_bytes, and the kernel maps a
    // whole large folio of the page cache around each: the whole file at once).
    const std::size_t most = hay.size() / std::max<std::size_t>(limits.chunk_bytes, 1) + 1;
    chunks_.reserve(most);
    for (std::size_t i = 0; i < most; ++i) chunks_.push_back(std::make_unique<ChunkRecord>());
    count_.store(most);
  }

  Status run(engine::LineSink& sink) {
    const int threads = thread_count(limits_);
    window_ = 4 * static_cast<std::size_t>(std::max(threads, 1));
    Status status;
    // Isolated: while it waits for the helpers, this thread runs nothing but them (another
    // file's search on this thread would reuse the buffer that holds this file).
    tbb::this_task_arena::isolate([&] {
      tbb::task_group helpers;
      for (int i = 1; i < threads; ++i) helpers.run([this] { help(); });
      status = replay_all(sink);
      replay_moved(kAllReplayed);
      helpers.wait();
    });
    return status;
  }

 private:
  static constexpr std::size_t kAllReplayed = ~std::size_t{0};

  // A helper thread: searches the next unclaimed chunk while it lies within the window ahead of
  // the replay, until none is left or the replay has ended.
  void help() {
    for (;;) {
      const std::uint32_t epoch = replay_epoch_.load();
      const std::size_t replayed = replayed_.load();
      if (replayed == kAllReplayed) return;
      const std::size_t next = next_claim_.load();
      if (next >= count_.load()) return;
      if (next >= replayed + window_) {
        replay_epoch_.wait(epoch);
        continue;
      }
      claim_and_search(next);
    }
  }

  // The replay moved on (or ended): wakes the helpers waiting for the window.
  void replay_moved(std::size_t replayed) {
    replayed_.store(replayed);
    replay_epoch_.fetch_add(1);
    replay_epoch_.notify_all();
  }

  // Claims chunk `c` if it is still the next unclaimed one (finding its bounds: it starts where
  // the chunk before ended and ends at the first line end past chunk_bytes) and searches it.
  bool claim_and_search(std::size_t c) {
    {
      std::lock_guard<std::mutex> lock(claim_mutex_);
      if (next_claim_.load() != c || c >= count_.load()) return false;
      ChunkRecord& r = *chunks_[c];
      r.begin = c == 0 ? 0 : chunks_[c - 1]->end;
      r.end = std::min(hay_.size(), r.begin + limits_.chunk_bytes);
      if (r.end < hay_.size()) {
        const void* nl = std::memchr(hay_.data() + r.end, '\n', hay_.size() - r.end);
        r.end = nl == nullptr
                    ? hay_.size()
                    : static_cast<std::size_t>(static_cast<const char*>(nl) - hay_.data()) + 1;
      }
      if (r.end == hay_.size()) count_.store(c + 1);
      r.state.store(ChunkRecord::kClaimed);
      next_claim_.store(c + 1);
    }
    ChunkRecord& r = *chunks_[c];
    search(r);
    r.state.store(ChunkRecord::kDone, std::memory_order_release);
    r.state.notify_all();
    return true;
  }

  engine::PatternSet::Scratch& scratch() {
    std::optional<engine::PatternSet::Scratch>& slot = scratches_.local();
    if (!slot) slot.emplace(set_.make_scratch());
    return *slot;
  }

  void search(ChunkRecord& r) {
    engine::FileBuffer::Borrow borrow(buffer_);
    engine::SearchOptions o = options_;
    o.base_offset = r.begin;
    ChunkRecorder recorder(r, limits_.max_chunk_lines);
    const std::string_view chunk = hay_.substr(r.begin, r.end - r.begin);
    auto got = engine::search_buffer(set_, scratch(), o, chunk, recorder);
    if (!got.ok()) r.error = got.error();
    r.resume = r.end;
    std::size_t counted_from = r.begin;  // line feeds before it: r.newlines
    if (r.lines.size() >= limits_.max_chunk_lines) {
      const ChunkRecord::Line& last = r.lines.back();
      const std::size_t last_end = last.offset + last.bytes.size();
      const void* nl = std::memchr(hay_.data() + last_end, '\n', r.end - last_end);
      r.resume = nl == nullptr
                     ? r.end
                     : static_cast<std::size_t>(static_cast<const char*>(nl) - hay_.data()) + 1;
    }
    if (!options_.line_numbers) return;
    if (!r.lines.empty()) {  // the search counted the lines up to its last reported one
      r.newlines = r.lines.back().number - 1;
      counted_from = r.lines.back().offset;
    }
    if (r.resume > counted_from) {
      r.newlines += engine::count_byte(hay_.substr(counted_from, r.resume - counted_from), '\n');
    }
  }

  Status replay_all(engine::LineSink& sink) {
    sink.on_haystack(hay_);
    Replay replay(sink);
    std::uint64_t line_base = 0;
    for (std::size_t i = 0; i < count_.load(); ++i) {
      ChunkRecord& r = *chunks_[i];
      wait_for(i);
      replay.set_line_base(line_base);
      for (std::size_t k = 0; k < r.lines.size() && !replay.stopped(); ++k) {
        if (r.binary && k == r.binary_at) replay.on_binary(*r.binary, false);
        const ChunkRecord::Line& line = r.lines[k];
        replay.on_line(line.number, line.offset, line.bytes);
      }
      if (r.binary && r.binary_at == r.lines.size() && !replay.stopped()) {
        replay.on_binary(*r.binary, false);
      }
      if (r.error) return *r.error;
      line_base += r.newlines;
      if (r.resume < r.end && !replay.stopped()) {  // the record stopped early: the rest, here
        engine::FileBuffer::Borrow borrow(buffer_);
        engine::SearchOptions o = options_;
        o.base_offset = r.resume;
        replay.set_line_base(line_base);
        const std::string_view rest = hay_.substr(r.resume, r.end - r.resume);
        CTX_TRY(engine::search_buffer(set_, scratch(), o, rest, replay));
        if (options_.line_numbers) line_base += engine::count_byte(rest, '\n');
      }
      std::vector<ChunkRecord::Line>().swap(r.lines);  // this chunk's memory goes
      sink.on_progress(r.end);                         // and its pages may
      replay_moved(i + 1);
      if (replay.stopped()) break;
    }
    sink.on_finish(hay_.size());
    return {};
  }

  // Until chunk `i` is recorded: this thread searches the chunks it can claim meanwhile (`i`
  // itself when no helper took it yet), then waits.
  void wait_for(std::size_t i) {
    ChunkRecord& r = *chunks_[i];
    while (r.state.load(std::memory_order_acquire) != ChunkRecord::kDone) {
      const std::size_t next = next_claim_.load();
      if (next < count_.load() && next < i + window_ && claim_and_search(next)) continue;
      if (next <= i) continue;  // `i` is not claimed yet: claim it
      r.state.wait(ChunkRecord::kClaimed, std::memory_order_acquire);
    }
  }

  const engine::PatternSet& set_;
  ChunkScratches& scratches_;
  engine::SearchOptions options_;
  std::string_view hay_;
  const engine::FileBuffer& buffer_;
  ChunkedLimits limits_;
  std::vector<std::unique_ptr<ChunkRecord>> chunks_;  // at most this many; count_ are used
  std::atomic<std::size_t> count_{0};  // the chunks: an upper bound until the last is claimed
  std::mutex claim_mutex_;             // claims happen in order, one at a time
  std::size_t window_ = 2;
  std::atomic<std::size_t> next_claim_{0};
  std::atomic<std::size_t> replayed_{0};
  // Bumped whenever replayed_ changes; a 32-bit atomic, so waiting on it is a plain futex wait
  // (libstdc++ waits on a 64-bit atomic through a proxy with timed back-off: milliseconds idle).
  std::atomic<std::uint32_t> replay_epoch_{0};
};

bool starts_with_bom(std::string_view hay) {
  return hay.substr(0, 3) == "\xEF\xBB\xBF" || hay.substr(0, 2) == "\xFF\xFE" ||
         hay.substr(0, 2) == "\xFE\xFF";
}

}  // namespace

bool can_search_in_chunks(const engine::PatternSet& set, const engine::SearchOptions& options,
                          std::string_view hay, const ChunkedLimits& limits) {
  if (hay.size() < limits.min_file_bytes || thread_count(limits) < 2) {
    return false;
  }
  if (!options.whole_file || set.multiline() || set.searches_buffer() ||
      set.line_terminator() != '\n' || options.encoding || options.base_offset != 0 ||
      options.first_line_number != 1 || options.binary == engine::BinaryMode::kQuit ||
      options.binary == engine::BinaryMode::kSuppress) {
    return false;
  }
  if (options.before > 0 || options.after > 0 || options.passthru || options.stop_on_nonmatch ||
      options.max_count) {
    return false;
  }
  if (starts_with_bom(hay)) return false;
  return options.binary == engine::BinaryMode::kText ||
         std::memchr(hay.data(), '\0', std::min(hay.size(), kNulLookBytes)) == nullptr;
}

Status search_in_chunks(const engine::PatternSet& set, ChunkScratches& scratches,
                        const engine::SearchOptions& options, std::string_view hay,
                        const engine::FileBuffer& buffer, engine::LineSink& sink,
                        const ChunkedLimits& limits) {
  ChunkedSearch search(set, scratches, options, hay, buffer, limits);
  return search.run(sink);
}

}  // namespace ctx::cli
