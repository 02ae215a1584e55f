#include "cli/output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/strings.h"
#include "llvm/Support/raw_ostream.h"

namespace memplan::cli {
namespace {

// Streams `write` to `fd` (left open) through a buffer; the first write
// error, if any.
absl::Status StreamToFd(int fd, const std::function<void(llvm::raw_ostream&)>& write) {
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/false);
  os.SetBufferSize(1 << 16);
  write(os);
  os.flush();
  if (os.has_error()) {
    const std::error_code error = os.error();
    os.clear_error();  // else the stream aborts when destroyed
    return absl::InternalError(std::strerror(error.value()));
  }
  return absl::OkStatus();
}

// The temporary file being written, for the signal handler below to remove.
// Set and cleared with the signals blocked; read only by the handler.
char g_temp_path[PATH_MAX];
volatile sig_atomic_t g_temp_pending = 0;

constexpr int kCleanupSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE};

// Removes the temporary file, then dies of the same signal as before.
extern "C" void RemoveTempAndDie(int signal_number) {
  if (g_temp_pending) ::unlink(g_temp_path);
  g_temp_pending = 0;
  std::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

// Installs RemoveTempAndDie once for each signal that is not ignored.
void InstallCleanupHandlers() {
  static const bool installed = [] {
    for (const int signal_number : kCleanupSignals) {
      struct sigaction previous;
      if (::sigaction(signal_number, nullptr, &previous) != 0) continue;
      if (previous.sa_handler == SIG_IGN) continue;  // e.g. nohup's SIGHUP
      struct sigaction action = {};
      action.sa_handler = RemoveTempAndDie;
      sigemptyset(&action.sa_mask);
      ::sigaction(signal_number, &action, nullptr);
    }
    return true;
  }();
  (void)installed;
}

// Blocks the cleanup signals while alive, so that the handler never sees a
// half-registered temporary file.
class BlockCleanupSignals {
 public:
  BlockCleanupSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (const int signal_number : kCleanupSignals) sigaddset(&set, signal_number);
    ::sigprocmask(SIG_BLOCK, &set, &previous_);
  }
  ~BlockCleanupSignals() { ::sigprocmask(SIG_SETMASK, &previous_, nullptr); }

 private:
  sigset_t previous_;
};

}  // namespace

absl::Status WriteOutput(const std::string& path, std::string_view contents) {
  return WriteOutputWith(path, [&](llvm::raw_ostream& os) { os << contents; });
}

absl::Status WriteOutputWith(const std::string& path,
                             const std::function<void(llvm::raw_ostream&)>& write) {
  if (path.empty() || path == "-") {
    std::fflush(stdout);
    // As before, a failed write to stdout is not reported.
    StreamToFd(STDOUT_FILENO, write).IgnoreError();
    return absl::OkStatus();
  }
  // A device or pipe (/dev/null, /dev/stdout, a FIFO) is written in place:
  // renaming over it would replace the node itself.
  struct stat existing;
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    const int fd = ::open(path.c_str(), O_WRONLY);
    if (fd < 0) {
      return absl::InvalidArgumentError(
          StrCat(path, ": cannot open output: ", std::strerror(errno)));
    }
    absl::Status written = StreamToFd(fd, write);
    ::close(fd);
    if (!written.ok()) {
      return absl::InvalidArgumentError(StrCat(path, ": cannot write output: ", written.message()));
    }
    return absl::OkStatus();
  }
  std::string temp = path + ".tmp.XXXXXX";
  if (temp.size() >= sizeof(g_temp_path)) {
    return absl::InvalidArgumentError(StrCat(path, ": cannot create output: path too long"));
  }
  InstallCleanupHandlers();
  int fd = -1;
  {
    BlockCleanupSignals blocked;
    fd = ::mkstemp(temp.data());
    if (fd >= 0) {
      std::memcpy(g_temp_path, temp.c_str(), temp.size() + 1);
      g_temp_pending = 1;
    }
  }
  if (fd < 0) {
    return absl::InvalidArgumentError(
        StrCat(path, ": cannot create output: ", std::strerror(errno)));
  }
  absl::Status written = StreamToFd(fd, write);
  if (::fchmod(fd, 0644) != 0 && written.ok()) written = absl::InternalError(std::strerror(errno));
  if (::close(fd) != 0 && written.ok()) written = absl::InternalError(std::strerror(errno));
  {
    BlockCleanupSignals blocked;
    if (written.ok() && std::rename(temp.c_str(), path.c_str()) != 0) {
      written = absl::InternalError(std::strerror(errno));
    }
    if (!written.ok()) ::unlink(temp.c_str());
    g_temp_pending = 0;
  }
  if (!written.ok()) {
    return absl::InvalidArgumentError(StrCat(path, ": cannot write output: ",
                                                   written.message()));
  }
  return absl::OkStatus();
}

}  // namespace memplan::cli
