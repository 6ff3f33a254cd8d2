// A secret file's rotation on disk (see rotation.h). The state file is one
// line the operator can read: previous_until = "YYYY-MM-DDTHH:MM:SSZ".
#include "config/rotation.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "common/clock.h"
#include "config/parsed.h"

namespace hookinbox::config {
namespace {

constexpr size_t kMaxStateBytes = 4096;

// "previous_until = "2026-12-10T00:00:00Z"" (comment lines and blank lines
// allowed) → ms since the epoch.
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
    if (found ||
        std::sscanf(line.c_str(), "previous_until = \"%4d-%2d-%2dT%2d:%2d:%2dZ\"%n", &y, &mo, &d, &h, &mi, &s, &used) !=
            6 ||
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

Status CannotWrite(const std::string& path, int error) {
  std::string message = "cannot write " + path + ": " + std::strerror(error);
  if (error == EACCES || error == EPERM || error == EROFS) {
    message +=
        " — the service's user cannot write there; run `hookinbox secrets rotate` on the host as the "
        "file's owner instead";
  }
  return Status(Code::kConflict, message);
}

// Writes `bytes` to `path` through a fresh temporary file beside it (mkstemp:
// never an existing file, never a link someone planted) renamed over it,
// with `mode` and, when running as root, `owner`/`group` (the service reads
// the secret as its own user). fsync before the rename: a crash leaves the
// old file or the new one, never a torn secret.
Status WriteFileAtomically(const std::string& path, std::string_view bytes, mode_t mode, uid_t owner, gid_t group) {
  std::vector<char> tmp(path.begin(), path.end());
  for (char c : std::string_view(".tmp.XXXXXX")) tmp.push_back(c);
  tmp.push_back('\0');
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return CannotWrite(path, errno);
  const std::string tmp_path = tmp.data();
  auto fail = [&](int error) {
    ::close(fd);
    ::unlink(tmp_path.c_str());
    return CannotWrite(path, error);
  };
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(errno);
    done += static_cast<size_t>(n);
  }
  if (::fchmod(fd, mode) != 0) return fail(errno);
  if (::geteuid() == 0 && ::fchown(fd, owner, group) != 0) return fail(errno);
  if (::fsync(fd) != 0) return fail(errno);
  ::close(fd);
  if (::rename(tmp_path.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp_path.c_str());
    return CannotWrite(path, error);
  }
  return Status::Ok();
}

Status RemoveIfPresent(const std::string& path) {
  if (::unlink(path.c_str()) == 0 || errno == ENOENT) return Status::Ok();
  return Status(Code::kConflict, "cannot remove " + path + ": " + std::strerror(errno));
}

// F's mode and owner, refusing a link: renaming over it would replace the
// link, leaving its target (say a mounted secret) with the old secret.
Result<struct stat> StatSecretFile(const std::string& secret_file) {
  struct stat st {};
  if (::lstat(secret_file.c_str(), &st) != 0) {
    return Status(Code::kConflict, "cannot read " + secret_file + ": " + std::strerror(errno));
  }
  if (S_ISLNK(st.st_mode)) {
    char target[4096] = {};
    ssize_t n = ::readlink(secret_file.c_str(), target, sizeof target - 1);
    return Status(Code::kConflict, secret_file + " is a link" + (n > 0 ? " to " + std::string(target, n) : "") +
                                       ": rotate the file it points at where it comes from, or point secret_file "
                                       "at a regular file");
  }
  return st;
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

std::string PreviousSecretFile(const std::string& secret_file) { return secret_file + ".previous"; }
std::string RotationStateFile(const std::string& secret_file) { return secret_file + ".rotation"; }

std::string NotRotatableReason(const EndpointConfig& e) {
  const std::string& scheme = e.signature.scheme;
  if (scheme != "hmac" && scheme != "token" && scheme != "basic") {
    return "endpoint \"" + e.name + "\" verifies with signature.scheme = \"" + scheme +
           "\", not with a secret: for a provider's public key, list the new key first in public_keys_file and "
           "reload";
  }
  if (!e.tenants.empty()) {
    return "endpoint \"" + e.name +
           "\" has a secret per tenant: list the new file first in that tenant's "
           "secrets_file = [new, old] and reload";
  }
  if (!e.secret_file.empty() && e.other_secret_keys.empty()) return "";
  for (const std::string& key : e.other_secret_keys) {
    if (key.ends_with("_env")) {
      return "endpoint \"" + e.name + "\" reads its secret from the environment (" + key +
             "): a running service cannot see a new value. Move the secret into a file (secret_file) and rotate "
             "that, or list both variables with secrets_env = [\"NEW\", \"OLD\"] and restart";
    }
  }
  return "endpoint \"" + e.name +
         "\" lists its secrets in secrets_file: put the new file first, reload, and remove "
         "the old one later (or use a single secret_file to rotate with this command)";
}

std::string RotatableSecretFile(const EndpointConfig& e) { return NotRotatableReason(e).empty() ? e.secret_file : ""; }

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

Result<SecretDirLock> SecretDirLock::Acquire(const std::string& secret_file, bool wait) {
  const std::string dir = DirectoryOf(secret_file);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status(Code::kConflict, "cannot open " + dir + ": " + std::strerror(errno));
  while (::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    if (errno == EINTR) continue;
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK) {
      return Status(Code::kConflict, "another rotation step in " + dir +
                                         " is in progress (hookinbox secrets on the host?); try again in a moment");
    }
    return Status(Code::kConflict, "cannot lock " + dir + ": " + std::strerror(error));
  }
  return SecretDirLock(fd);
}

SecretDirLock::~SecretDirLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

Result<Secret> WriteRotation(const std::string& secret_file, std::string_view next_bytes, int64_t until_ms) {
  auto st = StatSecretFile(secret_file);
  if (!st.ok()) return st.status();
  FileContent file = ReadSmallFile(secret_file, kMaxSecretBytes);
  if (!file.ok) return Status(Code::kConflict, "cannot read " + secret_file + ": " + file.error);
  Secret current(std::move(file.bytes));  // wiped when the last copy goes
  if (ConstantTimeEqual(WithoutFinalNewline(current.bytes()), WithoutFinalNewline(next_bytes))) {
    return InvalidArgument("the new secret is the one " + secret_file + " already holds");
  }
  // The previous secret keeps F's mode and owner: the service reads both alike.
  const mode_t mode = st->st_mode & 07777;
  Status done = WriteFileAtomically(PreviousSecretFile(secret_file), current.bytes(), mode, st->st_uid, st->st_gid);
  if (!done.ok()) return done;
  const std::string state = "# written by hookinbox secrets rotate: " + PreviousSecretFile(secret_file) +
                            " is accepted until then\nprevious_until = \"" + FormatUtc(until_ms) + "\"\n";
  done = WriteFileAtomically(RotationStateFile(secret_file), state, 0644, st->st_uid, st->st_gid);  // no secret
  if (done.ok()) done = WriteFileAtomically(secret_file, next_bytes, mode, st->st_uid, st->st_gid);
  if (!done.ok()) {
    RemoveRotation(secret_file);  // F is unchanged: the previous file alone would only equal it
    return done;
  }
  return current;
}

Status UndoRotation(const std::string& secret_file, std::string_view previous_bytes) {
  auto st = StatSecretFile(secret_file);
  if (!st.ok()) return st.status();
  Status done = WriteFileAtomically(secret_file, previous_bytes, st->st_mode & 07777, st->st_uid, st->st_gid);
  if (!done.ok()) return done;
  auto removed = RemoveRotation(secret_file);
  return removed.ok() ? Status::Ok() : removed.status();
}

Result<std::optional<SavedRotation>> RemoveRotation(const std::string& secret_file) {
  const std::string state_path = RotationStateFile(secret_file);
  const std::string previous_path = PreviousSecretFile(secret_file);
  std::optional<SavedRotation> saved;
  FileContent state = ReadSmallFile(state_path, kMaxStateBytes);
  if (state.ok) {
    FileContent previous = ReadSmallFile(previous_path, kMaxSecretBytes);
    saved = SavedRotation{Secret(previous.ok ? std::move(previous.bytes) : std::string()), std::move(state.bytes)};
  }
  // The state first: a previous file without it is never read.
  if (Status done = RemoveIfPresent(state_path); !done.ok()) return done;
  if (Status done = RemoveIfPresent(previous_path); !done.ok()) return done;
  return saved;
}

Status RestoreRotation(const std::string& secret_file, const SavedRotation& saved) {
  auto st = StatSecretFile(secret_file);
  if (!st.ok()) return st.status();
  const mode_t mode = st->st_mode & 07777;
  if (!saved.previous.empty()) {
    Status done =
        WriteFileAtomically(PreviousSecretFile(secret_file), saved.previous.bytes(), mode, st->st_uid, st->st_gid);
    if (!done.ok()) return done;
  }
  return WriteFileAtomically(RotationStateFile(secret_file), saved.state, 0644, st->st_uid, st->st_gid);
}

}  // namespace hookinbox::config
