// Test helper: a temporary directory tree, removed with everything in it when the object goes.
// With Cwd::kEnter it is also the current directory for the object's lifetime (the walker's tests
// walk relative paths).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace ctx::testing {

class TempTree {
 public:
  enum class Cwd { kStay, kEnter };

  explicit TempTree(Cwd cwd = Cwd::kStay, const std::string& prefix = "ctxtest") {
    namespace fs = std::filesystem;
    std::string tmpl = (fs::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + tmpl);
    root_ = tmpl;
    if (cwd == Cwd::kEnter) {
      old_ = fs::current_path();
      fs::current_path(root_);
    }
  }
  ~TempTree() {
    std::error_code ec;
    if (!old_.empty()) std::filesystem::current_path(old_, ec);
    std::filesystem::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  // Writes `rel` (parents created; an existing file is rewritten in place, same inode) and
  // returns its full path.
  std::filesystem::path file(const std::string& rel, const std::string& text = "x\n") const {
    std::filesystem::path p = root_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  void dir(const std::string& rel) const { std::filesystem::create_directories(root_ / rel); }
  const std::filesystem::path& root() const { return root_; }
  std::string path(const std::string& rel = "") const { return (root_ / rel).string(); }

 private:
  std::filesystem::path root_, old_;
};

}  // namespace ctx::testing
