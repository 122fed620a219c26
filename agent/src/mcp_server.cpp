#include "ctx/agent/mcp_server.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <simdjson.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <initializer_list>
#include <map>
#include <mutex>
#include <thread>

#include "ctx/agent/tool_args.hpp"
#include "ctx/base/fd_io.hpp"
#include "json_writer.hpp"

namespace ctx::agent {

namespace {

constexpr std::size_t kMaxDepth = 64;  // MCP messages nest a handful of levels
constexpr std::size_t kReadChunk = 64 << 10;
// The message parser's capacity: allocated at least this big, and reallocated when a message left
// it bigger than kKeptParserBytes.
constexpr std::size_t kParserBytes = 16 << 10;
constexpr std::size_t kKeptParserBytes = 1 << 20;

constexpr std::string_view kDefaultInstructions =
    "Read-only tools over one project directory (the root). Paths are relative to the root. "
    "To explore: list_directory, then find_files with a glob like '**/*.py'. To find code: "
    "search_files with a regex. To read: read_file with offset and limit for large files. "
    "Results are cut to a token budget: when a result says it was truncated, follow its hint "
    "(a narrower path or pattern, or the next_cursor). Errors come back as JSON with a code, a "
    "message and a hint naming the next call to make. A file name that is not valid UTF-8 is "
    "shown with \\xHH for each such byte (and \\x5C for a backslash in it); pass it back as "
    "shown.";

// One outgoing message line as pieces whose concatenation is the line (without its '\n'): a tool's
// response goes out as the envelope's pieces around the tool's own text and structured result, so
// the bulk of it is never copied into one string.
using Reply = std::vector<std::string>;

std::string joined(Reply&& reply) {
  if (reply.size() == 1) return std::move(reply.front());
  std::size_t bytes = 0;
  for (const std::string& piece : reply) bytes += piece.size();
  std::string out;
  out.reserve(bytes);
  for (const std::string& piece : reply) out += piece;
  return out;
}

// One line on stderr, written whole.
void log_line(std::string_view message) {
  write_all(STDERR_FILENO, fmt::format("ctxsearch mcp: {}\n", message));
}

// `data_json`, when not empty, is the error's "data" member (a JSON text).
std::string error_response(std::string_view id_json, int code, std::string_view message,
                           std::string_view data_json = {}) {
  JsonWriter w;
  w.begin_object().field("jsonrpc", "2.0").key("id").raw(id_json);
  w.key("error").begin_object().field("code", std::int64_t{code}).field("message", message);
  if (!data_json.empty()) w.key("data").raw(data_json);
  w.end_object().end_object();
  return w.take();
}

std::string result_response(std::string_view id_json, std::string_view result_json) {
  JsonWriter w;
  w.begin_object().field("jsonrpc", "2.0").key("id").raw(id_json).key("result").raw(result_json);
  w.end_object();
  return w.take();
}

// "read_file" -> "Read file".
std::string title_of(std::string_view name) {
  std::string title(name);
  for (char& c : title) {
    if (c == '_') c = ' ';
  }
  if (!title.empty() && title[0] >= 'a' && title[0] <= 'z') {
    title[0] = static_cast<char>(title[0] - 'a' + 'A');
  }
  return title;
}

enum class ObjectCheck : std::uint8_t { kNotObject, kAsIs, kMinified };

// Whether `json` is a JSON object, and whether it can go into a message line as it is: kAsIs when
// it holds no line break (a tool's JsonWriter output, one line already: validated, not
// re-serialised, since a valid JSON text has no raw line break inside a string), kMinified when
// it did and `minified` now holds it without whitespace.
ObjectCheck check_object(std::string_view json, std::string& minified) {
  thread_local simdjson::dom::parser parser;  // keeps its buffers from call to call
  simdjson::dom::element root;
  if (parser.parse(json.data(), json.size(), true).get(root) != simdjson::SUCCESS) {
    return ObjectCheck::kNotObject;
  }
  if (!root.is_object()) return ObjectCheck::kNotObject;
  // Two memchr scans (find_first_of("\r\n") would call memchr once per byte of the text).
  if (json.find('\n') == std::string_view::npos && json.find('\r') == std::string_view::npos) {
    return ObjectCheck::kAsIs;
  }
  minified = simdjson::minify(root);
  return ObjectCheck::kMinified;
}

// check_object for a JsonWriter's output, which is valid by construction: kAsIs after a look at
// its ends and a scan for line breaks (the full check in debug builds, so tests catch a tool that
// breaks the promise).
ObjectCheck trusted_object(std::string_view json) {
#ifndef NDEBUG
  std::string minified;
  if (check_object(json, minified) != ObjectCheck::kAsIs) return ObjectCheck::kNotObject;
#endif
  if (json.size() < 2 || json.front() != '{' || json.back() != '}' ||
      json.find('\n') != std::string_view::npos || json.find('\r') != std::string_view::npos) {
    return ObjectCheck::kNotObject;
  }
  return ObjectCheck::kAsIs;
}

// `json` when it is a JSON object, else nullopt; minified when it holds a line break, so the
// result holds no newline.
std::optional<std::string> minified_object(std::string_view json) {
  std::string minified;
  switch (check_object(json, minified)) {
    case ObjectCheck::kNotObject:
      return std::nullopt;
    case ObjectCheck::kAsIs:
      return std::string(json);
    case ObjectCheck::kMinified:
      return minified;
  }
  return std::nullopt;
}

// The JSON text of a request id: a string or an integer (MCP forbids null). nullopt when the id
// has another type.
std::optional<std::string> id_text(simdjson::dom::element id) {
  JsonWriter w;
  if (id.is_string()) {
    w.string(id.get_string().value_unsafe());
  } else if (id.is_int64()) {
    w.integer(id.get_int64().value_unsafe());
  } else if (id.is_uint64()) {
    w.unsigned_integer(id.get_uint64().value_unsafe());
  } else if (id.is_double()) {
    // MCP's ids are strings or numbers: 1.5 or 1e3 (given back as 1000, the same JSON number).
    return fmt::format("{}", id.get_double().value_unsafe());
  } else {
    return std::nullopt;
  }
  return w.take();
}

// The first key of `object` among `keys` that appears twice, or empty. A reader that takes the
// last of duplicates (JSON.parse: most SDKs and proxies) would see another message than this
// server, which reads the first: such a message is refused.
std::string_view duplicate_key(simdjson::dom::object object,
                               std::initializer_list<std::string_view> keys) {
  std::array<int, 8> seen{};
  for (auto [key, value] : object) {
    std::size_t i = 0;
    for (std::string_view k : keys) {
      if (k == key && ++seen[i] == 2) return k;
      ++i;
    }
  }
  return {};
}

// Byte offsets in a JSON text simdjson accepted (so it is valid): where its values are written.
// A number keeps its own text this way, where simdjson holds 1e-400 as 0, 1.0 as 1 and an
// integer past 64 bits not at all.
std::size_t skip_space(std::string_view json, std::size_t i) {
  while (i < json.size() &&
         (json[i] == ' ' || json[i] == '\t' || json[i] == '\n' || json[i] == '\r')) {
    ++i;
  }
  return i;
}

// From the opening quote at `i` to just past the closing one; `escaped` tells whether it held a
// backslash escape.
std::size_t skip_string(std::string_view json, std::size_t i, bool& escaped) {
  escaped = false;
  for (++i; i < json.size() && json[i] != '"'; ++i) {
    if (json[i] == '\\') {
      escaped = true;
      ++i;
    }
  }
  return i + 1;
}

// From the first byte of a value at `i` to just past its last.
std::size_t skip_value(std::string_view json, std::size_t i) {
  int depth = 0;
  bool escaped = false;
  while (i < json.size()) {
    const char c = json[i];
    if (c == '"') {
      i = skip_string(json, i, escaped);
      if (depth == 0) return i;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') {
      if (depth == 0) return i;  // the end of the enclosing container
      if (--depth == 0) return i + 1;
    }
    if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) return i;
    ++i;
  }
  return i;
}

// The text of the value of the member `key` of the JSON object `json` (valid JSON, as simdjson
// read it: only its top-level members are looked at), or empty when it has none or writes that
// key with escapes. A request id that is a number comes back as its own text this way.
std::string_view raw_member(std::string_view json, std::string_view key) {
  std::size_t i = skip_space(json, 0);
  if (i >= json.size() || json[i] != '{') return {};
  for (++i;;) {
    i = skip_space(json, i);
    if (i >= json.size() || json[i] != '"') return {};
    const std::size_t key_start = i + 1;
    bool escaped = false;
    i = skip_string(json, i, escaped);
    const std::string_view name = json.substr(key_start, i - 1 - key_start);
    i = skip_space(json, i);
    if (i >= json.size() || json[i] != ':') return {};
    const std::size_t value_start = skip_space(json, i + 1);
    i = skip_value(json, value_start);
    if (!escaped && name == key) return json.substr(value_start, i - value_start);
    i = skip_space(json, i);
    if (i >= json.size() || json[i] != ',') return {};
    ++i;
  }
}

// The texts of the elements of the JSON array `json` (valid JSON, as simdjson read it), in
// order; empty when `json` is not an array. A batch's messages are read through these, so that a
// number id in a batch comes back as written, as it does for a message alone.
std::vector<std::string_view> raw_elements(std::string_view json) {
  std::vector<std::string_view> out;
  std::size_t i = skip_space(json, 0);
  if (i >= json.size() || json[i] != '[') return out;
  i = skip_space(json, i + 1);
  if (i < json.size() && json[i] == ']') return out;
  while (i < json.size()) {
    const std::size_t start = i;
    i = skip_value(json, start);
    out.push_back(json.substr(start, i - start));
    i = skip_space(json, i);
    if (i >= json.size() || json[i] != ',') break;
    i = skip_space(json, i + 1);
  }
  return out;
}

bool batches_allowed(std::string_view version) {
  return version == "2025-03-26" || version == "2024-11-05";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Reads newline-delimited messages from a descriptor without ever holding more than the size
// limit (plus one read chunk) of an unfinished line.
class LineReader {
 public:
  enum class Event : std::uint8_t { kLine, kOversize, kEnd, kError, kNone };

  LineReader(int fd, std::size_t max_bytes) : fd_(fd), max_bytes_(max_bytes) {}

  // kLine: `line` holds the next message (without '\n'). kOversize: a line over the limit was
  // skipped, `skipped` says how long it was. kEnd: end of input. kError: read failed (errno).
  // With `wait` false it never blocks: kNone when no whole message is buffered and the
  // descriptor has nothing to read now (what did arrive stays buffered).
  Event next(std::string& line, std::size_t& skipped, bool wait = true) {
    while (true) {
      std::size_t nl = buf_.find('\n', scan_);
      if (nl != std::string::npos) {
        std::size_t length = nl - start_;
        bool oversize = draining_ || length > max_bytes_;
        skipped = drained_ + length;
        if (!oversize) line.assign(buf_, start_, length);
        start_ = scan_ = nl + 1;
        draining_ = false;
        drained_ = 0;
        compact();
        return oversize ? Event::kOversize : Event::kLine;
      }
      scan_ = buf_.size();
      if (buf_.size() - start_ > max_bytes_) {  // drop the unfinished line's head
        drained_ += buf_.size() - start_;
        draining_ = true;
        buf_.clear();
        start_ = scan_ = 0;
      }
      if (eof_) {
        if (draining_) {
          skipped = drained_ + (buf_.size() - start_);
          draining_ = false;
          buf_.clear();
          start_ = scan_ = 0;
          return Event::kOversize;
        }
        if (start_ < buf_.size()) {  // a last line without '\n'
          line.assign(buf_, start_, buf_.size() - start_);
          buf_.clear();
          start_ = scan_ = 0;
          return Event::kLine;
        }
        return Event::kEnd;
      }
      if (!wait) {
        struct pollfd ready {
          fd_, POLLIN, 0
        };
        const int got = ::poll(&ready, 1, 0);
        if (got < 0 && errno == EINTR) continue;
        // Nothing to read now, or poll failed: never risk a blocking read here (the blocking
        // reader meets any error on the descriptor itself).
        if (got <= 0) return Event::kNone;
        // Readable or hung up: the read below does not block.
      }
      // Into a chunk of its own and then appended: growing buf_ by a chunk to read into would
      // zero-fill 64 KiB per read, for messages that are mostly a few hundred bytes.
      ssize_t n = ::read(fd_, chunk_.get(), kReadChunk);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Event::kError;
      }
      buf_.append(chunk_.get(), static_cast<std::size_t>(n));
      if (n == 0) eof_ = true;
    }
  }

  // Whether a whole message is buffered already (the next `next` returns it without reading).
  bool has_buffered_line() const {
    return buf_.find('\n', scan_) != std::string::npos || (eof_ && start_ < buf_.size());
  }

 private:
  void compact() {
    if (start_ > 0 && start_ >= buf_.size() / 2) {
      buf_.erase(0, start_);
      scan_ -= start_;
      start_ = 0;
    }
  }

  int fd_;
  std::size_t max_bytes_;
  std::unique_ptr<char[]> chunk_ = std::make_unique_for_overwrite<char[]>(kReadChunk);
  std::string buf_;
  std::size_t start_ = 0;  // first byte of the current line
  std::size_t scan_ = 0;   // bytes before this hold no '\n' of the current line
  std::size_t drained_ = 0;
  bool draining_ = false;
  bool eof_ = false;
};

// Writes whole lines to a descriptor under a lock; after a failure every write is skipped.
class LineWriter {
 public:
  explicit LineWriter(int fd) : fd_(fd) {}

  void write_line(std::string line) {
    line.push_back('\n');
    std::lock_guard lock(mutex_);
    if (broken_) return;
    std::size_t done = 0;
    while (done < line.size()) {
      ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        broken_ = true;
        return;
      }
      done += static_cast<std::size_t>(n);
    }
  }

  // Writes the line whose pieces `line` holds (one writev, continued after a short write).
  void write_line(Reply line) {
    if (line.empty()) line.emplace_back();
    line.back().push_back('\n');
    std::vector<struct iovec> pieces;
    pieces.reserve(line.size());
    for (std::string& piece : line) {
      if (!piece.empty()) pieces.push_back(iovec{piece.data(), piece.size()});
    }
    std::lock_guard lock(mutex_);
    if (broken_) return;
    std::size_t first = 0;
    while (first < pieces.size()) {
      const int count = static_cast<int>(std::min<std::size_t>(pieces.size() - first, IOV_MAX));
      ssize_t n = ::writev(fd_, pieces.data() + first, count);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        broken_ = true;
        return;
      }
      auto left = static_cast<std::size_t>(n);
      while (first < pieces.size() && left >= pieces[first].iov_len)
        left -= pieces[first++].iov_len;
      if (left > 0) {
        pieces[first].iov_base = static_cast<char*>(pieces[first].iov_base) + left;
        pieces[first].iov_len -= left;
      }
    }
  }
  bool broken() const {
    std::lock_guard lock(mutex_);
    return broken_;
  }
  int error() const {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  int fd_;
  mutable std::mutex mutex_;
  bool broken_ = false;
  int error_ = 0;
};

// A fixed set of threads running queued jobs. `submit` never blocks: the queue is bounded by
// admission instead (Impl::tools_call admits a call only while fewer than workers +
// max_queued_calls are in flight, and every queued job holds at least one admitted call), so the
// reader never waits here and a cancellation or ping behind a full queue is read at once.
class WorkerPool {
 public:
  explicit WorkerPool(unsigned threads) {
    if (threads == 0) threads = 1;
    for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  }
  ~WorkerPool() { finish(); }

  void submit(std::function<void()> job) {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(job));
    ready_.notify_one();
  }

  // Runs what is queued, then joins the threads.
  void finish() {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    ready_.notify_all();
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
    threads_.clear();
  }

 private:
  void work() {
    while (true) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return closing_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  bool closing_ = false;
};

}  // namespace

McpRevisionFields mcp_revision_fields(std::string_view protocol_version) {
  McpRevisionFields fields;
  if (protocol_version.empty()) return fields;  // not initialized: the newest
  // Revisions are dates (YYYY-MM-DD): their text order is their time order.
  fields.annotations = protocol_version >= "2025-03-26";
  fields.titles = protocol_version >= "2025-06-18";
  fields.structured_output = protocol_version >= "2025-06-18";
  return fields;
}

std::string mcp_tools_json(const std::vector<ToolSpec>& specs, McpRevisionFields fields) {
  JsonWriter w;
  w.begin_array();
  for (const ToolSpec& spec : specs) {
    std::optional<std::string> input = minified_object(spec.input_schema);
    std::optional<std::string> output = minified_object(spec.output_schema);
    if (!input) log_line(fmt::format("tool {} has an invalid input schema", spec.name));
    if (!output) log_line(fmt::format("tool {} has an invalid output schema", spec.name));
    w.begin_object().field("name", spec.name);
    if (fields.titles) w.field("title", title_of(spec.name));
    w.field("description", spec.description);
    w.key("inputSchema").raw(input ? *input : "{\"type\":\"object\"}");
    if (fields.structured_output) {
      w.key("outputSchema").raw(output ? *output : "{\"type\":\"object\"}");
    }
    if (fields.annotations) {
      w.key("annotations")
          .begin_object()
          .field("title", title_of(spec.name))
          .field("readOnlyHint", true)
          .field("openWorldHint", false)
          .end_object();
    }
    w.end_object();
  }
  w.end_array();
  return w.take();
}

// ------------------------------------------------------------------------------------------------
// RegistryBackend

RegistryBackend::RegistryBackend(const Sandbox& sandbox, const Policy& policy,
                                 const AgentConfig& config, SessionState* session, AuditLog* audit)
    : sandbox_(sandbox),
      policy_(policy),
      config_(config),
      session_(session),
      audit_(audit),
      specs_(tool_specs(config.limits)) {}

bool RegistryBackend::runs_inline(std::string_view name) const {
  return name == "read_file" || name == "file_info" || name == "list_directory";
}

Expected<ToolOutput> RegistryBackend::call(std::string_view name, std::string_view arguments_json,
                                           const std::atomic<bool>& cancelled, CallPoller* poller) {
  const auto wall = std::chrono::system_clock::now();
  const auto start = std::chrono::steady_clock::now();
  CallContext context{sandbox_,
                      policy_,
                      counter_,
                      config_,
                      start + std::chrono::milliseconds(config_.limits.deadline_ms),
                      &cancelled,
                      session_,
                      poller};
  context.count_tokens = audit_ != nullptr;  // only the audit log reads ToolOutput::tokens
  Expected<ToolOutput> outcome = call_tool(name, arguments_json, context);
  if (outcome.ok()) outcome->structured_trusted = true;  // the registry's tools use JsonWriter
  if (audit_ != nullptr) {
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    audit_->record(AuditRecord{wall, name, arguments_json, &outcome,
                               cancelled.load(std::memory_order_relaxed), took.count()});
  }
  return outcome;
}

// ------------------------------------------------------------------------------------------------
// McpServer

struct McpServer::Impl {
  // What one message turns into: a reply now, or a job (a tool call, or a batch holding one)
  // that produces the reply when run: on a worker (given no poller), or, when `runs_inline`, on
  // the reading thread itself with a poller that keeps reading messages while it runs.
  using Job = std::function<std::optional<Reply>(CallPoller* poller)>;
  struct Dispatch {
    std::optional<std::string> reply;
    Job deferred;
    bool runs_inline = false;
  };

  Impl(ToolBackend& backend_in, McpServerOptions options_in)
      : backend(backend_in), options(std::move(options_in)) {
    if (options.instructions.empty()) options.instructions = std::string(kDefaultInstructions);
  }

  ToolBackend& backend;
  McpServerOptions options;

  // A tools/call admitted and not yet finished (queued or running).
  struct InFlight {
    std::shared_ptr<std::atomic<bool>> cancelled;
    std::size_t bytes = 0;  // its arguments' size, counted against max_in_flight_bytes
  };

  mutable std::mutex mutex;  // guards the members below
  std::string protocol_version;
  bool initialized = false;
  std::map<std::string, InFlight> in_flight;  // by id JSON text
  std::size_t in_flight_bytes = 0;            // the sum of in_flight's bytes
  std::string tools_result;                   // built once

  // The most tools/call requests in flight at once: one running per worker plus the queue.
  std::size_t max_in_flight() const {
    return std::size_t{options.workers == 0 ? 1U : options.workers} +
           std::max<std::size_t>(options.max_queued_calls, 1);
  }

  std::string version() const {
    std::lock_guard lock(mutex);
    return protocol_version;
  }

  Dispatch dispatch_line(std::string_view line) {
    line = trim(line);
    if (line.empty()) return {};
    if (line.size() > options.max_message_bytes) {
      return {oversize_reply(line.size()), {}};
    }
    // One parser per thread, its buffers kept from message to message (the dispatch holds no
    // element past its return: a call's arguments are copied out); one grown for a big message is
    // let go again, so memory stays flat.
    thread_local simdjson::dom::parser parser;
    if (parser.capacity() < line.size() || parser.max_depth() != kMaxDepth ||
        parser.capacity() > kKeptParserBytes) {
      if (parser.allocate(std::max(line.size(), kParserBytes), kMaxDepth) != simdjson::SUCCESS) {
        return {error_response("null", kParseError, "parse error: out of memory"), {}};
      }
    }
    simdjson::dom::element root;
    auto error = parser.parse(line.data(), line.size(), true).get(root);
    std::optional<std::string> quoted_numbers;
    if (error == simdjson::NUMBER_ERROR && (quoted_numbers = quote_huge_numbers(line))) {
      error = parser.parse(*quoted_numbers).get(root);
    }
    if (error) {
      return {error_response("null", kParseError,
                             fmt::format("parse error: {} (send one JSON-RPC 2.0 object per line, "
                                         "UTF-8, nested at most {} levels)",
                                         simdjson::error_message(error), kMaxDepth)),
              {}};
    }
    if (root.is_array()) return dispatch_batch(root.get_array().value_unsafe(), line);
    return dispatch_element(root, false, line);
  }

  std::string oversize_reply(std::size_t bytes) const {
    return error_response("null", kInvalidRequest,
                          fmt::format("message of {} bytes exceeds the limit of {} bytes; it was "
                                      "skipped",
                                      bytes, options.max_message_bytes));
  }

  // `raw`: the batch's text as received (its elements' texts give their number ids as written).
  Dispatch dispatch_batch(simdjson::dom::array batch, std::string_view raw) {
    const std::string version_now = version();
    if (!batches_allowed(version_now)) {
      return {error_response("null", kInvalidRequest,
                             fmt::format("JSON-RPC batches are not supported in protocol version "
                                         "{}; send one message per line",
                                         version_now.empty() ? "(not initialized)" : version_now)),
              {}};
    }
    const std::size_t n = batch.size();
    if (n == 0) return {error_response("null", kInvalidRequest, "empty batch"), {}};
    if (n > options.max_batch_elements) {
      return {error_response(
                  "null", kInvalidRequest,
                  fmt::format("batch of {} messages exceeds the limit of {}; send fewer at once", n,
                              options.max_batch_elements)),
              {}};
    }
    const std::vector<std::string_view> raw_parts = raw_elements(raw);
    auto parts = std::make_shared<std::vector<Dispatch>>();
    bool deferred = false;
    for (simdjson::dom::element element : batch) {
      const std::size_t i = parts->size();
      parts->push_back(dispatch_element(element, true,
                                        i < raw_parts.size() ? raw_parts[i] : std::string_view()));
      deferred = deferred || static_cast<bool>(parts->back().deferred);
    }
    auto assemble =
        [parts](CallPoller* /*poller: a batch runs on a worker*/) -> std::optional<Reply> {
      std::string out = "[";
      bool any = false;
      for (Dispatch& d : *parts) {
        std::optional<std::string> r;
        if (d.deferred) {
          if (std::optional<Reply> reply = d.deferred(nullptr)) r = joined(std::move(*reply));
        } else {
          r = std::move(d.reply);
        }
        if (!r) continue;
        if (any) out.push_back(',');
        out += *r;
        any = true;
      }
      if (!any) return std::nullopt;  // only notifications: no response at all
      out.push_back(']');
      return Reply{std::move(out)};
    };
    if (deferred) return {std::nullopt, assemble};
    std::optional<Reply> reply = assemble(nullptr);
    if (!reply) return {};
    return {joined(std::move(*reply)), {}};
  }

  // `raw`: the message's text (alone, or its element of a batch), for number ids.
  Dispatch dispatch_element(simdjson::dom::element element, bool in_batch,
                            std::string_view raw = {}) {
    simdjson::dom::object message;
    if (element.get_object().get(message) != simdjson::SUCCESS) {
      return {error_response("null", kInvalidRequest, "a JSON-RPC message must be a JSON object"),
              {}};
    }
    if (const std::string_view twice =
            duplicate_key(message, {"jsonrpc", "id", "method", "params", "result", "error"});
        !twice.empty()) {
      return {
          error_response("null", kInvalidRequest,
                         fmt::format("the message gives \"{}\" twice; give each key once", twice)),
          {}};
    }
    std::optional<std::string> id;
    simdjson::dom::element id_element;
    if (message["id"].get(id_element) == simdjson::SUCCESS) {
      id = id_text(id_element);
      // A number id comes back as it was written (1e-400 is not 0, nor 2^64 a string).
      if (const std::string_view written = raw_member(raw, "id");
          !written.empty() && (written[0] == '-' || (written[0] >= '0' && written[0] <= '9'))) {
        id = std::string(written);
      }
      if (!id) {
        return {
            error_response("null", kInvalidRequest, "the request id must be a string or a number"),
            {}};
      }
    }
    const std::string_view id_json = id ? std::string_view(*id) : std::string_view("null");
    std::string_view jsonrpc;
    if (message["jsonrpc"].get(jsonrpc) != simdjson::SUCCESS || jsonrpc != "2.0") {
      return {
          error_response(id_json, kInvalidRequest, "the message must have \"jsonrpc\": \"2.0\""),
          {}};
    }
    simdjson::dom::element method_element;
    if (message["method"].get(method_element) != simdjson::SUCCESS) {
      simdjson::dom::element ignored;
      if (message["result"].get(ignored) == simdjson::SUCCESS ||
          message["error"].get(ignored) == simdjson::SUCCESS) {
        return {};  // a response; this server sends no requests, so there is nothing to match
      }
      return {error_response(id_json, kInvalidRequest, "the message has no \"method\""), {}};
    }
    std::string_view method;
    if (method_element.get_string().get(method) != simdjson::SUCCESS) {
      return {error_response(id_json, kInvalidRequest, "\"method\" must be a string"), {}};
    }
    simdjson::dom::object params;  // empty object when absent
    simdjson::dom::element params_element;
    bool has_params = message["params"].get(params_element) == simdjson::SUCCESS;
    if (has_params && !params_element.is_null() &&
        params_element.get_object().get(params) != simdjson::SUCCESS) {
      if (!id) return {};  // a malformed notification: notifications get no reply
      return {error_response(id_json, kInvalidParams, "\"params\" must be an object"), {}};
    }
    const bool params_object = has_params && params_element.is_object();
    if (params_object) {
      if (const std::string_view twice = duplicate_key(
              params, {"name", "arguments", "protocolVersion", "requestId", "cursor"});
          !twice.empty()) {
        if (!id) return {};
        return {
            error_response(id_json, kInvalidParams,
                           fmt::format("\"params\" gives \"{}\" twice; give each key once", twice)),
            {}};
      }
    }

    if (!id) {
      if (params_object) notification(method, params, raw_member(raw, "params"));
      if (!params_object) notification_without_params(method);
      return {};
    }
    return request(*id, method, params_object ? &params : nullptr, in_batch);
  }

  void notification_without_params(std::string_view method) {
    if (method == "notifications/initialized") {
      std::lock_guard lock(mutex);
      initialized = true;
    }
  }

  // `raw_params`: the text of `params` when known (a message alone), for number ids.
  void notification(std::string_view method, simdjson::dom::object params,
                    std::string_view raw_params = {}) {
    if (method == "notifications/cancelled") {
      simdjson::dom::element request_id;
      if (params["requestId"].get(request_id) != simdjson::SUCCESS) return;
      std::optional<std::string> key = id_text(request_id);
      if (!key) return;
      // Requests are kept by their id as written (dispatch_element): a number id is found by
      // its text too (1e3 is the request 1e3).
      if (const std::string_view written = raw_member(raw_params, "requestId");
          !written.empty() && (written[0] == '-' || (written[0] >= '0' && written[0] <= '9'))) {
        key = std::string(written);
      }
      std::lock_guard lock(mutex);
      auto it = in_flight.find(*key);
      if (it != in_flight.end()) it->second.cancelled->store(true, std::memory_order_relaxed);
      return;
    }
    notification_without_params(method);
    // Other notifications (roots/list_changed, progress, ...) need nothing from this server.
  }

  Dispatch request(const std::string& id, std::string_view method,
                   const simdjson::dom::object* params, bool in_batch) {
    if (method == "initialize") return {initialize(id, params, in_batch), {}};
    if (method == "ping") return {result_response(id, "{}"), {}};
    if (method == "tools/list") return {tools_list(id, params), {}};
    if (method == "tools/call") return tools_call(id, params);
    return {error_response(id, kMethodNotFound,
                           fmt::format("method '{}' not found; this server offers initialize, "
                                       "ping, tools/list and tools/call",
                                       method)),
            {}};
  }

  std::string initialize(const std::string& id, const simdjson::dom::object* params,
                         bool in_batch) {
    if (in_batch) {
      return error_response(id, kInvalidRequest, "initialize must not be part of a batch");
    }
    std::string_view requested;
    if (params == nullptr || (*params)["protocolVersion"].get(requested) != simdjson::SUCCESS) {
      return error_response(id, kInvalidParams,
                            "initialize needs params.protocolVersion (a string such as \"" +
                                std::string(kMcpProtocolVersions[0]) + "\")");
    }
    std::string_view chosen = kMcpProtocolVersions[0];
    for (std::string_view v : kMcpProtocolVersions) {
      if (v == requested) chosen = v;
    }
    {
      // One negotiation per connection: a second would change the rules (batches) mid-session.
      std::lock_guard lock(mutex);
      if (!protocol_version.empty()) {
        return error_response(id, kInvalidRequest,
                              fmt::format("the session is already initialized (protocol version "
                                          "{}); initialize once per connection",
                                          protocol_version));
      }
      protocol_version = std::string(chosen);
      tools_result.clear();  // a tools/list before initialize had the newest revision's fields
    }
    JsonWriter w;
    w.begin_object().field("protocolVersion", chosen);
    w.key("capabilities").begin_object().key("tools").begin_object().field("listChanged", false);
    w.end_object().end_object();
    w.key("serverInfo").begin_object().field("name", "ctxsearch");
    if (mcp_revision_fields(chosen).titles) w.field("title", "ctxsearch");
    w.field("version", options.server_version).end_object();
    w.field("instructions", options.instructions).end_object();
    return result_response(id, w.str());
  }

  std::string tools_list(const std::string& id, const simdjson::dom::object* params) {
    simdjson::dom::element cursor;
    if (params != nullptr && (*params)["cursor"].get(cursor) == simdjson::SUCCESS &&
        !cursor.is_null()) {
      std::string_view text;
      if (cursor.get_string().get(text) != simdjson::SUCCESS || !text.empty()) {
        return error_response(id, kInvalidParams,
                              "unknown cursor: tools/list returns every tool in one page");
      }
    }
    std::lock_guard lock(mutex);
    if (tools_result.empty()) {  // the version is settled once and for all by initialize
      JsonWriter w;
      w.begin_object()
          .key("tools")
          .raw(mcp_tools_json(backend.specs(), mcp_revision_fields(protocol_version)))
          .end_object();
      tools_result = w.take();
    }
    return result_response(id, tools_result);
  }

  Dispatch tools_call(const std::string& id, const simdjson::dom::object* params) {
    std::string_view name;
    if (params == nullptr || (*params)["name"].get(name) != simdjson::SUCCESS) {
      return {error_response(id, kInvalidParams,
                             "tools/call needs params.name (a string: one of the tools from "
                             "tools/list)"),
              {}};
    }
    std::string arguments;
    simdjson::dom::element args_element;
    if ((*params)["arguments"].get(args_element) != simdjson::SUCCESS || args_element.is_null()) {
      arguments = "{}";
    } else if (args_element.is_object()) {
      arguments = simdjson::minify(args_element);
    } else if (args_element.is_string()) {
      // Some hosts pass the model's arguments through as a JSON text; the tool validates it.
      arguments = std::string(args_element.get_string().value_unsafe());
    } else {
      return {joined(call_response(id, ToolError{ToolErrorCode::kInvalidArgument,
                                                 "the arguments must be a JSON object",
                                                 "send arguments as an object, e.g. "
                                                 "{\"path\": \".\"}"})),
              {}};
    }
    auto flag = std::make_shared<std::atomic<bool>>(false);
    const std::size_t bytes = arguments.size();
    {
      std::lock_guard lock(mutex);
      if (in_flight.count(id) != 0) {
        return {error_response(id, kInvalidRequest,
                               fmt::format("request id {} is already in use by a request in "
                                           "flight; use a new id",
                                           id)),
                {}};
      }
      if (in_flight.size() >= max_in_flight() ||
          (!in_flight.empty() && in_flight_bytes + bytes > options.max_in_flight_bytes)) {
        return {busy_reply(id), {}};
      }
      in_flight.emplace(id, InFlight{flag, bytes});
      in_flight_bytes += bytes;
    }
    const bool quick = backend.runs_inline(name);
    const bool structured = mcp_revision_fields(version()).structured_output;
    return {std::nullopt,
            [this, id, tool = std::string(name), arguments = std::move(arguments), flag,
             structured](CallPoller* poller) -> std::optional<Reply> {
              std::optional<Expected<ToolOutput>> outcome;
              if (!flag->load(std::memory_order_relaxed)) {
                try {
                  outcome.emplace(backend.call(tool, arguments, *flag, poller));
                } catch (const std::exception& e) {
                  log_line(fmt::format("tool {} failed: {}", tool, e.what()));
                  outcome.emplace(ToolError{ToolErrorCode::kIoError,
                                            fmt::format("internal error in {}: {}", tool, e.what()),
                                            "retry once; if it fails again, use another tool"});
                }
              }
              {
                std::lock_guard lock(mutex);
                auto it = in_flight.find(id);
                in_flight_bytes -= it->second.bytes;
                in_flight.erase(it);
              }
              // A cancelled request gets no response (MCP cancellation).
              if (flag->load(std::memory_order_relaxed) || !outcome) return std::nullopt;
              return call_response(id, std::move(*outcome), structured);
            },
            quick};
  }

  // The answer to a tools/call that finds the server full (called with `mutex` held): a JSON-RPC
  // error, not a tool result with isError. The tool never ran, so there is no tool outcome for
  // the model to correct; MCP files server errors under protocol errors, and hosts retry on
  // those (with the count in `data`) rather than hand the model a failure of its arguments.
  std::string busy_reply(std::string_view id) const {
    const std::size_t limit = max_in_flight();
    const std::size_t queue = std::max<std::size_t>(options.max_queued_calls, 1);
    const bool by_bytes = in_flight.size() < limit;
    JsonWriter data;
    data.begin_object()
        .field("reason", by_bytes ? "in_flight_bytes" : "in_flight_calls")
        .field("in_flight", static_cast<std::uint64_t>(in_flight.size()))
        .field("max_in_flight", static_cast<std::uint64_t>(limit))
        .field("in_flight_bytes", static_cast<std::uint64_t>(in_flight_bytes))
        .field("max_in_flight_bytes", static_cast<std::uint64_t>(options.max_in_flight_bytes))
        .field("retry", true)
        .end_object();
    std::string message =
        by_bytes ? fmt::format(
                       "server busy: {} tool calls in flight hold {} bytes of arguments "
                       "(limit {}); this call was not run. Retry it once a response "
                       "arrives, or cancel calls you no longer need",
                       in_flight.size(), in_flight_bytes, options.max_in_flight_bytes)
                 : fmt::format(
                       "server busy: {} tool calls in flight, the limit ({} running "
                       "and {} queued); this call was not run. Retry it once a "
                       "response arrives, or cancel calls you no longer need",
                       in_flight.size(), limit - queue, queue);
    return error_response(id, kServerBusy, message, data.str());
  }

  // The JSON-RPC response to tools/call `id_json` (the result_response envelope around the call
  // result) as pieces: on success the tool's escaped text (when it made one) and, when
  // `structured` (the protocol revision has structuredContent), its structured result are pieces
  // of their own, moved out of `outcome`, not copied.
  static Reply call_response(std::string_view id_json, Expected<ToolOutput>&& outcome,
                             bool structured = true) {
    std::string minified;
    ToolError internal;
    const ToolError* error = nullptr;
    ObjectCheck check = ObjectCheck::kNotObject;
    if (outcome.ok() && structured) {
      check = outcome->structured_trusted ? trusted_object(outcome->structured)
                                          : check_object(outcome->structured, minified);
      if (check == ObjectCheck::kNotObject) {
        log_line("a tool returned a structured result that is not a JSON object");
        internal = ToolError{ToolErrorCode::kIoError,
                             "internal error: the tool's structured result is not a JSON object",
                             "retry once; if it fails again, use another tool"};
        error = &internal;
      }
    } else if (!outcome.ok()) {
      error = &outcome.error();
    }
    JsonWriter w;
    w.begin_object().field("jsonrpc", "2.0").key("id").raw(id_json).key("result");
    w.begin_object().key("content").begin_array().begin_object().field("type", "text");
    if (error != nullptr) {
      w.field("text", to_json(*error));
      // On an error the structured result is left out: the tool's outputSchema describes
      // successes, and clients (the TypeScript SDK among them) validate any structuredContent
      // against it.
      w.end_object().end_array().field("isError", true).end_object().end_object();
      return Reply{w.take()};
    }
    Reply reply;
    reply.reserve(6);
    if (!outcome->text_json.empty()) {
#ifndef NDEBUG
      std::string escaped;
      append_json_body(escaped, lossy_utf8(outcome->text));
      if (escaped != outcome->text_json) std::abort();  // the tool broke ToolOutput's contract
#endif
      // What escaped_string(text_json) writes: the escaped text between quotes.
      w.key("text");
      reply.push_back(w.take() + '"');
      reply.push_back(std::move(outcome->text_json));
      reply.emplace_back(R"("}])");
    } else {
      w.reserve(w.str().size() + outcome->text.size() + outcome->text.size() / 8 + 64);
      w.field("text", outcome->text).end_object().end_array();
      reply.push_back(w.take());
    }
    if (structured) {
      reply.emplace_back(R"(,"structuredContent":)");
      reply.push_back(check == ObjectCheck::kMinified ? std::move(minified)
                                                      : std::move(outcome->structured));
    }
    reply.emplace_back(R"(,"isError":false}})");
    return reply;
  }

  void cancel_all() {
    std::lock_guard lock(mutex);
    for (auto& [key, call] : in_flight) call.cancelled->store(true, std::memory_order_relaxed);
  }
};

McpServer::McpServer(ToolBackend& backend, McpServerOptions options)
    : impl_(std::make_unique<Impl>(backend, std::move(options))) {}
McpServer::~McpServer() = default;

std::string McpServer::protocol_version() const { return impl_->version(); }

std::optional<std::string> McpServer::handle_message(std::string_view line) {
  Impl::Dispatch d = impl_->dispatch_line(line);
  if (d.deferred) {
    std::optional<Reply> reply = d.deferred(nullptr);
    if (!reply) return std::nullopt;
    return joined(std::move(*reply));
  }
  return std::move(d.reply);
}

namespace {

// The stdio loop's handling of what the reader yields, shared by the loop and by the poller of an
// inline call (which handles messages that arrive while the call runs, never inline itself).
class Serving final : public CallPoller {
 public:
  Serving(McpServer::Impl& impl, LineReader& reader, LineWriter& writer, WorkerPool& pool)
      : impl_(impl), reader_(reader), writer_(writer), pool_(pool) {}

  // kLine or kOversize from the reader. A tools/call the backend runs inline is run here, when
  // `allow_inline` and no further message is waiting in the buffer (a client that pipelines
  // calls gets them run side by side on the workers).
  void handle(LineReader::Event event, const std::string& line, std::size_t skipped,
              bool allow_inline);

  // Reads and handles the messages that have arrived (without blocking), while an inline call
  // runs on the reading thread or on a thread of its walk; one poll at a time.
  void poll() override {
    std::unique_lock lock(poll_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    while (!writer_.broken()) {
      const LineReader::Event event = reader_.next(poll_line_, poll_skipped_, /*wait=*/false);
      if (event != LineReader::Event::kLine && event != LineReader::Event::kOversize) return;
      handle(event, poll_line_, poll_skipped_, false);
    }
  }

 private:
  McpServer::Impl& impl_;
  LineReader& reader_;
  LineWriter& writer_;
  WorkerPool& pool_;
  std::mutex poll_mutex_;  // held by a poll; the loop takes it after an inline call
  std::string poll_line_;
  std::size_t poll_skipped_ = 0;
};

}  // namespace

void Serving::handle(LineReader::Event event, const std::string& line, std::size_t skipped,
                     bool allow_inline) {
  if (event == LineReader::Event::kOversize) {
    log_line(fmt::format("skipped a message of {} bytes (limit {})", skipped,
                         impl_.options.max_message_bytes));
    writer_.write_line(impl_.oversize_reply(skipped));
    return;
  }
  McpServer::Impl::Dispatch d;
  try {
    d = impl_.dispatch_line(line);
  } catch (const std::exception& e) {  // bad_alloc on a huge message, say
    log_line(fmt::format("internal error: {}", e.what()));
    d.reply = error_response("null", kInternalError, fmt::format("internal error: {}", e.what()));
  }
  if (!d.deferred) {
    if (d.reply) writer_.write_line(std::move(*d.reply));
    return;
  }
  if (allow_inline && d.runs_inline && impl_.options.inline_quick_calls &&
      !reader_.has_buffered_line()) {
    std::optional<Reply> reply;
    try {
      reply = d.deferred(this);
    } catch (const std::exception& e) {
      log_line(fmt::format("internal error: {}", e.what()));
    }
    // A walk's thread may still be finishing a poll it began; the reader is the loop's again after.
    { std::lock_guard lock(poll_mutex_); }
    if (reply) writer_.write_line(std::move(*reply));
    return;
  }
  pool_.submit([this, job = std::move(d.deferred)] {
    std::optional<Reply> reply;
    try {
      reply = job(nullptr);
    } catch (const std::exception& e) {
      log_line(fmt::format("internal error: {}", e.what()));
    }
    if (reply) writer_.write_line(std::move(*reply));
  });
}

int McpServer::run(int in_fd, int out_fd) {
  LineWriter writer(out_fd);
  LineReader reader(in_fd, impl_->options.max_message_bytes);
  int status = 0;
  {
    WorkerPool pool(impl_->options.workers);
    Serving serving(*impl_, reader, writer, pool);
    std::string line;
    std::size_t skipped = 0;
    while (!writer.broken()) {
      LineReader::Event event = reader.next(line, skipped);
      if (event == LineReader::Event::kEnd) break;
      if (event == LineReader::Event::kError) {
        log_line(fmt::format("reading stdin failed: {}", std::strerror(errno)));
        status = 2;
        break;
      }
      serving.handle(event, line, skipped, true);
    }
    if (writer.broken()) impl_->cancel_all();  // nobody can read the answers any more
    pool.finish();
  }
  if (writer.broken()) {
    log_line(fmt::format("writing stdout failed: {}", std::strerror(writer.error())));
    return 2;
  }
  return status;
}

}  // namespace ctx::agent
