#include "ctx/engine/searcher.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ctx::engine {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
constexpr std::size_t kChunkBytes = 64 << 10;

std::uint64_t count_newlines(std::string_view s) {
  return static_cast<std::uint64_t>(std::count(s.begin(), s.end(), '\n'));
}

// Counts lines lazily: the line number of a position, advancing from the last one asked.
class LineCounter {
 public:
  LineCounter(std::string_view hay, bool enabled) : hay_(hay), enabled_(enabled) {}
  std::uint64_t at(std::size_t pos) {
    if (!enabled_) return 0;
    line_ += count_newlines(hay_.substr(counted_, pos - counted_));
    counted_ = pos;
    return line_;
  }

 private:
  std::string_view hay_;
  bool enabled_;
  std::size_t counted_ = 0;
  std::uint64_t line_ = 1;
};

}  // namespace

void FileBuffer::reserve(std::size_t bytes) {
  if (bytes <= capacity_) return;
  std::size_t grown = std::max(bytes, capacity_ * 2);
  auto fresh = std::make_unique_for_overwrite<char[]>(grown);
  data_.swap(fresh);  // callers reserve before reading, or copy what they keep (see below)
  capacity_ = grown;
}

Result<std::string_view> FileBuffer::read(const char* path, bool stop_at_nul) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return Error::from_errno(errno, path);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) return Error::from_errno(EISDIR, path);
  const std::size_t expect = S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) : 0;
  reserve(std::max<std::size_t>(expect + 1, kChunkBytes));
  std::size_t got = 0;
  for (;;) {
    if (got == capacity_) {  // the file grew, or a pipe: keep what we have
      auto bigger = std::make_unique_for_overwrite<char[]>(capacity_ * 2);
      std::memcpy(bigger.get(), data_.get(), got);
      data_.swap(bigger);
      capacity_ *= 2;
    }
    // Before the first NUL check, read one chunk only, so a binary file costs 64 KiB.
    std::size_t want = capacity_ - got;
    if (stop_at_nul && got < kChunkBytes) want = std::min(want, kChunkBytes - got);
    ssize_t n = ::read(fd, data_.get() + got, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno(errno, path);
    }
    if (n == 0) break;
    const std::size_t before = got;
    got += static_cast<std::size_t>(n);
    if (stop_at_nul && std::memchr(data_.get() + before, '\0', got - before) != nullptr) break;
  }
  return std::string_view(data_.get(), got);
}

Result<std::uint64_t> search_buffer(const PatternSet& patterns, PatternSet::Scratch& scratch,
                                    const SearchOptions& options, std::string_view hay,
                                    LineSink& sink) {
  std::size_t base_offset = 0;
  if (hay.substr(0, kUtf8Bom.size()) == kUtf8Bom) {
    hay.remove_prefix(kUtf8Bom.size());
    base_offset = kUtf8Bom.size();
  }
  const void* nul =
      options.binary == BinaryMode::kText ? nullptr : std::memchr(hay.data(), '\0', hay.size());
  std::optional<std::uint64_t> nul_offset;
  if (nul != nullptr) {
    nul_offset = static_cast<std::uint64_t>(static_cast<const char*>(nul) - hay.data());
    if (options.binary == BinaryMode::kQuit) {
      // Search only the lines before the one holding the NUL, as ripgrep stops there.
      std::size_t cut = static_cast<std::size_t>(*nul_offset);
      while (cut > 0 && hay[cut - 1] != '\n') --cut;
      hay = hay.substr(0, cut);
    }
  }
  const bool report_lines = !(nul_offset && options.binary == BinaryMode::kConvert);
  LineCounter lines(hay, options.line_numbers);
  std::uint64_t reported = 0;
  auto limit_reached = [&] { return options.max_count && reported >= *options.max_count; };
  auto emit = [&](std::size_t start, std::size_t end) -> bool {
    ++reported;
    if (!report_lines) return !limit_reached();
    std::string_view line = hay.substr(start, end - start);
    Flow flow = sink.on_line(lines.at(start), base_offset + start, line);
    return flow == Flow::kContinue && !limit_reached();
  };

  std::size_t pos = 0;
  if (options.max_count && *options.max_count == 0) pos = hay.size() + 1;
  while (pos <= hay.size()) {
    CTX_TRY_ASSIGN(std::optional<LineSpan> hit, patterns.find_line(hay, pos, scratch));
    if (options.invert) {
      // Every line from pos up to the hit (or the end) is a non-matching line.
      std::size_t stop = hit ? hit->start : hay.size();
      bool go_on = true;
      while (pos < stop && go_on) {
        const void* nl = std::memchr(hay.data() + pos, '\n', stop - pos);
        std::size_t end = nl == nullptr
                              ? stop
                              : static_cast<std::size_t>(static_cast<const char*>(nl) - hay.data());
        go_on = emit(pos, end);
        pos = end + 1;
      }
      if (!go_on || !hit) break;
      pos = hit->end + 1;
      continue;
    }
    if (!hit) break;
    if (hit->start == hay.size() && hit->start > 0 && hay.back() == '\n') break;  // past the end
    if (!emit(hit->start, hit->end)) break;
    pos = hit->end + 1;
  }
  if (nul_offset && (options.binary == BinaryMode::kConvert ? reported > 0 : true)) {
    sink.on_binary(base_offset + *nul_offset, reported > 0);
  }
  return reported;
}

}  // namespace ctx::engine
