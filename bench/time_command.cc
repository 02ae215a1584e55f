// Runs a command once and prints what it cost, for bench/run_scale.sh:
//
//   time_command [--stdout=FILE] -- PROGRAM [ARGS...]
//
// prints one line "wall_ms cpu_ms max_rss_kb exit_status": wall time from
// fork to reaping (CLOCK_MONOTONIC), user + system CPU time and the peak
// resident set of the child (wait4's rusage), and its exit status (128 + the
// signal when it was killed). The child's standard output goes to FILE
// (default /dev/null); its standard error is inherited. Unlike a shell's
// `date` around the command, nothing but fork, exec and wait is timed, so
// milliseconds on a 1 MB file are not lost in the measuring.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>

namespace {

double NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double Ms(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) * 1e3 + static_cast<double>(tv.tv_usec) / 1e3;
}

int Usage() {
  std::fprintf(stderr, "usage: time_command [--stdout=FILE] -- PROGRAM [ARGS...]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "/dev/null";
  int first = 1;
  for (; first < argc; ++first) {
    const std::string arg = argv[first];
    if (arg == "--") {
      ++first;
      break;
    }
    if (arg.rfind("--stdout=", 0) == 0) {
      out = arg.substr(9);
    } else {
      return Usage();
    }
  }
  if (first >= argc) return Usage();
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "time_command: %s: %s\n", out.c_str(), std::strerror(errno));
    return 2;
  }
  const double start = NowMs();
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::fprintf(stderr, "time_command: fork: %s\n", std::strerror(errno));
    return 2;
  }
  if (pid == 0) {
    ::dup2(fd, STDOUT_FILENO);
    ::close(fd);
    ::execvp(argv[first], argv + first);
    std::fprintf(stderr, "time_command: %s: %s\n", argv[first], std::strerror(errno));
    ::_exit(127);
  }
  ::close(fd);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) {
      std::fprintf(stderr, "time_command: wait4: %s\n", std::strerror(errno));
      return 2;
    }
  }
  const double wall = NowMs() - start;
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::printf("%.3f %.3f %ld %d\n", wall, Ms(usage.ru_utime) + Ms(usage.ru_stime),
              usage.ru_maxrss, code);
  return 0;
}
