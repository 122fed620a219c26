// Tests for Output's block buffering (cli/src/output.hpp): every thread's groups arrive whole and
// once, in the order each thread wrote them, stderr messages after the output written before them,
// and searching threads that do not wait on a reader that does not read while few blocks wait.
#include "output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <future>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using ctx::cli::Output;
using ctx::cli::OutputStream;

// Sends fd 1 and fd 2 to one temporary file while it lives (as `2>&1`).
class Redirect {
 public:
  Redirect() {
    std::FILE* f = std::tmpfile();
    fd_ = ::dup(::fileno(f));
    std::fclose(f);
    std::fflush(stdout);
    saved_out_ = ::dup(1);
    saved_err_ = ::dup(2);
    ::dup2(fd_, 1);
    ::dup2(fd_, 2);
  }
  ~Redirect() {
    ::dup2(saved_out_, 1);
    ::dup2(saved_err_, 2);
    ::close(saved_out_);
    ::close(saved_err_);
    ::close(fd_);
  }
  Redirect(const Redirect&) = delete;
  Redirect& operator=(const Redirect&) = delete;
  std::string all() const {
    std::string out;
    char buf[1 << 16];
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd_, buf, sizeof buf, at);
      if (n <= 0) return out;
      out.append(buf, static_cast<std::size_t>(n));
      at += n;
    }
  }

 private:
  int fd_;
  int saved_out_, saved_err_;
};

// Group `g` of thread `t`: `lines` lines "t.g.i\n" (each group is recognisable and whole).
std::string group_text(std::size_t t, std::size_t g, std::size_t lines) {
  std::string text;
  for (std::size_t i = 0; i < lines; ++i) {
    text += std::to_string(t) + "." + std::to_string(g) + "." + std::to_string(i) + "\n";
  }
  return text;
}

}  // namespace

TEST_CASE("block buffering: each thread's groups arrive whole, once, in its order") {
  constexpr std::size_t kThreads = 4, kGroups = 60;
  std::vector<std::vector<std::size_t>> lines(kThreads);
  std::mt19937 rng(7);
  for (auto& per_thread : lines) {
    for (std::size_t g = 0; g < kGroups; ++g) {
      // Mostly small groups; some of a block or more (64 KiB), a few past the direct-write size.
      const auto roll = rng() % 100;
      per_thread.push_back(roll < 80 ? 1 + rng() % 40 : roll < 97 ? 6000 + rng() % 9000 : 120000);
    }
  }
  std::string all;
  {
    Redirect redirect;
    {
      Output out;
      out.set_block_buffering(std::size_t{64} << 10, std::chrono::milliseconds(5));
      std::vector<std::thread> threads;
      for (std::size_t t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          for (std::size_t g = 0; g < kGroups; ++g) {
            std::string text = group_text(t, g, lines[t][g]);
            if (g % 7 == 3) {  // streamed in pieces, as a large file's output
              OutputStream stream(out, {});
              std::string piece = text.substr(0, text.size() / 2);
              stream.stream(piece);
              piece = text.substr(text.size() / 2);
              stream.finish(piece);
            } else {
              out.write_group(text, {});
            }
            if (g % 20 == 19) std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
        });
      }
      for (auto& th : threads) th.join();
    }  // ~Output flushes
    all = redirect.all();
  }
  // Cut the output into runs of one group: every group exactly once and contiguous.
  std::vector<std::size_t> next_group(kThreads, 0);
  std::size_t at = 0;
  while (at < all.size()) {
    const std::size_t nl = all.find('\n', at);
    REQUIRE(nl != std::string::npos);
    const std::string line = all.substr(at, nl - at);
    const std::size_t dot1 = line.find('.'), dot2 = line.find('.', dot1 + 1);
    REQUIRE(dot2 != std::string::npos);
    const std::size_t t = std::stoul(line.substr(0, dot1));
    const std::size_t g = std::stoul(line.substr(dot1 + 1, dot2 - dot1 - 1));
    REQUIRE(t < kThreads);
    INFO("thread " << t << " group " << g);
    REQUIRE(g == next_group[t]);  // a thread's groups in its order, none twice
    const std::string expected = group_text(t, g, lines[t][g]);
    REQUIRE(all.compare(at, expected.size(), expected) == 0);  // whole, not interleaved
    at += expected.size();
    ++next_group[t];
  }
  for (std::size_t t = 0; t < kThreads; ++t) CHECK(next_group[t] == kGroups);
}

TEST_CASE("block buffering: a message on stderr follows the output written before it") {
  std::string all;
  {
    Redirect redirect;
    {
      Output out;
      out.set_block_buffering(std::size_t{64} << 10, std::chrono::milliseconds(100));
      out.write_group(group_text(0, 0, 3), {});
      out.write_group(group_text(0, 1, 9000), {});  // a full block queued, and a partial one
      out.warn("between");
      out.write_group(group_text(0, 2, 2), {});
    }
    all = redirect.all();
  }
  CHECK(all == group_text(0, 0, 3) + group_text(0, 1, 9000) + "ctxsearch: between\n" +
                   group_text(0, 2, 2));
}

TEST_CASE("block buffering: writers go on while a reader does not read, up to the queue's bound") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::fflush(stdout);
  const int saved = ::dup(1);
  ::dup2(fds[1], 1);
  ::close(fds[1]);
  std::string expected;
  for (std::size_t g = 0; g < 5; ++g) expected += group_text(1, g, 7000);  // ~60 KiB each: 5 blocks
  std::string received;
  bool returned = false;
  {
    Output out;
    out.set_block_buffering(std::size_t{64} << 10, std::chrono::milliseconds(100));
    // Nobody reads the pipe (64 KiB): the first block's write fills it and waits; the groups
    // after it queue, and the writing thread returns. (Reported below, once fd 1 is back: a
    // failure printed into the full pipe would wait forever.)
    auto writes = std::async(std::launch::async, [&] {
      for (std::size_t g = 0; g < 5; ++g) out.write_group(group_text(1, g, 7000), {});
    });
    returned = writes.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
    // Now read everything (what is left is written by flush, then the pipe's write end closes).
    std::thread reader([&] {
      char buf[1 << 16];
      for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) {
        received.append(buf, static_cast<std::size_t>(n));
      }
    });
    writes.wait();
    out.flush();
    ::dup2(saved, 1);
    ::close(saved);
    reader.join();
  }
  ::close(fds[0]);
  CHECK(returned);
  CHECK(received == expected);
}
