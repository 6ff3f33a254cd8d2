#include "cli/key_guard.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "verify/key_spec.h"

namespace hookinbox::cli {

namespace {

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

KeyGuardOutcome Refused(Code code, std::vector<config::Problem> problems) { return {code, std::move(problems)}; }

// A refusal of the database (or of its own re-check under the write lock):
// a problem per line of its text, as a driver's message may span several.
KeyGuardOutcome RefusedBy(const Status& st) {
  std::vector<config::Problem> problems;
  std::string_view text = st.message();
  while (!text.empty()) {
    const size_t end = text.find('\n');
    if (end != 0) problems.push_back({"", 0, std::string(text.substr(0, end))});
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  if (problems.empty()) problems.push_back({"", 0, "the key settings could not be checked"});
  return Refused(st.code(), std::move(problems));
}

}  // namespace

Status KeyGuardOutcome::status() const {
  if (ok()) return Status::Ok();
  std::string text;
  for (const config::Problem& p : problems) text += (text.empty() ? "" : "\n") + p.message;
  return Status(code, text);
}

std::vector<store::KeySpecNow> KeySpecsOf(const config::Config& config) {
  std::vector<store::KeySpecNow> out;
  out.reserve(config.endpoints.size());
  for (const config::EndpointConfig& e : config.endpoints) {
    verify::KeySpec spec = verify::DescribeKeySpec(e);
    out.push_back({e.name, e.provider, std::move(spec.fingerprint), std::move(spec.text)});
  }
  return out;
}

KeyGuardOutcome GuardKeySpecs(store::KeySpecs& store, const config::Config& config,
                              const std::vector<std::string>& accepted, const std::string& actor, int64_t now_ms) {
  for (const std::string& name : accepted) {
    if (config.FindEndpoint(name) == nullptr) {
      return Refused(Code::kInvalidArgument,
                     {{"", 0, "--accept-key-change " + name + ": no endpoint \"" + name + "\" in the config"}});
    }
  }
  const std::vector<store::KeySpecNow> specs = KeySpecsOf(config);
  auto changes = store.CheckKeySpecs(specs);
  if (!changes.ok()) return RefusedBy(changes.status());
  std::vector<config::Problem> refused;
  for (const store::KeySpecChange& c : *changes) {
    if (!Contains(accepted, c.endpoint)) refused.push_back({"", 0, store::ExplainKeySpecChange(c)});
  }
  if (!refused.empty()) return Refused(Code::kConflict, std::move(refused));
  // Decides again under the write lock: an event stored since the check
  // (another replica) still refuses an unaccepted change.
  if (Status st = store.RecordKeySpecs(specs, accepted, actor, now_ms); !st.ok()) return RefusedBy(st);
  return {};
}

}  // namespace hookinbox::cli
