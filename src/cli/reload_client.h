// cli/reload_client.h — asking the running service to reload (POST
// /admin/api/reload on the admin listener the config names, with its admin
// token) and printing its answer: `hookinbox reload`, and `hookinbox secrets`
// after it changed a secret file.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "config/config.h"

namespace hookinbox::cli {

struct ReloadReply {
  int status = 0;        // the HTTP status; 0 = no answer
  std::string body;      // the answer's body
  std::string error;     // no answer: why, with what to check (the config's own gaps included)
  std::string base_url;  // where it asked ("https://127.0.0.1:8081"); "" when it could not
};

// Asks the service `cfg` (loaded from `config_path`) names to reload,
// confirming `accept_key_change`. Never prints; the token goes in the
// Authorization header and nowhere else.
ReloadReply AskServiceToReload(const config::Config& cfg, const std::string& config_path,
                               const std::vector<std::string>& accept_key_change);

// Prints `reply` as `hookinbox reload` does (--json: the service's answer as
// is); returns the exit code: 0 applied, 1 refused or no answer. `verb`
// starts the error lines ("hookinbox reload").
int PrintReloadReply(const ReloadReply& reply, const std::string& config_path, bool json, const std::string& verb,
                     std::ostream& out, std::ostream& err);

}  // namespace hookinbox::cli
