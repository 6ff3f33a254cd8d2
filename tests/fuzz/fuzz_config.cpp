// fuzz_config — the config file: config::LoadString (TOML → validated
// Config; LoadFile only adds the read), then what check-config and serve run
// on a loaded config: verify::CheckEndpoint per endpoint, CheckRotation, and
// Describe for every problem.
//
// A config is written by the operator, not a sender, but it arrives from
// files, package upgrades and copy-paste, and every mistake must become a
// problem with a key and a line, never an exception or a crash. Loading runs
// with read_secrets = false and a base directory that does not exist, so it
// reads nothing from the machine and every run repeats exactly.
// Properties (abort() on violation): nothing escapes (an exception is a
// libFuzzer crash); loading is deterministic (the same problems twice);
// every problem describes itself with a non-empty message.
#include <cstdint>
#include <string>

#include "config/load.h"
#include "fuzz_input.h"
#include "verify/registry.h"
#include "verify/verify.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hookinbox;
  using fuzz::Check;
  // Built as cli/load_config.cpp builds it: config/ cannot include verify/.
  static const config::PresetLookup presets{
      [](std::string_view name) { return verify::FindPreset(name); }, verify::PresetNames(),
      [](std::string_view name) { return std::string(verify::RefusedPresetReason(name)); }};
  const std::string_view toml = fuzz::AsText(data, size);
  const config::LoadOptions options{.read_secrets = false, .env = nullptr};
  const config::LoadResult r = config::LoadString(toml, "fuzz.toml", "/nonexistent-fuzz", &presets, options);
  const config::LoadResult again = config::LoadString(toml, "fuzz.toml", "/nonexistent-fuzz", &presets, options);
  Check(r.errors.size() == again.errors.size() && r.warnings.size() == again.warnings.size(),
        "loading the same text twice gave different problems");
  for (const auto* list : {&r.errors, &r.warnings}) {
    for (const config::Problem& p : *list) {
      Check(!p.message.empty(), "a problem without a message");
      Check(!config::Describe(p, "fuzz.toml").empty(), "Describe gave nothing");
    }
  }
  if (!r.ok()) return 0;
  for (const auto& e : r.config.endpoints) (void)verify::CheckEndpoint(e);
  (void)config::CheckRotation(r.config, 1767225600000);
  return 0;
}
