// tests/fuzz/support/endpoints.h — the endpoints fuzz_verify and fuzz_receive
// drive: tests/fuzz/endpoints.toml (generic shapes: templates, lists, token,
// Basic, tenants, business key, ordering), loaded through config::LoadString
// exactly as serve loads a file, plus one endpoint per provider preset
// (verify::PresetNames(), "p-<preset>"), so every signing scheme the
// verifier knows is reached. Secrets come from environment variables set
// here; the asymmetric presets get key pairs made at start (support/keys.h).
// Built once per process (LLVMFuzzerInitialize); read-only afterwards.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "config/load.h"
#include "support/keys.h"
#include "verify/form.h"
#include "verify/public_key.h"
#include "verify/sign.h"
#include "verify/registry.h"
#include "verify/verify.h"

namespace hookinbox::fuzz {

// Long and distinctive, so a leak into an answer or a message is unmistakable.
inline constexpr const char* kFuzzSecret = "fuzz-secret-3f9a1c7e5b2d4086";
inline constexpr const char* kFuzzWhsec = "whsec_ZnV6ei1zZWNyZXQtM2Y5YTFjN2U1YjJk";
inline constexpr const char* kFuzzBasic = "fuzzuser:fuzz-password-7c1e";
inline constexpr int64_t kNow = 1767225600000;  // 2026-01-01T00:00:00Z: fixed, so runs repeat

struct FuzzEndpoints {
  config::Config config;
  // What SignDelivery signs with, per endpoint name: the first secret, or the
  // PEM private key for an asymmetric endpoint.
  std::map<std::string, Secret> signing;
  std::set<std::string> secrets;  // every configured secret, to look for in answers
};

inline FuzzEndpoints LoadFuzzEndpoints() {
  ::setenv("FUZZ_SECRET", kFuzzSecret, 1);
  ::setenv("FUZZ_WHSEC", kFuzzWhsec, 1);
  ::setenv("FUZZ_BASIC", kFuzzBasic, 1);
  static const config::PresetLookup presets{
      [](std::string_view name) { return verify::FindPreset(name); }, verify::PresetNames(),
      [](std::string_view name) { return std::string(verify::RefusedPresetReason(name)); }};
  std::ifstream in(std::string(HOOKINBOX_FUZZ_DIR) + "/endpoints.toml", std::ios::binary);
  const std::string toml{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  config::LoadResult loaded = config::LoadString(toml, "endpoints.toml", HOOKINBOX_FUZZ_DIR, &presets);
  if (!loaded.ok()) {
    for (const auto& p : loaded.errors) std::fprintf(stderr, "%s\n", config::Describe(p, "endpoints.toml").c_str());
    std::abort();  // the harness's own config must load
  }
  FuzzEndpoints out;
  out.config = std::move(loaded.config);

  std::map<verify::KeyKind, KeyPair> pairs;
  std::set<const config::EndpointConfig*> seen;
  for (const std::string& name : verify::PresetNames()) {
    const config::EndpointConfig* preset = verify::FindPreset(name);
    if (preset == nullptr || !seen.insert(preset).second) continue;  // aliases share one preset
    config::EndpointConfig e = *preset;
    e.name = "p-" + name;
    e.provider = name;
    e.public_url = "https://hooks.example.com/hooks/" + e.name;
    e.insecure = e.signature.scheme == "none";  // as the config loader demands for Jotform
    if (auto kind = verify::AsymmetricKind(e.signature.scheme)) {
      if (pairs.count(*kind) == 0) pairs[*kind] = MakeKeyPair(*kind);
      e.public_keys = {pairs[*kind].public_text};
      out.signing.emplace(e.name, Secret(pairs[*kind].private_pem));
    } else {
      // Basic credentials are "user:password", as config validation demands.
      e.secrets = {Secret(e.signature.scheme == "basic" ? kFuzzBasic : kFuzzSecret)};
    }
    out.config.endpoints.push_back(std::move(e));
  }
  for (const auto& e : out.config.endpoints) {
    if (Status st = verify::CheckEndpoint(e); !st.ok()) {
      std::fprintf(stderr, "fuzz endpoints: %s: %s\n", e.name.c_str(), st.ToString().c_str());
      std::abort();
    }
    for (const auto& s : e.secrets) out.secrets.emplace(s.bytes());
    for (const auto& t : e.tenants) {
      for (const auto& s : t.secrets) out.secrets.emplace(s.bytes());
    }
    if (out.signing.count(e.name) == 0) {
      if (!e.secrets.empty()) out.signing.emplace(e.name, e.secrets.front());
      else if (!e.tenants.empty() && !e.tenants.front().secrets.empty()) out.signing.emplace(e.name, e.tenants.front().secrets.front());
    }
  }
  return out;
}

// send-test's sample body for `e`: form fields for the form kinds, else JSON.
inline std::string SampleFor(const config::EndpointConfig& e) {
  if (verify::IsFormBodyKind(e.signature.body_kind)) return verify::SampleFormBody(e, verify::kTestEventType, "fuzz-1");
  return verify::SampleBody(e, verify::kTestEventType, kNow);
}

// The endpoint an input's first word names, or (so every input reaches some
// scheme) the one its bytes hash to.
inline const config::EndpointConfig& PickEndpoint(const config::Config& c, std::string_view name) {
  if (const config::EndpointConfig* e = c.FindEndpoint(name)) return *e;
  size_t h = 0;
  for (char ch : name) h = h * 31 + static_cast<unsigned char>(ch);
  return c.endpoints[h % c.endpoints.size()];
}

}  // namespace hookinbox::fuzz
