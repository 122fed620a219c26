#include "ctx/agent/audit_log.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <simdjson.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <ctime>

#include "json_writer.hpp"

namespace ctx::agent {

namespace {

// "2026-01-02T03:04:05.678Z"
std::string iso_time(std::chrono::system_clock::time_point time) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch());
  const std::time_t seconds = static_cast<std::time_t>(ms.count() / 1000);
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms.count() % 1000);
}

}  // namespace

Result<std::unique_ptr<AuditLog>> AuditLog::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0) return Error::from_errno(errno, path);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{ErrorCode::kInvalidArgument,
                 fmt::format("{}: the audit log must be a regular file", path)};
  }
  std::string absolute = path;
  if (char* real = ::realpath(path.c_str(), nullptr); real != nullptr) {
    absolute = real;
    ::free(real);
  }
  return std::unique_ptr<AuditLog>(new AuditLog(fd, std::move(absolute)));
}

AuditLog::~AuditLog() {
  if (fd_ >= 0) ::close(fd_);
}

std::string AuditLog::format(const AuditRecord& record) {
  JsonWriter w;
  w.begin_object().field("time", iso_time(record.time)).field("tool", record.tool);
  w.key("arguments");
  {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(record.arguments.data(), record.arguments.size(), true).get(root) ==
        simdjson::SUCCESS) {
      w.raw(simdjson::minify(root));
    } else {
      w.string(record.arguments);
    }
  }
  const bool ok = record.outcome != nullptr && record.outcome->ok();
  w.field("ok", ok).key("error");
  if (ok || record.outcome == nullptr) {
    w.null();
  } else {
    w.string(to_string(record.outcome->error().code));
  }
  const ToolOutput* out = ok ? &record.outcome->value() : nullptr;
  w.field("result_bytes",
          std::uint64_t{out != nullptr ? out->structured.size() + out->text.size() : 0});
  w.field("tokens", std::uint64_t{out != nullptr ? out->tokens : 0});
  w.field("truncated", out != nullptr && out->truncated);
  w.field("policy_hidden", std::uint64_t{out != nullptr ? out->policy_hidden : 0});
  w.field("cancelled", record.cancelled);
  // Microsecond resolution is plenty and keeps the number short.
  w.key("duration_ms")
      .raw(fmt::format("{:.3f}", std::isfinite(record.duration_ms) && record.duration_ms >= 0
                                     ? record.duration_ms
                                     : 0.0));
  w.end_object();
  std::string line = w.take();
  line.push_back('\n');
  return line;
}

void AuditLog::record(const AuditRecord& record) {
  const std::string line = format(record);
  // One write(2) per line on an O_APPEND descriptor: lines from concurrent calls never mix.
  ssize_t n;
  do {
    n = ::write(fd_, line.data(), line.size());
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(line.size()) && !warned_.exchange(true)) {
    std::string message = fmt::format("ctxsearch: writing the audit log {} failed: {}\n", path_,
                                      n < 0 ? std::strerror(errno) : "short write");
    ssize_t ignored = ::write(STDERR_FILENO, message.data(), message.size());
    static_cast<void>(ignored);
  }
}

}  // namespace ctx::agent
