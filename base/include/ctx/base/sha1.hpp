// SHA-1 (FIPS 180-4), for git object ids only (file_info's content hash is the git blob id, which
// `git hash-object` prints). Not for anything security-related.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ctx {

class Sha1 {
 public:
  Sha1();
  void update(std::string_view bytes);
  std::array<std::uint8_t, 20> finish();

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 5> h_;
  std::array<std::uint8_t, 64> buf_{};
  std::size_t buf_len_ = 0;
  std::uint64_t total_ = 0;
};

// The git blob id of `content`: SHA-1 of "blob <size>\0" + content, as 40 lowercase hex digits.
std::string git_blob_id(std::string_view content);

}  // namespace ctx
