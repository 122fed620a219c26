#include "output.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "ctx/base/fd_io.hpp"
#include "ctx/walker/walker.hpp"

namespace ctx::cli {
namespace {

thread_local Output::Capture* tls_capture = nullptr;

// The thread's capture while it records (null without one, or once it went live).
Output::Capture* recording() {
  return tls_capture != nullptr && !tls_capture->live() ? tls_capture : nullptr;
}

}  // namespace

bool write_stdout(std::string_view data) { return write_all(STDOUT_FILENO, data); }

void print_error(std::string_view detail) {
  std::string line = fmt::format("ctxsearch: {}\n", detail);
  [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
}

bool rg_is_one_file(const std::vector<std::string>& paths, bool search_stdin) {
  if (search_stdin) return true;
  if (paths.size() != 1) return false;
  struct stat st {};
  return paths[0] == "-" || ::stat(paths[0].c_str(), &st) != 0 || !S_ISDIR(st.st_mode);
}

bool rg_one_thread(const walker::WalkOptions& walk, bool one_file) {
  return walk.sort != walker::SortBy::kNone || one_file || walk.threads == 1 ||
         (walk.threads == 0 && walker::cores() == 1);
}

Result<Filters> build_filters(const Args& args) {
  // ripgrep's default types are built only where something reads them (66 us, a fortieth of a
  // small search's start-up).
  const bool needs_types =
      !args.types.empty() || !args.type_defs.empty() || args.mode == Args::Mode::kTypeList;
  Filters f{needs_types ? walker::TypeTable::with_defaults() : walker::TypeTable{}, {}, {}};
  for (const auto& [kind, spec] : args.type_defs) {
    if (kind == 'a') {
      CTX_TRY(f.table.add(spec));
    } else {
      f.table.clear(spec);
    }
  }
  CTX_TRY_ASSIGN(f.types, walker::TypeMatcher::build(f.table, args.types));
  // As ripgrep: every -g glob first, then every --iglob (later globs win on a tie).
  for (const GlobArg& g : args.globs) {
    if (!g.case_insensitive) CTX_TRY(f.overrides.add(g.glob, args.glob_case_insensitive));
  }
  for (const GlobArg& g : args.globs) {
    if (g.case_insensitive) CTX_TRY(f.overrides.add(g.glob, true));
  }
  return f;
}

Output::Capture::Capture(Turns& turns, std::size_t index)
    : previous_(tls_capture), turns_(turns), index_(index) {
  tls_capture = this;
}
Output::Capture::~Capture() { tls_capture = previous_; }

void Output::set_block_buffering(std::size_t bytes, std::chrono::milliseconds max_delay) {
  std::lock_guard lock(buffer_mutex_);
  block_bytes_ = bytes;
  max_delay_ = max_delay;
  pending_.reserve(bytes);
}

void Output::flush() {
  {
    std::lock_guard lock(buffer_mutex_);
    stopping_ = true;
  }
  wake_writer_.notify_one();
  if (writer_.joinable()) writer_.join();  // it writes every queued block first
  std::lock_guard lock(buffer_mutex_);
  if (!pending_.empty() && !broken_pipe_.load() && !write_stdout(pending_)) {
    broken_pipe_.store(true);
  }
  pending_.clear();
  block_bytes_ = 0;
  stopping_ = false;
}

void Output::emit(std::string_view data) {
  std::unique_lock lock(buffer_mutex_);
  // A large write (a file's streamed output) goes out from here, behind what waits: copying it
  // into blocks would cost more than the wait.
  constexpr std::size_t kDirectBytes = std::size_t{1} << 20;
  if (block_bytes_ == 0 || data.size() >= kDirectBytes) {
    drain_locked(lock);
    if (!broken_pipe_.load() && !write_stdout(data)) broken_pipe_.store(true);
    return;
  }
  if (data.size() >= block_bytes_) {  // a block of its own, behind what is pending
    if (!pending_.empty()) queue_locked(lock, std::move(pending_), true);
    queue_locked(lock, std::string(data), false);
    return;
  }
  const bool was_empty = pending_.empty();
  if (was_empty) pending_since_ = std::chrono::steady_clock::now();
  pending_.append(data);
  if (pending_.size() >= block_bytes_) {
    queue_locked(lock, std::move(pending_), false);
  } else if (was_empty) {
    if (!writer_.joinable()) writer_ = std::thread([this] { run_writer(); });
    wake_writer_.notify_one();
  }
}

void Output::queue_locked(std::unique_lock<std::mutex>& lock, std::string&& block, bool no_wait) {
  if (!no_wait) {
    block_written_.wait(lock, [this] { return blocks_.size() < kQueuedBlocksMax; });
  }
  const bool was_pending = &block == &pending_;
  blocks_.push_back(std::move(block));
  if (was_pending) {  // pending_ was moved from: a fresh or reused buffer
    if (spare_.empty()) {
      pending_ = std::string();
      pending_.reserve(block_bytes_);
    } else {
      pending_ = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  if (!writer_.joinable()) writer_ = std::thread([this] { run_writer(); });
  wake_writer_.notify_one();
}

void Output::drain_locked(std::unique_lock<std::mutex>& lock) {
  if (!writer_.joinable()) {  // nothing was queued: only pending_ (or nothing) holds output
    if (!pending_.empty() && !broken_pipe_.load() && !write_stdout(pending_)) {
      broken_pipe_.store(true);
    }
    pending_.clear();
    return;
  }
  if (!pending_.empty()) queue_locked(lock, std::move(pending_), true);
  block_written_.wait(lock, [this] { return blocks_.empty() && !writing_; });
}

void Output::write_pending() {
  std::unique_lock lock(buffer_mutex_);
  drain_locked(lock);
}

void Output::run_writer() {
  std::unique_lock lock(buffer_mutex_);
  while (true) {
    if (!blocks_.empty()) {
      std::string block = std::move(blocks_.front());
      blocks_.pop_front();
      writing_ = true;
      lock.unlock();
      if (!broken_pipe_.load() && !write_stdout(block)) broken_pipe_.store(true);
      lock.lock();
      writing_ = false;
      if (spare_.size() < kQueuedBlocksMax) {
        block.clear();
        spare_.push_back(std::move(block));
      }
      block_written_.notify_all();
      continue;
    }
    if (stopping_) return;
    if (pending_.empty()) {
      wake_writer_.wait(lock);
      continue;
    }
    // A partial block is written once it is max_delay_ old, unless it fills (or is queued) first.
    const auto due = pending_since_ + max_delay_;
    if (std::chrono::steady_clock::now() >= due) {
      queue_locked(lock, std::move(pending_), true);
    } else {
      wake_writer_.wait_until(lock, due);
    }
  }
}

void Output::write_locked(std::string_view data, std::string_view separator, bool first) {
  if (data.empty() || broken_pipe_.load(std::memory_order_relaxed)) return;
  if (!separator.empty() && first && any_group_) {
    written_ += separator.size();
    emit(separator);
  }
  if (first) any_group_ = true;
  written_ += data.size();
  emit(data);
}

void Output::write_raw(std::string_view data) {
  std::lock_guard lock(mutex_);
  emit(data);
}

void Output::write_group(std::string_view data, std::string_view separator) {
  if (data.empty()) return;
  if (Capture* capture = recording(); capture != nullptr) {
    capture->stdout_.append(data);
    capture->separator_ = separator;
    return;
  }
  std::lock_guard lock(mutex_);
  write_locked(data, separator, true);
}

void Output::stream_chunk(std::string_view data, std::string_view separator, bool first) {
  if (Capture* capture = recording(); capture != nullptr) {
    capture->stdout_.append(data);
    capture->separator_ = separator;
    if (capture->stdout_.size() < kCaptureLimit && !capture->turns_.is_now(capture->index_)) {
      return;
    }
    capture->turns_.wait(capture->index_);
    go_live(*capture);
    return;
  }
  if (first) mutex_.lock();  // held until release_stream()
  write_locked(data, separator, first);
}

void Output::go_live(Capture& capture) {
  mutex_.lock();  // held until release_stream(), as by a first stream_chunk
  capture.live_ = true;
  replay(capture.stdout_, capture.separator_, capture.messages_);
  std::string().swap(capture.stdout_);
  capture.messages_.clear();
}

void Output::release_stream() {
  if (recording() == nullptr) mutex_.unlock();
}

void Output::error(std::string_view detail) {
  errored_.store(true);
  if (!messages_) return;
  if (Capture* capture = recording(); capture != nullptr) {
    capture->messages_.emplace_back(true, std::string(detail));
    return;
  }
  std::lock_guard lock(mutex_);
  write_pending();
  print_error(detail);
}

void Output::warn(std::string_view detail) {
  if (!messages_) return;
  if (Capture* capture = recording(); capture != nullptr) {
    capture->messages_.emplace_back(false, std::string(detail));
    return;
  }
  std::lock_guard lock(mutex_);
  write_pending();
  print_error(detail);
}

void Output::replay(std::string_view data, std::string_view separator,
                    const std::vector<std::pair<bool, std::string>>& messages) {
  std::lock_guard lock(mutex_);
  write_locked(data, separator, true);
  if (!messages.empty()) write_pending();
  for (const auto& [is_error, text] : messages) {
    if (is_error) errored_.store(true);
    print_error(text);
  }
}

OutputStream::~OutputStream() {
  if (streaming_) out_.release_stream();
}

void OutputStream::stream(std::string& buffer) {
  out_.stream_chunk(buffer, separator_, !streaming_);
  streaming_ = true;
  buffer.clear();
}

void OutputStream::finish(std::string& buffer) {
  if (streaming_) {
    out_.stream_chunk(buffer, separator_, false);
    out_.release_stream();
    streaming_ = false;
  } else {
    out_.write_group(buffer, separator_);
  }
  buffer.clear();
}

}  // namespace ctx::cli
