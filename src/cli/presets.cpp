// `hookinbox presets [--json]`: the provider presets hookinbox knows, with
// what an endpoint using each must add (cli/preset_info.h).
#include <nlohmann/json.hpp>

#include <algorithm>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/preset_info.h"

namespace hookinbox::cli {
namespace {

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

nlohmann::json ToJson(const PresetInfo& p) {
  const config::EndpointConfig& e = *p.preset;
  return {{"name", p.name},
          {"aliases", p.aliases},
          {"scheme", e.signature.scheme},
          {"required", p.required},
          {"secret_hint", p.secret_hint},
          {"handshake", e.handshake.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.handshake)},
          {"redelivery_window_hours", e.redelivery_window_hours}};
}

}  // namespace

int RunPresets(const CommonOptions& common, std::ostream& out, std::ostream& /*err*/) {
  const std::vector<PresetInfo> presets = ListPresets();
  if (common.json) {
    auto list = nlohmann::json::array();
    for (const PresetInfo& p : presets) list.push_back(ToJson(p));
    out << list.dump(2) << "\n";
    return kExitOk;
  }
  // Three columns: the names a config's `provider` takes, then what it must add.
  size_t name_width = 4, required_width = 8;
  for (const PresetInfo& p : presets) {
    name_width = std::max(name_width, p.name.size());
    required_width = std::max(required_width, Join(p.required).size());
  }
  auto row = [&](const std::string& name, const std::string& required, const std::string& aliases) {
    std::string line = name + std::string(name_width + 2 - name.size(), ' ') + required;
    if (!aliases.empty()) line += std::string(required_width + 2 - required.size(), ' ') + aliases;
    out << line << "\n";
  };
  row("NAME", "REQUIRED", "ALIASES");
  for (const PresetInfo& p : presets) row(p.name, Join(p.required), Join(p.aliases));
  out << "\n" << presets.size() << " presets. `hookinbox init --provider NAME [DIR]` writes a ready endpoint for one;"
      << " docs/providers.md has a section for each.\n";
  return kExitOk;
}

}  // namespace hookinbox::cli
