// The ordered search (--sort): files are searched on worker threads while the walk goes on, and
// each file's output is written in the order the walk handed the files over.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "output.hpp"

namespace ctx::cli {

// One unit of ordered work: a file to search, or a walk error to report in its place.
struct OrderedJob {
  std::string path;
  bool explicit_file = false;
  bool short_read_is_end = false;  // as WalkEntry's
  std::string error;               // non-empty: report this (an error for the exit code) instead
};

// Runs jobs on `threads` worker threads while producers add them (add() blocks while `window`
// jobs wait to be written, and finished jobs hold at most kHeldBytesBudget of output before only
// the first in line is taken, so memory is bounded however many files and matches there are).
// Each job's output is captured (Output::Capture, ordered) and written once every earlier job's
// is; the first job in line goes live and streams. Deadlock-free: jobs are taken in order and a
// taken job runs at once, so the first unwritten job is always running, and only later jobs wait
// for their turn.
class OrderedRun final : public Output::Turns {
 public:
  // `search(job)` runs on a worker thread under the job's capture and returns whether it quits
  // the run (-q found a match): what later jobs write or report is then dropped, as a walk on
  // one thread that stopped there would never have reached them. `stopped()` true skips the
  // jobs not yet started (-q found a match, the reader went away).
  OrderedRun(Output& out, unsigned threads, std::size_t window,
             std::function<bool(const OrderedJob&)> search, std::function<bool()> stopped);
  ~OrderedRun();
  OrderedRun(const OrderedRun&) = delete;
  OrderedRun& operator=(const OrderedRun&) = delete;

  void add(OrderedJob job);
  // Waits for every job added and writes the rest of the output. Idempotent.
  void finish();

  bool is_now(std::size_t index) override;
  void wait(std::size_t index) override;

 private:
  struct Slot {
    OrderedJob job;
    bool done = false;
    bool live = false;  // its output is written already
    bool quit = false;  // it quit the run
    std::string out;
    std::string_view separator;
    std::vector<std::pair<bool, std::string>> messages;
  };
  // The most output finished jobs may hold while they wait to be written.
  static constexpr std::size_t kHeldBytesBudget = std::size_t{8} << 20;

  void work();
  bool can_take_locked() const;
  static std::size_t held_bytes(const Slot& slot);
  void run_job(std::size_t index, const OrderedJob& job, Slot& result);
  // With mutex_ held: writes the output of the finished jobs at the head of the line.
  void write_finished_locked();

  Output& out_;
  std::size_t window_;
  std::function<bool(const OrderedJob&)> search_;
  std::function<bool()> stopped_;
  std::mutex mutex_;
  std::condition_variable work_;   // a job to take, or the end
  std::condition_variable space_;  // the producer: room in the window
  std::condition_variable turn_;   // a job waiting for its turn: the head moved
  std::deque<Slot> slots_;         // jobs head_, head_ + 1, ... (added, not yet written)
  std::size_t head_ = 0;           // the first job whose output is not written yet
  std::size_t next_ = 0;           // the first job no worker took yet
  std::size_t added_ = 0;
  std::size_t held_bytes_ = 0;  // recorded output of the finished jobs behind the head
  bool quit_written_ = false;   // a job that quit the run was written: drop the rest
  unsigned idle_workers_ = 0, producer_waiting_ = 0, turn_waiting_ = 0;
  bool closed_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace ctx::cli
