// The agent's command-line faces, reached through the ctxsearch binary: `ctxsearch mcp` (the MCP
// stdio server), `ctxsearch tool NAME 'JSON'` (one tool call, its structured result on stdout)
// and `ctxsearch tools` (the tool schemas for MCP or OpenAI function calling). Every other argv
// goes on to the rg-compatible CLI.
#pragma once

#include <optional>

namespace ctx::agent {

// Runs the agent command named by argv[1] and returns its exit code: 0 done, 1 the tool
// reported an error (`tool`), 2 a usage or setup error (named on stderr with the fix). Returns
// nullopt, having done nothing, when argv[1] is not `mcp`, `tool` or `tools`.
std::optional<int> run_agent_command(int argc, char** argv);

}  // namespace ctx::agent
