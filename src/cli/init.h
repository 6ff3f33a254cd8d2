// cli/init.h — the embedded default installation, shared by `init` and `serve`.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "common/status.h"

namespace hookinbox::cli {

// Creates, inside `dir`: hookinbox.toml (the embedded default), tls/cert.pem
// and tls/key.pem (self-signed P-256), secrets/demo.secret (random, 0600)
// and data/hookinbox.db with its schema. Directories it creates are 0700;
// existing ones keep their mode. Files that already exist are kept, never
// overwritten, except that an existing hookinbox.toml makes the whole call
// fail (the directory is someone's installation), and a lone certificate or
// key without its partner is an error.
// With `provider` (init --provider, cli/init_provider.h), its endpoint replaces
// the demo endpoint and its files are created instead of demo.secret.
struct ProviderEndpoint;
Status Initialize(const std::string& dir, const ProviderEndpoint* provider = nullptr);

// `init -c FILE` (init_config.cpp): creates the state the config at
// `config_path` names that does not exist yet, and nothing else: missing
// parent directories (0700), a self-signed TLS pair when neither
// server.tls_cert nor server.tls_key exists (not under plain_http), each
// missing admin.token_file and endpoint or tenant secret_file (random, 0600),
// and the database with its schema when its file is absent. It never opens
// an existing database (an older service may still have it open; migrating
// is the new binary's job at start), never writes the config file, and
// leaves *_env secrets, secrets_file lists, public keys and forward secrets
// to the admin. The config is loaded without reading secrets; an invalid
// one, or one half of the TLS pair without the other, is an error before
// anything is created. Prints one line per created path to `out` (paths,
// never values), or "nothing to do", and the config's warnings to `err`.
// Idempotent: a second run creates nothing.
Status InitializeFromConfig(const std::string& config_path, std::ostream& out, std::ostream& err);

// Creates `path` with `content` and `mode` (O_EXCL: fails when anything,
// even a dangling symlink, is there; never follows one) and fsyncs it.
Status WriteNewFile(const std::string& path, std::string_view content, unsigned mode);

// What a person needs to send the first webhook: the URL, where the secret
// is, and a copy-paste curl command producing an accepted delivery.
// `dir` is the absolute installation directory, `base_url` like https://127.0.0.1:8443.
std::string Tour(const std::string& dir, const std::string& base_url);

}  // namespace hookinbox::cli
