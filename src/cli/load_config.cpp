#include "cli/load_config.h"

#include "common/clock.h"

#include "verify/registry.h"
#include "verify/verify.h"

namespace hookinbox::cli {

CheckedConfig LoadAndCheck(const std::string& path) {
  // config/ cannot include verify/, so the preset table comes in through a lookup.
  static const config::PresetLookup presets{
      [](std::string_view name) { return verify::FindPreset(name); }, verify::PresetNames(),
      [](std::string_view name) { return std::string(verify::RefusedPresetReason(name)); }};
  CheckedConfig out{config::LoadFile(path, &presets), {}};
  out.errors = out.loaded.errors;
  if (!out.loaded.ok()) return out;
  for (auto& p : config::CheckFiles(out.loaded.config)) out.errors.push_back(std::move(p));
  for (auto& w : config::CheckRotation(out.loaded.config, SystemClock().NowMs())) {
    out.loaded.warnings.push_back(std::move(w));
  }
  const auto& endpoints = out.loaded.config.endpoints;
  for (size_t i = 0; i < endpoints.size(); ++i) {
    if (Status st = verify::CheckEndpoint(endpoints[i]); !st.ok()) {
      out.errors.push_back({"endpoint[" + std::to_string(i) + "]", 0, st.message()});
    }
  }
  return out;
}

void PrintProblems(const CheckedConfig& checked, const std::string& path, std::ostream& err) {
  for (const auto& w : checked.loaded.warnings) err << "warning: " << config::Describe(w, path) << "\n";
  for (const auto& e : checked.errors) err << "error: " << config::Describe(e, path) << "\n";
}

}  // namespace hookinbox::cli
