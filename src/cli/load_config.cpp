#include "cli/load_config.h"

#include <unistd.h>

#include <string_view>

#include "common/clock.h"
#include "common/process_secrets.h"
#include "http/certificate.h"
#include "verify/key_spec.h"
#include "verify/registry.h"
#include "verify/verify.h"

namespace hookinbox::cli {
namespace {

bool HasProblem(const std::vector<config::Problem>& problems, const std::string& key) {
  for (const auto& p : problems) {
    if (p.key == key) return true;
  }
  return false;
}

// "server.tls_key /k.pem does not match …" → key "server.tls_key", message
// "/k.pem does not match …": the config key goes where Describe puts keys.
config::Problem CertificateProblem(const std::string& section, const std::string& message) {
  for (const std::string& key : {section + ".tls_key", section + ".tls_cert"}) {
    if (message.rfind(key + " ", 0) == 0) return {key, 0, message.substr(key.size() + 1)};
  }
  return {section + ".tls_cert", 0, message};
}

// The pair a TLS listener would serve, validated as serve validates it
// (http/certificate.h): a mismatched, expired or not yet valid pair is an
// error; one expiring within 14 days a warning. Skipped when CheckFiles
// already found a file unreadable, so each problem is reported once.
void CheckCertificatePair(const std::string& section, const std::string& cert, const std::string& key,
                          CheckedConfig* out) {
  if (HasProblem(out->errors, section + ".tls_cert") || HasProblem(out->errors, section + ".tls_key")) return;
  auto pair = http::LoadCertificatePair(cert, key, SystemClock(), section);
  if (!pair.ok()) {
    out->errors.push_back(CertificateProblem(section, pair.status().message()));
    return;
  }
  for (const auto& w : (*pair)->warnings) out->loaded.warnings.push_back(CertificateProblem(section, w));
}

}  // namespace

StartEnvironment StartEnvironment::Capture() {
  StartEnvironment out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    out.vars.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return out;
}

const char* StartEnvironment::Find(const std::string& name) const {
  auto it = vars.find(name);
  return it == vars.end() ? nullptr : it->second.c_str();
}

CheckedConfig LoadAndCheck(const std::string& path, bool tls_pairs, const StartEnvironment* env) {
  // config/ cannot include verify/, so the preset table comes in through a lookup.
  static const config::PresetLookup presets{
      [](std::string_view name) { return verify::FindPreset(name); }, verify::PresetNames(),
      [](std::string_view name) { return std::string(verify::RefusedPresetReason(name)); }};
  config::LoadOptions options;
  options.now_ms = SystemClock().NowMs();  // only for warning about a rotation window that has ended
  if (env != nullptr) options.env = [env](const std::string& name) { return env->Find(name); };
  CheckedConfig out{config::LoadFile(path, &presets, options), {}};
  // Read once, so no longer needed in the environment, where exec actions'
  // commands and /proc/<pid>/environ could find them. A reload reads serve's
  // copy (StartEnvironment) and never touches the environment: threads run.
  if (env == nullptr) ScrubEnvironment(out.loaded.config.secret_origins.env_names);
  out.errors = out.loaded.errors;
  if (!out.loaded.ok()) return out;
  for (auto& p : config::CheckFiles(out.loaded.config)) out.errors.push_back(std::move(p));
  if (tls_pairs) {
    const config::Config& c = out.loaded.config;
    if (!c.server.plain_http) CheckCertificatePair("server", c.server.tls_cert, c.server.tls_key, &out);
    if (!c.admin.tls_cert.empty()) CheckCertificatePair("admin", c.admin.tls_cert, c.admin.tls_key, &out);
  }
  for (auto& w : config::CheckRotation(out.loaded.config, SystemClock().NowMs())) {
    out.loaded.warnings.push_back(std::move(w));
  }
  auto& endpoints = out.loaded.config.endpoints;
  for (size_t i = 0; i < endpoints.size(); ++i) {
    if (Status st = verify::CheckEndpoint(endpoints[i]); !st.ok()) {
      out.errors.push_back({"endpoint[" + std::to_string(i) + "]", 0, st.message()});
    }
    endpoints[i].key_spec = verify::KeySpecFingerprint(endpoints[i]);  // stored with each event (once per load)
  }
  return out;
}

void PrintProblems(const CheckedConfig& checked, const std::string& path, std::ostream& err) {
  for (const auto& w : checked.loaded.warnings) err << "warning: " << config::Describe(w, path) << "\n";
  for (const auto& e : checked.errors) err << "error: " << config::Describe(e, path) << "\n";
}

}  // namespace hookinbox::cli
