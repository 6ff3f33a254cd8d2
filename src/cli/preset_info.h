// cli/preset_info.h — what a person must add to use a preset, for `presets`
// and `init --provider`.
//
// Owns: the derivation of a preset's required keys from its fields (one
// function, so the listing and the config init writes cannot disagree) and
// the listing of the table with each preset's aliases. Generic over the
// table (verify/registry.h): a row added in any presets_*.cpp shows up here
// without further code.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"

namespace hookinbox::cli {

// The keys an endpoint using `preset` must set before it loads and verifies,
// in this order, each as written in the endpoint's TOML:
//   "secret_file"           the scheme checks a shared secret (every scheme
//                           but "none" and the asymmetric ones);
//   "public_key_file"       an asymmetric scheme (the provider's public key);
//   "insecure = true"       scheme "none": the explicit opt-in;
//   "public_url"            signed_payload signs {url};
//   "signature.webhook_id"  signed_payload signs {webhook_id} (PayPal);
//   "verify_token_file"     the Meta GET subscription handshake.
// "secret_file" and "public_key_file" stand for their families (secret_env,
// secrets_file, public_key_env …): any of them will do.
std::vector<std::string> RequiredKeys(const config::EndpointConfig& preset);

struct PresetInfo {
  std::string name;                  // the preset's own name (the endpoint's `provider`)
  std::vector<std::string> aliases;  // other names that find the same preset
  const config::EndpointConfig* preset = nullptr;  // the table's row; valid for the program's life
  std::vector<std::string> required;  // RequiredKeys(*preset)
  std::string secret_hint;            // where the provider shows the secret; may be empty
};

// Every preset in table order, aliases folded into their preset.
std::vector<PresetInfo> ListPresets();

// The entry `name` (a name or an alias) belongs to; one with a null `preset`
// when hookinbox has no preset of that name.
PresetInfo FindPresetInfo(std::string_view name);

}  // namespace hookinbox::cli
