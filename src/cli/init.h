// cli/init.h — the embedded default installation, shared by `init` and `serve`.
#pragma once

#include <string>

#include "common/status.h"

namespace hookinbox::cli {

// Creates, inside `dir`: hookinbox.toml (the embedded default), tls/cert.pem
// and tls/key.pem (self-signed P-256), secrets/demo.secret (random, 0600)
// and data/hookinbox.db with its schema. Directories it creates are 0700;
// existing ones keep their mode. Files that already exist are kept, never
// overwritten, except that an existing hookinbox.toml makes the whole call
// fail (the directory is someone's installation), and a lone certificate or
// key without its partner is an error.
Status Initialize(const std::string& dir);

// What a person needs to send the first webhook: the URL, where the secret
// is, and a copy-paste curl command producing an accepted delivery.
// `dir` is the absolute installation directory, `base_url` like https://127.0.0.1:8443.
std::string Tour(const std::string& dir, const std::string& base_url);

}  // namespace hookinbox::cli
