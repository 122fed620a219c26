// Searching one buffer or one file for matching lines. The searcher scans whole buffers with the
// PatternSet (never line by line), counts lines only up to each hit and only when asked, and
// reports lines to a LineSink, which says after each whether to go on.
#pragma once

#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ctx/base/result.hpp"
#include "ctx/engine/encoding.hpp"
#include "ctx/engine/pattern_set.hpp"

namespace ctx::engine {

enum class Flow : std::uint8_t { kContinue, kStop };

// What a NUL byte (binary data) does, as ripgrep's BinaryDetection. Where ripgrep notices one
// depends on how it reads the file (see SearchOptions::whole_file): with its 64 KiB roll buffer,
// when the read that brings the first NUL in happens; on a whole file (memory map, multiline
// mode), in the first 64 KiB, then in each line (block) about to be reported.
enum class BinaryMode : std::uint8_t {
  kQuit,  // files found by the walk: stop there (the roll buffer holding the NUL is not searched)
  kConvert,   // files named on the command line, --binary: on_binary, then go on (the roll buffer
              // reads a NUL as a line end); the sink decides whether to stop
  kSuppress,  // no ripgrep mode (agent tools): a haystack holding a NUL reports no line; on_binary
              // once at the end, saying whether it matched
  kText,      // -a/--text: search every byte as text
};

// A haystack whose bytes arrive as the search goes (a large file read without a memory map, in
// an anonymous buffer of the file's size): search_buffer asks for bytes before it reads them
// and tells its sink (LineSink::on_progress) below which offset it will never read again, where
// the buffer may drop them. Only the first `end` bytes asked for so far may be read.
class HaystackFill {
 public:
  virtual ~HaystackFill() = default;
  // Makes the haystack's first `end` bytes (at most its size) readable, in haystack offsets. An
  // error (the file could not be read) ends the search with it.
  virtual Status fill_to(std::size_t end) = 0;
  // From now on NUL bytes become `term`, those already in and those that arrive (ripgrep's
  // binary conversion of a file named on the command line, as its roll buffer reads it);
  // first_nul() says where the first one was (in fill_to's offsets), once it has arrived.
  virtual void convert_nuls(char term) = 0;
  virtual std::optional<std::size_t> first_nul() const = 0;
};

// Where a search of one piece of a stream stands between pieces (see PieceSearch): offsets in
// the haystack searched.
struct PieceResume {
  std::size_t at = 0;             // in: where the piece's own lines start (the lines before it
                                  // were searched before and only serve as -B context)
  std::size_t printed_until = 0;  // in/out: the start of the first line not printed yet
  std::uint64_t after_left = 0;   // in/out: after-context lines still due
  bool printed_any = false;       // in/out: a line was printed (a "--" comes before a gap)
  // in: some line before `printed_until` (before the haystack) was not printed, so a group that
  // starts right at `printed_until` still follows a gap.
  bool gap = false;
};

struct SearchOptions {
  bool invert = false;                     // -v: report the lines that do not match
  std::optional<std::uint64_t> max_count;  // -m: stop a file after this many reported lines
  bool line_numbers = false;               // compute line numbers (costs a newline count)
  std::size_t before = 0;                  // -B: context lines before each reported line
  std::size_t after = 0;                   // -A: context lines after each reported line
  BinaryMode binary = BinaryMode::kQuit;
  // --passthru: every line not reported is a context line (before/after are ignored); the lines
  // after the last reported one print unless -m ended the search.
  bool passthru = false;
  // --stop-on-nonmatch: the first line not reported after a reported one ends the search (it
  // still prints as an after-context line when -A or --passthru asks for one). Not multiline.
  bool stop_on_nonmatch = false;
  // ripgrep has the whole file in memory (it memory-maps up to 10 files named on the command
  // line); otherwise (line mode) it reads through its 64 KiB roll buffer. Multiline mode always
  // has the whole file. Decides where binary data is noticed and the bytes searched (on_finish).
  bool whole_file = false;
  // ripgrep steps line by line (its PCRE2 matcher, -P, names no line terminator; --passthru
  // sinks every line): only changes where a search cut short says it stopped (on_finish).
  bool slow_lines = false;
  // The haystack is ripgrep's stdin, which it reads through Rust's 8 KiB buffer (so its roll
  // buffer's second read ends at 8 KiB): where it notices binary data.
  bool stdin_reader = false;
  // A piece of a longer stream (stdin searched as it arrives): the number of its first line and
  // the stream offset of its first byte, for reported line numbers and offsets. A piece after the
  // first has no BOM.
  std::uint64_t first_line_number = 1;
  std::uint64_t base_offset = 0;
  // -E/--encoding: every haystack is decoded from this encoding to UTF-8 before it is searched
  // (a UTF-16 BOM still wins; a UTF-8 BOM is dropped), as ripgrep; nullopt: only haystacks with a
  // UTF-16 BOM are decoded (auto). `bom_sniffing` false (-E none): the bytes as they are.
  std::optional<Encoding> encoding;
  bool bom_sniffing = true;
  // With whole_file: the haystack is a line-aligned piece of a whole file whose first 64 KiB the
  // caller found free of NUL bytes, so binary data is looked for only in the lines about to be
  // reported (a search of the file in pieces, see search_in_chunks in the CLI).
  bool nul_only_in_reported_lines = false;
  // When not 0: a haystack larger than twice this is scanned in windows of about this many bytes
  // (each ends at a line end), not in one pass, lines are counted (when asked for) as each window
  // is done, and the sink hears of it (LineSink::on_progress): a memory-mapped file's pages can
  // then be dropped behind the search. The lines reported are the same at any size (tests use
  // small windows).
  std::size_t window_bytes = 0;
  // The haystack arrives as the search goes (see HaystackFill); nullptr: it is all there. With a
  // fill, a search that cannot go a window at a time (multiline, --null-data, decoding, -v with
  // --stop-on-nonmatch, a whole file, kConvert or kSuppress, no window_bytes) fills it all first.
  HaystackFill* fill = nullptr;
  // A piece of a stream after kept lines of the pieces before it (PieceSearch); nullptr: a whole
  // haystack.
  PieceResume* resume = nullptr;
};

class LineSink {
 public:
  virtual ~LineSink() = default;
  // A reported line without its terminator; `line_number` is 0 unless asked for. The line dies
  // with the call. In multiline mode (PatternSet::multiline()) a reported "line" is a block of
  // whole lines holding one or more matches (inner line terminators (PatternSet::
  // line_terminator) included, the last one's not);
  // `line_number` is its first line's.
  virtual Flow on_line(std::uint64_t line_number, std::uint64_t byte_offset,
                       std::string_view line) = 0;
  // A context line (-A/-B) near a reported line; never a reported line itself.
  virtual Flow on_context(std::uint64_t line_number, std::uint64_t byte_offset,
                          std::string_view line) = 0;
  // A gap between two groups of printed lines in one file (ripgrep prints "--").
  virtual void on_context_break() = 0;
  // Binary data noticed (see BinaryMode): the first NUL byte seen is at `offset`; `matched` says
  // whether a line was reported before. Under kQuit nothing follows; under kConvert the search
  // goes on (the sink may stop it); under kSuppress it comes last.
  virtual void on_binary(std::uint64_t offset, bool matched) = 0;
  // Called last with the bytes searched as ripgrep counts them (--stats): the haystack's size,
  // or where ripgrep's searcher stood when the search stopped early.
  virtual void on_finish(std::uint64_t /*bytes_searched*/) {}
  // Called once before any other call with the bytes actually searched (after a BOM is dropped
  // or UTF-16 transcoded); the lines given later point into it. It lives until search_buffer
  // returns.
  virtual void on_haystack(std::string_view /*haystack*/) {}
  // ripgrep's buffer, in which its printer searches a reported line again (seeing the bytes before
  // the line, back to the buffer's start), now starts at `start` in the haystack: called before
  // the lines of each round of its roll buffer. Without a call, the buffer is the whole haystack.
  virtual void on_buffer(std::size_t /*start*/) {}
  // Neither the search nor the lines it reports later will read the haystack below `offset`
  // again (the printer's look-back goes no further than on_buffer's start): a sink may drop those
  // bytes' pages (a memory map's read back from the file; see SearchOptions::fill). Called at
  // most once per window (SearchOptions::window_bytes), with increasing offsets.
  virtual void on_progress(std::size_t /*offset*/) {}
};

// Reusable per-thread file buffer: read(2) into memory that grows to the largest file seen
// (never zero-filled). Binary files can be cut short: with `stop_at_nul`, reading stops after the
// first chunk (64 KiB) that holds a NUL byte, as ripgrep does for files found by the walk.
//
// `read`/`read_at` memory-map larger regular files instead (measured faster). A mapped file that
// another process truncates while it is searched does not end the process (as it can in ripgrep):
// a SIGBUS handler puts zero pages over the vanished part and `truncated()` says so, so the caller
// can report the file. The bytes of a mapping must be read on the thread that called read/read_at
// (where the handler looks for them). `read_fd` (the agent's path) never maps.
class FileBuffer final : public HaystackFill {
 public:
  FileBuffer() = default;
  FileBuffer(const FileBuffer&) = delete;
  FileBuffer& operator=(const FileBuffer&) = delete;
  ~FileBuffer() override;

  // Reads `path` (whole, or cut as above). Errors name the path. The bytes stay valid until the
  // next read.
  Result<std::string_view> read(const char* path, bool stop_at_nul);
  // The same for `name` relative to the open directory `dir_fd` (or AT_FDCWD); symlinks are
  // followed as by open(2). One path component to resolve instead of the whole path (measured:
  // path lookup was about 5% of a tree search's CPU time). `path` names the file in errors.
  // `short_read_is_end`: the caller knows `name` is a regular file on a file system where a
  // read(2) that returns fewer bytes than asked has reached the file's end (see
  // WalkEntry::short_read_is_end); files below the mapping threshold are then read without an
  // fstat.
  Result<std::string_view> read_at(int dir_fd, const char* name, std::string_view path,
                                   bool stop_at_nul, bool short_read_is_end = false);
  // The same for an open fd (read from its current offset; not closed), always with read(2);
  // `path` names it in errors.
  Result<std::string_view> read_fd(int fd, std::string_view path, bool stop_at_nul);
  // The same with the fd's fstat already taken by the caller (one system call per file less).
  Result<std::string_view> read_fd(int fd, const struct stat& st, std::string_view path,
                                   bool stop_at_nul);
  // True when the file last read was mapped and shrank while its bytes were read: the part past
  // its new end read as NUL bytes. Reset by the next read.
  bool truncated() const { return truncated_.load(std::memory_order_relaxed) != 0; }
  // Whether read/read_at may map files at all (rg's --mmap/--no-mmap); on by default.
  void allow_mapping(bool allow) { allow_mapping_ = allow; }
  // The search no longer needs the pages of the last file's mapping before `at` (a pointer into
  // the bytes read; anything else is ignored): they are dropped from this process (MADV_DONTNEED;
  // the page cache keeps them, and a later read of them maps them again, unchanged), so a large
  // file costs a window of memory, not its size. `at` must be a bound the search gave
  // (LineSink::on_progress): a filled buffer's dropped bytes read as zeros (its pages are reused
  // ahead: recycle).
  void release_before(const char* at);
  // Whether the last file read is memory-mapped (filled or not: see prefer_filling).
  bool mapped() const { return map_ != nullptr && fd_ < 0; }
  // Whether read/read_at may give a large regular file it does not map (--no-mmap) as a
  // haystack that arrives as the search goes: an anonymous buffer of the file's size, filled by
  // fill_to and dropped behind by release_before. Off by default: a caller that enables it must
  // give this buffer as SearchOptions::fill when filling() says so, or read zeros.
  void allow_filling(bool allow) { allow_filling_ = allow; }
  // With allow_filling: a large file arrives as the search goes even where it could be mapped
  // whole. With allow_mapping it is still mapped (writable, private), but its bytes count as
  // arrived only as fill_to reaches them, and convert_nuls converts only those: the search sees
  // what a filled buffer gives without copying the file (11 named 30 MB files, -c: 58 -> 41-43
  // ms; rg 14 44).
  void prefer_filling(bool prefer) { prefer_filling_ = prefer; }
  // Whether the last file read arrives as the search goes (see allow_filling).
  bool filling() const { return fd_ >= 0 || fill_mapped_; }
  // Gives `each` the last file's bytes from offset `from` on, in order, in pieces of 1 MiB (the
  // last shorter), without keeping them: a mapping's pages are dropped again behind each piece,
  // and a filling buffer's bytes past what is filled are read with pread(2) into a scratch
  // buffer, leaving the buffer as it was. Stops when `each` returns false. Errors name the path.
  Status scan(std::size_t from, const std::function<bool(std::string_view)>& each);
  Status fill_to(std::size_t end) override;
  void convert_nuls(char term) override;
  std::optional<std::size_t> first_nul() const override { return first_nul_; }

  // While a Borrow lives on a thread, that thread may read the bytes of `buffer`'s mapping too (a
  // truncation met there reads as zeros and flags `buffer`, as on the thread that read it).
  // `buffer` must keep its mapping for the Borrow's life. Borrows nest.
  class Borrow {
   public:
    explicit Borrow(const FileBuffer& buffer);
    ~Borrow();
    Borrow(const Borrow&) = delete;
    Borrow& operator=(const Borrow&) = delete;

   private:
    friend class FileBuffer;
    const FileBuffer* buffer_;
    Borrow* previous_;
  };

 private:
  // Puts zero pages over this buffer's mapping from the page of `addr` on, if it holds `addr`.
  bool zero_from(char* addr) const;
  // Grows the buffer to hold at least `bytes` (at least doubling it), keeping its first `keep`
  // bytes; the rest is uninitialized.
  void reserve(std::size_t bytes, std::size_t keep = 0);
  // Reads `fd` on to its end (as read_fd) after the `got` bytes already at the buffer's start.
  Result<std::string_view> read_on(int fd, const struct stat& st, std::string_view path,
                                   bool stop_at_nul, std::size_t got);
  void unmap();
  // Starts filling an anonymous buffer of `size` bytes from `fd` (then owned: closed by unmap),
  // after the `got` bytes already read into data_; nullopt when no buffer could be had (`fd` is
  // still the caller's then). The view is cut at a binary first chunk, as read_at's.
  std::optional<Result<std::string_view>> start_filling(int fd, std::size_t size, std::size_t got,
                                                        std::string_view path, bool stop_at_nul);
  // Maps `fd` (`size` bytes, regular) whole, at fill_to's pace when `fill` (see prefer_filling);
  // nullopt when it cannot be mapped.
  std::optional<std::string_view> map_file(int fd, std::size_t size, bool fill);
  // Filling: release_before's drop of the page-aligned [from, to), whose pages move ahead of
  // what is filled to be read into again (no page fault and no zeroing per page: a filled 128 MB
  // file took 3x rg's time in those); zero pages take their place.
  void recycle(std::size_t from, std::size_t to);
  // Filling: the next file's first blocks reuse the last file's resident pages too: unmap moves
  // up to two whole blocks of them into pool_ (a reserved, aligned region of this buffer's own),
  // start_filling moves them to the new buffer's start (each new file faulted its first blocks
  // in afresh).
  void keep_pages();
  void take_kept_pages(char* buffer, std::size_t size);
  // convert_nuls on the filled bytes [from, to).
  void convert_range(std::size_t from, std::size_t to);
  static void install_sigbus_handler();
  static void on_sigbus(int signal, siginfo_t* info, void* context);
  void* map_ = nullptr;
  std::size_t map_bytes_ = 0;
  std::size_t released_ = 0;  // the mapping's first bytes dropped by release_before
  // Filling (allow_filling): the file being read into the anonymous map_ (else -1), how much of
  // it is in, and its path for errors.
  int fd_ = -1;
  std::size_t filled_ = 0;
  // Filling: the end of the pages release_before moved ahead of filled_ for reuse (recycle).
  std::size_t recycled_end_ = 0;
  char* pool_ = nullptr;         // see keep_pages
  std::size_t pool_blocks_ = 0;  // whole blocks in pool_
  std::string fill_path_;
  std::optional<char> nul_to_;  // convert_nuls' line terminator
  std::optional<std::size_t> first_nul_;
  bool allow_filling_ = false;
  bool prefer_filling_ = false;
  bool fill_mapped_ = false;  // the mapping is filled at fill_to's pace (see prefer_filling)
  FileBuffer* next_mapped_ = nullptr;      // the thread's list of buffers holding a mapping
  mutable std::atomic<int> truncated_{0};  // set by the SIGBUS handler, on any borrowing thread
  // Where the SIGBUS handler's zero pages start in the mapping (kNotZeroed: nowhere).
  static constexpr std::size_t kNotZeroed = static_cast<std::size_t>(-1);
  mutable std::atomic<std::size_t> zeroed_from_{kNotZeroed};
  bool allow_mapping_ = true;
  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;
};

// UTF-16 (without its BOM) to UTF-8; unpaired surrogates and a dangling odd byte become U+FFFD.
// (The searcher transcodes UTF-16 files with a BOM through this; the agent's read_file too.)
// `read_ends`, when given, receives where in the output each read of ripgrep's decoder ends
// (encoding_rs_io behind a UTF-16 BOM: the byte left from its 3-byte BOM peek, then 8 KiB of
// `in` per read; a read returns what the units it completed decode to, and a high surrogate
// is complete once the unit after it is in); increasing, the last is the output's size.
std::string utf16_to_utf8(std::string_view in, bool little_endian,
                          std::vector<std::size_t>* read_ends = nullptr);

// The number of '\n' bytes in `s` (SIMD; the line counter of every searcher and tool).
std::uint64_t count_newlines(std::string_view s);
// The number of `byte` bytes in `s` (the same, for any line terminator).
std::uint64_t count_byte(std::string_view s, char byte);

// Searches a stream piece by piece (stdin as it arrives) with context lines (-A, -B,
// --passthru), reporting what one search over the whole stream would: each piece (whole lines; the
// last may end without a terminator) is searched after the last -B lines of the pieces before it,
// which serve as context only, and after-context lines still due at a piece's end come from the
// next one. Without context lines, each piece is searched alone.
class PieceSearch {
 public:
  // Searches the next `piece` with `options` as for the piece alone: base_offset and
  // first_line_number the piece's own, max_count the lines still to report (0 once -m is
  // reached: then only after-context lines still due are printed). Returns the lines reported.
  Result<std::uint64_t> search(const PatternSet& patterns, PatternSet::Scratch& scratch,
                               const SearchOptions& options, std::string_view piece,
                               LineSink& sink);
  // The bytes of the last haystack searched that were kept from earlier pieces (the sink's
  // offsets and bytes searched count them).
  std::size_t kept() const { return resume_.at; }
  // After-context lines are still due from the next piece (a search past -m goes on for them).
  bool after_context_due() const { return resume_.after_left > 0; }

 private:
  std::string joined_;  // the lines kept from earlier pieces, then the piece
  std::uint64_t kept_lines_ = 0;
  bool first_ = true;
  PieceResume resume_;
};

// Searches `haystack` (a whole file's bytes). Returns how many lines were reported.
Result<std::uint64_t> search_buffer(const PatternSet& patterns, PatternSet::Scratch& scratch,
                                    const SearchOptions& options, std::string_view haystack,
                                    LineSink& sink);

}  // namespace ctx::engine
