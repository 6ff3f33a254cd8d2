#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/load_config.h"
#include "cli/open_command.h"
#include "config/duration.h"

namespace hookinbox::cli {
namespace {

nlohmann::json ToJson(const std::vector<config::Problem>& problems) {
  auto list = nlohmann::json::array();
  for (const auto& p : problems) list.push_back({{"key", p.key}, {"line", p.line}, {"message", p.message}});
  return list;
}

// Each endpoint's effective retry horizon: how long, and after how many
// attempts at most, a transient failure is retried before it is
// dead-lettered. max_attempts null = no limit but the horizon.
nlohmann::json Horizons(const config::Config& c) {
  auto list = nlohmann::json::array();
  for (const auto& e : c.endpoints) {
    nlohmann::json max_attempts = nullptr;
    if (c.worker.max_attempts) max_attempts = *c.worker.max_attempts;
    list.push_back({{"name", e.name},
                    {"action", e.HasAction() ? nlohmann::json(e.action.type) : nlohmann::json(nullptr)},
                    {"retry_for_seconds", static_cast<double>(c.RetryForMs(e)) / 1000.0},
                    {"max_attempts", max_attempts}});
  }
  return list;
}

// "  payments: retried for 3d, at most 5 attempts" for each endpoint with an action.
void PrintHorizons(const config::Config& c, std::ostream& out) {
  for (const auto& e : c.endpoints) {
    if (!e.HasAction()) continue;
    out << "  " << e.name << ": retried for " << config::FormatDurationMs(c.RetryForMs(e));
    if (c.worker.max_attempts) out << ", at most " << *c.worker.max_attempts << " attempts";
    out << "\n";
  }
}

}  // namespace

int RunCheckConfig(const CommonOptions& common, std::ostream& out, std::ostream& err) {
  // Not OpenForCommand: this verb reports every problem instead of refusing.
  const std::string path = ConfigPath(common);
  CheckedConfig checked = LoadAndCheck(path, /*tls_pairs=*/true);
  const auto& errors = checked.errors;
  const auto& loaded = checked.loaded;
  if (common.json) {
    // The horizons of a config with errors would describe a config that is not used.
    out << nlohmann::json{{"ok", errors.empty()},
                          {"file", path},
                          {"errors", ToJson(errors)},
                          {"warnings", ToJson(loaded.warnings)},
                          {"endpoints", errors.empty() ? Horizons(loaded.config) : nlohmann::json::array()}}
               .dump(2)
        << "\n";
    return errors.empty() ? kExitOk : kExitFailure;
  }
  PrintProblems(checked, path, err);
  if (!errors.empty()) {
    err << path << ": " << errors.size() << (errors.size() == 1 ? " error" : " errors") << "\n";
    return kExitFailure;
  }
  out << path << ": ok (" << loaded.config.endpoints.size()
      << (loaded.config.endpoints.size() == 1 ? " endpoint" : " endpoints") << ")\n";
  PrintHorizons(loaded.config, out);
  return kExitOk;
}

}  // namespace hookinbox::cli
