// config/reload.h — what a reload is asked and what it answers, and which
// differences between two configs it can apply live.
//
// Owns: the comparison of the config in force with a newly loaded one
// (CompareForReload): what changed, in words an operator reads, and which
// keys cannot change in a running process (listen addresses, storage, thread
// counts …) — those keep their old value until a restart, one table
// (reload.cpp) naming them for both the answer and KeepRestartOnly. The reload itself
// (load, check, swap) is cli/app.cpp's; SIGHUP, `hookinbox reload` and
// POST /admin/api/reload all end there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/load.h"

namespace hookinbox::config {

// Who asks for a reload, and what they confirm.
struct ReloadAsk {
  // "signal" (SIGHUP), "admin" (POST /admin/api/reload, which the CLI's
  // `hookinbox reload` calls), "start".
  std::string actor;
  // --accept-key-change ENDPOINT: endpoints whose idempotency-key spec may
  // change although they still hold keys within retention.
  std::vector<std::string> accept_key_change;
};

struct ReloadAnswer {
  bool applied = false;  // false: nothing changed, the old config keeps serving
  std::string config_path;
  // Why it was refused: each problem with its key and line (as check-config),
  // or one problem with an empty key for what is not about a key.
  std::vector<Problem> errors;
  std::vector<Problem> warnings;
  std::vector<std::string> changed;        // "endpoint \"orders\" added", …; empty = the file is as loaded
  std::vector<std::string> needs_restart;  // keys whose new value waits for a restart ("server.listen")
  uint64_t generation = 0;                 // the config in force after the answer
};

struct ConfigChanges {
  std::vector<std::string> changed;        // what a reload applies, one line each
  std::vector<std::string> needs_restart;  // keys that differ but apply only at the next start
};

// What differs between the config in force and `next`. Endpoints are matched
// by name; secrets are compared, never shown ("secret changed").
// `redacted`: log field names (log.redact) whose values the lines write as
// "[redacted]" — "endpoint", "tenant" and "channel" (alert channel) name what
// the lines carry, other names change nothing. The answer passes none; the
// config_reloaded log line passes log.redact, as every other line obeys it.
ConfigChanges CompareForReload(const Config& current, const Config& next,
                               const std::vector<std::string>& redacted = {});

// Puts every setting that applies only at start back to its value in
// `at_start`: the ones CompareForReload(at_start, next) names in
// needs_restart, from the same table, so that nothing reads a new value
// before the restart that applies it (an endpoint's default concurrency
// follows worker.threads). The settings of those sections that apply live
// (server.max_body_bytes, the admin and metrics tokens, the worker's retry
// settings and shutdown grace) keep next's. A body limit above the largest at
// start is not put back: it applies up to that largest, the listener's
// backstop, and a later reload of the same file finds nothing changed.
void KeepRestartOnly(Config& next, const Config& at_start);

// The restart-only keys of that table ("server.listen", …), in the order
// needs_restart lists them. A section's own name ("server") stands for a
// member no key names yet.
std::vector<std::string> RestartOnlyKeys();

}  // namespace hookinbox::config
