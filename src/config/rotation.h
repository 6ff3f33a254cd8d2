// config/rotation.h — rotating an endpoint's secret file: the new secret goes
// into the file the config names, the previous one stays accepted beside it
// until a given time, then stops.
//
// Owns the two files kept beside an endpoint's `secret_file` F:
//   F.previous  the bytes F held before the rotation (mode 0600, F's owner)
//   F.rotation  `previous_until = "2026-12-10T00:00:00Z"`: when F.previous
//               stops being accepted
// Loading (secrets.cpp) reads them with F: the previous secret joins the
// endpoint's secrets carrying that expiry, which verify::Verify enforces per
// request; one already expired when the config is loaded is still read (a
// warning says so) and refused by the verifier.
// Nothing of this is in the database, so the .db an auditor downloads never
// holds a secret; the audit rows (secret_rotated, secret_retired) name the
// time and the file, never the bytes.
//
// The shapes the admin API's hook takes and answers (POST
// /admin/api/endpoints/{name}/secret/rotate and …/secret/retire) are here
// too, so admin/ and cli/ share them; the flow itself (check, write, audit,
// reload) is cli/'s.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/secret.h"
#include "common/status.h"
#include "config/reload.h"

namespace hookinbox::config {

std::string PreviousSecretFile(const std::string& secret_file);  // F + ".previous"
std::string RotationStateFile(const std::string& secret_file);   // F + ".rotation"

// Why `e`'s secret cannot be rotated through its secret_file (what to do
// instead), or "" when it can: a secret scheme (hmac, token, basic), one
// endpoint-wide `secret_file` and no other secret key, no tenants.
std::string NotRotatableReason(const EndpointConfig& e);
// e.secret_file when NotRotatableReason(e) is "", else "".
std::string RotatableSecretFile(const EndpointConfig& e);

struct Rotation {
  int64_t previous_until_ms = 0;  // the previous secret is accepted while now < this
};

// F.rotation of `secret_file` (a resolved path): nullopt when there is none;
// InvalidArgument naming the file when it cannot be read or says something
// else than one previous_until time.
Result<std::optional<Rotation>> ReadRotation(const std::string& secret_file);

// Holds an exclusive lock (flock) on the directory of a secret file while a
// rotation step changes the files beside it, so `hookinbox secrets` on the
// host and the service's admin API never interleave. Released when destroyed.
class SecretDirLock {
 public:
  // `wait` false: Conflict at once when another holds it (the service must
  // not wait for a CLI that is waiting for the service's reload).
  static Result<SecretDirLock> Acquire(const std::string& secret_file, bool wait);
  SecretDirLock(SecretDirLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  SecretDirLock& operator=(SecretDirLock&&) = delete;
  SecretDirLock(const SecretDirLock&) = delete;
  ~SecretDirLock();

 private:
  explicit SecretDirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Rotates: F.previous ← F's bytes, F.rotation ← until, then F ← next_bytes.
// Each file is written to a fresh temporary name (O_EXCL) and renamed, with
// F's mode and — when run as root — its owner, so a crash leaves either the
// old state or one where F.previous equals F (both accepted, harmless).
// Returns the bytes F held (for UndoRotation). InvalidArgument, writing
// nothing, when next_bytes is the secret F holds (final newlines aside);
// Conflict naming the file that could not be read or written, or when F is a
// symbolic link (renaming over it would replace the link, not its target).
Result<Secret> WriteRotation(const std::string& secret_file, std::string_view next_bytes, int64_t until_ms);

// Puts back `previous_bytes` into F and removes F.previous and F.rotation:
// undoes a WriteRotation whose result did not load or was not put in force.
Status UndoRotation(const std::string& secret_file, std::string_view previous_bytes);

// The two files beside F as they are, to put back after a retire that was
// not put in force.
struct SavedRotation {
  Secret previous;    // F.previous's bytes
  std::string state;  // F.rotation's text
};
// Drops the previous secret now: removes F.rotation and F.previous (absent
// files are fine) and returns what they held (nullopt when there was no
// F.rotation). Error names the file that could not be read or removed.
Result<std::optional<SavedRotation>> RemoveRotation(const std::string& secret_file);
// Writes back what RemoveRotation removed.
Status RestoreRotation(const std::string& secret_file, const SavedRotation& saved);

// --- The admin API's hook (cli::App implements it) ---

struct SecretRotateAsk {
  std::string endpoint;
  bool retire = false;            // true: drop the previous secret now (no new secret)
  Secret next;                    // the new secret's bytes as the provider gave them (rotate only)
  int64_t keep_old_until_ms = 0;  // when the previous stops being accepted (rotate only)
  std::string actor;              // "cli:<user>", "admin:<address>"
};

struct SecretRotateAnswer {
  // ok; NotFound (no such endpoint); InvalidArgument (bad secret or time, or
  // the config would not load with it — nothing changed); Conflict (the
  // endpoint's secret cannot be rotated this way: from the environment, a
  // list, public keys, a rotation still in its window, a file the service
  // cannot write). The message says what to do instead.
  Status status;
  bool changed = true;  // false: a retire with no previous secret to retire (ok, nothing written)
  // ok, or — status ok, the change made and recorded — why it is not in
  // force yet (the CLI could not reach the service: its next start uses it).
  Status in_force;
  int64_t previous_until_ms = 0;  // rotate: the window's end; retire: 0
  std::string secret_file;        // F, resolved
  ReloadAnswer reload;            // the reload that put it in force (applied or not)
  bool reloaded = false;          // false: no reload was attempted (status not ok)
};

}  // namespace hookinbox::config
