// A secret file's rotation on disk (see rotation.h). The state file is one
// line the operator can read: previous_until = "YYYY-MM-DDTHH:MM:SSZ".
#include "config/rotation.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "common/clock.h"
#include "config/parsed.h"

namespace hookinbox::config {
namespace {

constexpr size_t kMaxStateBytes = 4096;
constexpr size_t kMaxSecretBytes = 64 * 1024;  // as secrets.cpp reads them

// "previous_until = "2026-12-10T00:00:00Z"" (spaces around '=' optional,
// comment lines and blank lines allowed) → ms since the epoch.
std::optional<int64_t> ParseState(const std::string& text) {
  std::optional<int64_t> found;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, used = 0;
    if (found || std::sscanf(line.c_str(), "previous_until = \"%4d-%2d-%2dT%2d:%2d:%2dZ\"%n", &y, &mo, &d, &h, &mi, &s,
                             &used) != 6 ||
        static_cast<size_t>(used) != line.size()) {
      return std::nullopt;
    }
    std::tm tm{};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    const std::time_t t = ::timegm(&tm);
    // timegm normalises 2026-02-31 to March: a date that moved was not a date.
    if (t <= 0 || tm.tm_mon != mo - 1 || tm.tm_mday != d || tm.tm_hour != h || tm.tm_min != mi) return std::nullopt;
    found = static_cast<int64_t>(t) * 1000;
  }
  return found;
}

// Writes `bytes` to `path` through a temporary file renamed over it, with
// `mode` and, when running as root, `owner`/`group` (the service reads the
// secret as its own user). fsync before the rename: a crash leaves the old
// file or the new one, never a torn secret.
Status WriteFileAtomically(const std::string& path, std::string_view bytes, mode_t mode, uid_t owner, gid_t group) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Status(Code::kConflict, "cannot write " + tmp + ": " + std::strerror(errno));
  auto fail = [&](const char* what) {
    Status st(Code::kConflict, std::string("cannot ") + what + " " + tmp + ": " + std::strerror(errno));
    ::close(fd);
    ::unlink(tmp.c_str());
    return st;
  };
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("write");
    done += static_cast<size_t>(n);
  }
  if (::fchmod(fd, mode) != 0) return fail("chmod");
  if (::geteuid() == 0 && ::fchown(fd, owner, group) != 0) return fail("chown");
  if (::fsync(fd) != 0) return fail("sync");
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status st(Code::kConflict, "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
    ::unlink(tmp.c_str());
    return st;
  }
  return Status::Ok();
}

Status RemoveIfPresent(const std::string& path) {
  if (::unlink(path.c_str()) == 0 || errno == ENOENT) return Status::Ok();
  return Status(Code::kConflict, "cannot remove " + path + ": " + std::strerror(errno));
}

}  // namespace

std::string PreviousSecretFile(const std::string& secret_file) { return secret_file + ".previous"; }
std::string RotationStateFile(const std::string& secret_file) { return secret_file + ".rotation"; }

Result<std::optional<Rotation>> ReadRotation(const std::string& secret_file) {
  const std::string state = RotationStateFile(secret_file);
  struct stat st {};
  if (::stat(state.c_str(), &st) != 0 && errno == ENOENT) return std::optional<Rotation>();
  FileContent file = ReadSmallFile(state, kMaxStateBytes);
  if (!file.ok) return InvalidArgument("cannot read the rotation state " + state + ": " + file.error);
  std::optional<int64_t> until = ParseState(file.bytes);
  if (!until) {
    return InvalidArgument("the rotation state " + state +
                           " must hold one line previous_until = \"YYYY-MM-DDTHH:MM:SSZ\" (UTC)");
  }
  return std::optional<Rotation>(Rotation{*until});
}

Result<Secret> WriteRotation(const std::string& secret_file, std::string_view next_bytes, int64_t until_ms) {
  struct stat st {};
  if (::stat(secret_file.c_str(), &st) != 0) {
    return Status(Code::kConflict, "cannot read " + secret_file + ": " + std::strerror(errno));
  }
  FileContent file = ReadSmallFile(secret_file, kMaxSecretBytes);
  if (!file.ok) return Status(Code::kConflict, "cannot read " + secret_file + ": " + file.error);
  Secret current(std::move(file.bytes));  // wiped when the last copy goes
  if (ConstantTimeEqual(WithoutFinalNewline(current.bytes()), WithoutFinalNewline(next_bytes))) {
    return InvalidArgument("the new secret is the one " + secret_file + " already holds");
  }
  // The previous secret keeps F's mode and owner: the service reads both alike.
  const mode_t mode = st.st_mode & 07777;
  Status done = WriteFileAtomically(PreviousSecretFile(secret_file), current.bytes(), mode, st.st_uid, st.st_gid);
  if (!done.ok()) return done;
  const std::string state = "# written by hookinbox secrets rotate: " + PreviousSecretFile(secret_file) +
                            " is accepted until then\nprevious_until = \"" + FormatUtc(until_ms) + "\"\n";
  done = WriteFileAtomically(RotationStateFile(secret_file), state, 0644, st.st_uid, st.st_gid);  // holds no secret
  if (done.ok()) done = WriteFileAtomically(secret_file, next_bytes, mode, st.st_uid, st.st_gid);
  if (!done.ok()) {
    RemoveRotation(secret_file);  // F is unchanged: the previous file alone would only equal it
    return done;
  }
  return current;
}

Status UndoRotation(const std::string& secret_file, std::string_view previous_bytes) {
  struct stat st {};
  if (::stat(secret_file.c_str(), &st) != 0) {
    return Status(Code::kConflict, "cannot read " + secret_file + ": " + std::strerror(errno));
  }
  Status done = WriteFileAtomically(secret_file, previous_bytes, st.st_mode & 07777, st.st_uid, st.st_gid);
  return done.ok() ? RemoveRotation(secret_file) : done;
}

Status RemoveRotation(const std::string& secret_file) {
  // The state first: a previous file without it is never read.
  Status done = RemoveIfPresent(RotationStateFile(secret_file));
  return done.ok() ? RemoveIfPresent(PreviousSecretFile(secret_file)) : done;
}

}  // namespace hookinbox::config
