// cli/load_config.h — load a config and run every check on it, for
// check-config and serve alike: config validation (with lines), the files it
// names, optionally the TLS pairs as a listener would load them
// (http/certificate.h), and what only the verifier can parse (config/ cannot
// call verify/ or http/).
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "config/load.h"

namespace hookinbox::cli {

struct CheckedConfig {
  config::LoadResult loaded;
  std::vector<config::Problem> errors;  // loaded.errors plus file and verifier problems
  bool ok() const { return errors.empty(); }
};

// The process environment as it was when serve started, before the
// variables holding secrets were scrubbed: what a reload reads *_env keys
// from. A running process's environment cannot change from outside, so the
// copy is what getenv would answer — had the start not scrubbed it. Take it
// before any thread starts (getenv and the scrub are not thread-safe).
struct StartEnvironment {
  std::map<std::string, std::string> vars;
  static StartEnvironment Capture();
  const char* Find(const std::string& name) const;  // nullptr when not set
};

// `tls_pairs`: also load each TLS pair a listener would serve (server unless
// plain_http, admin when set) and report a mismatched, expired or not yet
// valid one as an error, one ending within 14 days as a warning. For
// check-config and serve only: other commands never read the private key.
//
// `env`: read the *_env keys from this copy of the environment, and leave
// the process environment alone (serve's reloads; see StartEnvironment).
// Null: read the process environment and scrub the variables read.
CheckedConfig LoadAndCheck(const std::string& path, bool tls_pairs = false, const StartEnvironment* env = nullptr);

// "warning: …" / "error: …" lines, one per problem.
void PrintProblems(const CheckedConfig& checked, const std::string& path, std::ostream& err);

}  // namespace hookinbox::cli
