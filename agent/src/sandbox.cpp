#include "ctx/agent/sandbox.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>
#include <vector>

#include "ctx/base/fd_io.hpp"
#include "ctx/base/utf8.hpp"
#include "path_display.hpp"
#include "sandbox_detail.hpp"

namespace ctx::agent {

namespace detail {
namespace {
std::atomic<bool> g_force_fallback{false};
std::atomic<bool> g_force_no_proc{false};
std::atomic<WalkOpenHook> g_walk_open_hook{nullptr};
}  // namespace

void set_force_openat2_fallback(bool force) { g_force_fallback.store(force); }
bool force_openat2_fallback() { return g_force_fallback.load(); }
void set_force_no_proc(bool force) { g_force_no_proc.store(force); }
void set_walk_open_hook(WalkOpenHook hook) { g_walk_open_hook.store(hook); }
WalkOpenHook walk_open_hook() { return g_walk_open_hook.load(std::memory_order_relaxed); }

}  // namespace detail

namespace {

// The final object of a path is looked up O_PATH: nothing is opened (no FIFO wait, no device
// open), and fstat then tells what it is before anything reads it.
constexpr int kPathFlags = O_PATH | O_CLOEXEC;
// A reopen by path (only without /proc): O_NONBLOCK keeps a FIFO swapped in meanwhile from
// blocking the open; it is cleared once the fd is known to be the inode that was checked.
constexpr int kReopenFlags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW;
// Intermediate directories of the fallback walk: search permission is all they need, as in a
// kernel path walk.
constexpr int kDirFlags = O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW;
constexpr int kMaxSymlinks = 40;  // the kernel's MAXSYMLINKS
constexpr int kMaxRetries = 64;   // openat2 EAGAIN (a rename raced a `..` lookup)
constexpr std::size_t kShownPathBytes = 200;

// A path named in a message: as typed, or, when it is not UTF-8 (a name found on disk, or a
// path whose \xHH escapes were read), as every tool shows it (path_display.hpp).
std::string shown(std::string_view path) {
  if (path.empty()) return ".";
  std::string text = is_valid_utf8(path) ? std::string(path) : escape_path(path);
  if (text.size() <= kShownPathBytes) return text;
  const std::string_view head = std::string_view(text).substr(0, kShownPathBytes);
  return fmt::format("{}... ({} bytes)", head.substr(0, utf8_valid_prefix(head)), path.size());
}

std::string_view base_name(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// `suggestion`, when not empty, is a root-relative path the model may have meant.
ToolError outside_root_error(std::string_view path, const std::string& root, std::string_view why,
                             std::string_view suggestion = {}) {
  std::string hint = fmt::format("paths are relative to the project root {}", root);
  std::string_view base = base_name(path);
  if (!suggestion.empty()) {
    hint += fmt::format("; try '{}'", shown(suggestion));
  } else if (!base.empty() && base != "." && base != "..") {
    hint += fmt::format("; try find_files with pattern='**/{}'", shown(base));
  }
  return ToolError{ToolErrorCode::kOutsideRoot,
                   fmt::format("'{}' is outside the project root: {}", shown(path), why),
                   std::move(hint)};
}

ToolError loop_error(std::string_view path) {
  return ToolError{
      ToolErrorCode::kIoError,
      fmt::format("'{}' cannot be opened: too many levels of symbolic links (a symlink loop)",
                  shown(path)),
      "open the file the symlinks should lead to by its real path"};
}

// Maps the errno of opening `path` beneath `root` to a ToolError.
ToolError errno_error(int err, std::string_view path, const std::string& root) {
  switch (err) {
    case ENOENT: {
      std::string_view base = base_name(path);
      return ToolError{ToolErrorCode::kNotFound, fmt::format("'{}' does not exist", shown(path)),
                       base.empty() ? std::string("call list_directory with path='.'")
                                    : fmt::format("call find_files with pattern='**/{}'", base)};
    }
    case EXDEV:
      return outside_root_error(path, root,
                                "a '..' or a symlink leads out of it "
                                "(symlinks are followed only while they stay inside)");
    case ELOOP:
      return loop_error(path);
    case EACCES:
    case EPERM:
      return ToolError{ToolErrorCode::kIoError,
                       fmt::format("'{}' cannot be opened: permission denied", shown(path)),
                       "the file is not readable by this process; choose another file"};
    case ENOTDIR:
      return ToolError{ToolErrorCode::kNotADirectory,
                       fmt::format("a component of '{}' is not a directory", shown(path)),
                       "call list_directory on the parent directory to see what it holds"};
    case ENAMETOOLONG:
      return ToolError{ToolErrorCode::kInvalidArgument,
                       fmt::format("'{}' is too long (a path is at most {} bytes and each name "
                                   "at most {} bytes)",
                                   shown(path), PATH_MAX - 1, NAME_MAX),
                       "use a shorter path"};
    case ENXIO:
    case ENODEV:
      return ToolError{ToolErrorCode::kSpecialFile,
                       fmt::format("'{}' is a socket or device that cannot be read", shown(path)),
                       "only regular files can be read"};
    default:
      return ToolError{ToolErrorCode::kIoError,
                       fmt::format("'{}' cannot be opened: {} (os error {})", shown(path),
                                   std::strerror(err), err),
                       "retry, or choose another file"};
  }
}

long openat2_retry(int dir_fd, const char* path, int flags, __u64 resolve) {
  struct open_how how {};
  how.flags = static_cast<__u64>(flags);
  how.resolve = resolve;
  long fd = -1;
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    fd = ::syscall(SYS_openat2, dir_fd, path, &how, sizeof how);
    if (fd >= 0 || (errno != EINTR && errno != EAGAIN)) break;
  }
  return fd;
}

bool probe_openat2() {
  long fd = openat2_retry(AT_FDCWD, "/", O_RDONLY | O_CLOEXEC | O_DIRECTORY, RESOLVE_NO_MAGICLINKS);
  if (fd >= 0) {
    ::close(static_cast<int>(fd));
    return true;
  }
  // ENOSYS: no such syscall; EPERM: a seccomp filter that predates it; E2BIG/EINVAL: a kernel
  // that does not know these flags.
  return errno != ENOSYS && errno != EPERM && errno != E2BIG && errno != EINVAL;
}

std::optional<std::string> read_link_at(int dir_fd, const char* name) {
  std::string buf(PATH_MAX, '\0');
  ssize_t n = ::readlinkat(dir_fd, name, buf.data(), buf.size());
  if (n < 0 || static_cast<std::size_t>(n) >= buf.size()) return std::nullopt;
  buf.resize(static_cast<std::size_t>(n));
  return buf;
}

struct ProcLink {
  char text[32];
};
ProcLink proc_link(int fd) {
  ProcLink link{};
  std::snprintf(link.text, sizeof link.text, "/proc/self/fd/%d", fd);
  return link;
}

// The absolute path of an open fd, from /proc; nullopt when /proc is unavailable.
std::optional<std::string> fd_path(int fd) {
  if (detail::g_force_no_proc.load(std::memory_order_relaxed)) return std::nullopt;
  return read_link_at(AT_FDCWD, proc_link(fd).text);
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out += '/';
    out += name;
  }
  return out;
}

void split_into(std::string_view path, std::vector<std::string_view>& out) {
  while (!path.empty()) {
    std::size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
}

struct Resolved {
  UniqueFd fd;
  std::string canonical;
};

// Re-opens the directory chain `names` from the root, every step O_NOFOLLOW (the names are real
// directories, never symlinks, so this stays beneath the root).
Expected<UniqueFd> reopen_chain(int root_fd, const std::vector<std::string>& names,
                                std::string_view path, const std::string& root) {
  UniqueFd cur;
  for (const std::string& name : names) {
    int fd = openat_retry(cur ? cur.get() : root_fd, name.c_str(), kDirFlags);
    if (fd < 0) return errno_error(errno, path, root);
    cur = UniqueFd(fd);
  }
  return cur;
}

// The portable walk for kernels without openat2: one openat(O_NOFOLLOW) per component, symlinks
// read with readlinkat and resolved here (relative targets against the directory they sit in,
// never above the root; absolute targets refused as RESOLVE_BENEATH refuses them). The fd it
// returns is O_PATH: the final object is looked up, not opened.
Expected<Resolved> fallback_open(int root_fd, std::string_view relative, const std::string& root) {
  std::deque<std::string> pending;
  {
    std::vector<std::string_view> parts;
    split_into(relative, parts);
    for (std::string_view part : parts) pending.emplace_back(part);
  }
  std::vector<std::string> names;  // real directories from the root to `cur`
  UniqueFd cur;                    // the directory `names` leads to; empty: the root
  UniqueFd final_fd;
  std::string final_name;
  int links = 0;
  while (!pending.empty()) {
    std::string comp = std::move(pending.front());
    pending.pop_front();
    if (comp.empty() || comp == ".") continue;
    if (comp == "..") {
      if (names.empty()) return outside_root_error(relative, root, "a '..' leads out of it");
      names.pop_back();
      CTX_TRY_ASSIGN(cur, reopen_chain(root_fd, names, relative, root));
      continue;
    }
    const bool last = pending.empty();
    int fd = openat_retry(cur ? cur.get() : root_fd, comp.c_str(),
                          last ? kPathFlags | O_NOFOLLOW : kDirFlags);
    int err = errno;
    if (fd >= 0 && last) {
      // O_PATH | O_NOFOLLOW opens a final symlink itself: follow it below as any other.
      struct stat st {};
      const bool ok = ::fstat(fd, &st) == 0;
      err = ok ? ELOOP : errno;
      if (!ok || S_ISLNK(st.st_mode)) {
        ::close(fd);
        fd = -1;
      }
    }
    if (fd >= 0) {
      if (last) {
        final_fd = UniqueFd(fd);
        final_name = std::move(comp);
      } else {
        cur = UniqueFd(fd);
        names.push_back(std::move(comp));
      }
      continue;
    }
    // O_NOFOLLOW on a symlink fails with ELOOP, or ENOTDIR together with O_DIRECTORY.
    if (err != ELOOP && err != ENOTDIR) return errno_error(err, relative, root);
    std::optional<std::string> target = read_link_at(cur ? cur.get() : root_fd, comp.c_str());
    if (!target) return errno_error(err, relative, root);  // not a symlink after all
    if (++links > kMaxSymlinks) return loop_error(relative);
    if (target->empty()) return errno_error(ENOENT, relative, root);
    if ((*target)[0] == '/') {
      return outside_root_error(relative, root,
                                fmt::format("'{}' is a symlink to the absolute path '{}'; only "
                                            "relative symlinks inside the root are followed",
                                            shown(comp), shown(*target)));
    }
    std::vector<std::string_view> parts;
    split_into(*target, parts);
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) pending.emplace_front(*it);
  }
  if (!final_fd) {
    // The path ended in the root, in "." or "..", or in a symlink to a directory ending so.
    int fd = openat_retry(cur ? cur.get() : root_fd, ".", kPathFlags);
    if (fd < 0) return errno_error(errno, relative, root);
    final_fd = UniqueFd(fd);
  } else {
    names.push_back(std::move(final_name));
  }
  return Resolved{std::move(final_fd), join(names)};
}

EntryKind kind_of(mode_t mode) {
  if (S_ISREG(mode)) return EntryKind::kFile;
  if (S_ISDIR(mode)) return EntryKind::kDirectory;
  if (S_ISLNK(mode)) return EntryKind::kSymlink;
  return EntryKind::kSpecial;
}

// `absolute` relative to `root` (both without trailing '/'), or nullopt when it is not beneath.
std::optional<std::string> strip_root(std::string_view absolute, const std::string& root) {
  if (root == "/") {
    if (absolute.empty() || absolute[0] != '/') return std::nullopt;
    return std::string(absolute.substr(1));
  }
  if (absolute == root) return std::string();
  if (absolute.size() > root.size() && absolute.substr(0, root.size()) == root &&
      absolute[root.size()] == '/') {
    return std::string(absolute.substr(root.size() + 1));
  }
  return std::nullopt;
}

// `root` made absolute (against the working directory) and cleaned lexically ("//", "/./" and a
// trailing '/' dropped); nullopt when it holds a ".." (whose meaning depends on symlinks) or the
// working directory is unknown.
std::optional<std::string> lexical_absolute(const std::string& root) {
  std::string joined = root;
  if (root.empty() || root[0] != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) == nullptr) return std::nullopt;
    joined = std::string(cwd) + "/" + root;
  }
  std::vector<std::string_view> parts;
  split_into(joined, parts);
  std::string out;
  for (std::string_view part : parts) {
    if (part.empty() || part == ".") continue;
    if (part == "..") return std::nullopt;
    out += '/';
    out += part;
  }
  if (out.empty()) out = "/";
  return out;
}

// How many leading components of `stack` spell `base` (an absolute path), or nullopt when
// `stack` is not `base` or beneath it. Whole components only: "/r" never prefixes "/rx".
std::optional<std::size_t> components_under(const std::vector<std::string_view>& stack,
                                            std::string_view base) {
  std::vector<std::string_view> base_parts;
  split_into(base, base_parts);
  std::erase_if(base_parts, [](std::string_view p) { return p.empty(); });
  if (stack.size() < base_parts.size() ||
      !std::equal(base_parts.begin(), base_parts.end(), stack.begin())) {
    return std::nullopt;
  }
  return base_parts.size();
}

// True for a root-relative path whose components are all names: no empty component (a leading,
// trailing or doubled '/'), no "." and no "..", so the kernel resolves it component by component
// exactly as it reads. "" (the root) is not one (it is opened as ".").
bool plain_relative(std::string_view path) {
  if (path.empty()) return false;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

// An O_PATH fd on this process's /proc/self/fd directory, opened on first use and kept; -1 when
// it cannot be opened (callers then go by /proc/self/fd/N, which fails as before without /proc).
// A forked child must not use its parent's directory (it would reach the parent's fds): the
// child forgets it (pthread_atfork) and opens its own.
std::atomic<int> g_proc_fd_dir{-1};

void forget_proc_fd_dir() {
  const int fd = g_proc_fd_dir.exchange(-1);
  if (fd >= 0) ::close(fd);
}

int proc_fd_dir() {
  const int known = g_proc_fd_dir.load(std::memory_order_acquire);
  if (known >= 0) return known;
  static const bool registered = [] {
    return ::pthread_atfork(nullptr, nullptr, forget_proc_fd_dir) == 0;
  }();
  if (!registered) return -1;
  const int fd = openat_retry(AT_FDCWD, "/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  int expected = -1;
  if (!g_proc_fd_dir.compare_exchange_strong(expected, fd, std::memory_order_acq_rel)) {
    ::close(fd);  // another thread was first
    return expected;
  }
  return fd;
}

// Opens for reading what `path_fd` (O_PATH, fstat `st`) refers to, without looking a path up
// again: a directory with openat(path_fd, "."), a regular file through its /proc/self/fd magic
// link (which leads to that very inode; only this process's own fd is resolved through it, never
// a model's path). -1 with errno; ENOENT from /proc means /proc is not mounted.
int reopen_for_reading(int path_fd, const struct stat& st) {
  if (S_ISDIR(st.st_mode)) {
    return openat_retry(path_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
  }
  if (detail::g_force_no_proc.load(std::memory_order_relaxed)) {
    errno = ENOENT;
    return -1;
  }
  // Through this process's /proc/<pid>/fd directory, opened once: the lookup is then one name
  // in it, not /proc, the "self" link and "fd" again on every call.
  const int fd_dir = proc_fd_dir();
  if (fd_dir < 0) {
    return openat_retry(AT_FDCWD, proc_link(path_fd).text, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  }
  char name[16];
  std::snprintf(name, sizeof name, "%d", path_fd);
  return openat_retry(fd_dir, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

// Without /proc: opens the symlink-free root-relative `canonical` again, every component
// O_NOFOLLOW, and insists it is still the inode `st` describes (a swap in between is an io_error).
// O_NONBLOCK keeps a FIFO swapped in from blocking; it is cleared on the checked fd. A device
// node swapped in (which takes CAP_MKNOD inside the root) is opened before the check can refuse
// it: the one race /proc closes and this path cannot.
Expected<UniqueFd> reopen_by_path(int root_fd, const std::string& canonical, const struct stat& st,
                                  std::string_view relative, const std::string& root) {
  std::vector<std::string_view> parts;
  split_into(canonical, parts);
  std::vector<std::string> dirs;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) dirs.emplace_back(parts[i]);
  CTX_TRY_ASSIGN(UniqueFd dir, reopen_chain(root_fd, dirs, relative, root));
  const std::string last = parts.empty() ? std::string(".") : std::string(parts.back());
  int fd = openat_retry(dir ? dir.get() : root_fd, last.c_str(), kReopenFlags);
  if (fd < 0) return errno_error(errno, relative, root);
  UniqueFd out(fd);
  struct stat now {};
  if (::fstat(out.get(), &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
    return ToolError{ToolErrorCode::kIoError,
                     fmt::format("'{}' changed while it was being opened", shown(relative)),
                     "retry"};
  }
  int fl = ::fcntl(out.get(), F_GETFL);
  if (fl < 0 || ::fcntl(out.get(), F_SETFL, fl & ~O_NONBLOCK) != 0) {
    return errno_error(errno, relative, root);
  }
  return out;
}

}  // namespace

namespace detail {

bool openat2_available() {
  static const bool available = probe_openat2();
  return available && !force_openat2_fallback();
}

}  // namespace detail

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

std::string_view to_string(EntryKind kind) {
  switch (kind) {
    case EntryKind::kFile:
      return "file";
    case EntryKind::kDirectory:
      return "dir";
    case EntryKind::kSymlink:
      return "symlink";
    case EntryKind::kSpecial:
      return "special";
  }
  return "special";
}

Expected<Sandbox> Sandbox::open(const std::string& root) {
  if (root.find('\0') != std::string::npos) {
    return ToolError{ToolErrorCode::kInvalidArgument, "the project root contains a NUL byte",
                     "pass the root directory's path"};
  }
  if (root.empty()) {
    return ToolError{ToolErrorCode::kInvalidArgument, "the project root is an empty path",
                     "pass the root directory's path, e.g. '.'"};
  }
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) {
      return ToolError{ToolErrorCode::kNotFound,
                       fmt::format("the project root '{}' does not exist", root),
                       "pass an existing directory as the root"};
    }
    if (err == ENOTDIR) {
      return ToolError{ToolErrorCode::kNotADirectory,
                       fmt::format("the project root '{}' is not a directory", root),
                       "pass a directory as the root"};
    }
    return ToolError{ToolErrorCode::kIoError,
                     fmt::format("the project root '{}' cannot be opened: {} (os error {})", root,
                                 std::strerror(err), err),
                     "pass a readable directory as the root"};
  }
  UniqueFd root_fd(fd);
  char* real = ::realpath(root.c_str(), nullptr);
  if (real == nullptr) {
    const int err = errno;
    return ToolError{ToolErrorCode::kIoError,
                     fmt::format("the project root '{}' cannot be resolved: {} (os error {})", root,
                                 std::strerror(err), err),
                     "pass a readable directory as the root"};
  }
  std::string path(real);
  std::free(real);  // NOLINT(cppcoreguidelines-no-malloc): realpath's buffer
  // The directory opened must be the one the path names now (no rename in between).
  struct stat by_fd {};
  struct stat by_path {};
  if (::fstat(root_fd.get(), &by_fd) != 0 || ::stat(path.c_str(), &by_path) != 0 ||
      by_fd.st_dev != by_path.st_dev || by_fd.st_ino != by_path.st_ino) {
    return ToolError{ToolErrorCode::kIoError,
                     fmt::format("the project root '{}' changed while it was being opened", root),
                     "retry"};
  }
  // The spelling the root was given in, for absolute paths a model copies from it.
  std::string alias = lexical_absolute(root).value_or(std::string());
  if (alias == path) alias.clear();
  return Sandbox(std::move(root_fd), std::move(path), std::move(alias));
}

Expected<std::string> Sandbox::normalize(std::string_view typed) const {
  // A name shown escaped (\xHH: a name that is not UTF-8) is opened by the name shown.
  const std::string unescaped = unescape_path(typed);
  const std::string_view user_path = unescaped;
  if (user_path.find('\0') != std::string_view::npos) {
    return ToolError{ToolErrorCode::kInvalidArgument,
                     fmt::format("the path '{}' contains a NUL byte",
                                 shown(user_path.substr(0, user_path.find('\0')))),
                     "pass the path without NUL characters"};
  }
  const bool absolute = !user_path.empty() && user_path[0] == '/';
  // Relative paths are joined to the (symlink-free) root first, so "../proj/x" in /w/proj is "x".
  std::vector<std::string_view> parts;
  if (!absolute) split_into(root_path_, parts);
  split_into(user_path, parts);
  std::vector<std::string_view> stack;
  for (std::string_view part : parts) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!stack.empty()) stack.pop_back();  // "/.." is "/"
      continue;
    }
    stack.push_back(part);
  }
  std::optional<std::size_t> skip = components_under(stack, root_path_);
  // An absolute path may spell the root as it was given (through a symlink to it).
  if (!skip && absolute && !root_alias_.empty()) skip = components_under(stack, root_alias_);
  if (!skip) {
    // What the model may have meant: the path without its leading "../" (or "/") steps.
    std::string_view rest = user_path;
    while (!rest.empty()) {
      if (rest.substr(0, 3) == "../") {
        rest.remove_prefix(3);
      } else if (rest[0] == '/' || rest.substr(0, 2) == "./") {
        rest.remove_prefix(rest[0] == '/' ? 1 : 2);
      } else {
        break;
      }
    }
    std::string_view suggestion = absolute || rest == ".." ? std::string_view() : rest;
    return outside_root_error(user_path, root_path_,
                              absolute ? "an absolute path elsewhere" : "a '..' leads out of it",
                              suggestion);
  }
  std::string out;
  for (std::size_t i = *skip; i < stack.size(); ++i) {
    if (!out.empty()) out += '/';
    out += stack[i];
  }
  return out;
}

Expected<OpenedPath> Sandbox::open_beneath(std::string_view relative, OpenFor purpose) const {
  if (relative.find('\0') != std::string_view::npos) {
    return ToolError{ToolErrorCode::kInvalidArgument,
                     fmt::format("the path '{}' contains a NUL byte",
                                 shown(relative.substr(0, relative.find('\0')))),
                     "pass the path without NUL characters"};
  }
  if (!relative.empty() && relative[0] == '/') {
    return outside_root_error(relative, root_path_,
                              "open_beneath takes root-relative paths; normalize() them first");
  }
  if (relative.size() >= PATH_MAX) return errno_error(ENAMETOOLONG, relative, root_path_);
  const std::string path(relative.empty() ? std::string_view(".") : relative);

  UniqueFd path_fd;                   // O_PATH: looked up, not opened
  std::optional<std::string> walked;  // canonical as the fallback walk found it
  bool use_fallback = !detail::openat2_available();
  bool as_given = false;  // resolved with no symlink and no mount crossed: canonical is `relative`
  if (!use_fallback && plain_relative(relative)) {
    // The usual path: a lookup that refuses every symlink and mount crossing. When it resolves,
    // the path leads exactly where it reads, so the /proc read-back below is not needed; when it
    // does not (ELOOP, EXDEV, a missing path), the lookup below decides.
    long got = openat2_retry(
        root_fd_.get(), path.c_str(), kPathFlags,
        RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV);
    if (got >= 0) {
      path_fd = UniqueFd(static_cast<int>(got));
      as_given = true;
    } else if (errno == ENOSYS) {
      use_fallback = true;
    }
  }
  if (!use_fallback && !as_given) {
    long got = openat2_retry(root_fd_.get(), path.c_str(), kPathFlags,
                             RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
    if (got >= 0) {
      path_fd = UniqueFd(static_cast<int>(got));
    } else if (errno == ENOSYS) {
      use_fallback = true;
    } else if (errno == ELOOP) {
      // A loop, or a magic link RESOLVE_NO_MAGICLINKS refused: the walk tells which.
      const int err = errno;
      auto diagnosis = fallback_open(root_fd_.get(), relative, root_path_);
      if (!diagnosis.ok()) return std::move(diagnosis).error();
      return errno_error(err, relative, root_path_);
    } else {
      return errno_error(errno, relative, root_path_);
    }
  }
  if (use_fallback) {
    CTX_TRY_ASSIGN(Resolved resolved, fallback_open(root_fd_.get(), relative, root_path_));
    path_fd = std::move(resolved.fd);
    walked = std::move(resolved.canonical);
  }

  OpenedPath out{UniqueFd(), std::string(), EntryKind::kSpecial, {}, true};
  if (::fstat(path_fd.get(), &out.st) != 0) return errno_error(errno, relative, root_path_);
  out.kind = kind_of(out.st.st_mode);

  if (as_given) {
    out.canonical = std::string(relative);
  } else if (std::optional<std::string> absolute = fd_path(path_fd.get())) {
    std::string_view abs = *absolute;
    constexpr std::string_view kDeleted = " (deleted)";
    if (out.st.st_nlink == 0 && abs.ends_with(kDeleted)) abs.remove_suffix(kDeleted.size());
    std::optional<std::string> rel = strip_root(abs, root_path_);
    if (!rel) return outside_root_error(relative, root_path_, "it resolved to a path outside");
    out.canonical = std::move(*rel);
  } else if (walked) {
    out.canonical = std::move(*walked);
  } else {
    // No /proc: find where the path leads with the walk, and insist it is the same object.
    CTX_TRY_ASSIGN(Resolved again, fallback_open(root_fd_.get(), relative, root_path_));
    struct stat st {};
    if (::fstat(again.fd.get(), &st) != 0 || st.st_dev != out.st.st_dev ||
        st.st_ino != out.st.st_ino) {
      return ToolError{ToolErrorCode::kIoError,
                       fmt::format("'{}' changed while it was being opened", shown(relative)),
                       "retry"};
    }
    out.canonical = std::move(again.canonical);
  }

  if (out.kind == EntryKind::kSpecial) {
    // A FIFO, socket or device: never opened (no blocking, no side effects of a device open).
    // Callers refuse it by kind; the O_PATH fd serves fstat only.
    out.fd = std::move(path_fd);
    return out;
  }
  out.fd = std::move(path_fd);
  if (out.kind == EntryKind::kFile && purpose == OpenFor::kLookup) {
    out.readable = false;
    return out;
  }
  out.readable = false;
  CTX_TRY(reopen(out, relative));
  return out;
}

ToolStatus Sandbox::reopen(OpenedPath& opened, std::string_view relative) const {
  if (opened.readable) return {};
  int fd = reopen_for_reading(opened.fd.get(), opened.st);
  if (fd >= 0) {
    opened.fd = UniqueFd(fd);
  } else if (errno == ENOENT && opened.kind == EntryKind::kFile) {
    CTX_TRY_ASSIGN(opened.fd, reopen_by_path(root_fd_.get(), opened.canonical, opened.st, relative,
                                             root_path_));
  } else {
    return errno_error(errno, relative, root_path_);
  }
  opened.readable = true;
  return {};
}

}  // namespace ctx::agent
