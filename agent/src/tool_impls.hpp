// The tools behind the registry (tools.cpp). Each tool lives in its own file and exposes its
// parameter table, the JSON Schema of its structured output, and its run function.
#pragma once

#include <span>
#include <string>

#include "ctx/agent/tool_args.hpp"
#include "ctx/agent/tools.hpp"

namespace ctx::agent {

struct ToolImpl {
  std::string_view name;
  std::string_view description;
  std::span<const ParamSpec> (*params)();
  std::string (*output_schema)();
  Expected<ToolOutput> (*run)(const ToolArgs& args, const CallContext& context);
};

// read_file.cpp
std::span<const ParamSpec> read_file_params();
std::string read_file_output_schema();
Expected<ToolOutput> run_read_file(const ToolArgs& args, const CallContext& context);

// list_directory.cpp
std::span<const ParamSpec> list_directory_params();
std::string list_directory_output_schema();
Expected<ToolOutput> run_list_directory(const ToolArgs& args, const CallContext& context);

// search_files.cpp
std::span<const ParamSpec> search_files_params();
std::string search_files_output_schema();
Expected<ToolOutput> run_search_files(const ToolArgs& args, const CallContext& context);

// find_files.cpp
std::span<const ParamSpec> find_files_params();
std::string find_files_output_schema();
Expected<ToolOutput> run_find_files(const ToolArgs& args, const CallContext& context);

// file_info.cpp
std::span<const ParamSpec> file_info_params();
std::string file_info_output_schema();
Expected<ToolOutput> run_file_info(const ToolArgs& args, const CallContext& context);

}  // namespace ctx::agent
