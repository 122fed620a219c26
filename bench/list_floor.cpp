// list_floor: the kernel's floor of a sized directory listing, for bench/mcp_bench.sh -L.
//
// usage: list_floor DIR [RUNS]
// Lists DIR RUNS times (default 500) doing what any listing with sizes must do and nothing more:
// open the directory, getdents64 it into a reused buffer, fstatat each regular file, close; then
// the same without the fstatat calls. Prints the process CPU time (user+system) per listing of
// each. A tool server's list_directory of DIR costs at least the first figure; the rest of its
// CPU time is its own (ignore rules, policy, rendering, transport).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

struct Listing {
  std::size_t entries = 0;
  std::size_t stated = 0;
  std::uint64_t bytes = 0;
};

// One listing of `dir`; false when it cannot be opened or read.
bool list_once(const char* dir, bool stat_files, std::vector<char>& buf, Listing& out) {
  const int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  out = Listing{};
  bool ok = true;
  for (;;) {
    const ssize_t got = ::getdents64(fd, buf.data(), buf.size());
    if (got < 0) {
      ok = false;
      break;
    }
    if (got == 0) break;
    for (ssize_t off = 0; off < got;) {
      const auto* d = reinterpret_cast<const dirent64*>(buf.data() + off);
      off += d->d_reclen;
      if (std::strcmp(d->d_name, ".") == 0 || std::strcmp(d->d_name, "..") == 0) continue;
      ++out.entries;
      if (!stat_files || d->d_type != DT_REG) continue;
      struct stat st {};
      if (::fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        ++out.stated;
        out.bytes += static_cast<std::uint64_t>(st.st_size);
      }
    }
  }
  ::close(fd);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: list_floor DIR [RUNS]\n");
    return 2;
  }
  const int runs = argc == 3 ? std::atoi(argv[2]) : 500;
  if (runs < 1) {
    std::fprintf(stderr, "list_floor: RUNS must be >= 1\n");
    return 2;
  }
  std::vector<char> buf(64 << 10);
  for (const bool stat_files : {true, false}) {
    Listing listing;
    const double start = cpu_ms();
    for (int i = 0; i < runs; ++i) {
      if (!list_once(argv[1], stat_files, buf, listing)) {
        std::fprintf(stderr, "list_floor: cannot list %s: %s\n", argv[1], std::strerror(errno));
        return 1;
      }
    }
    const double per = (cpu_ms() - start) / runs;
    std::printf(
        "%s: %zu entries%s, %.3f ms CPU per listing (%d runs)\n",
        stat_files ? "getdents64 + fstatat per file" : "getdents64 only", listing.entries,
        stat_files ? (" (" + std::to_string(listing.stated) + " files stat'ed)").c_str() : "", per,
        runs);
  }
  return 0;
}
