#include "cli/output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/strings.h"

namespace memplan::cli {
namespace {

absl::Status WriteAll(int fd, std::string_view contents) {
  while (!contents.empty()) {
    const ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(std::strerror(errno));
    }
    contents.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteOutput(const std::string& path, std::string_view contents) {
  if (path.empty() || path == "-") {
    std::fwrite(contents.data(), 1, contents.size(), stdout);
    std::fflush(stdout);
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
    absl::Status written = WriteAll(fd, contents);
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
  absl::Status written = WriteAll(fd, contents);
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
