// PerThread: one value per thread that asks, made on its first local() call; found again by the
// same thread, distinct across threads and across PerThread objects (also one made at a freed
// one's address), each made value visited by for_each.
#include "ctx/walker/per_thread.hpp"

#include <catch2/catch.hpp>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {

using ctx::walker::PerThread;

TEST_CASE("PerThread gives each thread its own value, made once", "[walker][per_thread]") {
  int made = 0;
  std::mutex made_mutex;
  PerThread<std::vector<int>> values([&] {
    std::lock_guard lock(made_mutex);
    ++made;
    return std::vector<int>{};
  });
  std::vector<int>* main_value = &values.local();
  CHECK(&values.local() == main_value);
  main_value->push_back(0);
  std::vector<std::thread> threads;
  for (int t = 1; t <= 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) values.local().push_back(t);
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(made == 5);
  std::multiset<std::size_t> sizes;
  values.for_each([&](std::vector<int>& v) {
    sizes.insert(v.size());
    for (int x : v) CHECK(x == v.front());  // one thread's values only
  });
  CHECK(sizes == std::multiset<std::size_t>{1, 1000, 1000, 1000, 1000});
}

TEST_CASE("PerThread objects do not share values, even at a reused address",
          "[walker][per_thread]") {
  PerThread<int> a, b;
  a.local() = 1;
  b.local() = 2;
  CHECK(a.local() == 1);
  CHECK(b.local() == 2);
  // A PerThread made where a destroyed one was (malloc hands the block back) starts empty: the
  // thread's cache of the old one does not answer for it.
  auto first = std::make_unique<PerThread<int>>();
  first->local() = 7;
  const void* address = first.get();
  first.reset();
  auto second = std::make_unique<PerThread<int>>();
  INFO("same address: " << (second.get() == address));
  CHECK(second->local() == 0);
}

TEST_CASE("PerThread makes values that cannot move", "[walker][per_thread]") {
  struct Pinned {
    explicit Pinned(int v) : value(v) {}
    Pinned(const Pinned&) = delete;
    Pinned(Pinned&&) = delete;
    int value;
  };
  PerThread<Pinned> pinned([] { return Pinned(42); });
  CHECK(pinned.local().value == 42);
}

}  // namespace
