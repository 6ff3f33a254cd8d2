// cli/open_command.h — the opening every verb that works from the config
// shares: find the config file, load and check it, report what is wrong, and
// open the store it names.
//
// Verbs differ in how much of the config must be sound and in whether they
// need the store; they say so in OpenOptions instead of repeating the steps.
// Two verbs load the config their own way: check-config, which reports every
// problem rather than refusing, and init, which creates what the config names.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "cli/commands.h"
#include "config/config.h"
#include "store/sql_store.h"

namespace hookinbox::cli {

// How much of the config must be sound before a verb runs (cli/load_config.h
// runs the checks).
enum class ConfigCheck {
  // The file loads and validates: enough to find the database. The verbs that
  // only read or write stored events use this, so they still work when, say,
  // the TLS key is readable only by the server's user.
  kParsed,
  // Also the files it names are usable (TLS pair, exec command, ca_file) and
  // every endpoint's signature settings parse: what a verb acting like the
  // server or its downstream needs.
  kComplete,
  // Also each TLS pair loads as a listener would load it: what serve needs.
  kServable,
};

struct OpenOptions {
  // The verb as typed ("events"); refusals read "hookinbox events: …".
  std::string verb;
  ConfigCheck check = ConfigCheck::kParsed;
  // Also open (and migrate) the configured store (OpenedCommand::OpenStore).
  bool open_store = false;
  // End a refusal with "hookinbox <verb>: cannot use FILE (see `hookinbox
  // check-config`)". send-test lists the problems only.
  bool point_to_check_config = true;
  // serve: report as JSON log lines (a server's stderr is its log, and a log
  // shipper should never meet a plain-text line), warnings also when the
  // config is sound. Otherwise problems are printed only when the verb refuses.
  bool report_to_log = false;
};

struct OpenedCommand {
  std::string verb;
  std::string config_path;  // -c FILE, or ./hookinbox.toml
  config::Config config;
  std::unique_ptr<store::SqlStore> store;  // null until opened

  // Opens (and migrates) the configured store into `store` (cli/open_store.h).
  // False, with "hookinbox <verb>: <why>" on `err`, when it cannot. For verbs
  // that check their arguments against the config first (reconcile), or need
  // the store only on one backend (backup).
  bool OpenStore(std::ostream& err);
};

// The config file a verb reads without -c (in the current directory).
inline constexpr const char* kDefaultConfigPath = "hookinbox.toml";

// The config file a verb reads: -c FILE, or kDefaultConfigPath.
std::string ConfigPath(const CommonOptions& common);

// Loads and checks the config as `options` asks and opens the store when
// asked. Returns nullopt when the verb cannot run, after saying why on `err`
// (or in the log); the verb then exits kExitFailure (check-downstream exits
// kExitUsage, as it always has).
std::optional<OpenedCommand> OpenForCommand(const CommonOptions& common, const OpenOptions& options,
                                            std::ostream& err);

}  // namespace hookinbox::cli
