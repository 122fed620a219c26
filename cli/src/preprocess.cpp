#include "preprocess.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

extern char** environ;

namespace ctx::cli {
namespace {

// The full path of `program` on PATH (an executable regular file), or empty.
std::string find_on_path(std::string_view program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string_view dirs(path);
  while (true) {
    const std::size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    if (dir.empty()) dir = ".";
    std::string full = fmt::format("{}/{}", dir, program);
    struct stat st {};
    if (::stat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(full.c_str(), X_OK) == 0) {
      return full;
    }
    if (colon == std::string_view::npos) return {};
    dirs.remove_prefix(colon + 1);
  }
}

// find_on_path, looked up once per program.
std::string resolved(const std::string& program) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::string> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(program);
  if (it == cache.end()) it = cache.emplace(program, find_on_path(program)).first;
  return it->second;
}

struct Decompressor {
  std::string_view suffix;
  std::array<std::string_view, 4> argv;  // empty entries end it
};

constexpr Decompressor kDecompressors[] = {
    {".gz", {"gzip", "-d", "-c", ""}},     {".tgz", {"gzip", "-d", "-c", ""}},
    {".bz2", {"bzip2", "-d", "-c", ""}},   {".tbz2", {"bzip2", "-d", "-c", ""}},
    {".xz", {"xz", "-d", "-c", ""}},       {".txz", {"xz", "-d", "-c", ""}},
    {".lz4", {"lz4", "-d", "-c", ""}},     {".lzma", {"xz", "--format=lzma", "-d", "-c"}},
    {".br", {"brotli", "-d", "-c", ""}},   {".zst", {"zstd", "-q", "-d", "-c"}},
    {".zstd", {"zstd", "-q", "-d", "-c"}}, {".Z", {"uncompress", "-c", "", ""}},
};

// Closes the fds it holds.
struct Fds {
  int fd[4] = {-1, -1, -1, -1};
  ~Fds() {
    for (int f : fd) {
      if (f >= 0) ::close(f);
    }
  }
  void close(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

}  // namespace

std::vector<std::string> decompressor_for(std::string_view path) {
  for (const Decompressor& d : kDecompressors) {
    if (path.size() <= d.suffix.size() || path.substr(path.size() - d.suffix.size()) != d.suffix) {
      continue;
    }
    std::string program = resolved(std::string(d.argv[0]));
    if (program.empty()) return {};  // as ripgrep: not on PATH, searched as it is
    std::vector<std::string> argv{program};
    for (std::size_t i = 1; i < d.argv.size() && !d.argv[i].empty(); ++i) {
      argv.emplace_back(d.argv[i]);
    }
    argv.emplace_back(path);
    return argv;
  }
  return {};
}

std::string quoted_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out.push_back(' ');
    out += fmt::format("\"{}\"", a);
  }
  return out;
}

Status run_and_capture(const std::vector<std::string>& argv, int stdin_fd, std::string& out,
                       RunEnd* how) {
  out.clear();
  RunEnd ignored = RunEnd::kSucceeded;
  RunEnd& end = how != nullptr ? *how : ignored;
  end = RunEnd::kNotStarted;
  if (argv.empty()) return Error{ErrorCode::kInvalidArgument, "no command to run"};
  Fds fds;  // 0,1: stdout pipe (read, write); 2,3: stderr pipe
  if (::pipe2(fds.fd, O_CLOEXEC) != 0 || ::pipe2(fds.fd + 2, O_CLOEXEC) != 0) {
    return Error{ErrorCode::kIo, fmt::format("cannot create a pipe: {}", std::strerror(errno))};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdin_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, stdin_fd, STDIN_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, fds.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds.fd[3], STDERR_FILENO);
  // The child starts with default signal handling (ctxsearch ignores SIGPIPE).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, argv[0].c_str(), &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  fds.close(1);
  fds.close(3);
  if (spawned != 0) {
    return Error{spawned == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
                 fmt::format("{} (os error {})", std::strerror(spawned), spawned)};
  }
  end = RunEnd::kFailed;
  std::string err;
  constexpr std::size_t kMaxStderr = 64 << 10;
  bool too_large = false;
  pollfd polls[2] = {{fds.fd[0], POLLIN, 0}, {fds.fd[2], POLLIN, 0}};
  int open_fds = 2;
  char chunk[64 << 10];
  while (open_fds > 0 && !too_large) {
    if (::poll(polls, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (polls[i].fd < 0 || polls[i].revents == 0) continue;
      const ssize_t n = ::read(polls[i].fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        polls[i].fd = -1;
        --open_fds;
        continue;
      }
      const std::string_view got(chunk, static_cast<std::size_t>(n));
      if (i == 0) {
        if (out.size() + got.size() > kMaxPipedBytes) {
          too_large = true;
          break;
        }
        out.append(got);
      } else if (err.size() < kMaxStderr) {
        err.append(got.substr(0, kMaxStderr - err.size()));
      }
    }
  }
  if (too_large) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (too_large) {
    end = RunEnd::kTooLarge;
    return Error{ErrorCode::kIo, fmt::format("{} wrote more than {} MiB: not searched",
                                             quoted_command(argv), kMaxPipedBytes >> 20)};
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    end = RunEnd::kSucceeded;
    return {};
  }
  // What ripgrep shows of a failed command: its stderr between two lines of dashes.
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ' || err.back() == '\t')) {
    err.pop_back();
  }
  std::size_t lead = 0;
  while (lead < err.size() && (err[lead] == '\n' || err[lead] == ' ' || err[lead] == '\t')) ++lead;
  err.erase(0, lead);
  if (err.empty()) return Error{ErrorCode::kIo, std::string(kEmptyStderr)};
  const std::string dashes(79, '-');
  return Error{ErrorCode::kIo, fmt::format("\n{}\n{}\n{}", dashes, err, dashes)};
}

}  // namespace ctx::cli
