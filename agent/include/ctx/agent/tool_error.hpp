// The error vocabulary of the agent tools: a code a model can branch on, a message that names the
// input, and a hint that gives the next call to make. Tools never throw; they return
// `Expected<T>` (ctx::Result with a ToolError).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ctx/base/result.hpp"

namespace ctx::agent {

enum class ToolErrorCode : std::uint8_t {
  kNotFound,
  kOutsideRoot,
  kDenied,
  kProtected,
  kNotAFile,
  kNotADirectory,
  kTooLarge,
  kBinary,
  kSpecialFile,
  kInvalidArgument,
  kInvalidPattern,
  kTimeout,
  kIoError,
};

// "not_found", "outside_root", ... (the wire names).
std::string_view to_string(ToolErrorCode code);

struct ToolError {
  ToolErrorCode code = ToolErrorCode::kIoError;
  std::string message;  // names the input: "'src/x.c' does not exist"
  std::string hint;     // the next call: "call find_files with pattern='**/x.c'"
};

template <typename T>
using Expected = Result<T, ToolError>;
using ToolStatus = Result<void, ToolError>;

// {"code":"...","message":"...","hint":"..."} (no surrounding "error" key).
std::string to_json(const ToolError& error);

}  // namespace ctx::agent
