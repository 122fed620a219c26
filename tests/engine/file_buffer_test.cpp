// Tests for FileBuffer: small files are read, larger ones mapped, both give the file's bytes; a
// walked binary file is cut after its first chunk with a NUL; read_at opens relative to a directory
// fd; and a mapped file truncated by someone else while its bytes are read does not end the
// process (SIGBUS): the vanished part reads as NUL bytes and truncated() reports it.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>

#include "../temp_tree.hpp"
#include "ctx/engine/searcher.hpp"

namespace {

namespace fs = std::filesystem;
using ctx::engine::FileBuffer;

using TempDir = ctx::testing::TempTree;

// Distinct bytes at every offset, so a wrong window or a dropped page cannot go unseen.
std::string pattern_bytes(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
  return s;
}

}  // namespace

TEST_CASE("read gives every byte of small and mapped files alike", "[file_buffer]") {
  TempDir dir;
  FileBuffer buffer;
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{70000},
                           std::size_t{128} << 10, (std::size_t{1} << 20) + 123}) {
    const std::string bytes = pattern_bytes(size);
    const fs::path file = dir.file("f" + std::to_string(size), bytes);
    auto got = buffer.read(file.c_str(), true);
    REQUIRE(got.ok());
    CHECK(*got == bytes);
    CHECK_FALSE(buffer.truncated());
  }
}

TEST_CASE("a walked binary file is cut after the first chunk holding a NUL, mapped or read",
          "[file_buffer]") {
  TempDir dir;
  FileBuffer buffer;
  for (std::size_t size : {std::size_t{100000}, std::size_t{1} << 20}) {
    std::string bytes = pattern_bytes(size);
    bytes[10] = '\0';
    const fs::path file = dir.file("bin" + std::to_string(size), bytes);
    auto cut = buffer.read(file.c_str(), true);
    REQUIRE(cut.ok());
    CHECK(cut->size() == 64 << 10);
    auto whole = buffer.read(file.c_str(), false);
    REQUIRE(whole.ok());
    CHECK(whole->size() == size);
  }
}

TEST_CASE("read_at opens the name relative to the directory fd and names the path in errors",
          "[file_buffer]") {
  TempDir dir;
  dir.file("inner.txt", "hello\n");
  int fd = ::open(dir.root().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  FileBuffer buffer;
  auto got = buffer.read_at(fd, "inner.txt", "shown/inner.txt", true);
  REQUIRE(got.ok());
  CHECK(*got == "hello\n");
  auto missing = buffer.read_at(fd, "absent.txt", "shown/absent.txt", true);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().detail.find("shown/absent.txt") != std::string::npos);
  ::close(fd);
}

TEST_CASE("read_at without an fstat (short_read_is_end) gives what read_at with one gives",
          "[file_buffer]") {
  TempDir dir;
  int fd = ::open(dir.root().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const std::size_t chunk = 64 << 10, map_min = 128 << 10;
  int n = 0;
  // Around the first chunk (64 KiB) and the mapping threshold (128 KiB), where the first read of
  // the fstat-free path stops; NUL bytes in and past the first chunk; a UTF-16 BOM.
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, chunk - 1, chunk, chunk + 1, map_min - 1,
                           map_min, map_min + 1, std::size_t{300000}}) {
    for (std::size_t nul :
         {std::size_t{0}, std::size_t{9}, chunk - 1, chunk, map_min - 1, map_min + 5}) {
      for (bool bom : {false, true}) {
        std::string bytes = pattern_bytes(size);
        if (bom && size >= 2) bytes.replace(0, 2, "\xFF\xFE");
        if (nul != 0 && nul < size) bytes[nul] = '\0';
        const std::string name = "f" + std::to_string(n++);
        dir.file(name, bytes);
        for (bool mapping : {true, false}) {
          for (bool stop_at_nul : {true, false}) {
            CAPTURE(size, nul, bom, mapping, stop_at_nul);
            FileBuffer with_stat, without;
            with_stat.allow_mapping(mapping);
            without.allow_mapping(mapping);
            auto expected = with_stat.read_at(fd, name.c_str(), name, stop_at_nul, false);
            auto got = without.read_at(fd, name.c_str(), name, stop_at_nul, true);
            REQUIRE(expected.ok());
            REQUIRE(got.ok());
            CHECK(got->size() == expected->size());
            CHECK(*got == *expected);
          }
        }
      }
    }
  }
  // A directory is refused as it is with an fstat.
  ::mkdir((dir.root() / "sub").c_str(), 0755);
  FileBuffer buffer;
  auto sub = buffer.read_at(fd, "sub", "shown/sub", true, true);
  REQUIRE_FALSE(sub.ok());
  CHECK(sub.error().detail.find("shown/sub") != std::string::npos);
  ::close(fd);
}

TEST_CASE("a mapped file truncated while it is read does not kill the process", "[file_buffer]") {
  TempDir dir;
  const std::size_t size = std::size_t{4} << 20;
  const std::string bytes = pattern_bytes(size);
  const fs::path file = dir.file("shrinks.txt", bytes);
  FileBuffer buffer;
  auto got = buffer.read(file.c_str(), false);
  REQUIRE(got.ok());
  REQUIRE(got->size() == size);
  // Another writer cuts the file to 5,000 bytes: the pages past it are gone from the mapping.
  REQUIRE(::truncate(file.c_str(), 5000) == 0);
  std::size_t nul_bytes = 0;
  bool prefix_intact = true;
  for (std::size_t i = 0; i < got->size(); ++i) {  // would raise SIGBUS past 8 KiB unhandled
    const char c = (*got)[i];
    if (i < 5000) prefix_intact = prefix_intact && c == bytes[i];
    nul_bytes += c == '\0' ? 1 : 0;
  }
  CHECK(prefix_intact);
  CHECK(buffer.truncated());
  CHECK(nul_bytes >= size - 8192);  // everything past the page holding the new end
  // The next read starts clean.
  dir.file("other.txt", "fine\n");
  auto next = buffer.read((dir.root() / "other.txt").c_str(), false);
  REQUIRE(next.ok());
  CHECK_FALSE(buffer.truncated());
}

TEST_CASE("another thread borrowing a mapping reads a truncated part as zeros too",
          "[file_buffer]") {
  TempDir dir;
  const std::size_t size = std::size_t{4} << 20;
  const fs::path file = dir.file("shrinks.txt", pattern_bytes(size));
  FileBuffer buffer;
  auto got = buffer.read(file.c_str(), false);
  REQUIRE(got.ok());
  REQUIRE(::truncate(file.c_str(), 5000) == 0);
  std::size_t nul_bytes = 0;
  std::thread reader([&] {
    FileBuffer::Borrow borrow(buffer);  // without it, the first page past 8 KiB ends the process
    for (char c : *got) nul_bytes += c == '\0' ? 1 : 0;
  });
  reader.join();
  CHECK(buffer.truncated());
  CHECK(nul_bytes >= size - 8192);
}

TEST_CASE(
    "with mapping off (--no-mmap) a large file is copied: truncating it later changes nothing",
    "[file_buffer]") {
  TempDir dir;
  const std::string bytes = pattern_bytes(std::size_t{1} << 20);
  const fs::path file = dir.file("copied.txt", bytes);
  FileBuffer buffer;
  buffer.allow_mapping(false);
  auto got = buffer.read(file.c_str(), false);
  REQUIRE(got.ok());
  REQUIRE(::truncate(file.c_str(), 0) == 0);
  CHECK(*got == bytes);
  CHECK_FALSE(buffer.truncated());
}

namespace {

// Reads `path` into `buffer` as a filling buffer and walks it as a search does: each MiB filled
// before it is read, the pages behind released; every byte read must be the file's, and every
// byte behind the release zero.
void walk_filled(FileBuffer& buffer, const std::string& path, const std::string& content) {
  auto hay = buffer.read(path.c_str(), false);
  REQUIRE(hay.ok());
  REQUIRE(buffer.filling());
  REQUIRE(hay->size() == content.size());
  constexpr std::size_t kStep = std::size_t{1} << 20;
  for (std::size_t at = 0; at < content.size(); at += kStep) {
    const std::size_t end = std::min(content.size(), at + kStep);
    REQUIRE(buffer.fill_to(end).ok());
    REQUIRE(hay->substr(at, end - at) == std::string_view(content).substr(at, end - at));
    if (at >= 3 * kStep) {
      buffer.release_before(hay->data() + at - kStep);
      // The first byte of every page behind the release reads as zero (a filled buffer drops
      // whole blocks of up to 2 MiB: what lies more than that behind).
      const std::size_t behind = at - kStep - std::min(at - kStep, 2 * kStep);
      for (std::size_t page = 0; page + 4096 <= behind; page += 4096) {
        if ((*hay)[page] != '\0') FAIL("byte " << page << " behind the release is not zero");
      }
    }
  }
}

}  // namespace

TEST_CASE(
    "a filled buffer (--no-mmap) gives every byte while its pages are reused ahead and "
    "across files",
    "[file_buffer]") {
  TempDir dir;
  // Sizes around the blocks (1-2 MiB) the pages move in, the second file's bytes differing from the
  // first's at every offset (a page reused with old bytes would show).
  const std::size_t mib = std::size_t{1} << 20;
  const std::vector<std::size_t> sizes = {13 * mib + 12345, 6 * mib, 5 * mib - 1, 17 * mib + 4097,
                                          4 * mib + 1};
  FileBuffer buffer;
  buffer.allow_mapping(false);  // --no-mmap (else the file is mapped: see the tests below)
  buffer.allow_filling(true);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::string content = pattern_bytes(sizes[i]);
    for (char& c : content) c = static_cast<char>(c + static_cast<char>(i));
    const std::string path = dir.path() + "/f" + std::to_string(i);
    std::ofstream(path, std::ios::binary) << content;
    INFO("file " << i << " of " << sizes[i] << " bytes");
    walk_filled(buffer, path, content);
  }
}

TEST_CASE("a filled file that shrinks reads as zeros past its end, reused pages too",
          "[file_buffer]") {
  TempDir dir;
  const std::size_t mib = std::size_t{1} << 20;
  FileBuffer buffer;
  buffer.allow_mapping(false);
  buffer.allow_filling(true);
  // A first file leaves pages to reuse; the second is cut while it is read.
  const std::string first = dir.path() + "/first";
  const std::string first_content = pattern_bytes(9 * mib);
  std::ofstream(first, std::ios::binary) << first_content;
  walk_filled(buffer, first, first_content);
  const std::string second = dir.path() + "/second";
  std::string content = pattern_bytes(12 * mib);
  for (char& c : content) c = static_cast<char>(c + 1);
  std::ofstream(second, std::ios::binary) << content;
  auto hay = buffer.read(second.c_str(), false);
  REQUIRE(hay.ok());
  REQUIRE(buffer.filling());
  for (std::size_t at = 0; at < 6 * mib; at += mib) {
    REQUIRE(buffer.fill_to(at + mib).ok());
    if (at >= 3 * mib) buffer.release_before(hay->data() + at - mib);
  }
  REQUIRE(::truncate(second.c_str(), static_cast<off_t>(7 * mib)) == 0);
  REQUIRE(buffer.fill_to(hay->size()).ok());
  CHECK(buffer.truncated());
  CHECK(hay->substr(5 * mib, 2 * mib) == std::string_view(content).substr(5 * mib, 2 * mib));
  const std::string_view past = hay->substr(7 * mib);
  CHECK(past.find_first_not_of('\0') == std::string_view::npos);
}

namespace {

// `size` bytes of pattern_bytes with NUL bytes at `nuls`.
std::string with_nuls(std::size_t size, const std::vector<std::size_t>& nuls) {
  std::string content = pattern_bytes(size);
  for (std::size_t at : nuls) content[at] = '\0';
  return content;
}

}  // namespace

TEST_CASE("a large file filled where it could be mapped is mapped, and converts only what arrived",
          "[file_buffer]") {
  TempDir dir;
  const std::size_t mib = std::size_t{1} << 20;
  const std::vector<std::size_t> nuls = {100, 3 * mib + 5, 8 * mib + 7};
  const std::string content = with_nuls(9 * mib, nuls);
  const fs::path file = dir.file("nuls.bin", content);
  FileBuffer buffer;
  buffer.allow_filling(true);
  buffer.prefer_filling(true);
  for (int round = 0; round < 2; ++round) {  // the second read starts clean
    INFO("round " << round);
    auto hay = buffer.read(file.c_str(), false);
    REQUIRE(hay.ok());
    REQUIRE(buffer.filling());
    REQUIRE(buffer.mapped());
    REQUIRE(hay->size() == content.size());
    REQUIRE(buffer.fill_to(mib).ok());
    buffer.convert_nuls('\n');
    CHECK((*hay)[100] == '\n');
    CHECK(buffer.first_nul() == std::optional<std::size_t>(100));
    CHECK((*hay)[3 * mib + 5] == '\0');  // not arrived yet
    REQUIRE(buffer.fill_to(4 * mib).ok());
    CHECK((*hay)[3 * mib + 5] == '\n');
    CHECK((*hay)[8 * mib + 7] == '\0');
    buffer.release_before(hay->data() + 2 * mib);
    REQUIRE(buffer.fill_to(hay->size()).ok());
    std::string expect = content;
    for (std::size_t at : nuls) expect[at] = '\n';
    const auto differs = static_cast<std::size_t>(
        std::mismatch(expect.begin() + 2 * mib, expect.end(), hay->begin() + 2 * mib).first -
        expect.begin());
    CHECK(differs == expect.size());
    CHECK(buffer.first_nul() == std::optional<std::size_t>(100));
    CHECK_FALSE(buffer.truncated());
  }
  // The file itself is unchanged (the mapping is private).
  std::ifstream in(file, std::ios::binary);
  const std::string on_disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK((on_disk == content));
}

TEST_CASE("a filled mapping that shrinks reads as zeros past its end, left unconverted",
          "[file_buffer]") {
  TempDir dir;
  const std::size_t mib = std::size_t{1} << 20;
  const std::string content = with_nuls(12 * mib, {10, 5 * mib + 1});
  const fs::path file = dir.file("shrinks.bin", content);
  FileBuffer buffer;
  buffer.allow_filling(true);
  buffer.prefer_filling(true);
  auto hay = buffer.read(file.c_str(), false);
  REQUIRE(hay.ok());
  REQUIRE(buffer.mapped());
  REQUIRE(buffer.fill_to(mib).ok());
  buffer.convert_nuls('\n');
  REQUIRE(::truncate(file.c_str(), static_cast<off_t>(7 * mib)) == 0);
  // Converting the rest meets the truncation (a SIGBUS, turned into zero pages): no crash, and
  // what lies before it is converted.
  REQUIRE(buffer.fill_to(hay->size()).ok());
  CHECK(buffer.truncated());
  CHECK((*hay)[5 * mib + 1] == '\n');
  const std::string_view past = hay->substr(7 * mib);
  CHECK(past.find_first_not_of('\0') == std::string_view::npos);
  // The next read starts clean.
  const std::string again = with_nuls(6 * mib, {4 * mib});
  const fs::path other = dir.file("other.bin", again);
  auto next = buffer.read(other.c_str(), false);
  REQUIRE(next.ok());
  CHECK_FALSE(buffer.truncated());
  REQUIRE(buffer.fill_to(next->size()).ok());
  buffer.convert_nuls('\n');
  CHECK((*next)[4 * mib] == '\n');
}

TEST_CASE("moving a filled buffer's pages never touches another thread's new mappings",
          "[file_buffer]") {
  // The pages' move once left a hole for a moment and then mapped over it: another thread's
  // mmap could be given the hole in between and lose its bytes (seen as a crash joining a
  // thread whose stack it was). Here a thread keeps mapping, writing and checking small regions
  // while this one fills files whose pages move.
  TempDir dir;
  const std::size_t mib = std::size_t{1} << 20;
  const std::string content = pattern_bytes(24 * mib);
  const std::string path = dir.path() + "/moved";
  std::ofstream(path, std::ios::binary) << content;
  std::atomic<bool> done{false};
  std::atomic<std::size_t> clobbered{0}, mapped{0};
  std::thread other([&] {
    while (!done.load()) {
      for (const std::size_t bytes : {mib, 64 * std::size_t{1024}, 4 * mib}) {
        void* at =
            ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (at == MAP_FAILED) continue;
        auto* bytes_at = static_cast<unsigned char*>(at);
        for (std::size_t i = 0; i < bytes; i += 4096) bytes_at[i] = 0xA5;
        std::this_thread::yield();
        for (std::size_t i = 0; i < bytes; i += 4096) clobbered += bytes_at[i] != 0xA5 ? 1 : 0;
        ::munmap(at, bytes);
        ++mapped;
      }
    }
  });
  FileBuffer buffer;
  buffer.allow_mapping(false);
  buffer.allow_filling(true);
  for (int round = 0; round < 60; ++round) walk_filled(buffer, path, content);
  done = true;
  other.join();
  INFO(mapped.load() << " mappings checked");
  CHECK(clobbered.load() == 0);
}
