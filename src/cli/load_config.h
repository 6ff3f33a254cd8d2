// cli/load_config.h — load a config and run every check on it, for
// check-config and serve alike: config validation (with lines), the files it
// names, optionally the TLS pairs as a listener would load them
// (http/certificate.h), and what only the verifier can parse (config/ cannot
// call verify/ or http/).
#pragma once

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

// `tls_pairs`: also load each TLS pair a listener would serve (server unless
// plain_http, admin when set) and report a mismatched, expired or not yet
// valid one as an error, one ending within 14 days as a warning. For
// check-config and serve only: other commands never read the private key.
CheckedConfig LoadAndCheck(const std::string& path, bool tls_pairs = false);

// "warning: …" / "error: …" lines, one per problem.
void PrintProblems(const CheckedConfig& checked, const std::string& path, std::ostream& err);

}  // namespace hookinbox::cli
