#include "ctx/engine/searcher.hpp"

#include <emmintrin.h>
#include <fcntl.h>
#include <immintrin.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "cpu_features.hpp"
#include "ctx/base/utf8.hpp"

namespace ctx::engine {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
constexpr std::size_t kChunkBytes = 64 << 10;
// Files at least this large are memory-mapped by FileBuffer::read; smaller ones are read(2) into
// the reused buffer. Measured (perf stat task-clock, 10-12 runs, literal search of a 549 MB tree of
// 78k real source files on 2 cores): copying from the page cache was a quarter of all CPU time, and
// mapping from 128 KiB up (532 files, 37% of the bytes) took 7-13% less CPU than from 4 MiB up;
// from 32 KiB up saved less (the map/unmap cost of many small files). A single 40 MB file: 72 ms
// read(2) vs 24 ms mapped.
constexpr std::uint64_t kMmapMinBytes = 128 << 10;
// Files read without a map are filled as the search goes from this size on (FileBuffer::
// allow_filling), and each fill_to reads at least this much.
constexpr std::uint64_t kFillMinBytes = 4 << 20;
constexpr std::size_t kFillStepBytes = 1 << 20;
// A filled buffer's pages are released and reused (FileBuffer::recycle) in blocks of this size,
// at offsets that are multiples of it. (2 MiB blocks, a page table's reach, move faster, as the
// kernel moves whole page tables: 11 named 30 MB files 46 ms against 55 ms; but two threads each
// holding up to two such blocks more took peak RSS past 1.5x rg's + 8 MiB: 17 MB.)
constexpr std::size_t kRecycleBytes = std::size_t{1} << 20;
constexpr std::size_t kPoolBlocks = 2;  // blocks FileBuffer::keep_pages keeps between files

// `size` rounded up to a multiple of kRecycleBytes.
std::size_t whole_blocks(std::size_t size) {
  return (size + kRecycleBytes - 1) / kRecycleBytes * kRecycleBytes;
}

// An anonymous read-write mapping of whole_blocks(size) bytes (no memory reserved) at a multiple
// of kRecycleBytes, or nullptr.
char* map_aligned(std::size_t size) {
  size = whole_blocks(size);
  void* mapped = ::mmap(nullptr, size + kRecycleBytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapped == MAP_FAILED) return nullptr;
  char* base = static_cast<char*>(mapped);
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(base) % kRecycleBytes;
  const std::size_t head = misaligned == 0 ? 0 : kRecycleBytes - misaligned;
  char* aligned = base + head;
  if (head > 0) ::munmap(base, head);
  if (head < kRecycleBytes) ::munmap(aligned + size, kRecycleBytes - head);
  return aligned;
}

// Moves the block of pages at `from` (kRecycleBytes, one mapping) to `to` (replacing what is
// mapped there); `from` stays mapped, empty (it reads as zeros, as MADV_DONTNEED leaves it).
// False when the kernel refuses the move (nothing changed then; MREMAP_DONTUNMAP needs Linux 5.7).
// (One call: a move that left a hole to map again raced with other threads' mmap calls, which
// could be given the hole; mapping over it then destroyed, say, a new thread's stack.)
bool move_block(char* from, char* to) {
  return ::mremap(from, kRecycleBytes, kRecycleBytes,
                  MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, to) != MAP_FAILED;
}

}  // namespace

std::uint64_t count_newlines(std::string_view s) { return count_byte(s, '\n'); }

namespace {

// SSE2 (every x86-64 has it): compare 16 bytes at a time, accumulate the 0/-1 results in 8-bit
// lanes for at most 255 blocks, then fold the lanes with a sum of absolute differences (GCC does
// not vectorize std::count at -O2).
std::uint64_t count_byte_sse2(const char* p, std::size_t n, char byte) {
  std::uint64_t total = 0;
  const __m128i wanted = _mm_set1_epi8(byte);
  while (n >= 16) {
    std::size_t blocks = std::min<std::size_t>(n / 16, 255);
    __m128i lanes = _mm_setzero_si128();
    for (std::size_t i = 0; i < blocks; ++i, p += 16) {
      __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(bytes, wanted));
    }
    __m128i sums = _mm_sad_epu8(lanes, _mm_setzero_si128());
    total += static_cast<std::uint64_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<std::uint64_t>(_mm_extract_epi16(sums, 4));
    n -= blocks * 16;
  }
  for (; n > 0; --n, ++p) total += *p == byte ? 1 : 0;
  return total;
}

// The same 64 bytes at a time in two AVX2 accumulators: in a micro-benchmark, 1.8x SSE2's speed
// on 256 KiB in the caches (a line count over what the search just scanned), 1.3x from memory.
__attribute__((target("avx2"))) std::uint64_t count_byte_avx2(const char* p, std::size_t n,
                                                              char byte) {
  std::uint64_t total = 0;
  const __m256i wanted = _mm256_set1_epi8(byte);
  while (n >= 64) {
    const std::size_t blocks = std::min<std::size_t>(n / 64, 255);
    __m256i low = _mm256_setzero_si256(), high = _mm256_setzero_si256();
    for (std::size_t i = 0; i < blocks; ++i, p += 64) {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
      low = _mm256_sub_epi8(low, _mm256_cmpeq_epi8(a, wanted));
      high = _mm256_sub_epi8(high, _mm256_cmpeq_epi8(b, wanted));
    }
    const __m256i zero = _mm256_setzero_si256();
    const __m256i sums = _mm256_add_epi64(_mm256_sad_epu8(low, zero), _mm256_sad_epu8(high, zero));
    total += static_cast<std::uint64_t>(_mm256_extract_epi64(sums, 0)) +
             static_cast<std::uint64_t>(_mm256_extract_epi64(sums, 1)) +
             static_cast<std::uint64_t>(_mm256_extract_epi64(sums, 2)) +
             static_cast<std::uint64_t>(_mm256_extract_epi64(sums, 3));
    n -= blocks * 64;
  }
  return total + count_byte_sse2(p, n, byte);
}

}  // namespace

std::uint64_t count_byte(std::string_view s, char byte) {
  return detail::cpu_has_avx2 && s.size() >= 64 ? count_byte_avx2(s.data(), s.size(), byte)
                                                : count_byte_sse2(s.data(), s.size(), byte);
}

namespace {

// Counts lines (ending at `term`) lazily: the line number of a position, advancing from the last
// one asked.
class LineCounter {
 public:
  LineCounter(std::string_view hay, bool enabled, std::uint64_t first, char term)
      : hay_(hay), enabled_(enabled), term_(term), line_(first) {}
  // The number of the line that starts at `pos`: counted on from the last position asked for, or
  // back to it (a context line before one already numbered).
  std::uint64_t at(std::size_t pos) {
    if (!enabled_) return 0;
    if (pos >= counted_) {
      line_ += count_byte(hay_.substr(counted_, pos - counted_), term_);
    } else {
      line_ -= count_byte(hay_.substr(pos, counted_ - pos), term_);
    }
    counted_ = pos;
    return line_;
  }
  // Counts on to `pos` if it lies past what was counted.
  void advance_to(std::size_t pos) {
    if (pos > counted_) at(pos);
  }

 private:
  std::string_view hay_;
  bool enabled_;
  char term_;
  std::size_t counted_ = 0;
  std::uint64_t line_;
};

// The start of the line `count` lines before the one that starts at `from` (a line start, or the
// end of `hay`), never below `floor`: where -B's context lines begin.
std::size_t lines_before(std::string_view hay, char term, std::size_t from, std::size_t count,
                         std::size_t floor) {
  for (std::size_t n = 0; n < count && from > floor; ++n) {
    const std::size_t last = from - 1;  // the previous line's terminator (or the last byte)
    const void* nl = last > floor ? ::memrchr(hay.data() + floor, term, last - floor) : nullptr;
    from = nl == nullptr ? floor
                         : static_cast<std::size_t>(static_cast<const char*>(nl) - hay.data()) + 1;
  }
  return from;
}

}  // namespace

std::string utf16_to_utf8(std::string_view in, bool little_endian,
                          std::vector<std::size_t>* read_ends) {
  constexpr std::uint32_t kReplacement = 0xFFFD;
  constexpr std::size_t kDecoderRead = 8 << 10;  // encoding_rs_io's buffer
  std::string out;
  out.reserve(in.size());
  std::size_t read_end = 1;  // the first read brings the one byte the BOM peek left over
  // Before output that needs `in` up to `complete`: the reads that ended before it.
  auto reads_before = [&](std::size_t complete) {
    if (read_ends == nullptr) return;
    for (; read_end < complete; read_end += kDecoderRead) {
      if (!out.empty() && (read_ends->empty() || read_ends->back() < out.size())) {
        read_ends->push_back(out.size());  // a read that decodes to nothing reads on
      }
    }
  };
  auto unit = [&](std::size_t i) -> std::uint32_t {
    auto a = static_cast<unsigned char>(in[i]);
    auto b = static_cast<unsigned char>(in[i + 1]);
    return little_endian ? (std::uint32_t{b} << 8 | a) : (std::uint32_t{a} << 8 | b);
  };
  std::size_t i = 0;
  for (; i + 1 < in.size(); i += 2) {
    std::uint32_t u = unit(i);
    const bool high = u >= 0xD800 && u <= 0xDBFF;
    reads_before(!high ? i + 2 : i + 3 < in.size() ? i + 4 : in.size() + 1);
    if (high && i + 3 < in.size()) {
      std::uint32_t low = unit(i + 2);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        ctx::append_utf8(out, 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00));
        i += 2;
        continue;
      }
    }
    ctx::append_utf8(out, u >= 0xD800 && u <= 0xDFFF ? kReplacement : u);
  }
  if (i < in.size()) {
    reads_before(in.size() + 1);
    ctx::append_utf8(out, kReplacement);
  }
  if (read_ends != nullptr && (read_ends->empty() || read_ends->back() < out.size())) {
    read_ends->push_back(out.size());
  }
  return out;
}

void FileBuffer::reserve(std::size_t bytes, std::size_t keep) {
  if (bytes <= capacity_) return;
  std::size_t grown = std::max(bytes, capacity_ * 2);
  auto fresh = std::make_unique_for_overwrite<char[]>(grown);
  if (keep != 0) std::memcpy(fresh.get(), data_.get(), keep);
  data_.swap(fresh);
  capacity_ = grown;
}

// A mapped file that shrinks while it is searched raises SIGBUS on the first access past its new
// end. The handler below finds the mapping among the faulting thread's FileBuffers, puts zero pages
// over the rest of it (the scan goes on over NUL bytes) and flags the buffer; the caller reports
// the file (see FileBuffer::truncated). A SIGBUS anywhere else goes to the previous disposition.
namespace {

thread_local FileBuffer* t_mapped = nullptr;  // this thread's FileBuffers holding a mapping
thread_local FileBuffer::Borrow* t_borrowed = nullptr;  // the mappings it borrowed
struct sigaction g_previous_sigbus {};
std::uintptr_t g_page_bytes = 4096;

}  // namespace

FileBuffer::Borrow::Borrow(const FileBuffer& buffer) : buffer_(&buffer), previous_(t_borrowed) {
  t_borrowed = this;
}

FileBuffer::Borrow::~Borrow() { t_borrowed = previous_; }

bool FileBuffer::zero_from(char* addr) const {
  char* base = static_cast<char*>(map_);
  if (addr < base || addr >= base + map_bytes_) return false;
  const std::uintptr_t in_page = g_page_bytes - 1;
  char* from = addr - (reinterpret_cast<std::uintptr_t>(addr) & in_page);
  char* map_end = base + map_bytes_;
  const std::uintptr_t tail = reinterpret_cast<std::uintptr_t>(map_end) & in_page;
  char* end = tail == 0 ? map_end : map_end + (g_page_bytes - tail);
  void* zeros = ::mmap(from, static_cast<std::size_t>(end - from), PROT_READ,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (zeros == MAP_FAILED) return false;
  const auto offset = static_cast<std::size_t>(from - base);
  if (offset < zeroed_from_.load(std::memory_order_relaxed)) {
    zeroed_from_.store(offset, std::memory_order_relaxed);
  }
  truncated_.store(1, std::memory_order_relaxed);
  return true;
}

void FileBuffer::on_sigbus(int signal, siginfo_t* info, void* context) {
  auto* addr = static_cast<char*>(info->si_addr);
  for (const FileBuffer* b = t_mapped; b != nullptr; b = b->next_mapped_) {
    if (b->zero_from(addr)) return;
  }
  for (const Borrow* b = t_borrowed; b != nullptr; b = b->previous_) {
    if (b->buffer_->zero_from(addr)) return;
  }
  if ((g_previous_sigbus.sa_flags & SA_SIGINFO) != 0 && g_previous_sigbus.sa_sigaction != nullptr) {
    g_previous_sigbus.sa_sigaction(signal, info, context);
    return;
  }
  if (g_previous_sigbus.sa_handler != SIG_DFL && g_previous_sigbus.sa_handler != SIG_IGN) {
    g_previous_sigbus.sa_handler(signal);
    return;
  }
  ::signal(SIGBUS, SIG_DFL);  // returning re-runs the access, which now ends the process
}

void FileBuffer::install_sigbus_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_page_bytes = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = &FileBuffer::on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &g_previous_sigbus);
  });
}

Result<std::string_view> FileBuffer::read(const char* path, bool stop_at_nul) {
  return read_at(AT_FDCWD, path, path, stop_at_nul);
}

namespace {

bool starts_with_utf16_bom(std::string_view bytes) {
  return bytes.substr(0, 2) == "\xFF\xFE" || bytes.substr(0, 2) == "\xFE\xFF";
}

// Whether the regular file `fd` starts with a UTF-16 BOM (read with pread(2): the offset stays).
bool utf16_bom_at_start(int fd) {
  char bom[2];
  return ::pread(fd, bom, 2, 0) == 2 && starts_with_utf16_bom(std::string_view(bom, 2));
}

// What a search of a file found by the walk keeps of its first bytes: the first chunk alone when
// it holds a NUL byte (a binary file, unless a UTF-16 BOM says otherwise), else all of them.
std::string_view cut_at_binary_chunk(std::string_view bytes, bool stop_at_nul) {
  if (!stop_at_nul || starts_with_utf16_bom(bytes)) return bytes;
  std::string_view first = bytes.substr(0, kChunkBytes);
  return first.find('\0') != std::string_view::npos ? first : bytes;
}

}  // namespace

Result<std::string_view> FileBuffer::read_at(int dir_fd, const char* name, std::string_view path,
                                             bool stop_at_nul, bool short_read_is_end) {
  int fd = ::openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return Error::from_errno(errno, path);
  struct Closer {
    int fd;
    ~Closer() {
      if (fd >= 0) ::close(fd);
    }
  } closer{fd};
  unmap();
  // Most files of a source tree are smaller than the mapping threshold: where a short read is
  // the file's end, one read(2) of that many bytes takes a whole one without an fstat (measured:
  // a tenth of the CPU time of reading a 549 MB tree of 78k files that way). Only a file that
  // fills it is fstat'ed, then mapped or read on.
  std::size_t got = 0;
  if (short_read_is_end) {
    reserve(kMmapMinBytes);
    ssize_t n = 0;
    do {
      n = ::read(fd, data_.get(), kMmapMinBytes);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return Error::from_errno(errno, path);
    got = static_cast<std::size_t>(n);
    std::string_view bytes(data_.get(), got);
    std::string_view kept = cut_at_binary_chunk(bytes, stop_at_nul);
    if (got < kMmapMinBytes || kept.size() < got) return kept;
  }
  struct stat st {};
  const bool fill = ::fstat(fd, &st) == 0 && (!allow_mapping_ || prefer_filling_) &&
                    allow_filling_ && S_ISREG(st.st_mode) &&
                    static_cast<std::uint64_t>(st.st_size) >= kFillMinBytes;
  // A UTF-16 file (a BOM) is decoded through a copy anyway, and looked through for a decoded NUL
  // first: filled, that look reads with pread(2); mapped, it faulted every page in twice (11
  // named 100 MB files: 50 against 42 ms).
  if (allow_mapping_ && S_ISREG(st.st_mode) &&
      static_cast<std::uint64_t>(st.st_size) >= kMmapMinBytes &&
      !(fill && utf16_bom_at_start(fd))) {
    std::optional<std::string_view> mapped =
        map_file(fd, static_cast<std::size_t>(st.st_size), fill);
    // As the read(2) path: a NUL in the first chunk (and no UTF-16 BOM) keeps that chunk only.
    if (mapped) return cut_at_binary_chunk(*mapped, stop_at_nul);
  }
  if (fill) {
    std::optional<Result<std::string_view>> filling =
        start_filling(closer.fd, static_cast<std::size_t>(st.st_size), got, path, stop_at_nul);
    if (filling) {
      closer.fd = -1;  // kept open for fill_to
      return *std::move(filling);
    }
  }
  // (After a whole first read without a NUL byte in its first chunk, the rest is read whole, as
  // read_fd reads a regular file after such a chunk.)
  return read_on(fd, st, path, got == 0 && stop_at_nul, got);
}

std::optional<std::string_view> FileBuffer::map_file(int fd, std::size_t size, bool fill) {
  install_sigbus_handler();
  // Filled: writable (private), for convert_nuls.
  void* map = ::mmap(nullptr, size, fill ? PROT_READ | PROT_WRITE : PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return std::nullopt;
  ::madvise(map, size, MADV_SEQUENTIAL);
  // Pages, not 2 MiB at a time where the page cache holds the file in such folios: release_before
  // drops pages behind the search (measured: a freshly written 13.5 MB UTF-16 file named twice,
  // -j1, peak RSS 13.0-13.2 -> 12.1 MB; time unchanged).
  ::madvise(map, size, MADV_NOHUGEPAGE);
  map_ = map;
  map_bytes_ = size;
  next_mapped_ = t_mapped;
  t_mapped = this;
  fill_mapped_ = fill;
  if (fill) filled_ = std::min(size, kChunkBytes);  // as start_filling's first fill_to
  return std::string_view(static_cast<const char*>(map), size);
}

void FileBuffer::release_before(const char* at) {
  const char* map = static_cast<const char*>(map_);
  if (map == nullptr || at < map || at > map + map_bytes_) return;
  // A filled buffer moves its pages in blocks (recycle); a mapped one drops them in blocks too
  // (one madvise per 64 KiB read was 155 calls for a 10 MB file, each flushing the TLB).
  const std::size_t unit = kRecycleBytes;
  const std::size_t to = static_cast<std::size_t>(at - map) / unit * unit;
  if (to <= released_) return;
  if (fd_ >= 0) {
    recycle(released_, to);
  } else {
    // Only drops this process's mapping of the pages: the next touch maps the page cache's copy
    // (or, past a truncation, the zero pages on_sigbus puts there) again.
    ::madvise(static_cast<char*>(map_) + released_, to - released_, MADV_DONTNEED);
  }
  released_ = to;
}

void FileBuffer::recycle(std::size_t from, std::size_t to) {
  char* map = static_cast<char*>(map_);
  const std::size_t limit = whole_blocks(map_bytes_);  // the mapping's end
  // One block at a time (mremap takes a range of one mapping, and moved blocks are mappings of
  // their own), each to where no page has been touched yet: past the block filled_ is in, and past
  // blocks moved before.
  for (; from < to; from += kRecycleBytes) {
    const std::size_t target =
        std::max((filled_ + kRecycleBytes - 1) / kRecycleBytes * kRecycleBytes, recycled_end_);
    if (target + kRecycleBytes > limit || !move_block(map + from, map + target)) break;
    recycled_end_ = target + kRecycleBytes;
  }
  if (from < to) ::madvise(map + from, to - from, MADV_DONTNEED);
}

Status FileBuffer::scan(std::size_t from, const std::function<bool(std::string_view)>& each) {
  constexpr std::size_t kPiece = std::size_t{1} << 20;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  char* map = static_cast<char*>(map_);
  if (map == nullptr) return {};
  std::unique_ptr<char[]> scratch;
  off_t file_start = 0;  // the file offset of byte 0 (filling: the fd's offset less filled_)
  if (fd_ >= 0) {
    const off_t at = ::lseek(fd_, 0, SEEK_CUR);
    if (at < 0) return Error::from_errno(errno, fill_path_);
    file_start = at - static_cast<off_t>(filled_);
    scratch = std::make_unique_for_overwrite<char[]>(kPiece);
  }
  for (std::size_t at = from; at < map_bytes_;) {
    const std::size_t n = std::min(kPiece, map_bytes_ - at);
    std::string_view piece;
    if (fd_ < 0 || at + n <= filled_) {
      piece = std::string_view(map + at, n);
    } else {
      std::size_t got = 0;
      while (got < n) {
        const ssize_t r =
            ::pread(fd_, scratch.get() + got, n - got, file_start + static_cast<off_t>(at + got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return Error::from_errno(errno, fill_path_);
        if (r == 0) break;  // the file shrank: the search reports it
        got += static_cast<std::size_t>(r);
      }
      piece = std::string_view(scratch.get(), got);
    }
    const bool more = each(piece);
    if (fd_ < 0) {  // drop the pages wholly inside what was scanned, past what release_before did
      // (and past what a filled mapping has converted)
      const std::size_t first =
          std::max({(at + page - 1) / page * page, released_,
                    fill_mapped_ ? (filled_ + page - 1) / page * page : std::size_t{0}});
      const std::size_t last = (at + n) / page * page;
      if (first < last) ::madvise(map + first, last - first, MADV_DONTNEED);
    }
    if (!more || piece.size() < n) break;
    at += n;
  }
  return {};
}

Status FileBuffer::fill_to(std::size_t end) {
  end = std::min(end, map_bytes_);
  if (!filling() || end <= filled_) return {};
  if (fill_mapped_) {  // the bytes are there; only NULs are converted as they arrive
    if (nul_to_) convert_range(filled_, end);
    filled_ = end;
    return {};
  }
  char* buffer = static_cast<char*>(map_);
  while (filled_ < end) {
    const std::size_t want =
        std::min(std::max(end - filled_, kFillStepBytes), map_bytes_ - filled_);
    const ssize_t n = ::read(fd_, buffer + filled_, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno(errno, fill_path_);
    if (n == 0) {  // the file shrank: the rest reads as zeros, as a truncated map reads
      truncated_.store(1, std::memory_order_relaxed);
      if (recycled_end_ > filled_) {  // recycled pages hold old bytes
        std::memset(buffer + filled_, 0, std::min(recycled_end_, map_bytes_) - filled_);
      }
      filled_ = map_bytes_;
      break;
    }
    if (nul_to_) convert_range(filled_, filled_ + static_cast<std::size_t>(n));
    filled_ += static_cast<std::size_t>(n);
  }
  return {};
}

void FileBuffer::convert_nuls(char term) {
  nul_to_ = term;
  convert_range(0, filled_);
}

void FileBuffer::convert_range(std::size_t from, std::size_t to) {
  char* buffer = static_cast<char*>(map_);
  for (char* at = buffer + from; at < buffer + to;) {
    at = static_cast<char*>(std::memchr(at, '\0', static_cast<std::size_t>(buffer + to - at)));
    // (The zero pages of a truncated mapping are not converted: the search reports the file as
    // shrunk. A write there would fault: they are read-only.)
    if (at == nullptr ||
        static_cast<std::size_t>(at - buffer) >= zeroed_from_.load(std::memory_order_relaxed)) {
      break;
    }
    if (!first_nul_) first_nul_ = static_cast<std::size_t>(at - buffer);
    *at++ = *nul_to_;
  }
}

void FileBuffer::unmap() {
  truncated_.store(0, std::memory_order_relaxed);
  zeroed_from_.store(kNotZeroed, std::memory_order_relaxed);
  if (fd_ >= 0)
    keep_pages();  // before released_ and filled_ are reset: they bound what is resident
  released_ = 0;
  // What a fill (read or mapped) kept about the file.
  filled_ = 0;
  fill_mapped_ = false;
  nul_to_.reset();
  first_nul_.reset();
  if (fd_ >= 0) {  // a buffer being filled: anonymous memory, never on t_mapped
    ::close(fd_);
    fd_ = -1;
    recycled_end_ = 0;
    ::munmap(map_, whole_blocks(map_bytes_));
    map_ = nullptr;
    map_bytes_ = 0;
    return;
  }
  if (map_ == nullptr) return;
  for (FileBuffer** link = &t_mapped; *link != nullptr; link = &(*link)->next_mapped_) {
    if (*link == this) {
      *link = next_mapped_;
      break;
    }
  }
  next_mapped_ = nullptr;
  ::munmap(map_, map_bytes_);
  map_ = nullptr;
  map_bytes_ = 0;
}

FileBuffer::~FileBuffer() {
  unmap();
  if (pool_ != nullptr) ::munmap(pool_, kPoolBlocks * kRecycleBytes);
}

void FileBuffer::keep_pages() {
  if (pool_blocks_ == kPoolBlocks) return;
  if (pool_ == nullptr && (pool_ = map_aligned(kPoolBlocks * kRecycleBytes)) == nullptr) return;
  char* map = static_cast<char*>(map_);
  // The resident blocks: from the first not released to the end of what was filled or moved
  // (the mapping holds whole blocks: see map_aligned).
  const std::size_t end = std::min(std::max(filled_, recycled_end_), whole_blocks(map_bytes_));
  for (std::size_t at = released_; at + kRecycleBytes <= end && pool_blocks_ < kPoolBlocks;
       at += kRecycleBytes) {
    if (!move_block(map + at, pool_ + pool_blocks_ * kRecycleBytes)) break;
    ++pool_blocks_;
  }
}

void FileBuffer::take_kept_pages(char* buffer, std::size_t size) {
  while (pool_blocks_ > 0 && recycled_end_ + kRecycleBytes <= whole_blocks(size) &&
         move_block(pool_ + (pool_blocks_ - 1) * kRecycleBytes, buffer + recycled_end_)) {
    --pool_blocks_;
    recycled_end_ += kRecycleBytes;
  }
}

Result<std::string_view> FileBuffer::read_fd(int fd, std::string_view path, bool stop_at_nul) {
  unmap();
  struct stat st {};
  if (::fstat(fd, &st) != 0) st.st_mode = 0;
  return read_fd(fd, st, path, stop_at_nul);
}

Result<std::string_view> FileBuffer::read_fd(int fd, const struct stat& st, std::string_view path,
                                             bool stop_at_nul) {
  unmap();
  // A large regular file (stdin redirected from one) arrives as the search goes, from where the
  // fd stands, through a duplicate of it (the caller keeps `fd`).
  const off_t at = allow_filling_ && S_ISREG(st.st_mode) ? ::lseek(fd, 0, SEEK_CUR) : -1;
  if (at >= 0 && st.st_size - at >= static_cast<off_t>(kFillMinBytes)) {
    const int dup = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dup >= 0) {
      std::optional<Result<std::string_view>> filling =
          start_filling(dup, static_cast<std::size_t>(st.st_size - at), 0, path, stop_at_nul);
      if (filling) return *std::move(filling);
      ::close(dup);
    }
  }
  return read_on(fd, st, path, stop_at_nul, 0);
}

std::optional<Result<std::string_view>> FileBuffer::start_filling(int fd, std::size_t size,
                                                                  std::size_t got,
                                                                  std::string_view path,
                                                                  bool stop_at_nul) {
  // Aligned to kRecycleBytes: see recycle.
  char* buffer = map_aligned(size);
  if (buffer == nullptr) return std::nullopt;
  recycled_end_ = 0;
  take_kept_pages(buffer, size);
  map_ = buffer;
  map_bytes_ = size;
  if (got > 0) std::memcpy(buffer, data_.get(), got);
  filled_ = got;
  fd_ = fd;
  fill_path_.assign(path);
  if (Status first = fill_to(kChunkBytes); !first.ok())
    return Result<std::string_view>(first.error());
  return Result<std::string_view>(cut_at_binary_chunk(
      std::string_view(static_cast<const char*>(buffer), map_bytes_), stop_at_nul));
}

Result<std::string_view> FileBuffer::read_on(int fd, const struct stat& st, std::string_view path,
                                             bool stop_at_nul, std::size_t got) {
  if (S_ISDIR(st.st_mode)) return Error::from_errno(EISDIR, path);
  const std::size_t expect = S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) : 0;
  reserve(std::max<std::size_t>(expect + 1, kChunkBytes), got);
  for (;;) {
    if (got == capacity_) reserve(capacity_ + 1, got);  // the file grew, or a pipe: doubled
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
    // A UTF-16 file (BOM) is full of NULs and is text: read it whole.
    if (before == 0 && starts_with_utf16_bom(std::string_view(data_.get(), got))) {
      stop_at_nul = false;
    }
    if (stop_at_nul && std::memchr(data_.get() + before, '\0', got - before) != nullptr) break;
    // A regular file is read up to the size it had when opened; the read(2) that would only
    // confirm the end is skipped (one system call per file less).
    if (expect != 0 && got == expect) break;
  }
  return std::string_view(data_.get(), got);
}

namespace {

constexpr std::size_t kNoNul = static_cast<std::size_t>(-1);
constexpr std::size_t kBomPeek = 3;
constexpr std::size_t kStdinBuffer = 8 << 10;

// How much of a haystack has arrived (SearchOptions::fill): more is asked for before it is read.
// Without a fill, all of it has.
class Arrivals {
 public:
  Arrivals(HaystackFill* fill, std::size_t size) : fill_(fill), size_(size) {
    if (fill_ == nullptr) filled_ = size;
  }
  // The haystack now starts `skip` bytes into what the fill fills (a UTF-8 BOM dropped).
  void skip(std::size_t skip) {
    base_ += skip;
    size_ -= skip;
    filled_ = filled_ > skip ? filled_ - skip : 0;
  }
  // Makes the haystack's first `end` bytes readable (clipped to its size); false once a fill
  // failed (the bytes not filled then read as zeros: the search is to stop, with error()).
  bool to(std::size_t end) {
    end = std::min(end, size_);
    if (end <= filled_) return true;
    if (error_) return false;
    Status filled = fill_->fill_to(base_ + end);
    if (!filled.ok()) {
      error_ = filled.error();
      return false;
    }
    filled_ = end;
    return true;
  }
  bool all() { return to(size_); }
  // NUL bytes become `term` as they arrive (HaystackFill::convert_nuls).
  void convert_nuls(char term) {
    fill_->convert_nuls(term);
    converting_ = true;
  }
  bool converting() const { return converting_; }
  // Whether the bytes arrive as the search goes (else they are all there).
  bool has_fill() const { return fill_ != nullptr; }
  // Converting: the first NUL byte that arrived (it reads as the terminator now), if any.
  std::optional<std::size_t> first_nul() const {
    if (fill_ == nullptr) return std::nullopt;
    const std::optional<std::size_t> at = fill_->first_nul();
    if (!at || *at < base_) return std::nullopt;
    return *at - base_;
  }
  std::size_t filled() const { return filled_; }
  const std::optional<Error>& error() const { return error_; }

 private:
  HaystackFill* fill_;
  std::size_t size_;
  std::size_t base_ = 0;
  std::size_t filled_ = 0;
  bool converting_ = false;
  std::optional<Error> error_;
};

// ripgrep's roll buffer (grep-searcher's LineBuffer as its ReadByLine searcher drives it),
// modelled to know what each of its reads brings in. A round reads up to the buffer's capacity
// (64 KiB; tripled whenever it is full and no line has ended yet) after what the last round left
// unconsumed, then searches the complete lines it holds and consumes them, all but the last
// max(-A, -B) + 1 lines not yet reported when there is context. The first read brings 3 bytes only
// (ripgrep's decoder peeks that far for a BOM), so a line feed there ends a first round; behind a
// UTF-8 BOM (stripped from `hay`) the first read is a whole one, and behind a UTF-16 BOM or with
// -E the reads are the decoder's (`decoded_reads`). A read that brings in the first NUL byte is
// where ripgrep notices binary data.
class RollBuffer {
 public:
  // How the bytes of `hay` came in.
  struct Reads {
    bool stdin = false;     // through Rust's 8 KiB stdin buffer (the second read ends at 8 KiB)
    bool utf8_bom = false;  // a UTF-8 BOM was read and dropped before `hay`
    const std::vector<std::size_t>* decoded = nullptr;  // decode_haystack's read ends
  };
  // `nul`: the first NUL byte of `hay` (kNoNul: none); `context`: max(-A, -B); lines end at `term`.
  // `find_nul`: `nul` is kNoNul because nobody looked; each read looks for the first NUL in what it
  // brings (so a large file is not read once for a NUL and once more for matches).
  // `arrivals`: how much of `hay` has arrived (a read past it asks for more; a failed fill ends
  // the file there).
  RollBuffer(std::string_view hay, std::size_t nul, std::size_t context, Reads reads, char term,
             bool find_nul, Arrivals& arrivals)
      : hay_(hay),
        nul_(nul),
        context_(context),
        reads_(reads),
        term_(term),
        find_nul_(find_nul),
        arrivals_(arrivals) {
    fill();
  }
  std::size_t nul() const { return nul_; }      // the first NUL byte read so far (kNoNul: none)
  std::size_t start() const { return start_; }  // the first byte not consumed
  std::size_t end() const { return end_; }      // the end of the complete lines held
  bool eof() const { return eof_; }
  bool nul_read() const { return nul_read_; }  // the last round's reads brought the NUL in

  // The next round. `visited`: the end of the last line reported (its terminator included).
  void next(std::size_t visited) {
    std::size_t consumed_to = end_;
    if (context_ > 0) consumed_to = std::max(preceding(), std::max(visited, start_));
    start_ = std::min(consumed_to, end_);
    fill();
  }

 private:
  void fill() {
    nul_read_ = false;
    for (;;) {
      if (read_ - start_ >= capacity_) capacity_ *= 3;  // full without a line end: grow
      std::size_t upto = std::min(hay_.size(), next_read_end());
      if (!arrivals_.to(upto)) upto = read_;
      if (upto <= read_) {  // end of file: the rest is one last line
        end_ = read_;
        eof_ = true;
        return;
      }
      const std::size_t from = read_;
      read_ = upto;
      if (find_nul_ && nul_ == kNoNul && arrivals_.converting()) {
        // The NULs became line terminators as they arrived; the fill knows where the first was.
        const std::optional<std::size_t> at = arrivals_.first_nul();
        if (at && *at < upto) nul_ = *at;
      } else if (find_nul_ && nul_ == kNoNul) {
        const void* at = std::memchr(hay_.data() + from, '\0', upto - from);
        if (at != nullptr)
          nul_ = static_cast<std::size_t>(static_cast<const char*>(at) - hay_.data());
      }
      if (nul_ >= from && nul_ < upto) nul_read_ = true;
      const void* nl = ::memrchr(hay_.data() + from, term_, upto - from);
      if (nl != nullptr) {
        end_ = static_cast<std::size_t>(static_cast<const char*>(nl) - hay_.data()) + 1;
        return;
      }
    }
  }

  // Where the read that starts at `read_` ends (the buffer has room up to start_ + capacity_).
  // A decoder's read cut short by that room ends right there here; ripgrep's ends at a character
  // boundary before it (encoding_rs checks for room per character) and goes on through
  // encoding_rs_io's small-buffer path: only lines of tens of KiB can tell the two apart.
  std::size_t next_read_end() {
    const std::size_t room = start_ + capacity_;
    if (reads_.decoded != nullptr) {
      while (next_decoded_ < reads_.decoded->size() && (*reads_.decoded)[next_decoded_] <= read_) {
        ++next_decoded_;
      }
      if (next_decoded_ == reads_.decoded->size()) return room;
      return std::min(room, (*reads_.decoded)[next_decoded_]);
    }
    // What Rust's stdin buffer holds after the first 3 bytes (after the BOM: of its 8 KiB).
    const std::size_t buffered = kStdinBuffer - (reads_.utf8_bom ? kUtf8Bom.size() : 0);
    if (read_ == 0 && !reads_.utf8_bom) return kBomPeek;
    if (reads_.stdin && read_ < buffered) return buffered;
    return room;
  }

  // grep-searcher's lines::preceding over the buffer's lines: the start of the line `context_`
  // lines before the last one.
  std::size_t preceding() const {
    std::size_t pos = end_;
    if (pos == start_) return start_;
    if (hay_[pos - 1] == term_) --pos;
    std::size_t count = context_;
    for (;;) {
      const void* nl = ::memrchr(hay_.data() + start_, term_, pos - start_);
      if (nl == nullptr) return start_;
      const auto i = static_cast<std::size_t>(static_cast<const char*>(nl) - hay_.data());
      if (count == 0) return i + 1;
      if (i == start_) return start_;
      --count;
      pos = i;
    }
  }

  std::string_view hay_;
  std::size_t nul_;
  std::size_t context_;
  Reads reads_;
  char term_;
  bool find_nul_;
  Arrivals& arrivals_;
  std::size_t next_decoded_ = 0;  // the first of reads_.decoded not yet passed
  std::size_t capacity_ = kChunkBytes;
  std::size_t start_ = 0, read_ = 0, end_ = 0;
  bool eof_ = false;
  bool nul_read_ = false;
};

}  // namespace

Result<std::uint64_t> search_buffer(const PatternSet& patterns, PatternSet::Scratch& scratch,
                                    const SearchOptions& options, std::string_view hay,
                                    LineSink& sink) {
  const std::uint64_t base_offset = options.base_offset;
  const BinaryMode mode = options.binary;
  const char term = patterns.line_terminator();  // '\n', or '\0' (--null-data)
  std::string transcoded;
  std::vector<std::size_t> decoded_reads;  // where ripgrep's decoder's reads end
  RollBuffer::Reads reads{.stdin = options.stdin_reader};
  Arrivals arrivals(options.fill, hay.size());
  bool decoded = false;    // ripgrep decodes the file (BOM, -E): by its roll buffer, never whole
  if (base_offset == 0) {  // a later piece of a stream has no BOM to look for
    if (!arrivals.to(kBomPeek)) return *arrivals.error();
    const DecodePlan plan = plan_decoding(hay.substr(0, 3), options.encoding, options.bom_sniffing);
    if (plan.decoder) {
      if (!arrivals.all()) return *arrivals.error();
      // Searched (and printed) as UTF-8.
      // Through stdin, the read after the BOM peek gets what Rust's 8 KiB buffer holds.
      const std::size_t buffered_end = options.stdin_reader ? kStdinBuffer - plan.skip : 0;
      transcoded = decode_haystack(*plan.decoder, hay.substr(plan.skip), plan.first_read,
                                   buffered_end, &decoded_reads);
      hay = transcoded;
      arrivals = Arrivals(nullptr, hay.size());  // the transcoded bytes are all there
      reads.decoded = &decoded_reads;
      decoded = true;
    } else if (plan.skip > 0) {
      hay.remove_prefix(plan.skip);  // offsets count from after the BOM, as ripgrep
      arrivals.skip(plan.skip);
      reads.utf8_bom = true;
      decoded = true;
    }
  }
  const bool multiline = patterns.multiline();
  const bool suppress = mode == BinaryMode::kSuppress;
  // Where ripgrep has the whole file (multiline mode, a memory map) it looks for a NUL in the
  // first 64 KiB, then in each line (block) it is about to report; else its roll buffer notices
  // the first NUL when a read brings it in.
  const bool whole = multiline || (options.whole_file && !decoded);
  // A haystack that arrives as the search goes is searched a window at a time (see `windowed`
  // below), reading ripgrep's roll buffer rounds as they come; any other search has it all first.
  // (kConvert: the NULs become line terminators as they arrive, where ripgrep's roll buffer
  // converts each read, instead of in a copy of the whole haystack.)
  // Windows are asked for and the haystack is large enough (not -v --stop-on-nonmatch, whose quirk
  // below needs the next hit wherever it is).
  const bool windows_fit = options.window_bytes > 0 && hay.size() / 2 > options.window_bytes &&
                           !(options.invert && options.stop_on_nonmatch);
  const bool by_windows = windows_fit && !multiline && !whole && !suppress &&
                          (mode != BinaryMode::kConvert || arrivals.has_fill()) && term == '\n' &&
                          !patterns.searches_buffer();
  if (!by_windows && !arrivals.all()) return *arrivals.error();
  const bool convert_as_arriving = by_windows && mode == BinaryMode::kConvert;
  if (convert_as_arriving) arrivals.convert_nuls(term);
  // The first NUL byte (kNoNul: none). On a whole file, like ripgrep, only the first 64 KiB are
  // looked at here: without a NUL there, `nul` is 64 KiB (no NUL before it, the rest unknown), and
  // check_line looks in each line about to be reported past it (so a large file is not read
  // twice, once for a NUL and once for matches).
  std::size_t nul = kNoNul;
  // Files found by the walk (kQuit) through the roll buffer: it looks as it reads (see RollBuffer).
  const bool roll_finds_nul =
      (mode == BinaryMode::kQuit || convert_as_arriving) && !whole && term != '\0';
  if (mode != BinaryMode::kText && term != '\0' && !roll_finds_nul) {  // NUL lines: no binary data
    const bool first_chunk = (suppress && multiline) || (whole && !suppress);
    const std::size_t look = options.nul_only_in_reported_lines ? 0
                             : first_chunk                      ? std::min(hay.size(), kChunkBytes)
                                                                : hay.size();
    const void* at = std::memchr(hay.data(), '\0', look);
    if (at != nullptr) {
      nul = static_cast<std::size_t>(static_cast<const char*>(at) - hay.data());
    } else if (whole && !suppress && (look < hay.size() || options.nul_only_in_reported_lines)) {
      nul = look;
    }
  }
  std::string converted;
  if (nul != kNoNul && mode == BinaryMode::kConvert && !whole) {
    // ripgrep's roll buffer reads a NUL as a line end under BinaryMode::convert.
    converted.assign(hay);
    std::replace(converted.begin() + static_cast<std::ptrdiff_t>(nul), converted.end(), '\0', term);
    hay = converted;
  }
  sink.on_haystack(hay);
  const bool report_lines = !(nul != kNoNul && suppress);
  LineCounter lines(hay, options.line_numbers, options.first_line_number, term);
  std::uint64_t reported = 0;
  auto limit_reached = [&] { return options.max_count && reported >= *options.max_count; };
  // The end of the line that starts at `start` (its terminator, or the haystack's end), asking
  // for the bytes up to it as it looks (a failed fill: the haystack's end).
  auto line_end = [&](std::size_t start) {
    for (std::size_t from = start;;) {
      const std::size_t have = arrivals.filled();
      if (from < have) {
        const void* nl = std::memchr(hay.data() + from, term, have - from);
        if (nl != nullptr) {
          return static_cast<std::size_t>(static_cast<const char*>(nl) - hay.data());
        }
        from = have;
      }
      if (have >= hay.size() || !arrivals.to(std::max(from, have) + kChunkBytes)) {
        return hay.size();
      }
    }
  };

  // Binary data (kQuit, kConvert): `quit` once ripgrep would stop searching.
  std::optional<std::size_t> binary_at;
  bool quit = false;
  auto notice = [&](std::size_t at) {
    binary_at = at;
    sink.on_binary(base_offset + at, reported > 0);
    if (mode == BinaryMode::kQuit) quit = true;
  };
  const bool detect = nul != kNoNul && !suppress;
  // Whole file: a line (block) [start, end) about to be reported; false when ripgrep quits there.
  auto check_line = [&](std::size_t start, std::size_t end) {
    if (!detect || !whole || binary_at || end <= nul) return true;
    const std::size_t from = std::max(start, nul);
    const void* at = std::memchr(hay.data() + from, '\0', end - from);
    if (at == nullptr) return true;
    notice(static_cast<std::size_t>(static_cast<const char*>(at) - hay.data()));
    return !quit;
  };
  if (detect && whole && nul < kChunkBytes && !options.nul_only_in_reported_lines) notice(nul);
  std::optional<RollBuffer> roll;
  if (!whole && !suppress) {
    roll.emplace(hay, detect ? nul : kNoNul,
                 report_lines ? std::max(options.before, options.after) : 0, reads, term,
                 roll_finds_nul, arrivals);
    sink.on_buffer(roll->start());
    if (roll->nul_read()) notice(roll->nul());
  }

  // Context (-A/-B, --passthru): `printed_until` is the start of the first line not yet printed.
  const bool passthru = options.passthru && report_lines;
  const std::size_t before = passthru ? hay.size() + 1 : options.before;
  const bool context = report_lines && (options.before > 0 || options.after > 0 || passthru);
  const bool stop_on_nonmatch = options.stop_on_nonmatch && !multiline;
  std::size_t reported_end = 0;  // --stop-on-nonmatch: past the last reported line's terminator
  bool quirk_done = false;       // --stop-on-nonmatch -v: see the inverted search below
  // The same past -m: the line stepped past, [skip_from, skipped_to), which -m's after-context
  // steps over when it gets there (the run's other lines print first, as matches).
  std::size_t skip_from = 0, skipped_to = 0;
  std::size_t printed_until = 0;
  bool printed_any = false;
  std::uint64_t after_left = 0;
  // ripgrep's searcher keeps its own after-context count (reset by each line or block it reports
  // successfully), apart from its printer's (`after_left`); they differ only past -m.
  std::uint64_t core_after_left = 0;
  // A piece of a stream: where the pieces before left off; a group starting at `gap_at` (while
  // nothing is printed) follows a gap.
  std::size_t gap_at = kNoNul;
  if (options.resume != nullptr) {
    if (options.resume->gap) gap_at = options.resume->printed_until;
    printed_until = options.resume->printed_until;
    printed_any = options.resume->printed_any;
    after_left = core_after_left = options.resume->after_left;
  }
  bool stopped = quit;
  // Where ripgrep's searcher stands (its `pos`), for the bytes searched of a search cut short.
  std::size_t rg_pos = 0;
  // -v over windows (see below): rg_pos is past the first hit at or after this (kNoNul: exact).
  std::size_t rg_pos_after = kNoNul;
  std::size_t last_context = 0;  // the start of the last context line printed
  auto print_context = [&](std::size_t start) {
    last_context = start;
    std::size_t end = line_end(start);
    printed_until = end + 1;
    if (!check_line(start, end)) {
      stopped = true;
      return;
    }
    if (options.slow_lines && !multiline) rg_pos = std::min(end + 1, hay.size());
    if (sink.on_context(lines.at(start), base_offset + start, hay.substr(start, end - start)) ==
        Flow::kStop) {
      stopped = true;
    }
  };
  auto flush_after = [&](std::size_t limit) {
    while (context && !stopped && after_left > 0 && printed_until < limit &&
           printed_until < hay.size()) {
      print_context(printed_until);
      --after_left;
      // A line that ends -m's after-context fails in ripgrep's printer: its searcher's count
      // stays.
      if (core_after_left > 0 && !(limit_reached() && after_left == 0)) --core_after_left;
    }
    // --passthru: ripgrep's searcher prints every line it steps over as context.
    while (passthru && !stopped && !limit_reached() && printed_until < limit &&
           printed_until < hay.size()) {
      print_context(printed_until);
    }
  };
  // Roll buffer: whether the line at `start` is searched at all (rounds up to the one holding it
  // happen first, printing the after-context lines of each, and may quit on binary data).
  auto reach = [&](std::size_t start) {
    if (!roll) return !stopped;
    while (!stopped && start >= roll->end()) {
      if (roll->eof()) return false;
      flush_after(roll->end());
      if (stopped) return false;
      roll->next(printed_until);
      sink.on_buffer(roll->start());
      if (roll->nul_read() && !binary_at) {
        notice(roll->nul());
        stopped = stopped || quit;
      }
    }
    return !stopped;
  };
  // --stop-on-nonmatch: the line at `reported_end` does not match after one that did. As
  // ripgrep's searcher, it still prints as after-context (or --passthru's), then the search ends.
  auto stop_at_nonmatch = [&] {
    // ripgrep's line-by-line search reads the line (its roll buffer's round holding it) and
    // stands past it. Its after-context count is whole right after a reported line.
    if (reported_end < hay.size() && reach(reported_end)) {
      rg_pos = std::min(line_end(reported_end) + 1, hay.size());
      rg_pos_after = kNoNul;
      if (context && (options.after > 0 || passthru)) {
        printed_until = std::max(printed_until, reported_end);  // -v: past a line ripgrep skips
        print_context(reported_end);
      }
    }
    stopped = true;
  };
  // Reports the line (block) [start, end) after its context lines; an empty block (multiline
  // mode: a match after the last line feed) only prints the context and ends the search.
  auto emit = [&](std::size_t start, std::size_t end, bool empty_block = false) -> bool {
    if (stop_on_nonmatch && reported > 0 && start > reported_end) {
      stop_at_nonmatch();
      return false;
    }
    if (stop_on_nonmatch) reported_end = end + 1;
    if (!report_lines) {
      ++reported;
      return !limit_reached();
    }
    if (!reach(start)) return false;
    // Multiline mode past -m (the after-context of the last counted block still prints): as
    // ripgrep's printer, every line or block it reports uses up one line of that context, and the
    // search ends when none is left.
    const bool overflow = multiline && limit_reached();
    std::size_t block_start_visited = printed_until;
    if (context) {
      flush_after(start);
      if (overflow && after_left == 0) {
        printed_until = last_context;  // its sink failed: not visited, for ripgrep
        return false;
      }
      std::size_t first = lines_before(hay, term, start, before, printed_until);
      // (An empty block, past the last line feed, prints no line of its own: a break only
      // before its before-context, as ripgrep's printer writes one only with a line.)
      if (printed_any && (first > printed_until || (first == gap_at && printed_until == gap_at)) &&
          !stopped && (!empty_block || first < start)) {
        sink.on_context_break();
      }
      while (!stopped && first < start) {
        print_context(first);
        first = printed_until;
      }
      if (stopped || empty_block) return false;
      printed_any = true;
      block_start_visited = printed_until;
      printed_until = end + 1;
    }
    if (empty_block) return false;
    if (!check_line(start, end)) {
      stopped = true;
      return false;
    }
    if (overflow) {
      --after_left;
    } else {
      ++reported;
      after_left = options.after;
    }
    if (!multiline && (!options.invert || options.slow_lines)) {
      rg_pos = std::min(end + 1, hay.size());
    }
    std::string_view line = hay.substr(start, end - start);
    Flow flow = sink.on_line(lines.at(start), base_offset + start, line);
    if (flow != Flow::kContinue) stopped = true;
    bool go_on = !stopped && !limit_reached();
    if (multiline && context && limit_reached()) {
      go_on = !stopped && after_left > 0;
      if (!go_on && !stopped) printed_until = block_start_visited;  // not visited, for ripgrep
    }
    if (go_on) core_after_left = options.after;
    return go_on;
  };

  std::size_t pos = options.resume != nullptr ? options.resume->at : 0;
  if (pos > 0) scratch.new_haystack();  // (find_line from 0 would say so)
  if ((options.max_count && *options.max_count == 0) || hay.empty() || stopped) {
    pos = hay.size() + 1;
  }
  if (multiline && pos <= hay.size()) {
    // ripgrep's multiline searcher: a match may span lines; the lines of matches that touch or
    // share a line are reported as one block. An empty block (a match right after the last line
    // feed) ends the search.
    auto block_end = [&](std::size_t bs, std::size_t be) {
      return be > bs && hay[be - 1] == term ? be - 1 : be;
    };
    auto locate = [&](MatchSpan m) {  // the whole lines of a match, terminators included
      std::size_t start = m.start;
      while (start > 0 && hay[start - 1] != term) --start;
      if (m.end > start && hay[m.end - 1] == term) return LineSpan{start, m.end};
      std::size_t nl = line_end(m.end);
      return LineSpan{start, nl < hay.size() ? nl + 1 : hay.size()};
    };
    std::optional<LineSpan> last;
    bool go_on = true;
    while (go_on && pos < hay.size()) {
      CTX_TRY_ASSIGN(std::optional<MatchSpan> m, patterns.find_multiline(hay, pos, scratch));
      if (options.invert) {  // the lines between blocks of matching lines
        const std::size_t range_start = pos;
        std::size_t range_end = hay.size();
        pos = hay.size();
        if (m) {
          LineSpan block = locate(*m);
          range_end = block.start;
          pos = block.end;
          if (block.start == block.end && pos < hay.size()) ++pos;
        }
        rg_pos = pos;
        for (std::size_t at = range_start; go_on && at < range_end;) {
          std::size_t e = line_end(at);
          go_on = emit(at, std::min(e, range_end));
          at = e + 1;
        }
        continue;
      }
      if (!m) {
        rg_pos = hay.size();
        break;
      }
      pos = m->end;
      if (m->end == m->start && pos < hay.size()) ++pos;
      rg_pos = pos;
      LineSpan block = locate(*m);
      if (!last) {
        last = block;
      } else if (last->end >= block.start) {
        last->end = block.end;
      } else {
        LineSpan done = *last;
        last = block;
        go_on = emit(done.start, block_end(done.start, done.end), done.start == done.end);
      }
    }
    if (go_on && last) {
      const bool sunk =
          emit(last->start, block_end(last->start, last->end), last->start == last->end);
      // ripgrep quirk: when -m's after-context runs out at the last block, its trailing
      // after-context pass still prints the next unvisited line (the block's first, or the one
      // after the last context line) as context, its own count allowing; under --passthru
      // (no after-context to run out) that pass always runs, so the block's first line prints
      // again.
      if (!sunk && !stopped && context && limit_reached() && after_left == 0 &&
          (core_after_left > 0 || passthru) && last->start != last->end &&
          printed_until < hay.size()) {
        print_context(printed_until);
      }
    }
    pos = hay.size() + 1;
  }
  // --null-data where ripgrep's regex runs over its buffer (PatternSet::searches_buffer): one
  // round of the roll buffer at a time, from where the search stands to the round's end. Not
  // under --passthru, where ripgrep searches each line alone.
  const bool rounds = patterns.searches_buffer() && !passthru;
  // A large haystack is scanned a window at a time (each line is matched alone here, so a window
  // ending at a line end changes no result); the rounds above are windows already.
  const bool windowed = windows_fit && !rounds;
  std::size_t progressed = 0;  // the last offset given to on_progress
  // Tells the sink of the search's progress past `at` (a line start the search has reached),
  // once per window. The roll buffer's rounds up to `at` happen first, as they would before the
  // next line is reported (they may print after-context lines or notice binary data): the bytes
  // behind are then not read again by the final reach below. False when the search stops there.
  // The sink hears where the search will never read again: not past the roll buffer's start
  // (the printer's look-back), the first line not yet printed while after-context or
  // --passthru lines are due, nor -B's lines before `at` (a later hit's context starts there at
  // the earliest), nor the byte before.
  std::size_t kept_from = 0;
  auto progress = [&](std::size_t at) {
    // (--stop-on-nonmatch after a reported line: the search ends at the next line not reported,
    // so the rounds past it never happen.)
    if (options.window_bytes == 0 || !(windowed || rounds) ||
        at < progressed + options.window_bytes || at >= hay.size() ||
        (stop_on_nonmatch && reported > 0)) {
      return true;
    }
    if (roll && !reach(at)) return false;
    // Lines are counted up to here while the window's bytes are at hand (a later hit would read
    // them again to count them).
    lines.advance_to(at);
    progressed = at;
    std::size_t keep = at;
    if (roll) keep = std::min(keep, roll->start());
    if (passthru || after_left > 0) keep = std::min(keep, printed_until);
    keep = lines_before(hay, term, keep, options.before, 0);
    // (Less one byte: a look-back from a line start reads the terminator before it.)
    if (keep > 0) --keep;
    if (keep > kept_from) {
      kept_from = keep;
      sink.on_progress(keep);
    }
    return true;
  };
  // The end of the window that starts at `from`, its bytes arrived (a failed fill: error()).
  auto window_end = [&](std::size_t from) {
    if (hay.size() - from <= options.window_bytes) {
      arrivals.to(hay.size());
      return hay.size();
    }
    const std::size_t nl = line_end(from + options.window_bytes);
    return nl < hay.size() ? nl + 1 : hay.size();
  };
  std::size_t window_until = 0;  // the end of the current window (windowed)
  while (pos <= hay.size() && !arrivals.error()) {
    std::size_t until = hay.size();
    if (rounds) {
      if (pos >= hay.size() || (roll && !reach(pos))) break;
      if (roll) until = roll->end();
      if (!progress(pos)) break;
    } else if (windowed && pos < hay.size()) {
      // A window is kept until the search passes its end: a view that changed with every hit
      // would make find_line start over (its look-ahead is per haystack), a scan per line.
      if (pos >= window_until) window_until = window_end(pos);
      until = window_until;
    }
    // The haystack as far as this scan may look (windows: up to the window's end).
    const std::string_view view = hay.substr(0, windowed ? until : hay.size());
    // ripgrep's fast line search (its regex over the buffer), unless it steps line by line:
    // -P, --passthru, --null-data (slow_lines), --stop-on-nonmatch after a match.
    const bool fast = !options.slow_lines && !(stop_on_nonmatch && reported > 0);
    const std::size_t upto = !fast ? std::string_view::npos : rounds ? until : view.size();
    CTX_TRY_ASSIGN(std::optional<LineSpan> hit, patterns.find_line(view, pos, scratch, upto));
    // The empty line a window's last line feed starts is the next window's first line.
    if (hit && hit->start >= until && until < hay.size()) hit.reset();
    if (options.invert) {
      // Every line from pos up to the hit (or the end) is a non-matching line.
      std::size_t stop = hit ? hit->start : until;
      if (!options.slow_lines && pos < stop) {
        rg_pos = hit ? std::min(hit->end + 1, hay.size()) : hay.size();
        // A window without a hit: ripgrep's search stands past the next hit, wherever it is
        // (found below only if the search stops early).
        rg_pos_after = hit || until == hay.size() ? kNoNul : until;
      }
      bool go_on = true;
      // The end of the roll buffer's round where this run of lines starts: ripgrep's fast
      // inverted search looks for the matching line that ends the run only that far.
      std::size_t round_end = hay.size();
      bool first_in_run = true;
      while (pos < stop && go_on) {
        std::size_t end = std::min(line_end(pos), stop);
        go_on = emit(pos, end);
        if (first_in_run && roll) round_end = roll->end();
        first_in_run = false;
        pos = end + 1;
      }
      if (stop_on_nonmatch && !quirk_done && reported > 0 && hit && !stopped &&
          !options.slow_lines && !passthru && hit->start < round_end && hit->end + 1 < hay.size()) {
        // ripgrep's fast inverted search steps past the matching line that ends its first run of
        // reported lines before its line-by-line search (which stops) takes over: that line is
        // neither printed (not even as after-context) nor a reason to stop. Unless it is the
        // last line: the search is over then, and its after-context is printed as usual.
        reported_end = hit->end + 1;
        if (go_on) {
          after_left = 0;
        } else if (context) {
          skip_from = hit->start;  // for -m's after-context below
          skipped_to = hit->end + 1;
        }
      }
      if (reported > 0) quirk_done = true;  // the fast search is over
      if (!go_on || (!hit && until == hay.size())) break;
      pos = hit ? hit->end + 1 : until;
      if (!progress(pos)) break;
      continue;
    }
    if (!hit && until < hay.size()) {  // the next round or window
      pos = until;
      if (!progress(pos)) break;
      continue;
    }
    if (!hit) break;
    if (hit->start == hay.size() && hit->start > 0 && hay.back() == term) break;  // past the end
    if (!emit(hit->start, hit->end)) break;
    pos = hit->end + 1;
    if (!progress(pos)) break;
  }
  // -m reached with -A: as ripgrep, the after-context lines still print, and those that match
  // print as matches (each using up one line of the context).
  if (context && !stopped && limit_reached() && !multiline) {
    bool skipped = false;
    while (!stopped && after_left > 0 && printed_until < hay.size()) {
      if (skipped_to > printed_until && printed_until >= skip_from) {
        printed_until = skipped_to;  // -v --stop-on-nonmatch: see the inverted search above
        skipped = true;
        continue;
      }
      const std::size_t start = printed_until;
      if (!reach(start)) break;
      const std::size_t end = line_end(start);
      const bool fast = !options.slow_lines && !stop_on_nonmatch;  // as in the search above
      // (Whether this line matches: windows look at the line alone, as any window would.)
      const std::string_view view = windowed ? hay.substr(0, std::min(end + 1, hay.size())) : hay;
      CTX_TRY_ASSIGN(
          std::optional<LineSpan> hit,
          patterns.find_line(view, start, scratch, fast ? view.size() : std::string_view::npos));
      const bool matches = hit && hit->start == start;
      if (matches != options.invert) {
        // The line stepped past is this match's before-context under -B (as in ripgrep), else
        // a break.
        if (skipped && options.before > 0) {
          print_context(skip_from);
          if (stopped) break;
          printed_until = start;
        } else if (skipped) {
          sink.on_context_break();
        }
        skipped = false;
        printed_until = end + 1;
        if (!check_line(start, end)) {
          stopped = true;
          break;
        }
        if (!options.invert || options.slow_lines) rg_pos = std::min(end + 1, hay.size());
        if (sink.on_line(lines.at(start), base_offset + start, hay.substr(start, end - start)) !=
            Flow::kContinue) {
          stopped = true;
        }
      } else {
        print_context(start);
        if (stop_on_nonmatch) stopped = true;
      }
      --after_left;
    }
  }
  if (stop_on_nonmatch && !stopped && reported > 0 && !limit_reached() &&
      reported_end < hay.size()) {
    stop_at_nonmatch();
  }
  // The after-context lines of the last match (all the lines left, under --passthru), through
  // the rounds of the roll buffer.
  while (context && !stopped && (after_left > 0 || (passthru && !limit_reached())) &&
         printed_until < hay.size()) {
    if (roll && !reach(printed_until)) break;
    flush_after(roll ? roll->end() : hay.size());
  }
  if (suppress && nul != kNoNul && reported > 0) sink.on_binary(base_offset + nul, true);
  // The bytes searched, as ripgrep counts them: all, unless the search stopped early (a sink's
  // stop, -m, binary data under kQuit); then where its searcher stood.
  bool early = stopped || (limit_reached() && after_left == 0);
  if (roll && !early) {
    reach(hay.size());  // ripgrep reads on to the end, and may find binary data there
    early = stopped;
  }
  std::uint64_t searched = hay.size();
  if (early && !roll && rg_pos_after != kNoNul) {
    rg_pos = hay.size();
    for (std::size_t from = rg_pos_after; from < hay.size();) {
      const std::size_t until = window_end(from);
      const std::string_view view = hay.substr(0, until);
      CTX_TRY_ASSIGN(std::optional<LineSpan> hit,
                     patterns.find_line(view, from, scratch, view.size()));
      if (hit && hit->start < until) {
        rg_pos = std::min(hit->end + 1, hay.size());
        break;
      }
      from = until;
    }
  }
  if (early) searched = roll ? roll->start() : rg_pos;
  if (whole && binary_at) searched = std::min<std::uint64_t>(searched, *binary_at);
  sink.on_finish(searched);
  if (options.resume != nullptr) {
    options.resume->printed_until = printed_until;
    options.resume->after_left = after_left;
    options.resume->printed_any = printed_any;
  }
  if (arrivals.error()) return *arrivals.error();
  return reported;
}

Result<std::uint64_t> PieceSearch::search(const PatternSet& patterns, PatternSet::Scratch& scratch,
                                          const SearchOptions& options, std::string_view piece,
                                          LineSink& sink) {
  if (options.before == 0 && options.after == 0 && !options.passthru) {
    resume_ = {};
    return search_buffer(patterns, scratch, options, piece, sink);
  }
  const char term = patterns.line_terminator();
  const std::size_t kept = joined_.size();
  joined_.append(piece);
  // The first piece's UTF-8 BOM is dropped by the search: its offsets count from after it.
  const bool bom = first_ && options.base_offset == 0 && options.bom_sniffing &&
                   !options.encoding && std::string_view(joined_).substr(0, 3) == kUtf8Bom;
  const std::size_t skip = bom ? kUtf8Bom.size() : 0;
  first_ = false;
  SearchOptions o = options;
  o.base_offset = options.base_offset - kept;
  o.first_line_number = options.first_line_number - kept_lines_;
  o.resume = &resume_;
  resume_.at = kept;
  const std::size_t printed_before = resume_.printed_until;
  CTX_TRY_ASSIGN(std::uint64_t reported, search_buffer(patterns, scratch, o, joined_, sink));
  // Keep the last -B lines: from `from`, a line start, never inside the BOM.
  const std::size_t from = lines_before(joined_, term, joined_.size(), options.before, skip);
  // Lines between the last one printed and the kept ones make a gap before them.
  const std::size_t printed = resume_.printed_until + skip;
  resume_.gap =
      printed < from || (printed == from && resume_.gap && resume_.printed_until == printed_before);
  resume_.printed_until = std::max(printed, from) - from;
  kept_lines_ = count_byte(std::string_view(joined_).substr(from), term);
  joined_.erase(0, from);
  return reported;
}

}  // namespace ctx::engine
