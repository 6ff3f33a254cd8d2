// Required keys and the preset listing (cli/preset_info.h).
#include "cli/preset_info.h"

#include "verify/public_key.h"
#include "verify/registry.h"

namespace hookinbox::cli {

std::vector<std::string> RequiredKeys(const config::EndpointConfig& preset) {
  const config::SignatureConfig& s = preset.signature;
  std::vector<std::string> keys;
  // A scheme added later that is neither "none" nor asymmetric is taken to
  // check a secret: listing one too many is a question, one too few a 401.
  if (s.scheme == "none") {
    keys.push_back("insecure = true");
  } else if (verify::AsymmetricKind(s.scheme)) {
    keys.push_back("public_key_file");
  } else {
    keys.push_back("secret_file");
  }
  if (s.signed_payload.find("{url}") != std::string::npos) keys.push_back("public_url");
  if (s.signed_payload.find("{webhook_id}") != std::string::npos) keys.push_back("signature.webhook_id");
  if (s.signed_payload.find("{access_key}") != std::string::npos) keys.push_back("signature.access_key");
  if (preset.handshake == "meta") keys.push_back("verify_token_file");
  return keys;
}

std::vector<PresetInfo> ListPresets() {
  std::vector<PresetInfo> out;
  for (const std::string& name : verify::PresetNames()) {
    const config::EndpointConfig* preset = verify::FindPreset(name);
    if (preset == nullptr) continue;  // cannot happen: every listed name finds its row
    // The table sets each row's provider to its first name; the others are aliases.
    if (preset->provider != name) {
      for (PresetInfo& info : out) {
        if (info.preset == preset) info.aliases.push_back(name);
      }
      continue;
    }
    out.push_back({name, {}, preset, RequiredKeys(*preset), std::string(verify::PresetSecretHint(name))});
  }
  return out;
}

PresetInfo FindPresetInfo(std::string_view name) {
  const config::EndpointConfig* preset = verify::FindPreset(name);
  if (preset == nullptr) return {};
  for (PresetInfo& info : ListPresets()) {
    if (info.preset == preset) return info;
  }
  return {};
}

}  // namespace hookinbox::cli
