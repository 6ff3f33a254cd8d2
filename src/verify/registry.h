// verify/registry.h — provider presets: provider name → a partly filled endpoint.
//
// Owns: the one table of presets (registry.cpp), each a config::EndpointConfig
// with the signature, key, volatile_fields and content_types a provider
// needs, taken from providers.md. The config loader starts an endpoint whose
// `provider` names a preset from a copy of it (config::PresetLookup); the
// file's own keys then override it. Aliases find the same entry. The table is
// built once and never changes, so both functions are thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"

namespace hookinbox::verify {

// The preset named `name` (a name or an alias, exact spelling), or nullptr.
// The pointer stays valid for the life of the program.
const config::EndpointConfig* FindPreset(std::string_view name);

// Why `name` is refused as a provider although hookinbox knows it (e.g.
// "discord-interactions", which needs an answer hookinbox cannot give), for
// config loading to report; empty for every other name. Thread-safe.
std::string_view RefusedPresetReason(std::string_view name);

// Where the provider shows the secret of preset `name` (a name or an alias),
// for `init --provider`; empty when unknown. Thread-safe.
std::string_view PresetSecretHint(std::string_view name);

// Every preset name and alias, in table order ("generic" is not a preset).
std::vector<std::string> PresetNames();

}  // namespace hookinbox::verify
