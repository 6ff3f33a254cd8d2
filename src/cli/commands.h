// cli/commands.h — one Run function per subcommand, callable from tests
// without spawning a process. Each returns an exit code (cli.h).
#pragma once

#include <ostream>
#include <string>

namespace hookinbox::cli {

struct CommonOptions {
  std::string config_path;  // -c/--config; empty = ./hookinbox.toml
  bool json = false;        // --json: machine-readable output
};

// `hookinbox init [DIR]`: writes DIR/hookinbox.toml, a self-signed
// certificate, the demo secret and the data directory.
int RunInit(const std::string& dir, const CommonOptions& common, std::ostream& out, std::ostream& err);

// `hookinbox check-config`: every problem with file, line and key.
int RunCheckConfig(const CommonOptions& common, std::ostream& out, std::ostream& err);

// `hookinbox serve`: serves until SIGTERM/SIGINT; creates the embedded
// default in the current directory when no config exists and none was named.
int RunServe(const CommonOptions& common, std::ostream& out, std::ostream& err);

// "hookinbox 0.1.0 (SQLite 3.40.1, OpenSSL 3.0.19 …)"
std::string VersionLine();

}  // namespace hookinbox::cli
