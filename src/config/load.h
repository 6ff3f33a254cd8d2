// config/load.h — TOML text → a validated Config with its secrets resolved.
//
// Owns: parsing (toml++ is used nowhere else), the table of known keys,
// cross-field validation and secret resolution (secret_env / secret_file /
// secrets_env / secrets_file). Loading has no side effects: it sets up no
// logging and reads no file except the config and the secrets it names.
// Every problem is reported, not just the first, each with its key path and
// line so `check-config` can point at it.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"

namespace hookinbox::config {

struct Problem {
  std::string key;      // full key path, e.g. "endpoint[0].signature.algorithm" ("" for the file itself)
  int line = 0;         // 1-based line in the file, 0 when unknown
  std::string message;  // what is wrong and what is allowed; never a secret value
};

// A file named by admin.token_file or a secret_file key: what `init -c` may
// create when it is missing.
struct SecretFile {
  std::string key;       // "admin.token_file", "endpoint[0].secret_file", "endpoint[1].tenants[0].secret_file"
  std::string path;      // resolved against the config file's directory
  std::string provider;  // the endpoint's provider; "" for admin.token_file
};

struct LoadResult {
  Config config;                  // meaningful only when errors is empty
  std::vector<Problem> errors;    // any error means the config must not be used
  std::vector<Problem> warnings;  // usable, but something deserves attention
  // Every admin.token_file, endpoint secret_file and tenant secret_file, in
  // file order, whether or not secrets were read. Not the secrets_file lists,
  // public keys, verify tokens or forward secrets: the admin supplies those.
  std::vector<SecretFile> secret_files;
  bool ok() const { return errors.empty(); }
};

struct LoadOptions {
  // true (default): read every secret the config names (secret_env,
  // secret_file, public keys, tokens, …) into the Config, and report each
  // that cannot be read. false: check only how each is written (one of env
  // and file, a valid variable name, at least one source where one is
  // required) and read none; no secret or public key in the Config is filled
  // then, so such a Config must never serve. For `init -c`, which creates
  // the secret files the config names and so runs before they exist.
  bool read_secrets = true;
  // Where the *_env keys are read: null = the process environment (getenv).
  // A reload of `serve` reads the copy taken at start instead: the start
  // scrubbed the variables it read (common/process_secrets.h), and the
  // environment must not be touched while threads run. Answers nullptr for
  // a variable that is not set.
  std::function<const char*(const std::string& name)> env;
  // Now, for the warning about a secret file's previous secret whose window
  // has ended (config/rotation.h); 0 = no such warning. The window itself is
  // enforced per request (verify::Verify), whatever this says.
  int64_t now_ms = 0;
};

// Provider presets (SPEC §9), supplied from above: config/ sits below verify/,
// which owns the table, so the loader takes a lookup instead of including it.
// A preset is a partly filled EndpointConfig (signature, key, volatile_fields,
// content_types) that becomes the starting value of an endpoint whose
// `provider` names it; the keys written in the file then override it.
struct PresetLookup {
  // The preset named `provider` (an alias finds the same entry), or nullptr.
  std::function<const EndpointConfig*(std::string_view provider)> find;
  // Every name `find` knows, aliases included, for the "supported:" list of an
  // unknown provider. "generic" is always accepted and is not listed here.
  std::vector<std::string> names;
  // Why a provider name that `find` does not know is refused on purpose
  // ("discord-interactions"), reported instead of "unknown provider"; empty or
  // unset: no such names.
  std::function<std::string(std::string_view provider)> refused = nullptr;
};

// Reads and loads `path`. Relative paths inside resolve against its directory.
// `presets` null: only provider = "generic" is accepted.
LoadResult LoadFile(const std::string& path, const PresetLookup* presets = nullptr, const LoadOptions& options = {});

// Loads TOML text; `source_name` is used in messages, `base_dir` resolves relative paths.
LoadResult LoadString(std::string_view toml, const std::string& source_name, const std::string& base_dir,
                      const PresetLookup* presets = nullptr, const LoadOptions& options = {});

// Problems with files a loaded config names but loading does not read: the
// TLS certificate and key (unless plain_http) must be readable regular files.
// Kept apart from loading because `init` and `serve` create them after a
// load; check-config and serve call it before use. Lines are 0 (a Config
// does not remember them); keys are the config keys ("server.tls_cert").
std::vector<Problem> CheckFiles(const Config& config);

// Warnings for endpoints (and tenants) whose rotation_ends date is before
// `now_ms` while two or more secrets are still active. Pure: the caller
// passes the time, loading itself never reads the clock.
std::vector<Problem> CheckRotation(const Config& config, int64_t now_ms);

// "hookinbox.toml:12: endpoint[0].signature.algorithm: must be one of sha1, sha256, sha512"
std::string Describe(const Problem& p, const std::string& source_name);

}  // namespace hookinbox::config
