#include "cli/key_guard.h"

#include <algorithm>

#include "verify/key_spec.h"

namespace hookinbox::cli {

namespace {

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::vector<store::KeySpecNow> KeySpecsOf(const config::Config& config) {
  std::vector<store::KeySpecNow> out;
  out.reserve(config.endpoints.size());
  for (const config::EndpointConfig& e : config.endpoints) {
    verify::KeySpec spec = verify::DescribeKeySpec(e);
    out.push_back({e.name, e.provider, std::move(spec.fingerprint), std::move(spec.text)});
  }
  return out;
}

Status GuardKeySpecs(store::KeySpecs& store, const config::Config& config, const std::vector<std::string>& accepted,
                     const std::string& actor, int64_t now_ms) {
  for (const std::string& name : accepted) {
    if (config.FindEndpoint(name) == nullptr) {
      return InvalidArgument("--accept-key-change " + name + ": no endpoint \"" + name + "\" in the config");
    }
  }
  const std::vector<store::KeySpecNow> specs = KeySpecsOf(config);
  auto changes = store.CheckKeySpecs(specs);
  if (!changes.ok()) return changes.status();
  std::string refused;
  for (const store::KeySpecChange& c : *changes) {
    if (Contains(accepted, c.endpoint)) continue;
    refused += (refused.empty() ? "" : "\n") + store::ExplainKeySpecChange(c);
  }
  if (!refused.empty()) return Status(Code::kConflict, refused);
  // Decides again under the write lock: an event stored since the check
  // (another replica) still refuses an unaccepted change.
  return store.RecordKeySpecs(specs, accepted, actor, now_ms);
}

}  // namespace hookinbox::cli
