// Helpers shared by the preset tests: load an endpoint through config::LoadString
// with the real preset table, and run Verify at a chosen time.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "common/headers.h"
#include "config/load.h"
#include "verify/registry.h"
#include "verify/verify.h"

namespace hookinbox::verify::test {

inline constexpr const char* kSecretVar = "HOOKINBOX_VT_PRESET_SECRET";

inline const config::PresetLookup& Presets() {
  static const config::PresetLookup lookup{[](std::string_view n) { return FindPreset(n); }, PresetNames(),
                                           [](std::string_view n) { return std::string(RefusedPresetReason(n)); }};
  return lookup;
}

// An endpoint "hooks" with `provider` and the secret (from an env var), plus `extra` TOML lines.
inline config::LoadResult LoadPreset(const std::string& provider, const std::string& secret,
                                     const std::string& extra = "") {
  ::setenv(kSecretVar, secret.c_str(), 1);
  const std::string toml = "[[endpoint]]\nname = \"hooks\"\nprovider = \"" + provider + "\"\nsecret_env = \"" +
                           kSecretVar + "\"\n" + extra;
  return config::LoadString(toml, "test.toml", "/tmp", &Presets());
}

inline std::string Dump(const config::LoadResult& r) {
  std::string out;
  for (const auto& p : r.errors) out += config::Describe(p, "test.toml") + "\n";
  return out;
}

// The endpoint of LoadPreset, which must load.
inline config::EndpointConfig LoadEndpoint(const std::string& provider, const std::string& secret,
                                           const std::string& extra = "") {
  config::LoadResult loaded = LoadPreset(provider, secret, extra);
  INFO(Dump(loaded));
  REQUIRE(loaded.ok());
  return loaded.config.endpoints.at(0);
}

using Headers = std::vector<std::pair<std::string, std::string>>;

// The headers of a delivery of `content_type`, leaving out `without` (to drop the signature).
inline MapHeaders WithType(const std::string& content_type, const Headers& headers, const std::string& without = "") {
  MapHeaders m;
  m.Set("Content-Type", content_type);
  for (const auto& [name, value] : headers) {
    if (name != without) m.Set(name, value);
  }
  return m;
}

// The headers of a JSON delivery, leaving out `without`.
inline MapHeaders ToMap(const Headers& headers, const std::string& without = "") {
  return WithType("application/json", headers, without);
}

inline Status VerifyAt(const config::EndpointConfig& e, const MapHeaders& h, const std::string& body, int64_t now_s) {
  return Verify(e, e.secrets, DeliveryView{"POST", "/hooks/hooks", h, body}, now_s * 1000);
}

}  // namespace hookinbox::verify::test
