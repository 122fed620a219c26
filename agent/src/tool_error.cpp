#include "ctx/agent/tool_error.hpp"

#include "json_writer.hpp"

namespace ctx::agent {

std::string_view to_string(ToolErrorCode code) {
  switch (code) {
    case ToolErrorCode::kNotFound:
      return "not_found";
    case ToolErrorCode::kOutsideRoot:
      return "outside_root";
    case ToolErrorCode::kDenied:
      return "denied";
    case ToolErrorCode::kProtected:
      return "protected";
    case ToolErrorCode::kNotAFile:
      return "not_a_file";
    case ToolErrorCode::kNotADirectory:
      return "not_a_directory";
    case ToolErrorCode::kTooLarge:
      return "too_large";
    case ToolErrorCode::kBinary:
      return "binary";
    case ToolErrorCode::kSpecialFile:
      return "special_file";
    case ToolErrorCode::kInvalidArgument:
      return "invalid_argument";
    case ToolErrorCode::kInvalidPattern:
      return "invalid_pattern";
    case ToolErrorCode::kTimeout:
      return "timeout";
    case ToolErrorCode::kIoError:
      return "io_error";
  }
  return "io_error";
}

std::string to_json(const ToolError& error) {
  JsonWriter w;
  w.begin_object()
      .field("code", to_string(error.code))
      .field("message", error.message)
      .field("hint", error.hint)
      .end_object();
  return w.take();
}

}  // namespace ctx::agent
