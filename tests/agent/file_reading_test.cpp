// The chunked reader of agent tools: a reader that sniffs its first chunk (TextChunkReader::sniff,
// one read for both) finds the encoding sniff_encoding finds and yields exactly the chunks of a
// reader given that encoding, for every encoding and at the sizes where the sniffed head and the
// chunks end.
#include "../../agent/src/file_reading.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "../temp_tree.hpp"

using ctx::agent::kSniffBytes;
using ctx::agent::sniff_encoding;
using ctx::agent::TextChunkReader;
using ctx::agent::TextEncoding;

namespace {

// Every chunk a reader yields, in order (an error as "<error>").
std::vector<std::string> chunks(TextChunkReader& reader) {
  std::vector<std::string> out;
  for (;;) {
    auto chunk = reader.next();
    if (!chunk.ok()) {
      out.emplace_back("<error>");
      return out;
    }
    if (chunk->empty()) return out;
    out.emplace_back(*chunk);
  }
}

}  // namespace

TEST_CASE("a reader that sniffs its first chunk reads as sniff_encoding and a second reader do",
          "[agent][file_reading]") {
  ctx::testing::TempTree t;
  std::mt19937 rng(53);
  const std::size_t chunk = TextChunkReader::kChunkBytes;
  const std::vector<std::size_t> sizes = {
      0,         1,     2,         3,         kSniffBytes - 1, kSniffBytes, kSniffBytes + 1,
      chunk - 1, chunk, chunk + 1, chunk + 3, 2 * chunk + 7,   200000};
  const std::vector<std::string> heads = {"", "\xEF\xBB\xBF", "\xFF\xFE", "\xFE\xFF"};
  int files = 0;
  for (std::size_t size : sizes) {
    for (const std::string& head : heads) {
      for (int nul = 0; nul < 3; ++nul) {  // none, inside the sniffed head, just past it
        std::string text = head;
        while (text.size() < size)
          text += static_cast<char>(rng() % 5 == 0 ? '\n' : 'a' + rng() % 26);
        text.resize(std::max(size, head.size()));
        if (nul == 1 && text.size() > head.size())
          text[std::min(text.size(), kSniffBytes) - 1] = '\0';
        if (nul == 2 && text.size() > kSniffBytes) text[kSniffBytes] = '\0';
        const std::string path = t.file("f" + std::to_string(files++), text).string();
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        REQUIRE(fd >= 0);
        INFO("size " << text.size() << " head " << head.size() << " nul " << nul);
        auto want_encoding = sniff_encoding(fd, path);
        REQUIRE(want_encoding.ok());
        TextChunkReader sniffing(fd, path);
        auto got_encoding = sniffing.sniff();
        REQUIRE(got_encoding.ok());
        CHECK(*got_encoding == *want_encoding);
        if (*want_encoding != TextEncoding::kBinary) {
          TextChunkReader given(fd, *want_encoding, path);
          CHECK(chunks(sniffing) == chunks(given));
          CHECK(sniffing.raw_offset() == given.raw_offset());
        }
        ::close(fd);
      }
    }
  }
}
