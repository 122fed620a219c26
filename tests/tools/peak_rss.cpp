// ctx_peak_rss CMD [ARG...]: runs CMD (stdin, stdout and stderr inherited), then writes
// "peak_rss_kib N" as the last line of stderr and exits with CMD's exit code (128+signal when a
// signal ended it; 127 when it could not be run).
//
// Why not measure from the test script: a child forked (or vforked) by a Python process inherits
// the parent's peak RSS, which the kernel carries over exec into the child's ru_maxrss (exec_mmap
// records the old memory map's high-water mark), so every figure below Python's own ~30 MB reads
// as Python's. Forked from this small process, the figure is the command's own.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ctx_peak_rss CMD [ARG...]\n");
    return 2;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("ctx_peak_rss: fork");
    return 127;
  }
  if (pid == 0) {
    ::execvp(argv[1], argv + 1);
    std::perror("ctx_peak_rss: exec");
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0) {
  }
  std::fprintf(stderr, "peak_rss_kib %ld\n", usage.ru_maxrss);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}
