// Per-thread values for the threads of a walk or search.
//
// tbb::enumerable_thread_specific allocates through TBB's allocator (its values by default, and
// always the function that constructs them), whose first use loads libtbbmalloc.so with dlopen
// and has it read /proc/meminfo and the huge page settings: 20-odd system calls before a
// one-file search reads its file, 0.4 of its 2.6 ms. This holds the values in a map under a lock,
// which each thread looks up once per PerThread: later calls hit a thread-local cache.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace ctx::walker {

template <class T>
class PerThread {
 public:
  PerThread() : make_([] { return T(); }) {}
  explicit PerThread(std::function<T()> make) : make_(std::move(make)) {}
  PerThread(const PerThread&) = delete;
  PerThread& operator=(const PerThread&) = delete;

  // This thread's T, made by `make` on the thread's first call.
  T& local() {
    Cache& cache = tls_cache;
    if (cache.owner == serial_) return *cache.value;
    std::lock_guard lock(mutex_);
    std::unique_ptr<Slot>& slot = values_[std::this_thread::get_id()];
    if (!slot) slot = std::make_unique<Slot>(make_);
    cache = Cache{serial_, &slot->value};
    return slot->value;
  }

  // Calls f(T&) on each T made so far (not concurrently with local()).
  template <class F>
  void for_each(F&& f) {
    std::lock_guard lock(mutex_);
    for (auto& [id, slot] : values_) f(slot->value);
  }

 private:
  // A T made in place by make() (T need not be movable).
  struct Slot {
    explicit Slot(const std::function<T()>& make) : value(make()) {}
    T value;
  };
  // The last PerThread<T> a thread asked (serials are never reused, so a destroyed one's
  // entry never matches a later one at the same address).
  struct Cache {
    std::uint64_t owner = 0;
    T* value = nullptr;
  };
  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> serial{0};
    return ++serial;
  }
  static inline thread_local Cache tls_cache;

  const std::uint64_t serial_ = next_serial();
  std::function<T()> make_;
  std::mutex mutex_;
  std::map<std::thread::id, std::unique_ptr<Slot>> values_;
};

}  // namespace ctx::walker
