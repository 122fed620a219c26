// TEMPORARY during parallel development: each tool's owner deletes its block when its own file
// defines the functions. This file must not exist on main when issue 4 lands.
#include "tool_impls.hpp"

namespace ctx::agent {

// BEGIN list_directory
std::span<const ParamSpec> list_directory_params() { return {}; }
std::string list_directory_output_schema() { return "{\"type\":\"object\"}"; }
Expected<ToolOutput> run_list_directory(const ToolArgs&, const CallContext&) {
  return ToolError{ToolErrorCode::kIoError, "list_directory is not built yet", ""};
}
// END list_directory

// BEGIN find_files
std::span<const ParamSpec> find_files_params() { return {}; }
std::string find_files_output_schema() { return "{\"type\":\"object\"}"; }
Expected<ToolOutput> run_find_files(const ToolArgs&, const CallContext&) {
  return ToolError{ToolErrorCode::kIoError, "find_files is not built yet", ""};
}
// END find_files

// BEGIN file_info
std::span<const ParamSpec> file_info_params() { return {}; }
std::string file_info_output_schema() { return "{\"type\":\"object\"}"; }
Expected<ToolOutput> run_file_info(const ToolArgs&, const CallContext&) {
  return ToolError{ToolErrorCode::kIoError, "file_info is not built yet", ""};
}
// END file_info

}  // namespace ctx::agent
