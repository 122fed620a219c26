// WalkOptions::report_all, the walk behind the agent's list_directory and find_files: directories
// are reported before what they hold and Flow::kSkip keeps the walk out of one, symlinks and
// special files are reported (never followed), and entries the filters skip go to on_ignored.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "../temp_tree.hpp"
#include "ctx/walker/walker.hpp"

namespace fs = std::filesystem;
using ctx::walker::EntryType;
using ctx::walker::Flow;
using ctx::walker::WalkOptions;

namespace {

using Tree = ctx::testing::TempTree;

char letter(EntryType t) {
  switch (t) {
    case EntryType::kFile:
      return 'f';
    case EntryType::kDirectory:
      return 'd';
    case EntryType::kSymlink:
      return 'l';
    case EntryType::kOther:
      return 'o';
  }
  return '?';
}

class Record final : public ctx::walker::WalkSink {
 public:
  explicit Record(std::string prefix) : prefix_(std::move(prefix)) {}
  Flow on_file(const ctx::walker::WalkEntry& e) override {
    std::lock_guard lock(mutex_);
    std::string rel = relative(e.path);
    seen.push_back(std::string(1, letter(e.type)) + " " + rel);
    order.push_back(rel);
    return std::find(skip.begin(), skip.end(), rel) != skip.end() ? Flow::kSkip : Flow::kContinue;
  }
  void on_ignored(const ctx::walker::WalkEntry& e) override {
    std::lock_guard lock(mutex_);
    ignored.push_back(std::string(1, letter(e.type)) + " " + relative(e.path));
  }
  void on_error(const ctx::Error& e) override {
    std::lock_guard lock(mutex_);
    errors.push_back(e.detail);
  }
  bool wants(const ctx::walker::WalkEntry& e) override {
    std::lock_guard lock(mutex_);
    std::string rel = relative(e.path);
    asked.push_back(std::string(1, letter(e.type)) + " " + rel);
    return std::find(refuse.begin(), refuse.end(), rel) == refuse.end();
  }
  std::vector<std::string> seen, order, ignored, errors, skip, asked, refuse;

 private:
  std::string relative(std::string_view p) const {
    return std::string(p.substr(std::min(prefix_.size(), p.size())));
  }
  std::string prefix_;
  std::mutex mutex_;
};

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("report_all reports directories, symlinks and special files with their types",
          "[walker][report_all]") {
  Tree tree;
  tree.file("a/b.txt");
  tree.file("c.txt");
  fs::create_directories(tree.path("empty"));
  fs::create_symlink("c.txt", tree.path("link"));
  REQUIRE(::mkfifo(tree.path("fifo").c_str(), 0600) == 0);
  WalkOptions options;
  options.paths = {tree.path()};
  options.report_all = true;
  Record sink(tree.path());
  REQUIRE(ctx::walker::walk(options, sink).ok());
  CHECK(sorted(sink.seen) ==
        std::vector<std::string>{"d a", "d empty", "f a/b.txt", "f c.txt", "l link", "o fifo"});
  // A directory comes before what it holds.
  auto pos = [&](const char* p) { return std::find(sink.order.begin(), sink.order.end(), p); };
  CHECK(pos("a") < pos("a/b.txt"));
  CHECK(sink.ignored.empty());
}

TEST_CASE("without report_all only files are reported", "[walker][report_all]") {
  Tree tree;
  tree.file("a/b.txt");
  fs::create_symlink("a/b.txt", tree.path("link"));
  WalkOptions options;
  options.paths = {tree.path()};
  Record sink(tree.path());
  REQUIRE(ctx::walker::walk(options, sink).ok());
  CHECK(sink.seen == std::vector<std::string>{"f a/b.txt"});
}

TEST_CASE("report_all: kSkip keeps the walk out of a directory", "[walker][report_all]") {
  Tree tree;
  tree.file("keep/x.txt");
  tree.file("prune/y.txt");
  tree.file("prune/deep/z.txt");
  WalkOptions options;
  options.paths = {tree.path()};
  options.report_all = true;
  Record sink(tree.path());
  sink.skip = {"prune"};
  REQUIRE(ctx::walker::walk(options, sink).ok());
  CHECK(sorted(sink.seen) == std::vector<std::string>{"d keep", "d prune", "f keep/x.txt"});
}

TEST_CASE("report_all hands ignored and hidden entries to on_ignored, not descending",
          "[walker][report_all]") {
  Tree tree;
  tree.file(".ignore");
  { std::ofstream(tree.path(".ignore")) << "*.log\nbuild/\n"; }
  tree.file("app.log");
  tree.file("build/out.o");
  tree.file("src/main.c");
  tree.file(".hidden");
  WalkOptions options;
  options.paths = {tree.path()};
  options.report_all = true;
  Record sink(tree.path());
  REQUIRE(ctx::walker::walk(options, sink).ok());
  CHECK(sorted(sink.seen) == std::vector<std::string>{"d src", "f src/main.c"});
  CHECK(sorted(sink.ignored) ==
        std::vector<std::string>{"d build", "f .hidden", "f .ignore", "f app.log"});
  options.hidden = true;
  Record with_hidden(tree.path());
  REQUIRE(ctx::walker::walk(options, with_hidden).ok());
  CHECK(sorted(with_hidden.ignored) == std::vector<std::string>{"d build", "f app.log"});
}

TEST_CASE("report_all respects max_depth and refuses sorting", "[walker][report_all]") {
  Tree tree;
  tree.file("a/b/c.txt");
  tree.file("top.txt");
  WalkOptions options;
  options.paths = {tree.path()};
  options.report_all = true;
  options.max_depth = 1;
  Record sink(tree.path());
  REQUIRE(ctx::walker::walk(options, sink).ok());
  CHECK(sorted(sink.seen) == std::vector<std::string>{"d a", "f top.txt"});
  options.sort = ctx::walker::SortBy::kPath;
  Record sorted_sink(tree.path());
  CHECK_FALSE(ctx::walker::walk(options, sorted_sink).ok());
}

TEST_CASE("report_all: wants is asked about every non-directory first and drops what it refuses",
          "[walker][report_all]") {
  Tree tree;
  { std::ofstream(tree.path(".ignore")) << "*.log\n"; }
  tree.file("keep.c");
  tree.file("drop.c");
  tree.file("drop.log");
  tree.file("kept.log");
  tree.file("dir/inner.c");
  fs::create_symlink("keep.c", tree.path("link"));
  WalkOptions options;
  options.paths = {tree.path()};
  options.report_all = true;
  options.hidden = true;
  Record sink(tree.path());
  sink.refuse = {"drop.c", "drop.log", "dir/inner.c"};
  REQUIRE(ctx::walker::walk(options, sink).ok());
  // Directories are never asked; every other entry is, ignored ones included.
  CHECK(sorted(sink.asked) == std::vector<std::string>{"f .ignore", "f dir/inner.c", "f drop.c",
                                                       "f drop.log", "f keep.c", "f kept.log",
                                                       "l link"});
  // A refused entry is neither reported nor handed to on_ignored; the rest are filtered as usual.
  CHECK(sorted(sink.seen) == std::vector<std::string>{"d dir", "f .ignore", "f keep.c", "l link"});
  CHECK(sink.ignored == std::vector<std::string>{"f kept.log"});
}
