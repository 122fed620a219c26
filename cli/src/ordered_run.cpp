#include "ordered_run.hpp"

#include <algorithm>

namespace ctx::cli {

OrderedRun::OrderedRun(Output& out, unsigned threads, std::size_t window,
                       std::function<bool(const OrderedJob&)> search, std::function<bool()> stopped)
    : out_(out),
      window_(std::max<std::size_t>(window, 2)),
      search_(std::move(search)),
      stopped_(std::move(stopped)) {
  for (unsigned i = 0; i < std::max(threads, 1U); ++i) workers_.emplace_back([this] { work(); });
}

OrderedRun::~OrderedRun() { finish(); }

void OrderedRun::add(OrderedJob job) {
  std::unique_lock lock(mutex_);
  if (added_ - head_ >= window_) {
    // Full: wait until half of it is written (one wake-up per half window, not per job).
    ++producer_waiting_;
    space_.wait(lock, [&] { return added_ - head_ <= window_ / 2; });
    --producer_waiting_;
  }
  slots_.emplace_back();
  slots_.back().job = std::move(job);
  ++added_;
  if (idle_workers_ > 0) work_.notify_one();
}

void OrderedRun::finish() {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = true;
  }
  work_.notify_all();
  for (std::thread& t : workers_) t.join();
}

bool OrderedRun::is_now(std::size_t index) {
  std::lock_guard lock(mutex_);
  return head_ == index;
}

void OrderedRun::wait(std::size_t index) {
  std::unique_lock lock(mutex_);
  ++turn_waiting_;
  turn_.wait(lock, [&] { return head_ == index; });
  --turn_waiting_;
}

bool OrderedRun::can_take_locked() const {
  // Past the budget of recorded output, only the first job in line may be taken (it goes live
  // and writes; then the recorded output is written behind it).
  return next_ < added_ && (held_bytes_ < kHeldBytesBudget || next_ == head_);
}

void OrderedRun::work() {
  for (;;) {
    std::size_t index = 0;
    OrderedJob job;
    {
      std::unique_lock lock(mutex_);
      if (!can_take_locked() && !(closed_ && next_ == added_)) {
        ++idle_workers_;
        work_.wait(lock, [&] { return can_take_locked() || (closed_ && next_ == added_); });
        --idle_workers_;
      }
      if (!can_take_locked()) return;  // closed, and nothing left to take
      index = next_++;
      job = std::move(slots_[index - head_].job);
    }
    Slot result;
    run_job(index, job, result);
    std::lock_guard lock(mutex_);
    Slot& slot = slots_[index - head_];
    slot = std::move(result);
    slot.done = true;
    if (index == head_) {
      write_finished_locked();
    } else {
      held_bytes_ += held_bytes(slot);
    }
  }
}

std::size_t OrderedRun::held_bytes(const Slot& slot) {
  std::size_t bytes = slot.out.size();
  for (const auto& message : slot.messages) bytes += message.second.size();
  return bytes;
}

void OrderedRun::run_job(std::size_t index, const OrderedJob& job, Slot& result) {
  Output::Capture capture(*this, index);
  if (!job.error.empty()) {
    // Reported at its turn, when whether an earlier job quit the run is known.
    wait(index);
    bool quit = false;
    {
      std::lock_guard lock(mutex_);
      quit = quit_written_;
    }
    if (!quit) out_.error(job.error);
  } else if (!stopped_()) {
    result.quit = search_(job);
  }
  result.live = capture.live();
  result.out = capture.take_stdout();
  result.separator = capture.separator();
  result.messages = capture.take_messages();
}

void OrderedRun::write_finished_locked() {
  bool first = true;
  while (!slots_.empty() && slots_.front().done) {
    Slot& slot = slots_.front();
    if (!slot.live && !quit_written_) out_.replay(slot.out, slot.separator, slot.messages);
    quit_written_ = quit_written_ || slot.quit;
    if (!first) held_bytes_ -= held_bytes(slot);
    first = false;
    slots_.pop_front();
    ++head_;
  }
  if (turn_waiting_ > 0) turn_.notify_all();
  if (producer_waiting_ > 0 && added_ - head_ <= window_ / 2) space_.notify_one();
  if (idle_workers_ > 0) work_.notify_all();
}

}  // namespace ctx::cli
