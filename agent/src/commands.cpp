#include "ctx/agent/commands.hpp"

#include <fmt/format.h>
#include <limits.h>
#include <malloc.h>
#include <simdjson.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctx/agent/audit_log.hpp"
#include "ctx/agent/mcp_server.hpp"
#include "ctx/agent/tools.hpp"
#include "ctx/base/fd_io.hpp"
#include "json_writer.hpp"

namespace ctx::agent {

namespace {

constexpr std::size_t kMaxStdinArguments = std::size_t{8} << 20;

constexpr std::string_view kCommonFlagsHelp =
    "  --root DIR              the project root the tools may see (default: the current "
    "directory)\n"
    "  --context-window N      the model's context window in tokens; a call's default budget is "
    "a quarter\n"
    "                          of it (default 32768)\n"
    "  --config FILE           project config (default: ROOT/.ctxsearch.json when it exists)\n"
    "  --allow GLOB            show only paths matching GLOB (repeatable; gitignore syntax)\n"
    "  --deny GLOB             hide paths matching GLOB (repeatable)\n"
    "  --protect GLOB          hide paths matching GLOB as secrets, added to the defaults "
    "(repeatable)\n"
    "  --no-default-protect    drop the default protected globs (.git/, .env, *.pem, *.key, ...)\n"
    "  --log FILE              append one JSON line per tool call to FILE (the audit log)\n"
    "  -h, --help              print this help\n";

std::string mcp_help() {
  return fmt::format(
      "Usage: ctxsearch mcp [FLAGS]\n\n"
      "Serves the read-only tools (search_files, read_file, find_files, list_directory, "
      "file_info)\n"
      "over the Model Context Protocol on stdin/stdout (JSON-RPC 2.0, one message per line).\n"
      "Logs go to stderr.\n\n"
      "Flags:\n{}\n"
      "Example client config: {{\"command\": \"ctxsearch\", \"args\": [\"mcp\", \"--root\", "
      "\"/path/to/project\"]}}\n"
      "To search for the word 'mcp' with the rg-compatible CLI, write: ctxsearch -e mcp\n",
      kCommonFlagsHelp);
}

std::string tool_help() {
  std::string names;
  for (const ToolSpec& spec : tool_specs()) {
    names += fmt::format("  {:<16}{}\n", spec.name, spec.description);
  }
  return fmt::format(
      "Usage: ctxsearch tool NAME [FLAGS] ['JSON-ARGUMENTS' | -]\n\n"
      "Runs one tool as an MCP client would and prints its structured result (JSON) on stdout.\n"
      "The arguments are a JSON object ('{{}}' when left out; '-' reads them from stdin).\n"
      "Exit status: 0 a result, 1 the tool returned an error (printed as {{\"error\": {{code, "
      "message,\nhint}}}} on stdout), 2 a usage error.\n\n"
      "Tools:\n{}\n"
      "Flags:\n{}"
      "  --text                  print the text the model reads instead of the structured "
      "result\n\n"
      "Example: ctxsearch tool search_files '{{\"pattern\": \"TODO\", \"path\": \"src\"}}'\n",
      names, kCommonFlagsHelp);
}

std::string tools_help() {
  return "Usage: ctxsearch tools [--schema mcp|openai|openai-strict] [--root DIR] [--config "
         "FILE]\n\n"
         "Without --schema: one line per tool, its name and description.\n"
         "  --schema mcp            the tools array of an MCP tools/list result (JSON)\n"
         "  --schema openai         OpenAI function-calling tools: [{\"type\": \"function\", "
         "\"function\":\n"
         "                          {name, description, parameters}}]\n"
         "  --schema openai-strict  the same for OpenAI's strict mode (\"strict\": true): every\n"
         "                          parameter required, the optional ones nullable (null is\n"
         "                          taken as absent)\n"
         "  --root DIR, --config FILE  whose config's limits the schemas state (max_results'\n"
         "                          maximum), as for 'ctxsearch mcp' and 'ctxsearch tool' "
         "(default:\n"
         "                          the current directory and its .ctxsearch.json)\n"
         "  -h, --help              print this help\n";
}

struct Flags {
  std::string command;  // mcp, tool, tools
  std::optional<std::string> root;
  std::optional<std::size_t> context_window;
  std::optional<std::string> config;
  std::vector<std::string> allow, deny, protect;
  bool no_default_protect = false;
  std::optional<std::string> log;
  std::optional<std::string> schema;
  bool text = false;
  bool help = false;
  std::vector<std::string> positionals;
};

void print_stderr(std::string_view message) {
  write_all(STDERR_FILENO, fmt::format("ctxsearch: {}\n", message));
}

bool print_stdout(std::string_view text) { return write_all(STDOUT_FILENO, text); }

// A usage error: the message names the input, the second line the fix. Exit code 2.
int usage_error(const Flags& flags, std::string_view message) {
  print_stderr(fmt::format("{}: {}\nrun 'ctxsearch {} --help' for the flags", flags.command,
                           message, flags.command));
  return 2;
}

// Parses argv[2..]. Returns an error message for the first bad flag.
std::optional<std::string> parse_flags(int argc, char** argv, Flags& flags) {
  const bool common = flags.command != "tools";
  bool only_positionals = false;
  for (int i = 2; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (only_positionals || arg == "-" || arg.empty() || arg[0] != '-') {
      flags.positionals.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positionals = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      flags.help = true;
      continue;
    }
    std::string_view name = arg;
    std::optional<std::string_view> inline_value;
    if (std::size_t eq = arg.find('='); eq != std::string_view::npos && arg.starts_with("--")) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    auto value = [&]() -> std::optional<std::string> {
      if (inline_value) return std::string(*inline_value);
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    auto needs_value = [&] { return fmt::format("flag '{}' needs a value", name); };
    auto no_value = [&]() -> std::optional<std::string> {
      if (inline_value) return fmt::format("flag '{}' takes no value", name);
      return std::nullopt;
    };
    const bool root_or_config = name == "--root" || name == "--config";
    if ((common || root_or_config) && (root_or_config || name == "--log" || name == "--allow" ||
                                       name == "--deny" || name == "--protect")) {
      std::optional<std::string> v = value();
      if (!v) return needs_value();
      if (name == "--root") flags.root = *v;
      if (name == "--config") flags.config = *v;
      if (name == "--log") flags.log = *v;
      if (name == "--allow") flags.allow.push_back(*v);
      if (name == "--deny") flags.deny.push_back(*v);
      if (name == "--protect") flags.protect.push_back(*v);
    } else if (common && name == "--context-window") {
      std::optional<std::string> v = value();
      if (!v) return needs_value();
      std::size_t n = 0;
      auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
      if (ec != std::errc{} || end != v->data() + v->size() || n < kMinContextWindow ||
          n > kMaxContextWindow) {
        return fmt::format("--context-window '{}' is not a number of tokens from {} to {}", *v,
                           kMinContextWindow, kMaxContextWindow);
      }
      flags.context_window = n;
    } else if (common && name == "--no-default-protect") {
      if (auto e = no_value()) return e;
      flags.no_default_protect = true;
    } else if (flags.command == "tool" && name == "--text") {
      if (auto e = no_value()) return e;
      flags.text = true;
    } else if (flags.command == "tools" && name == "--schema") {
      std::optional<std::string> v = value();
      if (!v) return needs_value();
      if (*v != "mcp" && *v != "openai" && *v != "openai-strict") {
        return fmt::format(
            "--schema '{}' is not a schema format; use --schema mcp, --schema openai or "
            "--schema openai-strict",
            *v);
      }
      flags.schema = *v;
    } else {
      return fmt::format("unknown flag '{}'", arg);
    }
  }
  return std::nullopt;
}

// `path` with glob metacharacters escaped, anchored at the root (gitignore syntax).
std::string literal_glob(std::string_view path) {
  std::string glob = "/";
  for (char c : path) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\' || c == '!' || c == '#') {
      glob.push_back('\\');
    }
    glob.push_back(c);
  }
  return glob;
}

// Everything a command needs to run tools; built from the flags, the config file and the root.
struct Setup {
  std::optional<Sandbox> sandbox;
  AgentConfig config;
  std::optional<Policy> policy;
  std::unique_ptr<AuditLog> audit;
};

// Opens the root, reads the config, applies the flags, opens the log and builds the policy.
// Returns an exit code (2, after printing why) when any of it fails.
std::optional<int> prepare(const Flags& flags, Setup& setup) {
  std::string root = flags.root.value_or(".");
  if (!flags.root) {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) != nullptr) root = cwd;
    // The shell's spelling of the working directory (through a symlink, say), when $PWD still
    // names it: the sandbox then also accepts absolute paths written that way.
    const char* pwd = std::getenv("PWD");
    struct stat by_pwd {};
    struct stat by_cwd {};
    if (pwd != nullptr && pwd[0] == '/' && ::stat(pwd, &by_pwd) == 0 && ::stat(".", &by_cwd) == 0 &&
        by_pwd.st_dev == by_cwd.st_dev && by_pwd.st_ino == by_cwd.st_ino) {
      root = pwd;
    }
  }
  {
    Expected<Sandbox> sandbox = Sandbox::open(root);
    if (!sandbox.ok()) {
      return usage_error(
          flags, fmt::format("--root: {} ({})", sandbox.error().message, sandbox.error().hint));
    }
    setup.sandbox.emplace(std::move(sandbox).value());
  }
  std::optional<std::string> config_path = flags.config;
  if (!config_path) {
    std::string candidate = setup.sandbox->root_path() + "/.ctxsearch.json";
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0) config_path = candidate;
  }
  if (config_path) {
    Expected<AgentConfig> config = read_config_file(*config_path);
    if (!config.ok()) {
      return usage_error(flags, fmt::format("--config '{}': {} ({})", *config_path,
                                            config.error().message, config.error().hint));
    }
    setup.config = std::move(config).value();
    // A file found in the root belongs to the tree being read, which must not lift its own
    // protection (a cloned repository could otherwise show its .env): it may hide more, never
    // less. --config FILE or --no-default-protect say it for the operator.
    if (!flags.config && setup.config.policy.no_default_protect) {
      setup.config.policy.no_default_protect = false;
      fmt::print(stderr,
                 "ctxsearch: {}: \"no_default_protect\" is ignored in a project file found in the "
                 "root (a tree cannot lift its own protection); pass --no-default-protect, or the "
                 "file as --config FILE\n",
                 *config_path);
    }
  }
  PolicyConfig& policy = setup.config.policy;
  policy.allow.insert(policy.allow.end(), flags.allow.begin(), flags.allow.end());
  policy.deny.insert(policy.deny.end(), flags.deny.begin(), flags.deny.end());
  policy.protect.insert(policy.protect.end(), flags.protect.begin(), flags.protect.end());
  if (flags.no_default_protect) policy.no_default_protect = true;
  if (flags.context_window) setup.config.context_window = *flags.context_window;

  if (flags.log) {
    Result<std::unique_ptr<AuditLog>> log = AuditLog::open(*flags.log);
    if (!log.ok()) {
      return usage_error(flags,
                         fmt::format("--log: {}; pass a writable file path", log.error().detail));
    }
    setup.audit = std::move(log).value();
    // A log kept inside the root is hidden from the tools: it is the operator's record.
    const std::string& root_path = setup.sandbox->root_path();
    const std::string& log_path = setup.audit->path();
    if (log_path.size() > root_path.size() + 1 && log_path.starts_with(root_path) &&
        log_path[root_path.size()] == '/') {
      policy.protect.push_back(literal_glob(log_path.substr(root_path.size() + 1)));
    }
  }
  Expected<Policy> built = Policy::build(policy);
  if (!built.ok()) {
    return usage_error(flags, fmt::format("{} ({})", built.error().message, built.error().hint));
  }
  setup.policy.emplace(std::move(built).value());
  return std::nullopt;
}

int run_mcp(const Flags& flags) {
  if (flags.help) return print_stdout(mcp_help()) ? 0 : 2;
  if (!flags.positionals.empty()) {
    return usage_error(
        flags, fmt::format("unexpected argument '{}'; mcp takes only flags", flags.positionals[0]));
  }
  Setup setup;
  if (std::optional<int> code = prepare(flags, setup)) return *code;
  // A long-lived server builds results of tens of KiB per call and frees them: with glibc's
  // defaults the free space at the top of a heap (a thread's arena) is handed back to the kernel
  // once it passes 128 KiB, and the next call faults the pages in again (about a fifth of a
  // read_file call in perf). Up to kKeptFreeBytes per heap is kept instead, and buffers up to
  // kHeapBufferBytes come from the heaps rather than a fresh mmap each. Bounded, so memory stays
  // flat over many calls.
  constexpr int kKeptFreeBytes = 8 << 20;
  constexpr int kHeapBufferBytes = 4 << 20;
  ::mallopt(M_TRIM_THRESHOLD, kKeptFreeBytes);
  ::mallopt(M_MMAP_THRESHOLD, kHeapBufferBytes);
  SessionState session;
  RegistryBackend backend(*setup.sandbox, *setup.policy, setup.config, &session, setup.audit.get());
  McpServer server(backend, McpServerOptions{});
  print_stderr(fmt::format("mcp: serving {} ({} tools) on stdin/stdout", setup.sandbox->root_path(),
                           backend.specs().size()));
  return server.run(STDIN_FILENO, STDOUT_FILENO);
}

// Reads all of stdin, up to `limit` bytes. nullopt when it is longer or unreadable.
std::optional<std::string> read_stdin(std::size_t limit) {
  std::string data;
  char chunk[1 << 16];
  while (true) {
    ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return data;
    data.append(chunk, static_cast<std::size_t>(n));
    if (data.size() > limit) return std::nullopt;
  }
}

int run_tool(const Flags& flags) {
  if (flags.help) return print_stdout(tool_help()) ? 0 : 2;
  if (flags.positionals.empty()) {
    return usage_error(flags,
                       "missing the tool name; e.g. ctxsearch tool read_file "
                       "'{\"path\": \"README.md\"}'");
  }
  const std::string& name = flags.positionals[0];
  bool known = false;
  std::string names;
  for (const ToolSpec& spec : tool_specs()) {
    known = known || spec.name == name;
    names += names.empty() ? "" : ", ";
    names += spec.name;
  }
  if (!known) {
    return usage_error(flags, fmt::format("unknown tool '{}'; the tools are: {}", name, names));
  }
  if (flags.positionals.size() > 2) {
    return usage_error(flags, fmt::format("unexpected argument '{}'; pass the tool's arguments as "
                                          "one JSON object (quote it for the shell)",
                                          flags.positionals[2]));
  }
  std::string arguments = "{}";
  if (flags.positionals.size() == 2) {
    if (flags.positionals[1] == "-") {
      std::optional<std::string> input = read_stdin(kMaxStdinArguments);
      if (!input) {
        return usage_error(flags, fmt::format("the arguments on stdin are unreadable or longer "
                                              "than {} bytes",
                                              kMaxStdinArguments));
      }
      arguments = std::move(*input);
    } else {
      arguments = flags.positionals[1];
    }
  }
  Setup setup;
  if (std::optional<int> code = prepare(flags, setup)) return *code;
  RegistryBackend backend(*setup.sandbox, *setup.policy, setup.config, nullptr, setup.audit.get());
  const std::atomic<bool> never_cancelled{false};
  Expected<ToolOutput> outcome = backend.call(name, arguments, never_cancelled, nullptr);
  if (!outcome.ok()) {
    JsonWriter w;
    w.begin_object().key("error").raw(to_json(outcome.error())).end_object();
    std::string out = w.take();
    out.push_back('\n');
    if (!print_stdout(out)) return 2;
    return 1;
  }
  std::string out = flags.text ? outcome->text : outcome->structured;
  if (out.empty() || out.back() != '\n') out.push_back('\n');
  return print_stdout(out) ? 0 : 2;
}

// `parameters` (a tool's input schema: an object of flat properties) as OpenAI's strict mode
// takes it: every property required, each optional one's type widened with "null" (its enum
// with null), additionalProperties false. False when `parameters` is not such an object.
bool write_strict_parameters(simdjson::dom::element parameters, JsonWriter& w) {
  simdjson::dom::object properties;
  if (parameters["properties"].get(properties) != simdjson::SUCCESS) return false;
  std::vector<std::string_view> required;
  simdjson::dom::array listed;
  if (parameters["required"].get(listed) == simdjson::SUCCESS) {
    for (simdjson::dom::element r : listed) {
      std::string_view name;
      if (r.get(name) == simdjson::SUCCESS) required.push_back(name);
    }
  }
  w.begin_object().field("type", "object").key("properties").begin_object();
  for (auto [key, schema] : properties) {
    const bool optional = std::find(required.begin(), required.end(), key) == required.end();
    simdjson::dom::object fields;
    if (schema.get(fields) != simdjson::SUCCESS) return false;
    w.key(key).begin_object();
    for (auto [field, value] : fields) {
      w.key(field);
      std::string_view type;
      if (optional && field == "type" && value.get(type) == simdjson::SUCCESS) {
        w.begin_array().string(type).string("null").end_array();
      } else if (simdjson::dom::array members;
                 optional && field == "enum" && value.get(members) == simdjson::SUCCESS) {
        w.begin_array();
        for (simdjson::dom::element member : members) {
          w.raw(simdjson::minify(member));
        }
        w.null().end_array();
      } else {
        w.raw(simdjson::minify(value));
      }
    }
    w.end_object();
  }
  w.end_object().key("required").begin_array();
  for (auto [key, schema] : properties) w.string(key);
  w.end_array().field("additionalProperties", false).end_object();
  return true;
}

int run_tools(const Flags& flags) {
  if (flags.help) return print_stdout(tools_help()) ? 0 : 2;
  if (!flags.positionals.empty()) {
    return usage_error(flags, fmt::format("unexpected argument '{}'; use --schema mcp or --schema "
                                          "openai",
                                          flags.positionals[0]));
  }
  // The schemas as a server with this root's config publishes them.
  Setup setup;
  if (std::optional<int> code = prepare(flags, setup)) return *code;
  const std::vector<ToolSpec> specs = tool_specs(setup.config.limits);
  std::string out;
  if (!flags.schema) {
    for (const ToolSpec& spec : specs) out += fmt::format("{}: {}\n", spec.name, spec.description);
  } else if (*flags.schema == "mcp") {
    out = mcp_tools_json(specs) + "\n";
  } else {
    // The MCP rendering already holds minified, checked schemas; reshape it for OpenAI.
    simdjson::dom::parser parser;
    const std::string mcp = mcp_tools_json(specs);
    simdjson::dom::array tools;
    if (parser.parse(mcp).get_array().get(tools) != simdjson::SUCCESS) {
      print_stderr("tools: internal error: the tool schemas are not valid JSON");
      return 2;
    }
    JsonWriter w;
    w.begin_array();
    for (simdjson::dom::element tool : tools) {
      std::string_view name, description;
      simdjson::dom::element parameters;
      if (tool["name"].get(name) != simdjson::SUCCESS ||
          tool["description"].get(description) != simdjson::SUCCESS ||
          tool["inputSchema"].get(parameters) != simdjson::SUCCESS) {
        continue;
      }
      w.begin_object().field("type", "function").key("function").begin_object();
      w.field("name", name).field("description", description);
      if (*flags.schema == "openai-strict") {
        w.field("strict", true).key("parameters");
        if (!write_strict_parameters(parameters, w)) {
          print_stderr(
              fmt::format("tools: internal error: the schema of {} has no properties", name));
          return 2;
        }
      } else {
        w.key("parameters").raw(simdjson::minify(parameters));
      }
      w.end_object().end_object();
    }
    w.end_array();
    out = w.take() + "\n";
  }
  return print_stdout(out) ? 0 : 2;
}

}  // namespace

std::optional<int> run_agent_command(int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  std::string_view command = argv[1];
  if (command != "mcp" && command != "tool" && command != "tools") return std::nullopt;
  Flags flags;
  flags.command = std::string(command);
  if (std::optional<std::string> error = parse_flags(argc, argv, flags)) {
    return usage_error(flags, *error);
  }
  if (command == "mcp") return run_mcp(flags);
  if (command == "tool") return run_tool(flags);
  return run_tools(flags);
}

}  // namespace ctx::agent
