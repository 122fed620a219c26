#include <fmt/format.h>

#include <cstring>

#include "ctx/base/result.hpp"

namespace ctx {

Error Error::from_errno(int err, std::string_view path) {
  ErrorCode code = ErrorCode::kIo;
  if (err == ENOENT || err == ENOTDIR) code = ErrorCode::kNotFound;
  if (err == EACCES || err == EPERM) code = ErrorCode::kPermissionDenied;
  return Error{code, fmt::format("{}: {} (os error {})", path, std::strerror(err), err)};
}

}  // namespace ctx
