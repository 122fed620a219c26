// The operator's record of every tool call (`--log FILE`): append-only JSON Lines, one object per
// call, written with one write(2) on an O_APPEND descriptor so concurrent calls (and concurrent
// processes sharing the file) never interleave within a line. It is also the replay format for
// context-strategy benchmarks.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "ctx/agent/tools.hpp"

namespace ctx::agent {

// One call as the log records it.
struct AuditRecord {
  std::chrono::system_clock::time_point time;  // when the call started
  std::string_view tool;
  std::string_view arguments;  // as received; logged as JSON when it is valid JSON, else a string
  const Expected<ToolOutput>* outcome = nullptr;  // the call's result or error
  bool cancelled = false;                         // the client cancelled it (no response sent)
  double duration_ms = 0;
};

class AuditLog {
 public:
  // Opens (creating, mode 0600) `path` for appending. The error names the path.
  static Result<std::unique_ptr<AuditLog>> open(const std::string& path);
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;
  ~AuditLog();

  // {"time":"2026-01-02T03:04:05.678Z","tool":"read_file","arguments":{...},"ok":true,
  //  "error":null,"result_bytes":N,"tokens":N,"truncated":false,"policy_hidden":N,
  //  "cancelled":false,"duration_ms":1.25}. On failure "ok":false and "error" is the code
  //  ("not_found", ...). Write failures are reported once on stderr and otherwise ignored: the
  //  log never fails a call.
  void record(const AuditRecord& record);

  // The record as one line (with its '\n'); exposed for tests.
  static std::string format(const AuditRecord& record);

  const std::string& path() const { return path_; }  // absolute

 private:
  AuditLog(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
  std::atomic<bool> warned_{false};
};

}  // namespace ctx::agent
