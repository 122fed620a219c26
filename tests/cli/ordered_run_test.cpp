// Tests for the ordered search's runner (cli/src/ordered_run.hpp) and ordered captures
// (Output::Capture with turns): output in the order jobs were added whatever order they finish
// in, the first job in line streaming before it ends, a later job with a large output waiting
// for its turn instead of recording all of it, and finished jobs' recorded output bounded.
#include "ordered_run.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "output.hpp"

namespace {

using ctx::cli::OrderedJob;
using ctx::cli::OrderedRun;
using ctx::cli::Output;
using ctx::cli::OutputStream;

// Sends fd 1 and fd 2 to temporary files while it lives (Output writes to the fds themselves).
class Redirect {
 public:
  Redirect() {
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    out_fd_ = ::dup(::fileno(out));
    err_fd_ = ::dup(::fileno(err));
    std::fclose(out);
    std::fclose(err);
    std::fflush(stdout);
    saved_out_ = ::dup(1);
    saved_err_ = ::dup(2);
    ::dup2(out_fd_, 1);
    ::dup2(err_fd_, 2);
  }
  ~Redirect() { restore(); }
  Redirect(const Redirect&) = delete;
  Redirect& operator=(const Redirect&) = delete;
  void restore() {
    if (saved_out_ < 0) return;
    ::dup2(saved_out_, 1);
    ::dup2(saved_err_, 2);
    ::close(saved_out_);
    ::close(saved_err_);
    saved_out_ = saved_err_ = -1;
  }
  static std::string read_all(int fd) {
    std::string all;
    char buf[1 << 16];
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd, buf, sizeof buf, at);
      if (n <= 0) return all;
      all.append(buf, static_cast<std::size_t>(n));
      at += n;
    }
  }
  std::string out() const { return read_all(out_fd_); }
  std::string err() const { return read_all(err_fd_); }
  off_t out_size() const { return ::lseek(out_fd_, 0, SEEK_END); }

 private:
  int out_fd_, err_fd_;
  int saved_out_ = -1, saved_err_ = -1;
};

// The output of job `path` ("job N"): `lines` lines, streamed in `chunk`-line pieces as the
// searcher streams a file's output (OutputStream: stream() past a threshold, then finish()).
std::string job_text(const std::string& path, std::size_t lines) {
  std::string text;
  for (std::size_t i = 0; i < lines; ++i) text += path + ":" + std::to_string(i) + "\n";
  return text;
}

void write_job(Output& out, const std::string& path, std::size_t lines, std::size_t chunk) {
  OutputStream stream(out, {});
  std::string buffer;
  for (std::size_t i = 0; i < lines; ++i) {
    buffer += path + ":" + std::to_string(i) + "\n";
    if ((i + 1) % chunk == 0) stream.stream(buffer);
  }
  stream.finish(buffer);
}

}  // namespace

TEST_CASE("ordered run writes every job's output in the order the jobs were added") {
  std::mt19937 rng(7);
  for (unsigned threads : {1U, 2U, 4U}) {
    const std::size_t jobs = 600;
    std::vector<std::size_t> lines(jobs), chunks(jobs), sleeps(jobs);
    std::string expected_out, expected_err;
    for (std::size_t i = 0; i < jobs; ++i) {
      // Mostly small outputs, some large enough to stream past the capture limit.
      lines[i] = rng() % 10 == 0 ? 40000 + rng() % 40000 : rng() % 20;
      chunks[i] = 1 + rng() % 5000;
      sleeps[i] = rng() % 8 == 0 ? rng() % 300 : 0;
      const std::string path = "job" + std::to_string(i);
      if (i % 97 == 5) {
        expected_err += "ctxsearch: error " + std::to_string(i) + "\n";
      } else {
        expected_out += job_text(path, lines[i]);
      }
    }
    std::string out, err;
    {
      Redirect redirect;
      {
        Output output;
        OrderedRun run(
            output, threads, 16,
            [&](const OrderedJob& job) {
              const std::size_t i = std::stoul(job.path.substr(3));
              std::this_thread::sleep_for(std::chrono::microseconds(sleeps[i]));
              write_job(output, job.path, lines[i], chunks[i]);
              return false;
            },
            [] { return false; });
        for (std::size_t i = 0; i < jobs; ++i) {
          if (i % 97 == 5) {
            run.add(OrderedJob{{}, false, false, "error " + std::to_string(i)});
          } else {
            run.add(OrderedJob{"job" + std::to_string(i), false, false, {}});
          }
        }
        run.finish();
      }
      out = redirect.out();
      err = redirect.err();
    }
    INFO("threads " << threads);
    REQUIRE(out.size() == expected_out.size());
    REQUIRE(out == expected_out);
    REQUIRE(err == expected_err);
  }
}

TEST_CASE("ordered run: the first job streams before it ends; a later one waits for its turn") {
  constexpr std::size_t kLines = 400000;  // about 5 MB: past Output::kCaptureLimit
  std::atomic<bool> release_first{false}, first_done{false};
  std::atomic<bool> second_passed_limit_early{false};
  off_t seen_while_first_ran = 0;
  std::string out;
  {
    Redirect redirect;
    {
      Output output;
      OrderedRun run(
          output, 2, 8,
          [&](const OrderedJob& job) {
            if (job.path == "first") {
              OutputStream stream(output, {});
              std::string buffer = job_text("first", 1000);
              stream.stream(buffer);  // the head goes live: written now
              while (!release_first.load())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
              buffer = job_text("first-tail", 10);
              stream.finish(buffer);
              first_done.store(true);
              return false;
            }
            // The second job streams far more than a capture may hold: past the limit it must
            // wait until the first job's output is written.
            OutputStream stream(output, {});
            std::string buffer;
            std::size_t streamed = 0;
            for (std::size_t i = 0; i < kLines; ++i) {
              buffer += "second:" + std::to_string(i) + "\n";
              if (buffer.size() >= (std::size_t{1} << 16)) {
                streamed += buffer.size();
                stream.stream(buffer);
                if (streamed > 2 * Output::kCaptureLimit && !first_done.load()) {
                  second_passed_limit_early.store(true);
                }
              }
            }
            stream.finish(buffer);
            return false;
          },
          [] { return false; });
      run.add(OrderedJob{"first", false, false, {}});
      run.add(OrderedJob{"second", false, false, {}});
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      seen_while_first_ran = redirect.out_size();
      release_first.store(true);
      run.finish();
    }
    out = redirect.out();
  }
  CHECK(seen_while_first_ran == static_cast<off_t>(job_text("first", 1000).size()));
  CHECK_FALSE(second_passed_limit_early.load());
  std::string expected = job_text("first", 1000) + job_text("first-tail", 10);
  for (std::size_t i = 0; i < kLines; ++i) expected += "second:" + std::to_string(i) + "\n";
  REQUIRE(out == expected);
}

TEST_CASE("ordered run: finished jobs hold a bounded amount of output behind a slow head") {
  // Each job prints 100 KB without streaming (recorded whole); the head is slow. Jobs past the
  // held budget (8 MiB) must not start until the head is written.
  std::atomic<bool> head_done{false};
  std::atomic<std::size_t> started_while_head_ran{0};
  const std::string line(99, 'x');
  {
    Redirect redirect;
    Output output;
    OrderedRun run(
        output, 2, 1024,
        [&](const OrderedJob& job) {
          if (job.path == "job0") {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            head_done.store(true);
            return false;
          }
          if (!head_done.load()) ++started_while_head_ran;
          std::string text;
          for (int i = 0; i < 1000; ++i) text += line + "\n";
          OutputStream stream(output, {});
          stream.finish(text);
          return false;
        },
        [] { return false; });
    for (int i = 0; i < 400; ++i) run.add(OrderedJob{"job" + std::to_string(i), false, false, {}});
    run.finish();
  }
  // 8 MiB / 100 KB = 83 jobs may finish and wait; one more may be running on the other thread.
  CHECK(started_while_head_ran.load() <= 85);
  CHECK(started_while_head_ran.load() >= 10);
}

TEST_CASE(
    "ordered run: after a job that quits the run, later jobs' output and errors are dropped") {
  // As ripgrep's one-thread walk under -q: it stops at the first match and never reaches the
  // rest, however far the walk and the other threads went meanwhile.
  std::string out, err;
  {
    Redirect redirect;
    {
      Output output;
      OrderedRun run(
          output, 2, 64,
          [&](const OrderedJob& job) {
            if (job.path == "job1") std::this_thread::sleep_for(std::chrono::milliseconds(100));
            OutputStream stream(output, {});
            std::string text = job.path + "\n";
            stream.finish(text);
            return job.path == "job1";
          },
          [] { return false; });
      run.add(OrderedJob{{}, false, false, "error before"});
      run.add(OrderedJob{"job0", false, false, {}});
      run.add(OrderedJob{"job1", false, false, {}});
      run.add(OrderedJob{"job2", false, false, {}});
      run.add(OrderedJob{{}, false, false, "error after"});
      run.add(OrderedJob{"job3", false, false, {}});
      run.finish();
    }
    out = redirect.out();
    err = redirect.err();
  }
  CHECK(out == "job0\njob1\n");
  CHECK(err == "ctxsearch: error before\n");
}
