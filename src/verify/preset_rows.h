// verify/preset_rows.h — what a file of preset rows needs (internal to verify/).
//
// Owns: the row type of the preset table and the builders rows share. The
// table itself is verify/registry.cpp (the first wave's rows, plus one call
// per file of later rows: presets_*.cpp), so that each group of providers is
// a file a person can read on its own. Nothing outside verify/ includes this.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"

namespace hookinbox::verify::presets {

struct Preset {
  std::vector<std::string> names;  // the first is the name, the rest are aliases
  config::EndpointConfig endpoint;
  // Where the provider shows or takes the secret, for `init --provider`'s
  // comment (e.g. "Dashboard → Developers → Webhooks → Signing secret").
  std::string secret_hint;
};

// An endpoint with a signature and key spec; content_types stays
// {"application/json"} (set other types with WithTypes).
config::EndpointConfig Endpoint(config::SignatureConfig signature, config::KeyConfig key,
                                std::vector<std::string> volatile_fields = {});

config::EndpointConfig WithTypes(config::EndpointConfig e, std::vector<std::string> content_types);

// Standard Webhooks and Svix differ only in the header prefix ("webhook-" / "svix-").
config::EndpointConfig StandardWebhooks(const std::string& prefix);

// Wave 2 groups: one file of rows each (presets_<group>.cpp), called from registry.cpp's BuildTable.
void AddShopsPaymentsPresets(std::vector<Preset>& t);
void AddDevtoolsPresets(std::vector<Preset>& t);
void AddFormsCrmPresets(std::vector<Preset>& t);
void AddMessagingPresets(std::vector<Preset>& t);
void AddVnUaPresets(std::vector<Preset>& t);
void AddUaPresets(std::vector<Preset>& t);

}  // namespace hookinbox::verify::presets
