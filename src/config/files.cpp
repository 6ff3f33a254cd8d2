// Small-file reading for the config file and secret files.
//
// POSIX open/fstat/read rather than iostreams: we need errno for a clear
// message, the mode bits for the permission warning, and a refusal to read
// anything but a regular file (a FIFO or /dev/zero named by mistake would
// otherwise block or never end).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "config/parsed.h"

namespace hookinbox::config {

std::string_view WithoutFinalNewline(std::string_view text) {
  if (text.ends_with("\r\n")) return text.substr(0, text.size() - 2);
  if (text.ends_with('\n')) return text.substr(0, text.size() - 1);
  return text;
}

FileContent ReadSmallFile(const std::string& path, size_t max_bytes) {
  FileContent out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    out.error = std::strerror(errno);
    return out;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    out.error = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    out.error = S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file";
  } else if (static_cast<size_t>(st.st_size) > max_bytes) {
    out.error = "larger than " + std::to_string(max_bytes) + " bytes";
  } else {
    out.mode = st.st_mode & 07777;
    out.bytes.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < out.bytes.size()) {
      ssize_t n = ::read(fd, out.bytes.data() + done, out.bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        out.error = std::strerror(errno);
        break;
      }
      if (n == 0) break;  // the file shrank while we read it
      done += static_cast<size_t>(n);
    }
    out.bytes.resize(done);
    out.ok = out.error.empty();
    if (!out.ok) out.bytes.clear();
  }
  ::close(fd);
  return out;
}

std::string UnreadableReason(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::strerror(errno);
  struct stat st {};
  std::string why;
  if (::fstat(fd, &st) != 0) {
    why = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    why = S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file";
  }
  ::close(fd);
  return why;
}

}  // namespace hookinbox::config
