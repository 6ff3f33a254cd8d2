// cli/init_provider.h — the endpoint `hookinbox init --provider NAME` writes.
//
// Owns: turning a preset (cli/preset_info.h) into a ready [[endpoint]]: its
// TOML with comments saying where the provider shows the secret and what
// else must be filled in, and the files it names. Writing them is init.cpp's
// job, under init's rule (never overwrite).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace hookinbox::cli {

// A file the endpoint names, relative to the installation directory.
struct ProviderFile {
  std::string path;     // "secrets/stripe.secret"
  std::string content;  // "" for a file the person fills in
  unsigned mode = 0600;
  std::string what;     // for the printed summary: "paste the secret here"
};

struct ProviderEndpoint {
  std::string toml;                 // the [[endpoint]] with its comments, ending in a newline
  std::vector<ProviderFile> files;  // in the order they are to be created
  // What the person still has to do before check-config accepts it, one line each.
  std::vector<std::string> next_steps;
  std::string secret_hint;  // where the provider shows the secret; may be empty
  bool signs_with_secret = false;  // send-test can sign without --private-key
};

// The endpoint for provider `name` (a preset name or an alias, which then
// names the endpoint and its provider). InvalidArgument naming `hookinbox
// presets` for a name hookinbox has no preset for, or the reason for one it
// refuses on purpose ("discord-interactions").
Result<ProviderEndpoint> ProviderEndpointFor(std::string_view name);

// What init prints after writing `endpoint` for `name` into `dir` (absolute):
// the URL, the files to fill in (paths, never values), the steps left, and
// the commands that check and try it.
std::string ProviderTour(const std::string& dir, std::string_view name, const ProviderEndpoint& endpoint);

}  // namespace hookinbox::cli
