#include "cli/output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
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
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    return absl::InvalidArgumentError(
        StrCat(path, ": cannot create output: ", std::strerror(errno)));
  }
  absl::Status written = StreamToFd(fd, write);
  if (::fchmod(fd, 0644) != 0 && written.ok()) written = absl::InternalError(std::strerror(errno));
  if (::close(fd) != 0 && written.ok()) written = absl::InternalError(std::strerror(errno));
  if (written.ok() && std::rename(temp.c_str(), path.c_str()) != 0) {
    written = absl::InternalError(std::strerror(errno));
  }
  if (!written.ok()) {
    ::unlink(temp.c_str());
    return absl::InvalidArgumentError(StrCat(path, ": cannot write output: ",
                                                   written.message()));
  }
  return absl::OkStatus();
}

}  // namespace memplan::cli
