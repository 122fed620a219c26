// Where ctxsearch's output goes: stdout shared by all threads (one file's results never interleave
// with another's), stderr for "ctxsearch: ..." messages, and a per-thread capture used by the
// ordered pipeline, which writes captured results in path order.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "args.hpp"
#include "ctx/base/result.hpp"
#include "ctx/walker/overrides.hpp"
#include "ctx/walker/types.hpp"

namespace ctx::cli {

// Writes all of `data` to fd 1; false when the reader went away (EPIPE) or writing failed.
bool write_stdout(std::string_view data);
// Writes "ctxsearch: DETAIL\n" to stderr.
void print_error(std::string_view detail);

struct Filters {
  walker::TypeTable table;
  walker::TypeMatcher types;
  walker::Overrides overrides;
};
// The -t/-T/--type-add/--type-clear and -g/--iglob filters of `args`.
Result<Filters> build_filters(const Args& args);

// As ripgrep 14 (hiargs.rs, is_one_file): one path (or stdin) that is not a directory; a path
// that cannot be stat'ed counts, as for rg's Path::is_dir. `paths` empty: the cwd, or stdin.
bool rg_is_one_file(const std::vector<std::string>& paths, bool search_stdin);
// Whether ripgrep 14 walks and prints on one thread (sorted, -j1, one file, or a single core):
// its errors and separators then take that walk's and that printer's forms.
bool rg_one_thread(const walker::WalkOptions& walk, bool one_file);

class Output {
 public:
  Output() = default;
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  ~Output() { flush(); }

  // Block buffering (stdout is no terminal, or --block-buffered): what would be written gathers in
  // blocks of `bytes`, written in order by a background thread (started with the first byte): a
  // full block at once, a partial one at most `max_delay` after its oldest byte arrived, the rest
  // at flush(). One write per file costs the reader of a pipe one wake-up per file; this costs one
  // per `bytes`. The searching threads do not wait for a slow reader until kQueuedBlocksMax
  // blocks wait (a write into a full pipe held the lock of every thread's output). Without it
  // (the default, and --line-buffered) everything is written at once.
  void set_block_buffering(std::size_t bytes, std::chrono::milliseconds max_delay);
  // Writes what block buffering holds and stops its thread; later output is written at once.
  // Idempotent; the destructor calls it.
  void flush();
  // One file's finished output. `separator` ("\n" in heading mode, "--\n" with context lines)
  // goes before it when another group was written earlier.
  void write_group(std::string_view data, std::string_view separator);
  void error(std::string_view detail);  // an error for the exit code: "ctxsearch: DETAIL"
  void warn(std::string_view detail);   // a warning: printed, exit code unchanged
  // --no-messages: errors and warnings are not printed (errors still count for the exit code).
  void set_messages(bool shown) { messages_ = shown; }
  bool errored() const { return errored_.load(); }
  bool broken_pipe() const { return broken_pipe_.load(); }
  // Writes `data` as it is (no separator, never captured): --stats' closing block.
  void write_raw(std::string_view data);
  // Bytes written to stdout so far by write_group/replay/streams (separators included).
  std::uint64_t bytes_written() const { return written_.load(); }

  // An ordered capture's place in line (see Capture): `is_now(i)` says whether the output of
  // every capture before the i-th has been written; `wait(i)` returns once it has.
  class Turns {
   public:
    virtual bool is_now(std::size_t index) = 0;
    virtual void wait(std::size_t index) = 0;

   protected:
    ~Turns() = default;
  };

  // While a Capture lives on a thread, that thread's output is recorded instead of written (it
  // is the `index`-th in `turns`' line). It goes live when a file streams its output
  // (stream_chunk) and either its turn has come or it holds kCaptureLimit bytes (then it waits
  // for its turn):
  // what it recorded is written, and from then on it writes at once, as without a capture. So
  // the first file in line streams as it is searched, and a file with millions of matches costs
  // a bounded buffer, not its whole output.
  class Capture {
   public:
    Capture(Turns& turns, std::size_t index);
    ~Capture();
    Capture(const Capture&) = delete;
    Capture& operator=(const Capture&) = delete;
    std::string take_stdout() { return std::move(stdout_); }
    std::vector<std::pair<bool, std::string>> take_messages() { return std::move(messages_); }
    std::string_view separator() const { return separator_; }
    // Whether it went live (its output, messages included, is written already).
    bool live() const { return live_; }

   private:
    friend class Output;
    Capture* previous_;
    Turns& turns_;
    std::size_t index_;
    bool live_ = false;
    std::string stdout_;
    std::string_view separator_;
    std::vector<std::pair<bool, std::string>> messages_;  // (is_error, detail)
  };
  // The most an ordered capture records before it waits for its turn.
  static constexpr std::size_t kCaptureLimit = std::size_t{1} << 20;
  // Writes what a Capture recorded.
  void replay(std::string_view data, std::string_view separator,
              const std::vector<std::pair<bool, std::string>>& messages);

  // Streaming one large file: takes the stdout lock and keeps it until release_stream().
  void stream_chunk(std::string_view data, std::string_view separator, bool first);
  void release_stream();

 private:
  void write_locked(std::string_view data, std::string_view separator, bool first);
  // Takes the stdout lock (held until release_stream) and writes what `capture` recorded: it
  // writes at once from now on.
  void go_live(Capture& capture);
  // Writes `data` now, or appends it to `pending_` under block buffering.
  void emit(std::string_view data);
  // Writes what block buffering holds (before a message on stderr, so `2>&1` keeps the order).
  void write_pending();
  // With buffer_mutex_ held (by `lock`): every block queued and pending_ written; returns once
  // they are.
  void drain_locked(std::unique_lock<std::mutex>& lock);
  // With buffer_mutex_ held: `block` queued for the writer thread (after a wait while
  // kQueuedBlocksMax blocks wait, unless `no_wait`).
  void queue_locked(std::unique_lock<std::mutex>& lock, std::string&& block, bool no_wait);
  void run_writer();
  // Held by whoever writes one file's output (for a streamed file, until it ends), so the output
  // of different files never interleaves.
  std::recursive_mutex mutex_;
  // Block buffering's state. Taken after mutex_ (or alone by the writer thread, which writes the
  // blocks in the order they were queued, each a whole prefix of what was emitted after the one
  // before, so it never reorders output).
  static constexpr std::size_t kQueuedBlocksMax = 8;
  std::mutex buffer_mutex_;
  std::condition_variable wake_writer_;    // a block queued, pending_ begun, or stopping_
  std::condition_variable block_written_;  // a block written
  std::string pending_;                    // the block being filled
  std::chrono::steady_clock::time_point pending_since_;  // when its first byte came
  std::deque<std::string> blocks_;                       // full blocks, oldest first
  std::vector<std::string> spare_;                       // written blocks' buffers, kept for reuse
  bool writing_ = false;         // the writer thread writes a block (taken off blocks_)
  std::size_t block_bytes_ = 0;  // 0: no block buffering
  std::chrono::milliseconds max_delay_{0};
  bool stopping_ = false;
  std::thread writer_;
  bool any_group_ = false;
  bool messages_ = true;
  std::atomic<bool> errored_{false}, broken_pipe_{false};
  std::atomic<std::uint64_t> written_{0};
};

// One file's output: buffered and written whole at finish(), or streamed (holding the stdout lock
// until finish) once the buffer passes a threshold, so memory stays bounded.
class OutputStream {
 public:
  OutputStream(Output& out, std::string_view separator) : out_(out), separator_(separator) {}
  ~OutputStream();
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;
  void stream(std::string& buffer);  // writes and clears `buffer`
  void finish(std::string& buffer);  // writes the rest and clears `buffer`
  // No separator before this file's output (unless streaming began).
  void drop_separator() {
    if (!streaming_) separator_ = {};
  }
  bool broken_pipe() const { return out_.broken_pipe(); }

 private:
  Output& out_;
  std::string_view separator_;  // a string literal
  bool streaming_ = false;
};

}  // namespace ctx::cli
