#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/load_config.h"
#include "cli/open_command.h"

namespace hookinbox::cli {
namespace {

nlohmann::json ToJson(const std::vector<config::Problem>& problems) {
  auto list = nlohmann::json::array();
  for (const auto& p : problems) list.push_back({{"key", p.key}, {"line", p.line}, {"message", p.message}});
  return list;
}

}  // namespace

int RunCheckConfig(const CommonOptions& common, std::ostream& out, std::ostream& err) {
  // Not OpenForCommand: this verb reports every problem instead of refusing.
  const std::string path = ConfigPath(common);
  CheckedConfig checked = LoadAndCheck(path, /*tls_pairs=*/true);
  const auto& errors = checked.errors;
  const auto& loaded = checked.loaded;
  if (common.json) {
    out << nlohmann::json{{"ok", errors.empty()}, {"file", path}, {"errors", ToJson(errors)},
                          {"warnings", ToJson(loaded.warnings)}}.dump(2)
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
  return kExitOk;
}

}  // namespace hookinbox::cli
