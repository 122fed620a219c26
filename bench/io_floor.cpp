// io_floor: the cost floor of a literal search, for bench/search_bench.sh -F.
//
// usage: io_floor LIST NEEDLE [THREADS]
//   LIST: file paths separated by NUL bytes (as `ctxsearch --files -0` prints them), relative to
//   the working directory. Prints the path of every file holding NEEDLE (one line each) and exits.
//
// Per file it does what any searcher must do and nothing more: open, fstat, read(2) into a reused
// buffer (or mmap from 128 KiB, as ctxsearch chooses), memmem, close, on THREADS threads (default:
// the number of CPUs) taking files from one shared counter. No walk, no ignore rules, no binary
// detection, no line bounds: the time of `ctxsearch LITERAL` minus this program's time is what the
// walk and the search engine add on top of the kernel's per-file work.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kMmapMinBytes = 128 << 10;

std::vector<std::string> read_list(const char* list_path) {
  std::ifstream in(list_path, std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> paths;
  std::size_t start = 0;
  for (std::size_t end = all.find('\0'); end != std::string::npos; end = all.find('\0', start)) {
    paths.emplace_back(all, start, end - start);
    start = end + 1;
  }
  if (start < all.size()) paths.emplace_back(all, start);
  return paths;
}

// Whether the file at `path` holds `needle`; `buffer` is reused between calls and grows.
bool file_holds(const std::string& path, std::string_view needle, std::vector<char>& buffer) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  struct stat st {};
  bool found = false;
  if (::fstat(fd, &st) == 0) {
    const auto size = static_cast<std::size_t>(st.st_size);
    void* map =
        size >= kMmapMinBytes ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    if (map != MAP_FAILED) {
      found = ::memmem(map, size, needle.data(), needle.size()) != nullptr;
      ::munmap(map, size);
    } else {
      if (buffer.size() < size + 1) buffer.resize(size + 1);
      std::size_t got = 0;
      for (ssize_t n = 1; n > 0 && got < buffer.size(); got += static_cast<std::size_t>(n)) {
        n = ::read(fd, buffer.data() + got, buffer.size() - got);
        if (n <= 0) break;
      }
      found = ::memmem(buffer.data(), got, needle.data(), needle.size()) != nullptr;
    }
  }
  ::close(fd);
  return found;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: io_floor LIST NEEDLE [THREADS]\n");
    return 2;
  }
  const std::vector<std::string> paths = read_list(argv[1]);
  const std::string_view needle(argv[2]);
  unsigned threads =
      argc == 4 ? static_cast<unsigned>(std::atoi(argv[3])) : std::thread::hardware_concurrency();
  if (threads == 0) threads = 1;
  std::atomic<std::size_t> next{0};
  std::mutex out;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      std::vector<char> buffer;
      for (std::size_t i = next++; i < paths.size(); i = next++) {
        if (!file_holds(paths[i], needle, buffer)) continue;
        const std::lock_guard<std::mutex> lock(out);
        std::fwrite(paths[i].data(), 1, paths[i].size(), stdout);
        std::fputc('\n', stdout);
      }
    });
  }
  for (std::thread& t : pool) t.join();
  return 0;
}
